/* Ownership: every deleter runs exactly once whatever the release order;
 * transfer mode; delete with live exports; export copies and options. On
 * both plugins (and Intel's oneAPI plugin, tests/oneapi); the xpu
 * platform's release orders on the reference plugin only. */
#include "lib_util.h"
#include "permutations.h"

/* Wraps an exported tensor's deleter to count its calls (atomically: on
 * XLA it may run on a thread of the plugin). */
static void (*original_deleter)(DLManagedTensorVersioned *);
static int export_deletions;

static void counting_deleter(DLManagedTensorVersioned *self) {
    __atomic_fetch_add(&export_deletions, 1, __ATOMIC_SEQ_CST);
    original_deleter(self);
}

static pjdl_buffer *make_buffer(pjdl_client *client, float *data) {
    const int64_t dims[] = {2, 8};
    for (int i = 0; i < 16; i++)
        data[i] = (float)i * 0.5f;
    pjdl_buffer *b = NULL;
    LIB_OK(pjdl_buffer_from_host(client, data, PJRT_Buffer_Type_F32, dims, 2, NULL, NULL, &b));
    return b;
}

/* A client of the plugin under test on `platform` (NULL: its cpu client). */
static pjdl_client *client_on(pjdl_plugin *plugin, const char *platform) {
    return platform == NULL ? lib_cpu_client(plugin, 0) : lib_client(plugin, platform);
}

/* Releases four things in the order given by `perm`: the buffer, the
 * client, the plugin, and the buffer imported from the export (whose
 * release runs the export's deleter). `platform`: NULL for the cpu client
 * of the plugin under test, else a platform of the reference plugin. */
static void release_order(const int perm[4], const char *platform, bool use_stream) {
    pjdl_plugin *plugin = lib_load_selected();
    pjdl_plugin *watch = lib_load_selected();
    int64_t before = lib_on_xla() ? 0 : lib_live_process(watch);
    pjdl_client *client = client_on(plugin, platform);
    float data[16];
    pjdl_buffer *b = make_buffer(client, data);
    DLManagedTensorVersioned *t = NULL;
    pjdl_export_options eo = PJDL_EXPORT_OPTIONS_INIT;
    if (use_stream) {
        eo.has_stream = true;
        LIB_OK(pjdl_device_stream(pjdl_buffer_device(b), &eo.stream));
    }
    LIB_OK(pjdl_buffer_export(b, &eo, &t));
    original_deleter = t->deleter;
    t->deleter = counting_deleter;
    export_deletions = 0;
    pjdl_buffer *back = NULL;
    pjdl_client *clients[] = {client};
    pjdl_import_options o = lib_import_options(PJDL_COPY_NEVER); /* a view on every platform */
    LIB_OK(pjdl_import(clients, 1, t, &o, &back));
    bool back_released = false;
    for (int i = 0; i < 4; i++) {
        switch (perm[i]) {
        case 0:
            pjdl_buffer_release(b);
            break;
        case 1:
            pjdl_client_release(client);
            break;
        case 2:
            pjdl_plugin_release(plugin);
            break;
        case 3:
            pjdl_buffer_release(back);
            back_released = true;
            break;
        }
        /* The view's end is what runs the export's deleter: right then on
         * the reference plugin, on XLA's own thread a moment later. */
        int want = back_released ? 1 : 0;
        if (lib_on_xla() && back_released)
            lib_wait_count(&export_deletions, 1);
        assert_int_equal(__atomic_load_n(&export_deletions, __ATOMIC_SEQ_CST), want);
    }
    if (!lib_on_xla()) /* XLA has no allocation count: valgrind and ASan check it */
        assert_int_equal(lib_live_process(watch), before);
    pjdl_plugin_release(watch);
}

static void every_release_order_on(const char *platform, bool use_stream) {
    int perm[4] = {0, 1, 2, 3}, n = 0;
    do {
        release_order(perm, platform, use_stream);
        n++;
    } while (test_next_permutation(perm, 4));
    assert_int_equal(n, 24);
}

static void every_release_order(void **state) {
    (void)state;
    every_release_order_on(NULL, false);
}

/* The same on the reference plugin's xpu platform, with and without a
 * stream. */
static void every_release_order_xpu(void **state) {
    (void)state;
    every_release_order_on("xpu", false);
    every_release_order_on("xpu", true);
}

