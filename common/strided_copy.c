/* pjdl__strided_copy_nd: the strided copy kernel (see strided_copy.h), shared
 * by the library and the reference plugin.
 *
 * The transposition kernel ("plane") copies a 2-d slice whose destination
 * rows are contiguous (j, stride elem_size) while the source is closest to
 * contiguous along the other dimension (i): dst[i * dr + j * es] =
 * src[i * sr + j * sc]. Reading or writing such a slice in either order
 * touches one element per cache line, and with large power-of-two strides
 * every line maps to the same cache sets and lies on its own page. So:
 *  - the slice is cut into tiles of TILE_SRC_BYTES along i (one cache line
 *    of every source column, with the tile grid aligned to the source's
 *    lines) by TILE_DST_BYTES along j (four lines of every destination row);
 *  - a tile is transposed into a small buffer, reading each source line
 *    completely before the next (SSE2 register transposes: 16x16 bytes,
 *    8x8 of 2 bytes, 4x4 of 4, 2x2 of 8), then written out as whole
 *    destination row pieces, with non-temporal stores for copies of
 *    STREAM_BYTES or more whose rows are whole 16-byte vectors (they skip
 *    reading every destination line first);
 *  - tiles are walked down the source columns inside super-blocks of about
 *    SUPER_EDGE x SUPER_EDGE elements, so that the pages a super-block
 *    touches stay in the TLB, and the source lines of the next tile are
 *    prefetched (the hardware prefetchers do not follow columns a page
 *    apart).
 * Element copies elsewhere are memcpy of a constant size, so that they
 * compile to single loads and stores without assuming alignment. */
#include "strided_copy.h"

#include <stdbool.h>
#include <string.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

typedef struct {
    int64_t extent, dst, src; /* extent and byte strides */
} copy_dim;

#define TILE_SRC_BYTES 64
#define TILE_DST_BYTES 256
/* The largest tile buffer: TILE_SRC_BYTES x TILE_DST_BYTES elements of one
 * byte (wider elements make fewer of them; elements wider than
 * TILE_SRC_BYTES are not tiled). */
#define TILE_BUF_BYTES (TILE_SRC_BYTES * TILE_DST_BYTES)
#define SUPER_EDGE 256
#define STREAM_BYTES ((uint64_t)8 << 20)

static uint64_t magnitude(int64_t v) {
    return v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
}

/* stride * extent == outer, without overflow: a dimension of `extent` steps of
 * `stride` is exactly one step of the `outer` stride. */
static bool spans(int64_t stride, int64_t extent, int64_t outer) {
    int64_t r;
    return !__builtin_mul_overflow(stride, extent, &r) && r == outer;
}

static int64_t min64(int64_t a, int64_t b) {
    return a < b ? a : b;
}

/* dst[j * dd] = src[j * ss], j < n. */
typedef void (*gather_fn)(char *dst, const char *src, int64_t n, int64_t dd, int64_t ss, size_t es);
/* Loads the ni x nj block at src, element (i, j) at src + i * sr + j * sc,
 * into buf: element (i, j) at buf + i * pitch + j * es. */
typedef void (*tile_fn)(char *buf, size_t pitch, const char *src, int64_t ni, int64_t nj,
                        int64_t sr, int64_t sc, size_t es);

#define DEFINE_SCALAR(NAME, SIZE)                                                                  \
    static void gather_##NAME(char *dst, const char *src, int64_t n, int64_t dd, int64_t ss,       \
                              size_t es) {                                                         \
        (void)es;                                                                                  \
        for (int64_t j = 0; j < n; j++)                                                            \
            memcpy(dst + j * dd, src + j * ss, (SIZE));                                            \
    }                                                                                              \
    static void tile_##NAME(char *buf, size_t pitch, const char *src, int64_t ni, int64_t nj,      \
                            int64_t sr, int64_t sc, size_t es) {                                   \
        (void)es;                                                                                  \
        for (int64_t j = 0; j < nj; j++)                                                           \
            for (int64_t i = 0; i < ni; i++)                                                       \
                memcpy(buf + (size_t)i * pitch + (size_t)j * (SIZE), src + j * sc + i * sr,        \
                       (SIZE));                                                                    \
    }

