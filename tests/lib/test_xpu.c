/* The simulated accelerator "xpu": device memory, streams, ready events that
 * complete later or fail, wait timeouts, and copies into device memory. */
#include <pthread.h>
#include <time.h>

#include "lib_util.h"

static pjdl_client *xpu_client(pjdl_plugin *plugin, int64_t delay_us, int64_t fail_every) {
    pjdl_option opts[3] = {{.name = "platform", .type = PJDL_OPTION_STRING},
                           {.name = "transfer_delay_us", .type = PJDL_OPTION_INT64},
                           {.name = "fail_transfer_every", .type = PJDL_OPTION_INT64}};
    opts[0].value.string_value = "xpu";
    opts[1].value.int64_value = delay_us;
    opts[2].value.int64_value = fail_every;
    pjdl_client *client = NULL;
    LIB_OK(pjdl_client_create(plugin, opts, 3, &client));
    return client;
}

/* How a test's xpu client behaves (the test's initial state). */
typedef struct xpu_setup {
    int64_t delay_us;   /* each transfer takes this long */
    int64_t fail_every; /* every n-th transfer fails; 0: none */
} xpu_setup;

/* Set-up: the reference plugin and an xpu client as the test asks. */
static int setup(void **state) {
    const xpu_setup *x = *state;
    lib_fixture *f = calloc(1, sizeof *f);
    *state = f;
    f->plugin = lib_load();
    f->client = xpu_client(f->plugin, x->delay_us, x->fail_every);
    return 0;
}

static pjdl_buffer *upload(pjdl_client *client, const float *data, size_t n) {
    const int64_t dims[] = {(int64_t)n};
    pjdl_buffer *b = NULL;
    LIB_OK(pjdl_buffer_from_host(client, data, PJRT_Buffer_Type_F32, dims, 1, NULL, NULL, &b));
    return b;
}

static void devices_and_round_trip(void **state) {
    lib_fixture *f = *state;
    assert_string_equal(pjdl_client_platform_name(f->client), "xpu");
    assert_true(pjdl_client_platform_id(f->client) == 0xac4b42972bd25347ull);
    assert_true(pjdl_client_device_count(f->client) >= 2);
    pjdl_device *d1 = pjdl_client_device(f->client, 1);
    DLDevice dl;
    LIB_OK(pjdl_device_dl(d1, NULL, &dl));
    assert_int_equal(dl.device_type, kDLOneAPI);
    assert_int_equal(dl.device_id, pjdl_device_local_hardware_id(d1));
    pjdl_device *found = NULL;
    LIB_OK(pjdl_client_find_dl(f->client, dl, &found, NULL));
    assert_ptr_equal(found, d1);

    float data[32], back[32];
    for (int i = 0; i < 32; i++)
        data[i] = (float)i - 7.0f;
    pjdl_buffer *b = upload(f->client, data, 32);
    DLManagedTensorVersioned *t = NULL;
    LIB_OK(pjdl_buffer_export(b, NULL, &t));
    assert_int_equal(t->dl_tensor.device.device_type, kDLOneAPI);
    pjdl_buffer *view = NULL;
    pjdl_import_options io = lib_import_options(PJDL_COPY_NEVER);
    LIB_OK(pjdl_import(&f->client, 1, t, &io, &view));
    LIB_OK(pjdl_buffer_to_host(view, back, sizeof back));
    assert_memory_equal(back, data, sizeof data);
    pjdl_buffer_release(view);
    pjdl_buffer_release(b);

    /* Device memory is not host-reachable: no copy from it on import. */
    b = upload(f->client, data, 32);
    LIB_OK(pjdl_buffer_export(b, NULL, &t));
    pjdl_buffer_release(b);
    io.copy = PJDL_COPY_ALWAYS;
    assert_int_not_equal(pjdl_import(&f->client, 1, t, &io, &view), PJDL_OK);
    assert_non_null(strstr(pjdl_last_error(), "host"));
    t->deleter(t);
}

/* A host callback on the consumer's stream: sees the data when it runs. */
typedef struct seen {
    const float *data;
    const float *want;
    size_t n;
    int ok;
    PJRT_Error_Code status;
} seen;

