/* ze_sim: what each simulated Intel GPU reports about itself. */
#include "zs.h"

#include <stdio.h>
#include <string.h>

/* An Intel Data Center GPU Max (PVC) in its public identifiers. */
#define ZS_VENDOR_INTEL 0x8086
#define ZS_DEVICE_ID 0x0bd5
#define ZS_IP_VERSION 0x030f0007u /* 12.60.7 */

#define ZS_CHECK_DEVICE(dev, out)                                                                  \
    do {                                                                                           \
        if (!zs_device_ok(dev))                                                                    \
            return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;                                            \
        if (!(out))                                                                                \
            return ZE_RESULT_ERROR_INVALID_NULL_POINTER;                                           \
    } while (0)

/* (b) The extension structures ze_sim knows, filled wherever they are in
 * the caller's chain; unknown ones are left as the caller set them. */
static void zs_fill_chain(void *pNext) {
    for (ze_base_properties_t *p = pNext; p; p = p->pNext) {
        if (p->stype == ZE_STRUCTURE_TYPE_DEVICE_IP_VERSION_EXT)
            ((ze_device_ip_version_ext_t *)(void *)p)->ipVersion = ZS_IP_VERSION;
    }
}

ze_result_t zeDeviceGetProperties(ze_device_handle_t hDevice, ze_device_properties_t *p) {
    ZS_CHECK_DEVICE(hDevice, p);
    ze_structure_type_t stype = p->stype;
    void *next = p->pNext;
    memset(p, 0, sizeof *p);
    p->stype = stype;
    p->pNext = next;
    p->type = ZE_DEVICE_TYPE_GPU;
    p->vendorId = ZS_VENDOR_INTEL;
    p->deviceId = ZS_DEVICE_ID;
    p->coreClockRate = 1600;
    p->maxMemAllocSize = zs_config.memory_size;
    p->maxHardwareContexts = 64;
    p->numThreadsPerEU = 8;
    p->physicalEUSimdWidth = 16;
    p->numEUsPerSubslice = 8;
    p->numSubslicesPerSlice = 8;
    p->numSlices = 1;
    /* Ticks are nanoseconds: 1 ns per tick (1.0), 1e9 ticks per s (1.2). */
    p->timerResolution = stype == ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES_1_2 ? 1000000000u : 1u;
    p->timestampValidBits = ZS_TIMESTAMP_BITS;
    p->kernelTimestampValidBits = ZS_KERNEL_TIMESTAMP_BITS;
    memcpy(p->uuid.id, "ze_sim-gpu", 10);
    p->uuid.id[15] = (uint8_t)hDevice->index;
    snprintf(p->name, sizeof p->name, "ze_sim simulated Intel GPU %u", hDevice->index);
    zs_fill_chain(next);
    return ZE_RESULT_SUCCESS;
}

ze_result_t zeDeviceGetComputeProperties(ze_device_handle_t hDevice,
                                         ze_device_compute_properties_t *p) {
    ZS_CHECK_DEVICE(hDevice, p);
    p->maxTotalGroupSize = 1024;
    p->maxGroupSizeX = p->maxGroupSizeY = p->maxGroupSizeZ = 1024;
    p->maxGroupCountX = p->maxGroupCountY = p->maxGroupCountZ = 0xffffffffu;
    p->maxSharedLocalMemory = 128 * 1024;
    p->numSubGroupSizes = 2;
    memset(p->subGroupSizes, 0, sizeof p->subGroupSizes);
    p->subGroupSizes[0] = 16;
    p->subGroupSizes[1] = ZS_SUBGROUP_SIZE;
    zs_fill_chain(p->pNext);
    return ZE_RESULT_SUCCESS;
}

ze_result_t zeDeviceGetModuleProperties(ze_device_handle_t hDevice,
                                        ze_device_module_properties_t *p) {
    ZS_CHECK_DEVICE(hDevice, p);
    p->spirvVersionSupported = ZE_MAKE_VERSION(1, 2);
    p->flags = ZE_DEVICE_MODULE_FLAG_FP16 | ZE_DEVICE_MODULE_FLAG_FP64;
    p->fp16flags = p->fp32flags = p->fp64flags = 0x3f; /* denorm .. fma */
    p->maxArgumentsSize = 2048;
    p->printfBufferSize = 4u << 20;
    memset(&p->nativeKernelSupported, 0, sizeof p->nativeKernelSupported);
    zs_fill_chain(p->pNext);
    return ZE_RESULT_SUCCESS;
}

/* (e) One group of engines that computes and copies, with four queues. */
ze_result_t zeDeviceGetCommandQueueGroupProperties(ze_device_handle_t hDevice, uint32_t *pCount,
                                                   ze_command_queue_group_properties_t *p) {
    ZS_CHECK_DEVICE(hDevice, pCount);
    if (p && *pCount >= 1) {
        p->flags = ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_COMPUTE |
                   ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_COPY |
                   ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_COOPERATIVE_KERNELS;
        p->maxMemoryFillPatternSize = ZS_FILL_PATTERN_MAX;
        p->numQueues = 4;
        zs_fill_chain(p->pNext);
    }
    *pCount = 1;
    return ZE_RESULT_SUCCESS;
}

