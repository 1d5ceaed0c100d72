/* Platform xpu: asynchronous transfers on per-device streams, the stream
 * extension, the test extension's consumer streams, device memory checks,
 * capacity, injected faults and many threads.
 *
 * Asynchrony is shown by test_transfer_completes_later: with a transfer
 * delay, a new buffer's ready event is not ready when BufferFromHostBuffer
 * returns and becomes ready later, on a stream thread. A synchronous plugin
 * fails it (and test_wait_orders_consumer_stream, whose host callback would
 * then not need the wait to see the data). */
#include <pthread.h>
#include <stdatomic.h>
#include <time.h>
#include <unistd.h>

#include "plugin_util.h"

#define DELAY_US 150000 /* long enough to observe "not ready yet" reliably */

static intptr_t default_stream(PJRT_Device *d) {
    PJRT_Get_Stream_For_External_Ready_Events_Args a = {
        .struct_size = PJRT_Get_Stream_For_External_Ready_Events_Args_STRUCT_SIZE, .device = d};
    PU_OK(pu_stream_ext->get_stream(&a));
    assert_true(a.stream != 0);
    return a.stream;
}

static PJRT_Error *wait_on(intptr_t stream, PJRT_Buffer *b) {
    PJRT_Wait_Until_Buffer_Ready_On_Stream_Args a = {
        .struct_size = PJRT_Wait_Until_Buffer_Ready_On_Stream_Args_STRUCT_SIZE,
        .stream = stream,
        .buffer = b};
    return pu_stream_ext->wait_stream(&a);
}

static intptr_t new_stream(PJRT_Device *d) {
    PJRT_Ref_CreateStream_Args a = {.struct_size = PJRT_Ref_CreateStream_Args_STRUCT_SIZE,
                                    .device = d};
    PU_OK(pu_ext->create_stream(&a));
    return a.stream;
}

static void destroy_stream(intptr_t s) {
    PJRT_Ref_DestroyStream_Args a = {.struct_size = PJRT_Ref_DestroyStream_Args_STRUCT_SIZE,
                                     .stream = s};
    PU_OK(pu_ext->destroy_stream(&a));
}

static PJRT_Error *host_callback(intptr_t s, PJRT_Ref_HostCallback fn, void *arg) {
    PJRT_Ref_EnqueueHostCallback_Args a = {.struct_size =
                                               PJRT_Ref_EnqueueHostCallback_Args_STRUCT_SIZE,
                                           .stream = s,
                                           .callback = fn,
                                           .user_arg = arg};
    return pu_ext->enqueue_host_callback(&a);
}

static PJRT_Error *synchronize(intptr_t s) {
    PJRT_Ref_SynchronizeStream_Args a = {.struct_size = PJRT_Ref_SynchronizeStream_Args_STRUCT_SIZE,
                                         .stream = s};
    return pu_ext->synchronize_stream(&a);
}

static PJRT_Client *xpu(int64_t delay, int64_t capacity, int64_t fail_every) {
    PJRT_NamedValue o[4] = {pu_opt_string("platform", "xpu"),
                            pu_opt_int("transfer_delay_us", delay)};
    size_t n = 2;
    if (capacity > 0)
        o[n++] = pu_opt_int("device_memory_bytes", capacity);
    if (fail_every > 0)
        o[n++] = pu_opt_int("fail_transfer_every", fail_every);
    return pu_client(o, n);
}

/* OnReady callbacks run on the completing thread after the event is marked
 * ready, so an awaiter may wake before they finish: wait for them. */
static int wait_count(atomic_int *counter, int want) {
    for (int i = 0; i < 20000 && atomic_load(counter) < want; i++)
        usleep(100);
    return atomic_load(counter);
}

static pthread_t main_thread;
static atomic_int ready_calls;
static atomic_int ready_on_other_thread;

static void count_ready(PJRT_Error *err, void *arg) {
    (void)arg;
    assert_null(err);
    if (!pthread_equal(pthread_self(), main_thread))
        atomic_fetch_add(&ready_on_other_thread, 1);
    atomic_fetch_add(&ready_calls, 1);
}

