/* Views, pins and exports as every user of a real plugin relies on them,
 * with nothing that needs the reference plugin's test extension: on the
 * reference plugin and on XLA's own CPU plugin (PJRT_XLA_CPU_PLUGIN,
 * installed by the set-up; a missing plugin fails the test, it never
 * skips). */
#include <pthread.h>

#include "lib_util.h"

/* `n` floats 0, 1, 2, ... in 64-byte-aligned memory. */
static float *aligned_iota(int n) {
    float *data = lib_aligned((size_t)n * sizeof(float));
    for (int i = 0; i < n; i++)
        data[i] = (float)i;
    return data;
}

/* Imports `t` as a view (PJDL_COPY_NEVER) and checks that it is one: the
 * buffer's memory is the tensor's. */
static pjdl_buffer *view_of(lib_fixture *f, lib_tensor *t) {
    pjdl_import_options io = lib_import_options(PJDL_COPY_NEVER);
    pjdl_buffer *b = NULL;
    LIB_OK(pjdl_import(&f->client, 1, &t->v, &io, &b));
    void *ptr = NULL;
    LIB_OK(pjdl_buffer_data_pointer(b, &ptr));
    assert_ptr_equal(ptr, t->storage);
    return b;
}

/* A host tensor imported as a view: same pointer, writes seen both ways,
 * and the deleter once, when the view goes. */
static void host_view(void **state) {
    lib_fixture *f = *state;
    float *data = aligned_iota(12);
    const int64_t shape[] = {3, 4};
    lib_tensor t;
    lib_tensor_init(&t, data, lib_dtype(kDLFloat, 32), 2, shape, NULL);
    pjdl_buffer *b = view_of(f, &t);
    data[5] = 99.0f; /* the producer writes; the buffer sees it */
    float got[12];
    LIB_OK(pjdl_buffer_to_host(b, got, sizeof got));
    assert_true(got[5] == 99.0f && got[11] == 11.0f);
    DLManagedTensorVersioned *e = NULL; /* and exports it as the same memory */
    LIB_OK(pjdl_buffer_export(b, NULL, &e));
    assert_ptr_equal(e->dl_tensor.data, data);
    pjdl_buffer_release(b);
    assert_int_equal(t.deleted, 0); /* the export still pins the view */
    e->deleter(e);
    assert_int_equal(lib_deleted(&t, 1), 1);
    free(data);
}

/* Memory aligned to its element but not to 16 or 64 bytes: the reference
 * plugin views it, and so does Intel's oneAPI plugin (XLA's GPU client
 * checks no alignment; tests/oneapi builds this file for it); XLA's CPU
 * plugin refuses views below its alignment, and the library copies when
 * allowed and says why when not. */
#ifdef PJDL_TEST_ONEAPI
#define VIEWS_UNALIGNED true
#else
#define VIEWS_UNALIGNED (!lib_on_xla())
#endif
static void unaligned_view(void **state) {
    lib_fixture *f = *state;
    char *block = lib_aligned(64 + 16 * sizeof(float));
    float *data = (float *)(block + 4); /* element-aligned, not 16/64-aligned */
    for (int i = 0; i < 16; i++)
        data[i] = (float)(i * 3);
    const int64_t shape[] = {16};
    lib_tensor t;
    lib_tensor_init(&t, data, lib_dtype(kDLFloat, 32), 1, shape, NULL);
    pjdl_import_options io = lib_import_options(PJDL_COPY_NEVER);
    pjdl_buffer *b = NULL;
    pjdl_code rc = pjdl_import(&f->client, 1, &t.v, &io, &b);
    if (VIEWS_UNALIGNED) {
        LIB_OK(rc);
        void *ptr = NULL;
        LIB_OK(pjdl_buffer_data_pointer(b, &ptr));
        assert_ptr_equal(ptr, data);
        pjdl_buffer_release(b);
        assert_int_equal(lib_deleted(&t, 1), 1);
        free(block);
        return;
    }
    assert_int_not_equal(rc, PJDL_OK);
    print_message("unaligned view refused: %s\n", pjdl_last_error());
    assert_non_null(strstr(pjdl_last_error(), "align"));
    assert_int_equal(t.deleted, 0);
    io.copy = PJDL_COPY_IF_NEEDED;
    LIB_OK(pjdl_import(&f->client, 1, &t.v, &io, &b));
    assert_int_equal(t.deleted, 1); /* a copy: released by the call itself */
    void *ptr = NULL;
    LIB_OK(pjdl_buffer_data_pointer(b, &ptr));
    assert_ptr_not_equal(ptr, data);
    float got[16];
    LIB_OK(pjdl_buffer_to_host(b, got, sizeof got));
    assert_memory_equal(got, data, sizeof got);
    pjdl_buffer_release(b);
    free(block);
}

