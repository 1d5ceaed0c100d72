/*
 * dlpack_abi.h - DLPack 1.3, declared by pjrt-dlpack, plus the enum values
 * DLPack's main branch added after the v1.3 tag.
 *
 * This is the project's own declaration of a public binary interface. Names,
 * field order, types, enum values, the flag bits and the include guard are facts
 * of that interface and match it exactly, so code written for DLPack compiles
 * against this file unchanged and every struct is binary compatible (tests/abi
 * checks every size, offset and value).
 *
 * Ownership in one paragraph: a DLPack tensor is lent by a producer to a
 * consumer inside a managed struct (DLManagedTensorVersioned, or the legacy
 * DLManagedTensor). From the moment the consumer receives it, the consumer owns
 * the managed struct and must call its deleter exactly once when it no longer
 * needs the data; the deleter frees the struct itself, the shape and strides
 * arrays, and releases the producer's hold on the memory. Until then the
 * producer keeps the memory, shape and strides valid and unchanged.
 *
 * Unreleased values. kDLTPU (19), kDLTPUHost (20), kDLAscend (21) and
 * kDLBcomplex (18U) are not in any DLPack release: they come from DLPack's
 * main branch after v1.3 (commit 94485e2, v1.3-4-g94485e2, which also
 * documents that a Metal tensor's data is an id<MTLBuffer>; the minor version
 * stays 3). The stored snapshot of dmlc/dlpack could not show that commit, so
 * the numbers rest on secondary evidence, recorded in docs/conformance.md
 * ("Device types after DLPack 1.3"): notes of two independent projects that
 * diffed v1.3..94485e2, and JAX, which already emits 20 (kDLTPUHost) for TPU
 * pinned host memory. A release may still renumber them; the marked lines
 * below are the ones to check when it comes.
 */
#ifndef DLPACK_DLPACK_H_
#define DLPACK_DLPACK_H_

/* Marks declarations that need C linkage when compiled as C++. */
#ifdef __cplusplus
#define DLPACK_EXTERN_C extern "C"
#else
#define DLPACK_EXTERN_C
#endif

/* The interface version declared here. */
#define DLPACK_MAJOR_VERSION 1
#define DLPACK_MINOR_VERSION 3

/* Import/export decoration for Windows DLLs; empty elsewhere. */
#ifdef _WIN32
#ifdef DLPACK_EXPORTS
#define DLPACK_DLL __declspec(dllexport)
#else
#define DLPACK_DLL __declspec(dllimport)
#endif
#else
#define DLPACK_DLL
#endif

#include <stdint.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * A version pair. A consumer that receives a tensor whose major version differs
 * from DLPACK_MAJOR_VERSION may only call its deleter (which sits at a fixed
 * place in every major version); any other field may have moved. A newer minor
 * version only adds enum values and flags.
 */
typedef struct {
    uint32_t major;
    uint32_t minor;
} DLPackVersion;

/*
 * Where the memory of a tensor lives. The underlying type is int32_t in C++ and
 * int in C (the same size on every supported platform). Values 5 and 6 are
 * unassigned.
 */