/* Deleting the tensor first, before any handle goes. */
static void deleter_first(void **state) {
    (void)state;
    pjdl_plugin *plugin = lib_load_selected();
    pjdl_client *client = lib_cpu_client(plugin, 0);
    float data[16];
    pjdl_buffer *b = make_buffer(client, data);
    DLManagedTensorVersioned *t = NULL;
    DLManagedTensor *l = NULL;
    LIB_OK(pjdl_buffer_export(b, NULL, &t));
    LIB_OK(pjdl_buffer_export_legacy(b, NULL, &l));
    pjdl_buffer_release(b);
    pjdl_client_release(client);
    pjdl_plugin_release(plugin);
    /* Everything is still alive through the exports. */
    assert_memory_equal(t->dl_tensor.data, data, sizeof data);
    assert_memory_equal(l->dl_tensor.data, data, sizeof data);
    l->deleter(l);
    t->deleter(t);
}

static void transfer_mode(void **state) {
    (void)state;
    pjdl_plugin *plugin = lib_load_selected();
    pjdl_client *client = lib_cpu_client(plugin, 0);
    float data[16], host[16];
    pjdl_buffer *b = make_buffer(client, data);
    pjdl_export_options o = PJDL_EXPORT_OPTIONS_INIT;
    o.mode = PJDL_EXPORT_TRANSFER;
    DLManagedTensorVersioned *t = NULL;
    LIB_OK(pjdl_buffer_export(b, &o, &t));
    assert_true(pjdl_buffer_is_deleted(b));
    PJRT_Buffer *raw;
    LIB_FAILS(PJDL_FAILED_PRECONDITION, pjdl_buffer_pjrt(b, &raw));
    assert_non_null(strstr(pjdl_last_error(), "released to DLPack"));
    LIB_FAILS(PJDL_FAILED_PRECONDITION, pjdl_buffer_to_host(b, host, sizeof host));
    LIB_FAILS(PJDL_FAILED_PRECONDITION, pjdl_buffer_await(b));
    DLManagedTensorVersioned *t2 = NULL;
    LIB_FAILS(PJDL_FAILED_PRECONDITION, pjdl_buffer_export(b, NULL, &t2));
    LIB_FAILS(PJDL_FAILED_PRECONDITION, pjdl_buffer_export(b, &o, &t2));
    LIB_FAILS(PJDL_FAILED_PRECONDITION, pjdl_buffer_delete(b));
    /* Metadata still works. */
    assert_int_equal(pjdl_buffer_ndim(b), 2);
    pjdl_buffer_release(b);
    pjdl_client_release(client);
    assert_memory_equal(t->dl_tensor.data, data, sizeof data);
    t->deleter(t);
    pjdl_plugin_release(plugin);
}

static void delete_with_live_export(void **state) {
    lib_fixture *f = *state;
    float data[16], host[16];
    pjdl_buffer *b = make_buffer(f->client, data);
    DLManagedTensorVersioned *t = NULL;
    LIB_OK(pjdl_buffer_export(b, NULL, &t));
    LIB_OK(pjdl_buffer_delete(b));
    LIB_OK(pjdl_buffer_delete(b)); /* twice is fine */
    assert_true(pjdl_buffer_is_deleted(b));
    LIB_FAILS(PJDL_FAILED_PRECONDITION, pjdl_buffer_to_host(b, host, sizeof host));
    assert_non_null(strstr(pjdl_last_error(), "deleted"));
    assert_memory_equal(t->dl_tensor.data, data, sizeof data); /* pinned */
    t->deleter(t);
    pjdl_buffer_release(b);
}

/* Exports of `b` (holding `data`, at `device_ptr`) asking for a DLDevice:
 * a device type it cannot copy to is refused; the buffer's own DLDevice is
 * a view; the host (kDLCPU) is the same on the cpu platforms, a host copy
 * of Intel's GPU memory. */
