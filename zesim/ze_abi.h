/*
 * The part of the Level Zero API (core 1.x, the loader's zel* functions and
 * the few sysman zes* functions Intel's Unified Runtime adapter imports)
 * that ze_sim implements, declared here from the public specification: the
 * types, enum values and structure layouts the callers depend on, and one
 * prototype per exported function. Only what ze_sim needs is declared;
 * structures it never reads or writes stay incomplete.
 */
#ifndef ZE_SIM_ZE_ABI_H
#define ZE_SIM_ZE_ABI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ZE_SIM_EXPORT __attribute__((visibility("default")))

#define ZE_MAKE_VERSION(major, minor) (((major) << 16) | ((minor)&0xffff))
#define ZE_MAX_DEVICE_NAME 256
#define ZE_MAX_EXTENSION_NAME 256
#define ZE_MAX_UUID 16
#define ZE_SUBGROUPSIZE_COUNT 8
#define ZE_MAX_IPC_HANDLE_SIZE 64
#define ZEL_COMPONENT_STRING_SIZE 64

typedef uint8_t ze_bool_t;
typedef uint32_t ze_flags_t;

typedef enum {
    ZE_RESULT_SUCCESS = 0,
    ZE_RESULT_NOT_READY = 1,
    ZE_RESULT_ERROR_DEVICE_LOST = 0x70000001,
    ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY = 0x70000002,
    ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY = 0x70000003,
    ZE_RESULT_ERROR_MODULE_BUILD_FAILURE = 0x70000004,
    ZE_RESULT_ERROR_UNINITIALIZED = 0x78000001,
    ZE_RESULT_ERROR_UNSUPPORTED_VERSION = 0x78000002,
    ZE_RESULT_ERROR_UNSUPPORTED_FEATURE = 0x78000003,
    ZE_RESULT_ERROR_INVALID_ARGUMENT = 0x78000004,
    ZE_RESULT_ERROR_INVALID_NULL_HANDLE = 0x78000005,
    ZE_RESULT_ERROR_HANDLE_OBJECT_IN_USE = 0x78000006,
    ZE_RESULT_ERROR_INVALID_NULL_POINTER = 0x78000007,
    ZE_RESULT_ERROR_INVALID_SIZE = 0x78000008,
    ZE_RESULT_ERROR_UNSUPPORTED_SIZE = 0x78000009,
    ZE_RESULT_ERROR_UNSUPPORTED_ALIGNMENT = 0x7800000a,
    ZE_RESULT_ERROR_INVALID_ENUMERATION = 0x7800000c,
    ZE_RESULT_ERROR_INVALID_NATIVE_BINARY = 0x7800000f,
    ZE_RESULT_ERROR_INVALID_GLOBAL_NAME = 0x78000010,
    ZE_RESULT_ERROR_INVALID_KERNEL_NAME = 0x78000011,
    ZE_RESULT_ERROR_INVALID_FUNCTION_NAME = 0x78000012,
    ZE_RESULT_ERROR_INVALID_GROUP_SIZE_DIMENSION = 0x78000013,
    ZE_RESULT_ERROR_INVALID_GLOBAL_WIDTH_DIMENSION = 0x78000014,
    ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_INDEX = 0x78000015,
    ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_SIZE = 0x78000016,
    ZE_RESULT_ERROR_INVALID_COMMAND_LIST_TYPE = 0x78000019,
    ZE_RESULT_ERROR_ADDRESS_NOT_FOUND = 0x78000021,
    ZE_RESULT_ERROR_UNKNOWN = 0x7ffffffe,
} ze_result_t;

typedef enum {
    ZE_STRUCTURE_TYPE_DRIVER_PROPERTIES = 0x1,
    ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES = 0x3,
    ZE_STRUCTURE_TYPE_DEVICE_COMPUTE_PROPERTIES = 0x4,
    ZE_STRUCTURE_TYPE_DEVICE_MODULE_PROPERTIES = 0x5,
    ZE_STRUCTURE_TYPE_COMMAND_QUEUE_GROUP_PROPERTIES = 0x6,
    ZE_STRUCTURE_TYPE_DEVICE_MEMORY_PROPERTIES = 0x7,
    ZE_STRUCTURE_TYPE_DEVICE_MEMORY_ACCESS_PROPERTIES = 0x8,
    ZE_STRUCTURE_TYPE_DEVICE_CACHE_PROPERTIES = 0x9,
    ZE_STRUCTURE_TYPE_DEVICE_IMAGE_PROPERTIES = 0xa,
    ZE_STRUCTURE_TYPE_DEVICE_P2P_PROPERTIES = 0xb,
    ZE_STRUCTURE_TYPE_MEMORY_ALLOCATION_PROPERTIES = 0x17,
    ZE_STRUCTURE_TYPE_MODULE_DESC = 0x1b,
    ZE_STRUCTURE_TYPE_MODULE_PROPERTIES = 0x1c,
    ZE_STRUCTURE_TYPE_KERNEL_DESC = 0x1d,
    ZE_STRUCTURE_TYPE_KERNEL_PROPERTIES = 0x1e,
    ZE_STRUCTURE_TYPE_KERNEL_PREFERRED_GROUP_SIZE_PROPERTIES = 0x21,
    ZE_STRUCTURE_TYPE_PCI_EXT_PROPERTIES = 0x10008,
    ZE_STRUCTURE_TYPE_DEVICE_IP_VERSION_EXT = 0x1000f,
    ZE_STRUCTURE_TYPE_KERNEL_MAX_GROUP_SIZE_EXT_PROPERTIES = 0x10013,
    ZE_STRUCTURE_TYPE_MODULE_PROGRAM_EXP_DESC = 0x20002,
    ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES_1_2 = 0x20006,
    ZE_STRUCTURE_TYPE_INIT_DRIVER_TYPE_DESC = 0x20021,
} ze_structure_type_t;

