/* Direct PJRT C API calls (raw.h): for what the command's checks must
 * observe in the plugin itself rather than through the library, and for the
 * plugin's tests and fuzz target. Every call checks that the slot exists
 * first: a missing slot is UNIMPLEMENTED, never a call. */
#include "raw.h"

#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

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
        PJRT_Error_GetCode_Args a = {.struct_size = PJRT_Error_GetCode_Args_STRUCT_SIZE,
                                     .error = error};
        if (api->PJRT_Error_GetCode(&a) == NULL)
            code = (pjdl_code)a.code;
    }
    set_msg(msg, msg_size, "%s", "(no message)");
    if (RAW_HAS(api, PJRT_Error_Message)) {
        PJRT_Error_Message_Args a = {.struct_size = PJRT_Error_Message_Args_STRUCT_SIZE,
                                     .error = error};
        api->PJRT_Error_Message(&a);
        if (a.message != NULL)
            set_msg(msg, msg_size, "%.*s", (int)a.message_size, a.message);
    }
    if (RAW_HAS(api, PJRT_Error_Destroy)) {
        PJRT_Error_Destroy_Args a = {.struct_size = PJRT_Error_Destroy_Args_STRUCT_SIZE,
                                     .error = error};
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
    if (has_symbol != NULL)
        *has_symbol = sym != NULL;
    *api = sym ? get_api() : NULL;
}

const PJRT_Stream_Extension *raw_stream_extension(const PJRT_Api *api) {
    const PJRT_Extension_Base *ext = pjdl_api_extensions(api);
    for (int i = 0; ext != NULL && i < 64; i++, ext = ext->next) {
        if (ext->type == PJRT_Extension_Type_Stream &&
            ext->struct_size >= sizeof(PJRT_Stream_Extension))
            return (const PJRT_Stream_Extension *)ext;
    }
    return NULL;
}

pjdl_code raw_plugin_initialize(const PJRT_Api *api, char *msg, size_t n) {
    RAW_REQUIRE(api, PJRT_Plugin_Initialize, msg, n);
    PJRT_Plugin_Initialize_Args a = {.struct_size = PJRT_Plugin_Initialize_Args_STRUCT_SIZE};
    return raw_take_error(api, api->PJRT_Plugin_Initialize(&a), msg, n);
}

pjdl_code raw_client_create(const PJRT_Api *api, const PJRT_NamedValue *options, size_t num_options,
                            PJRT_Client **out, char *msg, size_t n) {
    *out = NULL;
    RAW_REQUIRE(api, PJRT_Client_Create, msg, n);
    PJRT_Client_Create_Args a = {.struct_size = PJRT_Client_Create_Args_STRUCT_SIZE,
                                 .create_options = options,
                                 .num_options = num_options};
    pjdl_code rc = raw_take_error(api, api->PJRT_Client_Create(&a), msg, n);
    if (rc == PJDL_OK)
        *out = a.client;
    return rc;
}

pjdl_code raw_client_destroy(const PJRT_Api *api, PJRT_Client *client, char *msg, size_t n) {
    RAW_REQUIRE(api, PJRT_Client_Destroy, msg, n);
    PJRT_Client_Destroy_Args a = {.struct_size = PJRT_Client_Destroy_Args_STRUCT_SIZE,
                                  .client = client};
    return raw_take_error(api, api->PJRT_Client_Destroy(&a), msg, n);
}

pjdl_code raw_client_device(const PJRT_Api *api, PJRT_Client *client, size_t index,
                            PJRT_Device **out, char *msg, size_t n) {
    RAW_REQUIRE(api, PJRT_Client_AddressableDevices, msg, n);
    PJRT_Client_AddressableDevices_Args a = {
        .struct_size = PJRT_Client_AddressableDevices_Args_STRUCT_SIZE, .client = client};
    pjdl_code rc = raw_take_error(api, api->PJRT_Client_AddressableDevices(&a), msg, n);
    if (rc != PJDL_OK)
        return rc;
    if (index >= a.num_addressable_devices) {
        set_msg(msg, n, "no addressable device %zu (the client has %zu)", index,
                a.num_addressable_devices);
        return PJDL_OUT_OF_RANGE;
    }
    *out = a.addressable_devices[index];
    return PJDL_OK;
}