static void expect_dl_device_exports(pjdl_buffer *b, const void *device_ptr, const float *data) {
    pjdl_export_options o = PJDL_EXPORT_OPTIONS_INIT;
    DLManagedTensorVersioned *t = NULL;
    o.has_dl_device = true;
    o.dl_device = (DLDevice){kDLCUDA, 0};
    LIB_FAILS(PJDL_INVALID_ARGUMENT, pjdl_buffer_export(b, &o, &t));
    LIB_OK(pjdl_buffer_dl_device(b, &o.dl_device));
    assert_int_equal(o.dl_device.device_type, LIB_EXPORT_DEVICE_TYPE);
    LIB_OK(pjdl_buffer_export(b, &o, &t));
    assert_ptr_equal(t->dl_tensor.data, device_ptr);
    t->deleter(t);
    o.dl_device = (DLDevice){kDLCPU, 0};
    LIB_OK(pjdl_buffer_export(b, &o, &t));
    if (LIB_EXPORT_DEVICE_TYPE == kDLCPU) {
        assert_ptr_equal(t->dl_tensor.data, device_ptr);
    } else {
        assert_true(t->flags & DLPACK_FLAG_BITMASK_IS_COPIED);
        assert_ptr_not_equal(t->dl_tensor.data, device_ptr);
        assert_int_equal(t->dl_tensor.device.device_type, kDLCPU);
        assert_memory_equal(t->dl_tensor.data, data, 16 * sizeof *data);
    }
    t->deleter(t);
}

static void export_options(void **state) {
    lib_fixture *f = *state;
    float data[16];
    pjdl_buffer *b = make_buffer(f->client, data);
    void *device_ptr = NULL;
    LIB_OK(pjdl_buffer_data_pointer(b, &device_ptr));

    pjdl_export_options o = PJDL_EXPORT_OPTIONS_INIT;
    o.copy = PJDL_COPY_ALWAYS;
    DLManagedTensorVersioned *t = NULL;
    LIB_OK(pjdl_buffer_export(b, &o, &t));
    assert_true(t->flags & DLPACK_FLAG_BITMASK_IS_COPIED);
    assert_ptr_not_equal(t->dl_tensor.data, device_ptr);
    assert_int_equal((uintptr_t)t->dl_tensor.data % 64, 0);
    assert_memory_equal(t->dl_tensor.data, data, sizeof data);
    assert_int_equal(t->dl_tensor.strides[0], 8);
    assert_int_equal(t->dl_tensor.strides[1], 1);
    t->deleter(t);

    o = (pjdl_export_options)PJDL_EXPORT_OPTIONS_INIT;
    o.read_only = true;
    LIB_OK(pjdl_buffer_export(b, &o, &t));
    assert_true(t->flags & DLPACK_FLAG_BITMASK_READ_ONLY);
    assert_ptr_equal(t->dl_tensor.data, device_ptr);
    t->deleter(t);

    DLManagedTensor *l = NULL;
    o.copy = PJDL_COPY_NEVER;
    LIB_FAILS(PJDL_INVALID_ARGUMENT, pjdl_buffer_export_legacy(b, &o, &l));
    o.copy = PJDL_COPY_IF_NEEDED;
    LIB_OK(pjdl_buffer_export_legacy(b, &o, &l));
    assert_ptr_not_equal(l->dl_tensor.data, device_ptr);
    l->deleter(l);

    expect_dl_device_exports(b, device_ptr, data);

    /* A consumer stream: refused by a plugin without streams (and by
     * Intel's when null), waited on with Intel's own. */
    o = (pjdl_export_options)PJDL_EXPORT_OPTIONS_INIT;
    o.has_stream = true;
    o.stream = lib_refused_stream();
    assert_int_not_equal(pjdl_buffer_export(b, &o, &t), PJDL_OK);
    if (lib_has_streams()) {
        LIB_OK(pjdl_device_stream(pjdl_buffer_device(b), &o.stream));
        LIB_OK(pjdl_buffer_export(b, &o, &t));
        assert_ptr_equal(t->dl_tensor.data, device_ptr);
        t->deleter(t);
    }
    o = (pjdl_export_options)PJDL_EXPORT_OPTIONS_INIT;
    o.struct_size = 3;
    LIB_FAILS(PJDL_INVALID_ARGUMENT, pjdl_buffer_export(b, &o, &t));
    o = (pjdl_export_options)PJDL_EXPORT_OPTIONS_INIT;
    o.mode = (pjdl_export_mode)7;
    LIB_FAILS(PJDL_INVALID_ARGUMENT, pjdl_buffer_export(b, &o, &t));
    assert_false(pjdl_buffer_is_deleted(b));
    pjdl_buffer_release(b);
}

/* Sentinel for "out-parameter left untouched". */
#define UNTOUCHED ((DLManagedTensorVersioned *)&untouched_marker)
static int untouched_marker;

