/* pjdl__strided_copy checked element by element against a naive reference,
 * for many random layouts and every element size. */
#include <stdlib.h>

#include "layout_test.h"

#include "layout.h"

/* 31 bytes is the widest DLPack can describe (248 bits). */
static const size_t elem_sizes[] = {1, 2, 3, 4, 8, 16, 31};

static DLDataType dtype_of_size(size_t es) {
    return (DLDataType){kDLUInt, (uint8_t)(es * 8), 1};
}

/* Copies with the library and compares with a naive walk over every index.
 * `data` + byte_offset is the element at index 0. */
static void check_copy(const DLTensor *t, const pjdl_layout *l) {
    const char *src = (const char *)t->data + t->byte_offset;
    char *dst = malloc(l->nbytes + 1);
    assert_non_null(dst);
    dst[l->nbytes] = 0x5a; /* canary */
    pjdl__strided_copy(dst, src, l);
    assert_int_equal((unsigned char)dst[l->nbytes], 0x5a);
    int64_t idx[PJDL_MAX_RANK] = {0};
    for (uint64_t lin = 0; lin < l->num_elements; lin++) {
        int64_t off = 0;
        for (int32_t i = 0; i < t->ndim; i++)
            off += idx[i] * l->byte_strides[i];
        if (memcmp(dst + lin * l->elem_size, src + off, l->elem_size) != 0)
            fail_msg("element %llu differs (ndim %d, elem size %zu, kind %d)",
                     (unsigned long long)lin, t->ndim, l->elem_size, l->kind);
        for (int32_t i = t->ndim - 1; i >= 0; i--) {
            if (++idx[i] < t->shape[i])
                break;
            idx[i] = 0;
        }
    }
    free(dst);
}

/* Builds a tensor over a fresh random buffer large enough for the strides,
 * checks it and its copy. */
static pjdl_layout_kind run_layout(int32_t ndim, int64_t *shape, int64_t *strides, size_t es,
                                   uint64_t *rng, int expect_kind) {
    int64_t lo = 0, hi = 1;
    bool empty = false;
    int64_t compact[PJDL_MAX_RANK];
    const int64_t *st = strides;
    if (st == NULL) {
        int64_t s = 1;
        for (int32_t i = ndim - 1; i >= 0; i--) {
            compact[i] = s;
            s *= shape[i] > 0 ? shape[i] : 1;
        }
        st = compact;
    }
    for (int32_t i = 0; i < ndim; i++) {
        if (shape[i] == 0)
            empty = true;
        if (shape[i] > 1) {
            int64_t span = (shape[i] - 1) * st[i];
            if (span < 0)
                lo += span;
            else
                hi += span;
        }
    }
    size_t pad = (size_t)test_rand_below(rng, 17);
    size_t size = (size_t)(hi - lo) * es + pad + 1;
    unsigned char *buf = malloc(size);
    assert_non_null(buf);
    for (size_t i = 0; i < size; i++)
        buf[i] = (unsigned char)test_rand(rng);
    DLTensor t;
    memset(&t, 0, sizeof t);
    t.data = buf;
    t.byte_offset = pad + (uint64_t)(-lo) * es;
    t.device.device_type = kDLCPU;
    t.ndim = ndim;
    t.shape = shape;
    t.strides = strides;
    t.dtype = dtype_of_size(es);
    pjdl_layout l;
    assert_code(pjdl__tensor_check(&t, &l), PJDL_OK, NULL);
    if (!empty) {
        assert_int_equal(l.lo, lo * (int64_t)es);
        assert_int_equal(l.hi, hi * (int64_t)es);
    }
    if (expect_kind >= 0)
        assert_int_equal(l.kind, expect_kind);
    check_copy(&t, &l);
    free(buf);
    return l.kind;
}

static void test_random_layouts(void **state) {
    (void)state;
    uint64_t rng = 0x9e3779b97f4a7c15ULL;
    int kinds[3] = {0, 0, 0};
    for (size_t e = 0; e < sizeof elem_sizes / sizeof elem_sizes[0]; e++) {
        size_t es = elem_sizes[e];
        for (int iter = 0; iter < 2000; iter++) {
            int32_t ndim = (int32_t)test_rand_below(&rng, 6);
            int64_t shape[8], strides[8];
            int order[8];
            for (int32_t i = 0; i < ndim; i++) {
                shape[i] = test_rand_below(&rng, 20) == 0 ? 0 : 1 + test_rand_below(&rng, 6);
                order[i] = i;
            }
            for (int32_t i = ndim - 1; i > 0; i--) {
                int j = (int)test_rand_below(&rng, i + 1);
                int tmp = order[i];
                order[i] = order[j];
                order[j] = tmp;
            }
            /* Compact in a random order, then perturb some dimensions: gaps,
             * reversal, broadcast, overlap. */
            int64_t s = 1;
            for (int32_t k = 0; k < ndim; k++) {
                int d = order[k];
                strides[d] = s;
                int64_t ext = shape[d] > 0 ? shape[d] : 1;
                s *= ext + (test_rand_below(&rng, 4) == 0 ? test_rand_below(&rng, 3) : 0);
            }
            for (int32_t i = 0; i < ndim; i++) {
                int64_t r = test_rand_below(&rng, 12);
                if (r == 0)
                    strides[i] = -strides[i];
                else if (r == 1)
                    strides[i] = 0;
                else if (r == 2)
                    strides[i] = strides[i] / 2 + 1;
            }
            kinds[run_layout(ndim, shape, strides, es, &rng, -1)]++;
        }
    }
    /* The generator reaches every kind often. */
    for (int k = 0; k < 3; k++)
        assert_true(kinds[k] > 500);
}

