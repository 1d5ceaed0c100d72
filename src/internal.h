/* The library's internal objects and the helpers shared between its files. */
#ifndef PJDL_SRC_INTERNAL_H_
#define PJDL_SRC_INTERNAL_H_

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "error.h"
#include "layout.h"
#include "pjrt_dlpack.h"

/* ------------------------------------------------------------------ plugin */

struct pjdl_plugin {
    atomic_long refs;
    const PJRT_Api *api;
    void *handle; /* dlopen handle; NULL for pjdl_plugin_from_api */
    char *path;   /* what was dlopen()ed; NULL for pjdl_plugin_from_api */
    int major, minor;
    /* The table has PJRT_Client_CreateViewOfDeviceBuffer and
     * PJRT_Buffer_Destroy: read once (plugin.c), since a PJRT_Api table does
     * not change, so that a view import and its release read the table only
     * for the entry points they call. */
    bool views;
    /* Bit t set: element type t is in the plugin's ABI (minor), so it may
     * be handed to the plugin. Older plugins crash on a newer type instead
     * of refusing it (XLA's of 0.106 on F6E2M3FN, of 0.81 on S1). */
    uint64_t types;
};

/* Makes a plugin of a dlopen()ed library (plugin.c); takes handle and path. */
pjdl_code pjdl__plugin_open(void *handle, char *path, const PJRT_Api *api, pjdl_plugin **out);

/* When `path` is a library for another system (a Windows DLL, a macOS
 * Mach-O library), says which, for which CPU, and the PJRT entry symbol it
 * exports, into out ("it is a Windows DLL for ARM64, not a library for
 * this system (Linux x86-64); it exports GetPjRtApi instead of
 * GetPjrtApi"); false for any other file (foreign.c). */
bool pjdl__describe_foreign(const char *path, char *out, size_t size);
#if defined(__x86_64__)
#define PJDL_THIS_SYSTEM "Linux x86-64"
#elif defined(__aarch64__)
#define PJDL_THIS_SYSTEM "Linux ARM64"
#else
#define PJDL_THIS_SYSTEM "this CPU's Linux"
#endif

/* Whether the plugin's table holds a non-NULL slot at byte `offset`.
 * Inline: the hot paths ask it for every call into the plugin. */
static inline bool pjdl__slot_present(const PJRT_Api *api, size_t offset) {
    if (api == NULL || offset + sizeof(void (*)(void)) > api->struct_size)
        return false;
    void (*fn)(void);
    memcpy(&fn, (const char *)api + offset, sizeof fn);
    return fn != NULL;
}

/* Whether element type `type` may be handed to the plugin (its ABI has it). */
static inline bool pjdl__plugin_has_type(const pjdl_plugin *plugin, PJRT_Buffer_Type type) {
    return (unsigned)type < 64 && (plugin->types >> (unsigned)type & 1) != 0;
}

/* UNIMPLEMENTED naming the type, its first ABI version and the plugin's
 * (the type is not in the plugin's ABI: pjdl__plugin_has_type). */
pjdl_code pjdl__type_too_new(const pjdl_plugin *plugin, PJRT_Buffer_Type type);

/* PJDL_OK when `type` may be handed to the plugin, else pjdl__type_too_new. */
#define PJDL_NEED_TYPE(plugin, type)                                                               \
    (pjdl__plugin_has_type((plugin), (type)) ? PJDL_OK : pjdl__type_too_new((plugin), (type)))

/* OK when the slot is present, else UNIMPLEMENTED naming it. */
pjdl_code pjdl__need_slot(const pjdl_plugin *plugin, size_t offset, const char *name);

