/* Direct PJRT C API calls, for what the checks must observe in the plugin
 * itself rather than through the library. Every call checks that the slot
 * exists first: a missing slot is UNIMPLEMENTED, never a call. */
#include <dlfcn.h>
#include <stdarg.h>
#include <string.h>

#include "cli.h"

bool raw_has_slot(const PJRT_Api *api, size_t offset) {
    if (api == NULL || api->struct_size < offset + sizeof(void *))
        return false;
    void *slot;
    memcpy(&slot, (const char *)api + offset, sizeof slot);
    return slot != NULL;
}

static void set_msg(char *msg, size_t n, const char *fmt, ...) {
    if (msg == NULL || n == 0)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, n, fmt, ap);
    va_end(ap);
}

pjdl_code raw_take_error(const PJRT_Api *api, PJRT_Error *error, char *msg, size_t msg_size) {
    if (error == NULL) {
        set_msg(msg, msg_size, "%s", "");
        return PJDL_OK;
    }
    pjdl_code code = PJDL_UNKNOWN;
    if (RAW_HAS(api, PJRT_Error_GetCode)) {
        PJRT_Error_GetCode_Args a = {0};
        a.struct_size = PJRT_Error_GetCode_Args_STRUCT_SIZE;
        a.error = error;
        if (api->PJRT_Error_GetCode(&a) == NULL)
            code = (pjdl_code)a.code;
    }
    set_msg(msg, msg_size, "%s", "(no message)");
    if (RAW_HAS(api, PJRT_Error_Message)) {
        PJRT_Error_Message_Args a = {0};
        a.struct_size = PJRT_Error_Message_Args_STRUCT_SIZE;
        a.error = error;
        api->PJRT_Error_Message(&a);
        if (a.message != NULL)
            set_msg(msg, msg_size, "%.*s", (int)a.message_size, a.message);
    }
    if (RAW_HAS(api, PJRT_Error_Destroy)) {
        PJRT_Error_Destroy_Args a = {0};
        a.struct_size = PJRT_Error_Destroy_Args_STRUCT_SIZE;
        a.error = error;
        api->PJRT_Error_Destroy(&a);
    }
    if (code == PJDL_OK)
        code = PJDL_UNKNOWN; /* an error object must not say OK */
    return code;
}

static pjdl_code missing(const char *slot, char *msg, size_t n) {
    set_msg(msg, n, "the plugin does not provide %s", slot);
    return PJDL_UNIMPLEMENTED;
}

