/* pjdl__tensor_check: every validation error, and layout classification. */
#include "layout_test.h"

#include "layout.h"
#include "permutations.h"

static float storage[4096];

static DLTensor tensor(int32_t ndim, int64_t *shape, int64_t *strides, DLDataType dtype) {
    DLTensor t;
    memset(&t, 0, sizeof t);
    t.data = storage;
    t.device.device_type = kDLCPU;
    t.ndim = ndim;
    t.shape = shape;
    t.strides = strides;
    t.dtype = dtype;
    return t;
}

static const DLDataType f32 = {kDLFloat, 32, 1};

static void test_null_arguments(void **state) {
    (void)state;
    pjdl_layout l;
    assert_code(pjdl__tensor_check(NULL, &l), PJDL_INVALID_ARGUMENT, "tensor is NULL");
    int64_t shape[1] = {2};
    DLTensor t = tensor(1, shape, NULL, f32);
    assert_code(pjdl__tensor_check(&t, NULL), PJDL_INVALID_ARGUMENT, "out is NULL");
}

static void test_ndim(void **state) {
    (void)state;
    pjdl_layout l;
    int64_t shape[PJDL_MAX_RANK + 1];
    for (int i = 0; i < PJDL_MAX_RANK + 1; i++)
        shape[i] = 1;
    DLTensor t = tensor(-1, shape, NULL, f32);
    assert_code(pjdl__tensor_check(&t, &l), PJDL_INVALID_ARGUMENT, "ndim is -1");
    t.ndim = PJDL_MAX_RANK + 1;
    assert_code(pjdl__tensor_check(&t, &l), PJDL_INVALID_ARGUMENT, "ndim is 65");
    t.ndim = PJDL_MAX_RANK;
    assert_code(pjdl__tensor_check(&t, &l), PJDL_OK, NULL);
    assert_int_equal(l.ndim, PJDL_MAX_RANK);
    assert_int_equal(l.num_elements, 1);
    assert_int_equal(l.kind, PJDL_LAYOUT_ROW_MAJOR);
}

static void test_shape(void **state) {
    (void)state;
    pjdl_layout l;
    DLTensor t = tensor(2, NULL, NULL, f32);
    assert_code(pjdl__tensor_check(&t, &l), PJDL_INVALID_ARGUMENT, "shape is NULL but ndim is 2");

    int64_t shape[3] = {2, 3, -3};
    t = tensor(3, shape, NULL, f32);
    assert_code(pjdl__tensor_check(&t, &l), PJDL_INVALID_ARGUMENT,
                "shape[2] is -3: dimensions must be non-negative");

    int64_t big[3] = {INT64_C(1) << 40, INT64_C(1) << 40, 2};
    t = tensor(3, big, NULL, f32);
    assert_code(pjdl__tensor_check(&t, &l), PJDL_INVALID_ARGUMENT, "overflows int64");

    /* Elements fit but bytes do not. */
    int64_t many[1] = {INT64_C(1) << 62};
    t = tensor(1, many, NULL, f32);
    assert_code(pjdl__tensor_check(&t, &l), PJDL_INVALID_ARGUMENT, "overflow");

    /* A zero makes the product 0 even after an overflowing prefix; but
     * XLA's plugins take the product of the element size and the dims up
     * to the first 0 and abort the process when it overflows (issue 38:
     * torch.empty(2**62, 0)), so such an empty shape is refused. */
    int64_t zero_after[4] = {INT64_C(1) << 40, INT64_C(1) << 40, INT64_C(1) << 40, 0};
    t = tensor(4, zero_after, NULL, f32);
    assert_code(pjdl__tensor_check(&t, &l), PJDL_INVALID_ARGUMENT,
                "an empty tensor whose dimensions before the first 0");
    int64_t zero_first[4] = {0, INT64_C(1) << 40, INT64_C(1) << 40, INT64_C(1) << 40};
    t = tensor(4, zero_first, NULL, f32);
    assert_code(pjdl__tensor_check(&t, &l), PJDL_OK, NULL);
    assert_int_equal(l.num_elements, 0);
    assert_int_equal(l.nbytes, 0);
    /* The bound is the element size times the dims: 2**61 f32 overflows,
     * 2**61 int8 does not. */
    int64_t wide_then_zero[2] = {INT64_C(1) << 61, 0};
    t = tensor(2, wide_then_zero, NULL, f32);
    assert_code(pjdl__tensor_check(&t, &l), PJDL_INVALID_ARGUMENT, "overflow int64");
    t = tensor(2, wide_then_zero, NULL, (DLDataType){kDLInt, 8, 1});
    assert_code(pjdl__tensor_check(&t, &l), PJDL_OK, NULL);
}

