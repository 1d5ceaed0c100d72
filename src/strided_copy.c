/* pjdl_strided_copy: any validated DLPack layout -> compact row-major.
 *
 * The tensor is first simplified: extent-1 dimensions are dropped and
 * neighbours that are contiguous with each other in the source are merged.
 * Then one of three inner kernels runs for every index of the remaining
 * outer dimensions:
 *   - run:    the innermost dimension is contiguous in the source: memcpy;
 *   - plane:  another dimension p has a smaller source stride than the
 *             innermost one (a transposition): copy the (p, inner) plane in
 *             cache-sized tiles, so both source and destination lines are
 *             reused while in cache;
 *   - gather: anything else (broadcast, gaps): element by element.
 * Element copies use memcpy of a constant size so that they compile to
 * single loads and stores without assuming alignment. */
#include <stdbool.h>
#include <string.h>

#include "layout.h"

typedef struct {
    int64_t extent, src, dst; /* extent and byte strides */
} copy_dim;

/* Tile edge in elements for the plane kernel: 128 bytes of the source row
 * for elements of 1, 2 and 4 bytes, 32 elements otherwise; the largest tile
 * (32 x 32 of 16 bytes) is 16 KiB and stays in L1. */
#define TILE_BYTES_MAX (32 * 32 * 16)
static int64_t tile_edge(size_t es) {
    return es == 1 || es == 2 || es == 4 ? 128 / (int64_t)es : 32;
}

/* Copies at least this large bypass the caches when writing (see
 * store_rows). */
#define STREAM_BYTES ((size_t)8 << 20)

typedef void (*gather_fn)(char *dst, const char *src, int64_t n, int64_t src_stride,
                          size_t elem_size);
/* Loads the ni x nj block at src, element (i, j) at src + i * sr + j * sc,
 * into buf transposed: element (i, j) at buf + i * pitch + j * elem_size. */
typedef void (*tile_fn)(char *buf, size_t pitch, const char *src, int64_t ni, int64_t nj,
                        int64_t sr, int64_t sc, size_t elem_size);

/* gather: dst[j] = src[j * src_stride], j < n. */
#define DEFINE_KERNELS(NAME, SIZE)                                                                 \
    static void gather_##NAME(char *dst, const char *src, int64_t n, int64_t ss, size_t es) {      \
        (void)es;                                                                                  \
        for (int64_t j = 0; j < n; j++)                                                            \
            memcpy(dst + j * (SIZE), src + j * ss, (SIZE));                                        \
    }                                                                                              \
    static void tile_##NAME(char *buf, size_t pitch, const char *src, int64_t ni, int64_t nj,      \
                            int64_t sr, int64_t sc, size_t es) {                                   \
        (void)es;                                                                                  \
        for (int64_t j = 0; j < nj; j++)                                                           \
            for (int64_t i = 0; i < ni; i++)                                                       \
                memcpy(buf + (size_t)i * pitch + (size_t)j * (SIZE), src + j * sc + i * sr,        \
                       (SIZE));                                                                    \
    }

DEFINE_KERNELS(1, 1)
DEFINE_KERNELS(2, 2)
DEFINE_KERNELS(4, 4)
DEFINE_KERNELS(8, 8)
DEFINE_KERNELS(16, 16)
DEFINE_KERNELS(any, es)

#if defined(__SSE2__)
#include <emmintrin.h>

/* Tile loaders for a source that is contiguous along i (sr == element size),
 * the common transposition: square blocks are transposed in SSE registers
 * (bit-exact moves only), the ragged edges element by element. */
static void tile_edges(char *buf, size_t pitch, const char *src, int64_t ni, int64_t nj, int64_t sr,
                       int64_t sc, size_t es, int64_t fi, int64_t fj) {
    /* The parts not covered by the [0, fi) x [0, fj) blocks. */
    for (int64_t j = 0; j < nj; j++)
        for (int64_t i = j < fj ? fi : 0; i < ni; i++)
            memcpy(buf + (size_t)i * pitch + (size_t)j * es, src + j * sc + i * sr, es);
}