/* Every extensible structure starts so; ze_sim walks pNext chains by it. */
typedef struct {
    ze_structure_type_t stype;
    void *pNext;
} ze_base_properties_t;

typedef uint32_t ze_api_version_t;
typedef ze_flags_t ze_init_flags_t;

typedef enum { ZE_DEVICE_TYPE_GPU = 1 } ze_device_type_t;
typedef enum {
    ZE_MEMORY_TYPE_UNKNOWN = 0,
    ZE_MEMORY_TYPE_HOST = 1,
    ZE_MEMORY_TYPE_DEVICE = 2,
    ZE_MEMORY_TYPE_SHARED = 3,
} ze_memory_type_t;

enum {
    ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_COMPUTE = 1u << 0,
    ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_COPY = 1u << 1,
    ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_COOPERATIVE_KERNELS = 1u << 2,
    ZE_MEMORY_ACCESS_CAP_FLAG_RW = 1u << 0,
    ZE_MEMORY_ACCESS_CAP_FLAG_ATOMIC = 1u << 1,
    ZE_MEMORY_ACCESS_CAP_FLAG_CONCURRENT = 1u << 2,
    ZE_MEMORY_ACCESS_CAP_FLAG_CONCURRENT_ATOMIC = 1u << 3,
    ZE_FENCE_FLAG_SIGNALED = 1u << 0,
    ZE_COMMAND_QUEUE_MODE_SYNCHRONOUS = 1,
    ZE_DEVICE_MODULE_FLAG_FP16 = 1u << 0,
    ZE_DEVICE_MODULE_FLAG_FP64 = 1u << 1,
    ZE_MODULE_FORMAT_IL_SPIRV = 0,
    ZE_MODULE_FORMAT_NATIVE = 1,
    ZE_MODULE_PROPERTY_FLAG_IMPORTS = 1u << 0,
};

typedef struct ze_sim_driver *ze_driver_handle_t;
typedef struct ze_sim_device *ze_device_handle_t;
typedef struct ze_sim_context *ze_context_handle_t;
typedef struct ze_sim_queue *ze_command_queue_handle_t;
typedef struct ze_sim_list *ze_command_list_handle_t;
typedef struct ze_sim_fence *ze_fence_handle_t;
typedef struct ze_sim_event_pool *ze_event_pool_handle_t;
typedef struct ze_sim_event *ze_event_handle_t;
typedef struct ze_sim_module *ze_module_handle_t;
typedef struct ze_sim_build_log *ze_module_build_log_handle_t;
typedef struct ze_sim_kernel *ze_kernel_handle_t;
typedef struct ze_sim_image *ze_image_handle_t;
typedef struct ze_sim_sampler *ze_sampler_handle_t;
typedef struct ze_sim_physical_mem *ze_physical_mem_handle_t;
typedef struct ze_sim_sysman_mem *zes_mem_handle_t;
typedef ze_device_handle_t zes_device_handle_t;

typedef struct {
    uint8_t id[ZE_MAX_UUID];
} ze_uuid_bytes_t;

typedef struct {
    ze_structure_type_t stype;
    void *pNext;
    ze_uuid_bytes_t uuid;
    uint32_t driverVersion;
} ze_driver_properties_t;

typedef struct {
    char name[ZE_MAX_EXTENSION_NAME];
    uint32_t version;
} ze_driver_extension_properties_t;

typedef struct {
    ze_structure_type_t stype;
    void *pNext;
    ze_device_type_t type;
    uint32_t vendorId;
    uint32_t deviceId;
    ze_flags_t flags;
    uint32_t subdeviceId;
    uint32_t coreClockRate;
    uint64_t maxMemAllocSize;
    uint32_t maxHardwareContexts;
    uint32_t maxCommandQueuePriority;
    uint32_t numThreadsPerEU;
    uint32_t physicalEUSimdWidth;
    uint32_t numEUsPerSubslice;
    uint32_t numSubslicesPerSlice;
    uint32_t numSlices;
    uint64_t timerResolution;
    uint32_t timestampValidBits;
    uint32_t kernelTimestampValidBits;
    ze_uuid_bytes_t uuid;
    char name[ZE_MAX_DEVICE_NAME];
} ze_device_properties_t;

typedef struct {
    ze_structure_type_t stype;
    const void *pNext;
    uint32_t ipVersion;
} ze_device_ip_version_ext_t;

typedef struct {
    ze_structure_type_t stype;
    void *pNext;
    uint32_t maxTotalGroupSize;
    uint32_t maxGroupSizeX, maxGroupSizeY, maxGroupSizeZ;
    uint32_t maxGroupCountX, maxGroupCountY, maxGroupCountZ;
    uint32_t maxSharedLocalMemory;
    uint32_t numSubGroupSizes;
    uint32_t subGroupSizes[ZE_SUBGROUPSIZE_COUNT];
} ze_device_compute_properties_t;

typedef struct {
    ze_structure_type_t stype;
    void *pNext;
    uint32_t spirvVersionSupported;
    ze_flags_t flags;
    ze_flags_t fp16flags, fp32flags, fp64flags;
    uint32_t maxArgumentsSize;
    uint32_t printfBufferSize;
    ze_uuid_bytes_t nativeKernelSupported;
} ze_device_module_properties_t;

typedef struct {
    ze_structure_type_t stype;
    void *pNext;
    ze_flags_t flags;
    size_t maxMemoryFillPatternSize;
    uint32_t numQueues;
} ze_command_queue_group_properties_t;