/* A tensor without elements addresses no memory: its strides, given or
 * compact, may be of any size, and no stride arithmetic refuses it (issue
 * 20, defect 6: PyTorch's empty(0, 2**62) has strides (2**62, 1)). */
static void test_empty_tensor_strides(void **state) {
    (void)state;
    pjdl_layout l;
    int64_t shape[3] = {0, INT64_C(1) << 62, 8};
    int64_t torch_strides[2] = {INT64_C(1) << 62, 1};
    int64_t wild[3] = {INT64_MAX, INT64_MIN, INT64_MAX};
    struct {
        int32_t ndim;
        int64_t *strides;
    } cases[] = {{2, torch_strides}, {2, NULL}, {3, NULL}, {3, wild}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        DLTensor t = tensor(cases[i].ndim, shape, cases[i].strides, f32);
        t.data = NULL; /* allowed: no elements */
        assert_code(pjdl__tensor_check(&t, &l), PJDL_OK, NULL);
        assert_int_equal(l.num_elements, 0);
        assert_int_equal(l.nbytes, 0);
        assert_int_equal(l.kind, PJDL_LAYOUT_ROW_MAJOR);
        assert_int_equal(l.lo, 0);
        assert_int_equal(l.hi, 0);
        for (int32_t d = 0; d < cases[i].ndim; d++)
            assert_int_equal(l.byte_strides[d], 0);
    }
    /* The element count still counts: a product that overflows before the
     * zero dimension is fine, a shape without a zero is not. */
    int64_t full[2] = {INT64_C(1) << 62, 8};
    DLTensor t = tensor(2, full, NULL, f32);
    assert_code(pjdl__tensor_check(&t, &l), PJDL_INVALID_ARGUMENT, "overflows int64");
}

/* A dimension of extent 1 never multiplies its stride: one that overflows in
 * bytes (PyTorch's (2**62, 1) for shape (1, 4)) describes a valid tensor, and
 * the same stride on a dimension of extent 2 does not. */
static void test_unit_dimension_huge_stride(void **state) {
    (void)state;
    pjdl_layout l;
    float data[8] = {0};
    int64_t shape[2] = {1, 4};
    int64_t strides[2] = {INT64_C(1) << 62, 1};
    DLTensor t = tensor(2, shape, strides, f32);
    t.data = data;
    assert_code(pjdl__tensor_check(&t, &l), PJDL_OK, NULL);
    assert_int_equal(l.num_elements, 4);
    assert_int_equal(l.byte_strides[0], 0);
    assert_int_equal(l.byte_strides[1], 4);
    assert_int_equal(l.kind, PJDL_LAYOUT_ROW_MAJOR);
    shape[0] = 2;
    assert_code(pjdl__tensor_check(&t, &l), PJDL_INVALID_ARGUMENT, "strides[0]");
}

static void check_dtype(DLDataType dtype, pjdl_code expected, const char *needle) {
    pjdl_layout l;
    int64_t shape[1] = {4};
    DLTensor t = tensor(1, shape, NULL, dtype);
    assert_code(pjdl__tensor_check(&t, &l), expected, needle);
}

