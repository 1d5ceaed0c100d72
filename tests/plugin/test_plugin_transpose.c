/* The reference plugin's strided transfers, which run the project's strided
 * copy kernel (common/strided_copy.c): BufferFromHostBuffer from transposed and
 * permuted byte strides, and ToHostBuffer into transposed host layouts, for
 * every element size, sizes that are not multiples of the kernel's tiles and
 * unaligned host pointers, on cpu (copied during the call) and xpu (copied on
 * the stream's worker). Each result is checked element by element. */
#include "plugin_util.h"

static const struct {
    PJRT_Buffer_Type type;
    size_t size;
} types[] = {
    {PJRT_Buffer_Type_U8, 1},  {PJRT_Buffer_Type_F16, 2},   {PJRT_Buffer_Type_F32, 4},
    {PJRT_Buffer_Type_F64, 8}, {PJRT_Buffer_Type_C128, 16},
};
#define NUM_TYPES (sizeof(types) / sizeof(types[0]))

static void fill(unsigned char *p, size_t n, uint32_t seed) {
    for (size_t i = 0; i < n; i++) {
        seed = seed * 1664525u + 1013904223u;
        p[i] = (unsigned char)(seed >> 24);
    }
}

/* Asserts that the row-major `got` holds the array at `src` with byte
 * `strides` (ndim dimensions, es bytes per element). */
static void expect_row_major(const unsigned char *got, const unsigned char *src,
                             const int64_t *strides, const int64_t *dims, size_t ndim, size_t es) {
    int64_t idx[4] = {0};
    size_t count = 1;
    for (size_t k = 0; k < ndim; k++)
        count *= (size_t)dims[k];
    for (size_t lin = 0; lin < count; lin++) {
        int64_t off = 0;
        for (size_t k = 0; k < ndim; k++)
            off += idx[k] * strides[k];
        if (memcmp(got + lin * es, src + off, es) != 0)
            fail_msg("element %zu of %zu differs (ndim %zu, element size %zu)", lin, count, ndim,
                     es);
        for (size_t k = ndim; k-- > 0;) {
            if (++idx[k] < dims[k])
                break;
            idx[k] = 0;
        }
    }
}

/* A rows x cols array from a column-major host array `skew` bytes into its
 * allocation, then back to the host column-major (as byte strides and as
 * minor_to_major) and row-major. */
static void round_trip_transposed(PJRT_Client *client, PJRT_HostBufferSemantics sem, size_t t,
                                  int64_t rows, int64_t cols, size_t skew) {
    size_t es = types[t].size, bytes = (size_t)(rows * cols) * es;
    unsigned char *host = malloc(bytes + skew), *out = malloc(bytes + 1);
    assert_non_null(host);
    assert_non_null(out);
    unsigned char *src = host + skew;
    fill(src, bytes, (uint32_t)(rows * 31 + cols + t));
    int64_t dims[2] = {rows, cols};
    int64_t col_major[2] = {(int64_t)es, rows * (int64_t)es};
    PJRT_Client_BufferFromHostBuffer_Args a = pu_h2d_args(client, src, types[t].type, dims, 2);
    a.byte_strides = col_major;
    a.num_byte_strides = 2;
    a.host_buffer_semantics = sem;
    PJRT_Buffer *b = pu_h2d(&a);

    /* The device layout is row-major: the plugin transposed. */
    out[bytes] = 0x5a;
    PU_OK(pu_to_host(b, out, bytes, NULL));
    expect_row_major(out, src, col_major, dims, 2, es);
    assert_int_equal(out[bytes], 0x5a);

    /* Back to column-major: the plugin transposes again, into `out`. */
    PJRT_Buffer_MemoryLayout cm = pu_strided(col_major, 2);
    PU_OK(pu_to_host(b, out, bytes, &cm));
    assert_memory_equal(out, src, bytes);
    int64_t m2m[2] = {0, 1};
    PJRT_Buffer_MemoryLayout tiled = pu_tiled(m2m, 2);
    memset(out, 0, bytes);
    PU_OK(pu_to_host(b, out, bytes, &tiled));
    assert_memory_equal(out, src, bytes);
    assert_int_equal(out[bytes], 0x5a);
    pu_destroy_buffer(b);
    free(host);
    free(out);
}