/* A column-major tensor (a compact permutation) is viewed in place; gaps
 * are copied. */
static void permutation_view_and_gap_copy(void **state) {
    lib_fixture *f = *state;
    float *data = aligned_iota(64);
    const int64_t shape[] = {3, 4};
    const int64_t col_major[] = {1, 3};
    lib_tensor t;
    lib_tensor_init(&t, data, lib_dtype(kDLFloat, 32), 2, shape, col_major);
    float got[12];
    pjdl_buffer *b = NULL;
    if (!lib_views_keep_layouts()) {
        /* The plugin ignores a view's layout: no view, a copy when allowed. */
        pjdl_import_options never = lib_import_options(PJDL_COPY_NEVER);
        LIB_FAILS(PJDL_UNIMPLEMENTED, pjdl_import(&f->client, 1, &t.v, &never, &b));
        assert_non_null(strstr(pjdl_last_error(), "ignores the layout of a view"));
        LIB_OK(pjdl_import(&f->client, 1, &t.v, NULL, &b));
        LIB_OK(pjdl_buffer_to_host(b, got, sizeof got));
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 4; j++)
                assert_true(got[i * 4 + j] == data[i + 3 * j]);
        pjdl_buffer_release(b);
        assert_int_equal(lib_deleted(&t, 1), 1);
        lib_tensor_init(&t, data, lib_dtype(kDLFloat, 32), 2, shape, col_major);
    }
    b = lib_views_keep_layouts() ? view_of(f, &t) : NULL;
    if (b == NULL) {
        free(data);
        return;
    }
    LIB_OK(pjdl_buffer_to_host(b, got, sizeof got));
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 4; j++)
            assert_true(got[i * 4 + j] == data[i + 3 * j]);
    /* Exported again, it keeps its strides. */
    DLManagedTensorVersioned *e = NULL;
    LIB_OK(pjdl_buffer_export(b, NULL, &e));
    assert_non_null(e->dl_tensor.strides);
    assert_int_equal(e->dl_tensor.strides[0], 1);
    assert_int_equal(e->dl_tensor.strides[1], 3);
    e->deleter(e);
    pjdl_buffer_release(b);
    assert_int_equal(lib_deleted(&t, 1), 1);

    const int64_t gap[] = {8, 1}; /* rows of 4 in rows of 8 */
    lib_tensor g;
    lib_tensor_init(&g, data, lib_dtype(kDLFloat, 32), 2, shape, gap);
    pjdl_import_options io = lib_import_options(PJDL_COPY_NEVER);
    LIB_FAILS(PJDL_INVALID_ARGUMENT, pjdl_import(&f->client, 1, &g.v, &io, &b));
    io.copy = PJDL_COPY_IF_NEEDED;
    LIB_OK(pjdl_import(&f->client, 1, &g.v, &io, &b));
    LIB_OK(pjdl_buffer_to_host(b, got, sizeof got));
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 4; j++)
            assert_true(got[i * 4 + j] == data[i * 8 + j]);
    pjdl_buffer_release(b);
    assert_int_equal(lib_deleted(&g, 1), 1);
    free(data);
}

static pjdl_buffer *floats(lib_fixture *f, int n, float base) {
    float *data = malloc((size_t)n * sizeof *data);
    for (int i = 0; i < n; i++)
        data[i] = base + (float)i;
    const int64_t dims[] = {n};
    pjdl_buffer *b = NULL;
    LIB_OK(pjdl_buffer_from_host(f->client, data, PJRT_Buffer_Type_F32, dims, 1, NULL, NULL, &b));
    free(data);
    return b;
}

/* An export pins the memory: it outlives pjdl_buffer_delete and the last
 * release of the buffer, and other allocations do not reuse it. */
