/*
 * pjrt_abi.h - the PJRT C API, version 0.114, declared by pjrt-dlpack.
 *
 * This is the project's own declaration of a public binary interface. Names,
 * field order, types, enum values, the *_STRUCT_SIZE constants and the include
 * guards are facts of that interface and match it exactly, so code written for
 * the interface compiles against this file unchanged and every struct is
 * binary compatible (tests/abi checks every size, offset and value).
 *
 * Conventions that hold for every call:
 *  - Each entry point takes one args struct. The caller sets struct_size to the
 *    <Args>_STRUCT_SIZE it was compiled with and extension_start to NULL or to
 *    a chain of extension records; fields marked "out" are written by the
 *    callee, all other fields are read.
 *  - A call returns NULL on success or a PJRT_Error that the caller owns.
 *  - Strings are (pointer, size) pairs and are not NUL-terminated.
 *  - Objects and arrays returned through "out" fields are owned by the object
 *    named in the note above the args struct; unless a note says otherwise,
 *    pointers passed in are only read during the call.
 *
 * A second section declares the stream extension (version 0) under its own
 * guard, XLA_PJRT_C_PJRT_C_API_STREAM_EXTENSION_H_.
 */
#ifndef XLA_PJRT_C_PJRT_C_API_H_
#define XLA_PJRT_C_PJRT_C_API_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * The number of bytes of struct_type up to and including last_field: what a
 * caller that knows last_field stores in struct_size. Trailing padding is not
 * counted.
 */
#define PJRT_STRUCT_SIZE(struct_type, last_field)                                                  \
    (offsetof(struct_type, last_field) + sizeof(((struct_type *)0)->last_field))

#ifdef __cplusplus
#define PJRT_ABI_ALIGNOF_(type) alignof(type)
#define PJRT_ABI_STATIC_ASSERT_(cond, msg) static_assert(cond, msg)
#else
#define PJRT_ABI_ALIGNOF_(type) _Alignof(type)
#define PJRT_ABI_STATIC_ASSERT_(cond, msg) _Static_assert(cond, msg)
#endif