/* Larger transpositions, where the tiled kernel's edges matter: every
 * element size, sizes that are not multiples of the tile. */
static void test_transpositions(void **state) {
    (void)state;
    uint64_t rng = 42;
    for (size_t e = 0; e < sizeof elem_sizes / sizeof elem_sizes[0]; e++) {
        size_t es = elem_sizes[e];
        int64_t shape[2] = {257, 131};
        int64_t strides[2] = {1, 257};
        run_layout(2, shape, strides, es, &rng, PJDL_LAYOUT_PERMUTED);
        /* Transposed and reversed. */
        int64_t rev[2] = {-1, 257};
        run_layout(2, shape, rev, es, &rng, PJDL_LAYOUT_STRIDED);
        int64_t rev2[2] = {1, -257};
        run_layout(2, shape, rev2, es, &rng, PJDL_LAYOUT_STRIDED);
        /* Transposed with padded rows. */
        int64_t padded[2] = {1, 300};
        run_layout(2, shape, padded, es, &rng, PJDL_LAYOUT_STRIDED);
        /* Every order of a 3-d tensor. */
        static const int perms[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2},
                                        {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
        for (int p = 0; p < 6; p++) {
            int64_t shape3[3] = {17, 33, 9};
            int64_t strides3[3];
            int64_t s = 1;
            for (int k = 0; k < 3; k++) {
                strides3[perms[p][k]] = s;
                s *= shape3[perms[p][k]];
            }
            bool c = perms[p][0] == 2 && perms[p][1] == 1;
            run_layout(3, shape3, strides3, es, &rng,
                       c ? PJDL_LAYOUT_ROW_MAJOR : PJDL_LAYOUT_PERMUTED);
        }
    }
}

/* Copies past the size where stores bypass the cache, aligned (streamed)
 * and not (plain stores). */
static void test_large_transpositions(void **state) {
    (void)state;
    uint64_t rng = 99;
    int64_t shape[2] = {1536, 1536};
    int64_t strides[2] = {1, 1536};
    run_layout(2, shape, strides, 4, &rng, PJDL_LAYOUT_PERMUTED);
    int64_t shape2[2] = {1031, 1123};
    int64_t strides2[2] = {1, 1031};
    run_layout(2, shape2, strides2, 8, &rng, PJDL_LAYOUT_PERMUTED);
}

static void test_special_cases(void **state) {
    (void)state;
    uint64_t rng = 7;
    /* 0-d, a single element. */
    run_layout(0, NULL, NULL, 8, &rng, PJDL_LAYOUT_ROW_MAJOR);
    /* Broadcast of one element to many. */
    int64_t shape[3] = {3, 4, 5};
    int64_t zero[3] = {0, 0, 0};
    run_layout(3, shape, zero, 4, &rng, PJDL_LAYOUT_STRIDED);
    /* Row-major with odd strides on unit dimensions. */
    int64_t shape1[3] = {1, 6, 1};
    int64_t odd[3] = {-5, 1, 1000};
    run_layout(3, shape1, odd, 2, &rng, PJDL_LAYOUT_ROW_MAJOR);
    /* Permuted tensor whose source-contiguous pair can be merged. */
    int64_t shape4[4] = {2, 3, 4, 5};
    int64_t strides4[4] = {20, 40, 5, 1};
    run_layout(4, shape4, strides4, 4, &rng, PJDL_LAYOUT_PERMUTED);
    /* Zero-size: nothing is read or written. */
    int64_t empty[2] = {0, 7};
    run_layout(2, empty, NULL, 4, &rng, PJDL_LAYOUT_ROW_MAJOR);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_random_layouts),
        cmocka_unit_test(test_transpositions),
        cmocka_unit_test(test_large_transpositions),
        cmocka_unit_test(test_special_cases),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