static void test_transfer_completes_later(void **state) {
    (void)state;
    PJRT_Client *c = xpu(DELAY_US, 0, 0);
    float x[64], y[64];
    for (int i = 0; i < 64; i++)
        x[i] = (float)i * 0.5f;
    int64_t dims[1] = {64};
    PJRT_Client_BufferFromHostBuffer_Args a = pu_h2d_args(c, x, PJRT_Buffer_Type_F32, dims, 1);
    a.host_buffer_semantics = PJRT_HostBufferSemantics_kImmutableUntilTransferCompletes;
    PU_OK(pu_api->PJRT_Client_BufferFromHostBuffer(&a));
    PJRT_Event *ready = pu_ready_event(a.buffer);
    /* Neither the data nor the caller's memory is done yet. */
    assert_false(pu_is_ready(ready));
    assert_false(pu_is_ready(a.done_with_host_buffer));
    main_thread = pthread_self();
    atomic_store(&ready_calls, 0);
    atomic_store(&ready_on_other_thread, 0);
    PJRT_Event_OnReady_Args o = {.struct_size = PJRT_Event_OnReady_Args_STRUCT_SIZE,
                                 .event = ready,
                                 .callback = count_ready};
    PU_OK(pu_api->PJRT_Event_OnReady(&o));
    PU_OK(pu_await(ready));
    assert_true(pu_is_ready(a.done_with_host_buffer));
    /* OnReady ran once, on the stream's worker thread. */
    assert_int_equal(wait_count(&ready_calls, 1), 1);
    assert_int_equal(atomic_load(&ready_on_other_thread), 1);
    pu_destroy_event(ready);
    pu_destroy_event(a.done_with_host_buffer);

    /* Device to host is asynchronous too. */
    PJRT_Buffer_ToHostBuffer_Args t = {.struct_size = PJRT_Buffer_ToHostBuffer_Args_STRUCT_SIZE,
                                       .src = a.buffer,
                                       .dst = y,
                                       .dst_size = sizeof(y)};
    PU_OK(pu_api->PJRT_Buffer_ToHostBuffer(&t));
    assert_false(pu_is_ready(t.event));
    PU_OK(pu_await(t.event));
    pu_destroy_event(t.event);
    assert_memory_equal(x, y, sizeof(x));
    /* So is a raw copy. */
    float raw[2] = {0};
    PJRT_Buffer_CopyRawToHost_Args r = {.struct_size = PJRT_Buffer_CopyRawToHost_Args_STRUCT_SIZE,
                                        .buffer = a.buffer,
                                        .dst = raw,
                                        .offset = 8,
                                        .transfer_size = 8};
    PU_OK(pu_api->PJRT_Buffer_CopyRawToHost(&r));
    assert_false(pu_is_ready(r.event));
    PU_OK(pu_await(r.event));
    pu_destroy_event(r.event);
    assert_true(raw[0] == x[2] && raw[1] == x[3]);
    PJRT_Buffer_IsOnCpu_Args oc = {.struct_size = PJRT_Buffer_IsOnCpu_Args_STRUCT_SIZE,
                                   .buffer = a.buffer};
    PU_OK(pu_api->PJRT_Buffer_IsOnCpu(&oc));
    assert_false(oc.is_on_cpu);
    pu_destroy_buffer(a.buffer);

    /* kImmutableOnlyDuringCall: the caller's memory is free at once. */
    a.host_buffer_semantics = PJRT_HostBufferSemantics_kImmutableOnlyDuringCall;
    PU_OK(pu_api->PJRT_Client_BufferFromHostBuffer(&a));
    assert_true(pu_is_ready(a.done_with_host_buffer));
    x[0] = 99; /* must not reach the buffer */
    PU_OK(pu_to_host(a.buffer, y, sizeof(y), NULL));
    assert_true(y[0] == 0.0f);
    x[0] = 0;
    pu_destroy_event(a.done_with_host_buffer);
    pu_destroy_buffer(a.buffer);
    pu_destroy_client(c);
}

static void test_pin_before_ready(void **state) {
    (void)state;
    PJRT_Client *c = xpu(DELAY_US, 0, 0);
    int32_t x[16];
    for (int i = 0; i < 16; i++)
        x[i] = i * i;
    int64_t dims[1] = {16};
    PJRT_Client_BufferFromHostBuffer_Args a = pu_h2d_args(c, x, PJRT_Buffer_Type_S32, dims, 1);
    PJRT_Buffer *b = pu_h2d_async(&a);
    PJRT_Event *ready = pu_ready_event(b);
    assert_false(pu_is_ready(ready));
    /* An external reference on a buffer still being written. */
    PU_OK(pu_pin(b));
    const int32_t *p = pu_pointer(b);
    PU_OK(pu_delete_buffer(b));
    PU_OK(pu_await(ready)); /* an event taken before delete still completes normally */
    assert_int_equal(p[15], 225);
    PU_OK(pu_unpin(b));
    pu_destroy_event(ready);
    pu_destroy_buffer(b);
    pu_destroy_client(c);
}