static void check_on_stream(PJRT_Error_Code status, const char *message, void *arg) {
    (void)message;
    seen *s = arg;
    s->status = status;
    s->ok = memcmp(s->data, s->want, s->n * sizeof(float)) == 0;
}

static void export_on_stream(void **state) {
    lib_fixture *f = *state;
    const PJRT_Ref_Extension *ext = lib_ref_ext(f->plugin);
    pjdl_device *dev = pjdl_client_device(f->client, 0);
    intptr_t stream = 0;
    LIB_OK(pjdl_device_stream(dev, &stream));
    PJRT_Ref_CreateStream_Args cs = {.struct_size = PJRT_Ref_CreateStream_Args_STRUCT_SIZE,
                                     .device = pjdl_device_pjrt(dev)};
    assert_null(ext->create_stream(&cs));
    float data[64];
    for (int i = 0; i < 64; i++)
        data[i] = (float)(i * 3);
    pjdl_buffer *b = upload(f->client, data, 64);
    pjdl_export_options o = PJDL_EXPORT_OPTIONS_INIT;
    o.has_stream = true;
    o.stream = cs.stream;
    DLManagedTensorVersioned *t = NULL;
    LIB_OK(pjdl_buffer_export(b, &o, &t)); /* does not wait */
    seen s = {t->dl_tensor.data, data, 64, 0, PJRT_Error_Code_UNKNOWN};
    PJRT_Ref_EnqueueHostCallback_Args cb = {.struct_size =
                                                PJRT_Ref_EnqueueHostCallback_Args_STRUCT_SIZE,
                                            .stream = cs.stream,
                                            .callback = check_on_stream,
                                            .user_arg = &s};
    assert_null(ext->enqueue_host_callback(&cb));
    PJRT_Ref_SynchronizeStream_Args sync = {
        .struct_size = PJRT_Ref_SynchronizeStream_Args_STRUCT_SIZE, .stream = cs.stream};
    assert_null(ext->synchronize_stream(&sync));
    assert_int_equal(s.status, PJRT_Error_Code_OK);
    assert_int_equal(s.ok, 1);
    /* Deleter before the buffer, on the default stream too. */
    t->deleter(t);
    o.stream = stream;
    LIB_OK(pjdl_buffer_export(b, &o, &t));
    pjdl_buffer_release(b);
    t->deleter(t);
    PJRT_Ref_DestroyStream_Args ds = {.struct_size = PJRT_Ref_DestroyStream_Args_STRUCT_SIZE,
                                      .stream = cs.stream};
    assert_null(ext->destroy_stream(&ds));
    sync.stream = stream; /* the default stream's queued wait must finish */
    assert_null(ext->synchronize_stream(&sync));
}

static void wait_timeout(void **state) {
    lib_fixture *f = *state;
    float data[16] = {1, 2, 3, 4};
    /* Set first: with a timeout the upload hands the data over during the
     * call and returns with the transfer still queued (without one it
     * waits until the plugin has read the data, which is the transfer). */
    pjdl_client_set_wait_timeout(f->client, 10);
    pjdl_buffer *b = upload(f->client, data, 16);
    DLManagedTensorVersioned *t = NULL;
    LIB_FAILS(PJDL_DEADLINE_EXCEEDED, pjdl_buffer_export(b, NULL, &t));
    LIB_FAILS(PJDL_DEADLINE_EXCEEDED, pjdl_buffer_await(b));
    {
        /* The plugin writes after the deadline: never into this memory,
         * which is gone by then (valgrind and ASan check). */
        float *host = malloc(sizeof data);
        LIB_FAILS(PJDL_DEADLINE_EXCEEDED, pjdl_buffer_to_host(b, host, sizeof data));
        free(host);
        pjdl_export_options o = PJDL_EXPORT_OPTIONS_INIT;
        o.copy = PJDL_COPY_ALWAYS;
        LIB_FAILS(PJDL_DEADLINE_EXCEEDED, pjdl_buffer_export(b, &o, &t));
    }
    pjdl_client_set_wait_timeout(f->client, 0);
    LIB_OK(pjdl_buffer_export(b, NULL, &t)); /* the late callbacks were harmless */
    assert_memory_equal(t->dl_tensor.data, data, sizeof data);
    t->deleter(t);
    /* With a generous deadline the copy goes through the landing block. */
    pjdl_client_set_wait_timeout(f->client, 10000);
    float host[16];
    LIB_OK(pjdl_buffer_to_host(b, host, sizeof host));
    assert_memory_equal(host, data, sizeof data);
    pjdl_buffer_release(b);
}

