/*
 * ze_sim: what a simulated GPU cannot do. Every image, sampler,
 * virtual-memory, physical-memory and IPC function answers
 * ZE_RESULT_ERROR_UNSUPPORTED_FEATURE (or, for a handle that can never
 * exist, INVALID_NULL_HANDLE) without touching its arguments. Sysman
 * reports no memory modules.
 */
#include "zs.h"

/* The functions below ignore their arguments by design. */
#pragma GCC diagnostic ignored "-Wunused-parameter"

#define ZS_UNSUPPORTED(name, params)                                                               \
    ze_result_t name params {                                                                      \
        return ZE_RESULT_ERROR_UNSUPPORTED_FEATURE;                                                \
    }

/* A handle that no function ever makes. */
#define ZS_NO_HANDLE(name, params)                                                                 \
    ze_result_t name params {                                                                      \
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;                                                \
    }

/* No image or sampler can be created (the device reports no image support). */
ZS_UNSUPPORTED(zeImageCreate, (ze_context_handle_t hContext, ze_device_handle_t hDevice,
                               const ze_image_desc_t *desc, ze_image_handle_t *phImage))
ZS_NO_HANDLE(zeImageDestroy, (ze_image_handle_t hImage))
ZS_UNSUPPORTED(zeImageViewCreateExt, (ze_context_handle_t hContext, ze_device_handle_t hDevice,
                                      const ze_image_desc_t *desc, ze_image_handle_t hImage,
                                      ze_image_handle_t *phImageView))
ZS_UNSUPPORTED(zeContextMakeImageResident,
               (ze_context_handle_t hContext, ze_device_handle_t hDevice, ze_image_handle_t hImage))
ZS_UNSUPPORTED(zeCommandListAppendImageCopyFromMemory,
               (ze_command_list_handle_t hCommandList, ze_image_handle_t hDstImage,
                const void *srcptr, const ze_image_region_t *pDstRegion,
                ze_event_handle_t hSignalEvent, uint32_t numWaitEvents,
                ze_event_handle_t *phWaitEvents))
ZS_UNSUPPORTED(zeCommandListAppendImageCopyFromMemoryExt,
               (ze_command_list_handle_t hCommandList, ze_image_handle_t hDstImage,
                const void *srcptr, const ze_image_region_t *pDstRegion, uint32_t srcRowPitch,
                uint32_t srcSlicePitch, ze_event_handle_t hSignalEvent, uint32_t numWaitEvents,
                ze_event_handle_t *phWaitEvents))
ZS_UNSUPPORTED(zeCommandListAppendImageCopyRegion,
               (ze_command_list_handle_t hCommandList, ze_image_handle_t hDstImage,
                ze_image_handle_t hSrcImage, const ze_image_region_t *pDstRegion,
                const ze_image_region_t *pSrcRegion, ze_event_handle_t hSignalEvent,
                uint32_t numWaitEvents, ze_event_handle_t *phWaitEvents))
ZS_UNSUPPORTED(zeCommandListAppendImageCopyToMemory,
               (ze_command_list_handle_t hCommandList, void *dstptr, ze_image_handle_t hSrcImage,
                const ze_image_region_t *pSrcRegion, ze_event_handle_t hSignalEvent,
                uint32_t numWaitEvents, ze_event_handle_t *phWaitEvents))
ZS_UNSUPPORTED(zeCommandListAppendImageCopyToMemoryExt,
               (ze_command_list_handle_t hCommandList, void *dstptr, ze_image_handle_t hSrcImage,
                const ze_image_region_t *pSrcRegion, uint32_t destRowPitch, uint32_t destSlicePitch,
                ze_event_handle_t hSignalEvent, uint32_t numWaitEvents,
                ze_event_handle_t *phWaitEvents))
ZS_UNSUPPORTED(zeSamplerCreate, (ze_context_handle_t hContext, ze_device_handle_t hDevice,
                                 const ze_sampler_desc_t *desc, ze_sampler_handle_t *phSampler))
ZS_NO_HANDLE(zeSamplerDestroy, (ze_sampler_handle_t hSampler))
/* No virtual or physical memory management, no IPC between processes. */
ZS_UNSUPPORTED(zeVirtualMemReserve,
               (ze_context_handle_t hContext, const void *pStart, size_t size, void **pptr))
ZS_UNSUPPORTED(zeVirtualMemFree, (ze_context_handle_t hContext, const void *ptr, size_t size))
ZS_UNSUPPORTED(zeVirtualMemQueryPageSize, (ze_context_handle_t hContext, ze_device_handle_t hDevice,
                                           size_t size, size_t *pagesize))
ZS_UNSUPPORTED(zeVirtualMemMap, (ze_context_handle_t hContext, const void *ptr, size_t size,
                                 ze_physical_mem_handle_t hPhysicalMemory, size_t offset,
                                 ze_memory_access_attribute_t access))
ZS_UNSUPPORTED(zeVirtualMemUnmap, (ze_context_handle_t hContext, const void *ptr, size_t size))
ZS_UNSUPPORTED(zeVirtualMemSetAccessAttribute, (ze_context_handle_t hContext, const void *ptr,
                                                size_t size, ze_memory_access_attribute_t access))
ZS_UNSUPPORTED(zeVirtualMemGetAccessAttribute,
               (ze_context_handle_t hContext, const void *ptr, size_t size,
                ze_memory_access_attribute_t *access, size_t *outSize))
ZS_UNSUPPORTED(zePhysicalMemCreate,
               (ze_context_handle_t hContext, ze_device_handle_t hDevice,
                ze_physical_mem_desc_t *desc, ze_physical_mem_handle_t *phPhysicalMemory))
ZS_UNSUPPORTED(zePhysicalMemDestroy,
               (ze_context_handle_t hContext, ze_physical_mem_handle_t hPhysicalMemory))
ZS_UNSUPPORTED(zeMemGetIpcHandle,
               (ze_context_handle_t hContext, const void *ptr, ze_ipc_mem_handle_t *pIpcHandle))
ZS_UNSUPPORTED(zeMemOpenIpcHandle,
               (ze_context_handle_t hContext, ze_device_handle_t hDevice,
                ze_ipc_mem_handle_t handle, ze_ipc_memory_flags_t flags, void **pptr))
ZS_UNSUPPORTED(zeMemCloseIpcHandle, (ze_context_handle_t hContext, const void *ptr))

/* Sysman: no memory modules to report (so no zes_mem_handle_t exists). */
ze_result_t zesDeviceEnumMemoryModules(zes_device_handle_t hDevice, uint32_t *pCount,
                                       zes_mem_handle_t *phMemory) {
    if (!zs_device_ok(hDevice))
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (!pCount)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    *pCount = 0;
    return ZE_RESULT_SUCCESS;
}

ZS_NO_HANDLE(zesMemoryGetProperties, (zes_mem_handle_t hMemory, zes_mem_properties_t *pProperties))
ZS_NO_HANDLE(zesMemoryGetState, (zes_mem_handle_t hMemory, zes_mem_state_t *pState))