typedef struct {
    ze_structure_type_t stype;
    void *pNext;
    ze_flags_t flags;
    uint32_t maxClockRate;
    uint32_t maxBusWidth;
    uint64_t totalSize;
    char name[ZE_MAX_DEVICE_NAME];
} ze_device_memory_properties_t;

typedef struct {
    ze_structure_type_t stype;
    void *pNext;
    ze_flags_t hostAllocCapabilities;
    ze_flags_t deviceAllocCapabilities;
    ze_flags_t sharedSingleDeviceAllocCapabilities;
    ze_flags_t sharedCrossDeviceAllocCapabilities;
    ze_flags_t sharedSystemAllocCapabilities;
} ze_device_memory_access_properties_t;

typedef struct {
    ze_structure_type_t stype;
    void *pNext;
    ze_flags_t flags;
    size_t cacheSize;
} ze_device_cache_properties_t;

typedef struct {
    ze_structure_type_t stype;
    void *pNext;
    uint32_t maxImageDims1D, maxImageDims2D, maxImageDims3D;
    uint64_t maxImageBufferSize;
    uint32_t maxImageArraySlices;
    uint32_t maxSamplers;
    uint32_t maxReadImageArgs;
    uint32_t maxWriteImageArgs;
} ze_device_image_properties_t;

typedef struct {
    ze_structure_type_t stype;
    void *pNext;
    ze_flags_t flags;
} ze_device_p2p_properties_t;

typedef struct {
    ze_structure_type_t stype;
    void *pNext;
    uint32_t domain, bus, device, function;
    int32_t genVersion;
    int32_t width;
    int64_t maxBandwidth;
} ze_pci_ext_properties_t;

typedef struct {
    ze_structure_type_t stype;
    const void *pNext;
    ze_flags_t flags;
} ze_context_desc_t;

typedef struct {
    ze_structure_type_t stype;
    const void *pNext;
    uint32_t ordinal;
    uint32_t index;
    ze_flags_t flags;
    uint32_t mode;
    uint32_t priority;
} ze_command_queue_desc_t;

typedef struct {
    ze_structure_type_t stype;
    const void *pNext;
    uint32_t commandQueueGroupOrdinal;
    ze_flags_t flags;
} ze_command_list_desc_t;

typedef struct {
    ze_structure_type_t stype;
    const void *pNext;
    ze_flags_t flags;
    uint32_t count;
} ze_event_pool_desc_t;

typedef struct {
    ze_structure_type_t stype;
    const void *pNext;
    uint32_t index;
    ze_flags_t signal;
    ze_flags_t wait;
} ze_event_desc_t;

typedef struct {
    ze_structure_type_t stype;
    const void *pNext;
    ze_flags_t flags;
} ze_fence_desc_t;

typedef struct {
    ze_structure_type_t stype;
    const void *pNext;
    ze_flags_t flags;
    uint32_t ordinal;
} ze_device_mem_alloc_desc_t;

typedef struct {
    ze_structure_type_t stype;
    const void *pNext;
    ze_flags_t flags;
} ze_host_mem_alloc_desc_t;

typedef struct {
    ze_structure_type_t stype;
    void *pNext;
    ze_memory_type_t type;
    uint64_t id;
    uint64_t pageSize;
} ze_memory_allocation_properties_t;

typedef struct {
    uint32_t originX, originY, originZ;
    uint32_t width, height, depth;
} ze_copy_region_t;

typedef struct {
    uint64_t kernelStart;
    uint64_t kernelEnd;
} ze_kernel_timestamp_data_t;

typedef struct {
    ze_kernel_timestamp_data_t global;
    ze_kernel_timestamp_data_t context;
} ze_kernel_timestamp_result_t;

typedef struct {
    uint32_t numConstants;
    const uint32_t *pConstantIds;
    const void **pConstantValues;
} ze_module_constants_t;

typedef struct {
    ze_structure_type_t stype;
    const void *pNext;
    uint32_t format;
    size_t inputSize;
    const uint8_t *pInputModule;
    const char *pBuildFlags;
    const ze_module_constants_t *pConstants;
} ze_module_desc_t;

/* ZE_experimental_module_program: several modules built as one program. */
typedef struct {
    ze_structure_type_t stype;
    const void *pNext;
    uint32_t count;
    const size_t *inputSizes;
    const uint8_t **pInputModules;
    const char **pBuildFlags;
    const ze_module_constants_t **pConstants;
} ze_module_program_exp_desc_t;

typedef struct {
    ze_structure_type_t stype;
    void *pNext;
    ze_flags_t flags;
} ze_module_properties_t;

typedef struct {
    ze_structure_type_t stype;
    void *pNext;
    uint32_t numKernelArgs;
    uint32_t requiredGroupSizeX, requiredGroupSizeY, requiredGroupSizeZ;
    uint32_t requiredNumSubGroups;
    uint32_t requiredSubgroupSize;
    uint32_t maxSubgroupSize;
    uint32_t maxNumSubgroups;
    uint32_t localMemSize;
    uint32_t privateMemSize;
    uint32_t spillMemSize;
    struct {
        uint8_t kid[16];
        uint8_t mid[16];
    } uuid;
} ze_kernel_properties_t;

typedef struct {
    ze_structure_type_t stype;
    void *pNext;
    uint32_t preferredMultiple;
} ze_kernel_preferred_group_size_properties_t;

typedef struct {
    ze_structure_type_t stype;
    void *pNext;
    uint32_t maxGroupSize;
} ze_kernel_max_group_size_ext_properties_t;

