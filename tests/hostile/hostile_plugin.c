/* The hostile plugin: the reference plugin (via tests/broken/shim.c) with
 * every entry point the library calls wrapped, so that a test can make any
 * of them fail, or hand back NULLs, nonsense dimensions and layouts, or
 * events that never complete (see hostile.h). */
#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../broken/shim.h"
#include "hostile.h"

static hostile_config cfg;

/* Found with dlsym by the tests (hostile.h). */
__attribute__((visibility("default"))) hostile_config *hostile_control(void);

__attribute__((visibility("default"))) hostile_config *hostile_control(void) {
    return &cfg;
}

#define REAL shim_real()

/* The marker text of an injected error that pretends to have no message. */
static const char no_text[] = "\x01hostile-no-text";

static PJRT_Error *inject(const char *name) {
    long n = atomic_fetch_add(&cfg.calls, 1) + 1;
    if (n != atomic_load(&cfg.fail_at))
        return NULL;
    snprintf(cfg.failed, sizeof cfg.failed, "%s", name);
    if (atomic_load(&cfg.fault) == HOSTILE_ERROR_NO_TEXT)
        return shim_error(PJRT_Error_Code_INTERNAL, no_text);
    return shim_error(PJRT_Error_Code_INTERNAL, "hostile plugin: injected failure");
}

static bool fault(hostile_fault f) {
    return atomic_load(&cfg.fault) == (int)f;
}

/* ------------------------------------------------------------ error text */

static void error_message(PJRT_Error_Message_Args *args) {
    REAL->PJRT_Error_Message(args);
    if (args->message != NULL && args->message_size == sizeof no_text - 1 &&
        memcmp(args->message, no_text, args->message_size) == 0) {
        args->message = NULL;
        args->message_size = 0;
    }
}

static PJRT_Error *error_get_code(PJRT_Error_GetCode_Args *args) {
    PJRT_Error_Message_Args m = {.struct_size = PJRT_Error_Message_Args_STRUCT_SIZE,
                                 .error = args->error};
    REAL->PJRT_Error_Message(&m);
    PJRT_Error *err = REAL->PJRT_Error_GetCode(args);
    if (err == NULL && m.message != NULL && m.message_size == sizeof no_text - 1 &&
        memcmp(m.message, no_text, m.message_size) == 0)
        args->code = (PJRT_Error_Code)1234;
    return err;
}

/* ----------------------------------------------------------- stuck events */

#define MAX_STUCK 512
static pthread_mutex_t stuck_mu = PTHREAD_MUTEX_INITIALIZER;
static struct {
    PJRT_Event *event;
    bool destroyed; /* the caller destroyed it; we keep it until it is set */
} stuck[MAX_STUCK];

static void real_event_destroy(PJRT_Event *event) {
    PJRT_Event_Destroy_Args d = {.struct_size = PJRT_Event_Destroy_Args_STRUCT_SIZE,
                                 .event = event};
    PJRT_Error *err = REAL->PJRT_Event_Destroy(&d);
    (void)err; /* the reference plugin's destroy never fails */
}

/* Waits for a real event to complete, then destroys it. */
static void real_event_finish(PJRT_Event *event) {
    PJRT_Event_Await_Args a = {.struct_size = PJRT_Event_Await_Args_STRUCT_SIZE, .event = event};
    PJRT_Error *waited = REAL->PJRT_Event_Await(&a);
    if (waited != NULL) {
        PJRT_Error_Destroy_Args d = {.struct_size = PJRT_Error_Destroy_Args_STRUCT_SIZE,
                                     .error = waited};
        REAL->PJRT_Error_Destroy(&d);
    }
    real_event_destroy(event);
}

/* A new event that is never set (NULL when the table is full). */
static PJRT_Event *stuck_event(void) {
    PJRT_Event_Create_Args c = {.struct_size = PJRT_Event_Create_Args_STRUCT_SIZE};
    PJRT_Error *err = REAL->PJRT_Event_Create(&c);
    if (err != NULL)
        return NULL;
    pthread_mutex_lock(&stuck_mu);
    for (int i = 0; i < MAX_STUCK; i++) {
        if (stuck[i].event == NULL) {
            stuck[i].event = c.event;
            stuck[i].destroyed = false;
            atomic_fetch_add(&cfg.stuck_events, 1);
            pthread_mutex_unlock(&stuck_mu);
            return c.event;
        }
    }
    pthread_mutex_unlock(&stuck_mu);
    real_event_destroy(c.event);
    return NULL;
}