static void ready_event_error(void **state) {
    lib_fixture *f = *state;
    float data[16] = {0};
    const int64_t dims[] = {16};
    pjdl_buffer *b = NULL;
    pjdl_code code =
        pjdl_buffer_from_host(f->client, data, PJRT_Buffer_Type_F32, dims, 1, NULL, NULL, &b);
    if (code == PJDL_OK) {
        DLManagedTensorVersioned *t = NULL;
        code = pjdl_buffer_export(b, NULL, &t);
        assert_int_not_equal(code, PJDL_OK);
        assert_int_not_equal(pjdl_buffer_await(b), PJDL_OK);
        pjdl_buffer_release(b);
    }
    assert_true(pjdl_last_error()[0] != '\0');
}

/* A host tensor copied into device memory: its deleter runs once the
 * transfer no longer needs it. */
static void copy_into_device(void **state) {
    lib_fixture *f = *state;
    float data[24], back[24];
    for (int i = 0; i < 24; i++)
        data[i] = (float)i;
    const int64_t shape[] = {4, 6};
    const int64_t strides[] = {1, 4}; /* column-major: a permutation */
    for (int round = 0; round < 2; round++) {
        lib_tensor t;
        lib_tensor_init(&t, data, lib_dtype(kDLFloat, 32), 2, shape, round ? strides : NULL);
        pjdl_import_options o = PJDL_IMPORT_OPTIONS_INIT;
        o.device = pjdl_client_device(f->client, 1);
        pjdl_buffer *b = NULL;
        LIB_OK(pjdl_import(&f->client, 1, &t.v, &o, &b));
        assert_ptr_equal(pjdl_buffer_device(b), o.device);
        LIB_OK(pjdl_buffer_to_host(b, back, sizeof back));
        for (int i = 0; i < 24; i++) {
            int r = i / 6, c = i % 6;
            float want = round ? data[r + c * 4] : data[i];
            assert_true(back[i] == want);
        }
        for (int spin = 0; spin < 1000 && __atomic_load_n(&t.deleted, __ATOMIC_SEQ_CST) == 0;
             spin++) {
            struct timespec ms = {0, 1000000};
            nanosleep(&ms, NULL);
        }
        assert_int_equal(t.deleted, 1);
        pjdl_buffer_release(b);
        assert_int_equal(t.deleted, 1);
    }
}

/* A tensor without a deleter, whose struct and memory the producer reuses
 * as soon as the import returns (nothing could tell it later): the copy is
 * complete by then, the struct is never read again (a deleter written into
 * it afterwards is not called), for a copy into device memory (a transfer
 * that takes 20 ms) and for a view of host memory. */
static void no_deleter_is_done_on_return(void **state) {
    lib_fixture *f = *state;
    float data[64], back[64];
    const int64_t shape[] = {64};
    for (int view = 0; view < 2; view++) {
        for (int i = 0; i < 64; i++)
            data[i] = (float)i;
        lib_tensor t;
        lib_tensor_init(&t, data, lib_dtype(kDLFloat, 32), 1, shape, NULL);
        t.v.deleter = NULL;
        pjdl_import_options o = PJDL_IMPORT_OPTIONS_INIT;
        o.device = pjdl_client_device(f->client, 0);
        o.memory = view ? lib_memory_of_kind(o.device, "pinned_host") : NULL;
        o.copy = view ? PJDL_COPY_NEVER : PJDL_COPY_ALWAYS;
        pjdl_buffer *b = NULL;
        LIB_OK(pjdl_import(&f->client, 1, &t.v, &o, &b));
        t.v.deleter = lib_tensor_deleter_v; /* the producer's struct, reused */
        memset(data, 0, sizeof data);       /* a view sees it, a complete copy does not */
        LIB_OK(pjdl_buffer_to_host(b, back, sizeof back));
        for (int i = 0; i < 64; i++)
            assert_true(back[i] == (view ? 0.0f : (float)i));
        pjdl_buffer_release(b);
        struct timespec wait = {0, 50 * 1000000};
        nanosleep(&wait, NULL); /* past the transfer, were it still running */
        assert_int_equal(__atomic_load_n(&t.deleted, __ATOMIC_SEQ_CST), 0);
    }
}