#define RAW_REQUIRE(api, slot, msg, n)                                                             \
    do {                                                                                           \
        if (!RAW_HAS(api, slot))                                                                   \
            return missing(#slot, msg, n);                                                         \
    } while (0)

void raw_get_api(void *handle, bool *has_symbol, const PJRT_Api **api) {
    const PJRT_Api *(*get_api)(void);
    void *sym = dlsym(handle, "GetPjrtApi");
    memcpy(&get_api, &sym, sizeof get_api);
    *has_symbol = sym != NULL;
    *api = sym ? get_api() : NULL;
}

const PJRT_Stream_Extension *raw_stream_extension(const PJRT_Api *api) {
    const PJRT_Extension_Base *ext = api->extension_start;
    for (int i = 0; ext != NULL && i < 64; i++, ext = ext->next) {
        if (ext->type == PJRT_Extension_Type_Stream &&
            ext->struct_size >= sizeof(PJRT_Stream_Extension))
            return (const PJRT_Stream_Extension *)ext;
    }
    return NULL;
}

pjdl_code raw_buffer_from_host(const PJRT_Api *api, PJRT_Client *client, const void *data,
                               PJRT_Buffer_Type type, const int64_t *dims, size_t ndim,
                               PJRT_Device *device, PJRT_Memory *memory,
                               PJRT_Buffer_MemoryLayout *device_layout, PJRT_Buffer **out,
                               char *msg, size_t n) {
    RAW_REQUIRE(api, PJRT_Client_BufferFromHostBuffer, msg, n);
    PJRT_Client_BufferFromHostBuffer_Args a = {0};
    a.struct_size = PJRT_Client_BufferFromHostBuffer_Args_STRUCT_SIZE;
    a.client = client;
    a.data = data;
    a.type = type;
    a.dims = dims;
    a.num_dims = ndim;
    a.host_buffer_semantics = PJRT_HostBufferSemantics_kImmutableOnlyDuringCall;
    a.device = memory ? NULL : device;
    a.memory = memory;
    a.device_layout = device_layout;
    pjdl_code rc = raw_take_error(api, api->PJRT_Client_BufferFromHostBuffer(&a), msg, n);
    if (rc != PJDL_OK)
        return rc;
    if (a.done_with_host_buffer != NULL) {
        /* kImmutableOnlyDuringCall: done already; await anyway, then drop. */
        if (RAW_HAS(api, PJRT_Event_Await)) {
            PJRT_Event_Await_Args w = {0};
            w.struct_size = PJRT_Event_Await_Args_STRUCT_SIZE;
            w.event = a.done_with_host_buffer;
            raw_take_error(api, api->PJRT_Event_Await(&w), NULL, 0);
        }
        if (RAW_HAS(api, PJRT_Event_Destroy)) {
            PJRT_Event_Destroy_Args d = {0};
            d.struct_size = PJRT_Event_Destroy_Args_STRUCT_SIZE;
            d.event = a.done_with_host_buffer;
            raw_take_error(api, api->PJRT_Event_Destroy(&d), NULL, 0);
        }
    }
    *out = a.buffer;
    return PJDL_OK;
}

pjdl_code raw_buffer_destroy(const PJRT_Api *api, PJRT_Buffer *buffer) {
    if (buffer == NULL || !RAW_HAS(api, PJRT_Buffer_Destroy))
        return PJDL_OK;
    PJRT_Buffer_Destroy_Args a = {0};
    a.struct_size = PJRT_Buffer_Destroy_Args_STRUCT_SIZE;
    a.buffer = buffer;
    return raw_take_error(api, api->PJRT_Buffer_Destroy(&a), NULL, 0);
}

pjdl_code raw_buffer_delete(const PJRT_Api *api, PJRT_Buffer *buffer, char *msg, size_t n) {
    RAW_REQUIRE(api, PJRT_Buffer_Delete, msg, n);
    PJRT_Buffer_Delete_Args a = {0};
    a.struct_size = PJRT_Buffer_Delete_Args_STRUCT_SIZE;
    a.buffer = buffer;
    return raw_take_error(api, api->PJRT_Buffer_Delete(&a), msg, n);
}

pjdl_code raw_buffer_increase(const PJRT_Api *api, PJRT_Buffer *buffer, char *msg, size_t n) {
    RAW_REQUIRE(api, PJRT_Buffer_IncreaseExternalReferenceCount, msg, n);
    PJRT_Buffer_IncreaseExternalReferenceCount_Args a = {0};
    a.struct_size = PJRT_Buffer_IncreaseExternalReferenceCount_Args_STRUCT_SIZE;
    a.buffer = buffer;
    return raw_take_error(api, api->PJRT_Buffer_IncreaseExternalReferenceCount(&a), msg, n);
}

pjdl_code raw_buffer_decrease(const PJRT_Api *api, PJRT_Buffer *buffer, char *msg, size_t n) {
    RAW_REQUIRE(api, PJRT_Buffer_DecreaseExternalReferenceCount, msg, n);
    PJRT_Buffer_DecreaseExternalReferenceCount_Args a = {0};
    a.struct_size = PJRT_Buffer_DecreaseExternalReferenceCount_Args_STRUCT_SIZE;
    a.buffer = buffer;
    return raw_take_error(api, api->PJRT_Buffer_DecreaseExternalReferenceCount(&a), msg, n);
}

pjdl_code raw_buffer_pointer(const PJRT_Api *api, PJRT_Buffer *buffer, void **out, char *msg,
                             size_t n) {
    if (RAW_HAS(api, PJRT_Buffer_OpaqueDeviceMemoryDataPointer)) {
        PJRT_Buffer_OpaqueDeviceMemoryDataPointer_Args a = {0};
        a.struct_size = PJRT_Buffer_OpaqueDeviceMemoryDataPointer_Args_STRUCT_SIZE;
        a.buffer = buffer;
        pjdl_code rc =
            raw_take_error(api, api->PJRT_Buffer_OpaqueDeviceMemoryDataPointer(&a), msg, n);
        if (rc == PJDL_OK) {
            *out = a.device_memory_ptr;
            return PJDL_OK;
        }
        if (rc != PJDL_UNIMPLEMENTED)
            return rc;
    }
    RAW_REQUIRE(api, PJRT_Buffer_UnsafePointer, msg, n);
    PJRT_Buffer_UnsafePointer_Args a = {0};
    a.struct_size = PJRT_Buffer_UnsafePointer_Args_STRUCT_SIZE;
    a.buffer = buffer;
    pjdl_code rc = raw_take_error(api, api->PJRT_Buffer_UnsafePointer(&a), msg, n);
    if (rc == PJDL_OK)
        *out = (void *)a.buffer_pointer;
    return rc;
}

static pjdl_code ready_event(const PJRT_Api *api, PJRT_Buffer *buffer, PJRT_Event **ev, char *msg,
                             size_t n) {
    RAW_REQUIRE(api, PJRT_Buffer_ReadyEvent, msg, n);
    PJRT_Buffer_ReadyEvent_Args a = {0};
    a.struct_size = PJRT_Buffer_ReadyEvent_Args_STRUCT_SIZE;
    a.buffer = buffer;
    pjdl_code rc = raw_take_error(api, api->PJRT_Buffer_ReadyEvent(&a), msg, n);
    if (rc == PJDL_OK)
        *ev = a.event;
    return rc;
}

static void event_destroy(const PJRT_Api *api, PJRT_Event *ev) {
    if (ev == NULL || !RAW_HAS(api, PJRT_Event_Destroy))
        return;
    PJRT_Event_Destroy_Args d = {0};
    d.struct_size = PJRT_Event_Destroy_Args_STRUCT_SIZE;
    d.event = ev;
    raw_take_error(api, api->PJRT_Event_Destroy(&d), NULL, 0);
}

pjdl_code raw_buffer_await(const PJRT_Api *api, PJRT_Buffer *buffer, char *msg, size_t n) {
    RAW_REQUIRE(api, PJRT_Event_Await, msg, n);
    PJRT_Event *ev = NULL;
    pjdl_code rc = ready_event(api, buffer, &ev, msg, n);
    if (rc != PJDL_OK)
        return rc;
    PJRT_Event_Await_Args a = {0};
    a.struct_size = PJRT_Event_Await_Args_STRUCT_SIZE;
    a.event = ev;
    rc = raw_take_error(api, api->PJRT_Event_Await(&a), msg, n);
    event_destroy(api, ev);
    return rc;
}

pjdl_code raw_buffer_is_ready(const PJRT_Api *api, PJRT_Buffer *buffer, bool *ready, char *msg,
                              size_t n) {
    RAW_REQUIRE(api, PJRT_Event_IsReady, msg, n);
    PJRT_Event *ev = NULL;
    pjdl_code rc = ready_event(api, buffer, &ev, msg, n);
    if (rc != PJDL_OK)
        return rc;
    PJRT_Event_IsReady_Args a = {0};
    a.struct_size = PJRT_Event_IsReady_Args_STRUCT_SIZE;
    a.event = ev;
    rc = raw_take_error(api, api->PJRT_Event_IsReady(&a), msg, n);
    if (rc == PJDL_OK)
        *ready = a.is_ready;
    event_destroy(api, ev);
    return rc;
}

pjdl_code raw_buffer_to_host(const PJRT_Api *api, PJRT_Buffer *buffer, void *dst, size_t size,
                             char *msg, size_t n) {
    RAW_REQUIRE(api, PJRT_Buffer_ToHostBuffer, msg, n);
    RAW_REQUIRE(api, PJRT_Event_Await, msg, n);
    PJRT_Buffer_ToHostBuffer_Args a = {0};
    a.struct_size = PJRT_Buffer_ToHostBuffer_Args_STRUCT_SIZE;
    a.src = buffer;
    a.dst = dst;
    a.dst_size = size;
    pjdl_code rc = raw_take_error(api, api->PJRT_Buffer_ToHostBuffer(&a), msg, n);
    if (rc != PJDL_OK || a.event == NULL)
        return rc;
    PJRT_Event_Await_Args w = {0};
    w.struct_size = PJRT_Event_Await_Args_STRUCT_SIZE;
    w.event = a.event;
    rc = raw_take_error(api, api->PJRT_Event_Await(&w), msg, n);
    event_destroy(api, a.event);
    return rc;
}

/* XLA wraps the callback in a std::function and calls it unconditionally:
 * a NULL on_delete_callback aborts the process when the view is destroyed.
 * The C API does not say NULL is allowed, so never pass one. */
static void view_deleted_nothing(void *device_buffer_ptr, void *arg) {
    (void)device_buffer_ptr;
    (void)arg;
}

pjdl_code raw_create_view(const PJRT_Api *api, PJRT_Client *client, void *ptr,
                          PJRT_Buffer_Type type, const int64_t *dims, size_t ndim,
                          PJRT_Buffer_MemoryLayout *layout, PJRT_Device *device,
                          PJRT_Memory *memory, void (*on_delete)(void *, void *), void *arg,
                          PJRT_Buffer **out, char *msg, size_t n) {
    RAW_REQUIRE(api, PJRT_Client_CreateViewOfDeviceBuffer, msg, n);
    PJRT_Client_CreateViewOfDeviceBuffer_Args a = {0};
    a.struct_size = PJRT_Client_CreateViewOfDeviceBuffer_Args_STRUCT_SIZE;
    a.client = client;
    a.device_buffer_ptr = ptr;
    a.dims = dims;
    a.num_dims = ndim;
    a.element_type = type;
    a.layout = layout;
    a.device = device;
    a.memory = memory;
    a.on_delete_callback = on_delete ? on_delete : view_deleted_nothing;
    a.on_delete_callback_arg = arg;
    pjdl_code rc = raw_take_error(api, api->PJRT_Client_CreateViewOfDeviceBuffer(&a), msg, n);
    if (rc == PJDL_OK)
        *out = a.buffer;
    return rc;
}