DEFINE_SCALAR(1, 1)
DEFINE_SCALAR(2, 2)
DEFINE_SCALAR(4, 4)
DEFINE_SCALAR(8, 8)
DEFINE_SCALAR(16, 16)
DEFINE_SCALAR(any, es)

#if defined(__SSE2__)
/* Tile loaders for a source contiguous along i (sr == element size): square
 * blocks are transposed in registers (bit-exact moves only), the ragged
 * edges element by element. Each loader reads a group of columns down the
 * whole tile before the next group, so every source line is used up at
 * once. */
#define LOADU(p) _mm_loadu_si128((const __m128i *)(const void *)(p))
#define STOREU(p, v) _mm_storeu_si128((__m128i *)(void *)(p), (v))

/* The parts of the ni x nj tile outside the [0, fi) x [0, fj) blocks. */
static void tile_edges(char *buf, size_t pitch, const char *src, int64_t ni, int64_t nj, int64_t sr,
                       int64_t sc, size_t es, int64_t fi, int64_t fj) {
    for (int64_t j = 0; j < nj; j++)
        for (int64_t i = j < fj ? fi : 0; i < ni; i++)
            memcpy(buf + (size_t)i * pitch + (size_t)j * es, src + j * sc + i * sr, es);
}

static void tile_sse_8(char *buf, size_t pitch, const char *src, int64_t ni, int64_t nj, int64_t sr,
                       int64_t sc, size_t es) {
    int64_t fi = ni & ~(int64_t)1, fj = nj & ~(int64_t)1;
    for (int64_t j = 0; j < fj; j += 2) {
        const char *s = src + j * sc;
        for (int64_t i = 0; i < fi; i += 2) {
            __m128i r0 = LOADU(s + i * 8), r1 = LOADU(s + sc + i * 8);
            char *b = buf + (size_t)i * pitch + (size_t)j * 8;
            STOREU(b, _mm_unpacklo_epi64(r0, r1));
            STOREU(b + pitch, _mm_unpackhi_epi64(r0, r1));
        }
    }
    tile_edges(buf, pitch, src, ni, nj, sr, sc, es, fi, fj);
}

