/* Round trips host -> PJRT -> DLPack -> PJRT -> host for every element
 * type, 0-d and zero-size tensors, versioned and legacy. */
#include "roundtrip.h"

/* int4, uint4, int2, uint2, int1, uint1, float4_e2m1fn, the float6s. */
static void sub_byte_types(void **state) {
    lib_fixture *f = *state;
    lib_round_trip_sub_byte(f->client);
}

static void every_type(void **state) {
    lib_fixture *f = *state;
    /* bool, 8 ints, 3 floats, bf16, 2 complex, float8s */
    assert_true(lib_round_trip_every_type(f->client) >= 17);
}

static void import_host_tensor(void **state) {
    lib_fixture *f = *state;
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
        cmocka_unit_test_setup_teardown(every_type, lib_setup_cpu, lib_teardown_clean),
        cmocka_unit_test_setup_teardown(sub_byte_types, lib_setup_cpu, lib_teardown_clean),
        cmocka_unit_test_setup_teardown(lib_round_trip_scalar_and_empty, lib_setup_cpu,
                                        lib_teardown_clean),
        cmocka_unit_test_setup_teardown(import_host_tensor, lib_setup_cpu, lib_teardown_clean),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