/* Compile-time proof that last_field really is the last field of sname. */
#define PJRT_CHECK_STRUCT_SIZE(sname, last_field)                                                  \
    PJRT_ABI_STATIC_ASSERT_(                                                                       \
        sizeof(struct sname) ==                                                                    \
            (PJRT_STRUCT_SIZE(sname, last_field) + PJRT_ABI_ALIGNOF_(sname) - 1) /                 \
                PJRT_ABI_ALIGNOF_(sname) * PJRT_ABI_ALIGNOF_(sname),                               \
        #sname ": " #last_field " is not its last field")

/*
 * Declares the typedef sname and the constant sname##_STRUCT_SIZE. After a
 * field is appended to a struct, last_field must name it.
 */
#define PJRT_DEFINE_STRUCT_TRAITS(sname, last_field)                                               \
    typedef struct sname sname;                                                                    \
    enum { sname##_STRUCT_SIZE = PJRT_STRUCT_SIZE(sname, last_field) };                            \
    PJRT_CHECK_STRUCT_SIZE(sname, last_field)

#ifdef __cplusplus
extern "C" {
#endif

/* --- Extensions: optional feature tables chained from PJRT_Api.extension_start ---------------- */

/* Tag of an extension record; values are part of the ABI. */
typedef enum {
    PJRT_Extension_Type_Gpu_Custom_Call = 0,
    PJRT_Extension_Type_Profiler = 1,
    PJRT_Extension_Type_Custom_Partitioner = 2,
    PJRT_Extension_Type_Stream = 3,
    PJRT_Extension_Type_Layouts = 4,
    PJRT_Extension_Type_FFI = 5,
    PJRT_Extension_Type_MemoryDescriptions = 6,
    PJRT_Extension_Type_Triton = 7,
    PJRT_Extension_Type_RawBuffer = 8,
    PJRT_Extension_Type_PhaseCompile = 9,
    PJRT_Extension_Type_Example = 10,
    PJRT_Extension_Type_Unknown = 11,
    PJRT_Extension_Type_CrossHostTransfers = 12,
    PJRT_Extension_Type_ExecutableMetadata = 13,
    PJRT_Extension_Type_Callback = 14,
    PJRT_Extension_Type_HostAllocator = 15,
    PJRT_Extension_Type_TpuTopology = 16,
    PJRT_Extension_Type_TpuExecutable = 17,
    PJRT_Extension_Type_Megascale = 18,
    PJRT_Extension_Type_Shardings = 19,
    PJRT_Extension_Type_AbiVersion = 20,
    PJRT_Extension_Type_Collectives = 21,
    PJRT_Extension_Type_MultiSlice = 22,
    PJRT_Extension_Type_HostMemoryAllocator = 23,
    PJRT_Extension_Type_XlaTransform = 24,
} PJRT_Extension_Type;

/*
 * Header of every extension record. Records form a singly linked list that
 * the plugin owns; it lives as long as the plugin is loaded.
 */
typedef struct PJRT_Extension_Base {
    size_t struct_size;
    PJRT_Extension_Type type;
    struct PJRT_Extension_Base *next;
} PJRT_Extension_Base;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Extension_Base, next);

/* --- Interface version ------------------------------------------------------------------------ */

/*
 * The major version changes on incompatible changes; callers must match it.
 * The minor version grows with each compatible addition (new fields at the
 * end of structs, new slots at the end of PJRT_Api).
 */
#define PJRT_API_MAJOR 0
#define PJRT_API_MINOR 114
/*
 * Published plugins of 0.115 to 0.118 are read as 0.114: their tables hold
 * the same 138 entry points (1,144 bytes) and every args struct they check
 * has the size declared here or an older one (docs/plugins.md, "ABI
 * facts"). Plugins older than 0.114 lack element types: each type's first
 * minor is in common/element_type.c, and no plugin is handed a newer one.
 */

/*
 * Filled in by the plugin: the major version must match the caller's; the minor
 * version tells which later additions the plugin knows.
 */
struct PJRT_Api_Version {
    size_t struct_size;
    PJRT_Extension_Base *extension_start;
    int major_version; /* out */
    int minor_version; /* out */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Api_Version, minor_version);

/* --- Errors ----------------------------------------------------------------------------------- */

/*
 * Every error returned by a call is owned by the caller, who must release it with
 * PJRT_Error_Destroy. Since 0.107 the object starts with a table of functions
 * (PJRT_Error_FunctionTable) that plugins fill in; callers use the entry points.
 */
typedef struct PJRT_Error PJRT_Error;

/* Releases an error; a NULL error is allowed and does nothing. */
struct PJRT_Error_Destroy_Args {
    size_t struct_size;
    PJRT_Extension_Base *extension_start;
    PJRT_Error *error;
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Error_Destroy_Args, error);

typedef void PJRT_Error_Destroy(PJRT_Error_Destroy_Args *args);

/*
 * The message belongs to the error and is valid until it is destroyed.
 * It is not NUL-terminated: use message_size.
 */
struct PJRT_Error_Message_Args {
    size_t struct_size;
    PJRT_Extension_Base *extension_start;
    const PJRT_Error *error;
    const char *message; /* out */
    size_t message_size; /* out */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Error_Message_Args, message_size);

typedef void PJRT_Error_Message(PJRT_Error_Message_Args *args);

/* Status codes, numbered as absl::StatusCode. OK (0) is never carried by an error. */
typedef enum {
    PJRT_Error_Code_OK = 0,
    PJRT_Error_Code_CANCELLED = 1,
    PJRT_Error_Code_UNKNOWN = 2,
    PJRT_Error_Code_INVALID_ARGUMENT = 3,
    PJRT_Error_Code_DEADLINE_EXCEEDED = 4,
    PJRT_Error_Code_NOT_FOUND = 5,
    PJRT_Error_Code_ALREADY_EXISTS = 6,
    PJRT_Error_Code_PERMISSION_DENIED = 7,
    PJRT_Error_Code_RESOURCE_EXHAUSTED = 8,
    PJRT_Error_Code_FAILED_PRECONDITION = 9,
    PJRT_Error_Code_ABORTED = 10,
    PJRT_Error_Code_OUT_OF_RANGE = 11,
    PJRT_Error_Code_UNIMPLEMENTED = 12,
    PJRT_Error_Code_INTERNAL = 13,
    PJRT_Error_Code_UNAVAILABLE = 14,
    PJRT_Error_Code_DATA_LOSS = 15,
    PJRT_Error_Code_UNAUTHENTICATED = 16,
} PJRT_Error_Code;
typedef void (*PJRT_Error_PayloadVisitor)(const char *key, size_t key_size, const char *value,
                                          size_t value_size, void *user_arg);

/*
 * Per-error-class functions a plugin provides; instance_size is the size of
 * the plugin's error object.
 */
typedef struct PJRT_Error_FunctionTable {
    size_t struct_size;
    size_t instance_size;
    PJRT_Extension_Base *extension_start;
    void (*destroy)(PJRT_Error *error);
    void (*message)(const PJRT_Error *error, const char **message, size_t *message_size);
    PJRT_Error_Code (*get_code)(const PJRT_Error *error);
    void (*for_each_payload)(const PJRT_Error *error, PJRT_Error_PayloadVisitor visitor,
                             void *user_arg);
} PJRT_Error_FunctionTable;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Error_FunctionTable, for_each_payload);

/* --- Errors ----------------------------------------------------------------------------------- */

/*
 * Every error returned by a call is owned by the caller, who must release it with
 * PJRT_Error_Destroy. Since 0.107 the object starts with a table of functions
 * (PJRT_Error_FunctionTable) that plugins fill in; callers use the entry points.
 */
struct PJRT_Error {
    const struct PJRT_Error_FunctionTable *vtable;
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Error, vtable);

struct PJRT_Error_GetCode_Args {
    size_t struct_size;
    PJRT_Extension_Base *extension_start;
    const PJRT_Error *error;
    PJRT_Error_Code code; /* out */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Error_GetCode_Args, code);

typedef PJRT_Error *PJRT_Error_GetCode(PJRT_Error_GetCode_Args *args);

/*
 * Calls visitor once per key/value payload of the error; the strings are
 * only valid during the visitor call.
 */
struct PJRT_Error_ForEachPayload_Args {
    size_t struct_size;
    PJRT_Extension_Base *extension_start;
    const PJRT_Error *error;
    PJRT_Error_PayloadVisitor visitor;
    void *user_arg;
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Error_ForEachPayload_Args, user_arg);

typedef PJRT_Error *PJRT_Error_ForEachPayload(PJRT_Error_ForEachPayload_Args *args);

/*
 * Given by a plugin to caller-supplied callbacks so they can build an error;
 * the plugin copies message, which only has to live for the call.
 */
typedef PJRT_Error *(*PJRT_CallbackError)(PJRT_Error_Code code, const char *message,
                                          size_t message_size);

/* --- Named values (options and attributes) ---------------------------------------------------- */

typedef enum {
    PJRT_NamedValue_kString = 0,
    PJRT_NamedValue_kInt64 = 1,
    PJRT_NamedValue_kInt64List = 2,
    PJRT_NamedValue_kFloat = 3,
    PJRT_NamedValue_kBool = 4,
} PJRT_NamedValue_Type;

/*
 * A key/value pair. name and the value it points to are owned by whoever filled
 * the struct in; value_size counts elements (1 for scalars, bytes for strings).
 */
struct PJRT_NamedValue {
    size_t struct_size;
    PJRT_Extension_Base *extension_start;
    const char *name;
    size_t name_size;
    PJRT_NamedValue_Type type;
    union {
        const char *string_value;
        int64_t int64_value;
        const int64_t *int64_array_value;
        float float_value;
        bool bool_value;
    };
    size_t value_size;
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_NamedValue, value_size);

/* --- Plugin ----------------------------------------------------------------------------------- */

/* Called once, before any other entry point except version queries. */
struct PJRT_Plugin_Initialize_Args {
    size_t struct_size;
    PJRT_Extension_Base *extension_start;
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Plugin_Initialize_Args, extension_start);

typedef PJRT_Error *PJRT_Plugin_Initialize(PJRT_Plugin_Initialize_Args *args);

/* The attribute array is owned by the plugin and lives as long as it is loaded. */
struct PJRT_Plugin_Attributes_Args {
    size_t struct_size;
    PJRT_Extension_Base *extension_start;
    const PJRT_NamedValue *attributes; /* out */
    size_t num_attributes;             /* out */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Plugin_Attributes_Args, num_attributes);

typedef PJRT_Error *PJRT_Plugin_Attributes(PJRT_Plugin_Attributes_Args *args);

/* --- Events ----------------------------------------------------------------------------------- */

/*
 * A completion signal for asynchronous work. The caller owns every event it
 * receives and must release it with PJRT_Event_Destroy.
 */
typedef struct PJRT_Event PJRT_Event;

/* Releases an event; NULL is allowed. */
struct PJRT_Event_Destroy_Args {
    size_t struct_size;
    PJRT_Extension_Base *extension_start;
    PJRT_Event *event;
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Event_Destroy_Args, event);

typedef PJRT_Error *PJRT_Event_Destroy(PJRT_Event_Destroy_Args *args);

/* Whether the event has completed, successfully or not. Never blocks. */
struct PJRT_Event_IsReady_Args {
    size_t struct_size;
    PJRT_Extension_Base *extension_start;
    PJRT_Event *event;
    bool is_ready; /* out */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Event_IsReady_Args, is_ready);

typedef PJRT_Error *PJRT_Event_IsReady(PJRT_Event_IsReady_Args *args);

/*
 * Only valid once the event is ready. Returns a new error (owned by the
 * caller) or NULL for success; each call returns an independent error.
 */
struct PJRT_Event_Error_Args {
    size_t struct_size;
    PJRT_Extension_Base *extension_start;
    PJRT_Event *event;
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Event_Error_Args, event);

typedef PJRT_Error *PJRT_Event_Error(PJRT_Event_Error_Args *args);

/* Blocks until the event is ready; returns its status as a new error or NULL. */
struct PJRT_Event_Await_Args {
    size_t struct_size;
    PJRT_Extension_Base *extension_start;
    PJRT_Event *event;
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Event_Await_Args, event);

typedef PJRT_Error *PJRT_Event_Await(PJRT_Event_Await_Args *args);

/*
 * Receives ownership of error (may be NULL) and must destroy it;
 * user_arg stays owned by whoever registered the callback.
 */
typedef void (*PJRT_Event_OnReadyCallback)(PJRT_Error *error, void *user_arg);

/*
 * Registers callback to run once the event is ready, possibly at once and
 * possibly on another thread.
 */
struct PJRT_Event_OnReady_Args {
    size_t struct_size;
    PJRT_Extension_Base *extension_start;
    PJRT_Event *event;
    PJRT_Event_OnReadyCallback callback;
    void *user_arg;
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Event_OnReady_Args, user_arg);

typedef PJRT_Error *PJRT_Event_OnReady(PJRT_Event_OnReady_Args *args);

/* Creates an event that the caller completes with PJRT_Event_Set. */
struct PJRT_Event_Create_Args {
    size_t struct_size;
    PJRT_Extension_Base *extension_start;
    PJRT_Event *event; /* out */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Event_Create_Args, event);

typedef PJRT_Error *PJRT_Event_Create(PJRT_Event_Create_Args *args);

/* Completes an event made by PJRT_Event_Create; error_message is copied. */
struct PJRT_Event_Set_Args {
    size_t struct_size;
    PJRT_Extension_Base *extension_start;
    PJRT_Event *event;
    PJRT_Error_Code error_code;
    const char *error_message;
    size_t error_message_size;
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Event_Set_Args, error_message_size);

typedef PJRT_Error *PJRT_Event_Set(PJRT_Event_Set_Args *args);

/* --- Opaque handles and the client ------------------------------------------------------------ */

/*
 * Opaque objects. Devices, memories and device descriptions belong to their
 * client and live until it is destroyed; buffers, executables, events and
 * errors are owned by the caller who received them.
 */
typedef struct PJRT_Client PJRT_Client;
typedef struct PJRT_Device PJRT_Device;
typedef struct PJRT_Memory PJRT_Memory;

/*
 * Per-memory user-data hooks; since 0.105 every PJRT_Memory starts with a
 * pointer to this table.
 */
typedef struct PJRT_Memory_FunctionTable PJRT_Memory_FunctionTable;

/*
 * Per-memory user-data hooks; since 0.105 every PJRT_Memory starts with a
 * pointer to this table.
 */
struct PJRT_Memory_FunctionTable {
    size_t struct_size;
    struct PJRT_Extension_Base *extension_start;
    size_t instance_struct_size;
    void *(*get_user_data)(struct PJRT_Memory *memory, const void *key);
    void (*set_user_data)(struct PJRT_Memory *memory, const void *key, void *data,
                          void (*dtor)(void *));
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Memory_FunctionTable, set_user_data);

struct PJRT_Memory {
    const struct PJRT_Memory_FunctionTable *vtable;
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Memory, vtable);

/* Shape and element type of one buffer. */
typedef struct PJRT_ShapeSpec PJRT_ShapeSpec;
typedef struct PJRT_DeviceDescription PJRT_DeviceDescription;
typedef struct PJRT_TopologyDescription PJRT_TopologyDescription;
typedef struct PJRT_Executable PJRT_Executable;
typedef struct PJRT_LoadedExecutable PJRT_LoadedExecutable;
typedef struct PJRT_Buffer PJRT_Buffer;
typedef struct PJRT_FulfillAliasBufferCallback PJRT_FulfillAliasBufferCallback;
typedef struct PJRT_AsyncHostToDeviceTransferManager PJRT_AsyncHostToDeviceTransferManager;
typedef struct PJRT_PhaseCompiler PJRT_PhaseCompiler;
typedef void (*PJRT_KeyValueGetCallback_ValueDeleter)(char *value);

/*
 * Key-value store callbacks a caller may give to PJRT_Client_Create for
 * multi-process set-up. The value returned by a get is released through
 * value_deleter_callback after the plugin has copied it.
 */
struct PJRT_KeyValueGetCallback_Args {
    size_t struct_size;
    PJRT_Extension_Base *extension_start;
    const char *key;
    size_t key_size;
    int timeout_in_ms;
    PJRT_CallbackError *callback_error;
    void *user_arg;
    char *value;                                                  /* out */
    size_t value_size;                                            /* out */
    PJRT_KeyValueGetCallback_ValueDeleter value_deleter_callback; /* out */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_KeyValueGetCallback_Args, value_deleter_callback);

typedef PJRT_Error *(*PJRT_KeyValueGetCallback)(PJRT_KeyValueGetCallback_Args *args);
typedef void (*PJRT_KeyValueTryGetCallback_ValueDeleter)(char *value);
struct PJRT_KeyValueTryGetCallback_Args {
    size_t struct_size;
    PJRT_Extension_Base *extension_start;
    const char *key;
    size_t key_size;
    PJRT_CallbackError *callback_error;
    void *user_arg;
    char *value;                                                     /* out */
    size_t value_size;                                               /* out */
    PJRT_KeyValueTryGetCallback_ValueDeleter value_deleter_callback; /* out */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_KeyValueTryGetCallback_Args, value_deleter_callback);

typedef PJRT_Error *(*PJRT_KeyValueTryGetCallback)(PJRT_KeyValueTryGetCallback_Args *args);
struct PJRT_KeyValuePutCallback_Args {
    size_t struct_size;
    PJRT_Extension_Base *extension_start;
    const char *key;
    size_t key_size;
    const char *value;
    size_t value_size;
    PJRT_CallbackError *callback_error;
    void *user_arg;
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_KeyValuePutCallback_Args, user_arg);

typedef PJRT_Error *(*PJRT_KeyValuePutCallback)(PJRT_KeyValuePutCallback_Args *args);

/*
 * Creates a client. create_options is read during the call only. The new
 * client is owned by the caller and released with PJRT_Client_Destroy.
 */
struct PJRT_Client_Create_Args {
    size_t struct_size;
    PJRT_Extension_Base *extension_start;
    const PJRT_NamedValue *create_options;
    size_t num_options;
    PJRT_KeyValueGetCallback kv_get_callback;
    void *kv_get_user_arg;
    PJRT_KeyValuePutCallback kv_put_callback;
    void *kv_put_user_arg;
    PJRT_Client *client; /* out */
    PJRT_KeyValueTryGetCallback kv_try_get_callback;
    void *kv_try_get_user_arg;
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Client_Create_Args, kv_try_get_user_arg);

typedef PJRT_Error *PJRT_Client_Create(PJRT_Client_Create_Args *args);

/* Releases a client and everything it owns; NULL is allowed. */
struct PJRT_Client_Destroy_Args {
    size_t struct_size;
    PJRT_Extension_Base *extension_start;
    PJRT_Client *client;
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Client_Destroy_Args, client);

typedef PJRT_Error *PJRT_Client_Destroy(PJRT_Client_Destroy_Args *args);

/* The name (for example "cpu") is owned by the client; not NUL-terminated. */
struct PJRT_Client_PlatformName_Args {
    size_t struct_size;
    PJRT_Extension_Base *extension_start;
    PJRT_Client *client;
    const char *platform_name; /* out */
    size_t platform_name_size; /* out */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Client_PlatformName_Args, platform_name_size);

typedef PJRT_Error *PJRT_Client_PlatformName(PJRT_Client_PlatformName_Args *args);

/* The index of this process among the client's processes (0 when alone). */
struct PJRT_Client_ProcessIndex_Args {
    size_t struct_size;
    PJRT_Extension_Base *extension_start;
    PJRT_Client *client;
    int process_index; /* out */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Client_ProcessIndex_Args, process_index);

typedef PJRT_Error *PJRT_Client_ProcessIndex(PJRT_Client_ProcessIndex_Args *args);

/* The version string is owned by the client; not NUL-terminated. */
struct PJRT_Client_PlatformVersion_Args {
    size_t struct_size;
    PJRT_Extension_Base *extension_start;
    PJRT_Client *client;
    const char *platform_version; /* out */
    size_t platform_version_size; /* out */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Client_PlatformVersion_Args, platform_version_size);

typedef PJRT_Error *PJRT_Client_PlatformVersion(PJRT_Client_PlatformVersion_Args *args);
struct PJRT_Client_TopologyDescription_Args {
    size_t struct_size;
    PJRT_Extension_Base *extension_start;
    PJRT_Client *client;
    PJRT_TopologyDescription *topology; /* out */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Client_TopologyDescription_Args, topology);

typedef PJRT_Error *PJRT_Client_TopologyDescription(PJRT_Client_TopologyDescription_Args *args);

/* All devices, addressable or not. The array is owned by the client. */
struct PJRT_Client_Devices_Args {
    size_t struct_size;
    PJRT_Extension_Base *extension_start;
    PJRT_Client *client;
    PJRT_Device *const *devices; /* out */
    size_t num_devices;          /* out */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Client_Devices_Args, num_devices);

typedef PJRT_Error *PJRT_Client_Devices(PJRT_Client_Devices_Args *args);

/* Devices this process can use. The array is owned by the client. */
struct PJRT_Client_AddressableDevices_Args {
    size_t struct_size;
    PJRT_Extension_Base *extension_start;
    PJRT_Client *client;
    PJRT_Device *const *addressable_devices; /* out */
    size_t num_addressable_devices;          /* out */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Client_AddressableDevices_Args, num_addressable_devices);

typedef PJRT_Error *PJRT_Client_AddressableDevices(PJRT_Client_AddressableDevices_Args *args);

/* Finds a device by its global id; the device is owned by the client. */
struct PJRT_Client_LookupDevice_Args {
    size_t struct_size;
    PJRT_Extension_Base *extension_start;
    PJRT_Client *client;
    int id;
    PJRT_Device *device; /* out */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Client_LookupDevice_Args, device);

typedef PJRT_Error *PJRT_Client_LookupDevice(PJRT_Client_LookupDevice_Args *args);

/* Finds an addressable device by local hardware id; owned by the client. */
struct PJRT_Client_LookupAddressableDevice_Args {
    size_t struct_size;
    PJRT_Extension_Base *extension_start;
    PJRT_Client *client;
    int local_hardware_id;
    PJRT_Device *addressable_device; /* out */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Client_LookupAddressableDevice_Args, addressable_device);

typedef PJRT_Error *
PJRT_Client_LookupAddressableDevice(PJRT_Client_LookupAddressableDevice_Args *args);
typedef enum {
    PJRT_ProcessState_kUnspecified = 0,
    PJRT_ProcessState_kUninitialized = 1,
    PJRT_ProcessState_kDisconnected = 2,
    PJRT_ProcessState_kConnected = 3,
    PJRT_ProcessState_kError = 4,
} PJRT_ProcessState;
struct PJRT_ProcessInfo {
    size_t struct_size;
    int task_id;
    uint64_t incarnation_id;
    PJRT_ProcessState state;
    int error_code;
    const char *error_message;
    size_t error_message_size;
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_ProcessInfo, error_message_size);

struct PJRT_Client_UpdateGlobalProcessInfo_Args {
    size_t struct_size;
    PJRT_Extension_Base *extension_start;
    PJRT_Client *client;
    PJRT_ProcessInfo *process_infos;
    size_t num_process_infos;
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Client_UpdateGlobalProcessInfo_Args, num_process_infos);

typedef PJRT_Error *
PJRT_Client_UpdateGlobalProcessInfo(PJRT_Client_UpdateGlobalProcessInfo_Args *args);

/* All memories addressable by this client; the array is owned by the client. */
struct PJRT_Client_AddressableMemories_Args {
    size_t struct_size;
    PJRT_Extension_Base *extension_start;
    PJRT_Client *client;
    PJRT_Memory *const *addressable_memories; /* out */
    size_t num_addressable_memories;          /* out */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Client_AddressableMemories_Args, num_addressable_memories);

typedef PJRT_Error *PJRT_Client_AddressableMemories(PJRT_Client_AddressableMemories_Args *args);
struct PJRT_Program {
    size_t struct_size;
    PJRT_Extension_Base *extension_start;
    char *code; /* in/out */
    size_t code_size;
    const char *format;
    size_t format_size;
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Program, format_size);

struct PJRT_Client_Compile_Args {
    size_t struct_size;
    PJRT_Extension_Base *extension_start;
    PJRT_Client *client;
    const PJRT_Program *program;
    const char *compile_options;
    size_t compile_options_size;
    PJRT_LoadedExecutable *executable; /* out */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Client_Compile_Args, executable);

typedef PJRT_Error *PJRT_Client_Compile(PJRT_Client_Compile_Args *args);
struct PJRT_Client_Load_Args {
    size_t struct_size;
    PJRT_Extension_Base *extension_start;
    PJRT_Client *client;
    PJRT_Executable *executable;
    const char *compile_options;
    size_t compile_options_size;
    PJRT_LoadedExecutable *loaded_executable; /* out */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Client_Load_Args, loaded_executable);

typedef PJRT_Error *PJRT_Client_Load(PJRT_Client_Load_Args *args);
struct PJRT_Client_DefaultDeviceAssignment_Args {
    size_t struct_size;
    PJRT_Extension_Base *extension_start;
    PJRT_Client *client;
    int num_replicas;
    int num_partitions;
    size_t default_assignment_size;
    int *default_assignment;
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Client_DefaultDeviceAssignment_Args, default_assignment);

typedef PJRT_Error *
PJRT_Client_DefaultDeviceAssignment(PJRT_Client_DefaultDeviceAssignment_Args *args);
struct PJRT_Client_DmaMap_Args {
    size_t struct_size;
    PJRT_Extension_Base *extension_start;
    PJRT_Client *client;
    void *data;
    size_t size;
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Client_DmaMap_Args, size);

typedef PJRT_Error *PJRT_Client_DmaMap(PJRT_Client_DmaMap_Args *args);
struct PJRT_Client_DmaUnmap_Args {
    size_t struct_size;
    PJRT_Extension_Base *extension_start;
    PJRT_Client *client;
    void *data;
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Client_DmaUnmap_Args, data);

typedef PJRT_Error *PJRT_Client_DmaUnmap(PJRT_Client_DmaUnmap_Args *args);

/* --- Asynchronous host-to-device transfer managers -------------------------------------------- */

struct PJRT_AsyncHostToDeviceTransferManager_Destroy_Args {
    size_t struct_size;
    PJRT_Extension_Base *extension_start;
    PJRT_AsyncHostToDeviceTransferManager *transfer_manager;
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_AsyncHostToDeviceTransferManager_Destroy_Args, transfer_manager);

typedef PJRT_Error *PJRT_AsyncHostToDeviceTransferManager_Destroy(
    PJRT_AsyncHostToDeviceTransferManager_Destroy_Args *args);
struct PJRT_AsyncHostToDeviceTransferManager_TransferData_Args {
    size_t struct_size;
    PJRT_Extension_Base *extension_start;
    PJRT_AsyncHostToDeviceTransferManager *transfer_manager;
    int buffer_index;
    const void *data;
    int64_t offset;
    int64_t transfer_size;
    bool is_last_transfer;
    PJRT_Event *done_with_h2d_transfer; /* out */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_AsyncHostToDeviceTransferManager_TransferData_Args,
                          done_with_h2d_transfer);

typedef PJRT_Error *PJRT_AsyncHostToDeviceTransferManager_TransferData(
    PJRT_AsyncHostToDeviceTransferManager_TransferData_Args *args);
struct PJRT_AsyncHostToDeviceTransferManager_RetrieveBuffer_Args {
    size_t struct_size;
    PJRT_Extension_Base *extension_start;
    PJRT_AsyncHostToDeviceTransferManager *transfer_manager;
    int buffer_index;
    PJRT_Buffer *buffer_out; /* out */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_AsyncHostToDeviceTransferManager_RetrieveBuffer_Args, buffer_out);

typedef PJRT_Error *PJRT_AsyncHostToDeviceTransferManager_RetrieveBuffer(
    PJRT_AsyncHostToDeviceTransferManager_RetrieveBuffer_Args *args);
struct PJRT_AsyncHostToDeviceTransferManager_Device_Args {
    size_t struct_size;
    PJRT_Extension_Base *extension_start;
    PJRT_AsyncHostToDeviceTransferManager *transfer_manager;
    PJRT_Device *device_out; /* out */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_AsyncHostToDeviceTransferManager_Device_Args, device_out);

typedef PJRT_Error *PJRT_AsyncHostToDeviceTransferManager_Device(
    PJRT_AsyncHostToDeviceTransferManager_Device_Args *args);
struct PJRT_AsyncHostToDeviceTransferManager_BufferCount_Args {
    size_t struct_size;
    PJRT_Extension_Base *extension_start;
    PJRT_AsyncHostToDeviceTransferManager *transfer_manager;
    size_t buffer_count; /* out */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_AsyncHostToDeviceTransferManager_BufferCount_Args, buffer_count);

typedef PJRT_Error *PJRT_AsyncHostToDeviceTransferManager_BufferCount(
    PJRT_AsyncHostToDeviceTransferManager_BufferCount_Args *args);
struct PJRT_AsyncHostToDeviceTransferManager_BufferSize_Args {
    size_t struct_size;
    PJRT_Extension_Base *extension_start;
    PJRT_AsyncHostToDeviceTransferManager *transfer_manager;
    int buffer_index;
    size_t buffer_size; /* out */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_AsyncHostToDeviceTransferManager_BufferSize_Args, buffer_size);

typedef PJRT_Error *PJRT_AsyncHostToDeviceTransferManager_BufferSize(
    PJRT_AsyncHostToDeviceTransferManager_BufferSize_Args *args);
struct PJRT_AsyncHostToDeviceTransferManager_SetBufferError_Args {
    size_t struct_size;
    PJRT_Extension_Base *extension_start;
    PJRT_AsyncHostToDeviceTransferManager *transfer_manager;
    int buffer_index;
    PJRT_Error_Code error_code;
    const char *error_message;
    size_t error_message_size;
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_AsyncHostToDeviceTransferManager_SetBufferError_Args,
                          error_message_size);

typedef PJRT_Error *PJRT_AsyncHostToDeviceTransferManager_SetBufferError(
    PJRT_AsyncHostToDeviceTransferManager_SetBufferError_Args *args);
struct PJRT_AsyncHostToDeviceTransferManager_AddMetadata_Args {
    size_t struct_size;
    PJRT_Extension_Base *extension_start;
    PJRT_AsyncHostToDeviceTransferManager *transfer_manager;
    const PJRT_NamedValue *transfer_metadata;
    size_t num_metadata;
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_AsyncHostToDeviceTransferManager_AddMetadata_Args, num_metadata);

typedef PJRT_Error *PJRT_AsyncHostToDeviceTransferManager_AddMetadata(
    PJRT_AsyncHostToDeviceTransferManager_AddMetadata_Args *args);

/* --- Element types, host-buffer semantics and layouts ----------------------------------------- */

/* Element types. The order is the ABI: never renumber. */
typedef enum {
    PJRT_Buffer_Type_INVALID = 0,
    PJRT_Buffer_Type_PRED = 1,
    PJRT_Buffer_Type_S8 = 2,
    PJRT_Buffer_Type_S16 = 3,
    PJRT_Buffer_Type_S32 = 4,
    PJRT_Buffer_Type_S64 = 5,
    PJRT_Buffer_Type_U8 = 6,
    PJRT_Buffer_Type_U16 = 7,
    PJRT_Buffer_Type_U32 = 8,
    PJRT_Buffer_Type_U64 = 9,
    PJRT_Buffer_Type_F16 = 10,
    PJRT_Buffer_Type_F32 = 11,
    PJRT_Buffer_Type_F64 = 12,
    PJRT_Buffer_Type_BF16 = 13,
    PJRT_Buffer_Type_C64 = 14,
    PJRT_Buffer_Type_C128 = 15,
    PJRT_Buffer_Type_F8E5M2 = 16,
    PJRT_Buffer_Type_F8E4M3FN = 17,
    PJRT_Buffer_Type_F8E4M3B11FNUZ = 18,
    PJRT_Buffer_Type_F8E5M2FNUZ = 19,
    PJRT_Buffer_Type_F8E4M3FNUZ = 20,
    PJRT_Buffer_Type_S4 = 21,
    PJRT_Buffer_Type_U4 = 22,
    PJRT_Buffer_Type_TOKEN = 23,
    PJRT_Buffer_Type_S2 = 24,
    PJRT_Buffer_Type_U2 = 25,
    PJRT_Buffer_Type_F8E4M3 = 26,
    PJRT_Buffer_Type_F8E3M4 = 27,
    PJRT_Buffer_Type_F8E8M0FNU = 28,
    PJRT_Buffer_Type_F4E2M1FN = 29,
    PJRT_Buffer_Type_S1 = 30,
    PJRT_Buffer_Type_U1 = 31,
    PJRT_Buffer_Type_F6E2M3FN = 32,
    PJRT_Buffer_Type_F6E3M2FN = 33,
} PJRT_Buffer_Type;

/*
 * How long the caller's host memory must stay valid and unchanged when
 * creating a buffer from it.
 */
typedef enum {
    PJRT_HostBufferSemantics_kImmutableOnlyDuringCall = 0,
    PJRT_HostBufferSemantics_kImmutableUntilTransferCompletes = 1,
    PJRT_HostBufferSemantics_kImmutableZeroCopy = 2,
    PJRT_HostBufferSemantics_kMutableZeroCopy = 3,
} PJRT_HostBufferSemantics;

/* Which member of PJRT_Buffer_MemoryLayout is in use. */
typedef enum {
    PJRT_Buffer_MemoryLayout_Type_Tiled = 0,
    PJRT_Buffer_MemoryLayout_Type_Strides = 1,
} PJRT_Buffer_MemoryLayout_Type;

/*
 * A tiled layout: minor_to_major order and optional tiles. All arrays are
 * owned by whoever filled the struct in.
 */
struct PJRT_Buffer_MemoryLayout_Tiled {
    size_t struct_size;
    PJRT_Extension_Base *extension_start;
    const int64_t *minor_to_major;
    size_t minor_to_major_size;
    const int64_t *tile_dims;
    const size_t *tile_dim_sizes;
    size_t num_tiles;
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Buffer_MemoryLayout_Tiled, num_tiles);

/* A strided layout: one byte stride per dimension. */
struct PJRT_Buffer_MemoryLayout_Strides {
    size_t struct_size;
    PJRT_Extension_Base *extension_start;
    const int64_t *byte_strides;
    size_t num_byte_strides;
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Buffer_MemoryLayout_Strides, num_byte_strides);

/* A device or host memory layout. */
struct PJRT_Buffer_MemoryLayout {
    size_t struct_size;
    PJRT_Extension_Base *extension_start;
    union {
        PJRT_Buffer_MemoryLayout_Tiled tiled;
        PJRT_Buffer_MemoryLayout_Strides strides;
    };
    PJRT_Buffer_MemoryLayout_Type type;
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Buffer_MemoryLayout, type);

struct PJRT_AsyncHostToDeviceTransferManager_TransferLiteral_Args {
    size_t struct_size;
    PJRT_Extension_Base *extension_start;
    PJRT_AsyncHostToDeviceTransferManager *transfer_manager;
    int buffer_index;
    const void *data;
    const int64_t *shape_dims;
    size_t shape_num_dims;
    PJRT_Buffer_Type shape_element_type;
    PJRT_Buffer_MemoryLayout *shape_layout;
    PJRT_Event *done_with_h2d_transfer; /* out */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_AsyncHostToDeviceTransferManager_TransferLiteral_Args,
                          done_with_h2d_transfer);

typedef PJRT_Error *PJRT_AsyncHostToDeviceTransferManager_TransferLiteral(
    PJRT_AsyncHostToDeviceTransferManager_TransferLiteral_Args *args);

/* Allocates a buffer whose contents are undefined; owned by the caller. */
struct PJRT_Client_CreateUninitializedBuffer_Args {
    size_t struct_size;
    PJRT_Extension_Base *extension_start;
    PJRT_Client *client;
    const int64_t *shape_dims;
    size_t shape_num_dims;
    PJRT_Buffer_Type shape_element_type;
    PJRT_Buffer_MemoryLayout *shape_layout;
    PJRT_Device *device;
    PJRT_Memory *memory;
    PJRT_Buffer *buffer; /* out */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Client_CreateUninitializedBuffer_Args, buffer);

typedef PJRT_Error *
PJRT_Client_CreateUninitializedBuffer(PJRT_Client_CreateUninitializedBuffer_Args *args);
struct PJRT_Client_CreateErrorBuffer_Args {
    size_t struct_size;
    PJRT_Extension_Base *extension_start;
    PJRT_Client *client;
    PJRT_Error_Code error_code;
    const char *error_message;
    size_t error_message_size;
    const int64_t *shape_dims;
    size_t shape_num_dims;
    PJRT_Buffer_Type shape_element_type;
    PJRT_Buffer_MemoryLayout *shape_layout;
    PJRT_Memory *memory;
    PJRT_Buffer *buffer; /* out */
    const PJRT_NamedValue *payload;
    size_t num_payload;
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Client_CreateErrorBuffer_Args, num_payload);

typedef PJRT_Error *PJRT_Client_CreateErrorBuffer(PJRT_Client_CreateErrorBuffer_Args *args);
struct PJRT_Client_CreateAliasBuffer_Args {
    size_t struct_size;
    PJRT_Extension_Base *extension_start;
    PJRT_Client *client;
    PJRT_Memory *memory;
    const int64_t *shape_dims;
    size_t shape_num_dims;
    PJRT_Buffer_Type shape_element_type;
    PJRT_Buffer_MemoryLayout *shape_layout;
    PJRT_Buffer *alias_buffer;                                /* out */
    PJRT_FulfillAliasBufferCallback *fulfill_alias_buffer_cb; /* out */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Client_CreateAliasBuffer_Args, fulfill_alias_buffer_cb);

typedef PJRT_Error *PJRT_Client_CreateAliasBuffer(PJRT_Client_CreateAliasBuffer_Args *args);
struct PJRT_Client_FulfillAliasBuffer_Args {
    size_t struct_size;
    PJRT_Extension_Base *extension_start;
    PJRT_Client *client;
    PJRT_Buffer *buffer;
    PJRT_Error_Code status_code;
    const char *error_message;
    size_t error_message_size;
    PJRT_FulfillAliasBufferCallback *fulfill_alias_buffer_cb;
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Client_FulfillAliasBuffer_Args, fulfill_alias_buffer_cb);

typedef PJRT_Error *PJRT_Client_FulfillAliasBuffer(PJRT_Client_FulfillAliasBuffer_Args *args);

/*
 * Copies (or, depending on host_buffer_semantics, aliases) host memory into
 * a new buffer owned by the caller. done_with_host_buffer, owned by the
 * caller, fires when the host memory may be reused. byte_strides and
 * device_layout are optional.
 */
struct PJRT_Client_BufferFromHostBuffer_Args {
    size_t struct_size;
    PJRT_Extension_Base *extension_start;
    PJRT_Client *client;
    const void *data;
    PJRT_Buffer_Type type;
    const int64_t *dims;
    size_t num_dims;
    const int64_t *byte_strides;
    size_t num_byte_strides;
    PJRT_HostBufferSemantics host_buffer_semantics;
    PJRT_Device *device;
    PJRT_Memory *memory;
    PJRT_Buffer_MemoryLayout *device_layout;
    PJRT_Event *done_with_host_buffer; /* out */
    PJRT_Buffer *buffer;               /* out */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Client_BufferFromHostBuffer_Args, buffer);

typedef PJRT_Error *PJRT_Client_BufferFromHostBuffer(PJRT_Client_BufferFromHostBuffer_Args *args);

/*
 * Wraps existing device memory without copying. The memory stays owned by
 * the caller until the plugin calls on_delete_callback(device_buffer_ptr,
 * on_delete_callback_arg), once, when the view no longer needs it.
 */
struct PJRT_Client_CreateViewOfDeviceBuffer_Args {
    size_t struct_size;
    PJRT_Extension_Base *extension_start;
    PJRT_Client *client;
    void *device_buffer_ptr;
    const int64_t *dims;
    size_t num_dims;
    PJRT_Buffer_Type element_type;
    PJRT_Buffer_MemoryLayout *layout;
    PJRT_Device *device;
    void (*on_delete_callback)(void *device_buffer_ptr, void *user_arg);
    void *on_delete_callback_arg;
    intptr_t stream;
    PJRT_Buffer *buffer; /* out */
    PJRT_Memory *memory;
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Client_CreateViewOfDeviceBuffer_Args, memory);

typedef PJRT_Error *
PJRT_Client_CreateViewOfDeviceBuffer(PJRT_Client_CreateViewOfDeviceBuffer_Args *args);

/* Shape and element type of one buffer. */
struct PJRT_ShapeSpec {
    size_t struct_size;
    PJRT_Extension_Base *extension_start;
    const int64_t *dims;
    size_t num_dims;
    PJRT_Buffer_Type element_type;
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_ShapeSpec, element_type);

struct PJRT_Client_CreateBuffersForAsyncHostToDevice_Args {
    size_t struct_size;
    PJRT_Extension_Base *extension_start;
    PJRT_Client *client;
    PJRT_ShapeSpec *shape_specs;
    size_t num_shape_specs;
    PJRT_Buffer_MemoryLayout **device_layouts;
    size_t num_device_layouts;
    PJRT_Memory *memory;
    PJRT_AsyncHostToDeviceTransferManager *transfer_manager; /* out */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Client_CreateBuffersForAsyncHostToDevice_Args, transfer_manager);

typedef PJRT_Error *PJRT_Client_CreateBuffersForAsyncHostToDevice(
    PJRT_Client_CreateBuffersForAsyncHostToDevice_Args *args);

/* --- Device descriptions ---------------------------------------------------------------------- */

/* The device's global id. */
struct PJRT_DeviceDescription_Id_Args {
    size_t struct_size;
    PJRT_Extension_Base *extension_start;
    PJRT_DeviceDescription *device_description;
    int id; /* out */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_DeviceDescription_Id_Args, id);

typedef PJRT_Error *PJRT_DeviceDescription_Id(PJRT_DeviceDescription_Id_Args *args);

/* The index of the process that owns the device. */
struct PJRT_DeviceDescription_ProcessIndex_Args {
    size_t struct_size;
    PJRT_Extension_Base *extension_start;
    PJRT_DeviceDescription *device_description;
    int process_index; /* out */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_DeviceDescription_ProcessIndex_Args, process_index);

typedef PJRT_Error *
PJRT_DeviceDescription_ProcessIndex(PJRT_DeviceDescription_ProcessIndex_Args *args);

/* Attributes are owned by the description. */
struct PJRT_DeviceDescription_Attributes_Args {
    size_t struct_size;
    PJRT_Extension_Base *extension_start;
    PJRT_DeviceDescription *device_description;
    size_t num_attributes;             /* out */
    const PJRT_NamedValue *attributes; /* out */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_DeviceDescription_Attributes_Args, attributes);

typedef PJRT_Error *PJRT_DeviceDescription_Attributes(PJRT_DeviceDescription_Attributes_Args *args);

/* The device kind string is owned by the description. */
struct PJRT_DeviceDescription_Kind_Args {
    size_t struct_size;
    PJRT_Extension_Base *extension_start;
    PJRT_DeviceDescription *device_description;
    const char *device_kind; /* out */
    size_t device_kind_size; /* out */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_DeviceDescription_Kind_Args, device_kind_size);

typedef PJRT_Error *PJRT_DeviceDescription_Kind(PJRT_DeviceDescription_Kind_Args *args);

/* Owned by the description; not NUL-terminated. */
struct PJRT_DeviceDescription_DebugString_Args {
    size_t struct_size;
    PJRT_Extension_Base *extension_start;
    PJRT_DeviceDescription *device_description;
    const char *debug_string; /* out */
    size_t debug_string_size; /* out */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_DeviceDescription_DebugString_Args, debug_string_size);

typedef PJRT_Error *
PJRT_DeviceDescription_DebugString(PJRT_DeviceDescription_DebugString_Args *args);

/* Owned by the description; not NUL-terminated. */
struct PJRT_DeviceDescription_ToString_Args {
    size_t struct_size;
    PJRT_Extension_Base *extension_start;
    PJRT_DeviceDescription *device_description;
    const char *to_string; /* out */
    size_t to_string_size; /* out */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_DeviceDescription_ToString_Args, to_string_size);

typedef PJRT_Error *PJRT_DeviceDescription_ToString(PJRT_DeviceDescription_ToString_Args *args);

/* --- Devices ---------------------------------------------------------------------------------- */

/* The description is owned by the device. */
struct PJRT_Device_GetDescription_Args {
    size_t struct_size;
    PJRT_Extension_Base *extension_start;
    PJRT_Device *device;
    PJRT_DeviceDescription *device_description; /* out */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Device_GetDescription_Args, device_description);

typedef PJRT_Error *PJRT_Device_GetDescription(PJRT_Device_GetDescription_Args *args);

/* Whether this process can use the device. */
struct PJRT_Device_IsAddressable_Args {
    size_t struct_size;
    PJRT_Extension_Base *extension_start;
    PJRT_Device *device;
    bool is_addressable; /* out */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Device_IsAddressable_Args, is_addressable);

typedef PJRT_Error *PJRT_Device_IsAddressable(PJRT_Device_IsAddressable_Args *args);

/* The device's hardware id on its host, or -1 if it has none. */
struct PJRT_Device_LocalHardwareId_Args {
    size_t struct_size;
    PJRT_Extension_Base *extension_start;
    PJRT_Device *device;
    int local_hardware_id; /* out */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Device_LocalHardwareId_Args, local_hardware_id);

typedef PJRT_Error *PJRT_Device_LocalHardwareId(PJRT_Device_LocalHardwareId_Args *args);

/* The array is owned by the device. */
struct PJRT_Device_AddressableMemories_Args {
    size_t struct_size;
    PJRT_Extension_Base *extension_start;
    PJRT_Device *device;
    PJRT_Memory *const *memories; /* out */
    size_t num_memories;          /* out */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Device_AddressableMemories_Args, num_memories);

typedef PJRT_Error *PJRT_Device_AddressableMemories(PJRT_Device_AddressableMemories_Args *args);

/* The memory is owned by the client. */
struct PJRT_Device_DefaultMemory_Args {
    size_t struct_size;
    PJRT_Extension_Base *extension_start;
    PJRT_Device *device;
    PJRT_Memory *memory; /* out */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Device_DefaultMemory_Args, memory);

typedef PJRT_Error *PJRT_Device_DefaultMemory(PJRT_Device_DefaultMemory_Args *args);

/* Allocator statistics; fields whose *_is_set is false are unknown. */
struct PJRT_Device_MemoryStats_Args {
    size_t struct_size;
    PJRT_Extension_Base *extension_start;
    PJRT_Device *device;
    int64_t bytes_in_use;                 /* out */
    int64_t peak_bytes_in_use;            /* out */
    bool peak_bytes_in_use_is_set;        /* out */
    int64_t num_allocs;                   /* out */
    bool num_allocs_is_set;               /* out */
    int64_t largest_alloc_size;           /* out */
    bool largest_alloc_size_is_set;       /* out */
    int64_t bytes_limit;                  /* out */
    bool bytes_limit_is_set;              /* out */
    int64_t bytes_reserved;               /* out */
    bool bytes_reserved_is_set;           /* out */
    int64_t peak_bytes_reserved;          /* out */
    bool peak_bytes_reserved_is_set;      /* out */
    int64_t bytes_reservable_limit;       /* out */
    bool bytes_reservable_limit_is_set;   /* out */
    int64_t largest_free_block_bytes;     /* out */
    bool largest_free_block_bytes_is_set; /* out */
    int64_t pool_bytes;                   /* out */
    bool pool_bytes_is_set;               /* out */
    int64_t peak_pool_bytes;              /* out */
    bool peak_pool_bytes_is_set;          /* out */
    int64_t peak_allocated_bytes;         /* out */
    bool peak_allocated_bytes_is_set;     /* out */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Device_MemoryStats_Args, peak_allocated_bytes_is_set);

typedef PJRT_Error *PJRT_Device_MemoryStats(PJRT_Device_MemoryStats_Args *args);
struct PJRT_Device_ClearMemoryStats_Args {
    size_t struct_size;
    PJRT_Extension_Base *extension_start;
    PJRT_Device *device;
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Device_ClearMemoryStats_Args, device);

typedef PJRT_Error *PJRT_Device_ClearMemoryStats(PJRT_Device_ClearMemoryStats_Args *args);
struct PJRT_Device_PoisonExecution_Args {
    size_t struct_size;
    PJRT_Extension_Base *extension_start;
    PJRT_Device *device;
    int32_t launch_id;
    PJRT_Error_Code error_code;
    const char *error_message;
    size_t error_message_size;
    bool poisoned; /* out */
    const PJRT_NamedValue *payload;
    size_t num_payload;
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Device_PoisonExecution_Args, num_payload);

typedef PJRT_Error *PJRT_Device_PoisonExecution(PJRT_Device_PoisonExecution_Args *args);
typedef struct PJRT_Device_Attributes PJRT_Device_Attributes;
struct PJRT_Device_GetAttributes_Args {
    size_t struct_size;
    PJRT_Extension_Base *extension_start;
    PJRT_Device *device;
    const PJRT_NamedValue *attributes;                                     /* out */
    size_t num_attributes;                                                 /* out */
    PJRT_Device_Attributes *device_attributes;                             /* out */
    void (*attributes_deleter)(PJRT_Device_Attributes *device_attributes); /* out */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Device_GetAttributes_Args, attributes_deleter);

typedef PJRT_Error *PJRT_Device_GetAttributes(PJRT_Device_GetAttributes_Args *args);
typedef struct PJRT_AsyncTrackingEvent PJRT_AsyncTrackingEvent;
struct PJRT_Device_CreateAsyncTrackingEvent_Args {
    size_t struct_size;
    PJRT_Extension_Base *extension_start;
    PJRT_Device *device;
    const char *description;
    size_t description_size;
    PJRT_AsyncTrackingEvent *event; /* out */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Device_CreateAsyncTrackingEvent_Args, event);

typedef PJRT_Error *
PJRT_Device_CreateAsyncTrackingEvent(PJRT_Device_CreateAsyncTrackingEvent_Args *args);
struct PJRT_AsyncTrackingEvent_Destroy_Args {
    size_t struct_size;
    PJRT_Extension_Base *extension_start;
    PJRT_AsyncTrackingEvent *event;
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_AsyncTrackingEvent_Destroy_Args, event);

typedef PJRT_Error *PJRT_AsyncTrackingEvent_Destroy(PJRT_AsyncTrackingEvent_Destroy_Args *args);

/* --- Memories (memory spaces) ----------------------------------------------------------------- */

/* The memory's id, unique within the client. */
struct PJRT_Memory_Id_Args {
    size_t struct_size;
    PJRT_Extension_Base *extension_start;
    PJRT_Memory *memory;
    int id; /* out */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Memory_Id_Args, id);

typedef PJRT_Error *PJRT_Memory_Id(PJRT_Memory_Id_Args *args);

/* The kind (for example "device" or "pinned_host") is owned by the memory. */
struct PJRT_Memory_Kind_Args {
    size_t struct_size;
    PJRT_Extension_Base *extension_start;
    PJRT_Memory *memory;
    const char *kind; /* out */
    size_t kind_size; /* out */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Memory_Kind_Args, kind_size);

typedef PJRT_Error *PJRT_Memory_Kind(PJRT_Memory_Kind_Args *args);

/* A small integer identifying the memory kind within the client. */
struct PJRT_Memory_Kind_Id_Args {
    size_t struct_size;
    PJRT_Extension_Base *extension_start;
    PJRT_Memory *memory;
    int kind_id; /* out */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Memory_Kind_Id_Args, kind_id);

typedef PJRT_Error *PJRT_Memory_Kind_Id(PJRT_Memory_Kind_Id_Args *args);

/* Owned by the memory; not NUL-terminated. */
struct PJRT_Memory_DebugString_Args {
    size_t struct_size;
    PJRT_Extension_Base *extension_start;
    PJRT_Memory *memory;
    const char *debug_string; /* out */
    size_t debug_string_size; /* out */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Memory_DebugString_Args, debug_string_size);

typedef PJRT_Error *PJRT_Memory_DebugString(PJRT_Memory_DebugString_Args *args);

/* Owned by the memory; not NUL-terminated. */
struct PJRT_Memory_ToString_Args {
    size_t struct_size;
    PJRT_Extension_Base *extension_start;
    PJRT_Memory *memory;
    const char *to_string; /* out */
    size_t to_string_size; /* out */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Memory_ToString_Args, to_string_size);

typedef PJRT_Error *PJRT_Memory_ToString(PJRT_Memory_ToString_Args *args);

/* The array is owned by the memory. */
struct PJRT_Memory_AddressableByDevices_Args {
    size_t struct_size;
    PJRT_Extension_Base *extension_start;
    PJRT_Memory *memory;
    PJRT_Device *const *devices; /* out */
    size_t num_devices;          /* out */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Memory_AddressableByDevices_Args, num_devices);

typedef PJRT_Error *PJRT_Memory_AddressableByDevices(PJRT_Memory_AddressableByDevices_Args *args);
typedef struct PJRT_ExecuteContext PJRT_ExecuteContext;

/* --- Execute contexts ------------------------------------------------------------------------- */

struct PJRT_ExecuteContext_Create_Args {
    size_t struct_size;
    PJRT_Extension_Base *extension_start;
    PJRT_ExecuteContext *context; /* out */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_ExecuteContext_Create_Args, context);

typedef PJRT_Error *PJRT_ExecuteContext_Create(PJRT_ExecuteContext_Create_Args *args);
struct PJRT_ExecuteContext_Destroy_Args {
    size_t struct_size;
    PJRT_Extension_Base *extension_start;
    PJRT_ExecuteContext *context;
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_ExecuteContext_Destroy_Args, context);

typedef PJRT_Error *PJRT_ExecuteContext_Destroy(PJRT_ExecuteContext_Destroy_Args *args);

/* --- Executables and loaded executables ------------------------------------------------------- */

struct PJRT_Executable_Destroy_Args {
    size_t struct_size;
    PJRT_Extension_Base *extension_start;
    PJRT_Executable *executable;
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Executable_Destroy_Args, executable);

typedef PJRT_Error *PJRT_Executable_Destroy(PJRT_Executable_Destroy_Args *args);
struct PJRT_LoadedExecutable_Destroy_Args {
    size_t struct_size;
    PJRT_Extension_Base *extension_start;
    PJRT_LoadedExecutable *executable;
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_LoadedExecutable_Destroy_Args, executable);

typedef PJRT_Error *PJRT_LoadedExecutable_Destroy(PJRT_LoadedExecutable_Destroy_Args *args);
struct PJRT_LoadedExecutable_GetExecutable_Args {
    size_t struct_size;
    PJRT_Extension_Base *extension_start;
    PJRT_LoadedExecutable *loaded_executable;
    PJRT_Executable *executable; /* out */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_LoadedExecutable_GetExecutable_Args, executable);

typedef PJRT_Error *
PJRT_LoadedExecutable_GetExecutable(PJRT_LoadedExecutable_GetExecutable_Args *args);
typedef struct PJRT_DeviceAssignmentSerialized PJRT_DeviceAssignmentSerialized;
struct PJRT_LoadedExecutable_GetDeviceAssignment_Args {
    size_t struct_size;
    PJRT_Extension_Base *extension_start;
    PJRT_LoadedExecutable *executable;
    const char *serialized_bytes; /* out */
    size_t serialized_bytes_size; /* out */
    PJRT_DeviceAssignmentSerialized *serialized_device_assignment;
    void (*serialized_device_assignment_deleter)(PJRT_DeviceAssignmentSerialized *da);
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_LoadedExecutable_GetDeviceAssignment_Args,
                          serialized_device_assignment_deleter);

typedef PJRT_Error *
PJRT_LoadedExecutable_GetDeviceAssignment(PJRT_LoadedExecutable_GetDeviceAssignment_Args *args);
struct PJRT_Executable_Name_Args {
    size_t struct_size;
    PJRT_Extension_Base *extension_start;
    PJRT_Executable *executable;
    const char *executable_name; /* out */
    size_t executable_name_size; /* out */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Executable_Name_Args, executable_name_size);

typedef PJRT_Error *PJRT_Executable_Name(PJRT_Executable_Name_Args *args);
struct PJRT_Executable_NumReplicas_Args {
    size_t struct_size;
    PJRT_Extension_Base *extension_start;
    PJRT_Executable *executable;
    size_t num_replicas; /* out */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Executable_NumReplicas_Args, num_replicas);

typedef PJRT_Error *PJRT_Executable_NumReplicas(PJRT_Executable_NumReplicas_Args *args);
struct PJRT_Executable_NumPartitions_Args {
    size_t struct_size;
    PJRT_Extension_Base *extension_start;
    PJRT_Executable *executable;
    size_t num_partitions; /* out */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Executable_NumPartitions_Args, num_partitions);

typedef PJRT_Error *PJRT_Executable_NumPartitions(PJRT_Executable_NumPartitions_Args *args);
typedef struct PJRT_LogicalDeviceIds {
    int replica;
    int partition;
} PJRT_LogicalDeviceIds;
struct PJRT_LoadedExecutable_AddressableDevices_Args {
    size_t struct_size;
    PJRT_Extension_Base *extension_start;
    PJRT_LoadedExecutable *executable;
    PJRT_Device *const *addressable_devices; /* out */
    size_t num_addressable_devices;          /* out */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_LoadedExecutable_AddressableDevices_Args, num_addressable_devices);

typedef PJRT_Error *
PJRT_LoadedExecutable_AddressableDevices(PJRT_LoadedExecutable_AddressableDevices_Args *args);
struct PJRT_LoadedExecutable_AddressableDeviceLogicalIds_Args {
    size_t struct_size;
    PJRT_Extension_Base *extension_start;
    PJRT_LoadedExecutable *executable;
    PJRT_LogicalDeviceIds *addressable_device_logical_ids; /* out */
    size_t num_addressable_device_logical_ids;             /* out */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_LoadedExecutable_AddressableDeviceLogicalIds_Args,
                          num_addressable_device_logical_ids);

typedef PJRT_Error *PJRT_LoadedExecutable_AddressableDeviceLogicalIds(
    PJRT_LoadedExecutable_AddressableDeviceLogicalIds_Args *args);
struct PJRT_Executable_OptimizedProgram_Args {
    size_t struct_size;
    PJRT_Extension_Base *extension_start;
    PJRT_Executable *executable;
    PJRT_Program *program; /* out */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Executable_OptimizedProgram_Args, program);

typedef PJRT_Error *PJRT_Executable_OptimizedProgram(PJRT_Executable_OptimizedProgram_Args *args);
struct PJRT_LoadedExecutable_Delete_Args {
    size_t struct_size;
    PJRT_Extension_Base *extension_start;
    PJRT_LoadedExecutable *executable;
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_LoadedExecutable_Delete_Args, executable);

typedef PJRT_Error *PJRT_LoadedExecutable_Delete(PJRT_LoadedExecutable_Delete_Args *args);
struct PJRT_LoadedExecutable_IsDeleted_Args {
    size_t struct_size;
    PJRT_Extension_Base *extension_start;
    PJRT_LoadedExecutable *executable;
    bool is_deleted; /* out */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_LoadedExecutable_IsDeleted_Args, is_deleted);

typedef PJRT_Error *PJRT_LoadedExecutable_IsDeleted(PJRT_LoadedExecutable_IsDeleted_Args *args);
typedef struct PJRT_Chunk {
    void *data;
    size_t size;
    void (*deleter)(void *data, void *deleter_arg);
    void *deleter_arg;
} PJRT_Chunk;
typedef struct PJRT_CopyToDeviceStream PJRT_CopyToDeviceStream;
typedef PJRT_Error *(*PJRT_SendCallback)(PJRT_Chunk *chunk, PJRT_CallbackError *callback_error,
                                         size_t total_size_in_bytes, bool done, void *user_arg);
typedef void (*PJRT_RecvCallback)(PJRT_CopyToDeviceStream *stream, void *user_arg);
struct PJRT_SendCallbackInfo {
    int64_t channel_id;
    void *user_arg;
    PJRT_SendCallback send_callback;
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_SendCallbackInfo, send_callback);

struct PJRT_RecvCallbackInfo {
    int64_t channel_id;
    void *user_arg;
    PJRT_RecvCallback recv_callback;
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_RecvCallbackInfo, recv_callback);

typedef void (*PJRT_HloOutputCallback)(int64_t replica_id, int64_t partition_id, const void *data,
                                       const int64_t *shape_dims, size_t shape_num_dims,
                                       PJRT_Buffer_Type shape_element_type, int64_t operand_index,
                                       void *user_arg);
typedef struct PJRT_HloOutputCallbackInfo {
    void *user_arg;
    PJRT_HloOutputCallback callback;
    int64_t callback_id;
    size_t num_operands;
} PJRT_HloOutputCallbackInfo;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_HloOutputCallbackInfo, num_operands);