static void tile_sse_4(char *buf, size_t pitch, const char *src, int64_t ni, int64_t nj, int64_t sr,
                       int64_t sc, size_t es) {
    int64_t fi = ni & ~(int64_t)3, fj = nj & ~(int64_t)3;
    for (int64_t j = 0; j < fj; j += 4) {
        const char *s = src + j * sc;
        for (int64_t i = 0; i < fi; i += 4) {
            __m128i r0 = LOADU(s + i * 4), r1 = LOADU(s + sc + i * 4);
            __m128i r2 = LOADU(s + 2 * sc + i * 4), r3 = LOADU(s + 3 * sc + i * 4);
            __m128i t0 = _mm_unpacklo_epi32(r0, r1), t1 = _mm_unpacklo_epi32(r2, r3);
            __m128i t2 = _mm_unpackhi_epi32(r0, r1), t3 = _mm_unpackhi_epi32(r2, r3);
            char *b = buf + (size_t)i * pitch + (size_t)j * 4;
            STOREU(b, _mm_unpacklo_epi64(t0, t1));
            STOREU(b + pitch, _mm_unpackhi_epi64(t0, t1));
            STOREU(b + 2 * pitch, _mm_unpacklo_epi64(t2, t3));
            STOREU(b + 3 * pitch, _mm_unpackhi_epi64(t2, t3));
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
                r[k] = LOADU(s + k * sc + i * 2);
            for (int k = 0; k < 4; k++) {
                a[2 * k] = _mm_unpacklo_epi16(r[2 * k], r[2 * k + 1]);
                a[2 * k + 1] = _mm_unpackhi_epi16(r[2 * k], r[2 * k + 1]);
            }
            for (int k = 0; k < 2; k++) {
                b[4 * k] = _mm_unpacklo_epi32(a[4 * k], a[4 * k + 2]);
                b[4 * k + 1] = _mm_unpackhi_epi32(a[4 * k], a[4 * k + 2]);
                b[4 * k + 2] = _mm_unpacklo_epi32(a[4 * k + 1], a[4 * k + 3]);
                b[4 * k + 3] = _mm_unpackhi_epi32(a[4 * k + 1], a[4 * k + 3]);
            }
            char *d = buf + (size_t)i * pitch + (size_t)j * 2;
            for (int k = 0; k < 4; k++) {
                STOREU(d + (size_t)(2 * k) * pitch, _mm_unpacklo_epi64(b[k], b[k + 4]));
                STOREU(d + (size_t)(2 * k + 1) * pitch, _mm_unpackhi_epi64(b[k], b[k + 4]));
            }
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
                r[k] = LOADU(s + k * sc + i);
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
                STOREU(d + (size_t)(4 * t) * pitch, _mm_unpacklo_epi64(c[2 * t], c[8 + 2 * t]));
                STOREU(d + (size_t)(4 * t + 1) * pitch, _mm_unpackhi_epi64(c[2 * t], c[8 + 2 * t]));
                STOREU(d + (size_t)(4 * t + 2) * pitch,
                       _mm_unpacklo_epi64(c[2 * t + 1], c[8 + 2 * t + 1]));
                STOREU(d + (size_t)(4 * t + 3) * pitch,
                       _mm_unpackhi_epi64(c[2 * t + 1], c[8 + 2 * t + 1]));
            }
        }
    }
    tile_edges(buf, pitch, src, ni, nj, sr, sc, es, fi, fj);
}

#endif

/* The transposition of one 2-d slice (see the top of the file). */
typedef struct {
    int64_t rows, cols; /* extents of i and j */
    int64_t dr;         /* destination stride of i (j's is es) */
    int64_t sr, sc;     /* source strides of i and j */
    size_t es;
    tile_fn load;
    int64_t ti, tj;           /* tile extents */
    int64_t super_i, super_j; /* super-block extents, multiples of ti and tj */
    bool stream;              /* non-temporal stores */
} plane;

/* Writes the ni rows of nb bytes of a loaded tile (rows `pitch` apart in
 * buf) to d, rows pl->dr apart. */
static void store_tile(const plane *pl, char *d, const char *buf, size_t pitch, int64_t ni,
                       size_t nb) {
#if defined(__SSE2__)
    /* Rows that are not whole vectors (a row stride or width that is not a
     * multiple of 16 bytes) are stored plainly: partial lines written both
     * ways measured slower than plain stores. */
    if (pl->stream && ((uintptr_t)d & 15) == 0 && (pl->dr & 15) == 0 && (nb & 15) == 0) {
        for (int64_t i = 0; i < ni; i++) {
            const char *b = buf + (size_t)i * pitch;
            char *row = d + i * pl->dr;
            for (size_t k = 0; k < nb; k += 16)
                _mm_stream_si128((__m128i *)(void *)(row + k), LOADU(b + k));
        }
        return;
    }
#endif
    for (int64_t i = 0; i < ni; i++)
        memcpy(d + i * pl->dr, buf + (size_t)i * pitch, nb);
}

