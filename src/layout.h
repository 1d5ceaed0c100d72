/* Memory layouts on both sides of the exchange: validation and layout
 * analysis of DLPack tensors (tensor_check.c), the strided copy of a tensor
 * (common/strided_copy.h), and PJRT memory layouts as strides
 * (pjrt_layout.c). Pure
 * functions: no plugin, no allocation, no global state; safe from any
 * thread. */
#ifndef PJDL_SRC_LAYOUT_H_
#define PJDL_SRC_LAYOUT_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pjrt_dlpack.h"
#include "strided_copy.h"

/* The most dimensions the library accepts, from a tensor or from a plugin. */
#define PJDL_MAX_RANK 64

typedef enum pjdl_layout_kind {
    PJDL_LAYOUT_ROW_MAJOR = 0, /* compact, C order (strides NULL or matching) */
    PJDL_LAYOUT_PERMUTED = 1,  /* compact, a permutation of C order */
    PJDL_LAYOUT_STRIDED = 2,   /* anything else: needs a copy to be viewed */
} pjdl_layout_kind;

/* What pjdl__tensor_check learned about a tensor. */
typedef struct pjdl_layout {
    int32_t ndim;
    size_t elem_size;      /* bytes per element (bits / 8, lanes 1) */
    uint64_t num_elements; /* product of the shape (0 for a zero-size tensor) */
    size_t nbytes;         /* num_elements * elem_size, overflow-checked */
    pjdl_layout_kind kind;
    /* The tensor's shape (ndim entries), copied so the layout stands alone. */
    int64_t shape[PJDL_MAX_RANK];
    /* PJRT's minor_to_major for ROW_MAJOR and PERMUTED (ndim entries; for
     * ROW_MAJOR it is ndim-1, ..., 0). Dimensions of extent 1 are ordered so
     * that the result is canonical (as close to C order as possible). */
    int64_t minor_to_major[PJDL_MAX_RANK];
    /* Byte strides of every dimension (from strides * elem_size, or the
     * compact C-order strides when the tensor's strides are NULL); all 0 for
     * a zero-size tensor, whose strides are never multiplied out. */
    int64_t byte_strides[PJDL_MAX_RANK];
    /* Lowest and highest byte offset (inclusive of the last element's last
     * byte, exclusive bound: [lo, hi)) touched, relative to
     * data + byte_offset. Both 0 for a zero-size tensor. */
    int64_t lo, hi;
    /* For STRIDED: a static string saying why no view is possible, e.g.
     * "a dimension has a zero (broadcast) stride", and the dimension it is
     * about (why_dim; -1 when no single dimension is to blame). NULL and -1
     * otherwise. Format for users as "%s (dimension %d)". */
    const char *why_strided;
    int32_t why_dim;
    /* data + byte_offset is a multiple of elem_size's largest power-of-two
     * divisor (elem_size itself for 1, 2, 4, 8, 16). */
    bool aligned;
    /* 0, or the bits per element of a packed sub-byte tensor (set by the
     * importer, import.c): elem_size is then 1 and byte_strides, lo and hi
     * count elements, while nbytes is the packed size. pjdl__tensor_check
     * itself measures sub-byte tensors one element per byte (padded). */
    unsigned packed_bits;
} pjdl_layout;

/* Validates every field of `t` that describes memory and fills *out:
 *  - ndim: 0..PJDL_MAX_RANK; shape: non-NULL when ndim > 0, entries >= 0;
 *  - dtype: see pjdl__dl_dtype_check (dtype.h): a known code, lanes 1, bits a
 *    positive multiple of 8 (bool and float8 exactly 8) or below 8 (sub-byte
 *    types, measured here one element per byte);
 *  - strides: any sign, NULL meaning C order; extent-1 dimensions' strides
 *    are ignored by the classification;
 *  - byte_offset <= INT64_MAX; data non-NULL unless the tensor is zero-size;
 *  - a zero-size tensor's strides are not looked at: no element is
 *    addressed, so no stride arithmetic may refuse it;
 *  - sizes: on success these fit in int64 and may be computed without
 *    checks: nbytes, every byte_strides[i], shape[i] * byte_strides[i], lo,
 *    hi and hi - lo; and data + byte_offset + [lo, hi) does not wrap around
 *    the address space.
 * Does not look at the device. Errors: INVALID_ARGUMENT naming the field and
 * its value ("shape[2] is -3: dimensions must be non-negative");
 * UNIMPLEMENTED for a valid dtype the library does not support (lanes > 1,
 * sub-byte types). Only the first ndim entries of the arrays are written;
 * on failure *out holds nothing meaningful. Sets the thread's error only on
 * failure. */
pjdl_code pjdl__tensor_check(const DLTensor *t, pjdl_layout *out);

/* pjdl__tensor_check's common case in one pass, for a tensor whose dtype
 * is known to be valid with whole-byte elements (pjdl__dl_dtype_whole_bytes,
 * dtype.h): a tensor with elements whose strides are NULL or those of
 * compact C order (extent-1 dimensions' strides, which the classification
 * ignores, may be anything). Fills *out exactly as pjdl__tensor_check
 * would and returns true; false when the tensor is not that case or is
 * invalid (*out then holds nothing meaningful), leaving the verdict to
 * pjdl__tensor_check. Sets no error. */
