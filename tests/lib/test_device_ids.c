/* DLPack device ids of host memory: 0 on whichever device of the client the
 * memory lives (dlpack.h), and a host tensor with any id is host memory; it
 * lands on the device the caller names, else the first: on every plugin.
 * Device memory (the reference plugin's xpu, Intel's oneAPI GPUs) keeps
 * its device's id, and a wrong one is NOT_FOUND. */
#include "lib_util.h"

typedef struct fixture {
    pjdl_plugin *plugin;
    pjdl_client *cpu3; /* lib_cpu_client, three devices */
    pjdl_client *xpu;  /* a client with device memory, of three devices or more */
} fixture;

/* The plugin under test with a three-device client (lib_cpu_client); the
 * reference plugin also with an xpu client. XLA's CPU plugin has no device
 * memory; Intel's has nothing else, so its three GPUs are both. */
static int setup(void **state) {
    fixture *f = calloc(1, sizeof *f);
    f->plugin = lib_load_selected();
    f->cpu3 = lib_cpu_client(f->plugin, 3);
    if (!lib_on_xla())
        f->xpu = lib_client(f->plugin, "xpu");
    else if (lib_on_oneapi())
        pjdl_client_retain(f->xpu = f->cpu3);
    *state = f;
    return 0;
}

static int teardown(void **state) {
    fixture *f = *state;
    pjdl_client_release(f->cpu3);
    if (f->xpu != NULL)
        pjdl_client_release(f->xpu);
    pjdl_plugin_release(f->plugin);
    free(f);
    return 0;
}

/* Each device's memories: the host ones (kDLCPU) have id 0, the others
 * are device memory of the device's type and id; every device has host
 * memory, and its default memory is of LIB_EXPORT_DEVICE_TYPE. */
static void host_memory_has_id_0(void **state) {
    fixture *f = *state;
    assert_int_equal(pjdl_client_device_count(f->cpu3), 3);
    for (size_t i = 0; i < 3; i++) {
        pjdl_device *dev = pjdl_client_device(f->cpu3, i);
        DLDevice dl;
        LIB_OK(pjdl_device_dl(dev, NULL, &dl));
        assert_int_equal(dl.device_type, LIB_EXPORT_DEVICE_TYPE);
        size_t host = 0;
        for (size_t m = 0; m < pjdl_device_memory_count(dev); m++) {
            LIB_OK(pjdl_device_dl(dev, pjdl_device_memory(dev, m), &dl));
            host += dl.device_type == kDLCPU;
            if (dl.device_type == kDLCPU)
                assert_int_equal(dl.device_id, 0);
            else
                assert_int_equal(dl.device_id, pjdl_device_local_hardware_id(dev));
        }
        assert_true(host >= 1);
    }
}

/* The memories of a platform with device memory (the reference plugin's
 * xpu, Intel's GPUs): pinned host memory is host memory (id 0), device
 * memory has its device's id. */
static void xpu_memory_ids(void **state) {
    fixture *f = *state;
    pjdl_device *x1 = pjdl_client_device(f->xpu, 1);
    for (size_t m = 0; m < pjdl_device_memory_count(x1); m++) {
        pjdl_memory *mem = pjdl_device_memory(x1, m);
        DLDevice dl;
        LIB_OK(pjdl_device_dl(x1, mem, &dl));
        if (strcmp(pjdl_memory_kind(mem), "pinned_host") == 0) {
            assert_int_equal(dl.device_type, kDLCPU);
            assert_int_equal(dl.device_id, 0);
        } else {
            assert_int_equal(dl.device_type, kDLOneAPI);
            assert_int_equal(dl.device_id, pjdl_device_local_hardware_id(x1));
        }
    }
}

static void find_dl_ignores_host_ids(void **state) {
    fixture *f = *state;
    pjdl_device *d = NULL;
    LIB_OK(pjdl_client_find_dl(f->cpu3, (DLDevice){kDLCPU, 7}, &d, NULL));
    assert_ptr_equal(d, pjdl_client_device(f->cpu3, 0));
}

