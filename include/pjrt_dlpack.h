/*
 * pjrt_dlpack.h — DLPack for every PJRT plugin.
 *
 * libpjrt_dlpack loads any PJRT C API plugin and exchanges its buffers with
 * any DLPack producer or consumer, zero-copy where the plugin allows it.
 *
 * Conventions that hold for every function below unless its comment says
 * otherwise:
 *
 *  - Errors. Functions return a pjdl_code: PJDL_OK (0) on success, otherwise
 *    one of the PJRT / absl status codes. The message of the calling thread's
 *    last failure is returned by pjdl_last_error(). Errors that come from the
 *    plugin keep the plugin's code and message. Out-parameters are left
 *    untouched on failure.
 *  - Threads. Every function may be called from any thread, concurrently with
 *    any other, including on the same object. DLPack deleters handed out by
 *    this library may run on any thread.
 *  - Handles. pjdl_plugin, pjdl_client, pjdl_buffer and pjdl_executable are
 *    reference counted. Every function that hands one out with "owned" in its
 *    comment gives the caller one reference, to be dropped with the matching
 *    _release. Objects keep what they depend on alive: a buffer or an
 *    executable keeps its client alive, a client keeps its plugin alive, so
 *    release order never matters.
 *    pjdl_device and pjdl_memory are borrowed: they live as long as their
 *    client.
 *  - NULL for an options pointer means the defaults.
 */
#ifndef PJRT_DLPACK_H_
#define PJRT_DLPACK_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pjrt_dlpack/dlpack_abi.h"
#include "pjrt_dlpack/pjrt_abi.h"