static void test_dtype(void **state) {
    (void)state;
    check_dtype((DLDataType){99, 8, 1}, PJDL_INVALID_ARGUMENT, "dtype.code is 99");
    check_dtype((DLDataType){kDLFloat, 32, 0}, PJDL_INVALID_ARGUMENT, "dtype.lanes is 0");
    check_dtype((DLDataType){kDLFloat, 32, 4}, PJDL_UNIMPLEMENTED, "float32x4 has 4 lanes");
    check_dtype((DLDataType){kDLInt, 0, 1}, PJDL_INVALID_ARGUMENT, "dtype.bits is 0");
    check_dtype((DLDataType){kDLInt, 12, 1}, PJDL_INVALID_ARGUMENT, "dtype.bits is 12");
    check_dtype((DLDataType){kDLInt, 4, 1}, PJDL_OK, NULL); /* sub-byte: one per byte here */
    check_dtype((DLDataType){kDLUInt, 1, 1}, PJDL_OK, NULL);
    check_dtype((DLDataType){kDLInt, 4, 2}, PJDL_UNIMPLEMENTED, "int4x2 has 2 lanes");
    check_dtype((DLDataType){kDLBool, 16, 1}, PJDL_INVALID_ARGUMENT, "must be 8");
    check_dtype((DLDataType){kDLBool, 8, 1}, PJDL_OK, NULL);
    check_dtype((DLDataType){kDLFloat8_e4m3fn, 16, 1}, PJDL_INVALID_ARGUMENT, "must be 8");
    check_dtype((DLDataType){kDLFloat4_e2m1fn, 4, 1}, PJDL_OK, NULL);
    pjdl_layout l;
    int64_t shape[1] = {5};
    DLTensor t = tensor(1, shape, NULL, (DLDataType){kDLInt, 4, 1});
    assert_code(pjdl__tensor_check(&t, &l), PJDL_OK, NULL);
    assert_int_equal(l.elem_size, 1);
    assert_int_equal(l.nbytes, 5);
    assert_int_equal(l.packed_bits, 0);
    check_dtype((DLDataType){kDLFloat4_e2m1fn, 8, 1}, PJDL_INVALID_ARGUMENT, "must be 4");
    check_dtype((DLDataType){kDLFloat6_e3m2fn, 6, 1}, PJDL_OK, NULL);
    /* Widths DLPack allows but PJRT has no type for are still memory. */
    check_dtype((DLDataType){kDLFloat, 128, 1}, PJDL_OK, NULL);
    check_dtype((DLDataType){kDLUInt, 24, 1}, PJDL_OK, NULL);
}

static void test_strides_overflow(void **state) {
    (void)state;
    pjdl_layout l;
    int64_t shape[2] = {3, 2};
    int64_t strides[2] = {INT64_MAX / 2, 1};
    DLTensor t = tensor(2, shape, strides, f32);
    assert_code(pjdl__tensor_check(&t, &l), PJDL_INVALID_ARGUMENT,
                "strides[0] is 4611686018427387903");
    /* Byte strides fit, the span does not. */
    strides[0] = INT64_C(1) << 59;
    shape[0] = 100;
    assert_code(pjdl__tensor_check(&t, &l), PJDL_INVALID_ARGUMENT, "spans more than int64");
    /* Negative spans too. */
    strides[0] = -(INT64_C(1) << 59);
    assert_code(pjdl__tensor_check(&t, &l), PJDL_INVALID_ARGUMENT, "spans more than int64");
    /* (shape - 1) * stride fits but shape * stride does not: refused, so
     * that callers may compute shape * stride freely. */
    int64_t shape1[1] = {2};
    int64_t strides1[1] = {INT64_C(1) << 60};
    t = tensor(1, shape1, strides1, f32);
    assert_code(pjdl__tensor_check(&t, &l), PJDL_INVALID_ARGUMENT,
                "strides[0] is 1152921504606846976");
    /* Two halves that each fit but whose sum does not. */
    int64_t shape2[2] = {5, 5};
    int64_t strides2[2] = {INT64_C(1) << 58, INT64_C(1) << 58};
    t = tensor(2, shape2, strides2, f32);
    assert_code(pjdl__tensor_check(&t, &l), PJDL_INVALID_ARGUMENT, "int64");
}