static void pin_outlives_delete(void **state) {
    lib_fixture *f = *state;
    pjdl_buffer *b = floats(f, 1024, 7.0f);
    DLManagedTensorVersioned *e = NULL;
    LIB_OK(pjdl_buffer_export(b, NULL, &e));
    LIB_OK(pjdl_buffer_delete(b));
    assert_true(pjdl_buffer_is_deleted(b));
    DLManagedTensorVersioned *again = NULL;
    LIB_FAILS(PJDL_FAILED_PRECONDITION, pjdl_buffer_export(b, NULL, &again));
    pjdl_buffer_release(b);
    pjdl_buffer *churn[16];
    for (int i = 0; i < 16; i++)
        churn[i] = floats(f, 1024, -1.0f);
    const float *x = e->dl_tensor.data;
    for (int i = 0; i < 1024; i++)
        assert_true(x[i] == 7.0f + (float)i);
    e->deleter(e);
    for (int i = 0; i < 16; i++)
        pjdl_buffer_release(churn[i]);
}

/* The producer's deleter runs exactly once, after the last of the view and
 * its exports goes, whatever the order. */
static void deleter_once_every_order(void **state) {
    lib_fixture *f = *state;
    for (int order = 0; order < 3; order++) {
        float *data = lib_aligned(64 * sizeof(float));
        const int64_t shape[] = {64};
        lib_tensor t;
        lib_tensor_init(&t, data, lib_dtype(kDLFloat, 32), 1, shape, NULL);
        pjdl_buffer *b = NULL;
        LIB_OK(pjdl_import(&f->client, 1, &t.v, NULL, &b));
        DLManagedTensorVersioned *e = NULL;
        LIB_OK(pjdl_buffer_export(b, NULL, &e));
        switch (order) {
        case 0: /* release the view, then the export */
            pjdl_buffer_release(b);
            assert_int_equal(t.deleted, 0);
            e->deleter(e);
            break;
        case 1: /* the export first */
            e->deleter(e);
            assert_int_equal(t.deleted, 0);
            pjdl_buffer_release(b);
            break;
        default: /* delete, then the export, then the release */
            LIB_OK(pjdl_buffer_delete(b));
            assert_int_equal(t.deleted, 0);
            e->deleter(e);
            pjdl_buffer_release(b);
            break;
        }
        assert_int_equal(lib_deleted(&t, 1), 1);
        free(data);
    }
}

static void transfer_mode(void **state) {
    lib_fixture *f = *state;
    pjdl_buffer *b = floats(f, 256, 1.0f);
    pjdl_export_options o = PJDL_EXPORT_OPTIONS_INIT;
    o.mode = PJDL_EXPORT_TRANSFER;
    DLManagedTensorVersioned *e = NULL;
    LIB_OK(pjdl_buffer_export(b, &o, &e));
    float got[256];
    LIB_FAILS(PJDL_FAILED_PRECONDITION, pjdl_buffer_to_host(b, got, sizeof got));
    DLManagedTensorVersioned *again = NULL;
    LIB_FAILS(PJDL_FAILED_PRECONDITION, pjdl_buffer_export(b, NULL, &again));
    pjdl_buffer_release(b);
    const float *x = e->dl_tensor.data;
    assert_true(x[0] == 1.0f && x[255] == 256.0f);
    e->deleter(e);
}

/* Buffers on every device of the client export with the right data. */
static void every_device(void **state) {
    lib_fixture *f = *state;
    size_t n = pjdl_client_device_count(f->client);
    assert_true(n >= 1);
    for (size_t d = 0; d < n; d++) {
        pjdl_device *dev = pjdl_client_device(f->client, d);
        float data[8] = {0, 1, 2, 3, 4, 5, 6, (float)d};
        const int64_t dims[] = {8};
        pjdl_buffer *b = NULL;
        LIB_OK(pjdl_buffer_from_host(f->client, data, PJRT_Buffer_Type_F32, dims, 1, NULL,
                                     pjdl_device_default_memory(dev), &b));
        assert_ptr_equal(pjdl_buffer_device(b), dev);
        DLManagedTensorVersioned *e = NULL;
        LIB_OK(pjdl_buffer_export(b, NULL, &e));
        assert_int_equal(e->dl_tensor.device.device_type, LIB_EXPORT_DEVICE_TYPE);
        assert_memory_equal(e->dl_tensor.data, data, sizeof data); /* ze_sim: host memory */
        e->deleter(e);
        pjdl_buffer_release(b);
    }
}

/* Many threads export, delete and import views of one shared buffer. XLA's
 * plugin crashes if its external reference count is changed concurrently on
 * one buffer: the library must serialize those calls. */