/* Whether `event` is stuck; if so marks it destroyed by the caller. */
static bool stuck_destroy(PJRT_Event *event) {
    bool found = false;
    pthread_mutex_lock(&stuck_mu);
    for (int i = 0; i < MAX_STUCK && !found; i++)
        if (stuck[i].event == event && event != NULL) {
            stuck[i].destroyed = true;
            found = true;
        }
    pthread_mutex_unlock(&stuck_mu);
    return found;
}

/* Sets every stuck event to CANCELLED (running their callbacks), and
 * destroys those the caller destroyed already; the others are destroyed by
 * the caller later, normally. */
static void stuck_cancel_all(void) {
    PJRT_Event *set[MAX_STUCK];
    bool destroy[MAX_STUCK];
    int n = 0;
    pthread_mutex_lock(&stuck_mu);
    for (int i = 0; i < MAX_STUCK; i++) {
        if (stuck[i].event != NULL) {
            set[n] = stuck[i].event;
            destroy[n++] = stuck[i].destroyed;
            stuck[i].event = NULL;
            atomic_fetch_sub(&cfg.stuck_events, 1);
        }
    }
    pthread_mutex_unlock(&stuck_mu);
    static const char why[] = "hostile plugin: cancelled at client destroy";
    for (int i = 0; i < n; i++) {
        PJRT_Event_Set_Args s = {.struct_size = PJRT_Event_Set_Args_STRUCT_SIZE,
                                 .event = set[i],
                                 .error_code = PJRT_Error_Code_CANCELLED,
                                 .error_message = why,
                                 .error_message_size = sizeof why - 1};
        PJRT_Error *err = REAL->PJRT_Event_Set(&s);
        (void)err; /* never fails: each event is set once */
        if (destroy[i])
            real_event_destroy(set[i]);
    }
}

static PJRT_Error *event_destroy(PJRT_Event_Destroy_Args *args) {
    if (args != NULL && stuck_destroy(args->event))
        return inject("PJRT_Event_Destroy");
    PJRT_Error *err = REAL->PJRT_Event_Destroy(args);
    return err != NULL ? err : inject("PJRT_Event_Destroy");
}

/* ------------------------------------------------------- plain wrappers */

/* Fails before doing anything. */
#define WRAP_FIRST(name)                                                                           \
    static PJRT_Error *w_##name(name##_Args *args) {                                               \
        PJRT_Error *err = inject(#name);                                                           \
        return err != NULL ? err : REAL->name(args);                                               \
    }
/* Does its work (which releases something), then fails. */
#define WRAP_AFTER(name)                                                                           \
    static PJRT_Error *w_##name(name##_Args *args) {                                               \
        PJRT_Error *err = REAL->name(args);                                                        \
        return err != NULL ? err : inject(#name);                                                  \
    }

WRAP_FIRST(PJRT_Plugin_Initialize)
WRAP_FIRST(PJRT_Client_PlatformName)
WRAP_FIRST(PJRT_Client_PlatformVersion)
WRAP_FIRST(PJRT_DeviceDescription_Id)
WRAP_FIRST(PJRT_DeviceDescription_Kind)
WRAP_FIRST(PJRT_DeviceDescription_DebugString)
WRAP_FIRST(PJRT_Device_LocalHardwareId)
WRAP_FIRST(PJRT_Device_DefaultMemory)
WRAP_FIRST(PJRT_Memory_Id)
WRAP_FIRST(PJRT_Memory_Kind)
WRAP_FIRST(PJRT_Event_OnReady)
WRAP_FIRST(PJRT_Event_Await)
WRAP_FIRST(PJRT_Buffer_Device)
WRAP_FIRST(PJRT_Buffer_Memory)
WRAP_FIRST(PJRT_Buffer_Delete)
WRAP_FIRST(PJRT_Buffer_IncreaseExternalReferenceCount)
WRAP_AFTER(PJRT_Buffer_DecreaseExternalReferenceCount)
WRAP_AFTER(PJRT_Buffer_Destroy)
WRAP_AFTER(PJRT_Client_Destroy)
/* Those the misbehaving wrappers below call first. */
WRAP_FIRST(PJRT_Client_Create)
WRAP_FIRST(PJRT_Client_AddressableDevices)
WRAP_FIRST(PJRT_Device_GetDescription)
WRAP_FIRST(PJRT_Device_AddressableMemories)
WRAP_FIRST(PJRT_Client_BufferFromHostBuffer)
WRAP_FIRST(PJRT_Client_CreateViewOfDeviceBuffer)
WRAP_FIRST(PJRT_Buffer_Dimensions)
WRAP_FIRST(PJRT_Buffer_ElementType)
WRAP_FIRST(PJRT_Buffer_GetMemoryLayout)
WRAP_FIRST(PJRT_Buffer_OpaqueDeviceMemoryDataPointer)
WRAP_FIRST(PJRT_Buffer_UnsafePointer)
WRAP_FIRST(PJRT_Buffer_ReadyEvent)
WRAP_FIRST(PJRT_Buffer_ToHostBuffer)

