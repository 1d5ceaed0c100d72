/* Device descriptions and devices. */
#include <string.h>

#include "ref_internal.h"

REF_DEFINE_QUERY(PJRT_DeviceDescription_Id, device_description, args->id = self->id;)
REF_DEFINE_QUERY(PJRT_DeviceDescription_ProcessIndex, device_description, args->process_index = 0;)
REF_DEFINE_QUERY(PJRT_DeviceDescription_Attributes, device_description,
                 args->attributes = self->attributes;
                 args->num_attributes = self->num_attributes;)
REF_DEFINE_QUERY(PJRT_DeviceDescription_Kind, device_description,
                 REF_SET_STRING(args->device_kind, self->kind);)
REF_DEFINE_QUERY(PJRT_DeviceDescription_DebugString, device_description,
                 REF_SET_STRING(args->debug_string, self->debug_string);)
REF_DEFINE_QUERY(PJRT_DeviceDescription_ToString, device_description,
                 REF_SET_STRING(args->to_string, self->to_string);)

REF_DEFINE_QUERY(PJRT_Device_GetDescription, device, args->device_description = &self->description;)
REF_DEFINE_QUERY(PJRT_Device_IsAddressable, device, args->is_addressable = true;)
REF_DEFINE_QUERY(PJRT_Device_LocalHardwareId, device, args->local_hardware_id = self->id;)
REF_DEFINE_QUERY(PJRT_Device_AddressableMemories, device, args->memories = self->memories;
                 args->num_memories = self->num_memories;)
REF_DEFINE_QUERY(PJRT_Device_DefaultMemory, device, args->memory = self->memories[0];)

/* Reports the accounting of the device's default memory ("device"). */
PJRT_Error *ref_PJRT_Device_MemoryStats(PJRT_Device_MemoryStats_Args *args) {
    REF_CHECK_ARGS_UPTO(args, PJRT_Device_MemoryStats_Args, bytes_limit_is_set);
    REF_RETURN_IF_NULL(args->device, "PJRT_Device_MemoryStats", "device");
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
    REF_CHECK_ENTRY(args, PJRT_Device_GetAttributes, device);
    args->attributes = args->device->description.attributes;
    args->num_attributes = args->device->description.num_attributes;
    args->device_attributes = (PJRT_Device_Attributes *)args->device;
    args->attributes_deleter = no_attributes_deleter;
    return NULL;
}

/* Restarts the peak, count and largest-allocation statistics of every memory
 * of the device from the current state. */
PJRT_Error *ref_PJRT_Device_ClearMemoryStats(PJRT_Device_ClearMemoryStats_Args *args) {
    REF_CHECK_ENTRY(args, PJRT_Device_ClearMemoryStats, device);
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