typedef struct {
    ze_structure_type_t stype;
    const void *pNext;
    ze_flags_t flags;
    const char *pKernelName;
} ze_kernel_desc_t;

typedef struct {
    uint32_t groupCountX, groupCountY, groupCountZ;
} ze_group_count_t;

typedef struct {
    char data[ZE_MAX_IPC_HANDLE_SIZE];
} ze_ipc_mem_handle_t;

/* zeInitDrivers: the driver types to initialize and return. */
enum { ZE_INIT_DRIVER_TYPE_FLAG_GPU = 1, ZE_INIT_DRIVER_TYPE_FLAG_NPU = 2 };
typedef struct {
    ze_structure_type_t stype;
    const void *pNext;
    ze_flags_t flags;
} ze_init_driver_type_desc_t;

typedef struct {
    int major, minor, patch;
} zel_version_t;

typedef struct {
    char component_name[ZEL_COMPONENT_STRING_SIZE];
    ze_api_version_t spec_version;
    zel_version_t component_lib_version;
} zel_component_version_t;

/* Structures ze_sim never reads or writes. */
typedef struct ze_image_desc ze_image_desc_t;
typedef struct ze_image_region ze_image_region_t;
typedef struct ze_sampler_desc ze_sampler_desc_t;
typedef struct ze_physical_mem_desc ze_physical_mem_desc_t;
typedef struct zes_mem_properties zes_mem_properties_t;
typedef struct zes_mem_state zes_mem_state_t;
typedef uint32_t ze_memory_advice_t;
typedef uint32_t ze_memory_access_attribute_t;
typedef uint32_t zel_handle_type_t;

typedef ze_flags_t ze_cache_config_flags_t;
typedef ze_flags_t ze_kernel_indirect_access_flags_t;
typedef ze_flags_t ze_ipc_memory_flags_t;

/* Every function ze_sim exports: the ze*, zes* and zel* functions that
 * Intel's oneAPI PJRT plugin and its 2025.1 Unified Runtime adapter import,
 * and zeInitDrivers, which the 2026 adapters call and oneDNN (in the
 * plugin) looks up by name. */
ZE_SIM_EXPORT ze_result_t zeCommandListAppendBarrier(ze_command_list_handle_t hCommandList,
                                                     ze_event_handle_t hSignalEvent,
                                                     uint32_t numWaitEvents,
                                                     ze_event_handle_t *phWaitEvents);
ZE_SIM_EXPORT ze_result_t zeCommandListAppendEventReset(ze_command_list_handle_t hCommandList,
                                                        ze_event_handle_t hEvent);
ZE_SIM_EXPORT ze_result_t zeCommandListAppendImageCopyFromMemory(
    ze_command_list_handle_t hCommandList, ze_image_handle_t hDstImage, const void *srcptr,
    const ze_image_region_t *pDstRegion, ze_event_handle_t hSignalEvent, uint32_t numWaitEvents,
    ze_event_handle_t *phWaitEvents);
ZE_SIM_EXPORT ze_result_t zeCommandListAppendImageCopyFromMemoryExt(
    ze_command_list_handle_t hCommandList, ze_image_handle_t hDstImage, const void *srcptr,
    const ze_image_region_t *pDstRegion, uint32_t srcRowPitch, uint32_t srcSlicePitch,
    ze_event_handle_t hSignalEvent, uint32_t numWaitEvents, ze_event_handle_t *phWaitEvents);
ZE_SIM_EXPORT ze_result_t zeCommandListAppendImageCopyRegion(
    ze_command_list_handle_t hCommandList, ze_image_handle_t hDstImage, ze_image_handle_t hSrcImage,
    const ze_image_region_t *pDstRegion, const ze_image_region_t *pSrcRegion,
    ze_event_handle_t hSignalEvent, uint32_t numWaitEvents, ze_event_handle_t *phWaitEvents);
ZE_SIM_EXPORT ze_result_t zeCommandListAppendImageCopyToMemory(
    ze_command_list_handle_t hCommandList, void *dstptr, ze_image_handle_t hSrcImage,
    const ze_image_region_t *pSrcRegion, ze_event_handle_t hSignalEvent, uint32_t numWaitEvents,
    ze_event_handle_t *phWaitEvents);
ZE_SIM_EXPORT ze_result_t zeCommandListAppendImageCopyToMemoryExt(
    ze_command_list_handle_t hCommandList, void *dstptr, ze_image_handle_t hSrcImage,
    const ze_image_region_t *pSrcRegion, uint32_t destRowPitch, uint32_t destSlicePitch,
    ze_event_handle_t hSignalEvent, uint32_t numWaitEvents, ze_event_handle_t *phWaitEvents);
ZE_SIM_EXPORT ze_result_t zeCommandListAppendLaunchCooperativeKernel(
    ze_command_list_handle_t hCommandList, ze_kernel_handle_t hKernel,
    const ze_group_count_t *pLaunchFuncArgs, ze_event_handle_t hSignalEvent, uint32_t numWaitEvents,
    ze_event_handle_t *phWaitEvents);
ZE_SIM_EXPORT ze_result_t zeCommandListAppendLaunchKernel(ze_command_list_handle_t hCommandList,
                                                          ze_kernel_handle_t hKernel,
                                                          const ze_group_count_t *pLaunchFuncArgs,
                                                          ze_event_handle_t hSignalEvent,
                                                          uint32_t numWaitEvents,
                                                          ze_event_handle_t *phWaitEvents);
ZE_SIM_EXPORT ze_result_t zeCommandListAppendMemAdvise(ze_command_list_handle_t hCommandList,
                                                       ze_device_handle_t hDevice, const void *ptr,
                                                       size_t size, ze_memory_advice_t advice);