bool pjdl__tensor_check_c_order(const DLTensor *t, pjdl_layout *out);

/* Copies the tensor described by `layout` (from pjdl__tensor_check) whose
 * element 0 is at `src` (data + byte_offset) into `dst`, compact row-major,
 * layout->nbytes bytes. Reads exactly the bytes [src + lo, src + hi) may
 * hold; neither pointer needs any alignment; the two must not overlap. The
 * kernel is pjdl__strided_copy_nd (strided_copy.h, shared with the reference
 * plugin): contiguous data is one memcpy, transpositions are cache-blocked
 * (0.5-0.65x memcpy bandwidth for a 4096 x 4096 f32 transpose), anything
 * else copies the innermost contiguous runs with memcpy or gathers. */
_Static_assert(PJDL_MAX_RANK <= PJDL_STRIDED_COPY_MAX_DIMS, "the kernel takes every tensor");
static inline void pjdl__strided_copy(void *dst, const void *src, const pjdl_layout *layout) {
    pjdl__strided_copy_nd(dst, NULL, src, layout->byte_strides, layout->shape, (size_t)layout->ndim,
                          layout->elem_size);
}

/* Whether the bytes [data + offset + lo, data + offset + hi) (lo <= 0 <=
 * hi) lie inside the address space, worked out in integers: a pointer
 * formed past the end of the address space is undefined behaviour, so no
 * address is formed from a caller's pointer before this holds. data +
 * offset in *addr. */
static inline bool pjdl__span_fits(const void *data, uint64_t offset, int64_t lo, int64_t hi,
                                   uintptr_t *addr) {
    uintptr_t base, end;
    if (__builtin_add_overflow((uintptr_t)data, (uintptr_t)offset, &base) ||
        (uintptr_t)0 - (uintptr_t)lo > base || __builtin_add_overflow(base, (uintptr_t)hi, &end))
        return false;
    *addr = base;
    return true;
}

/* pjdl__span_fits of a tensor's data and byte_offset: its first element's
 * address in *addr. */
static inline bool pjdl__tensor_span_fits(const DLTensor *t, int64_t lo, int64_t hi,
                                          uintptr_t *addr) {
    return pjdl__span_fits(t->data, t->byte_offset, lo, hi, addr);
}

/* The byte offsets [*lo, *hi) that an array with elements (every dim >= 1)
 * of `n` dims with these byte strides and elem_size-byte elements touches
 * around its first element, with shape[i] * byte_strides[i] checked too.
 * -1 when every sum fits in int64, else the dimension whose span overflows
 * (n: the whole span hi - lo). */
int32_t pjdl__byte_span(const int64_t *shape, const int64_t *byte_strides, int32_t n,
                        int64_t elem_size, int64_t *lo, int64_t *hi);

/* minor_to_major of C order for ndim dimensions: ndim-1, ..., 0. */
static inline void pjdl__c_order(int64_t *minor_to_major, int32_t ndim) {
    for (int32_t i = 0; i < ndim; i++)
        minor_to_major[i] = ndim - 1 - i;
}

/* Whether the running product of elem_size and the dimensions, from the
 * first, fits in int64 up to the first zero: XLA's plugins compute exactly
 * that for every shape they are given, an empty one too, and abort the
 * process when it overflows ("overflow in static extent product": shape
 * (2**62, 0) of f32; (0, 2**62) passes), so no plugin is handed a shape
 * that fails it. A tensor with elements whose size in bytes fits passes. */
bool pjdl__extent_product_fits(const int64_t *dims, size_t ndim, size_t elem_size);

/* Compact C-order byte strides of dims (ndim entries) with elem_size bytes per
 * element into byte_strides. A zero extent counts as 1 so that no stride is
 * 0. false on a negative dim, ndim out of range or overflow. */
bool pjdl__compact_strides(const int64_t *dims, int32_t ndim, size_t elem_size,
                           int64_t *byte_strides);

/* Interprets a PJRT_Buffer_MemoryLayout for a buffer of `dims` (ndim) and
 * element size `elem_size` as DLPack element strides (not bytes) into
 * `strides` (ndim entries, untouched on failure):
 *  - NULL layout: the default, compact C order;
 *  - strided: byte strides divided by elem_size (any sign); a stride that is
 *    not a multiple of elem_size is UNIMPLEMENTED;
 *  - tiled: the order minor_to_major when there are no tiles or the tiles do
 *    not change where any element lives (e.g. (8,128) tiles on a (16,128)
 *    array, or one tile holding the whole array with padding at the end).
 * INVALID_ARGUMENT when the layout contradicts itself or the dimensions
 * (minor_to_major not a permutation of 0..ndim-1, a count other than ndim,
 * NULL arrays, tile sizes <= 0 other than -1); UNIMPLEMENTED "tiled layout
 * (...) cannot be expressed in DLPack" for real tiling (and for combined
 * tile dimensions, -1). */
pjdl_code pjdl__layout_to_strides(const PJRT_Buffer_MemoryLayout *layout, const int64_t *dims,
                                  int32_t ndim, size_t elem_size, int64_t *strides);

#endif
