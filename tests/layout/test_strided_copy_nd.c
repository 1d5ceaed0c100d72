/* pjdl__strided_copy_nd (common/strided_copy.c), the kernel shared by the
 * library and the reference plugin, against a plain loop over every index:
 * transpositions of sizes that are not multiples of the tiles, every element
 * size the vector paths have (and odd ones), unaligned pointers, copies large
 * enough for non-temporal stores, 3-d permutations, destinations with their
 * own strides and gaps, and random layouts. Buffers are exactly as large as
 * the bytes the layouts span, so valgrind and ASan see any stray access;
 * bytes of the destination that are not elements must stay untouched. */
#include <stdlib.h>

#include "layout_test.h"

#include "strided_copy.h"

/* Lowest and one-past-highest byte offset an array touches. */
static void span_of(const int64_t *dims, const int64_t *strides, int n, size_t es, int64_t *lo,
                    int64_t *hi) {
    *lo = 0;
    *hi = (int64_t)es;
    for (int k = 0; k < n; k++) {
        int64_t ext = (dims[k] - 1) * strides[k];
        if (ext < 0)
            *lo += ext;
        else
            *hi += ext;
    }
}

/* The reference: every index in C order, one memcpy per element. */
static void reference_copy(char *dst, const int64_t *dst_strides, const char *src,
                           const int64_t *src_strides, const int64_t *dims, int n, size_t es) {
    int64_t idx[PJDL_STRIDED_COPY_MAX_DIMS] = {0};
    for (int k = 0; k < n; k++)
        if (dims[k] == 0)
            return;
    for (;;) {
        int64_t so = 0, dof = 0;
        for (int k = 0; k < n; k++) {
            so += idx[k] * src_strides[k];
            dof += idx[k] * dst_strides[k];
        }
        memcpy(dst + dof, src + so, es);
        int k = n - 1;
        for (; k >= 0; k--) {
            if (++idx[k] < dims[k])
                break;
            idx[k] = 0;
        }
        if (k < 0)
            return;
    }
}

static void fill_random(unsigned char *p, size_t n, uint64_t *rng) {
    for (size_t i = 0; i < n; i += 8) {
        uint64_t r = test_rand(rng);
        memcpy(p + i, &r, n - i < 8 ? n - i : 8);
    }
}

static void compact_strides(const int64_t *dims, int n, size_t es, int64_t *strides) {
    int64_t s = (int64_t)es;
    for (int k = n - 1; k >= 0; k--) {
        strides[k] = s;
        s *= dims[k] > 0 ? dims[k] : 1;
    }
}

/* Copies with the kernel and with the reference, from a random source at
 * src_skew bytes past a malloc'd block to destinations dst_skew bytes past
 * theirs, and compares the whole destination blocks. dst_strides NULL: the
 * kernel is given NULL (compact), the reference the compact strides. */
static void check(const int64_t *dims, int n, size_t es, const int64_t *src_strides,
                  const int64_t *dst_strides, size_t src_skew, size_t dst_skew, uint64_t *rng) {
    int64_t compact[PJDL_STRIDED_COPY_MAX_DIMS];
    compact_strides(dims, n, es, compact);
    const int64_t *ds = dst_strides != NULL ? dst_strides : compact;
    bool empty = false;
    for (int k = 0; k < n; k++)
        empty = empty || dims[k] == 0;
    int64_t slo = 0, shi = 0, dlo = 0, dhi = 0;
    if (!empty) {
        span_of(dims, src_strides, n, es, &slo, &shi);
        span_of(dims, ds, n, es, &dlo, &dhi);
    }
    size_t src_size = src_skew + (size_t)(shi - slo), dst_size = dst_skew + (size_t)(dhi - dlo);
    unsigned char *src = malloc(src_size + 1), *got = malloc(dst_size + 1),
                  *want = malloc(dst_size + 1);
    assert_non_null(src);
    assert_non_null(got);
    assert_non_null(want);
    fill_random(src, src_size, rng);
    fill_random(want, dst_size, rng);
    memcpy(got, want, dst_size);
    const char *s0 = (const char *)src + src_skew - slo;
    reference_copy((char *)want + dst_skew - dlo, ds, s0, src_strides, dims, n, es);
    pjdl__strided_copy_nd((char *)got + dst_skew - dlo, dst_strides, s0, src_strides, dims,
                          (size_t)n, es);
    for (size_t i = 0; i < dst_size; i++)
        if (got[i] != want[i])
            fail_msg("byte %zu of %zu differs: %u, expected %u (ndim %d, dims[0] %lld, elem size "
                     "%zu, skews %zu/%zu)",
                     i, dst_size, got[i], want[i], n, n > 0 ? (long long)dims[0] : 0LL, es,
                     src_skew, dst_skew);
    free(src);
    free(got);
    free(want);
}

/* A rows x cols array read from a column-major source into row-major. */
static void check_transpose(int64_t rows, int64_t cols, size_t es, size_t src_skew, size_t dst_skew,
                            uint64_t *rng) {
    int64_t dims[2] = {rows, cols};
    int64_t strides[2] = {(int64_t)es, rows * (int64_t)es};
    check(dims, 2, es, strides, NULL, src_skew, dst_skew, rng);
}