typedef struct worker {
    lib_fixture *f;
    pjdl_buffer *shared;
    int *imports_deleted; /* atomic */
    int imports;
    int failures;
} worker;

static void deleted_counter(DLManagedTensorVersioned *self) {
    __atomic_fetch_add((int *)self->manager_ctx, 1, __ATOMIC_SEQ_CST);
    free(self);
}

static void *work(void *arg) {
    worker *w = arg;
    for (int i = 0; i < 200; i++) {
        DLManagedTensorVersioned *e = NULL;
        if (pjdl_buffer_export(w->shared, NULL, &e) != PJDL_OK) {
            w->failures++;
            continue;
        }
        if (((const float *)e->dl_tensor.data)[3] != 3.0f)
            w->failures++;
        /* A view of the exported memory, with a deleter of its own. */
        DLManagedTensorVersioned *v = malloc(sizeof *v);
        *v = *e;
        v->manager_ctx = w->imports_deleted;
        v->deleter = deleted_counter;
        pjdl_buffer *view = NULL;
        if (pjdl_import(&w->f->client, 1, v, NULL, &view) == PJDL_OK) {
            w->imports++;
            pjdl_buffer_release(view);
        } else {
            w->failures++;
            free(v);
        }
        e->deleter(e);
    }
    return NULL;
}

static void many_threads(void **state) {
    lib_fixture *f = *state;
    float *data = aligned_iota(4096);
    const int64_t dims[] = {4096};
    pjdl_buffer *shared = NULL;
    LIB_OK(
        pjdl_buffer_from_host(f->client, data, PJRT_Buffer_Type_F32, dims, 1, NULL, NULL, &shared));
    int deleted = 0;
    worker w[6];
    pthread_t tid[6];
    for (int i = 0; i < 6; i++) {
        w[i] = (worker){f, shared, &deleted, 0, 0};
        assert_int_equal(pthread_create(&tid[i], NULL, work, &w[i]), 0);
    }
    int imports = 0;
    for (int i = 0; i < 6; i++) {
        pthread_join(tid[i], NULL);
        assert_int_equal(w[i].failures, 0);
        imports += w[i].imports;
    }
    assert_int_equal(imports, 6 * 200);
    /* XLA may release a view's memory on its own thread, a moment after its
     * last release; the reference plugin does so inside it. */
    if (lib_on_xla())
        lib_wait_count(&deleted, imports);
    assert_int_equal(__atomic_load_n(&deleted, __ATOMIC_SEQ_CST), imports);
    /* Every pin was dropped: a decrease at zero is refused by the plugin. */
    PJRT_Buffer *pb = NULL;
    LIB_OK(pjdl_buffer_pjrt(shared, &pb));
    const PJRT_Api *api = pjdl_plugin_api(f->plugin);
    PJRT_Buffer_DecreaseExternalReferenceCount_Args dec = {
        .struct_size = PJRT_Buffer_DecreaseExternalReferenceCount_Args_STRUCT_SIZE, .buffer = pb};
    PJRT_Error *err = api->PJRT_Buffer_DecreaseExternalReferenceCount(&dec);
    assert_non_null(err);
    PJRT_Error_Destroy_Args d = {.struct_size = PJRT_Error_Destroy_Args_STRUCT_SIZE, .error = err};
    api->PJRT_Error_Destroy(&d);
    pjdl_buffer_release(shared);
    free(data);
}

int main(int argc, char **argv) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(host_view, lib_setup, lib_teardown_clean),
        cmocka_unit_test_setup_teardown(unaligned_view, lib_setup, lib_teardown_clean),
        cmocka_unit_test_setup_teardown(permutation_view_and_gap_copy, lib_setup,
                                        lib_teardown_clean),
        cmocka_unit_test_setup_teardown(pin_outlives_delete, lib_setup, lib_teardown_clean),
        cmocka_unit_test_setup_teardown(deleter_once_every_order, lib_setup, lib_teardown_clean),
        cmocka_unit_test_setup_teardown(transfer_mode, lib_setup, lib_teardown_clean),
        cmocka_unit_test_setup_teardown(every_device, lib_setup, lib_teardown_clean),
        cmocka_unit_test_setup_teardown(many_threads, lib_setup, lib_teardown_clean),
    };
    return LIB_RUN(argc, argv, tests);
}