/* ------------------------------------------------- misbehaving wrappers */

static PJRT_Error *client_create(PJRT_Client_Create_Args *args) {
    PJRT_Error *err = w_PJRT_Client_Create(args);
    if (err == NULL && fault(HOSTILE_CLIENT_NULL)) {
        PJRT_Client_Destroy_Args d = {.struct_size = PJRT_Client_Destroy_Args_STRUCT_SIZE,
                                      .client = args->client};
        err = REAL->PJRT_Client_Destroy(&d);
        args->client = NULL;
    }
    return err;
}

static PJRT_Error *client_destroy(PJRT_Client_Destroy_Args *args) {
    stuck_cancel_all();
    return w_PJRT_Client_Destroy(args);
}

static PJRT_Error *addressable_devices(PJRT_Client_AddressableDevices_Args *args) {
    PJRT_Error *err = w_PJRT_Client_AddressableDevices(args);
    if (err == NULL && fault(HOSTILE_DEVICES_NULL)) {
        args->addressable_devices = NULL;
        args->num_addressable_devices = 1;
    }
    return err;
}

static PJRT_Error *get_description(PJRT_Device_GetDescription_Args *args) {
    PJRT_Error *err = w_PJRT_Device_GetDescription(args);
    if (err == NULL && fault(HOSTILE_DESCRIPTION_NULL))
        args->device_description = NULL;
    return err;
}

static PJRT_Error *device_memories(PJRT_Device_AddressableMemories_Args *args) {
    PJRT_Error *err = w_PJRT_Device_AddressableMemories(args);
    if (err == NULL && fault(HOSTILE_MEMORIES_NULL)) {
        args->memories = NULL;
        args->num_memories = 2;
    }
    return err;
}

static void real_buffer_destroy(PJRT_Buffer *buffer) {
    PJRT_Buffer_Destroy_Args d = {.struct_size = PJRT_Buffer_Destroy_Args_STRUCT_SIZE,
                                  .buffer = buffer};
    PJRT_Error *err = REAL->PJRT_Buffer_Destroy(&d);
    (void)err; /* never fails on a valid buffer */
}

static PJRT_Error *from_host(PJRT_Client_BufferFromHostBuffer_Args *args) {
    PJRT_Error *err = w_PJRT_Client_BufferFromHostBuffer(args);
    if (err == NULL && fault(HOSTILE_FROM_HOST_NULL)) {
        real_buffer_destroy(args->buffer);
        args->buffer = NULL;
    }
    if (err == NULL && fault(HOSTILE_DONE_NEVER) &&
        args->host_buffer_semantics == PJRT_HostBufferSemantics_kImmutableOnlyDuringCall) {
        /* The data was taken during the call; only the event never says so. */
        real_event_finish(args->done_with_host_buffer);
        args->done_with_host_buffer = stuck_event();
    }
    return err;
}

static PJRT_Error *create_view(PJRT_Client_CreateViewOfDeviceBuffer_Args *args) {
    PJRT_Error *err = w_PJRT_Client_CreateViewOfDeviceBuffer(args);
    if (err == NULL && fault(HOSTILE_VIEW_NULL)) {
        real_buffer_destroy(args->buffer); /* runs on_delete_callback */
        args->buffer = NULL;
    }
    return err;
}

static int64_t dims_storage[70]; /* not thread-local: TLS of a dlopen()ed module leaks */

static PJRT_Error *dimensions(PJRT_Buffer_Dimensions_Args *args) {
    PJRT_Error *err = w_PJRT_Buffer_Dimensions(args);
    if (err != NULL || args->num_dims > 64)
        return err;
    switch ((hostile_fault)atomic_load(&cfg.fault)) {
    case HOSTILE_DIMS_NULL:
        args->dims = NULL;
        break;
    case HOSTILE_DIMS_NEGATIVE:
        memcpy(dims_storage, args->dims, args->num_dims * sizeof(int64_t));
        dims_storage[0] = -3;
        args->dims = dims_storage;
        break;
    case HOSTILE_DIMS_HUGE:
        for (size_t i = 0; i < args->num_dims; i++)
            dims_storage[i] = INT64_MAX;
        args->dims = dims_storage;
        break;
    case HOSTILE_DIMS_TOO_MANY:
        for (size_t i = 0; i < 65; i++)
            dims_storage[i] = 1;
        args->dims = dims_storage;
        args->num_dims = 65;
        break;
    default:
        break;
    }
    return err;
}

