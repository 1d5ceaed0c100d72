/*
 * Internal declarations of the reference PJRT plugin (libpjrt_ref.so).
 *
 * The plugin implements the PJRT C API for two platforms:
 *   - "cpu": buffers live in host memory, everything completes synchronously.
 *   - "xpu": a simulated accelerator. Each device owns a "device" memory
 *     (host RAM underneath, with an allocation registry and an optional
 *     capacity) and a "pinned_host" memory. Work is queued on per-device
 *     streams (worker threads) and events complete later, on those threads.
 *
 * Object model (every object below is private to the plugin):
 *   PJRT_Client   refcounted: the user's handle plus one reference per live
 *                 buffer storage (ref_mem) keeps it alive, so a buffer that
 *                 outlives Client_Destroy stays valid to delete.
 *   ref_mem       a refcounted block of storage. A buffer holds one reference
 *                 until it is deleted; a non-zero external reference count
 *                 holds one more; queued stream work holds its own. When the
 *                 last reference goes, owned storage is freed, or a view's
 *                 on_delete_callback runs (exactly once).
 *   PJRT_Buffer   metadata (type, dims, layout) plus a ref_mem and a ready
 *                 event. Thread-safe: a mutex guards deletion and the
 *                 external reference count.
 *   PJRT_Event    refcounted; every handle given to the caller is one
 *                 reference. Completes once, runs OnReady callbacks in
 *                 registration order on the completing thread.
 *
 * Every allocation goes through ref_alloc()/ref_free() so tests can count
 * live allocations per client and inject an allocation failure.
 */
#ifndef PJRT_REF_INTERNAL_H
#define PJRT_REF_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "pjrt_dlpack/pjrt_abi.h"

/* REF_VERSION, the plugin's version string, comes from the build (the
 * project version, include/pjrt_dlpack.h). */
#ifndef REF_VERSION
#error "REF_VERSION must be defined by the build (plugin/CMakeLists.txt)"
#endif
#define REF_MAX_DIMS 64
#define REF_MAX_DEVICES 64
#define REF_DATA_ALIGN 64
#define REF_CACHE_BLOCKS 4
#define REF_CACHE_MIN_BYTES ((size_t)1 << 20)

/* ------------------------------------------------------------ allocation */

/* Allocates `size` zeroed bytes, counted against `client` (may be NULL). */
void *ref_alloc(PJRT_Client *client, size_t size);
/* The same, not zeroed: for objects whose creator sets every byte. */
void *ref_alloc_raw(PJRT_Client *client, size_t size);
/* Allocates `size` bytes (at least 1) aligned to REF_DATA_ALIGN, not zeroed. */
void *ref_alloc_data(PJRT_Client *client, size_t size);
/* ref_alloc_raw for an object the thread will soon free again (a small
 * buffer: a view made and destroyed per import): the block the thread
 * last freed with ref_free_stocked at this size is reused
 * (common/thread_stock.h), as real allocators keep per-thread caches.
 * Counted and failure-injected like ref_alloc_raw. */
void *ref_alloc_stocked(PJRT_Client *client, size_t size);
/* Frees what ref_alloc_stocked(client, size) returned. */
void ref_free_stocked(PJRT_Client *client, void *ptr, size_t size);
/* Frees what ref_alloc/ref_alloc_data returned; `client` must be the same. */
void ref_free(PJRT_Client *client, void *ptr);
void ref_free_data(PJRT_Client *client, void *ptr);
/* Duplicates a string of `len` bytes (NUL-terminated copy). */
char *ref_strndup(PJRT_Client *client, const char *s, size_t len);
/* Moves the attribution of one live allocation from `from` to `to` (either
 * may be NULL: the process only). */
void ref_alloc_reattribute(PJRT_Client *from, PJRT_Client *to);
/* Every client is in the allocation registry from creation to freeing, so
 * that the process total includes its allocations. */
void ref_alloc_register_client(PJRT_Client *client);
void ref_alloc_unregister_client(PJRT_Client *client);
/* Live allocations in the process / attributed to `client`. */
int64_t ref_alloc_live_total(void);
int64_t ref_alloc_live_client(const PJRT_Client *client);
/* Makes the `nth` allocation from now fail (0 disables). Returns the number
 * of allocations counted since the previous call. */
