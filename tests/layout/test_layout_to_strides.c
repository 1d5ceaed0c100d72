/* pjdl__layout_to_strides and pjdl__compact_strides. */
#include "layout_test.h"

#include "layout.h"

/* A layout of `type` with nothing else set. */
static PJRT_Buffer_MemoryLayout layout_of(PJRT_Buffer_MemoryLayout_Type type) {
    PJRT_Buffer_MemoryLayout l;
    memset(&l, 0, sizeof l);
    l.struct_size = sizeof l;
    l.type = type;
    return l;
}

static PJRT_Buffer_MemoryLayout strided(const int64_t *byte_strides, size_t n) {
    PJRT_Buffer_MemoryLayout l = layout_of(PJRT_Buffer_MemoryLayout_Type_Strides);
    l.strides.struct_size = sizeof l.strides;
    l.strides.byte_strides = byte_strides;
    l.strides.num_byte_strides = n;
    return l;
}

static PJRT_Buffer_MemoryLayout tiled(const int64_t *m2m, size_t n, const int64_t *tile_dims,
                                      const size_t *tile_dim_sizes, size_t num_tiles) {
    PJRT_Buffer_MemoryLayout l = layout_of(PJRT_Buffer_MemoryLayout_Type_Tiled);
    l.tiled.struct_size = sizeof l.tiled;
    l.tiled.minor_to_major = m2m;
    l.tiled.minor_to_major_size = n;
    l.tiled.tile_dims = tile_dims;
    l.tiled.tile_dim_sizes = tile_dim_sizes;
    l.tiled.num_tiles = num_tiles;
    return l;
}

static void assert_strides(const int64_t *got, const int64_t *want, int n) {
    for (int i = 0; i < n; i++)
        if (got[i] != want[i])
            fail_msg("stride %d is %lld, expected %lld", i, (long long)got[i], (long long)want[i]);
}

static void test_compact_strides(void **state) {
    (void)state;
    int64_t dims[3] = {2, 3, 4}, bs[3];
    assert_true(pjdl__compact_strides(dims, 3, 4, bs));
    assert_strides(bs, (int64_t[]){48, 16, 4}, 3);
    int64_t zero[3] = {2, 0, 4};
    assert_true(pjdl__compact_strides(zero, 3, 2, bs));
    assert_strides(bs, (int64_t[]){8, 8, 2}, 3);
    int64_t huge[3] = {2, INT64_C(1) << 40, INT64_C(1) << 40};
    assert_false(pjdl__compact_strides(huge, 3, 8, bs));
    int64_t neg[2] = {2, -1};
    assert_false(pjdl__compact_strides(neg, 2, 8, bs));
    assert_true(pjdl__compact_strides(NULL, 0, 8, bs));
    assert_false(pjdl__compact_strides(dims, -1, 8, bs));
}

static void test_default_layout(void **state) {
    (void)state;
    int64_t dims[3] = {2, 3, 4}, s[3];
    assert_code(pjdl__layout_to_strides(NULL, dims, 3, 4, s), PJDL_OK, NULL);
    assert_strides(s, (int64_t[]){12, 4, 1}, 3);
    assert_code(pjdl__layout_to_strides(NULL, NULL, 0, 4, NULL), PJDL_OK, NULL);
    assert_code(pjdl__layout_to_strides(NULL, dims, 65, 4, s), PJDL_INVALID_ARGUMENT, "ndim");
    assert_code(pjdl__layout_to_strides(NULL, dims, 3, 0, s), PJDL_INVALID_ARGUMENT,
                "element size");
    int64_t neg[2] = {3, -2};
    assert_code(pjdl__layout_to_strides(NULL, neg, 2, 4, s), PJDL_INVALID_ARGUMENT,
                "dims[1] is -2");
}