/* Import with the producer's stream: the view is ready when that stream
 * reaches the import. */
static void import_with_stream(void **state) {
    lib_fixture *f = *state;
    float data[8] = {8, 7, 6, 5, 4, 3, 2, 1}, back[8];
    pjdl_buffer *b = upload(f->client, data, 8);
    intptr_t stream;
    LIB_OK(pjdl_device_stream(pjdl_buffer_device(b), &stream));
    pjdl_export_options eo = PJDL_EXPORT_OPTIONS_INIT;
    eo.has_stream = true;
    eo.stream = stream;
    DLManagedTensorVersioned *t = NULL;
    LIB_OK(pjdl_buffer_export(b, &eo, &t));
    pjdl_import_options io = PJDL_IMPORT_OPTIONS_INIT;
    io.has_stream = true;
    io.stream = stream;
    pjdl_buffer *view = NULL;
    LIB_OK(pjdl_import(&f->client, 1, t, &io, &view));
    void *a = NULL, *v = NULL;
    LIB_OK(pjdl_buffer_data_pointer(b, &a));
    LIB_OK(pjdl_buffer_data_pointer(view, &v));
    assert_ptr_equal(a, v); /* a view */
    LIB_OK(pjdl_buffer_to_host(view, back, sizeof back));
    assert_memory_equal(back, data, sizeof data);
    pjdl_buffer_release(view);
    pjdl_buffer_release(b);
}

/* Both clients given: each tensor goes to the client of its device. */
static void two_clients(void **state) {
    (void)state;
    pjdl_plugin *plugin = lib_load();
    pjdl_client *clients[2] = {lib_client(plugin, "cpu"), xpu_client(plugin, 0, 0)};
    float data[4] = {1, 2, 3, 4};
    for (int k = 0; k < 2; k++) {
        pjdl_buffer *b = upload(clients[k], data, 4), *back = NULL;
        DLManagedTensorVersioned *t = NULL;
        LIB_OK(pjdl_buffer_export(b, NULL, &t));
        LIB_OK(pjdl_import(clients, 2, t, NULL, &back));
        assert_ptr_equal(pjdl_buffer_client(back), clients[k]);
        pjdl_buffer_release(back);
        pjdl_buffer_release(b);
    }
    pjdl_client_release(clients[0]);
    pjdl_client_release(clients[1]);
    pjdl_plugin_release(plugin);
}

/* Two xpu clients have the same DLDevice: a tensor of the second, offered
 * to both in the order (first, second), is refused by the first (not its
 * memory) and taken by the second as a view. With a stream (the first's),
 * only the first is tried; its error is returned and the caller keeps the
 * tensor. */
