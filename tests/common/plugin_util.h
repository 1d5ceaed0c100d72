/*
 * Helpers for the tests of the reference PJRT plugin: they load
 * libpjrt_ref.so with dlopen from $PJRT_REF_PLUGIN, exactly as a user would,
 * and wrap the most common calls. Every helper fails the current cmocka test
 * on an unexpected error. The calls themselves are the command's direct PJRT
 * layer (tools/raw.c, compiled into each test); these are thin veneers that
 * fail the test, or return a pu_result for the test to judge.
 */
#ifndef PJDL_TESTS_PLUGIN_UTIL_H
#define PJDL_TESTS_PLUGIN_UTIL_H

#include <dlfcn.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "pjrt_dlpack/pjrt_abi.h"
#include "pjrt_ref_ext.h"
#include "raw.h"

/* The plugin's table, loaded once per test process. */
static const PJRT_Api *pu_api;
static const PJRT_Ref_Extension *pu_ext;
static const PJRT_Stream_Extension *pu_stream_ext;
static void *pu_handle;

/* Uses `api`, a table already loaded (by the library, for a test that has
 * one), and finds its extensions; pu_load calls it for the table it loads. */
static inline const PJRT_Api *pu_use(const PJRT_Api *api) {
    pu_api = api;
    pu_ext = NULL;
    pu_stream_ext = NULL;
    for (PJRT_Extension_Base *e = api->extension_start; e != NULL; e = e->next) {
        if (e->type == PJRT_REF_EXTENSION_TYPE)
            pu_ext = (const PJRT_Ref_Extension *)e;
        if (e->type == PJRT_Extension_Type_Stream)
            pu_stream_ext = (const PJRT_Stream_Extension *)e;
    }
    return api;
}

static inline const PJRT_Api *pu_load(void) {
    if (pu_api != NULL)
        return pu_api;
    const char *path = getenv("PJRT_REF_PLUGIN");
    if (path == NULL) {
        fprintf(stderr, "PJRT_REF_PLUGIN is not set\n");
        abort();
    }
    void *handle = pu_handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (handle == NULL) {
        fprintf(stderr, "dlopen %s: %s\n", path, dlerror());
        abort();
    }
    const PJRT_Api *(*get)(void) = (const PJRT_Api *(*)(void))dlsym(handle, "GetPjrtApi");
    if (get == NULL) {
        fprintf(stderr, "GetPjrtApi not found in %s\n", path);
        abort();
    }
    return pu_use(get());
}

/* Closes the plugin (so valgrind sees no loader allocations left). */
static inline void pu_unload(void) {
    if (pu_handle != NULL)
        dlclose(pu_handle);
    pu_handle = NULL;
    pu_api = NULL;
    pu_ext = NULL;
    pu_stream_ext = NULL;
}

/* ------------------------------------------------------------------ errors */

/* A call's outcome: its code (PJDL_OK, or PJRT's error code) and message. */
typedef struct pu_result {
    pjdl_code code;
    char msg[512];
} pu_result;

/* Stores in pu_result `r` the outcome of tools/raw.h's `fn` called on
 * pu_api with the arguments given, then r's message buffer. */
#define PU_RAW(r, fn, ...) ((r).code = fn(pu_api, __VA_ARGS__, (r).msg, sizeof(r).msg))

/* Takes (reads and destroys) a PJRT_Error; NULL is PJDL_OK. */
static inline pu_result pu_take(PJRT_Error *err) {
    pu_result r;
    PU_RAW(r, raw_take_error, err);
    return r;
}

static inline pu_result pu_result_same(pu_result r) {
    return r;
}

/* The pu_result of `e`: a pu_result already, or a PJRT_Error * taken. */
#define PU_RESULT(e) _Generic((e), pu_result : pu_result_same, default : pu_take)(e)

/* Fails the test with the message unless `expr` (a PJRT_Error * or a
 * pu_result) succeeded. */