static void test_byte_offset_and_data(void **state) {
    (void)state;
    pjdl_layout l;
    int64_t shape[1] = {4};
    DLTensor t = tensor(1, shape, NULL, f32);
    t.byte_offset = (uint64_t)INT64_MAX + 1;
    assert_code(pjdl__tensor_check(&t, &l), PJDL_INVALID_ARGUMENT,
                "byte_offset is 9223372036854775808");
    t.byte_offset = 0;
    t.data = NULL;
    assert_code(pjdl__tensor_check(&t, &l), PJDL_INVALID_ARGUMENT,
                "data is NULL for a tensor of 4 elements");
    /* Zero-size tensors may have NULL data. */
    shape[0] = 0;
    assert_code(pjdl__tensor_check(&t, &l), PJDL_OK, NULL);
    assert_int_equal(l.kind, PJDL_LAYOUT_ROW_MAJOR);
    assert_int_equal(l.lo, 0);
    assert_int_equal(l.hi, 0);
    /* The range touched must not wrap around the address space. */
    shape[0] = 4;
    t.data = (void *)(UINTPTR_MAX - 7);
    assert_code(pjdl__tensor_check(&t, &l), PJDL_INVALID_ARGUMENT, "address space");
    t.data = (void *)(uintptr_t)16;
    int64_t strides[1] = {-2};
    t.strides = strides;
    assert_code(pjdl__tensor_check(&t, &l), PJDL_INVALID_ARGUMENT, "address space");
    t.data = (void *)(uintptr_t)64;
    t.byte_offset = UINT64_C(1) << 62;
    t.strides = NULL;
    if (sizeof(uintptr_t) == 8) {
        t.data = (void *)(UINTPTR_MAX - 4096);
        assert_code(pjdl__tensor_check(&t, &l), PJDL_INVALID_ARGUMENT, "address space");
    }
}

static void test_extents_and_alignment(void **state) {
    (void)state;
    pjdl_layout l;
    int64_t shape[2] = {3, 4};
    int64_t strides[2] = {-4, 1};
    DLTensor t = tensor(2, shape, strides, f32);
    t.data = &storage[100];
    assert_code(pjdl__tensor_check(&t, &l), PJDL_OK, NULL);
    assert_int_equal(l.lo, -32);
    assert_int_equal(l.hi, 16);
    assert_int_equal(l.nbytes, 48);
    assert_int_equal(l.num_elements, 12);
    assert_int_equal(l.elem_size, 4);
    assert_true(l.aligned);
    assert_int_equal(l.byte_strides[0], -16);
    assert_int_equal(l.byte_strides[1], 4);

    t.byte_offset = 2;
    assert_code(pjdl__tensor_check(&t, &l), PJDL_OK, NULL);
    assert_false(l.aligned);
    t.byte_offset = 8;
    assert_code(pjdl__tensor_check(&t, &l), PJDL_OK, NULL);
    assert_true(l.aligned);

    /* 0-d: one element. */
    t = tensor(0, NULL, NULL, (DLDataType){kDLComplex, 128, 1});
    assert_code(pjdl__tensor_check(&t, &l), PJDL_OK, NULL);
    assert_int_equal(l.num_elements, 1);
    assert_int_equal(l.nbytes, 16);
    assert_int_equal(l.lo, 0);
    assert_int_equal(l.hi, 16);
    assert_int_equal(l.kind, PJDL_LAYOUT_ROW_MAJOR);
}

static void check_kind(int32_t ndim, int64_t *shape, int64_t *strides, pjdl_layout_kind kind,
                       const char *why, int32_t why_dim) {
    pjdl_layout l;
    DLTensor t = tensor(ndim, shape, strides, f32);
    t.data = &storage[2048];
    assert_code(pjdl__tensor_check(&t, &l), PJDL_OK, NULL);
    assert_int_equal(l.kind, kind);
    if (why == NULL) {
        assert_null(l.why_strided);
        assert_int_equal(l.why_dim, -1);
    } else {
        assert_non_null(l.why_strided);
        assert_non_null(strstr(l.why_strided, why));
        assert_int_equal(l.why_dim, why_dim);
    }
}