static const size_t vector_sizes[] = {1, 2, 4, 8, 16};
static const size_t all_sizes[] = {1, 2, 3, 4, 8, 12, 16, 31};
#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* Sizes around the tile (64 bytes of a source column by 256 of a
 * destination row), the register blocks (16, 8, 4, 2 elements) and the
 * super-blocks (256 elements), square and not. */
static void test_transpose_sizes(void **state) {
    (void)state;
    static const int64_t shapes[][2] = {
        {1, 9},   {9, 1},    {2, 2},    {3, 5},    {4, 4},     {15, 17},  {16, 16},
        {17, 65}, {64, 256}, {65, 257}, {63, 255}, {100, 3},   {3, 300},  {257, 131},
        {31, 33}, {300, 29}, {2, 1000}, {1000, 2}, {258, 259}, {128, 64}, {513, 7},
    };
    uint64_t rng = 1;
    for (size_t e = 0; e < COUNT(all_sizes); e++)
        for (size_t s = 0; s < COUNT(shapes); s++)
            check_transpose(shapes[s][0], shapes[s][1], all_sizes[e], 0, 0, &rng);
}

/* Pointers at every offset within a cache line's worth of alignment,
 * including ones not aligned to the element. */
static void test_transpose_unaligned(void **state) {
    (void)state;
    static const size_t skews[] = {0, 1, 2, 3, 4, 7, 8, 12, 13, 60};
    uint64_t rng = 2;
    for (size_t e = 0; e < COUNT(vector_sizes); e++)
        for (size_t a = 0; a < COUNT(skews); a++)
            for (size_t b = 0; b < COUNT(skews); b += 3) {
                check_transpose(67, 131, vector_sizes[e], skews[a], skews[b], &rng);
                check_transpose(40, 9, vector_sizes[e], skews[b], skews[a], &rng);
            }
}

/* 8 MiB and more: rows of whole 16-byte vectors are written with
 * non-temporal stores, other rows (unaligned destination, odd row widths)
 * plainly; the edge tiles mix both. */
static void test_transpose_streamed(void **state) {
    (void)state;
    uint64_t rng = 3;
    check_transpose(1536, 1536, 4, 0, 0, &rng);
    check_transpose(1501, 1499, 4, 4, 4, &rng);
    check_transpose(1031, 1123, 8, 8, 3, &rng);
    check_transpose(2900, 2901, 1, 1, 0, &rng);
    check_transpose(2100, 2053, 2, 0, 6, &rng);
    check_transpose(600, 901, 16, 0, 0, &rng);
}

/* Every order of 3-d arrays, from a compact source in that order to a
 * row-major destination, and from a row-major source to a destination in
 * that order (as a plugin's ToHostBuffer does with a host layout). */