typedef struct {
    PJRT_Event *ready;
    const int32_t *data;
    atomic_int calls;
    bool saw_ready;
    int32_t first, last;
    PJRT_Error_Code status;
    char message[128];
} observation;

static void observe(PJRT_Error_Code status, const char *message, void *arg) {
    observation *o = arg;
    o->status = status;
    snprintf(o->message, sizeof(o->message), "%s", message);
    o->saw_ready = pu_is_ready(o->ready);
    if (o->data != NULL && o->saw_ready) {
        o->first = o->data[0];
        o->last = o->data[255];
    }
    atomic_fetch_add(&o->calls, 1);
}

static void test_wait_orders_consumer_stream(void **state) {
    (void)state;
    PJRT_Client *c = xpu(DELAY_US, 0, 0);
    int32_t x[256];
    for (int i = 0; i < 256; i++)
        x[i] = 1000 + i;
    int64_t dims[1] = {256};
    PJRT_Client_BufferFromHostBuffer_Args a = pu_h2d_args(c, x, PJRT_Buffer_Type_S32, dims, 1);
    PJRT_Buffer *b = pu_h2d_async(&a);
    PU_OK(pu_pin(b));
    observation o = {.ready = pu_ready_event(b), .data = pu_pointer(b)};
    intptr_t consumer = new_stream(pu_device(c, 0));
    assert_false(pu_is_ready(o.ready));
    PU_OK(wait_on(consumer, b));
    PU_OK(host_callback(consumer, observe, &o));
    PU_OK(synchronize(consumer));
    assert_int_equal(atomic_load(&o.calls), 1);
    assert_true(o.saw_ready);
    assert_int_equal(o.status, PJRT_Error_Code_OK);
    assert_int_equal(o.first, 1000);
    assert_int_equal(o.last, 1255);
    /* The default stream of the other device works as a consumer too. */
    observation o2 = {.ready = o.ready, .data = o.data};
    intptr_t other = default_stream(pu_device(c, 1));
    PU_OK(wait_on(other, b));
    PU_OK(host_callback(other, observe, &o2));
    PU_OK(synchronize(other));
    assert_true(o2.saw_ready);
    destroy_stream(consumer);
    PU_OK(pu_unpin(b));
    pu_destroy_event(o.ready);
    pu_destroy_buffer(b);
    pu_destroy_client(c);
}

static void sleep_callback(PJRT_Error_Code status, const char *message, void *arg) {
    (void)status;
    (void)message;
    usleep((useconds_t)(uintptr_t)arg);
}

static void test_view_with_stream(void **state) {
    (void)state;
    PJRT_Client *c = xpu(0, 0, 0);
    float x[32] = {0};
    x[31] = 31;
    int64_t dims[1] = {32};
    PJRT_Buffer *owner = pu_f32(c, x, dims, 1);
    PU_OK(pu_pin(owner));
    void *ptr = pu_pointer(owner);
    intptr_t s = new_stream(pu_device(c, 0));
    /* Work already on the stream delays the point where the view appears. */
    PU_OK(host_callback(s, sleep_callback, (void *)(uintptr_t)DELAY_US));
    int deleted = 0;
    PJRT_Client_CreateViewOfDeviceBuffer_Args v =
        pu_view_args(c, ptr, PJRT_Buffer_Type_F32, dims, 1, &deleted);
    v.stream = s;
    PU_OK(pu_api->PJRT_Client_CreateViewOfDeviceBuffer(&v));
    PJRT_Event *ready = pu_ready_event(v.buffer);
    assert_false(pu_is_ready(ready));
    PU_OK(synchronize(s));
    assert_true(pu_is_ready(ready));
    PU_OK(pu_await(ready));
    float y[32];
    PU_OK(pu_to_host(v.buffer, y, sizeof(y), NULL));
    assert_true(y[31] == 31.0f);
    pu_destroy_event(ready);
    pu_destroy_buffer(v.buffer);
    assert_int_equal(deleted, 1);
    /* A stream of another device, an unknown handle. */
    v = pu_view_args(c, ptr, PJRT_Buffer_Type_F32, dims, 1, &deleted);
    v.stream = default_stream(pu_device(c, 1));
    PU_EXPECT_ERROR(pu_api->PJRT_Client_CreateViewOfDeviceBuffer(&v),
                    PJRT_Error_Code_INVALID_ARGUMENT, "the stream belongs to xpu:1");
    v.stream = (intptr_t)&v;
    PU_EXPECT_ERROR(pu_api->PJRT_Client_CreateViewOfDeviceBuffer(&v),
                    PJRT_Error_Code_INVALID_ARGUMENT, "not a live stream handle");
    assert_int_equal(deleted, 1);
    destroy_stream(s);
    PU_OK(pu_unpin(owner));
    pu_destroy_buffer(owner);
    pu_destroy_client(c);
}