typedef struct PJRT_MultiSlice_Config PJRT_MultiSlice_Config;
struct PJRT_ExecuteOptions {
    size_t struct_size;
    PJRT_Extension_Base *extension_start;
    PJRT_SendCallbackInfo **send_callbacks;
    PJRT_RecvCallbackInfo **recv_callbacks;
    size_t num_send_ops;
    size_t num_recv_ops;
    int launch_id;
    const int64_t *non_donatable_input_indices;
    size_t num_non_donatable_input_indices;
    PJRT_ExecuteContext *context;
    const char *call_location;
    size_t num_tasks;
    int *task_ids;
    int64_t *incarnation_ids;
    PJRT_MultiSlice_Config *multi_slice_config;
    bool use_major_to_minor_data_layout_for_callbacks;
    PJRT_HloOutputCallbackInfo *hlo_output_callbacks;
    size_t num_hlo_output_callbacks;
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_ExecuteOptions, num_hlo_output_callbacks);

struct PJRT_LoadedExecutable_Execute_Args {
    size_t struct_size;
    PJRT_Extension_Base *extension_start;
    PJRT_LoadedExecutable *executable;
    PJRT_ExecuteOptions *options;
    PJRT_Buffer *const *const *argument_lists;
    size_t num_devices;
    size_t num_args;
    PJRT_Buffer **const *output_lists;   /* in/out */
    PJRT_Event **device_complete_events; /* in/out */
    PJRT_Device *execute_device;
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_LoadedExecutable_Execute_Args, execute_device);

