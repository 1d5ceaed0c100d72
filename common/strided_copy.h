/* The strided copy kernel: one n-dimensional array from any byte strides to
 * any others. Shared by libpjrt_dlpack (layout.h's pjdl__strided_copy, the
 * import copy) and the reference plugin (plugin/ref_layout.c, every
 * transfer), which compiles strided_copy.c into itself: the file depends on
 * nothing but the C library (and SSE2 intrinsics on x86-64). Pure: no
 * allocation, no global state; safe from any thread. */
#ifndef PJDL_SRC_STRIDED_COPY_H_
#define PJDL_SRC_STRIDED_COPY_H_

#include <stddef.h>
#include <stdint.h>

/* The most dimensions pjdl__strided_copy_nd takes (the library's and the
 * plugin's limit). */
#define PJDL_STRIDED_COPY_MAX_DIMS 64

/* Copies every element of an array of `ndim` dimensions `dims` from `src` to
 * `dst`: element (i0, ..., i[ndim-1]) is at byte offset sum(ik * strides[k])
 * from each pointer, with `dst_strides` NULL meaning compact row-major.
 * Strides may have any sign; src's may be 0 or overlap (broadcast); neither
 * pointer needs any alignment. Only the elements' own bytes are read and
 * written. The caller guarantees: ndim <= PJDL_STRIDED_COPY_MAX_DIMS, dims
 * >= 0, every offset is computable without overflow, dst's elements are
 * distinct, and dst does not overlap src. An array with a zero dimension
 * copies nothing; ndim 0 copies one element.
 *
 * Dimensions are ordered by destination stride, extent-1 ones dropped and
 * neighbours contiguous on both sides merged; then, for every index of the
 * remaining outer dimensions, one of:
 *  - memcpy, when the innermost dimension is contiguous on both sides;
 *  - a transposition, when the destination is contiguous along the innermost
 *    dimension and another has a smaller source stride: cache-blocked tiles
 *    (SSE2 register transposes for 1, 2, 4 and 8-byte elements read
 *    contiguously), 0.5-0.65x memcpy bandwidth for a 4096 x 4096 f32
 *    transpose; copies of 8 MiB or more write with non-temporal stores;
 *  - otherwise element by element. */
void pjdl__strided_copy_nd(void *dst, const int64_t *dst_strides, const void *src,
                           const int64_t *src_strides, const int64_t *dims, size_t ndim,
                           size_t elem_size);

#endif