static void refusal_passes_to_the_next_client(void **state) {
    (void)state;
    pjdl_plugin *plugin = lib_load();
    pjdl_client *clients[2] = {xpu_client(plugin, 0, 0), xpu_client(plugin, 0, 0)};
    float data[4] = {1, 2, 3, 4};
    pjdl_buffer *b = upload(clients[1], data, 4), *view = NULL;
    DLManagedTensorVersioned *t = NULL;
    LIB_OK(pjdl_buffer_export(b, NULL, &t));
    pjdl_import_options io = lib_import_options(PJDL_COPY_IF_NEEDED);
    LIB_OK(pjdl_device_stream(pjdl_client_device(clients[0], 0), &io.stream));
    io.has_stream = true;
    assert_int_equal(pjdl_import(clients, 2, t, &io, &view), PJDL_INVALID_ARGUMENT);
    assert_null(view);
    io.has_stream = false;
    LIB_OK(pjdl_import(clients, 2, t, &io, &view));
    assert_ptr_equal(pjdl_buffer_client(view), clients[1]);
    void *a = NULL, *v = NULL;
    LIB_OK(pjdl_buffer_data_pointer(b, &a));
    LIB_OK(pjdl_buffer_data_pointer(view, &v));
    assert_ptr_equal(a, v);
    pjdl_buffer_release(view);
    /* Offered to the first alone, it is refused with the first's reason. */
    LIB_OK(pjdl_buffer_export(b, NULL, &t));
    assert_int_equal(pjdl_import(clients, 1, t, &io, &view), PJDL_INVALID_ARGUMENT);
    assert_non_null(strstr(pjdl_last_error(), "no zero-copy view"));
    t->deleter(t);
    pjdl_buffer_release(b);
    pjdl_client_release(clients[0]);
    pjdl_client_release(clients[1]);
    pjdl_plugin_release(plugin);
}

/* Pinned host memory of the xpu is kDLCPU: exported and imported as such. */
static void pinned_host(void **state) {
    lib_fixture *f = *state;
    pjdl_device *dev = pjdl_client_device(f->client, 0);
    pjdl_memory *pinned = lib_memory_of_kind(dev, "pinned_host");
    DLDevice dl;
    LIB_OK(pjdl_device_dl(dev, pinned, &dl));
    assert_int_equal(dl.device_type, kDLCPU);
    float data[5] = {1, 3, 5, 7, 9}, back[5];
    const int64_t dims[] = {5};
    pjdl_buffer *b = NULL;
    LIB_OK(pjdl_buffer_from_host(f->client, data, PJRT_Buffer_Type_F32, dims, 1, NULL, pinned, &b));
    assert_ptr_equal(pjdl_buffer_memory(b), pinned);
    DLManagedTensorVersioned *t = NULL;
    LIB_OK(pjdl_buffer_export(b, NULL, &t));
    assert_int_equal(t->dl_tensor.device.device_type, kDLCPU);
    assert_memory_equal(t->dl_tensor.data, data, sizeof data);
    pjdl_buffer *view = NULL;
    LIB_OK(pjdl_import(&f->client, 1, t, NULL, &view));
    assert_ptr_equal(pjdl_buffer_memory(view), pinned);
    LIB_OK(pjdl_buffer_to_host(view, back, sizeof back));
    assert_memory_equal(back, data, sizeof data);
    pjdl_buffer_release(view);
    pjdl_buffer_release(b);
}

/* A test with an xpu client of `delay_us` transfers, every `fail_every`-th
 * failing; `teardown` lib_teardown_clean where the test must leave nothing
 * allocated. */
#define XPU_TEST(test, delay_us, fail_every, teardown)                                             \
    {                                                                                              \
#test, test, setup, teardown, &(xpu_setup) {                                               \
            delay_us, fail_every                                                                   \
        }                                                                                          \
    }

int main(void) {
    const struct CMUnitTest tests[] = {
        XPU_TEST(devices_and_round_trip, 0, 0, lib_teardown_clean),
        XPU_TEST(export_on_stream, 20000, 0, lib_teardown_clean), /* transfers take 20 ms */
        XPU_TEST(wait_timeout, 300000, 0, lib_teardown),          /* 300 ms transfers */
        XPU_TEST(ready_event_error, 0, 1, lib_teardown),          /* every transfer fails */
        XPU_TEST(copy_into_device, 5000, 0, lib_teardown_clean),
        XPU_TEST(no_deleter_is_done_on_return, 20000, 0, lib_teardown_clean),
        XPU_TEST(import_with_stream, 2000, 0, lib_teardown),
        cmocka_unit_test(two_clients),
        cmocka_unit_test(refusal_passes_to_the_next_client),
        XPU_TEST(pinned_host, 0, 0, lib_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