ZE_SIM_EXPORT ze_result_t zeCommandListAppendMemoryCopy(ze_command_list_handle_t hCommandList,
                                                        void *dstptr, const void *srcptr,
                                                        size_t size, ze_event_handle_t hSignalEvent,
                                                        uint32_t numWaitEvents,
                                                        ze_event_handle_t *phWaitEvents);
ZE_SIM_EXPORT ze_result_t zeCommandListAppendMemoryCopyRegion(
    ze_command_list_handle_t hCommandList, void *dstptr, const ze_copy_region_t *dstRegion,
    uint32_t dstPitch, uint32_t dstSlicePitch, const void *srcptr,
    const ze_copy_region_t *srcRegion, uint32_t srcPitch, uint32_t srcSlicePitch,
    ze_event_handle_t hSignalEvent, uint32_t numWaitEvents, ze_event_handle_t *phWaitEvents);
ZE_SIM_EXPORT ze_result_t zeCommandListAppendMemoryFill(ze_command_list_handle_t hCommandList,
                                                        void *ptr, const void *pattern,
                                                        size_t pattern_size, size_t size,
                                                        ze_event_handle_t hSignalEvent,
                                                        uint32_t numWaitEvents,
                                                        ze_event_handle_t *phWaitEvents);
ZE_SIM_EXPORT ze_result_t zeCommandListAppendMemoryPrefetch(ze_command_list_handle_t hCommandList,
                                                            const void *ptr, size_t size);
ZE_SIM_EXPORT ze_result_t zeCommandListAppendQueryKernelTimestamps(
    ze_command_list_handle_t hCommandList, uint32_t numEvents, ze_event_handle_t *phEvents,
    void *dstptr, const size_t *pOffsets, ze_event_handle_t hSignalEvent, uint32_t numWaitEvents,
    ze_event_handle_t *phWaitEvents);
ZE_SIM_EXPORT ze_result_t zeCommandListAppendSignalEvent(ze_command_list_handle_t hCommandList,
                                                         ze_event_handle_t hEvent);
ZE_SIM_EXPORT ze_result_t zeCommandListAppendWaitOnEvents(ze_command_list_handle_t hCommandList,
                                                          uint32_t numEvents,
                                                          ze_event_handle_t *phEvents);
ZE_SIM_EXPORT ze_result_t zeCommandListAppendWriteGlobalTimestamp(
    ze_command_list_handle_t hCommandList, uint64_t *dstptr, ze_event_handle_t hSignalEvent,
    uint32_t numWaitEvents, ze_event_handle_t *phWaitEvents);
ZE_SIM_EXPORT ze_result_t zeCommandListClose(ze_command_list_handle_t hCommandList);
ZE_SIM_EXPORT ze_result_t zeCommandListCreate(ze_context_handle_t hContext,
                                              ze_device_handle_t hDevice,
                                              const ze_command_list_desc_t *desc,
                                              ze_command_list_handle_t *phCommandList);
ZE_SIM_EXPORT ze_result_t zeCommandListCreateImmediate(ze_context_handle_t hContext,
                                                       ze_device_handle_t hDevice,
                                                       const ze_command_queue_desc_t *altdesc,
                                                       ze_command_list_handle_t *phCommandList);
ZE_SIM_EXPORT ze_result_t zeCommandListDestroy(ze_command_list_handle_t hCommandList);
ZE_SIM_EXPORT ze_result_t zeCommandListHostSynchronize(ze_command_list_handle_t hCommandList,
                                                       uint64_t timeout);
ZE_SIM_EXPORT ze_result_t zeCommandListReset(ze_command_list_handle_t hCommandList);
ZE_SIM_EXPORT ze_result_t zeCommandQueueCreate(ze_context_handle_t hContext,
                                               ze_device_handle_t hDevice,
                                               const ze_command_queue_desc_t *desc,
                                               ze_command_queue_handle_t *phCommandQueue);
ZE_SIM_EXPORT ze_result_t zeCommandQueueDestroy(ze_command_queue_handle_t hCommandQueue);
ZE_SIM_EXPORT ze_result_t zeCommandQueueExecuteCommandLists(
    ze_command_queue_handle_t hCommandQueue, uint32_t numCommandLists,
    ze_command_list_handle_t *phCommandLists, ze_fence_handle_t hFence);
ZE_SIM_EXPORT ze_result_t zeCommandQueueSynchronize(ze_command_queue_handle_t hCommandQueue,
                                                    uint64_t timeout);
ZE_SIM_EXPORT ze_result_t zeContextCreate(ze_driver_handle_t hDriver, const ze_context_desc_t *desc,
                                          ze_context_handle_t *phContext);
ZE_SIM_EXPORT ze_result_t zeContextDestroy(ze_context_handle_t hContext);
ZE_SIM_EXPORT ze_result_t zeContextMakeImageResident(ze_context_handle_t hContext,
                                                     ze_device_handle_t hDevice,
                                                     ze_image_handle_t hImage);
ZE_SIM_EXPORT ze_result_t zeContextMakeMemoryResident(ze_context_handle_t hContext,
                                                      ze_device_handle_t hDevice, void *ptr,
                                                      size_t size);
ZE_SIM_EXPORT ze_result_t zeDeviceCanAccessPeer(ze_device_handle_t hDevice,
                                                ze_device_handle_t hPeerDevice, ze_bool_t *value);
ZE_SIM_EXPORT ze_result_t zeDeviceGet(ze_driver_handle_t hDriver, uint32_t *pCount,
                                      ze_device_handle_t *phDevices);
