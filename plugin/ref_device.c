/* Device descriptions and devices. */
#include <string.h>

#include "ref_internal.h"

#define CHECK_DESC(args, fn)                                                                       \
    REF_RETURN_IF_NULL((args)->device_description, fn, "device_description")
#define CHECK_DEVICE(args, fn) REF_RETURN_IF_NULL((args)->device, fn, "device")

PJRT_Error *ref_PJRT_DeviceDescription_Id(PJRT_DeviceDescription_Id_Args *args) {
    REF_CHECK_ARGS(args, PJRT_DeviceDescription_Id_Args);
    CHECK_DESC(args, "PJRT_DeviceDescription_Id");
    args->id = args->device_description->id;
    return NULL;
}

PJRT_Error *
ref_PJRT_DeviceDescription_ProcessIndex(PJRT_DeviceDescription_ProcessIndex_Args *args) {
    REF_CHECK_ARGS(args, PJRT_DeviceDescription_ProcessIndex_Args);
    CHECK_DESC(args, "PJRT_DeviceDescription_ProcessIndex");
    args->process_index = 0;
    return NULL;
}

PJRT_Error *ref_PJRT_DeviceDescription_Attributes(PJRT_DeviceDescription_Attributes_Args *args) {
    REF_CHECK_ARGS(args, PJRT_DeviceDescription_Attributes_Args);
    CHECK_DESC(args, "PJRT_DeviceDescription_Attributes");
    args->attributes = args->device_description->attributes;
    args->num_attributes = args->device_description->num_attributes;
    return NULL;
}

PJRT_Error *ref_PJRT_DeviceDescription_Kind(PJRT_DeviceDescription_Kind_Args *args) {
    REF_CHECK_ARGS(args, PJRT_DeviceDescription_Kind_Args);
    CHECK_DESC(args, "PJRT_DeviceDescription_Kind");
    args->device_kind = args->device_description->kind;
    args->device_kind_size = strlen(args->device_description->kind);
    return NULL;
}

PJRT_Error *ref_PJRT_DeviceDescription_DebugString(PJRT_DeviceDescription_DebugString_Args *args) {
    REF_CHECK_ARGS(args, PJRT_DeviceDescription_DebugString_Args);
    CHECK_DESC(args, "PJRT_DeviceDescription_DebugString");
    args->debug_string = args->device_description->debug_string;
    args->debug_string_size = strlen(args->device_description->debug_string);
    return NULL;
}

PJRT_Error *ref_PJRT_DeviceDescription_ToString(PJRT_DeviceDescription_ToString_Args *args) {
    REF_CHECK_ARGS(args, PJRT_DeviceDescription_ToString_Args);
    CHECK_DESC(args, "PJRT_DeviceDescription_ToString");
    args->to_string = args->device_description->to_string;
    args->to_string_size = strlen(args->device_description->to_string);
    return NULL;
}

PJRT_Error *ref_PJRT_Device_GetDescription(PJRT_Device_GetDescription_Args *args) {
    REF_CHECK_ARGS(args, PJRT_Device_GetDescription_Args);
    CHECK_DEVICE(args, "PJRT_Device_GetDescription");
    args->device_description = &args->device->description;
    return NULL;
}

PJRT_Error *ref_PJRT_Device_IsAddressable(PJRT_Device_IsAddressable_Args *args) {
    REF_CHECK_ARGS(args, PJRT_Device_IsAddressable_Args);
    CHECK_DEVICE(args, "PJRT_Device_IsAddressable");
    args->is_addressable = true;
    return NULL;
}

PJRT_Error *ref_PJRT_Device_LocalHardwareId(PJRT_Device_LocalHardwareId_Args *args) {
    REF_CHECK_ARGS(args, PJRT_Device_LocalHardwareId_Args);
    CHECK_DEVICE(args, "PJRT_Device_LocalHardwareId");
    args->local_hardware_id = args->device->id;
    return NULL;
}

PJRT_Error *ref_PJRT_Device_AddressableMemories(PJRT_Device_AddressableMemories_Args *args) {
    REF_CHECK_ARGS(args, PJRT_Device_AddressableMemories_Args);
    CHECK_DEVICE(args, "PJRT_Device_AddressableMemories");
    args->memories = args->device->memories;
    args->num_memories = args->device->num_memories;
    return NULL;
}

PJRT_Error *ref_PJRT_Device_DefaultMemory(PJRT_Device_DefaultMemory_Args *args) {
    REF_CHECK_ARGS(args, PJRT_Device_DefaultMemory_Args);
    CHECK_DEVICE(args, "PJRT_Device_DefaultMemory");
    args->memory = args->device->memories[0];
    return NULL;
}

/* Reports the accounting of the device's default memory ("device"). */
PJRT_Error *ref_PJRT_Device_MemoryStats(PJRT_Device_MemoryStats_Args *args) {
    REF_CHECK_ARGS_UPTO(args, PJRT_Device_MemoryStats_Args, bytes_limit_is_set);
    CHECK_DEVICE(args, "PJRT_Device_MemoryStats");
    ref_memory *m = REF_MEMORY(args->device->memories[0]);
    pthread_mutex_lock(&m->mu);
    args->bytes_in_use = m->bytes_in_use;
    args->peak_bytes_in_use = m->peak_bytes_in_use;
    args->peak_bytes_in_use_is_set = true;
    args->num_allocs = m->num_allocs;
    args->num_allocs_is_set = true;
    args->largest_alloc_size = m->largest_alloc;
    args->largest_alloc_size_is_set = true;
    args->bytes_limit = m->capacity;
    args->bytes_limit_is_set = m->capacity > 0;
    pthread_mutex_unlock(&m->mu);
    /* The fields after bytes_limit_is_set are "not set"; clear those the
     * caller's struct has. */
    size_t start = REF_FIELD_END(PJRT_Device_MemoryStats_Args, bytes_limit_is_set);
    if (args->struct_size > start)
        memset((char *)args + start, 0, args->struct_size - start);
    return NULL;
}

/* The attributes are the description's, owned by the device: the deleter has
 * nothing to free. */
static void no_attributes_deleter(PJRT_Device_Attributes *attributes) {
    (void)attributes;
}

PJRT_Error *ref_PJRT_Device_GetAttributes(PJRT_Device_GetAttributes_Args *args) {
    REF_CHECK_ARGS(args, PJRT_Device_GetAttributes_Args);
    CHECK_DEVICE(args, "PJRT_Device_GetAttributes");
    args->attributes = args->device->description.attributes;
    args->num_attributes = args->device->description.num_attributes;
    args->device_attributes = (PJRT_Device_Attributes *)args->device;
    args->attributes_deleter = no_attributes_deleter;
    return NULL;
}

/* Restarts the peak, count and largest-allocation statistics of every memory
 * of the device from the current state. */
PJRT_Error *ref_PJRT_Device_ClearMemoryStats(PJRT_Device_ClearMemoryStats_Args *args) {
    REF_CHECK_ARGS(args, PJRT_Device_ClearMemoryStats_Args);
    CHECK_DEVICE(args, "PJRT_Device_ClearMemoryStats");
    for (size_t i = 0; i < args->device->num_memories; i++) {
        ref_memory *m = REF_MEMORY(args->device->memories[i]);
        pthread_mutex_lock(&m->mu);
        m->peak_bytes_in_use = m->bytes_in_use;
        m->num_allocs = 0;
        m->largest_alloc = 0;
        pthread_mutex_unlock(&m->mu);
    }
    return NULL;
}