/* The calls whose arguments are one object (an event or a buffer, the
 * arguments' field `field`) and nothing else. */
#define RAW_CALL_ON(name, slot, type, field)                                                       \
    pjdl_code name(const PJRT_Api *api, type *field, char *msg, size_t n) {                        \
        RAW_REQUIRE(api, slot, msg, n);                                                            \
        slot##_Args a = {.struct_size = slot##_Args_STRUCT_SIZE, .field = field};                  \
        return raw_take_error(api, api->slot(&a), msg, n);                                         \
    }

RAW_CALL_ON(raw_event_await, PJRT_Event_Await, PJRT_Event, event)
RAW_CALL_ON(raw_event_destroy, PJRT_Event_Destroy, PJRT_Event, event)

pjdl_code raw_event_finish(const PJRT_Api *api, PJRT_Event *ev, char *msg, size_t n) {
    pjdl_code rc = PJDL_OK;
    if (RAW_HAS(api, PJRT_Event_Await))
        rc = raw_event_await(api, ev, msg, n);
    if (ev != NULL)
        raw_event_destroy(api, ev, NULL, 0);
    return rc;
}

pjdl_code raw_event_is_ready(const PJRT_Api *api, PJRT_Event *ev, bool *ready, char *msg,
                             size_t n) {
    RAW_REQUIRE(api, PJRT_Event_IsReady, msg, n);
    PJRT_Event_IsReady_Args a = {.struct_size = PJRT_Event_IsReady_Args_STRUCT_SIZE, .event = ev};
    pjdl_code rc = raw_take_error(api, api->PJRT_Event_IsReady(&a), msg, n);
    if (rc == PJDL_OK)
        *ready = a.is_ready;
    return rc;
}

pjdl_code raw_buffer_from_host(const PJRT_Api *api, PJRT_Client_BufferFromHostBuffer_Args *a,
                               char *msg, size_t n) {
    RAW_REQUIRE(api, PJRT_Client_BufferFromHostBuffer, msg, n);
    a->struct_size = PJRT_Client_BufferFromHostBuffer_Args_STRUCT_SIZE;
    a->done_with_host_buffer = NULL;
    a->buffer = NULL;
    pjdl_code rc = raw_take_error(api, api->PJRT_Client_BufferFromHostBuffer(a), msg, n);
    /* The host data's release (at once for kImmutableOnlyDuringCall); if it
     * fails, so does the call. */
    if (rc != PJDL_OK || a->done_with_host_buffer == NULL)
        return rc;
    rc = raw_event_finish(api, a->done_with_host_buffer, msg, n);
    if (rc != PJDL_OK) {
        raw_buffer_destroy(api, a->buffer);
        a->buffer = NULL;
    }
    return rc;
}

pjdl_code raw_buffer_destroy(const PJRT_Api *api, PJRT_Buffer *buffer) {
    if (buffer == NULL || !RAW_HAS(api, PJRT_Buffer_Destroy))
        return PJDL_OK;
    PJRT_Buffer_Destroy_Args a = {.struct_size = PJRT_Buffer_Destroy_Args_STRUCT_SIZE,
                                  .buffer = buffer};
    return raw_take_error(api, api->PJRT_Buffer_Destroy(&a), NULL, 0);
}

RAW_CALL_ON(raw_buffer_delete, PJRT_Buffer_Delete, PJRT_Buffer, buffer)
RAW_CALL_ON(raw_buffer_increase, PJRT_Buffer_IncreaseExternalReferenceCount, PJRT_Buffer, buffer)
RAW_CALL_ON(raw_buffer_decrease, PJRT_Buffer_DecreaseExternalReferenceCount, PJRT_Buffer, buffer)

/* The calls whose arguments are one buffer and one result. */
#define RAW_BUFFER_GET(name, slot, type, field)                                                    \
    pjdl_code name(const PJRT_Api *api, PJRT_Buffer *buffer, type *out, char *msg, size_t n) {     \
        RAW_REQUIRE(api, slot, msg, n);                                                            \
        slot##_Args a = {.struct_size = slot##_Args_STRUCT_SIZE, .buffer = buffer};                \
        pjdl_code rc = raw_take_error(api, api->slot(&a), msg, n);                                 \
        if (rc == PJDL_OK)                                                                         \
            *out = a.field;                                                                        \
        return rc;                                                                                 \
    }