static void test_row_major(void **state) {
    (void)state;
    int64_t shape[3] = {2, 3, 4};
    check_kind(3, shape, NULL, PJDL_LAYOUT_ROW_MAJOR, NULL, 0);
    int64_t strides[3] = {12, 4, 1};
    check_kind(3, shape, strides, PJDL_LAYOUT_ROW_MAJOR, NULL, 0);
    /* Extent-1 dimensions may have any stride, even 0 or negative. */
    int64_t shape1[4] = {2, 1, 3, 1};
    int64_t strides1[4] = {3, -77, 1, 0};
    check_kind(4, shape1, strides1, PJDL_LAYOUT_ROW_MAJOR, NULL, 0);
    pjdl_layout l;
    DLTensor t = tensor(4, shape1, strides1, f32);
    assert_code(pjdl__tensor_check(&t, &l), PJDL_OK, NULL);
    for (int i = 0; i < 4; i++)
        assert_int_equal(l.minor_to_major[i], 3 - i);
}

/* The one-pass common case fills every field as the general checks
 * document, and declines (false) whatever is not a non-empty C-order
 * tensor, leaving it to them. */
static void test_c_order_fast_path(void **state) {
    (void)state;
    pjdl_layout l;
    int64_t shape[4] = {2, 1, 3, 1};
    int64_t strides[4] = {3, -77, 1, INT64_C(1) << 62};
    DLTensor t = tensor(4, shape, strides, f32);
    t.byte_offset = 2; /* not a multiple of 4: accepted, not aligned */
    assert_true(pjdl__tensor_check_c_order(&t, &l));
    assert_int_equal(l.ndim, 4);
    assert_int_equal(l.elem_size, 4);
    assert_int_equal(l.num_elements, 6);
    assert_int_equal(l.nbytes, 24);
    assert_int_equal(l.kind, PJDL_LAYOUT_ROW_MAJOR);
    assert_int_equal(l.lo, 0);
    assert_int_equal(l.hi, 24);
    assert_null(l.why_strided);
    assert_int_equal(l.why_dim, -1);
    assert_false(l.aligned);
    assert_int_equal(l.packed_bits, 0);
    const int64_t byte_strides[4] = {12, -308, 4, 0}; /* extent 1: strides * 4, 0 on overflow */
    for (int i = 0; i < 4; i++) {
        assert_int_equal(l.shape[i], shape[i]);
        assert_int_equal(l.minor_to_major[i], 3 - i);
        assert_int_equal(l.byte_strides[i], byte_strides[i]);
    }
    t.byte_offset = 4;
    t.strides = NULL;
    assert_true(pjdl__tensor_check_c_order(&t, &l));
    assert_true(l.aligned);
    assert_int_equal(l.byte_strides[1], 12); /* compact: extent 1 counts as 1 */
    t.ndim = 0;                              /* a scalar: one element */
    assert_true(pjdl__tensor_check_c_order(&t, &l));
    assert_int_equal(l.num_elements, 1);
    assert_int_equal(l.hi, 4);

    /* Declined: empty, a permutation, gaps, no data, wrap-around. */
    t = tensor(4, shape, strides, f32);
    int64_t empty[2] = {0, 5}, perm[2] = {1, 2}, gaps[2] = {4, 1}, two[2] = {2, 2};
    t.ndim = 2;
    t.shape = empty;
    t.strides = NULL;
    assert_false(pjdl__tensor_check_c_order(&t, &l));
    t.shape = two;
    t.strides = perm;
    assert_false(pjdl__tensor_check_c_order(&t, &l));
    t.strides = gaps;
    assert_false(pjdl__tensor_check_c_order(&t, &l));
    t.strides = NULL;
    t.data = NULL;
    assert_false(pjdl__tensor_check_c_order(&t, &l));
    t.data = (void *)(UINTPTR_MAX - 8);
    assert_false(pjdl__tensor_check_c_order(&t, &l));
    assert_code(pjdl__tensor_check(&t, &l), PJDL_INVALID_ARGUMENT, "address space");
}

/* All 24 orders of a 4-d tensor: strides describing memory in the order
 * `m2m` (minor to major) must come back as that order. */