typedef PJRT_Error *PJRT_LoadedExecutable_Execute(PJRT_LoadedExecutable_Execute_Args *args);
struct PJRT_Executable_NumOutputs_Args {
    size_t struct_size;
    PJRT_Extension_Base *extension_start;
    PJRT_Executable *executable;
    size_t num_outputs; /* out */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Executable_NumOutputs_Args, num_outputs);

typedef PJRT_Error *PJRT_Executable_NumOutputs(PJRT_Executable_NumOutputs_Args *args);
struct PJRT_Executable_SizeOfGeneratedCodeInBytes_Args {
    size_t struct_size;
    PJRT_Extension_Base *extension_start;
    PJRT_Executable *executable;
    int64_t size_in_bytes; /* out */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Executable_SizeOfGeneratedCodeInBytes_Args, size_in_bytes);

typedef PJRT_Error *
PJRT_Executable_SizeOfGeneratedCodeInBytes(PJRT_Executable_SizeOfGeneratedCodeInBytes_Args *args);
struct PJRT_Executable_Fingerprint_Args {
    size_t struct_size;
    PJRT_Extension_Base *extension_start;
    PJRT_Executable *executable;
    const char *executable_fingerprint; /* out */
    size_t executable_fingerprint_size; /* out */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Executable_Fingerprint_Args, executable_fingerprint_size);

