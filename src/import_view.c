/* Import without a copy: PJRT_Client_CreateViewOfDeviceBuffer. */
#include "import.h"

static void on_view_deleted(void *device_buffer_ptr, void *user_arg) {
    (void)device_buffer_ptr;
    int *depth = pjdl__callback_enter();
    pjdl__import_owner_release(user_arg);
    pjdl__callback_leave(depth);
}

pjdl_code pjdl__import_view(import_job *job, PJRT_Buffer **out) {
    const pjdl_plugin *p = job->client->plugin;
    /* PJRT_Client_CreateViewOfDeviceBuffer is there (view_obstacle). */
    PJDL_TRY(PJDL_NEED(p, PJRT_Buffer_Destroy)); /* else the view could never be freed */
    const DLTensor *t = job->tensor;
    /* Row-major is PJRT's default; a layout is said only for permutations
     * (and built only then: the common case skips the struct). */
    bool permuted = job->layout.kind == PJDL_LAYOUT_PERMUTED;
    PJRT_Buffer_MemoryLayout layout;
    if (permuted) {
        layout = (PJRT_Buffer_MemoryLayout){.struct_size = PJRT_Buffer_MemoryLayout_STRUCT_SIZE,
                                            .type = PJRT_Buffer_MemoryLayout_Type_Tiled};
        layout.tiled.struct_size = PJRT_Buffer_MemoryLayout_Tiled_STRUCT_SIZE;
        layout.tiled.minor_to_major = job->layout.minor_to_major;
        layout.tiled.minor_to_major_size = (size_t)job->layout.ndim;
    }
    /* Every field assigned: an initializer would have GCC clear the struct
     * with `rep stosq` first, slow to start on every view (bench/README.md). */
    PJRT_Client_CreateViewOfDeviceBuffer_Args a;
    a.struct_size = PJRT_Client_CreateViewOfDeviceBuffer_Args_STRUCT_SIZE;
    a.extension_start = NULL;
    a.client = job->client->client;
    a.device_buffer_ptr = pjdl__import_data(job);
    a.dims = t->shape;
    a.num_dims = (size_t)t->ndim;
    a.element_type = job->type;
    a.layout = permuted ? &layout : NULL;
    a.device = job->device->device;
    a.on_delete_callback = on_view_deleted;
    a.on_delete_callback_arg = job->owner;
    a.stream = job->options.has_stream ? job->options.stream : 0;
    a.buffer = NULL;
    a.memory = job->memory ? job->memory->memory : NULL;
    pjdl_code code = PJDL_CALL(p->api, PJRT_Client_CreateViewOfDeviceBuffer, &a);
    if (code == PJDL_OK && a.buffer == NULL)
        code = pjdl__fail(PJDL_INTERNAL, "PJRT_Client_CreateViewOfDeviceBuffer returned no buffer");
    if (code != PJDL_OK) {
        pjdl__import_owner_cancel(job->owner);
        return code;
    }
    *out = a.buffer;
    return PJDL_OK;
}