RAW_BUFFER_GET(raw_buffer_opaque_pointer, PJRT_Buffer_OpaqueDeviceMemoryDataPointer, void *,
               device_memory_ptr)
RAW_BUFFER_GET(raw_buffer_unsafe_pointer, PJRT_Buffer_UnsafePointer, uintptr_t, buffer_pointer)
RAW_BUFFER_GET(raw_buffer_layout, PJRT_Buffer_GetMemoryLayout, PJRT_Buffer_MemoryLayout, layout)
RAW_BUFFER_GET(raw_buffer_device, PJRT_Buffer_Device, PJRT_Device *, device)
RAW_BUFFER_GET(raw_buffer_ready_event, PJRT_Buffer_ReadyEvent, PJRT_Event *, event)

pjdl_code raw_buffer_pointer(const PJRT_Api *api, PJRT_Buffer *buffer, void **out, char *msg,
                             size_t n) {
    if (RAW_HAS(api, PJRT_Buffer_OpaqueDeviceMemoryDataPointer)) {
        pjdl_code rc = raw_buffer_opaque_pointer(api, buffer, out, msg, n);
        if (rc != PJDL_UNIMPLEMENTED)
            return rc;
    }
    uintptr_t p = 0;
    pjdl_code rc = raw_buffer_unsafe_pointer(api, buffer, &p, msg, n);
    if (rc == PJDL_OK)
        *out = (void *)p;
    return rc;
}

pjdl_code raw_buffer_await(const PJRT_Api *api, PJRT_Buffer *buffer, char *msg, size_t n) {
    RAW_REQUIRE(api, PJRT_Event_Await, msg, n);
    PJRT_Event *ev = NULL;
    pjdl_code rc = raw_buffer_ready_event(api, buffer, &ev, msg, n);
    return rc == PJDL_OK ? raw_event_finish(api, ev, msg, n) : rc;
}

pjdl_code raw_buffer_is_ready(const PJRT_Api *api, PJRT_Buffer *buffer, bool *ready, char *msg,
                              size_t n) {
    RAW_REQUIRE(api, PJRT_Event_IsReady, msg, n);
    PJRT_Event *ev = NULL;
    pjdl_code rc = raw_buffer_ready_event(api, buffer, &ev, msg, n);
    if (rc != PJDL_OK)
        return rc;
    rc = raw_event_is_ready(api, ev, ready, msg, n);
    if (ev != NULL)
        raw_event_destroy(api, ev, NULL, 0);
    return rc;
}

pjdl_code raw_buffer_to_host(const PJRT_Api *api, PJRT_Buffer_ToHostBuffer_Args *a, char *msg,
                             size_t n) {
    RAW_REQUIRE(api, PJRT_Buffer_ToHostBuffer, msg, n);
    RAW_REQUIRE(api, PJRT_Event_Await, msg, n);
    a->struct_size = PJRT_Buffer_ToHostBuffer_Args_STRUCT_SIZE;
    a->event = NULL;
    pjdl_code rc = raw_take_error(api, api->PJRT_Buffer_ToHostBuffer(a), msg, n);
    if (rc != PJDL_OK || a->event == NULL)
        return rc;
    return raw_event_finish(api, a->event, msg, n);
}

/* XLA wraps the callback in a std::function and calls it unconditionally:
 * a NULL on_delete_callback aborts the process when the view is destroyed.
 * The C API does not say NULL is allowed, so never pass one. */
static void view_deleted_nothing(void *device_buffer_ptr, void *arg) {
    (void)device_buffer_ptr;
    (void)arg;
}

pjdl_code raw_create_view(const PJRT_Api *api, PJRT_Client_CreateViewOfDeviceBuffer_Args *a,
                          char *msg, size_t n) {
    RAW_REQUIRE(api, PJRT_Client_CreateViewOfDeviceBuffer, msg, n);
    a->struct_size = PJRT_Client_CreateViewOfDeviceBuffer_Args_STRUCT_SIZE;
    if (a->on_delete_callback == NULL)
        a->on_delete_callback = view_deleted_nothing;
    a->buffer = NULL;
    return raw_take_error(api, api->PJRT_Client_CreateViewOfDeviceBuffer(a), msg, n);
}