static void raw_delete(pjdl_plugin *plugin, pjdl_buffer *b) {
    PJRT_Buffer *raw = NULL;
    LIB_OK(pjdl_buffer_pjrt(b, &raw));
    const PJRT_Api *api = pjdl_plugin_api(plugin);
    PJRT_Buffer_Delete_Args d = {.struct_size = PJRT_Buffer_Delete_Args_STRUCT_SIZE, .buffer = raw};
    assert_null(api->PJRT_Buffer_Delete(&d));
}

/* Exports keep the data pointer of the first one, under the library's one
 * pin of the PJRT buffer. Here the PJRT buffer is deleted behind the
 * library's back while an earlier export is live: the library does not
 * know, and its pin still holds the memory, so exports go on sharing it.
 * Once no export is live and the handle is taken again, the pin is dropped,
 * and the next export's pin refuses: the pointer is never handed out once
 * the memory is gone. */
static void kept_pointer_after_raw_delete(void **state) {
    lib_fixture *f = *state;
    float data[16];
    pjdl_buffer *b = make_buffer(f->client, data);
    void *device_ptr = NULL;
    LIB_OK(pjdl_buffer_data_pointer(b, &device_ptr));
    DLManagedTensorVersioned *first = NULL, *t = NULL;
    LIB_OK(pjdl_buffer_export(b, NULL, &first));
    assert_ptr_equal(first->dl_tensor.data, device_ptr);
    for (int i = 0; i < 3; i++) {
        LIB_OK(pjdl_buffer_export(b, NULL, &t));
        assert_ptr_equal(t->dl_tensor.data, device_ptr);
        t->deleter(t);
    }
    raw_delete(f->plugin, b); /* the handle taken with `first` live: the pin stays */
    assert_false(pjdl_buffer_is_deleted(b));
    /* The plugin's refusal passes through with its code: the reference
     * plugin says FAILED_PRECONDITION, XLA INVALID_ARGUMENT ("Buffer has
     * been deleted or donated"). */
    const pjdl_code refused = lib_on_xla() ? PJDL_INVALID_ARGUMENT : PJDL_FAILED_PRECONDITION;
    LIB_OK(pjdl_buffer_export(b, NULL, &t));
    assert_ptr_equal(t->dl_tensor.data, device_ptr);
    assert_memory_equal(t->dl_tensor.data, data, sizeof data); /* held by the pin */
    t->deleter(t);
    void *ptr = NULL;
    LIB_FAILS(refused, pjdl_buffer_data_pointer(b, &ptr));
    assert_memory_equal(first->dl_tensor.data, data, sizeof data);
    first->deleter(first);
    PJRT_Buffer *raw = NULL;
    LIB_OK(pjdl_buffer_pjrt(b, &raw)); /* no export live: the pin goes */
    t = UNTOUCHED;
    LIB_FAILS(refused, pjdl_buffer_export(b, NULL, &t));
    assert_non_null(strstr(pjdl_last_error(), "PJRT_Buffer_IncreaseExternalReferenceCount"));
    assert_ptr_equal(t, UNTOUCHED);
    DLManagedTensor *l = (DLManagedTensor *)&untouched_marker;
    LIB_FAILS(refused, pjdl_buffer_export_legacy(b, NULL, &l));
    assert_ptr_equal(l, (DLManagedTensor *)&untouched_marker);
    pjdl_export_options o = PJDL_EXPORT_OPTIONS_INIT;
    o.mode = PJDL_EXPORT_TRANSFER;
    LIB_FAILS(refused, pjdl_buffer_export(b, &o, &t));
    assert_ptr_equal(t, UNTOUCHED);
    assert_false(pjdl_buffer_is_deleted(b)); /* the failed transfer undid itself */
    pjdl_buffer_release(b);
}

/* The plugin's external reference count of the PJRT buffer: `n` decreases
 * succeed and the next is refused; the count is then put back. */