static void tile_sse_4(char *buf, size_t pitch, const char *src, int64_t ni, int64_t nj, int64_t sr,
                       int64_t sc, size_t es) {
    int64_t fi = ni & ~(int64_t)3, fj = nj & ~(int64_t)3;
    for (int64_t j = 0; j < fj; j += 4) {
        const char *s = src + j * sc;
        for (int64_t i = 0; i < fi; i += 4) {
            __m128i r0 = _mm_loadu_si128((const __m128i *)(const void *)(s + i * 4));
            __m128i r1 = _mm_loadu_si128((const __m128i *)(const void *)(s + sc + i * 4));
            __m128i r2 = _mm_loadu_si128((const __m128i *)(const void *)(s + 2 * sc + i * 4));
            __m128i r3 = _mm_loadu_si128((const __m128i *)(const void *)(s + 3 * sc + i * 4));
            __m128i t0 = _mm_unpacklo_epi32(r0, r1), t1 = _mm_unpacklo_epi32(r2, r3);
            __m128i t2 = _mm_unpackhi_epi32(r0, r1), t3 = _mm_unpackhi_epi32(r2, r3);
            char *b = buf + (size_t)i * pitch + (size_t)j * 4;
            _mm_storeu_si128((__m128i *)(void *)b, _mm_unpacklo_epi64(t0, t1));
            _mm_storeu_si128((__m128i *)(void *)(b + pitch), _mm_unpackhi_epi64(t0, t1));
            _mm_storeu_si128((__m128i *)(void *)(b + 2 * pitch), _mm_unpacklo_epi64(t2, t3));
            _mm_storeu_si128((__m128i *)(void *)(b + 3 * pitch), _mm_unpackhi_epi64(t2, t3));
        }
    }
    tile_edges(buf, pitch, src, ni, nj, sr, sc, es, fi, fj);
}

static void tile_sse_8(char *buf, size_t pitch, const char *src, int64_t ni, int64_t nj, int64_t sr,
                       int64_t sc, size_t es) {
    int64_t fi = ni & ~(int64_t)1, fj = nj & ~(int64_t)1;
    for (int64_t j = 0; j < fj; j += 2) {
        const char *s = src + j * sc;
        for (int64_t i = 0; i < fi; i += 2) {
            __m128i r0 = _mm_loadu_si128((const __m128i *)(const void *)(s + i * 8));
            __m128i r1 = _mm_loadu_si128((const __m128i *)(const void *)(s + sc + i * 8));
            char *b = buf + (size_t)i * pitch + (size_t)j * 8;
            _mm_storeu_si128((__m128i *)(void *)b, _mm_unpacklo_epi64(r0, r1));
            _mm_storeu_si128((__m128i *)(void *)(b + pitch), _mm_unpackhi_epi64(r0, r1));
        }
    }
    tile_edges(buf, pitch, src, ni, nj, sr, sc, es, fi, fj);
}