static void transposes(PJRT_Client *client, PJRT_HostBufferSemantics sem) {
    static const int64_t shapes[][2] = {{67, 131}, {130, 70}, {16, 64}, {3, 257}, {300, 5}};
    for (size_t t = 0; t < NUM_TYPES; t++)
        for (size_t s = 0; s < sizeof(shapes) / sizeof(shapes[0]); s++)
            for (size_t skew = 0; skew < 2; skew++)
                round_trip_transposed(client, sem, t, shapes[s][0], shapes[s][1],
                                      skew * (1 + 2 * s));
}

static void test_cpu_transposes(void **state) {
    (void)state;
    PJRT_Client *client = pu_cpu_client();
    transposes(client, PJRT_HostBufferSemantics_kImmutableOnlyDuringCall);
    transposes(client, PJRT_HostBufferSemantics_kImmutableUntilTransferCompletes);
    pu_destroy_client(client);
}

static void test_xpu_transposes(void **state) {
    (void)state;
    PJRT_Client *client = pu_xpu_client(0);
    /* Staged during the call, then copied on the worker... */
    transposes(client, PJRT_HostBufferSemantics_kImmutableOnlyDuringCall);
    /* ...or read from the caller's memory on the worker. */
    transposes(client, PJRT_HostBufferSemantics_kImmutableUntilTransferCompletes);
    pu_destroy_client(client);
}

/* Every order of a 3-d source into the default (row-major) device layout,
 * and into a permuted device layout read back row-major. */
static void test_permuted_3d(void **state) {
    (void)state;
    static const int perms[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2},
                                    {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
    PJRT_Client *client = pu_cpu_client();
    int64_t dims[3] = {9, 40, 70};
    for (size_t t = 0; t < NUM_TYPES; t++) {
        size_t es = types[t].size, bytes = 9 * 40 * 70 * es;
        unsigned char *src = malloc(bytes), *out = malloc(bytes);
        assert_non_null(src);
        assert_non_null(out);
        fill(src, bytes, (uint32_t)t);
        for (int p = 0; p < 6; p++) {
            int64_t strides[3];
            int64_t s = (int64_t)es;
            for (int k = 2; k >= 0; k--) {
                strides[perms[p][k]] = s;
                s *= dims[perms[p][k]];
            }
            PJRT_Client_BufferFromHostBuffer_Args a =
                pu_h2d_args(client, src, types[t].type, dims, 3);
            a.byte_strides = strides;
            a.num_byte_strides = 3;
            PJRT_Buffer *b = pu_h2d(&a);
            PU_OK(pu_to_host(b, out, bytes, NULL));
            expect_row_major(out, src, strides, dims, 3, es);
            pu_destroy_buffer(b);

            /* Row-major source, device layout in the permuted order: the
             * plugin scatters on the way in and gathers on the way out. */
            PJRT_Buffer_MemoryLayout dl = pu_strided(strides, 3);
            a.byte_strides = NULL;
            a.num_byte_strides = 0;
            a.device_layout = &dl;
            b = pu_h2d(&a);
            memset(out, 0, bytes);
            int64_t rm[3] = {2, 1, 0};
            PJRT_Buffer_MemoryLayout host = pu_tiled(rm, 3);
            PU_OK(pu_to_host(b, out, bytes, &host));
            assert_memory_equal(out, src, bytes);
            pu_destroy_buffer(b);
        }
        free(src);
        free(out);
    }
    pu_destroy_client(client);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cpu_transposes),
        cmocka_unit_test(test_xpu_transposes),
        cmocka_unit_test(test_permuted_3d),
    };
    return PU_RUN_TESTS(tests, NULL);
}
