/* Regression tests for what the fuzzers found (fuzz/corpus/<target>/regress_*
 * hold the original inputs). All of them are empty arrays whose other
 * dimensions are huge: arithmetic that is safe for a non-empty array
 * (whose size was checked) overflowed, which is undefined behaviour that
 * UBSan (build-asan) reports. */
#include "lib_util.h"
#include "plugin_util.h" /* direct calls of the plugin, through the library's table */

static pjdl_plugin *plugin;
static pjdl_client *cpu, *xpu;

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
    /* Made with the plugin's own call: the library refuses this shape for
     * every plugin (XLA's abort on it: pjdl__extent_product_fits), but the
     * reference plugin must take it. */
    int64_t dims[2] = {(int64_t)1 << 62, 0};
    PJRT_Client_BufferFromHostBuffer_Args h =
        pu_h2d_args(pjdl_client_pjrt(xpu), NULL, PJRT_Buffer_Type_F16, dims, 2);
    PJRT_Buffer *pjrt = pu_h2d(&h);
    int64_t host_strides[2] = {2, 2};
    PJRT_Buffer_MemoryLayout layout = pu_strided(host_strides, 2);
    char dst[1];
    PU_OK(pu_to_host(pjrt, dst, 0, &layout));
    pu_destroy_buffer(pjrt);
}

/* The library's side of it: an empty shape whose dims before the first 0,
 * times the element size, overflow int64 is refused before any plugin sees
 * it (XLA's CPU plugin aborts the process on {2^62, 0} of f16); with the 0
 * first it is taken. */
static void test_empty_shape_extent_product(void **state) {
    (void)state;
    int64_t dims[2] = {(int64_t)1 << 62, 0};
    pjdl_buffer *b = NULL;
    LIB_FAILS(PJDL_INVALID_ARGUMENT,
              pjdl_buffer_from_host(xpu, NULL, PJRT_Buffer_Type_F16, dims, 2, NULL, NULL, &b));
    assert_non_null(strstr(pjdl_last_error(), "XLA's plugins abort"));
    int64_t zero_first[2] = {0, (int64_t)1 << 62};
    LIB_OK(pjdl_buffer_from_host(xpu, NULL, PJRT_Buffer_Type_F16, zero_first, 2, NULL, NULL, &b));
    assert_int_equal(pjdl_buffer_size_bytes(b), 0);
    pjdl_buffer_release(b);
}

/* The address of the top page of a 64-bit address space, and one that
 * brings it back to the bottom: data + byte_offset wraps, which is
 * undefined behaviour as pointer arithmetic (UBSan: "pointer index
 * expression ... overflowed") before any check could refuse it. */
#define TOP_PAGE ((void *)(UINTPTR_MAX - 4095))
#define WRAP_TO_LOW_PAGE ((uint64_t)8192)

/* The Python fuzzer: a compact f32 tensor whose data + byte_offset wraps
 * around the address space; the view import's common pass formed that
 * pointer before it checked the sum (import_view.c). Refused by both
 * passes, and the producer's deleter never runs for a failed import. */
static void test_import_offset_wraps(void **state) {
    (void)state;
    int64_t shape[2] = {2, 4};
    int64_t strides[2] = {-4, 1};
    for (int with_strides = 0; with_strides < 2; with_strides++) {
        lib_tensor t;
        lib_tensor_init(&t, TOP_PAGE, lib_dtype(kDLFloat, 32), 2, shape,
                        with_strides ? strides : NULL);
        t.v.dl_tensor.byte_offset = WRAP_TO_LOW_PAGE;
        pjdl_buffer *b = NULL;
        LIB_FAILS(PJDL_INVALID_ARGUMENT, pjdl_import(&cpu, 1, &t.v, NULL, &b));
        assert_non_null(strstr(pjdl_last_error(), "address space"));
        assert_null(b);
        assert_int_equal(t.deleted, 0);
    }
}

/* The siblings in the reference plugin: a view, a host buffer's byte
 * strides, and a host destination whose bytes leave the address space are
 * refused, not formed. */
static void test_plugin_spans_wrap(void **state) {
    (void)state;
    PJRT_Client *c = pjdl_client_pjrt(cpu);
    int64_t dims[1] = {1024};
    PJRT_Client_CreateViewOfDeviceBuffer_Args v =
        pu_view_args(c, TOP_PAGE, PJRT_Buffer_Type_F32, dims, 1, NULL);
    pu_result r;
    PU_RAW(r, raw_create_view, &v);
    PU_EXPECT_ERROR(r, PJDL_INVALID_ARGUMENT, "end of the address space");
    int64_t strides[1] = {-4};
    PJRT_Client_BufferFromHostBuffer_Args h =
        pu_h2d_args(c, (void *)(uintptr_t)64, PJRT_Buffer_Type_F32, dims, 1);
    h.byte_strides = strides;
    h.num_byte_strides = 1;
    PU_RAW(r, raw_buffer_from_host, &h);
    PU_EXPECT_ERROR(r, PJDL_INVALID_ARGUMENT, "outside the address space");
    float zeros[1024] = {0};
    PJRT_Buffer *b = pu_f32(c, zeros, dims, 1);
    PU_EXPECT_ERROR(pu_to_host(b, TOP_PAGE, SIZE_MAX, NULL), PJDL_INVALID_ARGUMENT,
                    "end of the address space");
    PJRT_Buffer_CopyRawToHost_Args raw = {.struct_size = PJRT_Buffer_CopyRawToHost_Args_STRUCT_SIZE,
                                          .buffer = b,
                                          .dst = TOP_PAGE,
                                          .offset = 0,
                                          .transfer_size = 4096};
    PU_EXPECT_ERROR(pu_api->PJRT_Buffer_CopyRawToHost(&raw), PJDL_INVALID_ARGUMENT,
                    "end of the address space");
    pu_destroy_buffer(b);
}

/* The library's own host copy: a destination whose bytes wrap is refused
 * before the plugin sees it. */
static void test_to_host_destination_wraps(void **state) {
    (void)state;
    int64_t dims[1] = {1024};
    pjdl_buffer *b = NULL;
    float zeros[1024] = {0};
    LIB_OK(pjdl_buffer_from_host(cpu, zeros, PJRT_Buffer_Type_F32, dims, 1, NULL, NULL, &b));
    LIB_FAILS(PJDL_INVALID_ARGUMENT, pjdl_buffer_to_host(b, TOP_PAGE, SIZE_MAX));
    assert_non_null(strstr(pjdl_last_error(), "end of the address space"));
    pjdl_buffer_release(b);
}

int main(void) {
    plugin = lib_load();
    cpu = lib_client(plugin, "cpu");
    xpu = lib_client(plugin, "xpu");
    pu_use(pjdl_plugin_api(plugin));
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_import_empty_null_data_offset),
        cmocka_unit_test(test_empty_buffer_huge_dims),
        cmocka_unit_test(test_plugin_empty_dense_strides),
        cmocka_unit_test(test_plugin_empty_host_layout_span),
        cmocka_unit_test(test_empty_shape_extent_product),
        cmocka_unit_test(test_import_offset_wraps),
        cmocka_unit_test(test_plugin_spans_wrap),
        cmocka_unit_test(test_to_host_destination_wraps),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    pjdl_client_release(cpu);
    pjdl_client_release(xpu);
    pjdl_plugin_release(plugin);
    return rc;
}