static void test_strides_layout(void **state) {
    (void)state;
    int64_t dims[3] = {2, 3, 4}, s[3] = {7, 7, 7};
    int64_t bs[3] = {4, 32, 8};
    PJRT_Buffer_MemoryLayout l = strided(bs, 3);
    assert_code(pjdl__layout_to_strides(&l, dims, 3, 4, s), PJDL_OK, NULL);
    assert_strides(s, (int64_t[]){1, 8, 2}, 3);
    int64_t neg[3] = {-48, 16, 4};
    l = strided(neg, 3);
    assert_code(pjdl__layout_to_strides(&l, dims, 3, 4, s), PJDL_OK, NULL);
    assert_strides(s, (int64_t[]){-12, 4, 1}, 3);

    int64_t odd[3] = {48, 16, 6};
    l = strided(odd, 3);
    int64_t keep[3] = {7, 7, 7};
    memcpy(s, keep, sizeof s);
    assert_code(pjdl__layout_to_strides(&l, dims, 3, 4, s), PJDL_UNIMPLEMENTED,
                "byte stride 6 of dimension 2 is not a multiple of the element size 4");
    assert_strides(s, keep, 3); /* untouched on failure */
    l = strided(bs, 2);
    assert_code(pjdl__layout_to_strides(&l, dims, 3, 4, s), PJDL_INVALID_ARGUMENT,
                "2 byte strides for 3 dimensions");
    l = strided(NULL, 3);
    assert_code(pjdl__layout_to_strides(&l, dims, 3, 4, s), PJDL_INVALID_ARGUMENT,
                "byte_strides is NULL");
    l.type = (PJRT_Buffer_MemoryLayout_Type)7;
    assert_code(pjdl__layout_to_strides(&l, dims, 3, 4, s), PJDL_INVALID_ARGUMENT,
                "unknown layout type 7");
}

/* Tiled layouts without tiles: the strides of each dimension order. */
static void test_tiled_without_tiles(void **state) {
    (void)state;
    static const struct {
        int64_t m2m[3];
        int64_t dims[3];
        int64_t want[3];
    } cases[] = {
        {{2, 1, 0}, {2, 3, 4}, {12, 4, 1}},
        {{0, 1, 2}, {2, 3, 4}, {1, 2, 6}},
        {{1, 2, 0}, {2, 3, 4}, {12, 1, 3}},
        {{2, 1, 0}, {2, 0, 4}, {4, 4, 1}}, /* zero extents count as one */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int64_t s[3];
        PJRT_Buffer_MemoryLayout l = tiled(cases[i].m2m, 3, NULL, NULL, 0);
        assert_code(pjdl__layout_to_strides(&l, cases[i].dims, 3, 4, s), PJDL_OK, NULL);
        assert_strides(s, cases[i].want, 3);
    }
}

/* Tiled layouts that contradict themselves or the dimensions (2, 3, 4). */
static void test_tiled_contradictions(void **state) {
    (void)state;
    static const int64_t c[3] = {2, 1, 0}, zero_tile[2] = {0, 128};
    static const size_t sizes[1] = {2};
    const struct {
        const int64_t *m2m;
        size_t n;
        const int64_t *tile_dims;
        const size_t *tile_dim_sizes;
        size_t num_tiles;
        const char *why;
    } cases[] = {
        {(const int64_t[]){2, 2, 0}, 3, NULL, NULL, 0, "minor_to_major[1] is 2: not a permutation"},
        {(const int64_t[]){2, 3, 0}, 3, NULL, NULL, 0, "minor_to_major[1] is 3"},
        {(const int64_t[]){2, -1, 0}, 3, NULL, NULL, 0, "minor_to_major[1] is -1"},
        {c, 2, NULL, NULL, 0, "minor_to_major has 2 entries for 3 dimensions"},
        {NULL, 3, NULL, NULL, 0, "minor_to_major is NULL"},
        {c, 3, NULL, NULL, 1, "tile_dims or tile_dim_sizes is NULL"},
        {c, 3, zero_tile, sizes, 1, "tile 0 has dimension 0 of size 0"},
    };
    int64_t dims[3] = {2, 3, 4}, s[3];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        PJRT_Buffer_MemoryLayout l = tiled(cases[i].m2m, cases[i].n, cases[i].tile_dims,
                                           cases[i].tile_dim_sizes, cases[i].num_tiles);
        assert_code(pjdl__layout_to_strides(&l, dims, 3, 4, s), PJDL_INVALID_ARGUMENT,
                    cases[i].why);
    }
}