typedef PJRT_Error *PJRT_Executable_Fingerprint(PJRT_Executable_Fingerprint_Args *args);
struct PJRT_Executable_GetCostAnalysis_Args {
    size_t struct_size;
    PJRT_Extension_Base *extension_start;
    PJRT_Executable *executable;
    size_t num_properties;             /* out */
    const PJRT_NamedValue *properties; /* out */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Executable_GetCostAnalysis_Args, properties);

typedef PJRT_Error *PJRT_Executable_GetCostAnalysis(PJRT_Executable_GetCostAnalysis_Args *args);
struct PJRT_Executable_GetCompiledMemoryStats_Args {
    size_t struct_size;
    PJRT_Extension_Base *extension_start;
    PJRT_Executable *executable;
    int64_t generated_code_size_in_bytes;      /* out */
    int64_t argument_size_in_bytes;            /* out */
    int64_t output_size_in_bytes;              /* out */
    int64_t alias_size_in_bytes;               /* out */
    int64_t temp_size_in_bytes;                /* out */
    int64_t host_generated_code_size_in_bytes; /* out */
    int64_t host_argument_size_in_bytes;       /* out */
    int64_t host_output_size_in_bytes;         /* out */
    int64_t host_alias_size_in_bytes;          /* out */
    int64_t host_temp_size_in_bytes;           /* out */
    int64_t peak_memory_in_bytes;              /* out */
    int64_t total_size_in_bytes;               /* out */
    int64_t total_allocation_bytes;            /* out */
    int64_t indefinite_allocations;            /* out */
    int64_t peak_unpadded_heap_bytes;          /* out */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Executable_GetCompiledMemoryStats_Args, peak_unpadded_heap_bytes);

typedef PJRT_Error *
PJRT_Executable_GetCompiledMemoryStats(PJRT_Executable_GetCompiledMemoryStats_Args *args);
struct PJRT_Executable_OutputElementTypes_Args {
    size_t struct_size;
    PJRT_Extension_Base *extension_start;
    PJRT_Executable *executable;
    PJRT_Buffer_Type *output_types; /* out */
    size_t num_output_types;        /* out */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Executable_OutputElementTypes_Args, num_output_types);

typedef PJRT_Error *
PJRT_Executable_OutputElementTypes(PJRT_Executable_OutputElementTypes_Args *args);
struct PJRT_Executable_OutputDimensions_Args {
    size_t struct_size;
    PJRT_Extension_Base *extension_start;
    PJRT_Executable *executable;
    size_t num_outputs;
    const int64_t *dims;     /* out */
    const size_t *dim_sizes; /* out */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Executable_OutputDimensions_Args, dim_sizes);

typedef PJRT_Error *PJRT_Executable_OutputDimensions(PJRT_Executable_OutputDimensions_Args *args);
struct PJRT_Executable_ParameterMemoryKinds_Args {
    size_t struct_size;
    PJRT_Extension_Base *extension_start;
    PJRT_Executable *executable;
    size_t num_parameters;
    const char *const *memory_kinds; /* out */
    const size_t *memory_kind_sizes; /* out */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Executable_ParameterMemoryKinds_Args, memory_kind_sizes);

typedef PJRT_Error *
PJRT_Executable_ParameterMemoryKinds(PJRT_Executable_ParameterMemoryKinds_Args *args);
struct PJRT_Executable_OutputMemoryKinds_Args {
    size_t struct_size;
    PJRT_Extension_Base *extension_start;
    PJRT_Executable *executable;
    size_t num_outputs;
    const char *const *memory_kinds; /* out */
    const size_t *memory_kind_sizes; /* out */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Executable_OutputMemoryKinds_Args, memory_kind_sizes);

typedef PJRT_Error *PJRT_Executable_OutputMemoryKinds(PJRT_Executable_OutputMemoryKinds_Args *args);
typedef struct PJRT_SerializedExecutable PJRT_SerializedExecutable;
typedef struct PJRT_SerializedCompileOptions PJRT_SerializedCompileOptions;
struct PJRT_Executable_Serialize_Args {
    size_t struct_size;
    PJRT_Extension_Base *extension_start;
    const PJRT_Executable *executable;
    const char *serialized_bytes; /* out */
    size_t serialized_bytes_size; /* out */
    PJRT_SerializedExecutable *serialized_executable;
    void (*serialized_executable_deleter)(PJRT_SerializedExecutable *exec); /* out */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Executable_Serialize_Args, serialized_executable_deleter);

typedef PJRT_Error *PJRT_Executable_Serialize(PJRT_Executable_Serialize_Args *args);
struct PJRT_Executable_GetCompileOptions_Args {
    size_t struct_size;
    PJRT_Extension_Base *extension_start;
    PJRT_Executable *executable;
    const char *serialized_bytes; /* out */
    size_t serialized_bytes_size; /* out */
    PJRT_SerializedCompileOptions *serialized_compile_options;
    void (*serialized_compile_options_deleter)(PJRT_SerializedCompileOptions *options);
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Executable_GetCompileOptions_Args,
                          serialized_compile_options_deleter);

typedef PJRT_Error *PJRT_Executable_GetCompileOptions(PJRT_Executable_GetCompileOptions_Args *args);
struct PJRT_LoadOptions {
    size_t struct_size;
    const int32_t *computation_origin;
    size_t computation_origin_size;
    PJRT_MultiSlice_Config *multi_slice_config;
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_LoadOptions, multi_slice_config);

struct PJRT_Executable_DeserializeAndLoad_Args {
    size_t struct_size;
    PJRT_Extension_Base *extension_start;
    PJRT_Client *client;
    const char *serialized_executable;
    size_t serialized_executable_size;
    PJRT_LoadedExecutable *loaded_executable; /* out */
    const char *overridden_serialized_compile_options;
    size_t overridden_serialized_compile_options_size;
    PJRT_LoadOptions *load_options;
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Executable_DeserializeAndLoad_Args, load_options);

typedef PJRT_Error *
PJRT_Executable_DeserializeAndLoad(PJRT_Executable_DeserializeAndLoad_Args *args);
struct PJRT_LoadedExecutable_Fingerprint_Args {
    size_t struct_size;
    PJRT_Extension_Base *extension_start;
    PJRT_LoadedExecutable *executable;
    const char *executable_fingerprint; /* out */
    size_t executable_fingerprint_size; /* out */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_LoadedExecutable_Fingerprint_Args, executable_fingerprint_size);

typedef PJRT_Error *PJRT_LoadedExecutable_Fingerprint(PJRT_LoadedExecutable_Fingerprint_Args *args);

/* --- Buffers ---------------------------------------------------------------------------------- */

/* Releases the caller's buffer handle (and its memory unless pinned). */
struct PJRT_Buffer_Destroy_Args {
    size_t struct_size;
    PJRT_Extension_Base *extension_start;
    PJRT_Buffer *buffer;
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Buffer_Destroy_Args, buffer);

typedef PJRT_Error *PJRT_Buffer_Destroy(PJRT_Buffer_Destroy_Args *args);

/* The buffer's element type. */
struct PJRT_Buffer_ElementType_Args {
    size_t struct_size;
    PJRT_Extension_Base *extension_start;
    PJRT_Buffer *buffer;
    PJRT_Buffer_Type type; /* out */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Buffer_ElementType_Args, type);

typedef PJRT_Error *PJRT_Buffer_ElementType(PJRT_Buffer_ElementType_Args *args);

/* The dims array is owned by the buffer. */
struct PJRT_Buffer_Dimensions_Args {
    size_t struct_size;
    PJRT_Extension_Base *extension_start;
    PJRT_Buffer *buffer;
    const int64_t *dims; /* out */
    size_t num_dims;     /* out */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Buffer_Dimensions_Args, num_dims);

typedef PJRT_Error *PJRT_Buffer_Dimensions(PJRT_Buffer_Dimensions_Args *args);

/* The array is owned by the buffer. */
struct PJRT_Buffer_UnpaddedDimensions_Args {
    size_t struct_size;
    PJRT_Extension_Base *extension_start;
    PJRT_Buffer *buffer;
    const int64_t *unpadded_dims; /* out */
    size_t num_dims;              /* out */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Buffer_UnpaddedDimensions_Args, num_dims);

typedef PJRT_Error *PJRT_Buffer_UnpaddedDimensions(PJRT_Buffer_UnpaddedDimensions_Args *args);

/* The array is owned by the buffer. */
struct PJRT_Buffer_DynamicDimensionIndices_Args {
    size_t struct_size;
    PJRT_Extension_Base *extension_start;
    PJRT_Buffer *buffer;
    const size_t *dynamic_dim_indices; /* out */
    size_t num_dynamic_dims;           /* out */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Buffer_DynamicDimensionIndices_Args, num_dynamic_dims);