static void expect_plugin_pins(pjdl_plugin *plugin, PJRT_Buffer *raw, int n) {
    const PJRT_Api *api = pjdl_plugin_api(plugin);
    PJRT_Buffer_DecreaseExternalReferenceCount_Args dec = {
        .struct_size = PJRT_Buffer_DecreaseExternalReferenceCount_Args_STRUCT_SIZE, .buffer = raw};
    PJRT_Buffer_IncreaseExternalReferenceCount_Args inc = {
        .struct_size = PJRT_Buffer_IncreaseExternalReferenceCount_Args_STRUCT_SIZE, .buffer = raw};
    for (int i = 0; i < n; i++)
        assert_null(api->PJRT_Buffer_DecreaseExternalReferenceCount(&dec));
    PJRT_Error *e = api->PJRT_Buffer_DecreaseExternalReferenceCount(&dec);
    assert_non_null(e);
    PJRT_Error_Destroy_Args d = {.struct_size = PJRT_Error_Destroy_Args_STRUCT_SIZE, .error = e};
    api->PJRT_Error_Destroy(&d);
    for (int i = 0; i < n; i++)
        assert_null(api->PJRT_Buffer_IncreaseExternalReferenceCount(&inc));
}

/* The library pins a PJRT buffer once, at its first export, and keeps the
 * pin while the buffer lives: later exports and deleters leave the
 * plugin's count alone. The pin goes with a delete or with the handle
 * taken while no export is live, and with the buffer. */
static void one_pin_per_buffer(void **state) {
    lib_fixture *f = *state;
    float data[16];
    pjdl_buffer *b = make_buffer(f->client, data);
    PJRT_Buffer *raw = NULL;
    LIB_OK(pjdl_buffer_pjrt(b, &raw));
    expect_plugin_pins(f->plugin, raw, 0);
    DLManagedTensorVersioned *t[3];
    for (int i = 0; i < 3; i++)
        LIB_OK(pjdl_buffer_export(b, NULL, &t[i]));
    expect_plugin_pins(f->plugin, raw, 1);
    for (int i = 0; i < 3; i++)
        t[i]->deleter(t[i]);
    expect_plugin_pins(f->plugin, raw, 1); /* kept for the next export */
    LIB_OK(pjdl_buffer_export(b, NULL, &t[0]));
    PJRT_Buffer *again = NULL;
    LIB_OK(pjdl_buffer_pjrt(b, &again)); /* an export is live: kept */
    expect_plugin_pins(f->plugin, raw, 1);
    t[0]->deleter(t[0]);
    LIB_OK(pjdl_buffer_pjrt(b, &again)); /* none live: dropped */
    expect_plugin_pins(f->plugin, raw, 0);
    LIB_OK(pjdl_buffer_export(b, NULL, &t[0]));
    LIB_OK(pjdl_buffer_delete(b)); /* an export is live: the pin and the memory stay */
    assert_memory_equal(t[0]->dl_tensor.data, data, sizeof data);
    t[0]->deleter(t[0]);
    pjdl_buffer_release(b);
}

/* A zero-copy export of the buffer `data` was given to make_buffer. */
static void expect_view(const DLTensor *t, const float *data) {
    assert_int_equal(t->ndim, 2);
    assert_int_equal(t->shape[0], 2);
    assert_int_equal(t->shape[1], 8);
    assert_int_equal(t->strides[0], 8);
    assert_int_equal(t->strides[1], 1);
    assert_memory_equal(t->data, data, 16 * sizeof(float));
}

/* Exports live at once have blocks of their own. The one made while no
 * other is live uses the block the buffer keeps, which only the next export
 * made while none is live reuses, whatever order the deleters ran in. */
static void exports_live_together(void **state) {
    lib_fixture *f = *state;
    float data[16];
    pjdl_buffer *b = make_buffer(f->client, data);
    DLManagedTensorVersioned *kept = NULL, *t[2];
    DLManagedTensor *legacy = NULL;
    LIB_OK(pjdl_buffer_export(b, NULL, &kept));
    LIB_OK(pjdl_buffer_export_legacy(b, NULL, &legacy));
    LIB_OK(pjdl_buffer_export(b, NULL, &t[0]));
    void *first = kept;
    kept->deleter(kept);                        /* the kept block's export goes first */
    LIB_OK(pjdl_buffer_export(b, NULL, &t[1])); /* two live: not the kept block */
    assert_ptr_not_equal(t[1], first);
    assert_ptr_not_equal((void *)legacy, (void *)t[0]);
    assert_ptr_not_equal(t[0], t[1]);
    expect_view(&legacy->dl_tensor, data);
    expect_view(&t[0]->dl_tensor, data);
    expect_view(&t[1]->dl_tensor, data);
    t[0]->deleter(t[0]);
    legacy->deleter(legacy);
    t[1]->deleter(t[1]);
    LIB_OK(pjdl_buffer_export_legacy(b, NULL, &legacy)); /* none live: the kept block */
    assert_ptr_equal((void *)legacy, first);
    expect_view(&legacy->dl_tensor, data);
    legacy->deleter(legacy);
    pjdl_buffer_release(b);
}