#define PU_OK(expr)                                                                                \
    do {                                                                                           \
        pu_result pu_r_ = PU_RESULT(expr);                                                         \
        if (pu_r_.code != PJDL_OK)                                                                 \
            fail_msg("%s failed: %s", #expr, pu_r_.msg);                                           \
    } while (0)

/* Asserts that `expr` (a PJRT_Error * or a pu_result) failed with code `want`
 * and a message containing `needle`. */
#define PU_EXPECT_ERROR(expr, want, needle)                                                        \
    do {                                                                                           \
        pu_result pu_r_ = PU_RESULT(expr);                                                         \
        if (pu_r_.code == PJDL_OK)                                                                 \
            fail_msg("%s succeeded; expected error code %d", #expr, (int)(want));                  \
        if ((int)pu_r_.code != (int)(want))                                                        \
            fail_msg("%s: code %d, expected %d (%s)", #expr, (int)pu_r_.code, (int)(want),         \
                     pu_r_.msg);                                                                   \
        if (strstr(pu_r_.msg, (needle)) == NULL)                                                   \
            fail_msg("%s: message '%s' does not contain '%s'", #expr, pu_r_.msg, (needle));        \
    } while (0)

/* ------------------------------------------------------------------ client */

static inline PJRT_NamedValue pu_opt_string(const char *name, const char *value) {
    PJRT_NamedValue v = {.struct_size = PJRT_NamedValue_STRUCT_SIZE,
                         .name = name,
                         .name_size = strlen(name),
                         .type = PJRT_NamedValue_kString,
                         .string_value = value,
                         .value_size = strlen(value)};
    return v;
}

static inline PJRT_NamedValue pu_opt_int(const char *name, int64_t value) {
    PJRT_NamedValue v = {.struct_size = PJRT_NamedValue_STRUCT_SIZE,
                         .name = name,
                         .name_size = strlen(name),
                         .type = PJRT_NamedValue_kInt64,
                         .int64_value = value,
                         .value_size = 1};
    return v;
}

static inline pu_result pu_try_client(const PJRT_NamedValue *opts, size_t n, PJRT_Client **out) {
    pu_result r;
    r.code = raw_client_create(pu_load(), opts, n, out, r.msg, sizeof r.msg);
    return r;
}

static inline PJRT_Client *pu_client(const PJRT_NamedValue *opts, size_t n) {
    PJRT_Client *c = NULL;
    PU_OK(pu_try_client(opts, n, &c));
    assert_non_null(c);
    return c;
}

static inline PJRT_Client *pu_cpu_client(void) {
    PJRT_NamedValue o = pu_opt_string("platform", "cpu");
    return pu_client(&o, 1);
}

static inline PJRT_Client *pu_xpu_client(int64_t delay_us) {
    PJRT_NamedValue o[2] = {pu_opt_string("platform", "xpu"),
                            pu_opt_int("transfer_delay_us", delay_us)};
    return pu_client(o, 2);
}

static inline int64_t pu_live(PJRT_Client *client) {
    PJRT_Ref_LiveAllocations_Args a = {.struct_size = PJRT_Ref_LiveAllocations_Args_STRUCT_SIZE,
                                       .client = client};
    PU_OK(pu_ext->live_allocations(&a));
    return a.client_allocations;
}

static inline int64_t pu_live_process(void) {
    PJRT_Ref_LiveAllocations_Args a = {.struct_size = PJRT_Ref_LiveAllocations_Args_STRUCT_SIZE};
    PU_OK(pu_ext->live_allocations(&a));
    return a.process_allocations;
}

/* Makes the plugin's nth allocation from now on fail (0: none); returns how
 * many allocations it made since the previous call. */
static inline int64_t pu_fail_allocation(int64_t nth) {
    PJRT_Ref_FailAllocation_Args a = {.struct_size = PJRT_Ref_FailAllocation_Args_STRUCT_SIZE,
                                      .nth = nth};
    PU_OK(pu_ext->fail_allocation(&a));
    return a.allocations_since_last;
}

/* Destroys a client after asserting none of its buffers leaked. */
static inline void pu_destroy_client(PJRT_Client *client) {
    assert_int_equal(pu_live(client), 0);
    pu_result r;
    PU_RAW(r, raw_client_destroy, client);
    PU_OK(r);
}

/* The client's (addressable) device i. */
static inline PJRT_Device *pu_device(PJRT_Client *client, size_t i) {
    PJRT_Device *d = NULL;
    pu_result r;
    PU_RAW(r, raw_client_device, client, i, &d);
    PU_OK(r);
    return d;
}

/* The memory of `device` whose kind is `kind`. */
static inline PJRT_Memory *pu_memory(PJRT_Device *device, const char *kind) {
    PJRT_Device_AddressableMemories_Args a = {
        .struct_size = PJRT_Device_AddressableMemories_Args_STRUCT_SIZE, .device = device};
    PU_OK(pu_api->PJRT_Device_AddressableMemories(&a));
    for (size_t i = 0; i < a.num_memories; i++) {
        PJRT_Memory_Kind_Args k = {.struct_size = PJRT_Memory_Kind_Args_STRUCT_SIZE,
                                   .memory = a.memories[i]};
        PU_OK(pu_api->PJRT_Memory_Kind(&k));
        if (k.kind_size == strlen(kind) && memcmp(k.kind, kind, k.kind_size) == 0)
            return a.memories[i];
    }
    fail_msg("no memory of kind %s", kind);
    return NULL;
}

/* ----------------------------------------------------------------- buffers */

static inline PJRT_Client_BufferFromHostBuffer_Args pu_h2d_args(PJRT_Client *client,
                                                                const void *data,
                                                                PJRT_Buffer_Type type,
                                                                const int64_t *dims, size_t n) {
    PJRT_Client_BufferFromHostBuffer_Args a = {
        .struct_size = PJRT_Client_BufferFromHostBuffer_Args_STRUCT_SIZE,
        .client = client,
        .data = data,
        .type = type,
        .dims = dims,
        .num_dims = n,
        .host_buffer_semantics = PJRT_HostBufferSemantics_kImmutableOnlyDuringCall,
        .device = pu_device(client, 0)};
    return a;
}

static inline void pu_destroy_event(PJRT_Event *e) {
    pu_result r;
    PU_RAW(r, raw_event_destroy, e);
    PU_OK(r);
}

static inline pu_result pu_await(PJRT_Event *e) {
    pu_result r;
    PU_RAW(r, raw_event_await, e);
    return r;
}

static inline bool pu_is_ready(PJRT_Event *e) {
    bool ready = false;
    pu_result r;
    PU_RAW(r, raw_event_is_ready, e, &ready);
    PU_OK(r);
    return ready;
}

/* Finishes an asynchronous call: returns the call's error `err`, or else
 * awaits the event it returned in *event (read after the call), destroys it
 * and returns the event's error. */
static inline pu_result pu_finish(PJRT_Error *err, PJRT_Event *const *event) {
    pu_result r = pu_take(err);
    if (r.code != PJDL_OK)
        return r;
    assert_non_null(*event);
    PU_RAW(r, raw_event_finish, *event);
    return r;
}

/* Runs a BufferFromHostBuffer call, awaits and frees its done event; the
 * buffer may not be ready yet (xpu). */
static inline PJRT_Buffer *pu_h2d_async(PJRT_Client_BufferFromHostBuffer_Args *a) {
    pu_result r;
    PU_RAW(r, raw_buffer_from_host, a);
    PU_OK(r);
    assert_non_null(a->buffer);
    assert_non_null(a->done_with_host_buffer); /* already destroyed */
    return a->buffer;
}

/* Like pu_h2d_async, then waits until the buffer is ready. */
static inline PJRT_Buffer *pu_h2d(PJRT_Client_BufferFromHostBuffer_Args *a) {
    PJRT_Buffer *b = pu_h2d_async(a);
    pu_result r;
    PU_RAW(r, raw_buffer_await, b);
    PU_OK(r);
    return b;
}

/* A row-major f32 buffer on device 0 of `client`. */
static inline PJRT_Buffer *pu_f32(PJRT_Client *client, const float *data, const int64_t *dims,
                                  size_t n) {
    PJRT_Client_BufferFromHostBuffer_Args a =
        pu_h2d_args(client, data, PJRT_Buffer_Type_F32, dims, n);
    return pu_h2d(&a);
}

static inline void pu_destroy_buffer(PJRT_Buffer *b) {
    pjdl_code rc = raw_buffer_destroy(pu_api, b);
    if (rc != PJDL_OK)
        fail_msg("PJRT_Buffer_Destroy failed: code %d", (int)rc);
}

/* The calls on one buffer whose outcome the test judges. */
static inline pu_result pu_delete_buffer(PJRT_Buffer *b) {
    pu_result r;
    PU_RAW(r, raw_buffer_delete, b);
    return r;
}

static inline pu_result pu_pin(PJRT_Buffer *b) {
    pu_result r;
    PU_RAW(r, raw_buffer_increase, b);
    return r;
}

static inline pu_result pu_unpin(PJRT_Buffer *b) {
    pu_result r;
    PU_RAW(r, raw_buffer_decrease, b);
    return r;
}

/* The calls on one buffer that must succeed: their result. */
#define PU_BUFFER_QUERY(name, type, raw_fn)                                                        \
    static inline type name(PJRT_Buffer *b) {                                                      \
        type out = NULL;                                                                           \
        pu_result r;                                                                               \
        PU_RAW(r, raw_fn, b, &out);                                                                \
        PU_OK(r);                                                                                  \
        return out;                                                                                \
    }
PU_BUFFER_QUERY(pu_pointer, void *, raw_buffer_opaque_pointer)
PU_BUFFER_QUERY(pu_buffer_device, PJRT_Device *, raw_buffer_device)
PU_BUFFER_QUERY(pu_ready_event, PJRT_Event *, raw_buffer_ready_event)
#undef PU_BUFFER_QUERY

/* Awaits a buffer's ready event (getting and destroying it must succeed);
 * returns the event's outcome. */
static inline pu_result pu_buffer_await(PJRT_Buffer *b) {
    PJRT_Event *e = pu_ready_event(b);
    pu_result r = pu_await(e);
    pu_destroy_event(e);
    return r;
}

/* Copies a buffer to host with an optional host layout; returns the
 * outcome of the call and of its event. */
static inline pu_result pu_to_host(PJRT_Buffer *b, void *dst, size_t size,
                                   PJRT_Buffer_MemoryLayout *layout) {
    PJRT_Buffer_ToHostBuffer_Args a = {
        .src = b, .host_layout = layout, .dst = dst, .dst_size = size};
    pu_result r;
    PU_RAW(r, raw_buffer_to_host, &a);
    return r;
}

/* A layout of `n` entries: minor_to_major (type Tiled, no tiles) or byte
 * strides (type Strides). */
static inline PJRT_Buffer_MemoryLayout pu_layout(PJRT_Buffer_MemoryLayout_Type type,
                                                 const int64_t *entries, size_t n) {
    PJRT_Buffer_MemoryLayout l = {.struct_size = PJRT_Buffer_MemoryLayout_STRUCT_SIZE,
                                  .type = type};
    if (type == PJRT_Buffer_MemoryLayout_Type_Tiled) {
        l.tiled.struct_size = PJRT_Buffer_MemoryLayout_Tiled_STRUCT_SIZE;
        l.tiled.minor_to_major = entries;
        l.tiled.minor_to_major_size = n;
    } else {
        l.strides.struct_size = PJRT_Buffer_MemoryLayout_Strides_STRUCT_SIZE;
        l.strides.byte_strides = entries;
        l.strides.num_byte_strides = n;
    }
    return l;
}

static inline PJRT_Buffer_MemoryLayout pu_tiled(const int64_t *minor_to_major, size_t n) {
    return pu_layout(PJRT_Buffer_MemoryLayout_Type_Tiled, minor_to_major, n);
}

static inline PJRT_Buffer_MemoryLayout pu_strided(const int64_t *byte_strides, size_t n) {
    return pu_layout(PJRT_Buffer_MemoryLayout_Type_Strides, byte_strides, n);
}

/* A view with an on_delete counter. */
static inline void pu_count_delete(void *ptr, void *arg) {
    (void)ptr;
    __atomic_fetch_add((int *)arg, 1, __ATOMIC_SEQ_CST);
}

static inline void pu_no_delete(void *ptr, void *arg) {
    (void)ptr;
    (void)arg;
}

/* A view of `ptr`; `deleted` (may be NULL) counts on_delete_callback calls. */
static inline PJRT_Client_CreateViewOfDeviceBuffer_Args pu_view_args(PJRT_Client *client, void *ptr,
                                                                     PJRT_Buffer_Type type,
                                                                     const int64_t *dims, size_t n,
                                                                     int *deleted) {
    PJRT_Client_CreateViewOfDeviceBuffer_Args a = {
        .struct_size = PJRT_Client_CreateViewOfDeviceBuffer_Args_STRUCT_SIZE,
        .client = client,
        .device_buffer_ptr = ptr,
        .dims = dims,
        .num_dims = n,
        .element_type = type,
        .device = pu_device(client, 0),
        .on_delete_callback = deleted ? pu_count_delete : pu_no_delete,
        .on_delete_callback_arg = deleted};
    return a;
}

/* ------------------------------------------------------------------ main */

/* Two cmocka tests of `f`, one per platform of the reference plugin: *state
 * is the platform's name, "cpu" or "xpu". */
#define PU_PLATFORM_TEST(f, platform)                                                              \
    { #f "(" platform ")", f, NULL, NULL, (void *)platform }
#define PU_PER_PLATFORM_TESTS(f) PU_PLATFORM_TEST(f, "cpu"), PU_PLATFORM_TEST(f, "xpu")

/* The client a test group shares (see pu_run_tests), and whether the group
 * teardown destroyed it cleanly (cmocka 1.1 does not fail a run whose group
 * fixture failed). */
static PJRT_Client **pu_shared_client;
static bool pu_shared_clean;

static inline int pu_shared_setup(void **state) {
    (void)state;
    PJRT_NamedValue o[2] = {pu_opt_string("platform", "cpu"), pu_opt_int("num_devices", 2)};
    *pu_shared_client = pu_client(o, 2);
    return 0;
}

static inline int pu_shared_teardown(void **state) {
    (void)state;
    pu_destroy_client(*pu_shared_client);
    *pu_shared_client = NULL;
    pu_shared_clean = true;
    return 0;
}

/* The main of a plugin test: loads the plugin, runs `tests` as one group and
 * unloads it. Unless `shared` is NULL the group shares *shared, a cpu client
 * with two devices made before the first test and destroyed after the last;
 * the run fails if a buffer of it leaked. */
static inline int pu_run_tests(const char *name, const struct CMUnitTest *tests, size_t n,
                               PJRT_Client **shared) {
    pu_load();
    pu_shared_client = shared;
    pu_shared_clean = false;
    int rc = _cmocka_run_group_tests(name, tests, n, shared ? pu_shared_setup : NULL,
                                     shared ? pu_shared_teardown : NULL);
    pu_unload();
    if (rc == 0 && shared != NULL && !pu_shared_clean) {
        fprintf(stderr, "%s: the shared client's setup or teardown failed\n", name);
        rc = 1;
    }
    return rc;
}

#define PU_RUN_TESTS(tests, shared)                                                                \
    pu_run_tests(#tests, tests, sizeof(tests) / sizeof((tests)[0]), shared)

#endif