static PJRT_Error *element_type(PJRT_Buffer_ElementType_Args *args) {
    PJRT_Error *err = w_PJRT_Buffer_ElementType(args);
    if (err == NULL && fault(HOSTILE_TYPE_BOGUS))
        args->type = (PJRT_Buffer_Type)9999;
    return err;
}

static int64_t m2m_storage[8];
static int64_t tile_storage[4];
static size_t tile_sizes[2];

static PJRT_Error *memory_layout(PJRT_Buffer_GetMemoryLayout_Args *args) {
    PJRT_Error *err = w_PJRT_Buffer_GetMemoryLayout(args);
    if (err != NULL)
        return err;
    PJRT_Buffer_MemoryLayout_Tiled *t = &args->layout.tiled;
    switch ((hostile_fault)atomic_load(&cfg.fault)) {
    case HOSTILE_LAYOUT_SHORT:
        if (t->minor_to_major_size > 0)
            t->minor_to_major_size--;
        break;
    case HOSTILE_LAYOUT_NOT_PERM:
        m2m_storage[0] = m2m_storage[1] = 0;
        t->minor_to_major = m2m_storage;
        break;
    case HOSTILE_LAYOUT_OUT_RANGE:
        m2m_storage[0] = 7;
        m2m_storage[1] = 0;
        t->minor_to_major = m2m_storage;
        break;
    case HOSTILE_LAYOUT_M2M_NULL:
        t->minor_to_major = NULL;
        break;
    case HOSTILE_LAYOUT_TILES_NULL:
        t->num_tiles = 2;
        t->tile_dims = NULL;
        t->tile_dim_sizes = NULL;
        break;
    case HOSTILE_LAYOUT_TILE_ZERO:
        tile_storage[0] = 0;
        tile_storage[1] = -5;
        tile_sizes[0] = 2;
        t->tile_dims = tile_storage;
        t->tile_dim_sizes = tile_sizes;
        t->num_tiles = 1;
        break;
    case HOSTILE_LAYOUT_TILED_REAL:
        tile_storage[0] = 2;
        tile_storage[1] = 2;
        tile_sizes[0] = 2;
        t->tile_dims = tile_storage;
        t->tile_dim_sizes = tile_sizes;
        t->num_tiles = 1;
        break;
    case HOSTILE_LAYOUT_BAD_TYPE:
        args->layout.type = (PJRT_Buffer_MemoryLayout_Type)77;
        break;
    case HOSTILE_LAYOUT_STRIDES:
        args->layout.type = PJRT_Buffer_MemoryLayout_Type_Strides;
        args->layout.strides.struct_size = PJRT_Buffer_MemoryLayout_Strides_STRUCT_SIZE;
        args->layout.strides.byte_strides = NULL;
        args->layout.strides.num_byte_strides = 1;
        break;
    default:
        break;
    }
    return err;
}

static PJRT_Error *opaque_pointer(PJRT_Buffer_OpaqueDeviceMemoryDataPointer_Args *args) {
    PJRT_Error *err = w_PJRT_Buffer_OpaqueDeviceMemoryDataPointer(args);
    if (err == NULL && fault(HOSTILE_DATA_NULL))
        args->device_memory_ptr = NULL;
    return err;
}

static PJRT_Error *unsafe_pointer(PJRT_Buffer_UnsafePointer_Args *args) {
    PJRT_Error *err = w_PJRT_Buffer_UnsafePointer(args);
    if (err == NULL && fault(HOSTILE_DATA_NULL))
        args->buffer_pointer = 0;
    return err;
}

static PJRT_Error *ready_event(PJRT_Buffer_ReadyEvent_Args *args) {
    PJRT_Error *err = w_PJRT_Buffer_ReadyEvent(args);
    if (err == NULL && (fault(HOSTILE_READY_NULL) || fault(HOSTILE_READY_NEVER))) {
        real_event_finish(args->event);
        args->event = fault(HOSTILE_READY_NEVER) ? stuck_event() : NULL;
    }
    return err;
}