static void test_tiles(void **state) {
    (void)state;
    int64_t s[3];
    int64_t c2[2] = {1, 0};
    int64_t t8x128[2] = {8, 128};
    size_t one2[1] = {2};

    /* (8,128) tiles on (16,128): whole rows per tile, order unchanged. */
    int64_t d1[2] = {16, 128};
    PJRT_Buffer_MemoryLayout l = tiled(c2, 2, t8x128, one2, 1);
    assert_code(pjdl__layout_to_strides(&l, d1, 2, 4, s), PJDL_OK, NULL);
    assert_strides(s, (int64_t[]){128, 1}, 2);

    /* Rows shorter than a tile are padded: not expressible. */
    int64_t d2[2] = {16, 64};
    assert_code(pjdl__layout_to_strides(&l, d2, 2, 4, s), PJDL_UNIMPLEMENTED,
                "tiled layout (tile 0 reorders elements) cannot be expressed in DLPack");
    /* Rows longer than a tile are split: not expressible. */
    int64_t d3[2] = {16, 256};
    assert_code(pjdl__layout_to_strides(&l, d3, 2, 4, s), PJDL_UNIMPLEMENTED,
                "cannot be expressed in DLPack");
    /* A single row within one tile: padding only at the end. */
    int64_t d4[2] = {1, 100};
    assert_code(pjdl__layout_to_strides(&l, d4, 2, 4, s), PJDL_OK, NULL);
    assert_strides(s, (int64_t[]){100, 1}, 2);
    /* Rows stacked along the major dimension with trailing padding. */
    int64_t d5[2] = {13, 128};
    assert_code(pjdl__layout_to_strides(&l, d5, 2, 4, s), PJDL_OK, NULL);
    /* One column padded to 128 is not. */
    int64_t d6[2] = {3, 1};
    assert_code(pjdl__layout_to_strides(&l, d6, 2, 4, s), PJDL_UNIMPLEMENTED, "tiled layout");
    /* A 1-d array sees the tile with a leading 1. */
    int64_t c1[1] = {0};
    int64_t d7[1] = {100};
    l = tiled(c1, 1, t8x128, one2, 1);
    assert_code(pjdl__layout_to_strides(&l, d7, 1, 4, s), PJDL_OK, NULL);
    assert_int_equal(s[0], 1);
    int64_t d8[1] = {300};
    assert_code(pjdl__layout_to_strides(&l, d8, 1, 4, s), PJDL_UNIMPLEMENTED, "tiled layout");
    /* A 1-d tile that divides the extent is harmless. */
    int64_t t128[1] = {128};
    size_t one1[1] = {1};
    l = tiled(c1, 1, t128, one1, 1);
    assert_code(pjdl__layout_to_strides(&l, d8, 1, 4, s), PJDL_OK, NULL);
    /* ... and so is a 1-d tile on the minor dimension of an array whose
     * rows it divides, but not one that pads the rows. */
    int64_t d9[2] = {4, 256};
    l = tiled(c2, 2, t128, one1, 1);
    assert_code(pjdl__layout_to_strides(&l, d9, 2, 4, s), PJDL_OK, NULL);
    int64_t d10[2] = {4, 200};
    assert_code(pjdl__layout_to_strides(&l, d10, 2, 4, s), PJDL_UNIMPLEMENTED, "tiled layout");

    /* TPU bf16: (8,128)(2,1) interleaves pairs of rows. */
    int64_t tpu[4] = {8, 128, 2, 1};
    size_t two[2] = {2, 2};
    l = tiled(c2, 2, tpu, two, 2);
    assert_code(pjdl__layout_to_strides(&l, d1, 2, 2, s), PJDL_UNIMPLEMENTED, "tile 1");
    /* Zero-size arrays have nothing to reorder. */
    int64_t d11[2] = {0, 64};
    assert_code(pjdl__layout_to_strides(&l, d11, 2, 2, s), PJDL_OK, NULL);
    /* Combined dimensions (-1) are not supported. */
    int64_t comb[2] = {-1, 128};
    l = tiled(c2, 2, comb, one2, 1);
    assert_code(pjdl__layout_to_strides(&l, d1, 2, 4, s), PJDL_UNIMPLEMENTED, "combines");
    /* A permuted layout with a harmless tile. */
    int64_t f2[2] = {0, 1};
    int64_t d12[2] = {128, 16}; /* physical (16, 128) */
    l = tiled(f2, 2, t8x128, one2, 1);
    assert_code(pjdl__layout_to_strides(&l, d12, 2, 4, s), PJDL_OK, NULL);
    assert_strides(s, (int64_t[]){1, 128}, 2);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_compact_strides),      cmocka_unit_test(test_default_layout),
        cmocka_unit_test(test_strides_layout),       cmocka_unit_test(test_tiled_without_tiles),
        cmocka_unit_test(test_tiled_contradictions), cmocka_unit_test(test_tiles),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
