/* Validation and layout analysis of DLPack tensors, and the strided copy
 * kernel. Pure functions: no plugin, no allocation. */
#ifndef PJDL_SRC_LAYOUT_H_
#define PJDL_SRC_LAYOUT_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pjrt_dlpack.h"

/* The most dimensions the library accepts, from a tensor or from a plugin. */
#define PJDL_MAX_RANK 64

typedef enum pjdl_layout_kind {
    PJDL_LAYOUT_ROW_MAJOR = 0, /* compact, C order (strides NULL or matching) */
    PJDL_LAYOUT_PERMUTED = 1,  /* compact, a permutation of C order */
    PJDL_LAYOUT_STRIDED = 2,   /* anything else: needs a copy to be viewed */
} pjdl_layout_kind;

/* What pjdl_tensor_check learned about a tensor. */
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
     * compact C-order strides when the tensor's strides are NULL). */
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
    /* data + byte_offset is aligned to elem_size. */
    bool aligned;
} pjdl_layout;

/* Validates every field of `t` that describes memory — ndim (0..PJDL_MAX_RANK),
 * shape (non-negative), strides (any sign; NULL means C order), dtype (lanes
 * 1, a known code, bits a positive multiple of 8, or bool 8), byte_offset,
 * data (non-NULL unless the tensor is zero-size), and all size arithmetic
 * (no overflow of int64 / size_t) — and fills *out. Does not look at the
 * device. On a bad field returns INVALID_ARGUMENT with pjdl_fail naming the
 * field and the value; UNIMPLEMENTED for a valid dtype the library does not
 * support (lanes > 1, sub-byte types). */
pjdl_code pjdl_tensor_check(const DLTensor *t, pjdl_layout *out);

/* Copies the tensor described by (`src` = data + byte_offset, `layout`) into
 * `dst` as a compact row-major array of layout->nbytes bytes. Fast for the
 * common cases: contiguous (one memcpy), and transpositions (cache-blocked).
 * Callers guarantee the memory is valid. */
void pjdl_strided_copy(void *dst, const void *src, const pjdl_layout *layout);

/* Compact C-order byte strides of dims (ndim entries) with elem_size bytes per
 * element; false on overflow. */
bool pjdl_compact_strides(const int64_t *dims, int32_t ndim, size_t elem_size,
                          int64_t *byte_strides);

/* Interprets a PJRT_Buffer_MemoryLayout for a buffer of `dims` (ndim) and
 * element size `elem_size` as DLPack element strides (not bytes): a strided
 * layout, or a tiled layout without real tiles (no tiles, or tiles that do
 * not change the order in memory). Returns INVALID_ARGUMENT when the layout
 * contradicts the dimensions (bad permutation, wrong count), UNIMPLEMENTED
 * when it is tiled in a way DLPack cannot express (message says so). */
pjdl_code pjdl_layout_to_strides(const PJRT_Buffer_MemoryLayout *layout, const int64_t *dims,
                                 int32_t ndim, size_t elem_size, int64_t *strides);

#endif