ZE_SIM_EXPORT ze_result_t zeDeviceGetCacheProperties(
    ze_device_handle_t hDevice, uint32_t *pCount, ze_device_cache_properties_t *pCacheProperties);
ZE_SIM_EXPORT ze_result_t zeDeviceGetCommandQueueGroupProperties(
    ze_device_handle_t hDevice, uint32_t *pCount,
    ze_command_queue_group_properties_t *pCommandQueueGroupProperties);
ZE_SIM_EXPORT ze_result_t zeDeviceGetComputeProperties(
    ze_device_handle_t hDevice, ze_device_compute_properties_t *pComputeProperties);
ZE_SIM_EXPORT ze_result_t zeDeviceGetGlobalTimestamps(ze_device_handle_t hDevice,
                                                      uint64_t *hostTimestamp,
                                                      uint64_t *deviceTimestamp);
ZE_SIM_EXPORT ze_result_t zeDeviceGetImageProperties(
    ze_device_handle_t hDevice, ze_device_image_properties_t *pImageProperties);
ZE_SIM_EXPORT ze_result_t zeDeviceGetMemoryAccessProperties(
    ze_device_handle_t hDevice, ze_device_memory_access_properties_t *pMemAccessProperties);
ZE_SIM_EXPORT ze_result_t zeDeviceGetMemoryProperties(
    ze_device_handle_t hDevice, uint32_t *pCount, ze_device_memory_properties_t *pMemProperties);
ZE_SIM_EXPORT ze_result_t zeDeviceGetModuleProperties(
    ze_device_handle_t hDevice, ze_device_module_properties_t *pModuleProperties);
ZE_SIM_EXPORT ze_result_t zeDeviceGetP2PProperties(ze_device_handle_t hDevice,
                                                   ze_device_handle_t hPeerDevice,
                                                   ze_device_p2p_properties_t *pP2PProperties);
ZE_SIM_EXPORT ze_result_t zeDeviceGetProperties(ze_device_handle_t hDevice,
                                                ze_device_properties_t *pDeviceProperties);
ZE_SIM_EXPORT ze_result_t zeDeviceGetRootDevice(ze_device_handle_t hDevice,
                                                ze_device_handle_t *phRootDevice);
ZE_SIM_EXPORT ze_result_t zeDeviceGetSubDevices(ze_device_handle_t hDevice, uint32_t *pCount,
                                                ze_device_handle_t *phSubdevices);
ZE_SIM_EXPORT ze_result_t zeDevicePciGetPropertiesExt(ze_device_handle_t hDevice,
                                                      ze_pci_ext_properties_t *pPciProperties);
ZE_SIM_EXPORT ze_result_t zeDriverGet(uint32_t *pCount, ze_driver_handle_t *phDrivers);
ZE_SIM_EXPORT ze_result_t zeDriverGetApiVersion(ze_driver_handle_t hDriver,
                                                ze_api_version_t *version);
ZE_SIM_EXPORT ze_result_t zeDriverGetExtensionFunctionAddress(ze_driver_handle_t hDriver,
                                                              const char *name,
                                                              void **ppFunctionAddress);
ZE_SIM_EXPORT ze_result_t
zeDriverGetExtensionProperties(ze_driver_handle_t hDriver, uint32_t *pCount,
                               ze_driver_extension_properties_t *pExtensionProperties);
ZE_SIM_EXPORT ze_result_t zeDriverGetProperties(ze_driver_handle_t hDriver,
                                                ze_driver_properties_t *pDriverProperties);
ZE_SIM_EXPORT ze_result_t zeEventCreate(ze_event_pool_handle_t hEventPool,
                                        const ze_event_desc_t *desc, ze_event_handle_t *phEvent);
ZE_SIM_EXPORT ze_result_t zeEventDestroy(ze_event_handle_t hEvent);
ZE_SIM_EXPORT ze_result_t zeEventHostReset(ze_event_handle_t hEvent);
ZE_SIM_EXPORT ze_result_t zeEventHostSignal(ze_event_handle_t hEvent);
ZE_SIM_EXPORT ze_result_t zeEventHostSynchronize(ze_event_handle_t hEvent, uint64_t timeout);
ZE_SIM_EXPORT ze_result_t zeEventPoolCreate(ze_context_handle_t hContext,
                                            const ze_event_pool_desc_t *desc, uint32_t numDevices,
                                            ze_device_handle_t *phDevices,
                                            ze_event_pool_handle_t *phEventPool);
ZE_SIM_EXPORT ze_result_t zeEventPoolDestroy(ze_event_pool_handle_t hEventPool);
ZE_SIM_EXPORT ze_result_t zeEventQueryKernelTimestamp(ze_event_handle_t hEvent,
                                                      ze_kernel_timestamp_result_t *dstptr);
ZE_SIM_EXPORT ze_result_t zeEventQueryStatus(ze_event_handle_t hEvent);
ZE_SIM_EXPORT ze_result_t zeFenceCreate(ze_command_queue_handle_t hCommandQueue,
                                        const ze_fence_desc_t *desc, ze_fence_handle_t *phFence);
ZE_SIM_EXPORT ze_result_t zeFenceDestroy(ze_fence_handle_t hFence);
ZE_SIM_EXPORT ze_result_t zeFenceHostSynchronize(ze_fence_handle_t hFence, uint64_t timeout);
ZE_SIM_EXPORT ze_result_t zeFenceQueryStatus(ze_fence_handle_t hFence);
ZE_SIM_EXPORT ze_result_t zeFenceReset(ze_fence_handle_t hFence);
ZE_SIM_EXPORT ze_result_t zeImageCreate(ze_context_handle_t hContext, ze_device_handle_t hDevice,
                                        const ze_image_desc_t *desc, ze_image_handle_t *phImage);