ze_result_t zeDeviceGetMemoryProperties(ze_device_handle_t hDevice, uint32_t *pCount,
                                        ze_device_memory_properties_t *p) {
    ZS_CHECK_DEVICE(hDevice, pCount);
    if (p && *pCount >= 1) {
        p->flags = 0;
        p->maxClockRate = 1600;
        p->maxBusWidth = 4096;
        p->totalSize = zs_config.memory_size;
        snprintf(p->name, sizeof p->name, "HBM (host memory)");
        zs_fill_chain(p->pNext);
    }
    *pCount = 1;
    return ZE_RESULT_SUCCESS;
}

/* (c) Device memory is readable and writable (by the device). */
ze_result_t zeDeviceGetMemoryAccessProperties(ze_device_handle_t hDevice,
                                              ze_device_memory_access_properties_t *p) {
    ZS_CHECK_DEVICE(hDevice, p);
    const ze_flags_t rw_atomic = ZE_MEMORY_ACCESS_CAP_FLAG_RW | ZE_MEMORY_ACCESS_CAP_FLAG_ATOMIC;
    p->hostAllocCapabilities = rw_atomic | ZE_MEMORY_ACCESS_CAP_FLAG_CONCURRENT |
                               ZE_MEMORY_ACCESS_CAP_FLAG_CONCURRENT_ATOMIC;
    p->deviceAllocCapabilities = rw_atomic;
    p->sharedSingleDeviceAllocCapabilities = rw_atomic;
    p->sharedCrossDeviceAllocCapabilities = 0;
    p->sharedSystemAllocCapabilities = 0;
    zs_fill_chain(p->pNext);
    return ZE_RESULT_SUCCESS;
}

ze_result_t zeDeviceGetCacheProperties(ze_device_handle_t hDevice, uint32_t *pCount,
                                       ze_device_cache_properties_t *p) {
    ZS_CHECK_DEVICE(hDevice, pCount);
    if (p && *pCount >= 1) {
        p->flags = 0;
        p->cacheSize = 64u << 20;
        zs_fill_chain(p->pNext);
    }
    *pCount = 1;
    return ZE_RESULT_SUCCESS;
}

/* No images: every limit is 0, which the specification reads as unsupported. */
ze_result_t zeDeviceGetImageProperties(ze_device_handle_t hDevice,
                                       ze_device_image_properties_t *p) {
    ZS_CHECK_DEVICE(hDevice, p);
    p->maxImageDims1D = p->maxImageDims2D = p->maxImageDims3D = 0;
    p->maxImageBufferSize = 0;
    p->maxImageArraySlices = p->maxSamplers = p->maxReadImageArgs = p->maxWriteImageArgs = 0;
    return ZE_RESULT_SUCCESS;
}

/* Devices do not reach each other's memory. */
ze_result_t zeDeviceGetP2PProperties(ze_device_handle_t hDevice, ze_device_handle_t hPeerDevice,
                                     ze_device_p2p_properties_t *p) {
    ZS_CHECK_DEVICE(hDevice, p);
    if (!zs_device_ok(hPeerDevice))
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    p->flags = 0;
    return ZE_RESULT_SUCCESS;
}

ze_result_t zeDeviceCanAccessPeer(ze_device_handle_t hDevice, ze_device_handle_t hPeerDevice,
                                  ze_bool_t *value) {
    ZS_CHECK_DEVICE(hDevice, value);
    if (!zs_device_ok(hPeerDevice))
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    *value = hDevice == hPeerDevice;
    return ZE_RESULT_SUCCESS;
}

/* (a) Every device is a root device: no parent, no sub-devices. */
ze_result_t zeDeviceGetRootDevice(ze_device_handle_t hDevice, ze_device_handle_t *phRootDevice) {
    ZS_CHECK_DEVICE(hDevice, phRootDevice);
    *phRootDevice = NULL;
    return ZE_RESULT_SUCCESS;
}

ze_result_t zeDeviceGetSubDevices(ze_device_handle_t hDevice, uint32_t *pCount,
                                  ze_device_handle_t *phSubdevices) {
    (void)phSubdevices;
    ZS_CHECK_DEVICE(hDevice, pCount);
    *pCount = 0;
    return ZE_RESULT_SUCCESS;
}

ze_result_t zeDevicePciGetPropertiesExt(ze_device_handle_t hDevice, ze_pci_ext_properties_t *p) {
    ZS_CHECK_DEVICE(hDevice, p);
    p->domain = 0;
    p->bus = 0x30 + hDevice->index;
    p->device = 0;
    p->function = 0;
    p->genVersion = -1; /* unknown, as the specification allows */
    p->width = -1;
    p->maxBandwidth = -1;
    return ZE_RESULT_SUCCESS;
}

ze_result_t zeDeviceGetGlobalTimestamps(ze_device_handle_t hDevice, uint64_t *hostTimestamp,
                                        uint64_t *deviceTimestamp) {
    ZS_CHECK_DEVICE(hDevice, hostTimestamp);
    if (!deviceTimestamp)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    uint64_t now = zs_now_ns();
    *hostTimestamp = now;
    *deviceTimestamp = zs_ticks(now, ZS_TIMESTAMP_BITS);
    return ZE_RESULT_SUCCESS;
}