static void test_copies_between_devices_and_memories(void **state) {
    (void)state;
    PJRT_Client *c = xpu(DELAY_US, 0, 0);
    int16_t x[6] = {1, -2, 3, -4, 5, -6};
    int64_t dims[2] = {2, 3};
    PJRT_Client_BufferFromHostBuffer_Args a = pu_h2d_args(c, x, PJRT_Buffer_Type_S16, dims, 2);
    PJRT_Buffer *b = pu_h2d_async(&a);
    PJRT_Buffer_CopyToDevice_Args cd = {.struct_size = PJRT_Buffer_CopyToDevice_Args_STRUCT_SIZE,
                                        .buffer = b,
                                        .dst_device = pu_device(c, 1)};
    PU_OK(pu_api->PJRT_Buffer_CopyToDevice(&cd));
    PJRT_Event *e = pu_ready_event(cd.dst_buffer);
    assert_false(pu_is_ready(e)); /* queued behind the upload */
    pu_destroy_event(e);
    int16_t y[6];
    PU_OK(pu_to_host(cd.dst_buffer, y, sizeof(y), NULL));
    assert_memory_equal(x, y, sizeof(x));
    /* device -> pinned_host -> device of the other device. */
    PJRT_Memory *host1 = pu_memory(pu_device(c, 1), "pinned_host");
    PJRT_Buffer_CopyToMemory_Args cm = {.struct_size = PJRT_Buffer_CopyToMemory_Args_STRUCT_SIZE,
                                        .buffer = cd.dst_buffer,
                                        .dst_memory = host1};
    PU_OK(pu_api->PJRT_Buffer_CopyToMemory(&cm));
    PJRT_Buffer_Memory_Args m = {.struct_size = PJRT_Buffer_Memory_Args_STRUCT_SIZE,
                                 .buffer = cm.dst_buffer};
    PU_OK(pu_api->PJRT_Buffer_Memory(&m));
    assert_ptr_equal(m.memory, host1);
    PJRT_Buffer_CopyToMemory_Args back = {.struct_size = PJRT_Buffer_CopyToMemory_Args_STRUCT_SIZE,
                                          .buffer = cm.dst_buffer,
                                          .dst_memory = pu_memory(pu_device(c, 0), "device")};
    PU_OK(pu_api->PJRT_Buffer_CopyToMemory(&back));
    memset(y, 0, sizeof(y));
    PU_OK(pu_to_host(back.dst_buffer, y, sizeof(y), NULL));
    assert_memory_equal(x, y, sizeof(x));
    memset(y, 0, sizeof(y));
    PU_OK(pu_to_host(cm.dst_buffer, y, sizeof(y), NULL));
    assert_memory_equal(x, y, sizeof(x));
    /* Host data can be placed in pinned_host directly. */
    a.memory = pu_memory(pu_device(c, 0), "pinned_host");
    PJRT_Buffer *ph = pu_h2d(&a);
    PU_OK(pu_to_host(ph, y, sizeof(y), NULL));
    assert_memory_equal(x, y, sizeof(x));
    pu_destroy_buffer(ph);
    pu_destroy_buffer(back.dst_buffer);
    pu_destroy_buffer(cm.dst_buffer);
    pu_destroy_buffer(cd.dst_buffer);
    pu_destroy_buffer(b);
    pu_destroy_client(c);
}