#define PJDL_HAS(plugin, slot) pjdl__slot_present((plugin)->api, offsetof(PJRT_Api, slot))
#define PJDL_NEED(plugin, slot)                                                                    \
    (PJDL_HAS(plugin, slot) ? PJDL_OK : pjdl__need_slot((plugin), offsetof(PJRT_Api, slot), #slot))

/* Around PJRT_Client_Create (ur_adapters.c): when a Unified Runtime
 * adapter of another folder than the loaded libur_loader.so.0's is already
 * in the process (another SYCL runtime, e.g. dpctl's), pin sets
 * UR_ADAPTERS_FORCE_LOAD to the loader's own adapters and returns true;
 * unpin(true) removes it. */
bool pjdl__ur_adapters_pin(void);
void pjdl__ur_adapters_unpin(bool pinned);

/* Converts a PJRT error into a pjdl_code and the thread's message (the
 * plugin's code and text), destroys it, and returns the code. NULL is OK. */
pjdl_code pjdl__take_error(const PJRT_Api *api, PJRT_Error *error);

/* The same, with "context: " put before the plugin's message unless the
 * message already starts so. */
pjdl_code pjdl__take_error_ctx(const PJRT_Api *api, PJRT_Error *error, const char *context);

/* The functions of the common view import and its release (and of nothing
 * colder), grouped by the linker in .text.hot (GCC's `hot`): with their
 * rare steps out of line (`cold`), their code spans fewer cache lines
 * between two calls of a large plugin, which evict each other's code
 * (bench/README.md, ninth look). */
#define PJDL_HOT __attribute__((hot))

/* Calls the plugin's entry point `slot` with `args` and converts its error
 * with the slot's name as context (the slot must be present: PJDL_NEED). */
#define PJDL_CALL(api, slot, args) pjdl__take_error_ctx((api), (api)->slot(args), #slot)

/* An object handed to a plugin callback, which may run on a plugin thread:
 * the plugin's own synchronization orders the callback after the call that
 * registered it, but a tool that cannot see inside an uninstrumented plugin
 * (ThreadSanitizer with XLA's) cannot. So every such object is published
 * through an atomic of its own: PJDL_PUBLISH (a release store) once it is
 * filled in, PJDL_RECEIVE (an acquire load) first thing in the callback. */
#define PJDL_PUBLISH(field, value) atomic_store_explicit(&(field), (value), memory_order_release)
#define PJDL_RECEIVE(field) ((void)atomic_load_explicit(&(field), memory_order_acquire))

/* Reads code and message of `error` into buf without touching the thread's
 * message, then destroys it. */
pjdl_code pjdl__error_read(const PJRT_Api *api, PJRT_Error *error, char *buf, size_t size);

/* Destroys an error without reporting it (for clean-up paths). */
void pjdl__drop_error(const PJRT_Api *api, PJRT_Error *error);

/* Destroys an event (NULL is fine); errors are dropped. */
void pjdl__event_destroy(const PJRT_Api *api, PJRT_Event *event);

/* Blocks until `event` is ready and returns its error (converted), or
 * DEADLINE_EXCEEDED after timeout_ms milliseconds (<= 0: no limit). Does not
 * destroy the event. */
pjdl_code pjdl__event_wait(const pjdl_plugin *plugin, PJRT_Event *event, int64_t timeout_ms);

/* Calls fn(arg, code) once `event` is ready, possibly on another thread or
 * before returning. On failure to register, returns the error and never calls
 * fn. Does not destroy the event. */
typedef void (*pjdl_event_fn)(void *arg, pjdl_code code);
pjdl_code pjdl__event_then(const pjdl_plugin *plugin, PJRT_Event *event, pjdl_event_fn fn,
                           void *arg);

/* Allocates with malloc, failing with RESOURCE_EXHAUSTED naming `what`. */
pjdl_code pjdl__alloc(size_t size, const char *what, void *out);
/* strndup that reports RESOURCE_EXHAUSTED. */
pjdl_code pjdl__strdup(const char *s, size_t len, char **out);
/* malloc / realloc (size 0 is 1): NULL when out of memory, no message. */
void *pjdl__malloc(size_t size);
void *pjdl__realloc(void *p, size_t size);

/* Test-only allocation-failure injection, not part of the public API (the
 * symbol is hidden in the shared library; tests link the static one). Every
 * allocation of the library goes through pjdl__alloc, pjdl__strdup,
 * pjdl__malloc, pjdl__realloc or pjdl__aligned_alloc; after this call the
 * `nth` of them (1-based, counted process-wide) fails once as if the host
 * were out of memory; 0 disables it. Returns how many allocations happened
 * since the previous call, so a test can walk nth over every allocation of a
 * scenario. */
long pjdl__test_fail_alloc_after(long nth);

/* ------------------------------------------------------------------ client */

struct pjdl_memory {
    pjdl_client *client;
    PJRT_Memory *memory;
    int id;
    char *kind;
    /* The memory's DLPack device type, cached by pjdl_device_dl:
     * (registry generation + 1) << 32 | type; 0 until computed. */
    _Atomic uint64_t dl_type_cache;
};

struct pjdl_device {
    pjdl_client *client;
    PJRT_Device *device;
    size_t index;
    int id;
    int local_hardware_id; /* -1 when unknown */
    char *kind;
    char *debug_string;
    size_t num_memories;
    pjdl_memory **memories; /* point into client->memories */
    pjdl_memory *default_memory;
};

struct pjdl_client {
    atomic_long refs;
    pjdl_plugin *plugin;
    PJRT_Client *client;
    bool owned;
    char *platform_name;
    char *platform_version;
    uint64_t platform_id;
    size_t num_devices;
    pjdl_device *devices;
    size_t num_memories;
    pjdl_memory *memories;
    _Atomic int64_t timeout_ms;
    /* pjdl__client_layout_trust's answer; 0 until asked. */
    atomic_int layout_trust;
};

/* Whether the plugin honours the layouts it is given (layout_trust.c: a
 * probe on the client, made the first time a caller asks): views made with
 * a permuted layout read back permuted (PJDL_TRUST_VIEW_LAYOUTS), buffers
 * made with a device layout hold it (PJDL_TRUST_DEVICE_LAYOUTS). Older XLA
 * CPU plugins do neither and report the layout they were asked for. */
#define PJDL_TRUST_VIEW_LAYOUTS 2u
#define PJDL_TRUST_DEVICE_LAYOUTS 4u
#define PJDL_TRUST_LAYOUTS (PJDL_TRUST_VIEW_LAYOUTS | PJDL_TRUST_DEVICE_LAYOUTS)
unsigned pjdl__client_layout_trust(pjdl_client *client);

/* The library's own client references (a buffer's, an executable's): a
 * direct call, where the public pjdl_client_retain / _release would go
 * through the PLT and check for NULL. */
static inline void pjdl__client_ref(pjdl_client *client) {
    atomic_fetch_add_explicit(&client->refs, 1, memory_order_relaxed);
}
void pjdl__client_unref(pjdl_client *client);

/* pjdl__keep_loaded (common/thread_stock.h) keeps the object the
 * library's code is in mapped until the process ends. Called before code of
 * ours is left to run later on its own (a thread-specific key's destructor,
 * a thread of ours): a dlclose of the library, or of a shared object it was
 * linked into statically, would otherwise unmap it first
 * (tests/lib/test_unload.c). */
#include "thread_stock.h"

static inline const PJRT_Api *pjdl__client_api(const pjdl_client *client) {
    return client->plugin->api;
}

/* The device_id of a DLDevice on `device` that is not host memory: its
 * local hardware id, else its index in the client. */
static inline int32_t pjdl__device_dl_id(const pjdl_device *device) {
    return device->local_hardware_id >= 0 ? device->local_hardware_id : (int32_t)device->index;
}

/* Fills the client's platform, devices and memories (client.c -> device.c). */
pjdl_code pjdl__client_read_topology(pjdl_client *client);
void pjdl__client_free_topology(pjdl_client *client);

/* Bracket the library's code run from a plugin's callback (possibly on a
 * plugin thread): a client whose last reference goes there is destroyed on a
 * thread of the library's own (client.c). enter returns the calling
 * thread's depth counter, which leave takes back: one thread-local lookup
 * per callback. */
int *pjdl__callback_enter(void);
void pjdl__callback_leave(int *depth);

/* The pjdl_device / pjdl_memory for a PJRT handle of this client, or NULL. */
pjdl_device *pjdl__client_lookup_device(const pjdl_client *client, const PJRT_Device *device);
pjdl_memory *pjdl__client_lookup_memory(const pjdl_client *client, const PJRT_Memory *memory);

/* The stream extension, or NULL. */
const PJRT_Stream_Extension *pjdl__stream_extension(const pjdl_plugin *plugin);

/* ------------------------------------------------------------------ buffer */

struct pjdl_buffer {
    /* User references in the low 32 bits, live zero-copy exports above
     * them (PJDL_EXPORT_REF each): one atomic counts both, and the buffer
     * goes when the sum reaches zero. */
    _Atomic int64_t refs;
    pjdl_client *client;
    PJRT_Buffer *buffer;
    pthread_mutex_t mu; /* serializes changes of the state flags below */
    /* Atomic so that a shared export can check them without taking mu;
     * they are only changed with mu held. */
    atomic_bool deleted;     /* pjdl_buffer_delete */
    atomic_bool transferred; /* a transfer-mode export */
    atomic_bool ready;       /* the ready event completed without error */
    /* Held around every Increase/DecreaseExternalReferenceCount call on this
     * buffer (export.c explains why). */
    atomic_bool pin_busy;
    /* The library holds one external reference of the PJRT buffer, taken by
     * the first zero-copy export and kept for the later ones (export.c). */
    atomic_bool pinned;
    PJRT_Buffer_Type type;
    size_t elem_size; /* 0 for sub-byte types */
    size_t size_bytes;
    pjdl_device *device;
    pjdl_memory *memory;
    /* The memory layout as DLPack element strides, or why it has none. */
    pjdl_code layout_code;
    /* The plugin reports a layout other than row-major and does not honour
     * the layouts it is given (pjdl__client_layout_trust): neither the
     * layout nor a host copy made through it can be trusted, so the buffer
     * is neither exported nor copied to the host (layout_error says why). */
    bool layout_untrusted;
    /* Made by a kImmutableUntilTransferCompletes transfer: unless known
     * ready, its readiness is awaited before PJRT_Buffer_Destroy
     * (pjdl__host_transfer_destroy). */
    bool settle;
    char *layout_error;
    size_t ndim;
    int64_t *dims;    /* ndim entries; points into the allocation */
    int64_t *strides; /* ndim entries, element strides */
    /* An imported view: the owner of the producer's tensor, in the same
     * allocation (import.h); NULL otherwise. */
    struct import_owner *view_owner;
    /* What every zero-copy export of this buffer hands out and cannot
     * change while the buffer is live: the data pointer and the DLPack
     * dtype, asked once (export.c explains why the pointer may be kept).
     * Written once with mu held, then export_known is set (release); read
     * without the lock after export_known is seen set (acquire). */
    atomic_bool export_known;
    void *export_data;
    DLDataType export_dtype;
    /* The block of the zero-copy export made while no other was live,
     * kept for the next such export (export.c, view_block); freed with the
     * buffer. Used only by that export, which the count in refs makes
     * exclusive: a plain pointer. */
    void *export_home;
    /* The buffer's DLDevice per registry generation (export.c, own_device);
     * 0 until computed. */
    _Atomic uint64_t export_device;
};

/* The first device of `client` whose memory has DLDevice `dl`, trying every
 * device's default memory first, then (unless default_only) their other
 * memories. *device and *memory may be NULL. No error is recorded. */
bool pjdl__client_find_dl_memory(const pjdl_client *client, DLDevice dl, bool default_only,
                                 pjdl_device **device, pjdl_memory **memory);
/* pjdl__client_find_dl_memory(client, dl, true, ...) for the common
 * import: the same answer, from the memories' cached types. */
bool pjdl__client_find_default_dl(const pjdl_client *client, DLDevice dl, pjdl_device **device,
                                  pjdl_memory **memory);

/* One live zero-copy export in pjdl_buffer.refs. */
#define PJDL_EXPORT_REF ((int64_t)1 << 32)

/* Drops the library's pin of the PJRT buffer if no export is live (export.c):
 * after pjdl_buffer_delete, and when the caller takes the PJRT handle. */
void pjdl__buffer_unpin_idle(pjdl_buffer *buffer);
/* Drops the pin of a buffer nobody references any more (export.c). */
void pjdl__buffer_unpin_final(pjdl_buffer *buffer);
/* Frees a buffer whose references are all gone: the pin, the PJRT buffer,
 * the client reference, the allocation (buffer.c). */
void pjdl__buffer_destroy(pjdl_buffer *buffer);

/* Wraps `pjrt` (which becomes owned on success only) reading its metadata. */
pjdl_code pjdl__buffer_adopt(pjdl_client *client, PJRT_Buffer *pjrt, pjdl_buffer **out);

/* A buffer for a view an import is about to create of a tensor with
 * exactly this layout (pjdl__tensor_check's, checked: shape, element size
 * and number, the dense order as PJRT minor_to_major), element type, device
 * and memory (NULL: the device's default). Its allocation holds the owner
 * of the producer's tensor (view_owner, for the view's release callback);
 * nothing is read back from the plugin. pjdl__buffer_view_created
 * completes it with the PJRT buffer; until then the owner's protocol
 * decides when it is freed (import.h). */
pjdl_code pjdl__buffer_new_view(pjdl_client *client, PJRT_Buffer_Type type,
                                const pjdl_layout *layout, pjdl_device *device, pjdl_memory *memory,
                                DLManagedTensorVersioned *versioned, DLManagedTensor *legacy,
                                pjdl_buffer **out);
/* The same block with every field but the dims and strides set (the caller
 * writes b->dims[i] and b->strides[i], ndim of each): NULL, with the
 * error set, when out of memory. */
pjdl_buffer *pjdl__buffer_view_block(pjdl_client *client, PJRT_Buffer_Type type, size_t elem_size,
                                     size_t size_bytes, size_t ndim, pjdl_device *device,
                                     pjdl_memory *memory, DLManagedTensorVersioned *versioned,
                                     DLManagedTensor *legacy);
void pjdl__buffer_view_created(pjdl_buffer *buffer, PJRT_Buffer *pjrt);
/* Frees the buffer's allocation (no PJRT or client work). */
void pjdl__buffer_free_block(pjdl_buffer *buffer);
/* The same for the thread that released the buffer: an imported view's
 * block may be kept for the thread's next view import (buffer.c). */
void pjdl__buffer_recycle_block(pjdl_buffer *buffer);

/* FAILED_PRECONDITION when the buffer was deleted or transferred. With
 * buffer->mu held the answer stays true until it is released; without it
 * (the flags are atomic) it is a snapshot, for callers that tolerate a
 * concurrent delete (a shared export: its pin then fails). */
/* The per-buffer lock of the calls that change a PJRT buffer's external
 * reference count and of its deletion (export.c explains why). */
void pjdl__buffer_pin_lock(pjdl_buffer *b);
void pjdl__buffer_pin_unlock(pjdl_buffer *b);
pjdl_code pjdl__buffer_check_live_locked(const pjdl_buffer *buffer);

/* Waits for the ready event unless known ready (honours the timeout). */
pjdl_code pjdl__buffer_wait_ready(pjdl_buffer *buffer);

/* The plugin's data pointer (OpaqueDeviceMemoryDataPointer, else
 * UnsafePointer), asked every time: pjdl_buffer_data_pointer without its
 * argument checks. Leaves the thread's error alone on success. */
pjdl_code pjdl__buffer_query_data(pjdl_buffer *buffer, void **out);

/* Copies the contents, compact row-major, into dst (size_bytes bytes), no
 * state checks. */
pjdl_code pjdl__buffer_read_host(pjdl_buffer *buffer, void *dst);

/* Host to device copy helper shared by pjdl_buffer_from_host and import:
 * `semantics` as PJRT defines; *done receives the done_with_host_buffer event
 * (may be NULL). byte_strides may be NULL. */
pjdl_code pjdl__host_to_device(pjdl_client *client, const void *data, PJRT_Buffer_Type type,
                               const int64_t *dims, size_t ndim, const int64_t *byte_strides,
                               pjdl_device *device, pjdl_memory *memory,
                               PJRT_HostBufferSemantics semantics, PJRT_Buffer **out,
                               PJRT_Event **done);

/* Destroys a PJRT buffer, errors dropped; with `settle`, first waits
 * (errors dropped) until it is ready: a buffer made by a
 * kImmutableUntilTransferCompletes transfer and not known ready. A plugin
 * may still be working on such a buffer after it is done with the host
 * memory (Intel's plugin schedules the device copy from a worker of XLA's
 * unbounded work queue then), and a client destroyed meanwhile deadlocks
 * in that queue's destructor (docs/plugins.md): every buffer goes before
 * its client, so none is then in flight. */
void pjdl__host_transfer_destroy(const pjdl_plugin *p, PJRT_Buffer *buffer, bool settle);

/* Destroys a PJRT buffer, dropping errors. */
void pjdl__pjrt_buffer_destroy(const PJRT_Api *api, PJRT_Buffer *buffer);

/* Copies `size` bytes starting at the options struct into a defaulted copy:
 * the common part of the export / import options handling. */
pjdl_code pjdl__copy_options(const void *options, size_t struct_size, size_t min_size, void *out,
                             size_t out_size, const char *what);

/* Aligned allocation for host copies of tensor data. 256 bytes: dlpack.h
 * asks a tensor's data pointer to be 256-byte aligned, and for memory the
 * library allocates itself keeping that costs nothing (docs/conformance.md). */
#define PJDL_DATA_ALIGNMENT 256
void *pjdl__aligned_alloc(size_t size);

#endif
