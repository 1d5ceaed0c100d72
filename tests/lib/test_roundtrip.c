/* Round trips host -> PJRT -> DLPack -> PJRT -> host for every element
 * type, 0-d and zero-size tensors, versioned and legacy. */
#include "lib_util.h"

typedef struct fixture {
    pjdl_plugin *plugin;
    pjdl_client *client;
} fixture;

static int setup(void **state) {
    fixture *f = calloc(1, sizeof *f);
    f->plugin = lib_load();
    f->client = lib_client(f->plugin, "cpu");
    *state = f;
    return 0;
}

static int teardown(void **state) {
    fixture *f = *state;
    assert_int_equal(lib_live(f->client), 0);
    pjdl_client_release(f->client);
    pjdl_plugin_release(f->plugin);
    free(f);
    return 0;
}

static void fill(unsigned char *p, size_t n, PJRT_Buffer_Type type) {
    for (size_t i = 0; i < n; i++)
        p[i] = type == PJRT_Buffer_Type_PRED ? (unsigned char)(i & 1) : (unsigned char)(i * 7 + 3);
}

/* Exports `b`, checks the tensor, imports it back and compares the data. */
static void round_trip(fixture *f, pjdl_buffer *b, const unsigned char *want, size_t nbytes,
                       bool legacy) {
    DLManagedTensorVersioned *v = NULL;
    DLManagedTensor *l = NULL;
    const DLTensor *t;
    if (legacy) {
        LIB_OK(pjdl_buffer_export_legacy(b, NULL, &l));
        t = &l->dl_tensor;
    } else {
        LIB_OK(pjdl_buffer_export(b, NULL, &v));
        assert_int_equal(v->version.major, DLPACK_MAJOR_VERSION);
        assert_int_equal(v->flags & DLPACK_FLAG_BITMASK_IS_COPIED, 0);
        t = &v->dl_tensor;
    }
    assert_int_equal(t->device.device_type, kDLCPU);
    assert_int_equal((size_t)t->ndim, pjdl_buffer_ndim(b));
    DLDataType dt;
    LIB_OK(pjdl_dtype_from_pjrt(pjdl_buffer_type(b), &dt));
    assert_int_equal(t->dtype.code, dt.code);
    assert_int_equal(t->dtype.bits, dt.bits);
    for (int i = 0; i < t->ndim; i++)
        assert_int_equal(t->shape[i], pjdl_buffer_dims(b)[i]);
    if (nbytes > 0)
        assert_memory_equal((char *)t->data + t->byte_offset, want, nbytes);
    pjdl_buffer *back = NULL;
    pjdl_client *clients[] = {f->client};
    if (legacy)
        LIB_OK(pjdl_import_legacy(clients, 1, l, NULL, &back));
    else
        LIB_OK(pjdl_import(clients, 1, v, NULL, &back));
    assert_int_equal(pjdl_buffer_type(back), pjdl_buffer_type(b));
    unsigned char *got = malloc(nbytes + 1);
    LIB_OK(pjdl_buffer_to_host(back, got, nbytes));
    if (nbytes > 0)
        assert_memory_equal(got, want, nbytes);
    void *ptr = NULL;
    LIB_OK(pjdl_buffer_data_pointer(back, &ptr));
    if (nbytes > 0)
        assert_ptr_equal(ptr, (char *)t->data + t->byte_offset); /* a view, not a copy */
    free(got);
    pjdl_buffer_release(back); /* runs the export's deleter */
}

static void every_type(void **state) {
    fixture *f = *state;
    const int64_t dims[] = {3, 5};
    int tested = 0;
    for (int ty = PJRT_Buffer_Type_PRED; ty <= PJRT_Buffer_Type_F6E3M2FN; ty++) {
        PJRT_Buffer_Type type = (PJRT_Buffer_Type)ty;
        size_t es = pjdl_pjrt_type_size(type);
        DLDataType dt;
        bool expressible = pjdl_dtype_from_pjrt(type, &dt) == PJDL_OK;
        if (es == 0 || type == PJRT_Buffer_Type_TOKEN) {
            assert_false(expressible && es == 0 && type != PJRT_Buffer_Type_TOKEN && dt.bits < 8);
            continue;
        }
        size_t nbytes = 15 * es;
        unsigned char *data = malloc(nbytes);
        fill(data, nbytes, type);
        pjdl_buffer *b = NULL;
        pjdl_code code = pjdl_buffer_from_host(f->client, data, type, dims, 2, NULL, NULL, &b);
        if (code != PJDL_OK) {
            print_message("type %s: plugin refuses: %s\n", pjdl_pjrt_type_name(type),
                          pjdl_last_error());
            free(data);
            continue;
        }
        if (expressible) {
            round_trip(f, b, data, nbytes, false);
            round_trip(f, b, data, nbytes, true);
            tested++;
        } else {
            DLManagedTensorVersioned *v = NULL;
            LIB_FAILS(PJDL_UNIMPLEMENTED, pjdl_buffer_export(b, NULL, &v));
            assert_non_null(strstr(pjdl_last_error(), pjdl_pjrt_type_name(type)));
        }
        pjdl_buffer_release(b);
        free(data);
    }
    assert_true(tested >= 17); /* bool, 8 ints, 3 floats, bf16, 2 complex, float8s */
}

static void scalar_and_empty(void **state) {
    fixture *f = *state;
    float x = 42.5f;
    pjdl_buffer *b = NULL;
    LIB_OK(pjdl_buffer_from_host(f->client, &x, PJRT_Buffer_Type_F32, NULL, 0, NULL, NULL, &b));
    assert_int_equal(pjdl_buffer_ndim(b), 0);
    assert_int_equal(pjdl_buffer_size_bytes(b), 4);
    round_trip(f, b, (unsigned char *)&x, 4, false);
    round_trip(f, b, (unsigned char *)&x, 4, true);
    pjdl_buffer_release(b);

    const int64_t dims[] = {4, 0, 3};
    LIB_OK(pjdl_buffer_from_host(f->client, NULL, PJRT_Buffer_Type_S32, dims, 3, NULL, NULL, &b));
    assert_int_equal(pjdl_buffer_size_bytes(b), 0);
    round_trip(f, b, NULL, 0, false);
    round_trip(f, b, NULL, 0, true);
    pjdl_buffer_release(b);
}

static void import_host_tensor(void **state) {
    fixture *f = *state;
    int32_t data[6] = {1, 2, 3, 4, 5, 6};
    const int64_t shape[] = {2, 3};
    lib_tensor t;
    lib_tensor_init(&t, data, lib_dtype(kDLInt, 32), 2, shape, NULL);
    pjdl_buffer *b = NULL;
    pjdl_client *clients[] = {f->client};
    LIB_OK(pjdl_import(clients, 1, &t.v, NULL, &b));
    assert_int_equal(t.deleted, 0);
    int32_t got[6];
    LIB_OK(pjdl_buffer_to_host(b, got, sizeof got));
    assert_memory_equal(got, data, sizeof data);
    pjdl_buffer_release(b);
    assert_int_equal(t.deleted, 1);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(every_type, setup, teardown),
        cmocka_unit_test_setup_teardown(scalar_and_empty, setup, teardown),
        cmocka_unit_test_setup_teardown(import_host_tensor, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