static void test_capacity(void **state) {
    (void)state;
    PJRT_Client *c = xpu(0, 4096, 0);
    static char data[8192];
    int64_t d3000[1] = {3000}, d2000[1] = {2000};
    PJRT_Client_BufferFromHostBuffer_Args a = pu_h2d_args(c, data, PJRT_Buffer_Type_U8, d3000, 1);
    PJRT_Buffer *b = pu_h2d(&a);
    a.dims = d2000;
    PU_EXPECT_ERROR(pu_api->PJRT_Client_BufferFromHostBuffer(&a),
                    PJRT_Error_Code_RESOURCE_EXHAUSTED, "out of device memory");
    PJRT_Buffer_CopyToDevice_Args cd = {.struct_size = PJRT_Buffer_CopyToDevice_Args_STRUCT_SIZE,
                                        .buffer = b,
                                        .dst_device = pu_device(c, 1)};
    PU_OK(pu_api->PJRT_Buffer_CopyToDevice(&cd)); /* device 1 has its own 4096 bytes */
    PU_OK(pu_buffer_await(cd.dst_buffer)); /* the copy holds the source's memory until it ran */
    PU_EXPECT_ERROR(pu_api->PJRT_Buffer_CopyToDevice(&cd), PJRT_Error_Code_RESOURCE_EXHAUSTED,
                    "xpu:1");
    /* pinned_host has no capacity limit. */
    a.memory = pu_memory(pu_device(c, 0), "pinned_host");
    PJRT_Buffer *ph = pu_h2d(&a);
    PJRT_Device_MemoryStats_Args s = {.struct_size = PJRT_Device_MemoryStats_Args_STRUCT_SIZE,
                                      .device = pu_device(c, 0)};
    PU_OK(pu_api->PJRT_Device_MemoryStats(&s));
    assert_true(s.bytes_limit_is_set);
    assert_int_equal(s.bytes_limit, 4096);
    assert_int_equal(s.bytes_in_use, 3000);
    pu_destroy_buffer(b);
    a.memory = NULL;
    PJRT_Buffer *b2 = pu_h2d(&a); /* fits again */
    pu_destroy_buffer(b2);
    pu_destroy_buffer(ph);
    pu_destroy_buffer(cd.dst_buffer);
    pu_destroy_client(c);
}

static atomic_int fault_callbacks;

static void expect_fault(PJRT_Error *err, void *arg) {
    (void)arg;
    assert_non_null(err);
    assert_int_equal(pu_take(err).code, PJRT_Error_Code_INTERNAL);
    atomic_fetch_add(&fault_callbacks, 1);
}