static void test_permutations_3d(void **state) {
    (void)state;
    static const int perms[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2},
                                    {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
    static const int64_t shapes[][3] = {{13, 37, 70}, {5, 3, 300}, {70, 2, 65}, {1, 19, 23}};
    uint64_t rng = 4;
    for (size_t e = 0; e < COUNT(all_sizes); e++)
        for (size_t sh = 0; sh < COUNT(shapes); sh++)
            for (int p = 0; p < 6; p++) {
                const int64_t *dims = shapes[sh];
                int64_t permuted[3], row_major[3];
                int64_t s = (int64_t)all_sizes[e];
                for (int k = 2; k >= 0; k--) {
                    permuted[perms[p][k]] = s;
                    s *= dims[perms[p][k]];
                }
                compact_strides(dims, 3, all_sizes[e], row_major);
                check(dims, 3, all_sizes[e], permuted, NULL, 0, 0, &rng);
                check(dims, 3, all_sizes[e], row_major, permuted, 1, 0, &rng);
                check(dims, 3, all_sizes[e], permuted, row_major, 0, 0, &rng);
            }
}

/* Transpositions whose source is not contiguous along either dimension
 * (every other element, reversed, broadcast): the element-wise tiles. */
static void test_strided_sources(void **state) {
    (void)state;
    uint64_t rng = 5;
    for (size_t e = 0; e < COUNT(all_sizes); e++) {
        int64_t es = (int64_t)all_sizes[e];
        int64_t dims[2] = {70, 90};
        int64_t every_other[2] = {2 * es, 2 * 70 * es};
        check(dims, 2, all_sizes[e], every_other, NULL, 0, 0, &rng);
        int64_t reversed[2] = {-es, 70 * es};
        check(dims, 2, all_sizes[e], reversed, NULL, 0, 0, &rng);
        int64_t both_reversed[2] = {-es, -70 * es};
        check(dims, 2, all_sizes[e], both_reversed, NULL, 3, 0, &rng);
        int64_t broadcast_rows[2] = {0, es};
        check(dims, 2, all_sizes[e], broadcast_rows, NULL, 0, 0, &rng);
        int64_t broadcast_cols[2] = {es, 0};
        check(dims, 2, all_sizes[e], broadcast_cols, NULL, 0, 0, &rng);
        int64_t padded[2] = {es, 75 * es};
        check(dims, 2, all_sizes[e], padded, NULL, 0, 0, &rng);
    }
}

/* Destinations with gaps and their own order, sources with gaps, reversals
 * and broadcasts, up to 6 dimensions. */
static void test_random_layouts(void **state) {
    (void)state;
    uint64_t rng = 0x243f6a8885a308d3ULL;
    for (int iter = 0; iter < 3000; iter++) {
        size_t es = all_sizes[test_rand_below(&rng, COUNT(all_sizes))];
        int n = (int)test_rand_below(&rng, 7);
        int64_t dims[8], src_strides[8], dst_strides[8];
        int src_order[8], dst_order[8];
        for (int k = 0; k < n; k++) {
            int64_t r = test_rand_below(&rng, 10);
            dims[k] = r == 0   ? 1
                      : r == 1 ? 17 + test_rand_below(&rng, 60)
                               : 1 + test_rand_below(&rng, 6);
            src_order[k] = dst_order[k] = k;
        }
        /* At most about 100k elements. */
        for (;;) {
            int64_t total = 1;
            int big = 0;
            for (int k = 0; k < n; k++) {
                total *= dims[k];
                big = dims[k] > dims[big] ? k : big;
            }
            if (total <= 100000)
                break;
            dims[big] = (dims[big] + 1) / 2;
        }
        if (test_rand_below(&rng, 40) == 0 && n > 0)
            dims[test_rand_below(&rng, n)] = 0;
        for (int k = n - 1; k > 0; k--) {
            int a = (int)test_rand_below(&rng, k + 1), b = (int)test_rand_below(&rng, k + 1);
            int t = src_order[k];
            src_order[k] = src_order[a];
            src_order[a] = t;
            t = dst_order[k];
            dst_order[k] = dst_order[b];
            dst_order[b] = t;
        }
        /* Dense in a random order, with occasional gaps: the destination's
         * elements stay distinct. */
        int64_t s = (int64_t)es, d = (int64_t)es;
        for (int k = 0; k < n; k++) {
            int si = src_order[k], di = dst_order[k];
            src_strides[si] = s;
            dst_strides[di] = d;
            int64_t se = dims[si] > 0 ? dims[si] : 1, de = dims[di] > 0 ? dims[di] : 1;
            s *= se + (test_rand_below(&rng, 4) == 0 ? test_rand_below(&rng, 3) : 0);
            d *= de + (test_rand_below(&rng, 4) == 0 ? test_rand_below(&rng, 3) : 0);
        }
        for (int k = 0; k < n; k++) {
            int64_t r = test_rand_below(&rng, 12);
            if (r == 0)
                src_strides[k] = -src_strides[k];
            else if (r == 1)
                src_strides[k] = 0;
        }
        bool own_dst = test_rand_below(&rng, 2) == 0;
        check(dims, n, es, src_strides, own_dst ? dst_strides : NULL,
              (size_t)test_rand_below(&rng, 17), (size_t)test_rand_below(&rng, 17), &rng);
    }
}

static void test_special_cases(void **state) {
    (void)state;
    uint64_t rng = 6;
    /* 0-d: one element. */
    check(NULL, 0, 8, NULL, NULL, 1, 3, &rng);
    /* A zero extent: nothing is read or written (the spans are empty). */
    int64_t empty[3] = {4, 0, 5};
    int64_t any[3] = {4, -1000, 7};
    check(empty, 3, 4, any, NULL, 0, 0, &rng);
    /* Extent-1 dimensions with arbitrary strides around a transposition. */
    int64_t ones[4] = {1, 40, 1, 30};
    int64_t odd[4] = {-77, 4, 123456, 160};
    check(ones, 4, 4, odd, NULL, 0, 0, &rng);
    /* Already row-major: one memcpy; explicit compact strides the same. */
    int64_t dims[3] = {3, 50, 7};
    int64_t rm[3];
    compact_strides(dims, 3, 2, rm);
    check(dims, 3, 2, rm, NULL, 1, 1, &rng);
    check(dims, 3, 2, rm, rm, 0, 0, &rng);
    /* A batch of transpositions: the outer dimension runs the tiles again. */
    int64_t batch[3] = {5, 33, 70};
    int64_t bs[3] = {33 * 70 * 4, 4, 33 * 4};
    check(batch, 3, 4, bs, NULL, 0, 0, &rng);
    /* The transposed dimension outermost in the destination, with a gap. */
    int64_t ds[3] = {4, 5 * 70 * 4 + 8, 5 * 4};
    check(batch, 3, 4, bs, ds, 0, 0, &rng);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_transpose_sizes),    cmocka_unit_test(test_transpose_unaligned),
        cmocka_unit_test(test_transpose_streamed), cmocka_unit_test(test_permutations_3d),
        cmocka_unit_test(test_strided_sources),    cmocka_unit_test(test_random_layouts),
        cmocka_unit_test(test_special_cases),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