static void tile_sse_1(char *buf, size_t pitch, const char *src, int64_t ni, int64_t nj, int64_t sr,
                       int64_t sc, size_t es) {
    int64_t fi = ni & ~(int64_t)15, fj = nj & ~(int64_t)15;
    for (int64_t j = 0; j < fj; j += 16) {
        const char *s = src + j * sc;
        for (int64_t i = 0; i < fi; i += 16) {
            __m128i r[16], a[16], b[16], c[16];
            for (int k = 0; k < 16; k++)
                r[k] = _mm_loadu_si128((const __m128i *)(const void *)(s + k * sc + i));
            for (int k = 0; k < 8; k++) {
                a[2 * k] = _mm_unpacklo_epi8(r[2 * k], r[2 * k + 1]);
                a[2 * k + 1] = _mm_unpackhi_epi8(r[2 * k], r[2 * k + 1]);
            }
            for (int k = 0; k < 4; k++) {
                b[4 * k] = _mm_unpacklo_epi16(a[4 * k], a[4 * k + 2]);
                b[4 * k + 1] = _mm_unpackhi_epi16(a[4 * k], a[4 * k + 2]);
                b[4 * k + 2] = _mm_unpacklo_epi16(a[4 * k + 1], a[4 * k + 3]);
                b[4 * k + 3] = _mm_unpackhi_epi16(a[4 * k + 1], a[4 * k + 3]);
            }
            for (int k = 0; k < 2; k++)
                for (int t = 0; t < 4; t++) {
                    c[8 * k + 2 * t] = _mm_unpacklo_epi32(b[8 * k + t], b[8 * k + 4 + t]);
                    c[8 * k + 2 * t + 1] = _mm_unpackhi_epi32(b[8 * k + t], b[8 * k + 4 + t]);
                }
            char *d = buf + (size_t)i * pitch + (size_t)j;
            for (int t = 0; t < 4; t++) {
                __m128i *o = (__m128i *)(void *)(d + (size_t)(4 * t) * pitch);
                _mm_storeu_si128(o, _mm_unpacklo_epi64(c[2 * t], c[8 + 2 * t]));
                o = (__m128i *)(void *)(d + (size_t)(4 * t + 1) * pitch);
                _mm_storeu_si128(o, _mm_unpackhi_epi64(c[2 * t], c[8 + 2 * t]));
                o = (__m128i *)(void *)(d + (size_t)(4 * t + 2) * pitch);
                _mm_storeu_si128(o, _mm_unpacklo_epi64(c[2 * t + 1], c[8 + 2 * t + 1]));
                o = (__m128i *)(void *)(d + (size_t)(4 * t + 3) * pitch);
                _mm_storeu_si128(o, _mm_unpackhi_epi64(c[2 * t + 1], c[8 + 2 * t + 1]));
            }
        }
    }
    tile_edges(buf, pitch, src, ni, nj, sr, sc, es, fi, fj);
}

static void tile_sse_2(char *buf, size_t pitch, const char *src, int64_t ni, int64_t nj, int64_t sr,
                       int64_t sc, size_t es) {
    int64_t fi = ni & ~(int64_t)7, fj = nj & ~(int64_t)7;
    for (int64_t j = 0; j < fj; j += 8) {
        const char *s = src + j * sc;
        for (int64_t i = 0; i < fi; i += 8) {
            __m128i r[8], a[8], b[8];
            for (int k = 0; k < 8; k++)
                r[k] = _mm_loadu_si128((const __m128i *)(const void *)(s + k * sc + i * 2));
            for (int k = 0; k < 4; k++) {
                a[2 * k] = _mm_unpacklo_epi16(r[2 * k], r[2 * k + 1]);
                a[2 * k + 1] = _mm_unpackhi_epi16(r[2 * k], r[2 * k + 1]);
            }
            b[0] = _mm_unpacklo_epi32(a[0], a[2]), b[1] = _mm_unpackhi_epi32(a[0], a[2]);
            b[2] = _mm_unpacklo_epi32(a[1], a[3]), b[3] = _mm_unpackhi_epi32(a[1], a[3]);
            b[4] = _mm_unpacklo_epi32(a[4], a[6]), b[5] = _mm_unpackhi_epi32(a[4], a[6]);
            b[6] = _mm_unpacklo_epi32(a[5], a[7]), b[7] = _mm_unpackhi_epi32(a[5], a[7]);
            char *d = buf + (size_t)i * pitch + (size_t)j * 2;
            for (int k = 0; k < 4; k++) {
                _mm_storeu_si128((__m128i *)(void *)(d + (size_t)(2 * k) * pitch),
                                 _mm_unpacklo_epi64(b[k], b[k + 4]));
                _mm_storeu_si128((__m128i *)(void *)(d + (size_t)(2 * k + 1) * pitch),
                                 _mm_unpackhi_epi64(b[k], b[k + 4]));
            }
        }
    }
    tile_edges(buf, pitch, src, ni, nj, sr, sc, es, fi, fj);
}
#endif

/* Writes ni rows of nb bytes from buf (rows `pitch` apart) to d (rows dr
 * apart). With `stream`, uses non-temporal stores when everything is 16-byte
 * aligned: for copies much larger than the caches, this saves reading every
 * destination line before overwriting it. */