/* The kept pointer after pjdl_buffer_delete, a failed transfer and a
 * transfer: refused after a delete or a transfer, the same memory after a
 * transfer that failed. */
static void kept_pointer_after_delete_and_transfer(void **state) {
    lib_fixture *f = *state;
    float data[16];
    pjdl_buffer *b = make_buffer(f->client, data);
    void *device_ptr = NULL;
    LIB_OK(pjdl_buffer_data_pointer(b, &device_ptr));
    DLManagedTensorVersioned *t = NULL;
    LIB_OK(pjdl_buffer_export(b, NULL, &t));
    t->deleter(t);
    /* A transfer that fails after its pin (a stream the plugin refuses). */
    pjdl_export_options o = PJDL_EXPORT_OPTIONS_INIT;
    o.mode = PJDL_EXPORT_TRANSFER;
    o.has_stream = true;
    o.stream = lib_refused_stream();
    t = UNTOUCHED;
    assert_int_not_equal(pjdl_buffer_export(b, &o, &t), PJDL_OK);
    assert_ptr_equal(t, UNTOUCHED);
    assert_false(pjdl_buffer_is_deleted(b));
    LIB_OK(pjdl_buffer_export(b, NULL, &t));
    assert_ptr_equal(t->dl_tensor.data, device_ptr);
    t->deleter(t);
    /* A transfer: the consumer gets the memory, nobody else afterwards. */
    o = (pjdl_export_options)PJDL_EXPORT_OPTIONS_INIT;
    o.mode = PJDL_EXPORT_TRANSFER;
    DLManagedTensorVersioned *moved = NULL;
    LIB_OK(pjdl_buffer_export(b, &o, &moved));
    assert_ptr_equal(moved->dl_tensor.data, device_ptr);
    t = UNTOUCHED;
    LIB_FAILS(PJDL_FAILED_PRECONDITION, pjdl_buffer_export(b, NULL, &t));
    assert_non_null(strstr(pjdl_last_error(), "released to DLPack"));
    assert_ptr_equal(t, UNTOUCHED);
    pjdl_buffer_release(b);
    assert_memory_equal(moved->dl_tensor.data, data, sizeof data);
    moved->deleter(moved);
    /* pjdl_buffer_delete after exports kept the pointer. */
    b = make_buffer(f->client, data);
    LIB_OK(pjdl_buffer_export(b, NULL, &t));
    t->deleter(t);
    LIB_OK(pjdl_buffer_delete(b));
    t = UNTOUCHED;
    LIB_FAILS(PJDL_FAILED_PRECONDITION, pjdl_buffer_export(b, NULL, &t));
    assert_non_null(strstr(pjdl_last_error(), "deleted"));
    assert_ptr_equal(t, UNTOUCHED);
    pjdl_buffer_release(b);
}

int main(int argc, char **argv) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_release_order),
        cmocka_unit_test(deleter_first),
        cmocka_unit_test(transfer_mode),
        cmocka_unit_test_setup_teardown(delete_with_live_export, lib_setup, lib_teardown_clean),
        cmocka_unit_test_setup_teardown(export_options, lib_setup, lib_teardown_clean),
        cmocka_unit_test_setup_teardown(one_pin_per_buffer, lib_setup, lib_teardown_clean),
        cmocka_unit_test_setup_teardown(exports_live_together, lib_setup, lib_teardown_clean),
        cmocka_unit_test_setup_teardown(kept_pointer_after_raw_delete, lib_setup,
                                        lib_teardown_clean),
        cmocka_unit_test_setup_teardown(kept_pointer_after_delete_and_transfer, lib_setup,
                                        lib_teardown_clean),
    };
    const struct CMUnitTest ref_only[] = {cmocka_unit_test(every_release_order_xpu)};
    return lib_run(argc, argv, tests, LIB_COUNT(tests), ref_only, LIB_COUNT(ref_only), NULL, NULL);
}