int64_t ref_alloc_fail_nth(int64_t nth);

/* ---------------------------------------------------------------- errors */

typedef struct ref_err {
    PJRT_Error base; /* first: the C API handle */
    PJRT_Error_Code code;
    bool is_static; /* the preallocated out-of-memory error */
    size_t message_size;
    char *message;
} ref_err;

/* Creates an error with a printf-style message. Never returns NULL: if memory
 * runs out, returns a static RESOURCE_EXHAUSTED error. */
PJRT_Error *ref_error(PJRT_Error_Code code, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
PJRT_Error *ref_error_oom(const char *what);
void ref_error_free(PJRT_Error *error);

/* Checks an args struct: not NULL and struct_size >= min_size. */
PJRT_Error *ref_check_args(const void *args, size_t struct_size, size_t min_size,
                           const char *type_name);

#define REF_FIELD_END(type, field) (offsetof(type, field) + sizeof(((type *)0)->field))

/* Returns early with INVALID_ARGUMENT naming the struct if `args` is NULL or
 * smaller than the oldest layout the plugin accepts (up to `last`). */
#define REF_CHECK_ARGS_SIZE(args, type, min_size)                                                  \
    do {                                                                                           \
        PJRT_Error *ref_err_ =                                                                     \
            ref_check_args((args), (args) ? (args)->struct_size : 0, (min_size), #type);           \
        if (ref_err_ != NULL)                                                                      \
            return ref_err_;                                                                       \
    } while (0)
#define REF_CHECK_ARGS_UPTO(args, type, last)                                                      \
    REF_CHECK_ARGS_SIZE(args, type, REF_FIELD_END(type, last))
#define REF_CHECK_ARGS(args, type) REF_CHECK_ARGS_SIZE(args, type, type##_STRUCT_SIZE)
/* True if the caller's struct is large enough to contain `field`. */
#define REF_HAS_FIELD(args, type, field) ((args)->struct_size >= REF_FIELD_END(type, field))

#define REF_INVALID(...) ref_error(PJRT_Error_Code_INVALID_ARGUMENT, __VA_ARGS__)

#define REF_RETURN_IF_NULL(ptr, fn, what)                                                          \
    do {                                                                                           \
        if ((ptr) == NULL)                                                                         \
            return REF_INVALID("%s: %s is NULL", fn, what);                                        \
    } while (0)

/* The start of entry point `name` (args type name##_Args) whose handle is
 * args->field: returns early with INVALID_ARGUMENT if the args struct is NULL
 * or too small, or the handle is NULL (the message names `name`). */
#define REF_CHECK_ENTRY(args, name, field)                                                         \
    do {                                                                                           \
        REF_CHECK_ARGS(args, name##_Args);                                                         \
        REF_RETURN_IF_NULL((args)->field, #name, #field);                                          \
    } while (0)

/* Defines ref_<name>, an entry point that cannot fail once its args are
 * checked: REF_CHECK_ENTRY, then the statements `...` (`self` is the handle
 * args->field), then success. */
#define REF_DEFINE_QUERY(name, field, ...)                                                         \
    PJRT_Error *ref_##name(name##_Args *args) {                                                    \
        REF_CHECK_ENTRY(args, name, field);                                                        \
        __typeof__(args->field) self = args->field;                                                \
        (void)self;                                                                                \
        __VA_ARGS__                                                                                \
        return NULL;                                                                               \
    }

/* Sets an out-parameter string and its size (the field named field_size) to
 * the NUL-terminated `str`: REF_SET_STRING(args->kind, m->kind_name). */
#define REF_SET_STRING(field, str) ((field) = (str), field##_size = strlen(field))

/* ---------------------------------------------------------------- events */

typedef void (*ref_event_fn)(PJRT_Event *event, void *arg);

struct ref_event_cb {
    struct ref_event_cb *next;
    PJRT_Event_OnReadyCallback user_fn; /* either a user callback ... */
    ref_event_fn internal_fn;           /* ... or an internal one */
    void *arg;
};

struct PJRT_Event {
    atomic_long refs;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    bool ready;
    bool settable; /* created by PJRT_Event_Create; Set is allowed once */
    PJRT_Error_Code code;
    char *message;
    struct ref_event_cb *callbacks;
    struct ref_event_cb *callbacks_tail;
};

/* New, not-ready event with one reference; NULL when out of memory. */
PJRT_Event *ref_event_new(void);
/* An event already completed with `code`. For OK it is a shared, never
 * freed event (no allocation, never NULL); otherwise a new one, NULL when
 * out of memory. */
PJRT_Event *ref_event_new_ready(PJRT_Error_Code code, const char *message);
PJRT_Event *ref_event_retain(PJRT_Event *event);
void ref_event_release(PJRT_Event *event);
/* Completes the event once; later calls are ignored. Runs callbacks on the
 * calling thread. `message` may be NULL for OK. Returns false if the event was
 * already complete. */
bool ref_event_complete(PJRT_Event *event, PJRT_Error_Code code, const char *message);
/* Blocks until ready; returns its status as a new error (NULL for OK). */
PJRT_Error *ref_event_wait(PJRT_Event *event);
/* Status of a ready event: OK or its code, with its message (owned by it). */
PJRT_Error_Code ref_event_status(PJRT_Event *event, const char **message);
bool ref_event_is_ready(PJRT_Event *event);
/* Runs fn(event, arg) when ready (immediately if already). Returns false when
 * out of memory (fn is then not called). */
bool ref_event_on_ready_internal(PJRT_Event *event, ref_event_fn fn, void *arg);

/* ------------------------------------------------------- client / device */

typedef enum { REF_PLATFORM_CPU = 0, REF_PLATFORM_XPU = 1 } ref_platform;

typedef enum { REF_MEMORY_DEVICE = 0, REF_MEMORY_PINNED_HOST = 1 } ref_memory_kind;

typedef struct ref_stream ref_stream;
typedef struct ref_memory ref_memory;
#define REF_MEMORY(handle) ((ref_memory *)(handle))
typedef struct ref_mem ref_mem;

struct ref_memory {
    PJRT_Memory base; /* first: the C API handle */
    PJRT_Client *client;
    PJRT_Device *device;
    int id;
    ref_memory_kind kind;
    const char *kind_name;
    char debug_string[96];
    char to_string[64];
    /* Accounting and the registry of live owned allocations (guarded by mu). */
    pthread_mutex_t mu;
    int64_t capacity; /* 0 = unlimited */
    int64_t bytes_in_use;
    int64_t peak_bytes_in_use;
    int64_t num_allocs;
    int64_t largest_alloc;
    ref_mem *live;                   /* doubly linked list of owned storage in this memory */
    struct ref_user_data *user_data; /* PJRT_Memory_FunctionTable user data */
    /* Recently freed large blocks kept for reuse, so repeated transfers do
     * not pay for fresh pages each time (a caching allocator, as device
     * runtimes have). Attributed to the process, not the client. */
    void *cache_data[REF_CACHE_BLOCKS];
    size_t cache_size[REF_CACHE_BLOCKS];
    size_t cache_count;
};

struct PJRT_DeviceDescription {
    PJRT_Device *device;
    int id;
    char kind[48];
    char debug_string[64];
    char to_string[64];
    PJRT_NamedValue attributes[2];
    size_t num_attributes;
};

struct PJRT_Device {
    PJRT_Client *client;
    int id;
    PJRT_DeviceDescription description;
    PJRT_Memory *memories[2]; /* [0] is the default memory */
    size_t num_memories;
    ref_stream *stream; /* xpu: the stream external ready events are placed on */
};

/* PJRT_Client.hold: references in the high half, live allocations
 * attributed to the client (buffers, storage, queued work) in the low half. */
#define REF_HOLD_REF ((uint64_t)1 << 32)
#define REF_HOLD_ALLOCS(hold) ((int64_t)((hold)&0xffffffffu))

struct PJRT_Client {
    /* What keeps the client alive: a reference (the creator's, until
     * PJRT_Client_Destroy) or any live allocation attributed to it. One
     * word, so that whichever goes last frees the client with one atomic
     * operation, and a buffer needs no reference of its own: its
     * allocation is counted anyway. */
    _Atomic uint64_t hold;
    PJRT_Client *alloc_prev, *alloc_next; /* the registry of ref_alloc.c */
    atomic_bool destroyed;
    ref_platform platform;
    const char *platform_name;
    int num_devices;
    PJRT_Device *devices[REF_MAX_DEVICES];
    PJRT_Memory *memories[2 * REF_MAX_DEVICES];
    size_t num_memories;
    /* xpu options */
    int64_t transfer_delay_us;
    int64_t device_memory_bytes;
    int64_t fail_transfer_every;
    atomic_llong transfer_count;
    /* every stream of this client, default and extra (guarded by streams_mu) */
    pthread_mutex_t streams_mu;
    ref_stream *streams;
};

/* One more / one less live allocation attributed to the client; the last
 * hold to go frees it (ref_alloc.c's counting). */
void ref_client_add_alloc(PJRT_Client *client);
void ref_client_drop_alloc(PJRT_Client *client);
void ref_client_release(PJRT_Client *client);
/* FAILED_PRECONDITION once PJRT_Client_Destroy was called. */
PJRT_Error *ref_check_alive(PJRT_Client *client, const char *fn);
/* Validates a device handle belongs to `client` (client may be NULL). */
PJRT_Error *ref_check_device(PJRT_Client *client, PJRT_Device *device, const char *fn);
PJRT_Error *ref_check_memory(PJRT_Client *client, ref_memory *memory, const char *fn);
/* Simulated transfer: sleeps transfer_delay_us and reports whether this
 * transfer is the injected fault (every fail_transfer_every-th). */
bool ref_client_transfer_faults(PJRT_Client *client);

/* ---------------------------------------------------------------- memory */

struct ref_mem {
    atomic_long refs;
    PJRT_Client *client;
    ref_memory *memory;
    void *data;
    size_t size;
    bool owned;                              /* plugin allocation, freed with the block */
    ref_mem *prev, *next;                    /* memory->live list, owned blocks only */
    void (*on_delete)(void *ptr, void *arg); /* views */
    void *on_delete_arg;
    PJRT_Event *release_event; /* zero-copy host buffers: done_with_host */
    /* Non-NULL for a view's storage, which lives inside the view's own
     * allocation (one allocation per view): releasing the last reference
     * releases the container's allocation instead of freeing this. */
    PJRT_Buffer *container;
};

/* Allocates `size` bytes of owned storage in `memory`; RESOURCE_EXHAUSTED
 * when the memory's capacity or the host runs out. */
PJRT_Error *ref_mem_alloc(ref_memory *memory, size_t size, ref_mem **out);
/* Wraps foreign storage; `release_event` (retained) completes at release. */
PJRT_Error *ref_mem_wrap(ref_memory *memory, void *data, size_t size,
                         void (*on_delete)(void *, void *), void *on_delete_arg,
                         PJRT_Event *release_event, ref_mem **out);
ref_mem *ref_mem_retain(ref_mem *mem);
void ref_mem_release(ref_mem *mem);
/* True if [ptr, ptr+size) lies inside a live owned allocation of `memory`. */
bool ref_memory_contains(ref_memory *memory, const void *ptr, size_t size);
/* The function table every PJRT_Memory starts with. */
extern const PJRT_Memory_FunctionTable ref_memory_vtable;
/* Runs the destructors of the memory's user data and frees it. */
void ref_memory_free_user_data(ref_memory *memory);
/* Host memory of `size` bytes for a transfer into `memory` (a staging
 * copy), from the memory's block cache when it holds a block of that size,
 * so that repeated transfers of one size reuse memory; NULL when out of
 * memory. ref_memory_block_give hands it back (to the cache or freed). */
void *ref_memory_block_take(ref_memory *memory, size_t size);
void ref_memory_block_give(ref_memory *memory, void *data, size_t size);

/* Frees the memory's cached blocks; returns how many there were. */
size_t ref_memory_flush_cache(ref_memory *memory);

/* --------------------------------------------------------------- buffers */

struct PJRT_Buffer {
    PJRT_Client *client;
    ref_memory *memory;
    PJRT_Buffer_Type type;
    size_t element_size;
    size_t num_dims;
    /* num_dims entries each, stored after the struct (dim_storage): a
     * buffer is one small allocation whatever the rank limit. */
    int64_t *dims;
    int64_t *minor_to_major;
    int64_t *strides; /* byte strides of the dense layout */
    size_t size;      /* bytes */
    /* Bits per element of a packed sub-byte type (element_type.h), else 0:
     * size is then the packed size, and element_size and strides describe
     * the host form, one element per byte. */
    unsigned packed_bits;
    PJRT_Event *ready;
    pthread_mutex_t mu;
    bool deleted;
    int64_t external_refs;
    ref_mem *mem;    /* the buffer's own reference; NULL once deleted */
    ref_mem *pinned; /* the reference held while external_refs > 0 */
    /* The allocation is freed when the handle is destroyed and, for a view,
     * its embedded storage (view_mem) is released too: 1 or 2 parts. */
    atomic_int parts;
    ref_mem view_mem;
    int64_t dim_storage[];
};

/* Shape of a buffer to create, validated by ref_shape_init. */
typedef struct ref_shape {
    PJRT_Buffer_Type type;
    size_t element_size;
    size_t num_dims;
    int64_t dims[REF_MAX_DIMS];
    int64_t minor_to_major[REF_MAX_DIMS];
    int64_t strides[REF_MAX_DIMS];
    size_t num_elements;
    size_t size;          /* bytes in device memory */
    unsigned packed_bits; /* see PJRT_Buffer.packed_bits */
} ref_shape;

/* Validates type and dims (fn names the entry point in messages) and sets a
 * dense layout: `layout` if given, else row-major. */
PJRT_Error *ref_shape_init(ref_shape *shape, const char *fn, PJRT_Buffer_Type type,
                           const int64_t *dims, size_t num_dims,
                           const PJRT_Buffer_MemoryLayout *layout);
/* Creates a buffer over `mem` (takes the reference) with `ready` (takes it). */
PJRT_Error *ref_buffer_new(ref_memory *memory, const ref_shape *shape, ref_mem *mem,
                           PJRT_Event *ready, PJRT_Buffer **out);
/* Creates a buffer over foreign memory at `data` (a view; the storage
 * object is part of the buffer's allocation) with `ready` (takes it). */
PJRT_Error *ref_buffer_new_view(ref_memory *memory, const ref_shape *shape, void *data,
                                PJRT_Event *ready, PJRT_Buffer **out);
/* Drops one part of the buffer's allocation (see PJRT_Buffer.parts). */
void ref_buffer_release_part(PJRT_Buffer *buffer);
/* Returns a new reference to the buffer's storage, or FAILED_PRECONDITION if
 * the buffer was deleted. */
PJRT_Error *ref_buffer_acquire(PJRT_Buffer *buffer, const char *fn, ref_mem **out);
bool ref_buffer_is_deleted(PJRT_Buffer *buffer);
/* FAILED_PRECONDITION ("<fn>: the buffer has been deleted ...") if `b` was
 * deleted, else NULL. */
PJRT_Error *ref_check_not_deleted(PJRT_Buffer *b, const char *fn);
/* Resolves the target memory of a creation call: `memory` if given (it must
 * belong to `device` when both are), else the device's default memory. */
PJRT_Error *ref_resolve_memory(PJRT_Client *client, PJRT_Device *device, ref_memory *memory,
                               const char *fn, ref_memory **out);

/* ---------------------------------------------------------------- layout */

/* Size in bytes of an element type on the host: 1 for a sub-byte type (one
 * element per byte); errors for invalid types and those without data. */
PJRT_Error *ref_type_size(PJRT_Buffer_Type type, const char *fn, size_t *size);
const char *ref_type_name(PJRT_Buffer_Type type);
/* Converts a requested layout into a dense minor_to_major order. */
PJRT_Error *ref_layout_parse(const PJRT_Buffer_MemoryLayout *layout, const char *fn,
                             const int64_t *dims, size_t num_dims, size_t element_size,
                             int64_t *minor_to_major);
/* Byte strides of the dense layout `minor_to_major`. */
void ref_dense_strides(const int64_t *dims, size_t num_dims, size_t element_size,
                       const int64_t *minor_to_major, int64_t *strides);
/* Whether the bytes [base + lo, base + hi) (lo <= 0 <= hi) lie inside the
 * address space, worked out in integers: a pointer formed past its end is
 * undefined behaviour, so none is formed before this holds. */
static inline bool ref_span_fits(const void *base, int64_t lo, int64_t hi) {
    uintptr_t b = (uintptr_t)base, end;
    return (uintptr_t)0 - (uintptr_t)lo <= b && !__builtin_add_overflow(b, (uintptr_t)hi, &end);
}
/* Smallest and largest byte offset touched by an array with these strides
 * (for a non-empty array); INVALID_ARGUMENT on overflow, and when `base`
 * (NULL: not checked) plus those offsets would leave the address space. */
PJRT_Error *ref_strides_span(const void *base, const int64_t *dims, size_t num_dims,
                             size_t element_size, const int64_t *strides, const char *fn,
                             int64_t *min_offset, int64_t *max_offset);
/* True if distinct indices map to disjoint bytes. */
bool ref_strides_disjoint(const int64_t *dims, size_t num_dims, size_t element_size,
                          const int64_t *strides);
/* Copies every element from src (with src byte strides) to dst. */
void ref_strided_copy(char *dst, const int64_t *dst_strides, const char *src,
                      const int64_t *src_strides, const int64_t *dims, size_t num_dims,
                      size_t element_size);

/* ---------------------------------------------------------------- stream */

/* A unit of work on a stream. The worker waits for `wait` (if set), then calls
 * run(op, status) where status is the wait's outcome; run must free the op. */
typedef struct ref_op ref_op;
struct ref_op {
    ref_op *next;
    PJRT_Event *wait;
    void (*run)(ref_op *op, PJRT_Error_Code status, const char *message);
};

struct ref_stream {
    ref_stream *next_in_client;
    ref_stream *next_global;
    bool is_default; /* the device's stream; extra streams come from the test extension */
    bool exited;     /* the worker has returned */
    uint64_t enqueued, completed;
    PJRT_Device *device;
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    ref_op *head, *tail;
    int64_t pending; /* queued or running ops */
    bool stop;
    /* sticky error: the first failed wait since the last synchronize */
    PJRT_Error_Code error_code;
    char error_message[256];
};

/* Starts a stream worker for `device`; registers it with the client. */
PJRT_Error *ref_stream_create(PJRT_Device *device, ref_stream **out);
/* Queues `op` (takes ownership). */
void ref_stream_enqueue(ref_stream *stream, ref_op *op);
/* Waits until every op queued so far has run. */
void ref_stream_drain(ref_stream *stream);
/* Drains, stops and joins every stream of the client, then frees them. */
void ref_client_stop_streams(PJRT_Client *client);
/* Finds a live stream of any client by handle; INVALID_ARGUMENT if unknown. */
PJRT_Error *ref_stream_lookup(intptr_t handle, const char *fn, ref_stream **out);
/* Records the sticky error (first one wins). */
void ref_stream_set_error(ref_stream *stream, PJRT_Error_Code code, const char *message);
/* Destroys an extra stream created through the test extension. */
PJRT_Error *ref_stream_destroy_extra(ref_stream *stream);
bool ref_on_stream_thread(PJRT_Client *client);

/* ------------------------------------------------------ API entry points */

/* The PJRT_Api slots the plugin implements, X(name) each, grouped by the file
 * that defines ref_<name>. ref_api.c gives every other slot of the table
 * (PJDL_PJRT_API_FOREACH_SLOT) a stub that returns UNIMPLEMENTED. (Not
 * clang-formatted: it would not keep several entries on a line.) */
/* clang-format off */
#define REF_IMPLEMENTED_SLOTS(X)                                                                   \
    /* ref_error.c */                                                                              \
    X(PJRT_Error_Destroy) X(PJRT_Error_Message) X(PJRT_Error_GetCode) X(PJRT_Error_ForEachPayload) \
    /* ref_api.c */                                                                                \
    X(PJRT_Plugin_Initialize) X(PJRT_Plugin_Attributes)                                            \
    /* ref_event.c */                                                                              \
    X(PJRT_Event_Destroy) X(PJRT_Event_IsReady) X(PJRT_Event_Error) X(PJRT_Event_Await)            \
    X(PJRT_Event_OnReady) X(PJRT_Event_Create) X(PJRT_Event_Set)                                   \
    /* ref_client.c */                                                                             \
    X(PJRT_Client_Create) X(PJRT_Client_Destroy) X(PJRT_Client_PlatformName)                       \
    X(PJRT_Client_ProcessIndex) X(PJRT_Client_PlatformVersion) X(PJRT_Client_Devices)              \
    X(PJRT_Client_AddressableDevices) X(PJRT_Client_LookupDevice)                                  \
    X(PJRT_Client_LookupAddressableDevice) X(PJRT_Client_AddressableMemories)                      \
    X(PJRT_Client_Compile)                                                                         \
    /* ref_device.c */                                                                             \
    X(PJRT_DeviceDescription_Id) X(PJRT_DeviceDescription_ProcessIndex)                            \
    X(PJRT_DeviceDescription_Attributes) X(PJRT_DeviceDescription_Kind)                            \
    X(PJRT_DeviceDescription_DebugString) X(PJRT_DeviceDescription_ToString)                       \
    X(PJRT_Device_GetDescription) X(PJRT_Device_IsAddressable) X(PJRT_Device_LocalHardwareId)      \
    X(PJRT_Device_AddressableMemories) X(PJRT_Device_DefaultMemory) X(PJRT_Device_MemoryStats)     \
    X(PJRT_Device_GetAttributes) X(PJRT_Device_ClearMemoryStats)                                   \
    /* ref_memory.c */                                                                             \
    X(PJRT_Memory_Id) X(PJRT_Memory_Kind) X(PJRT_Memory_Kind_Id) X(PJRT_Memory_DebugString)        \
    X(PJRT_Memory_ToString) X(PJRT_Memory_AddressableByDevices)                                    \
    /* ref_buffer.c */                                                                             \
    X(PJRT_Client_CreateUninitializedBuffer) X(PJRT_Buffer_Destroy) X(PJRT_Buffer_ElementType)     \
    X(PJRT_Buffer_Dimensions) X(PJRT_Buffer_UnpaddedDimensions)                                    \
    X(PJRT_Buffer_DynamicDimensionIndices) X(PJRT_Buffer_GetMemoryLayout)                          \
    X(PJRT_Buffer_OnDeviceSizeInBytes) X(PJRT_Buffer_Device) X(PJRT_Buffer_Memory)                 \
    X(PJRT_Buffer_Delete) X(PJRT_Buffer_IsDeleted) X(PJRT_Buffer_IsOnCpu)                          \
    X(PJRT_Buffer_ReadyEvent) X(PJRT_Buffer_UnsafePointer)                                         \
    X(PJRT_Buffer_IncreaseExternalReferenceCount) X(PJRT_Buffer_DecreaseExternalReferenceCount)    \
    X(PJRT_Buffer_OpaqueDeviceMemoryDataPointer)                                                   \
    /* ref_transfer.c */                                                                           \
    X(PJRT_Client_BufferFromHostBuffer) X(PJRT_Buffer_CopyToDevice) X(PJRT_Buffer_CopyToMemory)    \
    X(PJRT_Buffer_ToHostBuffer) X(PJRT_Buffer_CopyRawToHost)                                       \
    /* ref_view.c */                                                                               \
    X(PJRT_Client_CreateViewOfDeviceBuffer)
/* clang-format on */

/* Each with the slot's own function type: `PJRT_Event_IsReady ref_PJRT_Event_IsReady;`. */
#define REF_DECLARE_ENTRY(name) name ref_##name;
REF_IMPLEMENTED_SLOTS(REF_DECLARE_ENTRY)
#undef REF_DECLARE_ENTRY

/* The extension chain: the stream extension, then the test extension. */
PJRT_Extension_Base *ref_extension_chain(void);

#endif
