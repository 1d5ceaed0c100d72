/* ze_sim: the commands a command list takes (see list.c and engine.c). */
#include "zs.h"

#include <string.h>

struct zs_cmd zs_cmd_of(enum zs_cmd_kind kind, ze_event_handle_t signal, uint32_t num_waits,
                        ze_event_handle_t *waits) {
    struct zs_cmd c;
    memset(&c, 0, sizeof c);
    c.kind = kind;
    c.signal = signal;
    c.num_waits = num_waits;
    c.waits = waits;
    return c;
}

ze_result_t zeCommandListAppendMemoryCopy(ze_command_list_handle_t hCommandList, void *dstptr,
                                          const void *srcptr, size_t size,
                                          ze_event_handle_t hSignalEvent, uint32_t numWaitEvents,
                                          ze_event_handle_t *phWaitEvents) {
    if (size && (!dstptr || !srcptr))
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    struct zs_cmd c = zs_cmd_of(ZS_CMD_COPY, hSignalEvent, numWaitEvents, phWaitEvents);
    c.dst = dstptr;
    c.src = srcptr;
    c.size = size;
    return zs_list_append(hCommandList, &c);
}

static struct zs_region zs_region_of(const ze_copy_region_t *box, uint32_t pitch,
                                     uint32_t slice_pitch) {
    struct zs_region r = {*box, pitch, slice_pitch};
    return r;
}

ze_result_t zeCommandListAppendMemoryCopyRegion(
    ze_command_list_handle_t hCommandList, void *dstptr, const ze_copy_region_t *dstRegion,
    uint32_t dstPitch, uint32_t dstSlicePitch, const void *srcptr,
    const ze_copy_region_t *srcRegion, uint32_t srcPitch, uint32_t srcSlicePitch,
    ze_event_handle_t hSignalEvent, uint32_t numWaitEvents, ze_event_handle_t *phWaitEvents) {
    if (!dstptr || !srcptr || !dstRegion || !srcRegion)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    if (dstRegion->width != srcRegion->width || dstRegion->height != srcRegion->height ||
        dstRegion->depth != srcRegion->depth)
        return ZE_RESULT_ERROR_INVALID_SIZE;
    struct zs_cmd c = zs_cmd_of(ZS_CMD_COPY_REGION, hSignalEvent, numWaitEvents, phWaitEvents);
    c.dst = dstptr;
    c.src = srcptr;
    c.dst_region = zs_region_of(dstRegion, dstPitch, dstSlicePitch);
    c.src_region = zs_region_of(srcRegion, srcPitch, srcSlicePitch);
    return zs_list_append(hCommandList, &c);
}

ze_result_t zeCommandListAppendMemoryFill(ze_command_list_handle_t hCommandList, void *ptr,
                                          const void *pattern, size_t pattern_size, size_t size,
                                          ze_event_handle_t hSignalEvent, uint32_t numWaitEvents,
                                          ze_event_handle_t *phWaitEvents) {
    if (!ptr || !pattern)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    if (pattern_size == 0 || pattern_size > ZS_FILL_PATTERN_MAX ||
        (pattern_size & (pattern_size - 1)))
        return ZE_RESULT_ERROR_INVALID_SIZE;
    struct zs_cmd c = zs_cmd_of(ZS_CMD_FILL, hSignalEvent, numWaitEvents, phWaitEvents);
    c.dst = ptr;
    c.size = size;
    memcpy(c.pattern, pattern, pattern_size);
    c.pattern_size = pattern_size;
    return zs_list_append(hCommandList, &c);
}

ze_result_t zeCommandListAppendBarrier(ze_command_list_handle_t hCommandList,
                                       ze_event_handle_t hSignalEvent, uint32_t numWaitEvents,
                                       ze_event_handle_t *phWaitEvents) {
    struct zs_cmd c = zs_cmd_of(ZS_CMD_BARRIER, hSignalEvent, numWaitEvents, phWaitEvents);
    return zs_list_append(hCommandList, &c);
}

ze_result_t zeCommandListAppendSignalEvent(ze_command_list_handle_t hCommandList,
                                           ze_event_handle_t hEvent) {
    if (!zs_event_ok(hEvent))
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    return zeCommandListAppendBarrier(hCommandList, hEvent, 0, NULL);
}

ze_result_t zeCommandListAppendWaitOnEvents(ze_command_list_handle_t hCommandList,
                                            uint32_t numEvents, ze_event_handle_t *phEvents) {
    return zeCommandListAppendBarrier(hCommandList, NULL, numEvents, phEvents);
}

ze_result_t zeCommandListAppendEventReset(ze_command_list_handle_t hCommandList,
                                          ze_event_handle_t hEvent) {
    if (!zs_event_ok(hEvent))
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    struct zs_cmd c = zs_cmd_of(ZS_CMD_RESET_EVENT, NULL, 0, NULL);
    c.target = hEvent;
    return zs_list_append(hCommandList, &c);
}

ze_result_t zeCommandListAppendWriteGlobalTimestamp(ze_command_list_handle_t hCommandList,
                                                    uint64_t *dstptr,
                                                    ze_event_handle_t hSignalEvent,
                                                    uint32_t numWaitEvents,
                                                    ze_event_handle_t *phWaitEvents) {
    if (!dstptr)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    struct zs_cmd c = zs_cmd_of(ZS_CMD_WRITE_TIMESTAMP, hSignalEvent, numWaitEvents, phWaitEvents);
    c.dst = dstptr;
    return zs_list_append(hCommandList, &c);
}

ze_result_t
zeCommandListAppendQueryKernelTimestamps(ze_command_list_handle_t hCommandList, uint32_t numEvents,
                                         ze_event_handle_t *phEvents, void *dstptr,
                                         const size_t *pOffsets, ze_event_handle_t hSignalEvent,
                                         uint32_t numWaitEvents, ze_event_handle_t *phWaitEvents) {
    if (!phEvents || !dstptr)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    for (uint32_t i = 0; i < numEvents; i++) {
        if (!zs_event_ok(phEvents[i]))
            return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    }
    struct zs_cmd c = zs_cmd_of(ZS_CMD_QUERY_TIMESTAMPS, hSignalEvent, numWaitEvents, phWaitEvents);
    c.dst = dstptr;
    c.targets = phEvents;
    c.num_targets = numEvents;
    c.offsets = (size_t *)pOffsets; /* copied by the list, never written */
    return zs_list_append(hCommandList, &c);
}

/* Hints: memory is always where the device can reach it. */
ze_result_t zeCommandListAppendMemoryPrefetch(ze_command_list_handle_t hCommandList,
                                              const void *ptr, size_t size) {
    (void)size;
    if (!hCommandList)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    return ptr ? ZE_RESULT_SUCCESS : ZE_RESULT_ERROR_INVALID_NULL_POINTER;
}

ze_result_t zeCommandListAppendMemAdvise(ze_command_list_handle_t hCommandList,
                                         ze_device_handle_t hDevice, const void *ptr, size_t size,
                                         ze_memory_advice_t advice) {
    (void)size;
    (void)advice;
    if (!hCommandList || !zs_device_ok(hDevice))
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    return ptr ? ZE_RESULT_SUCCESS : ZE_RESULT_ERROR_INVALID_NULL_POINTER;
}