static PJRT_Error *to_host(PJRT_Buffer_ToHostBuffer_Args *args) {
    PJRT_Error *err = w_PJRT_Buffer_ToHostBuffer(args);
    if (err == NULL && args->dst != NULL && fault(HOSTILE_TO_HOST_NEVER)) {
        /* The copy is done; only its event never says so. */
        real_event_finish(args->event);
        args->event = stuck_event();
    }
    return err;
}

/* ---------------------------------------------------------------- streams */

static PJRT_Get_Stream_For_External_Ready_Events *real_get_stream;
static PJRT_Wait_Until_Buffer_Ready_On_Stream *real_wait_stream;

static PJRT_Error *get_stream(PJRT_Get_Stream_For_External_Ready_Events_Args *args) {
    PJRT_Error *err = inject("get_stream");
    return err != NULL ? err : real_get_stream(args);
}

static PJRT_Error *wait_stream(PJRT_Wait_Until_Buffer_Ready_On_Stream_Args *args) {
    PJRT_Error *err = inject("wait_stream");
    return err != NULL ? err : real_wait_stream(args);
}

static PJRT_Api *installed;

/* At unload: frees the extension chain shim_own_stream_extension copied and
 * drops shim.c's handle of the reference plugin, so that a test under
 * valgrind ends with nothing allocated. */
__attribute__((destructor)) static void hostile_unload(void) {
    if (installed == NULL)
        return;
    PJRT_Extension_Base *e = installed->extension_start;
    for (int i = 0; e != NULL && i < 64; i++) {
        PJRT_Extension_Base *next = e->next;
        free(e);
        e = next;
    }
    installed->extension_start = NULL;
    const char *path = getenv("PJRT_REF_PLUGIN");
    void *h = path ? dlopen(path, RTLD_NOW | RTLD_NOLOAD) : NULL;
    if (h != NULL) {
        dlclose(h); /* ours */
        dlclose(h); /* shim.c's */
    }
}

const PJRT_Api *shim_install(PJRT_Api *api) {
    installed = api;
    api->PJRT_Error_Message = error_message;
    api->PJRT_Error_GetCode = error_get_code;
    api->PJRT_Event_Destroy = event_destroy;
    api->PJRT_Client_Create = client_create;
    api->PJRT_Client_Destroy = client_destroy;
    api->PJRT_Client_AddressableDevices = addressable_devices;
    api->PJRT_Device_GetDescription = get_description;
    api->PJRT_Device_AddressableMemories = device_memories;
    api->PJRT_Client_BufferFromHostBuffer = from_host;
    api->PJRT_Client_CreateViewOfDeviceBuffer = create_view;
    api->PJRT_Buffer_Dimensions = dimensions;
    api->PJRT_Buffer_ElementType = element_type;
    api->PJRT_Buffer_GetMemoryLayout = memory_layout;
    api->PJRT_Buffer_OpaqueDeviceMemoryDataPointer = opaque_pointer;
    api->PJRT_Buffer_UnsafePointer = unsafe_pointer;
    api->PJRT_Buffer_ReadyEvent = ready_event;
    api->PJRT_Buffer_ToHostBuffer = to_host;
#define INSTALL(name) api->name = w_##name;
    INSTALL(PJRT_Plugin_Initialize)
    INSTALL(PJRT_Client_PlatformName)
    INSTALL(PJRT_Client_PlatformVersion)
    INSTALL(PJRT_DeviceDescription_Id)
    INSTALL(PJRT_DeviceDescription_Kind)
    INSTALL(PJRT_DeviceDescription_DebugString)
    INSTALL(PJRT_Device_LocalHardwareId)
    INSTALL(PJRT_Device_DefaultMemory)
    INSTALL(PJRT_Memory_Id)
    INSTALL(PJRT_Memory_Kind)
    INSTALL(PJRT_Event_OnReady)
    INSTALL(PJRT_Event_Await)
    INSTALL(PJRT_Buffer_Device)
    INSTALL(PJRT_Buffer_Memory)
    INSTALL(PJRT_Buffer_Delete)
    INSTALL(PJRT_Buffer_IncreaseExternalReferenceCount)
    INSTALL(PJRT_Buffer_DecreaseExternalReferenceCount)
    INSTALL(PJRT_Buffer_Destroy)
#undef INSTALL
    PJRT_Stream_Extension *ext = shim_own_stream_extension(api);
    if (ext != NULL) {
        real_get_stream = ext->get_stream;
        real_wait_stream = ext->wait_stream;
        ext->get_stream = get_stream;
        ext->wait_stream = wait_stream;
    }
    return api;
}