static void copy_plane(const plane *pl, char *dst, const char *src) {
    _Alignas(16) char buf[TILE_BUF_BYTES];
    const size_t es = pl->es;
    const size_t pitch = (size_t)pl->tj * es;
    const int64_t ti = pl->ti, tj = pl->tj;
    /* Tile rows start where source columns cross a cache line, when the
     * elements are aligned so that they can. */
    int64_t first = 0;
    if (pl->sr == (int64_t)es) {
        uintptr_t a = (uintptr_t)src % TILE_SRC_BYTES;
        if (a % es == 0)
            first = (int64_t)((TILE_SRC_BYTES - a) % TILE_SRC_BYTES / es);
    }
    const int64_t base = first > 0 ? first - ti : 0; /* the first tile starts before row 0 */
    for (int64_t jb = 0; jb < pl->cols; jb += pl->super_j) {
        const int64_t je = min64(jb + pl->super_j, pl->cols);
        for (int64_t ib = base; ib < pl->rows; ib += pl->super_i) {
            const int64_t ie = min64(ib + pl->super_i, pl->rows);
            for (int64_t j0 = jb; j0 < je; j0 += tj) {
                const int64_t nj = min64(tj, je - j0);
                for (int64_t i0 = ib; i0 < ie; i0 += ti) {
                    const int64_t lo = i0 > 0 ? i0 : 0, hi = min64(i0 + ti, ie);
                    /* Prefetch the source lines of the next tile (its first
                     * line in each column; the tile grid follows the lines):
                     * further down these columns, or the top of the next
                     * ones. Kept inline: GCC may drop a call to a function
                     * that only prefetches. */
                    int64_t pi0 = hi, pj0 = j0;
                    if (hi >= ie) {
                        pi0 = ib > 0 ? ib : 0;
                        pj0 = j0 + tj;
                    }
                    const int64_t pj1 = min64(pj0 + tj, je);
                    for (int64_t j = pj0; j < pj1; j++)
                        __builtin_prefetch(src + pi0 * pl->sr + j * pl->sc, 0, 1);
                    pl->load(buf, pitch, src + lo * pl->sr + j0 * pl->sc, hi - lo, nj, pl->sr,
                             pl->sc, es);
                    store_tile(pl, dst + lo * pl->dr + j0 * (int64_t)es, buf, pitch, hi - lo,
                               (size_t)nj * es);
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

/* The tile loader for a slice whose source stride along i is `sr`. */
static tile_fn select_tile(size_t es, int64_t sr) {
#if defined(__SSE2__)
    if (sr == (int64_t)es) {
        switch (es) {
        case 1:
            return tile_sse_1;
        case 2:
            return tile_sse_2;
        case 4:
            return tile_sse_4;
        case 8:
            return tile_sse_8;
        }
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

/* Drops extent-1 dimensions, orders the rest by destination stride (outer
 * to inner, so that writes go forward) and merges neighbours that are
 * contiguous with each other on both sides. Returns the number left in d, or
 * -1 for an empty array. */
static int simplify(const int64_t *dst_strides, const int64_t *src_strides, const int64_t *dims,
                    size_t ndim, size_t es, copy_dim *d) {
    for (size_t k = 0; k < ndim; k++)
        if (dims[k] == 0)
            return -1;
    int m = 0;
    int64_t compact = (int64_t)es; /* the array's size fits: no overflow */
    for (size_t k = ndim; k-- > 0;) {
        int64_t ds = dst_strides != NULL ? dst_strides[k] : compact;
        if (dst_strides == NULL)
            compact *= dims[k];
        if (dims[k] > 1)
            d[m++] = (copy_dim){dims[k], ds, src_strides[k]};
    }
    /* Collected inner to outer: reverse, then an insertion sort by |dst
     * stride|, descending (stable, so C order stays as it is). */
    for (int i = 0, j = m - 1; i < j; i++, j--) {
        copy_dim t = d[i];
        d[i] = d[j];
        d[j] = t;
    }
    for (int i = 1; i < m; i++)
        for (int j = i; j > 0 && magnitude(d[j].dst) > magnitude(d[j - 1].dst); j--) {
            copy_dim t = d[j];
            d[j] = d[j - 1];
            d[j - 1] = t;
        }
    int n = 0;
    for (int i = 0; i < m; i++) {
        if (n > 0 && spans(d[i].dst, d[i].extent, d[n - 1].dst) &&
            spans(d[i].src, d[i].extent, d[n - 1].src)) {
            d[n - 1].extent *= d[i].extent;
            d[n - 1].dst = d[i].dst;
            d[n - 1].src = d[i].src;
        } else {
            d[n++] = d[i];
        }
    }
    return n;
}

typedef enum { KERNEL_RUN, KERNEL_PLANE, KERNEL_GATHER } kernel_kind;

/* The kernel for the innermost of the n > 0 simplified dimensions d: one
 * memcpy per run, a cache-blocked transposition of the plane (*p, innermost)
 * described in *pl, or a gather. *p is -1 unless it is a plane. */
static kernel_kind choose_kernel(const copy_dim *d, int n, size_t es, int *p, plane *pl) {
    const copy_dim inner = d[n - 1];
    *p = -1;
    if (inner.dst == (int64_t)es && inner.src == (int64_t)es)
        return KERNEL_RUN;
    if (inner.dst != (int64_t)es || es > TILE_SRC_BYTES)
        return KERNEL_GATHER;
    /* The dimension with the smallest source stride, if it beats the
     * innermost one: the slice (p, inner) is a transposition. */
    uint64_t best = magnitude(inner.src);
    for (int k = 0; k < n - 1; k++) {
        if (magnitude(d[k].src) < best) {
            best = magnitude(d[k].src);
            *p = k;
        }
    }
    if (*p < 0)
        return KERNEL_GATHER;
    int64_t ti = (int64_t)(TILE_SRC_BYTES / es), tj = (int64_t)(TILE_DST_BYTES / es);
    *pl = (plane){
        .rows = d[*p].extent,
        .cols = inner.extent,
        .dr = d[*p].dst,
        .sr = d[*p].src,
        .sc = inner.src,
        .es = es,
        .load = select_tile(es, d[*p].src),
        .ti = ti,
        .tj = tj,
        .super_i = (SUPER_EDGE + ti - 1) / ti * ti,
        .super_j = (SUPER_EDGE + tj - 1) / tj * tj,
    };
#if defined(__SSE2__)
    uint64_t total = es;
    for (int k = 0; k < n; k++)
        total *= (uint64_t)d[k].extent;
    pl->stream = total >= STREAM_BYTES;
#endif
    return KERNEL_PLANE;
}

void pjdl__strided_copy_nd(void *dst_, const int64_t *dst_strides, const void *src_,
                           const int64_t *src_strides, const int64_t *dims, size_t ndim,
                           size_t elem_size) {
    char *dst = dst_;
    const char *src = src_;
    const size_t es = elem_size;
    copy_dim dims_[PJDL_STRIDED_COPY_MAX_DIMS];
    int n = simplify(dst_strides, src_strides, dims, ndim, es, dims_);
    if (n < 0)
        return;
    if (n == 0) {
        memcpy(dst, src, es);
        return;
    }
    int p = -1;
    plane pl = {0};
    const kernel_kind kind = choose_kernel(dims_, n, es, &p, &pl);
    const copy_dim inner = dims_[n - 1];
    gather_fn gather = select_gather(es);

    /* The outer dimensions: all but the innermost (and p for a plane). */
    copy_dim outer[PJDL_STRIDED_COPY_MAX_DIMS];
    int no = 0;
    for (int k = 0; k < n - 1; k++)
        if (k != p)
            outer[no++] = dims_[k];

    int64_t count[PJDL_STRIDED_COPY_MAX_DIMS] = {0};
    int64_t so = 0, dof = 0;
    for (;;) {
        switch (kind) {
        case KERNEL_RUN:
            memcpy(dst + dof, src + so, (size_t)inner.extent * es);
            break;
        case KERNEL_PLANE:
            copy_plane(&pl, dst + dof, src + so);
            break;
        case KERNEL_GATHER:
            gather(dst + dof, src + so, inner.extent, inner.dst, inner.src, es);
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
    if (kind == KERNEL_PLANE && pl.stream)
        _mm_sfence(); /* order the non-temporal stores before the caller's */
#endif
}
