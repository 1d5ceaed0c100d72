/*
 * ze_sim: what a simulated GPU cannot do. No code runs on it, so modules
 * never build (ZE_RESULT_ERROR_MODULE_BUILD_FAILURE, with a build log that
 * says why) and every kernel, image, sampler, virtual-memory, physical
 * memory and IPC function answers ZE_RESULT_ERROR_UNSUPPORTED_FEATURE
 * without touching its arguments. Sysman reports no memory modules.
 */
#include "zs.h"

#include <string.h>

/* The functions below ignore their arguments by design. */
#pragma GCC diagnostic ignored "-Wunused-parameter"

#define ZS_UNSUPPORTED(name, params)                                                               \
    ze_result_t name params {                                                                      \
        return ZE_RESULT_ERROR_UNSUPPORTED_FEATURE;                                                \
    }

static const char zs_build_log[] =
    "ze_sim: the simulated GPU runs no kernels; modules cannot be built";

struct ze_sim_build_log {
    uint32_t magic;
};
static struct ze_sim_build_log zs_the_build_log;

ze_result_t zeModuleCreate(ze_context_handle_t hContext, ze_device_handle_t hDevice,
                           const ze_module_desc_t *desc, ze_module_handle_t *phModule,
                           ze_module_build_log_handle_t *phBuildLog) {
    if (!hContext || !zs_device_ok(hDevice))
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (!desc || !phModule)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    if (phBuildLog)
        *phBuildLog = &zs_the_build_log;
    return ZE_RESULT_ERROR_MODULE_BUILD_FAILURE;
}

ze_result_t zeModuleBuildLogGetString(ze_module_build_log_handle_t hModuleBuildLog, size_t *pSize,
                                      char *pBuildLog) {
    if (hModuleBuildLog != &zs_the_build_log)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (!pSize)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    if (pBuildLog) {
        size_t n = *pSize < sizeof zs_build_log ? *pSize : sizeof zs_build_log;
        if (n) {
            memcpy(pBuildLog, zs_build_log, n);
            pBuildLog[n - 1] = '\0';
        }
        return ZE_RESULT_SUCCESS;
    }
    *pSize = sizeof zs_build_log;
    return ZE_RESULT_SUCCESS;
}

ze_result_t zeModuleBuildLogDestroy(ze_module_build_log_handle_t hModuleBuildLog) {
    return hModuleBuildLog == &zs_the_build_log ? ZE_RESULT_SUCCESS
                                                : ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
}

/* No module ever exists, so no module or kernel handle is valid. */
#define ZS_NO_HANDLE(name, params)                                                                 \
    ze_result_t name params {                                                                      \
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;                                                \
    }

ZS_NO_HANDLE(zeModuleDestroy, (ze_module_handle_t hModule))
ZS_NO_HANDLE(zeModuleDynamicLink, (uint32_t numModules, ze_module_handle_t *phModules,
                                   ze_module_build_log_handle_t *phLinkLog))
ZS_NO_HANDLE(zeModuleGetFunctionPointer,
             (ze_module_handle_t hModule, const char *pFunctionName, void **pfnFunction))
ZS_NO_HANDLE(zeModuleGetGlobalPointer,
             (ze_module_handle_t hModule, const char *pGlobalName, size_t *pSize, void **pptr))
ZS_NO_HANDLE(zeModuleGetKernelNames,
             (ze_module_handle_t hModule, uint32_t *pCount, const char **pNames))
ZS_NO_HANDLE(zeModuleGetNativeBinary,
             (ze_module_handle_t hModule, size_t *pSize, uint8_t *pModuleNativeBinary))
ZS_NO_HANDLE(zeModuleGetProperties,
             (ze_module_handle_t hModule, ze_module_properties_t *pModuleProperties))
ZS_NO_HANDLE(zeKernelCreate, (ze_module_handle_t hModule, const ze_kernel_desc_t *desc,
                              ze_kernel_handle_t *phKernel))
ZS_NO_HANDLE(zeKernelDestroy, (ze_kernel_handle_t hKernel))
ZS_NO_HANDLE(zeKernelGetName, (ze_kernel_handle_t hKernel, size_t *pSize, char *pName))
ZS_NO_HANDLE(zeKernelGetProperties,
             (ze_kernel_handle_t hKernel, ze_kernel_properties_t *pKernelProperties))
ZS_NO_HANDLE(zeKernelGetSourceAttributes,
             (ze_kernel_handle_t hKernel, uint32_t *pSize, char **pString))
ZS_NO_HANDLE(zeKernelSetArgumentValue,
             (ze_kernel_handle_t hKernel, uint32_t argIndex, size_t argSize, const void *pArgValue))
ZS_NO_HANDLE(zeKernelSetCacheConfig, (ze_kernel_handle_t hKernel, ze_cache_config_flags_t flags))
ZS_NO_HANDLE(zeKernelSetGlobalOffsetExp,
             (ze_kernel_handle_t hKernel, uint32_t offsetX, uint32_t offsetY, uint32_t offsetZ))
ZS_NO_HANDLE(zeKernelSetGroupSize, (ze_kernel_handle_t hKernel, uint32_t groupSizeX,
                                    uint32_t groupSizeY, uint32_t groupSizeZ))
ZS_NO_HANDLE(zeKernelSetIndirectAccess,
             (ze_kernel_handle_t hKernel, ze_kernel_indirect_access_flags_t flags))
ZS_NO_HANDLE(zeKernelSuggestGroupSize,
             (ze_kernel_handle_t hKernel, uint32_t globalSizeX, uint32_t globalSizeY,
              uint32_t globalSizeZ, uint32_t *groupSizeX, uint32_t *groupSizeY,
              uint32_t *groupSizeZ))
ZS_NO_HANDLE(zeKernelSuggestMaxCooperativeGroupCount,
             (ze_kernel_handle_t hKernel, uint32_t *totalGroupCount))
ZS_NO_HANDLE(zeCommandListAppendLaunchKernel,
             (ze_command_list_handle_t hCommandList, ze_kernel_handle_t hKernel,
              const ze_group_count_t *pLaunchFuncArgs, ze_event_handle_t hSignalEvent,
              uint32_t numWaitEvents, ze_event_handle_t *phWaitEvents))
ZS_NO_HANDLE(zeCommandListAppendLaunchCooperativeKernel,
             (ze_command_list_handle_t hCommandList, ze_kernel_handle_t hKernel,
              const ze_group_count_t *pLaunchFuncArgs, ze_event_handle_t hSignalEvent,
              uint32_t numWaitEvents, ze_event_handle_t *phWaitEvents))
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