typedef PJRT_Error *
PJRT_Buffer_DynamicDimensionIndices(PJRT_Buffer_DynamicDimensionIndices_Args *args);

/*
 * The layout is written into the caller's struct; arrays it points to are
 * owned by the buffer.
 */
struct PJRT_Buffer_GetMemoryLayout_Args {
    size_t struct_size;
    PJRT_Extension_Base *extension_start;
    PJRT_Buffer *buffer;
    PJRT_Buffer_MemoryLayout layout; /* out */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Buffer_GetMemoryLayout_Args, layout);

typedef PJRT_Error *PJRT_Buffer_GetMemoryLayout(PJRT_Buffer_GetMemoryLayout_Args *args);

/*
 * Copies to host memory owned by the caller. With dst == NULL only
 * dst_size is computed. The returned event is owned by the caller; dst must
 * stay valid until it is ready.
 */
struct PJRT_Buffer_ToHostBuffer_Args {
    size_t struct_size;
    PJRT_Extension_Base *extension_start;
    PJRT_Buffer *src;
    PJRT_Buffer_MemoryLayout *host_layout;
    void *dst;         /* in/out */
    size_t dst_size;   /* in/out */
    PJRT_Event *event; /* out */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Buffer_ToHostBuffer_Args, event);

typedef PJRT_Error *PJRT_Buffer_ToHostBuffer(PJRT_Buffer_ToHostBuffer_Args *args);

/* Bytes of storage the buffer occupies on its device. */
struct PJRT_Buffer_OnDeviceSizeInBytes_Args {
    size_t struct_size;
    PJRT_Extension_Base *extension_start;
    PJRT_Buffer *buffer;
    size_t on_device_size_in_bytes; /* out */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Buffer_OnDeviceSizeInBytes_Args, on_device_size_in_bytes);

typedef PJRT_Error *PJRT_Buffer_OnDeviceSizeInBytes(PJRT_Buffer_OnDeviceSizeInBytes_Args *args);

/* Releases the device memory early; the handle stays valid and reports deleted. */
struct PJRT_Buffer_Delete_Args {
    size_t struct_size;
    PJRT_Extension_Base *extension_start;
    PJRT_Buffer *buffer;
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Buffer_Delete_Args, buffer);

typedef PJRT_Error *PJRT_Buffer_Delete(PJRT_Buffer_Delete_Args *args);

/* Whether the buffer has been deleted (its device memory released). */
struct PJRT_Buffer_IsDeleted_Args {
    size_t struct_size;
    PJRT_Extension_Base *extension_start;
    PJRT_Buffer *buffer;
    bool is_deleted; /* out */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Buffer_IsDeleted_Args, is_deleted);

typedef PJRT_Error *PJRT_Buffer_IsDeleted(PJRT_Buffer_IsDeleted_Args *args);
struct PJRT_Buffer_CopyRawToHost_Args {
    size_t struct_size;
    PJRT_Extension_Base *extension_start;
    PJRT_Buffer *buffer;
    void *dst;
    int64_t offset;
    int64_t transfer_size;
    PJRT_Event *event; /* out */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Buffer_CopyRawToHost_Args, event);

typedef PJRT_Error *PJRT_Buffer_CopyRawToHost(PJRT_Buffer_CopyRawToHost_Args *args);
struct PJRT_Buffer_CopyRawToHostFuture_Callback_Args {
    size_t struct_size;
    void *callback_data;
    PJRT_Error_Code error_code;
    const char *error_message;
    size_t error_message_size;
    void *dst;
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Buffer_CopyRawToHostFuture_Callback_Args, dst);

struct PJRT_Buffer_CopyRawToHostFuture_Args {
    size_t struct_size;
    PJRT_Extension_Base *extension_start;
    PJRT_Buffer *buffer;
    int64_t offset;
    int64_t transfer_size;
    PJRT_Event *event;   /* out */
    void *callback_data; /* out */
    void (*future_ready_callback)(PJRT_Buffer_CopyRawToHostFuture_Callback_Args *args);
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Buffer_CopyRawToHostFuture_Args, future_ready_callback);

typedef PJRT_Error *PJRT_Buffer_CopyRawToHostFuture(PJRT_Buffer_CopyRawToHostFuture_Args *args);

/* The new buffer is owned by the caller. */
struct PJRT_Buffer_CopyToDevice_Args {
    size_t struct_size;
    PJRT_Extension_Base *extension_start;
    PJRT_Buffer *buffer;
    PJRT_Device *dst_device;
    PJRT_Buffer *dst_buffer; /* out */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Buffer_CopyToDevice_Args, dst_buffer);

typedef PJRT_Error *PJRT_Buffer_CopyToDevice(PJRT_Buffer_CopyToDevice_Args *args);

/* The new buffer is owned by the caller. */
struct PJRT_Buffer_CopyToMemory_Args {
    size_t struct_size;
    PJRT_Extension_Base *extension_start;
    PJRT_Buffer *buffer;
    PJRT_Memory *dst_memory;
    PJRT_Buffer *dst_buffer; /* out */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Buffer_CopyToMemory_Args, dst_buffer);

typedef PJRT_Error *PJRT_Buffer_CopyToMemory(PJRT_Buffer_CopyToMemory_Args *args);
struct PJRT_Buffer_Bitcast_Args {
    size_t struct_size;
    PJRT_Extension_Base *extension_start;
    PJRT_Buffer *buffer;
    PJRT_Buffer_Type element_type;
    const int64_t *dims;
    size_t num_dims;
    PJRT_Buffer_MemoryLayout *device_layout;
    PJRT_Buffer *out_buffer; /* out */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Buffer_Bitcast_Args, out_buffer);

typedef PJRT_Error *PJRT_Buffer_Bitcast(PJRT_Buffer_Bitcast_Args *args);

/* Whether the data is in memory the host can read directly. */
struct PJRT_Buffer_IsOnCpu_Args {
    size_t struct_size;
    PJRT_Extension_Base *extension_start;
    PJRT_Buffer *buffer;
    bool is_on_cpu; /* out */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Buffer_IsOnCpu_Args, is_on_cpu);

typedef PJRT_Error *PJRT_Buffer_IsOnCpu(PJRT_Buffer_IsOnCpu_Args *args);

/* The device holding the buffer; owned by the client. */
struct PJRT_Buffer_Device_Args {
    size_t struct_size;
    PJRT_Extension_Base *extension_start;
    PJRT_Buffer *buffer;
    PJRT_Device *device; /* out */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Buffer_Device_Args, device);

typedef PJRT_Error *PJRT_Buffer_Device(PJRT_Buffer_Device_Args *args);

/* The memory holding the buffer; owned by the client. */
struct PJRT_Buffer_Memory_Args {
    size_t struct_size;
    PJRT_Extension_Base *extension_start;
    PJRT_Buffer *buffer;
    PJRT_Memory *memory; /* out */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Buffer_Memory_Args, memory);

typedef PJRT_Error *PJRT_Buffer_Memory(PJRT_Buffer_Memory_Args *args);

/* An event, owned by the caller, that is ready when the buffer's data is. */
struct PJRT_Buffer_ReadyEvent_Args {
    size_t struct_size;
    PJRT_Extension_Base *extension_start;
    PJRT_Buffer *buffer;
    PJRT_Event *event; /* out */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Buffer_ReadyEvent_Args, event);

typedef PJRT_Error *PJRT_Buffer_ReadyEvent(PJRT_Buffer_ReadyEvent_Args *args);

/*
 * The device address of the data; valid while the buffer lives and is not
 * deleted, or while an external reference pins it.
 */
struct PJRT_Buffer_UnsafePointer_Args {
    size_t struct_size;
    PJRT_Extension_Base *extension_start;
    PJRT_Buffer *buffer;
    uintptr_t buffer_pointer; /* out */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Buffer_UnsafePointer_Args, buffer_pointer);

typedef PJRT_Error *PJRT_Buffer_UnsafePointer(PJRT_Buffer_UnsafePointer_Args *args);

/*
 * Pins the buffer's memory: it stays valid, even after Delete, until the
 * count returns to zero.
 */
struct PJRT_Buffer_IncreaseExternalReferenceCount_Args {
    size_t struct_size;
    PJRT_Extension_Base *extension_start;
    PJRT_Buffer *buffer;
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Buffer_IncreaseExternalReferenceCount_Args, buffer);

typedef PJRT_Error *
PJRT_Buffer_IncreaseExternalReferenceCount(PJRT_Buffer_IncreaseExternalReferenceCount_Args *args);

/* Drops one pin taken with IncreaseExternalReferenceCount. */
struct PJRT_Buffer_DecreaseExternalReferenceCount_Args {
    size_t struct_size;
    PJRT_Extension_Base *extension_start;
    PJRT_Buffer *buffer;
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Buffer_DecreaseExternalReferenceCount_Args, buffer);

typedef PJRT_Error *
PJRT_Buffer_DecreaseExternalReferenceCount(PJRT_Buffer_DecreaseExternalReferenceCount_Args *args);

/*
 * The raw device memory pointer; the caller must hold an external reference
 * while using it.
 */
struct PJRT_Buffer_OpaqueDeviceMemoryDataPointer_Args {
    size_t struct_size;
    PJRT_Extension_Base *extension_start;
    PJRT_Buffer *buffer;
    void *device_memory_ptr; /* out */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Buffer_OpaqueDeviceMemoryDataPointer_Args, device_memory_ptr);

typedef PJRT_Error *
PJRT_Buffer_OpaqueDeviceMemoryDataPointer(PJRT_Buffer_OpaqueDeviceMemoryDataPointer_Args *args);
struct PJRT_Buffer_DonateWithControlDependency_Callback_Args {
    size_t struct_size;
    void *callback_data;
    PJRT_Error_Code error_code;
    const char *error_message;
    size_t error_message_size;
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Buffer_DonateWithControlDependency_Callback_Args,
                          error_message_size);

struct PJRT_Buffer_DonateWithControlDependency_Args {
    size_t struct_size;
    PJRT_Extension_Base *extension_start;
    PJRT_Buffer *buffer;
    void *callback_data; /* out */
    void (*dependency_ready_callback)(PJRT_Buffer_DonateWithControlDependency_Callback_Args *args);
    PJRT_Buffer *out_buffer; /* out */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Buffer_DonateWithControlDependency_Args, out_buffer);

typedef PJRT_Error *
PJRT_Buffer_DonateWithControlDependency(PJRT_Buffer_DonateWithControlDependency_Args *args);

/* --- Copy-to-device streams ------------------------------------------------------------------- */

struct PJRT_CopyToDeviceStream_Destroy_Args {
    size_t struct_size;
    PJRT_Extension_Base *extension_start;
    PJRT_CopyToDeviceStream *stream;
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_CopyToDeviceStream_Destroy_Args, stream);

typedef PJRT_Error *PJRT_CopyToDeviceStream_Destroy(PJRT_CopyToDeviceStream_Destroy_Args *args);
struct PJRT_CopyToDeviceStream_AddChunk_Args {
    size_t struct_size;
    PJRT_Extension_Base *extension_start;
    PJRT_CopyToDeviceStream *stream;
    PJRT_Chunk *chunk;
    PJRT_Event *transfer_complete; /* out */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_CopyToDeviceStream_AddChunk_Args, transfer_complete);

typedef PJRT_Error *PJRT_CopyToDeviceStream_AddChunk(PJRT_CopyToDeviceStream_AddChunk_Args *args);
struct PJRT_CopyToDeviceStream_TotalBytes_Args {
    size_t struct_size;
    PJRT_Extension_Base *extension_start;
    PJRT_CopyToDeviceStream *stream;
    int64_t total_bytes; /* out */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_CopyToDeviceStream_TotalBytes_Args, total_bytes);

typedef PJRT_Error *
PJRT_CopyToDeviceStream_TotalBytes(PJRT_CopyToDeviceStream_TotalBytes_Args *args);
struct PJRT_CopyToDeviceStream_GranuleSize_Args {
    size_t struct_size;
    PJRT_Extension_Base *extension_start;
    PJRT_CopyToDeviceStream *stream;
    int64_t granule_size_in_bytes; /* out */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_CopyToDeviceStream_GranuleSize_Args, granule_size_in_bytes);

typedef PJRT_Error *
PJRT_CopyToDeviceStream_GranuleSize(PJRT_CopyToDeviceStream_GranuleSize_Args *args);
struct PJRT_CopyToDeviceStream_CurrentBytes_Args {
    size_t struct_size;
    PJRT_Extension_Base *extension_start;
    PJRT_CopyToDeviceStream *stream;
    int64_t current_bytes; /* out */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_CopyToDeviceStream_CurrentBytes_Args, current_bytes);

typedef PJRT_Error *
PJRT_CopyToDeviceStream_CurrentBytes(PJRT_CopyToDeviceStream_CurrentBytes_Args *args);

/* --- Topology descriptions -------------------------------------------------------------------- */

struct PJRT_TopologyDescription_Create_Args {
    size_t struct_size;
    PJRT_Extension_Base *extension_start;
    const char *topology_name;
    size_t topology_name_size;
    const PJRT_NamedValue *create_options;
    size_t num_options;
    PJRT_TopologyDescription *topology; /* out */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_TopologyDescription_Create_Args, topology);

typedef PJRT_Error *PJRT_TopologyDescription_Create(PJRT_TopologyDescription_Create_Args *args);
struct PJRT_TopologyDescription_Destroy_Args {
    size_t struct_size;
    PJRT_Extension_Base *extension_start;
    PJRT_TopologyDescription *topology;
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_TopologyDescription_Destroy_Args, topology);

typedef PJRT_Error *PJRT_TopologyDescription_Destroy(PJRT_TopologyDescription_Destroy_Args *args);
struct PJRT_TopologyDescription_PlatformVersion_Args {
    size_t struct_size;
    PJRT_Extension_Base *extension_start;
    PJRT_TopologyDescription *topology;
    const char *platform_version; /* out */
    size_t platform_version_size; /* out */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_TopologyDescription_PlatformVersion_Args, platform_version_size);

typedef PJRT_Error *
PJRT_TopologyDescription_PlatformVersion(PJRT_TopologyDescription_PlatformVersion_Args *args);
struct PJRT_TopologyDescription_PlatformName_Args {
    size_t struct_size;
    PJRT_Extension_Base *extension_start;
    const PJRT_TopologyDescription *topology;
    const char *platform_name; /* out */
    size_t platform_name_size; /* out */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_TopologyDescription_PlatformName_Args, platform_name_size);

typedef PJRT_Error *
PJRT_TopologyDescription_PlatformName(PJRT_TopologyDescription_PlatformName_Args *args);
struct PJRT_TopologyDescription_GetDeviceDescriptions_Args {
    size_t struct_size;
    PJRT_Extension_Base *extension_start;
    const PJRT_TopologyDescription *topology;
    PJRT_DeviceDescription *const *descriptions; /* out */
    size_t num_descriptions;                     /* out */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_TopologyDescription_GetDeviceDescriptions_Args, num_descriptions);