static void store_rows(char *d, int64_t dr, const char *buf, size_t pitch, int64_t ni, size_t nb,
                       bool stream) {
#if defined(__SSE2__)
    if (stream && ((uintptr_t)d & 15) == 0 && (dr & 15) == 0 && (nb & 15) == 0) {
        for (int64_t i = 0; i < ni; i++) {
            const char *b = buf + (size_t)i * pitch;
            char *row = d + i * dr;
            for (size_t k = 0; k < nb; k += 16)
                _mm_stream_si128((__m128i *)(void *)(row + k),
                                 _mm_load_si128((const __m128i *)(const void *)(b + k)));
        }
        return;
    }
#else
    (void)stream;
#endif
    for (int64_t i = 0; i < ni; i++)
        memcpy(d + i * dr, buf + (size_t)i * pitch, nb);
}

/* dst[i * dr + j] = src[i * sr + j * sc] for i < rows, j < cols (dst's j in
 * elements, all strides in bytes): each tile (tile_edge square) is loaded into a
 * small buffer along the source's short stride, then written out as whole
 * destination row pieces, so neither side walks memory one element per cache
 * line (with power-of-two strides that would also thrash the cache sets).
 * Tiles are visited in blocks of about 2 KiB per row so that each source row
 * is read in long runs, and the next tile's source lines are prefetched. */
static void copy_plane(char *dst, const char *src, int64_t rows, int64_t cols, int64_t dr,
                       int64_t sr, int64_t sc, size_t es, tile_fn load, bool stream) {
    _Alignas(16) char buf[TILE_BYTES_MAX];
    const int64_t T = tile_edge(es);
    const size_t pitch = (size_t)T * es; /* a multiple of 16 */
    int64_t block = (int64_t)(2048 / es) / T * T;
    if (block < T)
        block = T;
    for (int64_t jb = 0; jb < cols; jb += block) {
        int64_t je = cols - jb < block ? cols : jb + block;
        for (int64_t ib = 0; ib < rows; ib += block) {
            int64_t ie = rows - ib < block ? rows : ib + block;
            for (int64_t j0 = jb; j0 < je; j0 += T) {
                int64_t nj = je - j0 < T ? je - j0 : T;
                for (int64_t i0 = ib; i0 < ie; i0 += T) {
                    int64_t ni = ie - i0 < T ? ie - i0 : T;
                    if (ie - i0 > T) {
                        const char *next = src + (i0 + T) * sr + j0 * sc;
                        for (int64_t j = 0; j < nj; j++)
                            __builtin_prefetch(next + j * sc);
                    }
                    load(buf, pitch, src + i0 * sr + j0 * sc, ni, nj, sr, sc, es);
                    store_rows(dst + i0 * dr + j0 * (int64_t)es, dr, buf, pitch, ni,
                               (size_t)nj * es, stream);
                }
            }
        }
    }
}

static gather_fn select_gather(size_t es) {
    switch (es) {
    case 1:
        return gather_1;
    case 2:
        return gather_2;
    case 4:
        return gather_4;
    case 8:
        return gather_8;
    case 16:
        return gather_16;
    }
    return gather_any;
}

/* The tile loader for a plane whose source row stride is `sr`. */
static tile_fn select_tile(size_t es, int64_t sr) {
#if defined(__SSE2__)
    if (sr == (int64_t)es) {
        if (es == 1)
            return tile_sse_1;
        if (es == 2)
            return tile_sse_2;
        if (es == 4)
            return tile_sse_4;
        if (es == 8)
            return tile_sse_8;
    }
#else
    (void)sr;
#endif
    switch (es) {
    case 1:
        return tile_1;
    case 2:
        return tile_2;
    case 4:
        return tile_4;
    case 8:
        return tile_8;
    case 16:
        return tile_16;
    }
    return tile_any;
}

/* Drops extent-1 dimensions and merges source-contiguous neighbours; returns
 * the number of dimensions left in dims (row-major order, destination
 * strides compact). */