static void test_every_permutation(void **state) {
    (void)state;
    int m2m[4] = {0, 1, 2, 3}, perms = 0;
    do {
        int64_t shape[4] = {2, 3, 4, 5}, strides[4];
        test_order_strides(shape, m2m, 4, strides);
        pjdl_layout l;
        DLTensor t = tensor(4, shape, strides, f32);
        assert_code(pjdl__tensor_check(&t, &l), PJDL_OK, NULL);
        bool c_order = m2m[0] == 3 && m2m[1] == 2 && m2m[2] == 1 && m2m[3] == 0;
        assert_int_equal(l.kind, c_order ? PJDL_LAYOUT_ROW_MAJOR : PJDL_LAYOUT_PERMUTED);
        for (int i = 0; i < 4; i++)
            assert_int_equal(l.minor_to_major[i], m2m[i]);
        assert_null(l.why_strided);
        perms++;
    } while (test_next_permutation(m2m, 4));
    assert_int_equal(perms, 24);
}

/* Permutations with extent-1 dimensions come out canonical: the big
 * dimensions in stride order, extent-1 ones by index. */
static void test_permutation_with_unit_dims(void **state) {
    (void)state;
    /* shape (1, 5, 1, 3); dim 3 major, dim 1 minor. */
    int64_t shape[4] = {1, 5, 1, 3};
    int64_t strides[4] = {99, 1, 7, 5};
    pjdl_layout l;
    DLTensor t = tensor(4, shape, strides, f32);
    assert_code(pjdl__tensor_check(&t, &l), PJDL_OK, NULL);
    assert_int_equal(l.kind, PJDL_LAYOUT_PERMUTED);
    /* major to minor: 0, 2, 3, 1 */
    int64_t expect[4] = {1, 3, 2, 0};
    for (int i = 0; i < 4; i++)
        assert_int_equal(l.minor_to_major[i], expect[i]);

    /* Column-major 2-d. */
    int64_t shape2[2] = {4, 6};
    int64_t strides2[2] = {1, 4};
    t = tensor(2, shape2, strides2, f32);
    assert_code(pjdl__tensor_check(&t, &l), PJDL_OK, NULL);
    assert_int_equal(l.kind, PJDL_LAYOUT_PERMUTED);
    assert_int_equal(l.minor_to_major[0], 0);
    assert_int_equal(l.minor_to_major[1], 1);
}

static void test_strided(void **state) {
    (void)state;
    int64_t shape[3] = {2, 3, 4};
    int64_t broadcast[3] = {12, 0, 1};
    check_kind(3, shape, broadcast, PJDL_LAYOUT_STRIDED, "zero (broadcast) stride", 1);
    int64_t negative[3] = {-12, 4, 1};
    check_kind(3, shape, negative, PJDL_LAYOUT_STRIDED, "negative stride", 0);
    int64_t reversed[3] = {12, 4, -1};
    check_kind(3, shape, reversed, PJDL_LAYOUT_STRIDED, "negative stride", 2);
    int64_t gaps[3] = {24, 8, 2};
    check_kind(3, shape, gaps, PJDL_LAYOUT_STRIDED, "gaps", 2);
    int64_t row_gap[3] = {16, 4, 1}; /* rows padded to 4 */
    check_kind(3, shape, row_gap, PJDL_LAYOUT_STRIDED, "gaps", 0);
    int64_t overlap[3] = {12, 1, 1};
    check_kind(3, shape, overlap, PJDL_LAYOUT_STRIDED, "overlap", 2);
    int64_t overlap2[3] = {4, 2, 1}; /* sliding windows */
    check_kind(3, shape, overlap2, PJDL_LAYOUT_STRIDED, "overlap", 1);
    int64_t all_zero[3] = {0, 0, 0};
    check_kind(3, shape, all_zero, PJDL_LAYOUT_STRIDED, "broadcast", 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_null_arguments),
        cmocka_unit_test(test_ndim),
        cmocka_unit_test(test_shape),
        cmocka_unit_test(test_empty_tensor_strides),
        cmocka_unit_test(test_unit_dimension_huge_stride),
        cmocka_unit_test(test_dtype),
        cmocka_unit_test(test_strides_overflow),
        cmocka_unit_test(test_byte_offset_and_data),
        cmocka_unit_test(test_extents_and_alignment),
        cmocka_unit_test(test_row_major),
        cmocka_unit_test(test_c_order_fast_path),
        cmocka_unit_test(test_every_permutation),
        cmocka_unit_test(test_permutation_with_unit_dims),
        cmocka_unit_test(test_strided),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