typedef PJRT_Error *PJRT_TopologyDescription_GetDeviceDescriptions(
    PJRT_TopologyDescription_GetDeviceDescriptions_Args *args);
typedef struct PJRT_SerializedTopology PJRT_SerializedTopology;
struct PJRT_TopologyDescription_Serialize_Args {
    size_t struct_size;
    PJRT_Extension_Base *extension_start;
    PJRT_TopologyDescription *topology;
    const char *serialized_bytes;                 /* out */
    size_t serialized_bytes_size;                 /* out */
    PJRT_SerializedTopology *serialized_topology; /* out */
    void (*serialized_topology_deleter)(PJRT_SerializedTopology *serialized_topology);
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_TopologyDescription_Serialize_Args, serialized_topology_deleter);

typedef PJRT_Error *
PJRT_TopologyDescription_Serialize(PJRT_TopologyDescription_Serialize_Args *args);
struct PJRT_TopologyDescription_Deserialize_Args {
    size_t struct_size;
    PJRT_Extension_Base *extension_start;
    const char *serialized_topology;
    size_t serialized_topology_size;
    PJRT_TopologyDescription *topology; /* out */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_TopologyDescription_Deserialize_Args, topology);

typedef PJRT_Error *
PJRT_TopologyDescription_Deserialize(PJRT_TopologyDescription_Deserialize_Args *args);
struct PJRT_TopologyDescription_Attributes_Args {
    size_t struct_size;
    PJRT_Extension_Base *extension_start;
    PJRT_TopologyDescription *topology;
    const PJRT_NamedValue *attributes; /* out */
    size_t num_attributes;             /* out */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_TopologyDescription_Attributes_Args, num_attributes);

typedef PJRT_Error *
PJRT_TopologyDescription_Attributes(PJRT_TopologyDescription_Attributes_Args *args);
struct PJRT_TopologyDescription_Fingerprint_Args {
    size_t struct_size;
    PJRT_Extension_Base *extension_start;
    const PJRT_TopologyDescription *topology;
    uint64_t fingerprint; /* out */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_TopologyDescription_Fingerprint_Args, fingerprint);

typedef PJRT_Error *
PJRT_TopologyDescription_Fingerprint(PJRT_TopologyDescription_Fingerprint_Args *args);
struct PJRT_TopologyDescription_MakeCanonicalShapeForMemorySpace_Args {
    size_t struct_size;
    PJRT_Extension_Base *extension_start;
    const PJRT_TopologyDescription *topology;
    int memory_space_kind_id;
    const int64_t *dims;
    size_t num_dims;
    PJRT_Buffer_Type element_type;
    const PJRT_Buffer_MemoryLayout *layout;
    const char *serialized_shape;                   /* out */
    size_t serialized_shape_size;                   /* out */
    void (*serialized_shape_deleter)(const char *); /* out */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_TopologyDescription_MakeCanonicalShapeForMemorySpace_Args,
                          serialized_shape_deleter);

typedef PJRT_Error *PJRT_TopologyDescription_MakeCanonicalShapeForMemorySpace(
    PJRT_TopologyDescription_MakeCanonicalShapeForMemorySpace_Args *args);
struct PJRT_TopologyDescription_GetMemorySpaceKindIds_Args {
    size_t struct_size;
    PJRT_Extension_Base *extension_start;
    const PJRT_TopologyDescription *topology;
    const int *memory_space_kind_ids; /* out */
    size_t num_memory_space_kind_ids; /* out */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_TopologyDescription_GetMemorySpaceKindIds_Args,
                          num_memory_space_kind_ids);

typedef PJRT_Error *PJRT_TopologyDescription_GetMemorySpaceKindIds(
    PJRT_TopologyDescription_GetMemorySpaceKindIds_Args *args);

/* --- Ahead-of-time compilation ---------------------------------------------------------------- */

struct PJRT_Compile_Args {
    size_t struct_size;
    PJRT_Extension_Base *extension_start;
    const PJRT_TopologyDescription *topology;
    const PJRT_Program *program;
    const char *compile_options;
    size_t compile_options_size;
    PJRT_Client *client;
    PJRT_Executable *executable; /* out */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Compile_Args, executable);

typedef PJRT_Error *PJRT_Compile(PJRT_Compile_Args *args);

/* --- The function table ----------------------------------------------------------------------- */

/*
 * The table a plugin returns from GetPjrtApi. It lives as long as the plugin
 * is loaded. Never call a slot at or beyond struct_size, nor a NULL slot.
 */
typedef struct PJRT_Api {
    size_t struct_size;
    PJRT_Extension_Base *extension_start;
    PJRT_Api_Version pjrt_api_version;
    PJRT_Error_Destroy *PJRT_Error_Destroy;
    PJRT_Error_Message *PJRT_Error_Message;
    PJRT_Error_GetCode *PJRT_Error_GetCode;
    PJRT_Plugin_Initialize *PJRT_Plugin_Initialize;
    PJRT_Plugin_Attributes *PJRT_Plugin_Attributes;
    PJRT_Event_Destroy *PJRT_Event_Destroy;
    PJRT_Event_IsReady *PJRT_Event_IsReady;
    PJRT_Event_Error *PJRT_Event_Error;
    PJRT_Event_Await *PJRT_Event_Await;
    PJRT_Event_OnReady *PJRT_Event_OnReady;
    PJRT_Client_Create *PJRT_Client_Create;
    PJRT_Client_Destroy *PJRT_Client_Destroy;
    PJRT_Client_PlatformName *PJRT_Client_PlatformName;
    PJRT_Client_ProcessIndex *PJRT_Client_ProcessIndex;
    PJRT_Client_PlatformVersion *PJRT_Client_PlatformVersion;
    PJRT_Client_Devices *PJRT_Client_Devices;
    PJRT_Client_AddressableDevices *PJRT_Client_AddressableDevices;
    PJRT_Client_LookupDevice *PJRT_Client_LookupDevice;
    PJRT_Client_LookupAddressableDevice *PJRT_Client_LookupAddressableDevice;
    PJRT_Client_AddressableMemories *PJRT_Client_AddressableMemories;
    PJRT_Client_Compile *PJRT_Client_Compile;
    PJRT_Client_DefaultDeviceAssignment *PJRT_Client_DefaultDeviceAssignment;
    PJRT_Client_BufferFromHostBuffer *PJRT_Client_BufferFromHostBuffer;
    PJRT_DeviceDescription_Id *PJRT_DeviceDescription_Id;
    PJRT_DeviceDescription_ProcessIndex *PJRT_DeviceDescription_ProcessIndex;
    PJRT_DeviceDescription_Attributes *PJRT_DeviceDescription_Attributes;
    PJRT_DeviceDescription_Kind *PJRT_DeviceDescription_Kind;
    PJRT_DeviceDescription_DebugString *PJRT_DeviceDescription_DebugString;
    PJRT_DeviceDescription_ToString *PJRT_DeviceDescription_ToString;
    PJRT_Device_GetDescription *PJRT_Device_GetDescription;
    PJRT_Device_IsAddressable *PJRT_Device_IsAddressable;
    PJRT_Device_LocalHardwareId *PJRT_Device_LocalHardwareId;
    PJRT_Device_AddressableMemories *PJRT_Device_AddressableMemories;
    PJRT_Device_DefaultMemory *PJRT_Device_DefaultMemory;
    PJRT_Device_MemoryStats *PJRT_Device_MemoryStats;
    PJRT_Memory_Id *PJRT_Memory_Id;
    PJRT_Memory_Kind *PJRT_Memory_Kind;
    PJRT_Memory_DebugString *PJRT_Memory_DebugString;
    PJRT_Memory_ToString *PJRT_Memory_ToString;
    PJRT_Memory_AddressableByDevices *PJRT_Memory_AddressableByDevices;
    PJRT_Executable_Destroy *PJRT_Executable_Destroy;
    PJRT_Executable_Name *PJRT_Executable_Name;
    PJRT_Executable_NumReplicas *PJRT_Executable_NumReplicas;
    PJRT_Executable_NumPartitions *PJRT_Executable_NumPartitions;
    PJRT_Executable_NumOutputs *PJRT_Executable_NumOutputs;
    PJRT_Executable_SizeOfGeneratedCodeInBytes *PJRT_Executable_SizeOfGeneratedCodeInBytes;
    PJRT_Executable_GetCostAnalysis *PJRT_Executable_GetCostAnalysis;
    PJRT_Executable_OutputMemoryKinds *PJRT_Executable_OutputMemoryKinds;
    PJRT_Executable_OptimizedProgram *PJRT_Executable_OptimizedProgram;
    PJRT_Executable_Serialize *PJRT_Executable_Serialize;
    PJRT_LoadedExecutable_Destroy *PJRT_LoadedExecutable_Destroy;
    PJRT_LoadedExecutable_GetExecutable *PJRT_LoadedExecutable_GetExecutable;
    PJRT_LoadedExecutable_AddressableDevices *PJRT_LoadedExecutable_AddressableDevices;
    PJRT_LoadedExecutable_Delete *PJRT_LoadedExecutable_Delete;
    PJRT_LoadedExecutable_IsDeleted *PJRT_LoadedExecutable_IsDeleted;
    PJRT_LoadedExecutable_Execute *PJRT_LoadedExecutable_Execute;
    PJRT_Executable_DeserializeAndLoad *PJRT_Executable_DeserializeAndLoad;
    PJRT_LoadedExecutable_Fingerprint *PJRT_LoadedExecutable_Fingerprint;
    PJRT_Buffer_Destroy *PJRT_Buffer_Destroy;
    PJRT_Buffer_ElementType *PJRT_Buffer_ElementType;
    PJRT_Buffer_Dimensions *PJRT_Buffer_Dimensions;
    PJRT_Buffer_UnpaddedDimensions *PJRT_Buffer_UnpaddedDimensions;
    PJRT_Buffer_DynamicDimensionIndices *PJRT_Buffer_DynamicDimensionIndices;
    PJRT_Buffer_GetMemoryLayout *PJRT_Buffer_GetMemoryLayout;
    PJRT_Buffer_OnDeviceSizeInBytes *PJRT_Buffer_OnDeviceSizeInBytes;
    PJRT_Buffer_Device *PJRT_Buffer_Device;
    PJRT_Buffer_Memory *PJRT_Buffer_Memory;
    PJRT_Buffer_Delete *PJRT_Buffer_Delete;
    PJRT_Buffer_IsDeleted *PJRT_Buffer_IsDeleted;
    PJRT_Buffer_CopyToDevice *PJRT_Buffer_CopyToDevice;
    PJRT_Buffer_ToHostBuffer *PJRT_Buffer_ToHostBuffer;
    PJRT_Buffer_IsOnCpu *PJRT_Buffer_IsOnCpu;
    PJRT_Buffer_ReadyEvent *PJRT_Buffer_ReadyEvent;
    PJRT_Buffer_UnsafePointer *PJRT_Buffer_UnsafePointer;
    PJRT_Buffer_IncreaseExternalReferenceCount *PJRT_Buffer_IncreaseExternalReferenceCount;
    PJRT_Buffer_DecreaseExternalReferenceCount *PJRT_Buffer_DecreaseExternalReferenceCount;
    PJRT_Buffer_OpaqueDeviceMemoryDataPointer *PJRT_Buffer_OpaqueDeviceMemoryDataPointer;
    PJRT_CopyToDeviceStream_Destroy *PJRT_CopyToDeviceStream_Destroy;
    PJRT_CopyToDeviceStream_AddChunk *PJRT_CopyToDeviceStream_AddChunk;
    PJRT_CopyToDeviceStream_TotalBytes *PJRT_CopyToDeviceStream_TotalBytes;
    PJRT_CopyToDeviceStream_GranuleSize *PJRT_CopyToDeviceStream_GranuleSize;
    PJRT_CopyToDeviceStream_CurrentBytes *PJRT_CopyToDeviceStream_CurrentBytes;
    PJRT_TopologyDescription_Create *PJRT_TopologyDescription_Create;
    PJRT_TopologyDescription_Destroy *PJRT_TopologyDescription_Destroy;
    PJRT_TopologyDescription_PlatformName *PJRT_TopologyDescription_PlatformName;
    PJRT_TopologyDescription_PlatformVersion *PJRT_TopologyDescription_PlatformVersion;
    PJRT_TopologyDescription_GetDeviceDescriptions *PJRT_TopologyDescription_GetDeviceDescriptions;
    PJRT_TopologyDescription_Serialize *PJRT_TopologyDescription_Serialize;
    PJRT_TopologyDescription_Attributes *PJRT_TopologyDescription_Attributes;
    PJRT_Compile *PJRT_Compile;
    PJRT_Executable_OutputElementTypes *PJRT_Executable_OutputElementTypes;
    PJRT_Executable_OutputDimensions *PJRT_Executable_OutputDimensions;
    PJRT_Buffer_CopyToMemory *PJRT_Buffer_CopyToMemory;
    PJRT_Client_CreateViewOfDeviceBuffer *PJRT_Client_CreateViewOfDeviceBuffer;
    PJRT_Executable_Fingerprint *PJRT_Executable_Fingerprint;
    PJRT_Client_TopologyDescription *PJRT_Client_TopologyDescription;
    PJRT_Executable_GetCompiledMemoryStats *PJRT_Executable_GetCompiledMemoryStats;
    PJRT_Memory_Kind_Id *PJRT_Memory_Kind_Id;
    PJRT_ExecuteContext_Create *PJRT_ExecuteContext_Create;
    PJRT_ExecuteContext_Destroy *PJRT_ExecuteContext_Destroy;
    PJRT_Buffer_CopyRawToHost *PJRT_Buffer_CopyRawToHost;
    PJRT_AsyncHostToDeviceTransferManager_Destroy *PJRT_AsyncHostToDeviceTransferManager_Destroy;
    PJRT_AsyncHostToDeviceTransferManager_TransferData
        *PJRT_AsyncHostToDeviceTransferManager_TransferData;
    PJRT_Client_CreateBuffersForAsyncHostToDevice *PJRT_Client_CreateBuffersForAsyncHostToDevice;
    PJRT_AsyncHostToDeviceTransferManager_RetrieveBuffer
        *PJRT_AsyncHostToDeviceTransferManager_RetrieveBuffer;
    PJRT_AsyncHostToDeviceTransferManager_Device *PJRT_AsyncHostToDeviceTransferManager_Device;
    PJRT_AsyncHostToDeviceTransferManager_BufferCount
        *PJRT_AsyncHostToDeviceTransferManager_BufferCount;
    PJRT_AsyncHostToDeviceTransferManager_BufferSize
        *PJRT_AsyncHostToDeviceTransferManager_BufferSize;
    PJRT_AsyncHostToDeviceTransferManager_SetBufferError
        *PJRT_AsyncHostToDeviceTransferManager_SetBufferError;
    PJRT_AsyncHostToDeviceTransferManager_AddMetadata
        *PJRT_AsyncHostToDeviceTransferManager_AddMetadata;
    PJRT_Client_DmaMap *PJRT_Client_DmaMap;
    PJRT_Client_DmaUnmap *PJRT_Client_DmaUnmap;
    PJRT_Client_CreateUninitializedBuffer *PJRT_Client_CreateUninitializedBuffer;
    PJRT_Client_UpdateGlobalProcessInfo *PJRT_Client_UpdateGlobalProcessInfo;
    PJRT_TopologyDescription_Deserialize *PJRT_TopologyDescription_Deserialize;
    PJRT_Client_CreateAliasBuffer *PJRT_Client_CreateAliasBuffer;
    PJRT_Client_FulfillAliasBuffer *PJRT_Client_FulfillAliasBuffer;
    PJRT_LoadedExecutable_GetDeviceAssignment *PJRT_LoadedExecutable_GetDeviceAssignment;
    PJRT_Client_CreateErrorBuffer *PJRT_Client_CreateErrorBuffer;
    PJRT_AsyncHostToDeviceTransferManager_TransferLiteral
        *PJRT_AsyncHostToDeviceTransferManager_TransferLiteral;
    PJRT_Buffer_CopyRawToHostFuture *PJRT_Buffer_CopyRawToHostFuture;
    PJRT_Device_PoisonExecution *PJRT_Device_PoisonExecution;
    PJRT_Device_CreateAsyncTrackingEvent *PJRT_Device_CreateAsyncTrackingEvent;
    PJRT_AsyncTrackingEvent_Destroy *PJRT_AsyncTrackingEvent_Destroy;
    PJRT_Executable_GetCompileOptions *PJRT_Executable_GetCompileOptions;
    PJRT_Buffer_DonateWithControlDependency *PJRT_Buffer_DonateWithControlDependency;
    PJRT_Event_Create *PJRT_Event_Create;
    PJRT_Event_Set *PJRT_Event_Set;
    PJRT_Device_GetAttributes *PJRT_Device_GetAttributes;
    PJRT_Client_Load *PJRT_Client_Load;
    PJRT_LoadedExecutable_AddressableDeviceLogicalIds
        *PJRT_LoadedExecutable_AddressableDeviceLogicalIds;
    PJRT_Buffer_Bitcast *PJRT_Buffer_Bitcast;
    PJRT_Error_ForEachPayload *PJRT_Error_ForEachPayload;
    PJRT_TopologyDescription_Fingerprint *PJRT_TopologyDescription_Fingerprint;
    PJRT_Executable_ParameterMemoryKinds *PJRT_Executable_ParameterMemoryKinds;
    PJRT_Device_ClearMemoryStats *PJRT_Device_ClearMemoryStats;
    PJRT_TopologyDescription_MakeCanonicalShapeForMemorySpace
        *PJRT_TopologyDescription_MakeCanonicalShapeForMemorySpace;
    PJRT_TopologyDescription_GetMemorySpaceKindIds *PJRT_TopologyDescription_GetMemorySpaceKindIds;
} PJRT_Api;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Api, PJRT_TopologyDescription_GetMemorySpaceKindIds);

