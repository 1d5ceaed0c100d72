/* Round trips host -> PJRT -> DLPack -> PJRT -> host for every element
 * type, 0-d and zero-size tensors, versioned and legacy; on both plugins. */
#include "roundtrip.h"

/* int4, uint4, int2, uint2, int1, uint1, float4_e2m1fn, the float6s. */
static void sub_byte_types(void **state) {
    lib_fixture *f = *state;
    lib_round_trip_sub_byte(f->client);
}

static void every_type(void **state) {
    lib_fixture *f = *state;
    /* bool, 8 ints, 3 floats, bf16, 2 complex, float8s; XLA has more
     * float8s than the reference plugin */
    assert_true(lib_round_trip_every_type(f->client) >= (lib_on_xla() ? 20 : 17));
}

static void import_host_tensor(void **state) {
    lib_fixture *f = *state;
    int32_t *data = lib_aligned(6 * sizeof *data);
    for (int i = 0; i < 6; i++)
        data[i] = i + 1;
    const int64_t shape[] = {2, 3};
    lib_tensor t;
    lib_tensor_init(&t, data, lib_dtype(kDLInt, 32), 2, shape, NULL);
    pjdl_buffer *b = NULL;
    pjdl_client *clients[] = {f->client};
    LIB_OK(pjdl_import(clients, 1, &t.v, NULL, &b));
    assert_int_equal(t.deleted, 0); /* a view */
    int32_t got[6];
    LIB_OK(pjdl_buffer_to_host(b, got, sizeof got));
    assert_memory_equal(got, data, sizeof got);
    pjdl_buffer_release(b);
    assert_int_equal(lib_deleted(&t, 1), 1);
    free(data);
}

int main(int argc, char **argv) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(every_type, lib_setup, lib_teardown_clean),
        cmocka_unit_test_setup_teardown(sub_byte_types, lib_setup, lib_teardown_clean),
        cmocka_unit_test_setup_teardown(lib_round_trip_scalar_and_empty, lib_setup,
                                        lib_teardown_clean),
        cmocka_unit_test_setup_teardown(import_host_tensor, lib_setup, lib_teardown_clean),
    };
    return LIB_RUN(argc, argv, tests);
}