static void test_injected_faults_reach_every_waiter(void **state) {
    (void)state;
    PJRT_Client *c = xpu(20000, 0, 2);
    float x[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    int64_t dims[1] = {8};
    PJRT_Client_BufferFromHostBuffer_Args a = pu_h2d_args(c, x, PJRT_Buffer_Type_F32, dims, 1);
    PJRT_Buffer *good = pu_h2d(&a);      /* transfer 1 */
    PJRT_Buffer *bad = pu_h2d_async(&a); /* transfer 2: fails */
    PJRT_Event *ready = pu_ready_event(bad);
    atomic_store(&fault_callbacks, 0);
    PJRT_Event_OnReady_Args o = {.struct_size = PJRT_Event_OnReady_Args_STRUCT_SIZE,
                                 .event = ready,
                                 .callback = expect_fault};
    PU_OK(pu_api->PJRT_Event_OnReady(&o));
    /* A consumer stream waiting on it sees the error. */
    intptr_t consumer = new_stream(pu_device(c, 0));
    PU_OK(wait_on(consumer, bad));
    observation ob = {.ready = ready};
    PU_OK(host_callback(consumer, observe, &ob));
    PU_EXPECT_ERROR(pu_await(ready), PJRT_Error_Code_INTERNAL, "injected fault");
    PJRT_Event_Error_Args ee = {.struct_size = PJRT_Event_Error_Args_STRUCT_SIZE, .event = ready};
    PU_EXPECT_ERROR(pu_api->PJRT_Event_Error(&ee), PJRT_Error_Code_INTERNAL, "injected fault");
    assert_int_equal(wait_count(&fault_callbacks, 1), 1);
    /* Reading it back fails with the same error, and so does a copy. */
    float y[8];
    PU_EXPECT_ERROR(pu_to_host(bad, y, sizeof(y), NULL), PJRT_Error_Code_INTERNAL,
                    "injected fault");
    PJRT_Buffer_CopyToDevice_Args cd = {.struct_size = PJRT_Buffer_CopyToDevice_Args_STRUCT_SIZE,
                                        .buffer = bad,
                                        .dst_device = pu_device(c, 1)};
    PU_OK(pu_api->PJRT_Buffer_CopyToDevice(&cd));
    PU_EXPECT_ERROR(pu_buffer_await(cd.dst_buffer), PJRT_Error_Code_INTERNAL, "injected fault");
    PU_EXPECT_ERROR(synchronize(consumer), PJRT_Error_Code_INTERNAL, "injected fault");
    assert_int_equal(ob.status, PJRT_Error_Code_INTERNAL);
    assert_non_null(strstr(ob.message, "injected fault"));
    PU_OK(synchronize(consumer)); /* the sticky error was cleared */
    /* The good buffer is fine. */
    PU_OK(pu_to_host(good, y, sizeof(y), NULL)); /* transfer 3 */
    assert_memory_equal(x, y, sizeof(x));
    destroy_stream(consumer);
    pu_destroy_event(ready);
    pu_destroy_buffer(cd.dst_buffer);
    pu_destroy_buffer(bad);
    pu_destroy_buffer(good);
    pu_destroy_client(c);
}

static void test_view_address_checked(void **state) {
    (void)state;
    PJRT_Client *c = xpu(0, 0, 0);
    float x[64] = {0};
    int64_t dims[1] = {64};
    PJRT_Buffer *owner = pu_f32(c, x, dims, 1);
    PU_OK(pu_pin(owner));
    char *ptr = pu_pointer(owner);
    int deleted = 0;
    int64_t half[1] = {32};
    /* Inside a live allocation of device 0: fine. */
    PJRT_Client_CreateViewOfDeviceBuffer_Args v =
        pu_view_args(c, ptr + 64, PJRT_Buffer_Type_F32, half, 1, &deleted);
    PU_OK(pu_api->PJRT_Client_CreateViewOfDeviceBuffer(&v));
    pu_destroy_buffer(v.buffer);
    assert_int_equal(deleted, 1);
    /* Running past the allocation, host memory, another device. */
    v = pu_view_args(c, ptr + 192, PJRT_Buffer_Type_F32, half, 1, &deleted);
    PU_EXPECT_ERROR(pu_api->PJRT_Client_CreateViewOfDeviceBuffer(&v),
                    PJRT_Error_Code_INVALID_ARGUMENT, "not inside a live allocation");
    v.device_buffer_ptr = x;
    PU_EXPECT_ERROR(pu_api->PJRT_Client_CreateViewOfDeviceBuffer(&v),
                    PJRT_Error_Code_INVALID_ARGUMENT, "not inside a live allocation");
    v.device_buffer_ptr = ptr;
    v.device = pu_device(c, 1);
    PU_EXPECT_ERROR(pu_api->PJRT_Client_CreateViewOfDeviceBuffer(&v),
                    PJRT_Error_Code_INVALID_ARGUMENT, "device memory 2 of xpu:1");
    /* pinned_host is host memory: any host address can be viewed. */
    v.device = NULL;
    v.memory = pu_memory(pu_device(c, 0), "pinned_host");
    v.device_buffer_ptr = x;
    PU_OK(pu_api->PJRT_Client_CreateViewOfDeviceBuffer(&v));
    pu_destroy_buffer(v.buffer);
    assert_int_equal(deleted, 2);
    /* Once the allocation is freed, its address is no longer a device one. */
    PU_OK(pu_unpin(owner));
    pu_destroy_buffer(owner);
    PJRT_Device_MemoryStats_Args st = {.struct_size = PJRT_Device_MemoryStats_Args_STRUCT_SIZE,
                                       .device = pu_device(c, 0)};
    PU_OK(pu_api->PJRT_Device_MemoryStats(&st));
    assert_int_equal(st.bytes_in_use, 0);
    v = pu_view_args(c, ptr, PJRT_Buffer_Type_F32, half, 1, &deleted);
    PU_EXPECT_ERROR(pu_api->PJRT_Client_CreateViewOfDeviceBuffer(&v),
                    PJRT_Error_Code_INVALID_ARGUMENT, "not inside a live allocation");
    assert_int_equal(deleted, 2);
    pu_destroy_client(c);
}

/* Freed large blocks are kept for reuse but are not live allocations: they
 * are not accounted to the client, not in use, and not viewable. */
static void test_cached_blocks_are_not_live(void **state) {
    (void)state;
    PJRT_Client *c = xpu(0, 0, 0);
    size_t n = (2u << 20) / sizeof(float);
    float *x = malloc(n * sizeof(float));
    for (size_t i = 0; i < n; i++)
        x[i] = (float)i;
    int64_t dims[1] = {(int64_t)n};
    PJRT_Buffer *b = pu_f32(c, x, dims, 1);
    void *p = pu_pointer(b);
    pu_destroy_buffer(b);
    assert_int_equal(pu_live(c), 0);
    PJRT_Device_MemoryStats_Args st = {.struct_size = PJRT_Device_MemoryStats_Args_STRUCT_SIZE,
                                       .device = pu_device(c, 0)};
    PU_OK(pu_api->PJRT_Device_MemoryStats(&st));
    assert_int_equal(st.bytes_in_use, 0);
    PJRT_Client_CreateViewOfDeviceBuffer_Args v =
        pu_view_args(c, p, PJRT_Buffer_Type_F32, dims, 1, NULL);
    PU_EXPECT_ERROR(pu_api->PJRT_Client_CreateViewOfDeviceBuffer(&v),
                    PJRT_Error_Code_INVALID_ARGUMENT, "not inside a live allocation");
    x[n - 1] = -1;
    b = pu_f32(c, x, dims, 1);
    assert_ptr_equal(pu_pointer(b), p); /* the block was reused */
    float last = 0;
    PJRT_Buffer_CopyRawToHost_Args r = {.struct_size = PJRT_Buffer_CopyRawToHost_Args_STRUCT_SIZE,
                                        .buffer = b,
                                        .dst = &last,
                                        .offset = (int64_t)((n - 1) * sizeof(float)),
                                        .transfer_size = sizeof(float)};
    PU_OK(pu_finish(pu_api->PJRT_Buffer_CopyRawToHost(&r), &r.event));
    assert_true(last == -1.0f);
    pu_destroy_buffer(b);
    free(x);
    pu_destroy_client(c);
}

static void test_stream_errors(void **state) {
    (void)state;
    PJRT_Client *cpu = pu_cpu_client();
    PJRT_Get_Stream_For_External_Ready_Events_Args g = {
        .struct_size = PJRT_Get_Stream_For_External_Ready_Events_Args_STRUCT_SIZE,
        .device = pu_device(cpu, 0)};
    PU_EXPECT_ERROR(pu_stream_ext->get_stream(&g), PJRT_Error_Code_UNIMPLEMENTED,
                    "platform cpu has no streams");
    float x = 1;
    PJRT_Buffer *b = pu_f32(cpu, &x, NULL, 0);
    PU_EXPECT_ERROR(wait_on(1, b), PJRT_Error_Code_UNIMPLEMENTED, "platform cpu has no streams");
    PJRT_Ref_CreateStream_Args cs = {.struct_size = PJRT_Ref_CreateStream_Args_STRUCT_SIZE,
                                     .device = pu_device(cpu, 0)};
    PU_EXPECT_ERROR(pu_ext->create_stream(&cs), PJRT_Error_Code_UNIMPLEMENTED, "no streams");
    pu_destroy_buffer(b);
    pu_destroy_client(cpu);

    PJRT_Client *c = xpu(0, 0, 0);
    b = pu_f32(c, &x, NULL, 0);
    PU_EXPECT_ERROR(wait_on(12345, b), PJRT_Error_Code_INVALID_ARGUMENT,
                    "not a live stream handle");
    PU_EXPECT_ERROR(synchronize(0), PJRT_Error_Code_INVALID_ARGUMENT, "not a live stream handle");
    PU_EXPECT_ERROR(host_callback(default_stream(pu_device(c, 0)), NULL, NULL),
                    PJRT_Error_Code_INVALID_ARGUMENT, "callback is NULL");
    PJRT_Ref_DestroyStream_Args ds = {.struct_size = PJRT_Ref_DestroyStream_Args_STRUCT_SIZE,
                                      .stream = default_stream(pu_device(c, 0))};
    PU_EXPECT_ERROR(pu_ext->destroy_stream(&ds), PJRT_Error_Code_INVALID_ARGUMENT,
                    "default stream");
    intptr_t s = new_stream(pu_device(c, 1));
    destroy_stream(s);
    PU_EXPECT_ERROR(synchronize(s), PJRT_Error_Code_INVALID_ARGUMENT, "not a live stream handle");
    PJRT_Wait_Until_Buffer_Ready_On_Stream_Args w = {.struct_size = 8};
    PU_EXPECT_ERROR(pu_stream_ext->wait_stream(&w), PJRT_Error_Code_INVALID_ARGUMENT,
                    "PJRT_Wait_Until_Buffer_Ready_On_Stream_Args");
    PU_OK(pu_delete_buffer(b));
    PU_EXPECT_ERROR(wait_on(default_stream(pu_device(c, 0)), b),
                    PJRT_Error_Code_FAILED_PRECONDITION, "deleted");
    pu_destroy_buffer(b);
    pu_destroy_client(c);
}

static void test_destroy_with_work_queued(void **state) {
    (void)state;
    int64_t before = pu_live_process();
    PJRT_Client *c = xpu(30000, 0, 0);
    float x[128] = {0};
    int64_t dims[1] = {128};
    for (int i = 0; i < 4; i++) {
        PJRT_Client_BufferFromHostBuffer_Args a = pu_h2d_args(c, x, PJRT_Buffer_Type_F32, dims, 1);
        a.device = pu_device(c, (size_t)(i & 1));
        PU_OK(pu_api->PJRT_Client_BufferFromHostBuffer(&a));
        pu_destroy_event(a.done_with_host_buffer);
        pu_destroy_buffer(a.buffer); /* its transfer is still queued */
    }
    PJRT_Client_Destroy_Args d = {.struct_size = PJRT_Client_Destroy_Args_STRUCT_SIZE, .client = c};
    PU_OK(pu_api->PJRT_Client_Destroy(&d));
    assert_int_equal(pu_live_process(), before);
}

/* ------------------------------------------------------------- threads */

#define THREADS 8
#define ROUNDS 40

static PJRT_Client *shared;

static void *transfer_worker(void *arg) {
    uintptr_t id = (uintptr_t)arg;
    for (int r = 0; r < ROUNDS; r++) {
        int32_t x[100], y[100];
        for (int i = 0; i < 100; i++)
            x[i] = (int32_t)(id * 100000 + (uintptr_t)r * 100 + (uintptr_t)i);
        int64_t dims[2] = {10, 10};
        PJRT_Client_BufferFromHostBuffer_Args a =
            pu_h2d_args(shared, x, PJRT_Buffer_Type_S32, dims, 2);
        a.device = pu_device(shared, (size_t)((id + (uintptr_t)r) & 1));
        if (pu_api->PJRT_Client_BufferFromHostBuffer(&a) != NULL)
            return (void *)1;
        pu_destroy_event(a.done_with_host_buffer);
        PJRT_Buffer_CopyToDevice_Args cd = {
            .struct_size = PJRT_Buffer_CopyToDevice_Args_STRUCT_SIZE,
            .buffer = a.buffer,
            .dst_device = pu_device(shared, (size_t)((id + (uintptr_t)r + 1) & 1))};
        if (pu_api->PJRT_Buffer_CopyToDevice(&cd) != NULL)
            return (void *)2;
        pu_destroy_buffer(a.buffer);
        if (pu_to_host(cd.dst_buffer, y, sizeof(y), NULL).code != PJDL_OK)
            return (void *)3;
        if (memcmp(x, y, sizeof(x)) != 0)
            return (void *)4;
        pu_destroy_buffer(cd.dst_buffer);
    }
    return NULL;
}

static void test_many_threads(void **state) {
    (void)state;
    shared = xpu(200, 0, 0);
    pthread_t t[THREADS];
    for (uintptr_t i = 0; i < THREADS; i++)
        assert_int_equal(pthread_create(&t[i], NULL, transfer_worker, (void *)i), 0);
    for (int i = 0; i < THREADS; i++) {
        void *ret;
        pthread_join(t[i], &ret);
        assert_null(ret);
    }
    pu_destroy_client(shared);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_transfer_completes_later),
        cmocka_unit_test(test_pin_before_ready),
        cmocka_unit_test(test_wait_orders_consumer_stream),
        cmocka_unit_test(test_view_with_stream),
        cmocka_unit_test(test_copies_between_devices_and_memories),
        cmocka_unit_test(test_capacity),
        cmocka_unit_test(test_injected_faults_reach_every_waiter),
        cmocka_unit_test(test_view_address_checked),
        cmocka_unit_test(test_cached_blocks_are_not_live),
        cmocka_unit_test(test_stream_errors),
        cmocka_unit_test(test_destroy_with_work_queued),
        cmocka_unit_test(test_many_threads),
    };
    return PU_RUN_TESTS(tests, NULL);
}