ZE_SIM_EXPORT ze_result_t zeImageDestroy(ze_image_handle_t hImage);
ZE_SIM_EXPORT ze_result_t zeImageViewCreateExt(ze_context_handle_t hContext,
                                               ze_device_handle_t hDevice,
                                               const ze_image_desc_t *desc,
                                               ze_image_handle_t hImage,
                                               ze_image_handle_t *phImageView);
ZE_SIM_EXPORT ze_result_t zeInit(ze_init_flags_t flags);
ZE_SIM_EXPORT ze_result_t zeInitDrivers(uint32_t *pCount, ze_driver_handle_t *phDrivers,
                                        ze_init_driver_type_desc_t *desc);
ZE_SIM_EXPORT ze_result_t zeKernelCreate(ze_module_handle_t hModule, const ze_kernel_desc_t *desc,
                                         ze_kernel_handle_t *phKernel);
ZE_SIM_EXPORT ze_result_t zeKernelDestroy(ze_kernel_handle_t hKernel);
ZE_SIM_EXPORT ze_result_t zeKernelGetName(ze_kernel_handle_t hKernel, size_t *pSize, char *pName);
ZE_SIM_EXPORT ze_result_t zeKernelGetProperties(ze_kernel_handle_t hKernel,
                                                ze_kernel_properties_t *pKernelProperties);
ZE_SIM_EXPORT ze_result_t zeKernelGetSourceAttributes(ze_kernel_handle_t hKernel, uint32_t *pSize,
                                                      char **pString);
ZE_SIM_EXPORT ze_result_t zeKernelSetArgumentValue(ze_kernel_handle_t hKernel, uint32_t argIndex,
                                                   size_t argSize, const void *pArgValue);
ZE_SIM_EXPORT ze_result_t zeKernelSetCacheConfig(ze_kernel_handle_t hKernel,
                                                 ze_cache_config_flags_t flags);
ZE_SIM_EXPORT ze_result_t zeKernelSetGlobalOffsetExp(ze_kernel_handle_t hKernel, uint32_t offsetX,
                                                     uint32_t offsetY, uint32_t offsetZ);
ZE_SIM_EXPORT ze_result_t zeKernelSetGroupSize(ze_kernel_handle_t hKernel, uint32_t groupSizeX,
                                               uint32_t groupSizeY, uint32_t groupSizeZ);
ZE_SIM_EXPORT ze_result_t zeKernelSetIndirectAccess(ze_kernel_handle_t hKernel,
                                                    ze_kernel_indirect_access_flags_t flags);
ZE_SIM_EXPORT ze_result_t zeKernelSuggestGroupSize(ze_kernel_handle_t hKernel, uint32_t globalSizeX,
                                                   uint32_t globalSizeY, uint32_t globalSizeZ,
                                                   uint32_t *groupSizeX, uint32_t *groupSizeY,
                                                   uint32_t *groupSizeZ);
ZE_SIM_EXPORT ze_result_t zeKernelSuggestMaxCooperativeGroupCount(ze_kernel_handle_t hKernel,
                                                                  uint32_t *totalGroupCount);
ZE_SIM_EXPORT ze_result_t zeMemAllocDevice(ze_context_handle_t hContext,
                                           const ze_device_mem_alloc_desc_t *device_desc,
                                           size_t size, size_t alignment,
                                           ze_device_handle_t hDevice, void **pptr);
ZE_SIM_EXPORT ze_result_t zeMemAllocHost(ze_context_handle_t hContext,
                                         const ze_host_mem_alloc_desc_t *host_desc, size_t size,
                                         size_t alignment, void **pptr);
ZE_SIM_EXPORT ze_result_t zeMemAllocShared(ze_context_handle_t hContext,
                                           const ze_device_mem_alloc_desc_t *device_desc,
                                           const ze_host_mem_alloc_desc_t *host_desc, size_t size,
                                           size_t alignment, ze_device_handle_t hDevice,
                                           void **pptr);
ZE_SIM_EXPORT ze_result_t zeMemCloseIpcHandle(ze_context_handle_t hContext, const void *ptr);
ZE_SIM_EXPORT ze_result_t zeMemFree(ze_context_handle_t hContext, void *ptr);
ZE_SIM_EXPORT ze_result_t zeMemGetAddressRange(ze_context_handle_t hContext, const void *ptr,
                                               void **pBase, size_t *pSize);
ZE_SIM_EXPORT ze_result_t zeMemGetAllocProperties(
    ze_context_handle_t hContext, const void *ptr,
    ze_memory_allocation_properties_t *pMemAllocProperties, ze_device_handle_t *phDevice);
ZE_SIM_EXPORT ze_result_t zeMemGetIpcHandle(ze_context_handle_t hContext, const void *ptr,
                                            ze_ipc_mem_handle_t *pIpcHandle);
ZE_SIM_EXPORT ze_result_t zeMemOpenIpcHandle(ze_context_handle_t hContext,
                                             ze_device_handle_t hDevice, ze_ipc_mem_handle_t handle,
                                             ze_ipc_memory_flags_t flags, void **pptr);
ZE_SIM_EXPORT ze_result_t zeModuleBuildLogDestroy(ze_module_build_log_handle_t hModuleBuildLog);
ZE_SIM_EXPORT ze_result_t zeModuleBuildLogGetString(ze_module_build_log_handle_t hModuleBuildLog,
                                                    size_t *pSize, char *pBuildLog);