static int simplify(const pjdl_layout *l, copy_dim *dims) {
    int n = 0;
    int64_t dst_stride = (int64_t)l->elem_size;
    int64_t dst[PJDL_MAX_RANK];
    for (int32_t i = l->ndim - 1; i >= 0; i--) {
        dst[i] = dst_stride;
        dst_stride *= l->shape[i];
    }
    for (int32_t i = 0; i < l->ndim; i++) {
        if (l->shape[i] == 1)
            continue;
        copy_dim d = {l->shape[i], l->byte_strides[i], dst[i]};
        if (n > 0 && dims[n - 1].src == d.src * d.extent) {
            dims[n - 1].extent *= d.extent;
            dims[n - 1].src = d.src;
            dims[n - 1].dst = d.dst;
        } else {
            dims[n++] = d;
        }
    }
    return n;
}

typedef enum { KERNEL_RUN, KERNEL_PLANE, KERNEL_GATHER } kernel_kind;

void pjdl_strided_copy(void *dst_, const void *src_, const pjdl_layout *l) {
    char *dst = dst_;
    const char *src = src_;
    if (l->num_elements == 0)
        return;
    if (l->kind == PJDL_LAYOUT_ROW_MAJOR) {
        memcpy(dst, src, l->nbytes);
        return;
    }
    const size_t es = l->elem_size;
    copy_dim dims[PJDL_MAX_RANK];
    int n = simplify(l, dims);
    if (n == 0) {
        memcpy(dst, src, es);
        return;
    }
    gather_fn gather = select_gather(es);
    tile_fn tile = NULL;

    const copy_dim inner = dims[n - 1];
    kernel_kind kind = KERNEL_GATHER;
    int p = -1;
    if (inner.src == (int64_t)es) {
        kind = KERNEL_RUN;
    } else {
        /* The dimension with the smallest source stride, if it beats the
         * innermost one: the plane (p, inner) is a transposition. */
        uint64_t best = inner.src < 0 ? 0 - (uint64_t)inner.src : (uint64_t)inner.src;
        for (int k = 0; k < n - 1; k++) {
            uint64_t a = dims[k].src < 0 ? 0 - (uint64_t)dims[k].src : (uint64_t)dims[k].src;
            if (a < best) {
                best = a;
                p = k;
            }
        }
        /* The tile buffer holds elements of up to 16 bytes; wider ones
         * (odd DLPack widths up to 31 bytes) are gathered. */
        if (p >= 0 && es <= 16) {
            kind = KERNEL_PLANE;
            tile = select_tile(es, dims[p].src);
        } else {
            p = -1;
        }
    }

    /* The outer dimensions: all but the innermost (and p for a plane). */
    copy_dim outer[PJDL_MAX_RANK];
    int no = 0;
    for (int k = 0; k < n - 1; k++)
        if (k != p)
            outer[no++] = dims[k];

    int64_t count[PJDL_MAX_RANK] = {0};
    int64_t so = 0, dof = 0;
    const int64_t run_bytes = inner.extent * (int64_t)es;
    const bool stream = l->nbytes >= STREAM_BYTES;
    for (;;) {
        switch (kind) {
        case KERNEL_RUN:
            memcpy(dst + dof, src + so, (size_t)run_bytes);
            break;
        case KERNEL_PLANE:
            copy_plane(dst + dof, src + so, dims[p].extent, inner.extent, dims[p].dst, dims[p].src,
                       inner.src, es, tile, stream);
            break;
        case KERNEL_GATHER:
            gather(dst + dof, src + so, inner.extent, inner.src, es);
            break;
        }
        /* Odometer over the outer dimensions, innermost fastest. */
        int k = no - 1;
        for (; k >= 0; k--) {
            so += outer[k].src;
            dof += outer[k].dst;
            if (++count[k] < outer[k].extent)
                break;
            so -= outer[k].src * outer[k].extent;
            dof -= outer[k].dst * outer[k].extent;
            count[k] = 0;
        }
        if (k < 0)
            break;
    }
#if defined(__SSE2__)
    if (stream && kind == KERNEL_PLANE)
        _mm_sfence(); /* order the non-temporal stores before the caller's */
#endif
}
