/* The owner of an imported view lives in the view's buffer allocation: the
 * producer's deleter runs when PJRT releases the memory, which may be
 * before the buffer goes (pjdl_buffer_delete) or after it (the plugin still
 * reads the memory), and the allocation is freed by whichever is last. */
#include <time.h>

#include "lib_util.h"

static pjdl_buffer *import_view(pjdl_client *client, DLManagedTensorVersioned *t) {
    pjdl_import_options o = lib_import_options(PJDL_COPY_NEVER);
    pjdl_buffer *b = NULL;
    LIB_OK(pjdl_import(&client, 1, t, &o, &b));
    return b;
}

/* pjdl_buffer_delete hands the memory back: the deleter runs then (at once
 * on the reference plugin, on XLA's own thread a moment later), while the
 * buffer object lives on; its release later frees the rest. */
static void delete_before_release(void **state) {
    (void)state;
    pjdl_plugin *plugin = lib_load_selected();
    pjdl_client *client = lib_cpu_client(plugin, 0);
    int64_t before = lib_on_xla() ? 0 : lib_live_process(plugin);
    float *data = lib_aligned(12 * sizeof *data); /* XLA views nothing less aligned */
    memset(data, 0, 12 * sizeof *data);
    const int64_t shape[] = {3, 4};
    lib_tensor t;
    lib_tensor_init(&t, data, lib_dtype(kDLFloat, 32), 2, shape, NULL);
    pjdl_buffer *b = import_view(client, &t.v);
    assert_int_equal(t.deleted, 0);
    LIB_OK(pjdl_buffer_delete(b));
    assert_int_equal(lib_deleted(&t, 1), 1);
    assert_true(pjdl_buffer_is_deleted(b));
    pjdl_buffer_release(b);
    assert_int_equal(t.deleted, 1);
    if (!lib_on_xla()) /* XLA has no allocation count: valgrind and ASan check it */
        assert_int_equal(lib_live_process(plugin), before);
    pjdl_client_release(client);
    pjdl_plugin_release(plugin);
    free(data);
}

/* Counts the calls of an exported tensor's deleter. */
static void (*export_deleter)(DLManagedTensorVersioned *);
static int export_deletions;

static void counting_deleter(DLManagedTensorVersioned *self) {
    __atomic_fetch_add(&export_deletions, 1, __ATOMIC_SEQ_CST);
    export_deleter(self);
}

/* The buffer goes while the plugin still reads the view's memory (a slow
 * device-to-host copy): the deleter runs once the copy let go of it, on the
 * plugin's thread, and nothing leaks. Reference plugin only: the slow copy
 * is its xpu platform's transfer_delay_us. */
static void release_while_plugin_reads(void **state) {
    (void)state;
    pjdl_plugin *plugin = lib_load();
    /* Counted before the client: its release joins the worker thread, so
     * that everything the copy allocated is gone when it returns. */
    int64_t before = lib_live_process(plugin);
    pjdl_option opts[2] = {{.name = "platform", .type = PJDL_OPTION_STRING},
                           {.name = "transfer_delay_us", .type = PJDL_OPTION_INT64}};
    opts[0].value.string_value = "xpu";
    opts[1].value.int64_value = 20000;
    pjdl_client *client = NULL;
    LIB_OK(pjdl_client_create(plugin, opts, 2, &client));
    float host[64], back[64];
    for (int i = 0; i < 64; i++)
        host[i] = (float)i - 7.5f;
    const int64_t dims[] = {8, 8};
    pjdl_buffer *dev = NULL;
    LIB_OK(pjdl_buffer_from_host(client, host, PJRT_Buffer_Type_F32, dims, 2, NULL, NULL, &dev));
    LIB_OK(pjdl_buffer_await(dev));
    /* A device tensor (kDLOneAPI) viewed again: the view's memory is the
     * device buffer's, pinned by the export until the view lets go. */
    DLManagedTensorVersioned *t = NULL;
    LIB_OK(pjdl_buffer_export(dev, NULL, &t));
    export_deleter = t->deleter;
    t->deleter = counting_deleter;
    export_deletions = 0;
    pjdl_buffer *view = import_view(client, t);

    const PJRT_Api *api = pjdl_plugin_api(plugin);
    PJRT_Buffer *raw = NULL;
    LIB_OK(pjdl_buffer_pjrt(view, &raw));
    PJRT_Buffer_ToHostBuffer_Args th = {.struct_size = PJRT_Buffer_ToHostBuffer_Args_STRUCT_SIZE,
                                        .src = raw,
                                        .dst = back,
                                        .dst_size = sizeof back};
    assert_null(api->PJRT_Buffer_ToHostBuffer(&th));
    assert_non_null(th.event);
    pjdl_buffer_release(view); /* the copy still holds the memory */

    PJRT_Event_Await_Args aw = {.struct_size = PJRT_Event_Await_Args_STRUCT_SIZE,
                                .event = th.event};
    assert_null(api->PJRT_Event_Await(&aw));
    PJRT_Event_Destroy_Args ed = {.struct_size = PJRT_Event_Destroy_Args_STRUCT_SIZE,
                                  .event = th.event};
    assert_null(api->PJRT_Event_Destroy(&ed));
    assert_memory_equal(back, host, sizeof host);
    /* The copy's completion and the release of its hold on the memory may
     * be a moment apart on the plugin's thread: wait for the deleter. */
    for (int i = 0; i < 10000 && __atomic_load_n(&export_deletions, __ATOMIC_SEQ_CST) == 0; i++) {
        struct timespec ts = {0, 1000000};
        nanosleep(&ts, NULL);
    }
    assert_int_equal(__atomic_load_n(&export_deletions, __ATOMIC_SEQ_CST), 1);
    pjdl_buffer_release(dev);
    pjdl_client_release(client);
    assert_int_equal(lib_live_process(plugin), before);
    pjdl_plugin_release(plugin);
}

int main(int argc, char **argv) {
    const struct CMUnitTest tests[] = {cmocka_unit_test(delete_before_release)};
    const struct CMUnitTest ref_only[] = {cmocka_unit_test(release_while_plugin_reads)};
    return lib_run(argc, argv, tests, LIB_COUNT(tests), ref_only, LIB_COUNT(ref_only), NULL, NULL);
}