ZE_SIM_EXPORT ze_result_t zeModuleCreate(ze_context_handle_t hContext, ze_device_handle_t hDevice,
                                         const ze_module_desc_t *desc, ze_module_handle_t *phModule,
                                         ze_module_build_log_handle_t *phBuildLog);
ZE_SIM_EXPORT ze_result_t zeModuleDestroy(ze_module_handle_t hModule);
ZE_SIM_EXPORT ze_result_t zeModuleDynamicLink(uint32_t numModules, ze_module_handle_t *phModules,
                                              ze_module_build_log_handle_t *phLinkLog);
ZE_SIM_EXPORT ze_result_t zeModuleGetFunctionPointer(ze_module_handle_t hModule,
                                                     const char *pFunctionName, void **pfnFunction);
ZE_SIM_EXPORT ze_result_t zeModuleGetGlobalPointer(ze_module_handle_t hModule,
                                                   const char *pGlobalName, size_t *pSize,
                                                   void **pptr);
ZE_SIM_EXPORT ze_result_t zeModuleGetKernelNames(ze_module_handle_t hModule, uint32_t *pCount,
                                                 const char **pNames);
ZE_SIM_EXPORT ze_result_t zeModuleGetNativeBinary(ze_module_handle_t hModule, size_t *pSize,
                                                  uint8_t *pModuleNativeBinary);
ZE_SIM_EXPORT ze_result_t zeModuleGetProperties(ze_module_handle_t hModule,
                                                ze_module_properties_t *pModuleProperties);
ZE_SIM_EXPORT ze_result_t zePhysicalMemCreate(ze_context_handle_t hContext,
                                              ze_device_handle_t hDevice,
                                              ze_physical_mem_desc_t *desc,
                                              ze_physical_mem_handle_t *phPhysicalMemory);
ZE_SIM_EXPORT ze_result_t zePhysicalMemDestroy(ze_context_handle_t hContext,
                                               ze_physical_mem_handle_t hPhysicalMemory);
ZE_SIM_EXPORT ze_result_t zeSamplerCreate(ze_context_handle_t hContext, ze_device_handle_t hDevice,
                                          const ze_sampler_desc_t *desc,
                                          ze_sampler_handle_t *phSampler);
ZE_SIM_EXPORT ze_result_t zeSamplerDestroy(ze_sampler_handle_t hSampler);
ZE_SIM_EXPORT ze_result_t zeVirtualMemFree(ze_context_handle_t hContext, const void *ptr,
                                           size_t size);
ZE_SIM_EXPORT ze_result_t zeVirtualMemGetAccessAttribute(ze_context_handle_t hContext,
                                                         const void *ptr, size_t size,
                                                         ze_memory_access_attribute_t *access,
                                                         size_t *outSize);
ZE_SIM_EXPORT ze_result_t zeVirtualMemMap(ze_context_handle_t hContext, const void *ptr,
                                          size_t size, ze_physical_mem_handle_t hPhysicalMemory,
                                          size_t offset, ze_memory_access_attribute_t access);
ZE_SIM_EXPORT ze_result_t zeVirtualMemQueryPageSize(ze_context_handle_t hContext,
                                                    ze_device_handle_t hDevice, size_t size,
                                                    size_t *pagesize);
ZE_SIM_EXPORT ze_result_t zeVirtualMemReserve(ze_context_handle_t hContext, const void *pStart,
                                              size_t size, void **pptr);
ZE_SIM_EXPORT ze_result_t zeVirtualMemSetAccessAttribute(ze_context_handle_t hContext,
                                                         const void *ptr, size_t size,
                                                         ze_memory_access_attribute_t access);
ZE_SIM_EXPORT ze_result_t zeVirtualMemUnmap(ze_context_handle_t hContext, const void *ptr,
                                            size_t size);
ZE_SIM_EXPORT ze_result_t zelLoaderGetVersions(size_t *num_elems,
                                               zel_component_version_t *versions);
ZE_SIM_EXPORT ze_result_t zelLoaderTranslateHandle(zel_handle_type_t handleType, void *handleIn,
                                                   void **handleOut);
ZE_SIM_EXPORT ze_result_t zesDeviceEnumMemoryModules(zes_device_handle_t hDevice, uint32_t *pCount,
                                                     zes_mem_handle_t *phMemory);
ZE_SIM_EXPORT ze_result_t zesMemoryGetProperties(zes_mem_handle_t hMemory,
                                                 zes_mem_properties_t *pProperties);
ZE_SIM_EXPORT ze_result_t zesMemoryGetState(zes_mem_handle_t hMemory, zes_mem_state_t *pState);

/* The dynamic loader's own interface, which the loader's static front-end
 * looks up by name (loader.c); the DDI table getters are made there from
 * ddi.def. */
ZE_SIM_EXPORT ze_result_t zeLoaderInit(void);
ZE_SIM_EXPORT void *zeLoaderGetTracingHandle(void);
ZE_SIM_EXPORT ze_result_t zelLoaderGetVersionsInternal(size_t *num_elems,
                                                       zel_component_version_t *versions);
ZE_SIM_EXPORT ze_result_t zelLoaderGetVersion(zel_component_version_t *version);
ZE_SIM_EXPORT ze_result_t zelLoaderTranslateHandleInternal(zel_handle_type_t handleType,
                                                           void *handleIn, void **handleOut);
ZE_SIM_EXPORT ze_result_t zelEnableTracingLayer(void);
ZE_SIM_EXPORT ze_result_t zelDisableTracingLayer(void);
ZE_SIM_EXPORT ze_result_t zelGetTracingLayerState(bool *enabled);

#endif