#ifdef __cplusplus
extern "C" {
#endif

#if defined(_WIN32)
#define PJDL_API
#else
#define PJDL_API __attribute__((visibility("default")))
#endif

/* The project's version, in its one place: CMake, the reference plugin and
 * the Python package read it from here. */
#define PJDL_VERSION_MAJOR 0
#define PJDL_VERSION_MINOR 1
#define PJDL_VERSION_PATCH 0

/* ------------------------------------------------------------------ errors */

/* Status codes: the values of PJRT_Error_Code (which are absl's). */
typedef enum pjdl_code {
    PJDL_OK = 0,
    PJDL_CANCELLED = 1,
    PJDL_UNKNOWN = 2,
    PJDL_INVALID_ARGUMENT = 3,
    PJDL_DEADLINE_EXCEEDED = 4,
    PJDL_NOT_FOUND = 5,
    PJDL_ALREADY_EXISTS = 6,
    PJDL_PERMISSION_DENIED = 7,
    PJDL_RESOURCE_EXHAUSTED = 8,
    PJDL_FAILED_PRECONDITION = 9,
    PJDL_ABORTED = 10,
    PJDL_OUT_OF_RANGE = 11,
    PJDL_UNIMPLEMENTED = 12,
    PJDL_INTERNAL = 13,
    PJDL_UNAVAILABLE = 14,
    PJDL_DATA_LOSS = 15,
    PJDL_UNAUTHENTICATED = 16,
} pjdl_code;

/* The message of the calling thread's most recent failed call ("" if none).
 * Read it after a call failed: most calls clear it when they start, but a
 * successful pjdl_buffer_export, pjdl_buffer_export_legacy, pjdl_import or
 * pjdl_import_legacy leaves an earlier failure's message in place. The
 * string stays valid until the
 * calling thread's next call into the library. */
PJDL_API const char *pjdl_last_error(void);

/* Whether the calling thread's last failure was a copy refused: an import
 * or export with copy NEVER (PJDL_COPY_NEVER) where only a copy could do
 * what was asked (no view of the tensor's layout, device, read-only flag,
 * alignment or sub-byte form is possible). Such a failure's code is the
 * reason's (INVALID_ARGUMENT, or UNIMPLEMENTED for a plugin without views);
 * this tells it apart from a tensor that cannot be taken at all, as the
 * array API's ValueError does. Read after a failure only, like
 * pjdl_last_error. */
PJDL_API bool pjdl_last_error_is_copy_refused(void);

/* The upper-case name of a code ("INVALID_ARGUMENT"); a static string. */
PJDL_API const char *pjdl_code_name(pjdl_code code);

/* The library's version as "MAJOR.MINOR.PATCH"; a static string. */
PJDL_API const char *pjdl_version(void);

/* ----------------------------------------------------------------- plugins */

typedef struct pjdl_plugin pjdl_plugin;

/* Loads a PJRT plugin with dlopen and initializes it (once per process).
 *
 * `path` is a file path (it contains a '/' or ends in ".so"), or a plugin
 * name looked up in JAX's discovery variable PJRT_NAMES_AND_LIBRARY_PATHS
 * ("name:path,name:path"). NULL means: the PJRT_DLPACK_PLUGIN environment
 * variable (itself a path or a name) if set, else the reference plugin
 * installed next to this library (libpjrt_ref.so).
 *
 * The plugin's PJRT_Api major version must equal PJRT_API_MAJOR (else
 * FAILED_PRECONDITION); any minor version is accepted, and entry points the
 * plugin's table is too short for, or leaves NULL, are reported as
 * UNIMPLEMENTED when used. On success *out is owned. Errors: NOT_FOUND (no
 * such file or name), INVALID_ARGUMENT (not a PJRT plugin: no GetPjrtApi, or
 * it returned NULL or a malformed table), FAILED_PRECONDITION (version), or
 * the plugin's own error from PJRT_Plugin_Initialize. */
PJDL_API pjdl_code pjdl_plugin_load(const char *path, pjdl_plugin **out);

/* Looks up `name` in PJRT_NAMES_AND_LIBRARY_PATHS. On success *path points
 * into a thread-local copy valid until the thread's next call. NOT_FOUND when
 * the variable is unset or has no such name. */
PJDL_API pjdl_code pjdl_plugin_find(const char *name, const char **path);

/* Wraps a PJRT_Api that some framework already loaded and initialized. The
 * table must stay valid and unchanged while the returned plugin lives (the
 * library reads which entry points it has once, here); it is not
 * initialized again, and a later pjdl_plugin_load of the same library (same
 * table) does not initialize it either. The table's major version must equal
 * PJRT_API_MAJOR (else FAILED_PRECONDITION); INVALID_ARGUMENT when it is too
 * short to hold the error functions or they are NULL. On success *out is
 * owned. */
PJDL_API pjdl_code pjdl_plugin_from_api(const PJRT_Api *api, pjdl_plugin **out);

/* Adds / drops a reference. The plugin object is freed when the last
 * reference (including those held by clients and buffers) goes away, but the
 * plugin's shared library stays loaded until the process exits: real plugins
 * (XLA's among them) register exit-time handlers and run threads, and crash
 * the process if they are unmapped. PJRT_Plugin_Initialize therefore runs
 * once per process for each library, however often it is loaded and
 * released. NULL is a no-op. */
PJDL_API void pjdl_plugin_retain(pjdl_plugin *plugin);
PJDL_API void pjdl_plugin_release(pjdl_plugin *plugin);

/* The plugin's function table; borrowed, valid while the plugin lives. */
PJDL_API const PJRT_Api *pjdl_plugin_api(const pjdl_plugin *plugin);
/* The first minor version whose extension records start with struct_size
 * (XLA's changelog, 0.45: "Added struct_size field to beginning of
 * PJRT_Extension_Base"). */
#define PJDL_EXTENSION_BASE_MINOR 45
/* The first extension record of a plugin's table (api->extension_start), or
 * NULL: none, a table too short to hold the field, or an ABI older than
 * 0.45, whose records began with their type, not their struct_size, and
 * cannot be read as PJRT_Extension_Base (jax-cuda11-pjrt 0.4.25, ABI 0.42:
 * read as today's, its chain crashed the reader). Inline, for code that
 * calls a plugin's table without the library. */
static inline const PJRT_Extension_Base *pjdl_api_extensions(const PJRT_Api *api) {
    size_t need = offsetof(PJRT_Api, pjrt_api_version) + sizeof api->pjrt_api_version;
    if (api == NULL || api->struct_size < need || api->pjrt_api_version.major_version != 0 ||
        api->pjrt_api_version.minor_version < PJDL_EXTENSION_BASE_MINOR)
        return NULL;
    return api->extension_start;
}

/* The path the plugin was loaded from, or NULL for pjdl_plugin_from_api. */
PJDL_API const char *pjdl_plugin_path(const pjdl_plugin *plugin);

/* The ABI version the plugin reports in PJRT_Api.pjrt_api_version. */
PJDL_API void pjdl_plugin_abi_version(const pjdl_plugin *plugin, int *major, int *minor);

/* Whether the plugin provides the entry point named `slot` (a PJRT_Api field
 * name such as "PJRT_Client_CreateViewOfDeviceBuffer"): inside the plugin's
 * struct_size and not NULL. An unknown name is false. Providing a slot does
 * not mean it works: it may still return UNIMPLEMENTED. */
PJDL_API bool pjdl_plugin_provides(const pjdl_plugin *plugin, const char *slot);

/* The first extension of type `type` in the plugin's extension chain, or
 * NULL; borrowed, valid while the plugin lives. */
PJDL_API const PJRT_Extension_Base *pjdl_plugin_extension(const pjdl_plugin *plugin,
                                                          PJRT_Extension_Type type);

/* ----------------------------------------------------------------- clients */

typedef struct pjdl_client pjdl_client;
typedef struct pjdl_device pjdl_device;
typedef struct pjdl_memory pjdl_memory;

typedef enum pjdl_option_type {
    PJDL_OPTION_STRING = 0,
    PJDL_OPTION_INT64 = 1,
    PJDL_OPTION_INT64_LIST = 2,
    PJDL_OPTION_FLOAT = 3,
    PJDL_OPTION_BOOL = 4,
} pjdl_option_type;

/* A named client-creation option (PJRT_NamedValue without the ceremony). The
 * strings and list need only live for the duration of pjdl_client_create. */
typedef struct pjdl_option {
    const char *name;
    pjdl_option_type type;
    union {
        const char *string_value;
        int64_t int64_value;
        struct {
            const int64_t *values;
            size_t count;
        } int64_list;
        float float_value;
        bool bool_value;
    } value;
} pjdl_option;

/* Parses "name=value" into *out, the type inferred from the value: "true" /
 * "false" are BOOL, an integer is INT64, a comma-separated list of integers
 * "[1,2,3]" is INT64_LIST, a number with '.' or an exponent is FLOAT, and
 * anything else is STRING; "name:string=value" (or :int64, :float, :bool,
 * :int64_list) forces the type. The name, and the list of an INT64_LIST,
 * are copied into thread-local storage; a STRING value points into `text`.
 * So *out is valid while `text` lives and until the calling thread's next
 * call of this function: parsing several options means copying each *out's
 * name (and list) before parsing the next. INVALID_ARGUMENT names what is
 * wrong. */
PJDL_API pjdl_code pjdl_option_parse(const char *text, pjdl_option *out);

/* Creates a PJRT client with the plugin's PJRT_Client_Create and reads its
 * platform, devices and memories once. On success *out is owned and the PJRT
 * client is destroyed when the last reference goes away. */
PJDL_API pjdl_code pjdl_client_create(pjdl_plugin *plugin, const pjdl_option *options,
                                      size_t num_options, pjdl_client **out);

/* Wraps a PJRT client someone else owns; it is never destroyed by this
 * library, and must outlive the returned object and everything made from
 * it. On success *out is owned. */
PJDL_API pjdl_code pjdl_client_wrap(pjdl_plugin *plugin, PJRT_Client *client, pjdl_client **out);

PJDL_API void pjdl_client_retain(pjdl_client *client);
PJDL_API void pjdl_client_release(pjdl_client *client);

/* Borrowed accessors; valid while the client lives. */
PJDL_API PJRT_Client *pjdl_client_pjrt(const pjdl_client *client);
PJDL_API pjdl_plugin *pjdl_client_plugin(const pjdl_client *client);
PJDL_API const char *pjdl_client_platform_name(const pjdl_client *client);
PJDL_API const char *pjdl_client_platform_version(const pjdl_client *client);
/* XLA's platform id: pjdl_platform_id of the platform name. */
PJDL_API uint64_t pjdl_client_platform_id(const pjdl_client *client);

/* The client's addressable devices, in the plugin's order. */
PJDL_API size_t pjdl_client_device_count(const pjdl_client *client);
/* NULL when index is out of range. */
PJDL_API pjdl_device *pjdl_client_device(const pjdl_client *client, size_t index);

PJDL_API PJRT_Device *pjdl_device_pjrt(const pjdl_device *device);
PJDL_API pjdl_client *pjdl_device_client(const pjdl_device *device);
PJDL_API int pjdl_device_id(const pjdl_device *device);
PJDL_API int pjdl_device_local_hardware_id(const pjdl_device *device);
PJDL_API const char *pjdl_device_kind(const pjdl_device *device);
PJDL_API const char *pjdl_device_debug_string(const pjdl_device *device);

/* The memories the device can address; the default one first is NOT
 * implied: use pjdl_device_default_memory. */
PJDL_API size_t pjdl_device_memory_count(const pjdl_device *device);
PJDL_API pjdl_memory *pjdl_device_memory(const pjdl_device *device, size_t index);
/* NULL when the plugin reports no default memory. */
PJDL_API pjdl_memory *pjdl_device_default_memory(const pjdl_device *device);

PJDL_API PJRT_Memory *pjdl_memory_pjrt(const pjdl_memory *memory);
PJDL_API const char *pjdl_memory_kind(const pjdl_memory *memory);
PJDL_API int pjdl_memory_id(const pjdl_memory *memory);

/* The DLDevice that data in `memory` of `device` has (memory NULL: the
 * device's default memory): the platform's device type, or the memory kind's
 * host type (pinned_host on cuda is kDLCUDAHost, ...). device_id is 0 for
 * host memory (kDLCPU, kDLCUDAHost, kDLROCMHost), as DLPack says, whichever
 * device it belongs to; otherwise the device's local hardware id (its index
 * among the client's devices when the plugin has no hardware id).
 * UNIMPLEMENTED when the platform is unknown (see pjdl_register_platform). */
PJDL_API pjdl_code pjdl_device_dl(const pjdl_device *device, const pjdl_memory *memory,
                                  DLDevice *out);

/* The reverse: the device and memory of `client` whose DLDevice is `dl`;
 * for host memory the first device that has memory of that type, whatever
 * the id (a host tensor carries id 0; an import that should land on another
 * device names it in pjdl_import_options). Either out-pointer may be NULL.
 * NOT_FOUND when the client has none. */
PJDL_API pjdl_code pjdl_client_find_dl(const pjdl_client *client, DLDevice dl, pjdl_device **device,
                                       pjdl_memory **memory);

/* The stream handle on which the device's external ready events are placed
 * (the stream extension's get_stream). UNIMPLEMENTED when the plugin has no
 * stream extension, or the plugin's own error (e.g. a platform without
 * streams). */
PJDL_API pjdl_code pjdl_device_stream(const pjdl_device *device, intptr_t *stream);

/* --------------------------------------------------------------- platforms */

/* XLA's platform id for a platform name: farmhash Fingerprint64 of the name's
 * `len` bytes. */
PJDL_API uint64_t pjdl_platform_id(const char *name, size_t len);

/* Teaches the library (process-wide) which DLPack device types a platform
 * uses: `device_type` for its device memory, `host_memory_type` for its
 * pinned host memory (kDLCPU if the platform has no special host type). A
 * later registration of the same name replaces the earlier one, built-ins
 * included. Platform names are compared without regard to case (jax-metal
 * says "METAL"); memory kinds are compared exactly. Built in: cpu (kDLCPU), cuda (kDLCUDA /
 * kDLCUDAHost), rocm (kDLROCM / kDLROCMHost), xpu, oneapi and sycl (kDLOneAPI), metal, mps and mtl
 * (kDLMetal), vulkan (kDLVulkan), opencl (kDLOpenCL), webgpu (kDLWebGPU), hexagon (kDLHexagon),
 * maia (kDLMAIA), trn (kDLTrn), tpu (kDLTPU / kDLTPUHost). INVALID_ARGUMENT for an empty name or a
 * device type DLPack does not define. */
PJDL_API pjdl_code pjdl_register_platform(const char *platform_name, DLDeviceType device_type,
                                          DLDeviceType host_memory_type);

/* A number that changes whenever pjdl_register_platform succeeds, so that
 * whatever a caller derived from the platform registry (a DLDevice, a device
 * type) and cached stays true while the number it read before deriving it is
 * the number now. Starts at 0; one atomic load; any thread. */
PJDL_API unsigned pjdl_platform_generation(void);

/* The DLPack device type of memory kind `memory_kind` (NULL: the default
 * device memory) on platform `platform_name`. "unpinned_host" is always
 * kDLCPU, "pinned_host" the platform's host type, anything else the
 * platform's device type. UNIMPLEMENTED for an unknown platform, except
 * that "unpinned_host" is kDLCPU on every platform. */
PJDL_API pjdl_code pjdl_platform_dl_type(const char *platform_name, const char *memory_kind,
                                         DLDeviceType *out);

/* "kDLCUDAHost", ...: the name of a DLPack device type; a static string,
 * "unknown device type" for a value DLPack does not define. */
PJDL_API const char *pjdl_dl_device_type_name(DLDeviceType type);

/* Whether memory of `type` can be read by the host CPU with plain loads:
 * kDLCPU, kDLCUDAHost, kDLROCMHost and kDLTPUHost. kDLCUDAManaged is not: reading it
 * while a device stream writes it needs a synchronization this library
 * cannot do. Such memory is what the library copies from when a view is
 * impossible. */
PJDL_API bool pjdl_dl_device_type_host_reachable(DLDeviceType type);

/* Whether two DLDevices name the same memory: same type and id, and for
 * host memory (the types above) any id. DLPack gives host memory device_id
 * 0; a producer that writes another id still means the host. */
PJDL_API bool pjdl_dl_device_same(DLDevice a, DLDevice b);

/* ------------------------------------------------------------------- types */

/* PJRT element type <-> DLPack dtype (lanes 1). Every type of at least 8
 * bits that DLPack can express maps both ways: PRED <-> kDLBool 8, signed and
 * unsigned integers, F16/F32/F64, BF16, C64/C128 (kDLComplex 64/128) and the
 * float8 family (DLPack 1.1 codes); so do the sub-byte types: S4/U4, S2/U2,
 * S1/U1 <-> kDLInt/kDLUInt of 4, 2, 1 bits, F4E2M1FN <-> kDLFloat4_e2m1fn 4,
 * F6E2M3FN/F6E3M2FN <-> kDLFloat6_* 6. Others (TOKEN, INVALID, lanes > 1,
 * kDLBcomplex) are UNIMPLEMENTED naming the type. How sub-byte data is laid
 * out (packed or one element per byte) is the tensor's business: see
 * docs/design.md, "Sub-byte types". */
PJDL_API pjdl_code pjdl_dtype_from_pjrt(PJRT_Buffer_Type type, DLDataType *out);
PJDL_API pjdl_code pjdl_dtype_to_pjrt(DLDataType dtype, PJRT_Buffer_Type *out);
/* Bytes per element of a PJRT type, 0 for sub-byte or unknown types (a
 * sub-byte buffer's pjdl_buffer_size_bytes counts one byte per element). */
PJDL_API size_t pjdl_pjrt_type_size(PJRT_Buffer_Type type);
/* "f32", "bf16", "pred", ...: a static string; "invalid" if unknown. */
PJDL_API const char *pjdl_pjrt_type_name(PJRT_Buffer_Type type);
/* The first PJRT C API minor version (0.minor) that has `type`, -1 if
 * unknown. The library hands a plugin no type newer than the plugin's ABI
 * (older plugins crash on one): such a call fails with UNIMPLEMENTED. */
PJDL_API int pjdl_pjrt_type_minor(PJRT_Buffer_Type type);

/* ----------------------------------------------------------------- buffers */

typedef struct pjdl_buffer pjdl_buffer;

/* Copies a host array into a new buffer in `memory` (NULL: the default
 * memory of the client's first device). `byte_strides` may be NULL (compact
 * row-major) or give one stride per dimension, in bytes, as the plugin
 * accepts them. `data` is no longer needed when the call returns; the
 * buffer may not be ready yet. Without a wait timeout on the client the
 * plugin reads `data` itself and the call waits for its done_with_host_buffer
 * event (kImmutableUntilTransferCompletes: one copy; pjdl_buffer_release
 * then waits for the buffer to be ready if nothing did before, so that no
 * work of the plugin's on it is in flight when its client may go:
 * docs/plugins.md); with one, the plugin is
 * asked to take the data during the call (kImmutableOnlyDuringCall, which
 * may cost it a staging copy) so that the timeout can bound the wait, unless
 * it only offers asynchronous host reads (whose wait ignores the timeout).
 * `data` may be NULL for a zero-size array. At most 64 dimensions. On
 * success *out is owned. */
PJDL_API pjdl_code pjdl_buffer_from_host(pjdl_client *client, const void *data,
                                         PJRT_Buffer_Type type, const int64_t *dims, size_t ndim,
                                         const int64_t *byte_strides, pjdl_memory *memory,
                                         pjdl_buffer **out);

/* Copies the buffer's contents, compact row-major, into `dst`, which holds
 * `dst_size` bytes (at least pjdl_buffer_size_bytes). Waits until done
 * (honouring the client's wait timeout). FAILED_PRECONDITION after a delete
 * or a transfer-mode export. */
PJDL_API pjdl_code pjdl_buffer_to_host(pjdl_buffer *buffer, void *dst, size_t dst_size);

/* Adopts a PJRT_Buffer created by someone else on `client`: the library
 * destroys it when the last reference (including every export pinning it)
 * goes away. On failure the caller still owns `pjrt_buffer`. */
PJDL_API pjdl_code pjdl_buffer_wrap(pjdl_client *client, PJRT_Buffer *pjrt_buffer,
                                    pjdl_buffer **out);

PJDL_API void pjdl_buffer_retain(pjdl_buffer *buffer);
/* Drops a reference; the PJRT buffer is destroyed once no reference and no
 * live export needs it. NULL is a no-op. */
PJDL_API void pjdl_buffer_release(pjdl_buffer *buffer);

/* The PJRT buffer; borrowed, valid while `buffer` lives. FAILED_PRECONDITION
 * after a transfer-mode export or a delete. The library keeps one external
 * reference of it from the first export on; with no export live it is
 * dropped here, so that the caller sees only the references it takes. */
PJDL_API pjdl_code pjdl_buffer_pjrt(pjdl_buffer *buffer, PJRT_Buffer **out);

/* PJRT_Buffer_Delete: the device memory is freed once no export pins it.
 * Every later use but the metadata accessors fails with
 * FAILED_PRECONDITION. Deleting twice is not an error. */
PJDL_API pjdl_code pjdl_buffer_delete(pjdl_buffer *buffer);
/* True after pjdl_buffer_delete or a transfer-mode export. */
PJDL_API bool pjdl_buffer_is_deleted(pjdl_buffer *buffer);

/* Blocks until the buffer's data is ready; the ready event's error, if any,
 * or DEADLINE_EXCEEDED after the client's wait timeout. A buffer once known
 * ready is not waited for again. */
PJDL_API pjdl_code pjdl_buffer_await(pjdl_buffer *buffer);

/* Metadata read from the plugin once, when the buffer was made. The pointers
 * are borrowed and live as long as the buffer. */
PJDL_API pjdl_client *pjdl_buffer_client(const pjdl_buffer *buffer);
PJDL_API pjdl_device *pjdl_buffer_device(const pjdl_buffer *buffer);
PJDL_API pjdl_memory *pjdl_buffer_memory(const pjdl_buffer *buffer);
PJDL_API PJRT_Buffer_Type pjdl_buffer_type(const pjdl_buffer *buffer);
PJDL_API size_t pjdl_buffer_ndim(const pjdl_buffer *buffer);
PJDL_API const int64_t *pjdl_buffer_dims(const pjdl_buffer *buffer);
/* Bytes of the logical array, compact: product of dims times element size;
 * for a sub-byte type one byte per element, the form pjdl_buffer_to_host and
 * pjdl_buffer_from_host use (PJRT's host form: the element in the low bits). */
PJDL_API size_t pjdl_buffer_size_bytes(const pjdl_buffer *buffer);
/* The DLDevice of the buffer's memory (see pjdl_device_dl). */
PJDL_API pjdl_code pjdl_buffer_dl_device(const pjdl_buffer *buffer, DLDevice *out);

/* The address of the buffer's data on its device (OpaqueDeviceMemoryDataPointer,
 * else UnsafePointer). Does not pin the memory: only an export does. */
PJDL_API pjdl_code pjdl_buffer_data_pointer(pjdl_buffer *buffer, void **out);

/* Limits how long any wait of this client (ready events, transfers) may
 * block: after `timeout_ms` milliseconds the wait fails with
 * DEADLINE_EXCEEDED. 0 or negative: wait forever (the default). */
PJDL_API void pjdl_client_set_wait_timeout(pjdl_client *client, int64_t timeout_ms);

/* ------------------------------------------------------------------ export */

typedef enum pjdl_copy {
    PJDL_COPY_IF_NEEDED = 0, /* array API copy=None */
    PJDL_COPY_NEVER = 1,     /* copy=False */
    PJDL_COPY_ALWAYS = 2,    /* copy=True */
} pjdl_copy;

typedef enum pjdl_export_mode {
    /* The PJRT buffer stays usable; the export pins its memory with the
     * plugin's external reference count until the tensor's deleter runs. */
    PJDL_EXPORT_SHARE = 0,
    /* Ownership of the memory moves to the consumer: every later use of the
     * pjdl_buffer fails with FAILED_PRECONDITION; the memory stays valid
     * until the tensor's deleter runs. */
    PJDL_EXPORT_TRANSFER = 1,
} pjdl_export_mode;

typedef struct pjdl_export_options {
    size_t struct_size; /* sizeof(pjdl_export_options) */
    pjdl_export_mode mode;
    /* The consumer's stream: when set, the export does not wait; the
     * consumer's stream is made to wait for the data (stream extension). A
     * stream on a platform without streams is an error. When not set, the
     * export waits for the buffer's ready event. */
    bool has_stream;
    intptr_t stream;
    /* Mark the tensor DLPACK_FLAG_BITMASK_READ_ONLY. */
    bool read_only;
    /* Where the consumer wants the data; must be the buffer's own DLDevice
     * unless a copy is allowed, in which case a host copy (kDLCPU) is made. */
    bool has_dl_device;
    DLDevice dl_device;
    /* IF_NEEDED copies only when the layout or dl_device needs it; ALWAYS
     * always copies (the tensor then carries DLPACK_FLAG_BITMASK_IS_COPIED);
     * NEVER fails instead of copying. */
    pjdl_copy copy;
} pjdl_export_options;

/* clang-format off */
#define PJDL_EXPORT_OPTIONS_INIT                                                                   \
    { sizeof(pjdl_export_options), PJDL_EXPORT_SHARE, false, 0, false, false, {kDLCPU, 0},         \
      PJDL_COPY_IF_NEEDED }
/* clang-format on */

/* Exports the buffer as a DLPack tensor. On success the caller owns *out and
 * must call (*out)->deleter(*out) exactly once, from any thread, in any order
 * relative to releasing `buffer` or its client. The data is ready when this
 * returns (or, with a stream, on that stream). A zero-copy tensor has the
 * buffer's DLDevice, strides from its memory layout and byte_offset 0; a copy
 * is compact row-major host memory (kDLCPU), aligned to 256 bytes and flagged
 * DLPACK_FLAG_BITMASK_IS_COPIED. A copy is made only when `copy` allows it
 * and the layout cannot be expressed, dl_device asks for the host, or a
 * legacy tensor is asked to be read-only. Errors: FAILED_PRECONDITION
 * (deleted or transferred buffer), the ready event's error,
 * DEADLINE_EXCEEDED (the client's wait timeout), UNIMPLEMENTED (an element
 * type or layout DLPack cannot express and no copy allowed, a plugin without
 * external references, or a stream with a plugin without the stream
 * extension), the plugin's error for a stream it rejects (e.g. on a platform
 * without streams), INVALID_ARGUMENT (bad options, or a dl_device that is
 * neither the buffer's nor the host). On failure nothing changes, and a
 * failed transfer-mode export leaves the buffer usable. Sub-byte types: a
 * zero-copy tensor is the device memory as it is, packed (1, 2, 4 bits) or
 * one element per byte flagged IS_SUBBYTE_TYPE_PADDED (the 6-bit floats); a
 * copy is one element per byte, flagged padded. */
PJDL_API pjdl_code pjdl_buffer_export(pjdl_buffer *buffer, const pjdl_export_options *options,
                                      DLManagedTensorVersioned **out);

/* The same for the pre-1.0 DLManagedTensor (no flags: a read-only request
 * is refused with INVALID_ARGUMENT unless a copy is allowed, and sub-byte
 * data is always packed: padded memory is exported as a packed copy). */
PJDL_API pjdl_code pjdl_buffer_export_legacy(pjdl_buffer *buffer,
                                             const pjdl_export_options *options,
                                             DLManagedTensor **out);

/* ------------------------------------------------------------------ import */

typedef struct pjdl_import_options {
    size_t struct_size; /* sizeof(pjdl_import_options) */
    pjdl_copy copy;
    /* Target: a device (its default memory) or a memory; NULL for both: the
     * tensor's own device. A target other than the tensor's device needs a
     * copy. */
    pjdl_device *device;
    pjdl_memory *memory;
    /* The producer's stream: the data is ready when that stream reaches the
     * point of this call (CreateViewOfDeviceBuffer's stream). Plugins take
     * their own streams here, not another framework's (XLA's CUDA plugin:
     * NOT_FOUND, "Only GPU streams used for dlpack imports are
     * supported"): have the producer order its work before
     * pjdl_device_stream's stream, and name that one. */
    bool has_stream;
    intptr_t stream;
} pjdl_import_options;

/* clang-format off */
#define PJDL_IMPORT_OPTIONS_INIT                                                                   \
    { sizeof(pjdl_import_options), PJDL_COPY_IF_NEEDED, NULL, NULL, false, 0 }
/* clang-format on */

/* Imports a DLPack tensor as a buffer of one of `clients`: without a target
 * (options' device and memory NULL), the first client, in the order given,
 * that has a device whose default memory has the tensor's DLDevice, then
 * the first that has it in another memory; a client that refuses the tensor
 * (INVALID_ARGUMENT, UNIMPLEMENTED, FAILED_PRECONDITION: no view and no
 * copy) passes it to the next candidate, unless the options name a stream
 * (a stream belongs to one client: only the first candidate is tried). When
 * all refuse, the first one's error is returned. Zero-copy when the
 * plugin can view the memory (compact row-major or a compact permutation,
 * aligned to the element size, and writable); otherwise, when `copy` allows
 * and the memory is host-reachable (kDLCPU, kDLCUDAHost, kDLROCMHost, kDLTPUHost), the
 * data is copied. ALWAYS always copies.
 *
 * Ownership: on success the library owns `tensor` and calls its deleter
 * exactly once, when PJRT no longer needs the memory (after the view is
 * destroyed and unpinned, or, for a copy, before the call returns). On
 * failure the caller keeps `tensor`; its deleter is not called. The deleter
 * is read once, during the call: the struct itself is not read after the
 * call returns. A copy has read the tensor's memory when the call returns:
 * it holds the values of the import, whatever the producer writes later
 * (the device copy itself may still be in flight: the buffer's ready event
 * says when); only a view goes on using the memory (until the buffer is
 * released). Every field of the
 * tensor is validated; a bad one is INVALID_ARGUMENT naming it. A read-only
 * tensor is never viewed as writable: it is copied or refused. A tensor of
 * another DLPack major version is INVALID_ARGUMENT (the caller decides
 * whether to call its deleter). Sub-byte tensors are packed unless flagged
 * IS_SUBBYTE_TYPE_PADDED (legacy tensors: always packed); one whose form is
 * not PJRT's for its type (packed for 1, 2 and 4 bits, one element per byte
 * for the 6-bit floats) is copied. float4_e2m1fn with 2 lanes (PyTorch's
 * float4_e2m1fn_x2) becomes float4_e2m1fn with its last dimension doubled,
 * packed whatever the padded flag says.
 *
 * Errors: NOT_FOUND (no client has a device for the tensor's DLDevice),
 * INVALID_ARGUMENT / UNIMPLEMENTED saying why no view was possible when
 * copy is NEVER or the memory is not host-reachable, the plugin's own error
 * otherwise. */
PJDL_API pjdl_code pjdl_import(pjdl_client *const *clients, size_t num_clients,
                               DLManagedTensorVersioned *tensor, const pjdl_import_options *options,
                               pjdl_buffer **out);

/* The same for the pre-1.0 DLManagedTensor. */
PJDL_API pjdl_code pjdl_import_legacy(pjdl_client *const *clients, size_t num_clients,
                                      DLManagedTensor *tensor, const pjdl_import_options *options,
                                      pjdl_buffer **out);

/* ------------------------------------------------------------- executables */

typedef struct pjdl_executable pjdl_executable;

/* Compiles a program with the plugin's PJRT_Client_Compile for one replica
 * and one partition: it runs on one device, the client's default (see
 * pjdl_executable_device). `code` holds `code_size` bytes in `format`:
 * "mlir" (StableHLO or MHLO as MLIR text or bytecode; NULL means "mlir"),
 * or "hlo" (a serialized HloModuleProto), as the plugin accepts them;
 * `code` need only live for the call. Compiling may take long and runs on
 * the calling thread. On success *out is owned and keeps the client alive.
 * Errors: INVALID_ARGUMENT (NULL arguments), UNIMPLEMENTED (a plugin without
 * PJRT_Client_Compile, or one that cannot compile, like the reference
 * plugin), the plugin's own error and message for a program it rejects
 * (XLA's CPU plugin: UNKNOWN, with MLIR's diagnostics as the message). */
PJDL_API pjdl_code pjdl_executable_compile(pjdl_client *client, const char *code, size_t code_size,
                                           const char *format, pjdl_executable **out);

/* Adds / drops a reference. The PJRT executable is destroyed when the last
 * one goes; buffers it produced, and executions still running, are not
 * affected. NULL is a no-op. */
PJDL_API void pjdl_executable_retain(pjdl_executable *exe);
PJDL_API void pjdl_executable_release(pjdl_executable *exe);

/* How many results one execution produces (a tuple result counts its
 * elements); 0 for NULL. */
PJDL_API size_t pjdl_executable_output_count(const pjdl_executable *exe);

/* Borrowed accessors, valid while the executable lives: its client, the
 * device it runs on (a device of that client), the PJRT executable. */
PJDL_API pjdl_client *pjdl_executable_client(const pjdl_executable *exe);
PJDL_API pjdl_device *pjdl_executable_device(const pjdl_executable *exe);
PJDL_API PJRT_LoadedExecutable *pjdl_executable_pjrt(const pjdl_executable *exe);

/* Runs the executable once on its device with PJRT_LoadedExecutable_Execute.
 * `inputs` are `n_inputs` buffers of the executable's client, in parameter
 * order; they are borrowed for the call only (the plugin keeps what the
 * execution needs alive by itself) and are never donated. On success
 * outputs[0 .. *n_outputs) receive pjdl_executable_output_count owned
 * buffers; `max_outputs` is the room in `outputs`.
 *
 * Readiness: the call returns as soon as the plugin has enqueued the
 * execution, so the results may not be computed yet. Every reader of a
 * result waits for it: pjdl_buffer_export without a stream,
 * pjdl_buffer_to_host and pjdl_buffer_await wait for its ready event, and a
 * failure of the execution is reported there, as that event's error.
 *
 * Errors: INVALID_ARGUMENT (NULL arguments, a NULL input or one of another
 * client), OUT_OF_RANGE (max_outputs smaller than the result count),
 * FAILED_PRECONDITION naming the input that was deleted or transferred, the
 * plugin's own error otherwise (XLA: INVALID_ARGUMENT for a wrong number of
 * inputs or an input of the wrong size in bytes). The C API does not tell
 * callers the parameters' shapes, so inputs are checked by the plugin only:
 * XLA's CPU plugin accepts an input of other dimensions but the same size.
 * On failure nothing is written to `outputs`. */
PJDL_API pjdl_code pjdl_executable_execute(pjdl_executable *exe, pjdl_buffer *const *inputs,
                                           size_t n_inputs, pjdl_buffer **outputs,
                                           size_t max_outputs, size_t *n_outputs);

#ifdef __cplusplus
}
#endif

#endif /* PJRT_DLPACK_H_ */