/*
 * Project helper, not part of the interface: X(name) once for every slot of
 * PJRT_Api, in table order (138 slots). Every slot's function returns
 * PJRT_Error* except PJRT_Error_Destroy and PJRT_Error_Message (void).
 */
#define PJDL_PJRT_API_FOREACH_SLOT(X)                                                              \
    X(PJRT_Error_Destroy)                                                                          \
    X(PJRT_Error_Message)                                                                          \
    X(PJRT_Error_GetCode)                                                                          \
    X(PJRT_Plugin_Initialize)                                                                      \
    X(PJRT_Plugin_Attributes)                                                                      \
    X(PJRT_Event_Destroy)                                                                          \
    X(PJRT_Event_IsReady)                                                                          \
    X(PJRT_Event_Error)                                                                            \
    X(PJRT_Event_Await)                                                                            \
    X(PJRT_Event_OnReady)                                                                          \
    X(PJRT_Client_Create)                                                                          \
    X(PJRT_Client_Destroy)                                                                         \
    X(PJRT_Client_PlatformName)                                                                    \
    X(PJRT_Client_ProcessIndex)                                                                    \
    X(PJRT_Client_PlatformVersion)                                                                 \
    X(PJRT_Client_Devices)                                                                         \
    X(PJRT_Client_AddressableDevices)                                                              \
    X(PJRT_Client_LookupDevice)                                                                    \
    X(PJRT_Client_LookupAddressableDevice)                                                         \
    X(PJRT_Client_AddressableMemories)                                                             \
    X(PJRT_Client_Compile)                                                                         \
    X(PJRT_Client_DefaultDeviceAssignment)                                                         \
    X(PJRT_Client_BufferFromHostBuffer)                                                            \
    X(PJRT_DeviceDescription_Id)                                                                   \
    X(PJRT_DeviceDescription_ProcessIndex)                                                         \
    X(PJRT_DeviceDescription_Attributes)                                                           \
    X(PJRT_DeviceDescription_Kind)                                                                 \
    X(PJRT_DeviceDescription_DebugString)                                                          \
    X(PJRT_DeviceDescription_ToString)                                                             \
    X(PJRT_Device_GetDescription)                                                                  \
    X(PJRT_Device_IsAddressable)                                                                   \
    X(PJRT_Device_LocalHardwareId)                                                                 \
    X(PJRT_Device_AddressableMemories)                                                             \
    X(PJRT_Device_DefaultMemory)                                                                   \
    X(PJRT_Device_MemoryStats)                                                                     \
    X(PJRT_Memory_Id)                                                                              \
    X(PJRT_Memory_Kind)                                                                            \
    X(PJRT_Memory_DebugString)                                                                     \
    X(PJRT_Memory_ToString)                                                                        \
    X(PJRT_Memory_AddressableByDevices)                                                            \
    X(PJRT_Executable_Destroy)                                                                     \
    X(PJRT_Executable_Name)                                                                        \
    X(PJRT_Executable_NumReplicas)                                                                 \
    X(PJRT_Executable_NumPartitions)                                                               \
    X(PJRT_Executable_NumOutputs)                                                                  \
    X(PJRT_Executable_SizeOfGeneratedCodeInBytes)                                                  \
    X(PJRT_Executable_GetCostAnalysis)                                                             \
    X(PJRT_Executable_OutputMemoryKinds)                                                           \
    X(PJRT_Executable_OptimizedProgram)                                                            \
    X(PJRT_Executable_Serialize)                                                                   \
    X(PJRT_LoadedExecutable_Destroy)                                                               \
    X(PJRT_LoadedExecutable_GetExecutable)                                                         \
    X(PJRT_LoadedExecutable_AddressableDevices)                                                    \
    X(PJRT_LoadedExecutable_Delete)                                                                \
    X(PJRT_LoadedExecutable_IsDeleted)                                                             \
    X(PJRT_LoadedExecutable_Execute)                                                               \
    X(PJRT_Executable_DeserializeAndLoad)                                                          \
    X(PJRT_LoadedExecutable_Fingerprint)                                                           \
    X(PJRT_Buffer_Destroy)                                                                         \
    X(PJRT_Buffer_ElementType)                                                                     \
    X(PJRT_Buffer_Dimensions)                                                                      \
    X(PJRT_Buffer_UnpaddedDimensions)                                                              \
    X(PJRT_Buffer_DynamicDimensionIndices)                                                         \
    X(PJRT_Buffer_GetMemoryLayout)                                                                 \
    X(PJRT_Buffer_OnDeviceSizeInBytes)                                                             \
    X(PJRT_Buffer_Device)                                                                          \
    X(PJRT_Buffer_Memory)                                                                          \
    X(PJRT_Buffer_Delete)                                                                          \
    X(PJRT_Buffer_IsDeleted)                                                                       \
    X(PJRT_Buffer_CopyToDevice)                                                                    \
    X(PJRT_Buffer_ToHostBuffer)                                                                    \
    X(PJRT_Buffer_IsOnCpu)                                                                         \
    X(PJRT_Buffer_ReadyEvent)                                                                      \
    X(PJRT_Buffer_UnsafePointer)                                                                   \
    X(PJRT_Buffer_IncreaseExternalReferenceCount)                                                  \
    X(PJRT_Buffer_DecreaseExternalReferenceCount)                                                  \
    X(PJRT_Buffer_OpaqueDeviceMemoryDataPointer)                                                   \
    X(PJRT_CopyToDeviceStream_Destroy)                                                             \
    X(PJRT_CopyToDeviceStream_AddChunk)                                                            \
    X(PJRT_CopyToDeviceStream_TotalBytes)                                                          \
    X(PJRT_CopyToDeviceStream_GranuleSize)                                                         \
    X(PJRT_CopyToDeviceStream_CurrentBytes)                                                        \
    X(PJRT_TopologyDescription_Create)                                                             \
    X(PJRT_TopologyDescription_Destroy)                                                            \
    X(PJRT_TopologyDescription_PlatformName)                                                       \
    X(PJRT_TopologyDescription_PlatformVersion)                                                    \
    X(PJRT_TopologyDescription_GetDeviceDescriptions)                                              \
    X(PJRT_TopologyDescription_Serialize)                                                          \
    X(PJRT_TopologyDescription_Attributes)                                                         \
    X(PJRT_Compile)                                                                                \
    X(PJRT_Executable_OutputElementTypes)                                                          \
    X(PJRT_Executable_OutputDimensions)                                                            \
    X(PJRT_Buffer_CopyToMemory)                                                                    \
    X(PJRT_Client_CreateViewOfDeviceBuffer)                                                        \
    X(PJRT_Executable_Fingerprint)                                                                 \
    X(PJRT_Client_TopologyDescription)                                                             \
    X(PJRT_Executable_GetCompiledMemoryStats)                                                      \
    X(PJRT_Memory_Kind_Id)                                                                         \
    X(PJRT_ExecuteContext_Create)                                                                  \
    X(PJRT_ExecuteContext_Destroy)                                                                 \
    X(PJRT_Buffer_CopyRawToHost)                                                                   \
    X(PJRT_AsyncHostToDeviceTransferManager_Destroy)                                               \
    X(PJRT_AsyncHostToDeviceTransferManager_TransferData)                                          \
    X(PJRT_Client_CreateBuffersForAsyncHostToDevice)                                               \
    X(PJRT_AsyncHostToDeviceTransferManager_RetrieveBuffer)                                        \
    X(PJRT_AsyncHostToDeviceTransferManager_Device)                                                \
    X(PJRT_AsyncHostToDeviceTransferManager_BufferCount)                                           \
    X(PJRT_AsyncHostToDeviceTransferManager_BufferSize)                                            \
    X(PJRT_AsyncHostToDeviceTransferManager_SetBufferError)                                        \
    X(PJRT_AsyncHostToDeviceTransferManager_AddMetadata)                                           \
    X(PJRT_Client_DmaMap)                                                                          \
    X(PJRT_Client_DmaUnmap)                                                                        \
    X(PJRT_Client_CreateUninitializedBuffer)                                                       \
    X(PJRT_Client_UpdateGlobalProcessInfo)                                                         \
    X(PJRT_TopologyDescription_Deserialize)                                                        \
    X(PJRT_Client_CreateAliasBuffer)                                                               \
    X(PJRT_Client_FulfillAliasBuffer)                                                              \
    X(PJRT_LoadedExecutable_GetDeviceAssignment)                                                   \
    X(PJRT_Client_CreateErrorBuffer)                                                               \
    X(PJRT_AsyncHostToDeviceTransferManager_TransferLiteral)                                       \
    X(PJRT_Buffer_CopyRawToHostFuture)                                                             \
    X(PJRT_Device_PoisonExecution)                                                                 \
    X(PJRT_Device_CreateAsyncTrackingEvent)                                                        \
    X(PJRT_AsyncTrackingEvent_Destroy)                                                             \
    X(PJRT_Executable_GetCompileOptions)                                                           \
    X(PJRT_Buffer_DonateWithControlDependency)                                                     \
    X(PJRT_Event_Create)                                                                           \
    X(PJRT_Event_Set)                                                                              \
    X(PJRT_Device_GetAttributes)                                                                   \
    X(PJRT_Client_Load)                                                                            \
    X(PJRT_LoadedExecutable_AddressableDeviceLogicalIds)                                           \
    X(PJRT_Buffer_Bitcast)                                                                         \
    X(PJRT_Error_ForEachPayload)                                                                   \
    X(PJRT_TopologyDescription_Fingerprint)                                                        \
    X(PJRT_Executable_ParameterMemoryKinds)                                                        \
    X(PJRT_Device_ClearMemoryStats)                                                                \
    X(PJRT_TopologyDescription_MakeCanonicalShapeForMemorySpace)                                   \
    X(PJRT_TopologyDescription_GetMemorySpaceKindIds)

/* The number of function slots in PJRT_Api at this version. */
#define PJDL_PJRT_API_NUM_SLOTS 138

#ifdef __cplusplus
}
#endif

#endif /* XLA_PJRT_C_PJRT_C_API_H_ */

/* === The stream extension ===================================================================== */

#ifndef XLA_PJRT_C_PJRT_C_API_STREAM_EXTENSION_H_
#define XLA_PJRT_C_PJRT_C_API_STREAM_EXTENSION_H_

#ifdef __cplusplus
extern "C" {
#endif

#define PJRT_API_STREAM_EXTENSION_VERSION 0

/*
 * Returns the platform stream handle (for example a cudaStream_t cast to
 * intptr_t) on which work that produces externally owned data should be
 * ordered before PJRT may use that data on this device. The stream is owned
 * by the plugin and lives as long as the device.
 */
struct PJRT_Get_Stream_For_External_Ready_Events_Args {
    size_t struct_size;
    PJRT_Device *device;
    intptr_t stream; /* out */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Get_Stream_For_External_Ready_Events_Args, stream);

typedef PJRT_Error *
PJRT_Get_Stream_For_External_Ready_Events(PJRT_Get_Stream_For_External_Ready_Events_Args *args);

/*
 * Makes the given stream (owned by the caller) wait until the buffer's data is
 * ready, without blocking the calling thread. The buffer stays owned by the
 * caller.
 */
struct PJRT_Wait_Until_Buffer_Ready_On_Stream_Args {
    size_t struct_size;
    intptr_t stream;
    PJRT_Buffer *buffer;
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Wait_Until_Buffer_Ready_On_Stream_Args, buffer);

typedef PJRT_Error *
PJRT_Wait_Until_Buffer_Ready_On_Stream(PJRT_Wait_Until_Buffer_Ready_On_Stream_Args *args);

/*
 * The stream extension record, found in the PJRT_Api.extension_start chain by
 * type PJRT_Extension_Type_Stream. Owned by the plugin.
 */
typedef struct PJRT_Stream_Extension {
    PJRT_Extension_Base base;
    PJRT_Get_Stream_For_External_Ready_Events *get_stream;
    PJRT_Wait_Until_Buffer_Ready_On_Stream *wait_stream;
} PJRT_Stream_Extension;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Stream_Extension, wait_stream);

#ifdef __cplusplus
}
#endif

#endif /* XLA_PJRT_C_PJRT_C_API_STREAM_EXTENSION_H_ */