/* A device id of device memory is looked up: a wrong one is NOT_FOUND. */
static void find_dl_device_ids(void **state) {
    fixture *f = *state;
    pjdl_device *d = NULL;
    DLDevice x1;
    LIB_OK(pjdl_device_dl(pjdl_client_device(f->xpu, 1), NULL, &x1));
    LIB_OK(pjdl_client_find_dl(f->xpu, x1, &d, NULL));
    assert_ptr_equal(d, pjdl_client_device(f->xpu, 1));
    x1.device_id += 100;
    LIB_FAILS(PJDL_NOT_FOUND, pjdl_client_find_dl(f->xpu, x1, &d, NULL));
}

/* The first memory of `dev` that is host memory (kDLCPU). */
static pjdl_memory *host_memory_of(pjdl_device *dev) {
    for (size_t m = 0; m < pjdl_device_memory_count(dev); m++) {
        DLDevice dl;
        LIB_OK(pjdl_device_dl(dev, pjdl_device_memory(dev, m), &dl));
        if (dl.device_type == kDLCPU)
            return pjdl_device_memory(dev, m);
    }
    fail_msg("device %s has no host memory", pjdl_device_debug_string(dev));
    return NULL;
}

/* Names device 2 as the target of a host tensor's view. A device named
 * means its default memory: host memory on the cpu platforms, GPU memory on
 * Intel's, which a host tensor is not, so there the view is refused (and
 * the tensor left to its owner) and the device's host memory is named
 * instead. */
static void name_device_2(fixture *f, lib_tensor *t, pjdl_import_options *io) {
    pjdl_device *d2 = pjdl_client_device(f->cpu3, 2);
    io->device = d2;
    if (LIB_EXPORT_DEVICE_TYPE == kDLCPU)
        return;
    pjdl_buffer *b = NULL;
    LIB_FAILS(PJDL_INVALID_ARGUMENT, pjdl_import(&f->cpu3, 1, &t->v, io, &b));
    assert_non_null(strstr(pjdl_last_error(), "not the tensor's device"));
    assert_int_equal(t->deleted, 0);
    io->device = NULL;
    io->memory = host_memory_of(d2);
}

static void host_tensor_lands_where_named(void **state) {
    fixture *f = *state;
    float *data = lib_aligned(8 * sizeof *data); /* XLA views nothing less aligned */
    for (int i = 0; i < 8; i++)
        data[i] = (float)i;
    const int64_t shape[] = {8};
    for (int id = 0; id < 3; id++) {
        lib_tensor t;
        lib_tensor_init(&t, data, lib_dtype(kDLFloat, 32), 1, shape, NULL);
        t.v.dl_tensor.device.device_id = id * 5; /* 0, 5, 10: all the host */
        pjdl_import_options io = lib_import_options(PJDL_COPY_NEVER);
        if (id == 2)
            name_device_2(f, &t, &io);
        pjdl_buffer *b = NULL;
        LIB_OK(pjdl_import(&f->cpu3, 1, &t.v, &io, &b));
        assert_ptr_equal(pjdl_buffer_device(b), pjdl_client_device(f->cpu3, id == 2 ? 2 : 0));
        void *p = NULL;
        LIB_OK(pjdl_buffer_data_pointer(b, &p));
        assert_ptr_equal(p, data); /* a view on any device: host memory is shared */
        DLDevice dl;
        LIB_OK(pjdl_buffer_dl_device(b, &dl));
        assert_int_equal(dl.device_type, kDLCPU);
        assert_int_equal(dl.device_id, 0);
        pjdl_buffer_release(b);
        assert_int_equal(lib_deleted(&t, 1), 1);
    }
    free(data);
}

int main(int argc, char **argv) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(host_memory_has_id_0, setup, teardown),
        cmocka_unit_test_setup_teardown(find_dl_ignores_host_ids, setup, teardown),
        cmocka_unit_test_setup_teardown(host_tensor_lands_where_named, setup, teardown),
#ifdef PJDL_TEST_ONEAPI /* Intel's GPUs have device memory */
        cmocka_unit_test_setup_teardown(xpu_memory_ids, setup, teardown),
        cmocka_unit_test_setup_teardown(find_dl_device_ids, setup, teardown),
#endif
    };
    const struct CMUnitTest ref_only[] = {
        cmocka_unit_test_setup_teardown(xpu_memory_ids, setup, teardown),
        cmocka_unit_test_setup_teardown(find_dl_device_ids, setup, teardown),
    };
    return lib_run(argc, argv, tests, LIB_COUNT(tests), ref_only, LIB_COUNT(ref_only), NULL, NULL);
}
