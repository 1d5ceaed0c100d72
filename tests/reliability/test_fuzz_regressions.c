/* Regression tests for what the fuzzers found (fuzz/corpus/<target>/regress_*
 * hold the original inputs). All of them are empty arrays whose other
 * dimensions are huge: arithmetic that is safe for a non-empty array
 * (whose size was checked) overflowed, which is undefined behaviour that
 * UBSan (build-asan) reports. */
#include "lib_util.h"

static pjdl_plugin *plugin;
static pjdl_client *cpu, *xpu;

static const PJRT_Api *api(void) {
    return pjdl_plugin_api(plugin);
}

/* fuzz_import: an empty tensor with NULL data and a huge byte_offset; the
 * view's address was computed as NULL + byte_offset. */
static void test_import_empty_null_data_offset(void **state) {
    (void)state;
    int64_t shape[2] = {0, 3};
    lib_tensor t;
    lib_tensor_init(&t, NULL, lib_dtype(kDLFloat, 32), 2, shape, NULL);
    t.v.dl_tensor.byte_offset = (uint64_t)1 << 60;
    pjdl_buffer *b = NULL;
    LIB_OK(pjdl_import(&cpu, 1, &t.v, NULL, &b));
    assert_int_equal(pjdl_buffer_size_bytes(b), 0);
    pjdl_buffer_release(b);
    assert_int_equal(t.deleted, 1);
}

/* fuzz_import: an empty tensor of shape {0, huge, huge}: the buffer's
 * compact strides overflowed (buffer.c), and so did a host-copy export's
 * (export.c). */
static void test_empty_buffer_huge_dims(void **state) {
    (void)state;
    int64_t shape[3] = {0, (int64_t)1 << 40, (int64_t)1 << 40};
    int64_t strides[3] = {1, 1, 1};
    float storage[1];
    lib_tensor t;
    lib_tensor_init(&t, storage, lib_dtype(kDLFloat, 32), 3, shape, strides);
    pjdl_buffer *b = NULL;
    LIB_OK(pjdl_import(&cpu, 1, &t.v, NULL, &b));
    assert_int_equal(pjdl_buffer_size_bytes(b), 0);
    pjdl_export_options o = PJDL_EXPORT_OPTIONS_INIT;
    o.copy = PJDL_COPY_ALWAYS;
    DLManagedTensorVersioned *out = NULL;
    LIB_OK(pjdl_buffer_export(b, &o, &out));
    assert_int_equal(out->dl_tensor.ndim, 3);
    assert_int_equal(out->dl_tensor.shape[1], (int64_t)1 << 40);
    out->deleter(out);
    pjdl_buffer_release(b);
    assert_int_equal(t.deleted, 1);
}

/* fuzz_host_buffer: BufferFromHostBuffer of dims {1, 0, INT64_MAX, 8}: the
 * plugin's dense strides overflowed (ref_layout.c, ref_dense_strides). */
static void test_plugin_empty_dense_strides(void **state) {
    (void)state;
    int64_t dims[4] = {1, 0, INT64_MAX, 8};
    pjdl_buffer *b = NULL;
    LIB_OK(pjdl_buffer_from_host(xpu, NULL, PJRT_Buffer_Type_S8, dims, 4, NULL, NULL, &b));
    assert_int_equal(pjdl_buffer_size_bytes(b), 0);
    pjdl_buffer_release(b);
}

/* fuzz_host_buffer: ToHostBuffer of an empty {2^62, 0} array with explicit
 * host strides was refused as "byte strides overflow" (ref_strides_span
 * checked the first dimension before noticing the array is empty). */
static void test_plugin_empty_host_layout_span(void **state) {
    (void)state;
    int64_t dims[2] = {(int64_t)1 << 62, 0};
    pjdl_buffer *b = NULL;
    LIB_OK(pjdl_buffer_from_host(xpu, NULL, PJRT_Buffer_Type_F16, dims, 2, NULL, NULL, &b));
    PJRT_Buffer *pjrt = NULL;
    LIB_OK(pjdl_buffer_pjrt(b, &pjrt));
    int64_t host_strides[2] = {2, 2};
    PJRT_Buffer_MemoryLayout layout = {.struct_size = PJRT_Buffer_MemoryLayout_STRUCT_SIZE,
                                       .type = PJRT_Buffer_MemoryLayout_Type_Strides};
    layout.strides.struct_size = PJRT_Buffer_MemoryLayout_Strides_STRUCT_SIZE;
    layout.strides.byte_strides = host_strides;
    layout.strides.num_byte_strides = 2;
    char dst[1];
    PJRT_Buffer_ToHostBuffer_Args a = {.struct_size = PJRT_Buffer_ToHostBuffer_Args_STRUCT_SIZE,
                                       .src = pjrt,
                                       .host_layout = &layout,
                                       .dst = dst,
                                       .dst_size = 0};
    PJRT_Error *err = api()->PJRT_Buffer_ToHostBuffer(&a);
    if (err != NULL) {
        PJRT_Error_Message_Args m = {.struct_size = PJRT_Error_Message_Args_STRUCT_SIZE,
                                     .error = err};
        api()->PJRT_Error_Message(&m);
        fail_msg("ToHostBuffer of an empty array refused: %.*s", (int)m.message_size, m.message);
    }
    if (a.event != NULL) {
        PJRT_Event_Await_Args w = {.struct_size = PJRT_Event_Await_Args_STRUCT_SIZE,
                                   .event = a.event};
        assert_null(api()->PJRT_Event_Await(&w));
        PJRT_Event_Destroy_Args d = {.struct_size = PJRT_Event_Destroy_Args_STRUCT_SIZE,
                                     .event = a.event};
        assert_null(api()->PJRT_Event_Destroy(&d));
    }
    pjdl_buffer_release(b);
}

int main(void) {
    plugin = lib_load();
    cpu = lib_client(plugin, "cpu");
    xpu = lib_client(plugin, "xpu");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_import_empty_null_data_offset),
        cmocka_unit_test(test_empty_buffer_huge_dims),
        cmocka_unit_test(test_plugin_empty_dense_strides),
        cmocka_unit_test(test_plugin_empty_host_layout_span),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    pjdl_client_release(cpu);
    pjdl_client_release(xpu);
    pjdl_plugin_release(plugin);
    return rc;
}