#ifdef __cplusplus
typedef enum : int32_t {
#else
typedef enum {
#endif
    kDLCPU = 1,          /* ordinary host memory */
    kDLCUDA = 2,         /* CUDA device memory */
    kDLCUDAHost = 3,     /* page-locked host memory from cudaMallocHost */
    kDLOpenCL = 4,       /* OpenCL buffer */
    kDLVulkan = 7,       /* Vulkan buffer */
    kDLMetal = 8,        /* Apple Metal buffer */
    kDLVPI = 9,          /* Verilog simulator memory */
    kDLROCM = 10,        /* AMD ROCm device memory */
    kDLROCMHost = 11,    /* page-locked host memory from hipMallocHost */
    kDLExtDev = 12,      /* reserved for experimental devices; meaning is local */
    kDLCUDAManaged = 13, /* CUDA unified memory from cudaMallocManaged */
    kDLOneAPI = 14,      /* oneAPI/SYCL unified shared memory */
    kDLWebGPU = 15,      /* WebGPU buffer */
    kDLHexagon = 16,     /* Qualcomm Hexagon DSP memory */
    kDLMAIA = 17,        /* Microsoft MAIA device memory */
    kDLTrn = 18,         /* AWS Trainium device memory */
    kDLTPU = 19,         /* Google TPU device memory (unreleased: DLPack main) */
    kDLTPUHost = 20,     /* TPU pinned host memory (unreleased: DLPack main) */
    kDLAscend = 21,      /* Huawei Ascend NPU memory (unreleased: DLPack main) */
} DLDeviceType;

/*
 * A device: its type and its index among devices of that type. Host-side
 * memory kinds (CPU, pinned, managed) use index 0.
 */
typedef struct {
    DLDeviceType device_type;
    int32_t device_id;
} DLDevice;

/*
 * The kind of an element (DLDataType.code). Sub-byte codes (float6, float4)
 * require bits to be exactly 6 or 4; a consumer must reject other values.
 */
typedef enum {
    kDLInt = 0U,
    kDLUInt = 1U,
    kDLFloat = 2U,        /* IEEE 754 binary floating point */
    kDLOpaqueHandle = 3U, /* opaque handles; meaning agreed between the two sides */
    kDLBfloat = 4U,       /* bfloat16 */
    kDLComplex = 5U,      /* complex: real then imaginary part, bits counts both */
    kDLBool = 6U,         /* boolean, conventionally stored in 8 bits */
    kDLFloat8_e3m4 = 7U,  /* 8-bit floating point formats */
    kDLFloat8_e4m3 = 8U,
    kDLFloat8_e4m3b11fnuz = 9U,
    kDLFloat8_e4m3fn = 10U,
    kDLFloat8_e4m3fnuz = 11U,
    kDLFloat8_e5m2 = 12U,
    kDLFloat8_e5m2fnuz = 13U,
    kDLFloat8_e8m0fnu = 14U,
    kDLFloat6_e2m3fn = 15U, /* 6-bit floating point formats (bits must be 6) */
    kDLFloat6_e3m2fn = 16U,
    kDLFloat4_e2m1fn = 17U, /* 4-bit floating point format (bits must be 4) */
    kDLBcomplex = 18U,      /* complex of two bfloat16 parts (unreleased: DLPack main) */
} DLDataTypeCode;

/*
 * An element type: code is a DLDataTypeCode value, bits the width of one lane,
 * lanes the vector width (1 for scalars). Data is in the host's byte order.
 * Sub-byte elements are packed little-bit-endian unless the tensor carries
 * DLPACK_FLAG_BITMASK_IS_SUBBYTE_TYPE_PADDED.
 */
typedef struct {
    uint8_t code;
    uint8_t bits;
    uint16_t lanes;
} DLDataType;

/*
 * A view of an n-dimensional array. It owns nothing: data, shape and strides
 * belong to whoever produced the view and stay valid as long as that producer
 * says (for a managed tensor: until its deleter is called).
 *
 * The first element is at (char *)data + byte_offset. data is a device address
 * for device memory and may be NULL for an empty tensor. shape and strides
 * point to ndim int64_t values each (either may be NULL when ndim is 0).
 * For kDLMetal (DLPack main, not yet released) data holds an id<MTLBuffer>,
 * the Metal buffer object, and byte_offset locates the first element inside
 * it: data is then not an address at all.
 * strides are counted in elements, not bytes; since 1.2 they must not be NULL
 * when ndim is non-zero, though consumers meeting older producers treat NULL as
 * compact row-major.
 */
typedef struct {
    void *data;
    DLDevice device;
    int32_t ndim;
    DLDataType dtype;
    int64_t *shape;
    int64_t *strides;
    uint64_t byte_offset;
} DLTensor;

/*
 * The legacy managed tensor (before versioning). The consumer that receives it
 * owns it and calls deleter(self) exactly once when done; deleter may be NULL
 * when there is nothing to release. manager_ctx is the producer's and is not
 * interpreted by the consumer.
 */
typedef struct DLManagedTensor {
    DLTensor dl_tensor;
    void *manager_ctx;
    void (*deleter)(struct DLManagedTensor *self);
} DLManagedTensor;

/* Flag bits of DLManagedTensorVersioned.flags. */

/* The consumer must not write to the data. */
#define DLPACK_FLAG_BITMASK_READ_ONLY (1UL << 0UL)

/* The producer made a copy for this consumer: no one else sees the memory. */
#define DLPACK_FLAG_BITMASK_IS_COPIED (1UL << 1UL)

/* Sub-byte elements are stored one per byte instead of packed. */
#define DLPACK_FLAG_BITMASK_IS_SUBBYTE_TYPE_PADDED (1UL << 2UL)

/*
 * The managed tensor exchanged since 1.0. The consumer owns it on receipt and
 * calls deleter(self) exactly once (deleter may be NULL). version tells the
 * layout; the fields up to and including flags keep their place in every
 * future version, so an unknown major version can still be released.
 */
typedef struct DLManagedTensorVersioned {
    DLPackVersion version;
    void *manager_ctx;
    void (*deleter)(struct DLManagedTensorVersioned *self);
    uint64_t flags;
    DLTensor dl_tensor;
} DLManagedTensorVersioned;

/*
 * The C exchange API (added in 1.2; published to Python through the type
 * attribute __dlpack_c_exchange_api__ as a capsule named "dlpack_exchange_api"
 * since 1.3). A producer framework fills a DLPackExchangeAPI once and keeps it
 * alive for the whole process. None of these functions synchronizes streams:
 * the consumer asks current_work_stream and orders its work itself. They return
 * 0 on success and -1 on failure (with a Python error set, or reported through
 * SetError for the allocator); they never throw.
 */

/*
 * Asks the producer to allocate a new tensor shaped like prototype (only
 * device, ndim, shape and dtype are read). On success *out is a managed tensor
 * owned by the caller; on failure SetError(error_ctx, kind, message) has been
 * called.
 */
typedef int (*DLPackManagedTensorAllocator)(DLTensor *prototype, DLManagedTensorVersioned **out,
                                            void *error_ctx,
                                            void (*SetError)(void *error_ctx, const char *kind,
                                                             const char *message));

/* Exports a producer object as a new managed tensor owned by the caller. */
typedef int (*DLPackManagedTensorFromPyObjectNoSync)(void *py_object,
                                                     DLManagedTensorVersioned **out);

/*
 * Fills a caller-provided DLTensor that borrows the object's data, shape and
 * strides; the view is only valid until control returns to the producer.
 */
typedef int (*DLPackDLTensorFromPyObjectNoSync)(void *py_object, DLTensor *out);

/*
 * Reports the producer's current stream for a device (NULL on the CPU). The
 * stream stays owned by the producer.
 */
typedef int (*DLPackCurrentWorkStream)(DLDeviceType device_type, int32_t device_id,
                                       void **out_current_stream);

/*
 * Wraps a managed tensor in a new producer object, taking ownership of the
 * tensor (its deleter will be called by the producer).
 */
typedef int (*DLPackManagedTensorToPyObjectNoSync)(DLManagedTensorVersioned *tensor,
                                                   void **out_py_object);

/*
 * The stable start of every exchange table: its version, and an optional
 * pointer to a table of an older version (NULL if none), both owned by the
 * producer.
 */
typedef struct DLPackExchangeAPIHeader {
    DLPackVersion version;
    struct DLPackExchangeAPIHeader *prev_api;
} DLPackExchangeAPIHeader;

/*
 * A producer's exchange table. Every function must be non-NULL except
 * dltensor_from_py_object_no_sync, which a producer may leave NULL.
 */
typedef struct DLPackExchangeAPI {
    DLPackExchangeAPIHeader header;
    DLPackManagedTensorAllocator managed_tensor_allocator;
    DLPackManagedTensorFromPyObjectNoSync managed_tensor_from_py_object_no_sync;
    DLPackManagedTensorToPyObjectNoSync managed_tensor_to_py_object_no_sync;
    DLPackDLTensorFromPyObjectNoSync dltensor_from_py_object_no_sync;
    DLPackCurrentWorkStream current_work_stream;
} DLPackExchangeAPI;

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* DLPACK_DLPACK_H_ */
