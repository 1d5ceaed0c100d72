/* Element types, layouts, byte strides and the strided copy every transfer
 * uses. All size arithmetic is overflow checked. */
#include <stdlib.h>
#include <string.h>

#include "element_type.h" /* common/: names and bits, shared with libpjrt_dlpack */
#include "ref_internal.h"
#include "strided_copy.h" /* common/: the kernel, shared with libpjrt_dlpack */

const char *ref_type_name(PJRT_Buffer_Type type) {
    const pjdl__element_type *info = pjdl__element_type_of(type);
    return info ? info->pjrt_name : "unknown";
}

PJRT_Error *ref_type_size(PJRT_Buffer_Type type, const char *fn, size_t *size) {
    const pjdl__element_type *info = pjdl__element_type_of(type);
    if (info == NULL)
        return REF_INVALID("%s: unknown element type %d", fn, (int)type);
    if (info->bits == 0)
        return REF_INVALID("%s: element type %s cannot be stored in a buffer", fn, info->pjrt_name);
    *size = info->bits < 8 ? 1 : info->bits / 8; /* sub-byte: one per byte on the host */
    return NULL;
}

static bool is_permutation(const int64_t *p, size_t n) {
    bool seen[REF_MAX_DIMS] = {false};
    for (size_t i = 0; i < n; i++) {
        if (p[i] < 0 || (uint64_t)p[i] >= n || seen[p[i]])
            return false;
        seen[p[i]] = true;
    }
    return true;
}

/* Derives minor_to_major from byte strides that describe a dense layout. */
static PJRT_Error *m2m_from_strides(const int64_t *strides, const char *fn, const int64_t *dims,
                                    size_t n, size_t element_size, int64_t *m2m) {
    bool used[REF_MAX_DIMS] = {false};
    size_t count = 0;
    bool empty = false;
    for (size_t i = 0; i < n; i++)
        empty = empty || dims[i] == 0;
    if (!empty) {
        int64_t expected = (int64_t)element_size;
        for (;;) {
            size_t pick = n;
            for (size_t i = 0; i < n && pick == n; i++)
                if (!used[i] && dims[i] > 1 && strides[i] == expected)
                    pick = i;
            if (pick == n)
                break;
            used[pick] = true;
            m2m[count++] = (int64_t)pick;
            expected *= dims[pick]; /* bounded by the checked total size */
        }
        for (size_t i = 0; i < n; i++)
            if (!used[i] && dims[i] > 1)
                return REF_INVALID(
                    "%s: the byte strides of the requested layout do not describe a "
                    "dense layout (dimension %zu has stride %lld); only permutations "
                    "of a compact array are supported",
                    fn, i, (long long)strides[i]);
    }
    /* Dimensions of size 0 or 1 go to the major end, in row-major order. */
    for (size_t i = n; i-- > 0;)
        if (!used[i])
            m2m[count++] = (int64_t)i;
    return NULL;
}

PJRT_Error *ref_layout_parse(const PJRT_Buffer_MemoryLayout *layout, const char *fn,
                             const int64_t *dims, size_t n, size_t element_size, int64_t *m2m) {
    /* layout->struct_size (and that of the tiled / strides member) is not
     * read: XLA's C-API client, the one JAX drives every plugin with, leaves
     * them unset in the layouts it passes to CreateViewOfDeviceBuffer, and
     * XLA's plugins never look at them. The struct has not changed since it
     * was introduced, so every caller's layout has all the fields read
     * here. */
    if (layout->type == PJRT_Buffer_MemoryLayout_Type_Tiled) {
        const PJRT_Buffer_MemoryLayout_Tiled *t = &layout->tiled;
        if (t->minor_to_major_size != n)
            return REF_INVALID("%s: the layout's minor_to_major has %zu entries; the array has %zu "
                               "dimensions",
                               fn, t->minor_to_major_size, n);
        if (n > 0 && t->minor_to_major == NULL)
            return REF_INVALID("%s: the layout's minor_to_major is NULL", fn);
        if (!is_permutation(t->minor_to_major, n))
            return REF_INVALID("%s: the layout's minor_to_major is not a permutation of 0..%zu", fn,
                               n ? n - 1 : 0);
        if (t->num_tiles > 0)
            return ref_error(PJRT_Error_Code_UNIMPLEMENTED,
                             "%s: tiled layouts (%zu tiles) are not supported by the pjrt_ref "
                             "plugin; give minor_to_major without tiles",
                             fn, t->num_tiles);
        if (n > 0) /* a 0-d layout may have a NULL minor_to_major */
            memcpy(m2m, t->minor_to_major, n * sizeof(int64_t));
        return NULL;
    }
    if (layout->type == PJRT_Buffer_MemoryLayout_Type_Strides) {
        const PJRT_Buffer_MemoryLayout_Strides *s = &layout->strides;
        if (s->num_byte_strides != n)
            return REF_INVALID("%s: the layout has %zu byte strides; the array has %zu dimensions",
                               fn, s->num_byte_strides, n);
        if (n > 0 && s->byte_strides == NULL)
            return REF_INVALID("%s: the layout's byte_strides is NULL", fn);
        return m2m_from_strides(s->byte_strides, fn, dims, n, element_size, m2m);
    }
    return REF_INVALID("%s: unknown memory layout type %d", fn, (int)layout->type);
}

void ref_dense_strides(const int64_t *dims, size_t n, size_t element_size, const int64_t *m2m,
                       int64_t *strides) {
    /* Unsigned: an empty array's other dimensions may be huge, and its
     * strides are never used; a non-empty array's size is checked. */
    uint64_t s = element_size;
    for (size_t i = 0; i < n; i++) {
        strides[m2m[i]] = (int64_t)s;
        s *= dims[m2m[i]] > 0 ? (uint64_t)dims[m2m[i]] : 1;
    }
}

PJRT_Error *ref_strides_span(const void *base, const int64_t *dims, size_t n, size_t element_size,
                             const int64_t *strides, const char *fn, int64_t *min_offset,
                             int64_t *max_offset) {
    int64_t lo = 0, hi = (int64_t)element_size;
    /* An empty array touches nothing, whatever its other dims and strides. */
    for (size_t i = 0; i < n; i++) {
        if (dims[i] == 0) {
            *min_offset = 0;
            *max_offset = 0;
            return NULL;
        }
    }
    for (size_t i = 0; i < n; i++) {
        int64_t extent;
        if (__builtin_mul_overflow(dims[i] - 1, strides[i], &extent) ||
            (extent > 0 && __builtin_add_overflow(hi, extent, &hi)) ||
            (extent < 0 && __builtin_add_overflow(lo, extent, &lo)))
            return REF_INVALID("%s: byte strides overflow: dimension %zu of size %lld with stride "
                               "%lld spans more than 2^63 bytes",
                               fn, i, (long long)dims[i], (long long)strides[i]);
    }
    if (base != NULL && !ref_span_fits(base, lo, hi))
        return REF_INVALID("%s: byte strides reach [%p%+lld, %p%+lld), outside the address space",
                           fn, base, (long long)lo, base, (long long)hi);
    *min_offset = lo;
    *max_offset = hi;
    return NULL;
}

bool ref_strides_disjoint(const int64_t *dims, size_t n, size_t element_size,
                          const int64_t *strides) {
    size_t order[REF_MAX_DIMS];
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        if (dims[i] == 0)
            return true;
        if (dims[i] > 1)
            order[m++] = i;
    }
    /* Sort by |stride| ascending; each stride must clear the span of all the
     * smaller ones. */
    for (size_t i = 1; i < m; i++)
        for (size_t j = i; j > 0 && llabs(strides[order[j]]) < llabs(strides[order[j - 1]]); j--) {
            size_t t = order[j];
            order[j] = order[j - 1];
            order[j - 1] = t;
        }
    uint64_t span = element_size;
    for (size_t i = 0; i < m; i++) {
        uint64_t s = (uint64_t)llabs(strides[order[i]]);
        if (s < span)
            return false;
        span += s * (uint64_t)(dims[order[i]] - 1); /* spans were checked not to overflow */
    }
    return true;
}

/* The copy itself is the project's one strided copy kernel, common/strided_copy.c,
 * which this plugin compiles into itself (it does not link libpjrt_dlpack):
 * cache-blocked transpositions with SSE2 register transposes, memcpy for
 * contiguous runs, element by element otherwise. */
_Static_assert(REF_MAX_DIMS <= PJDL_STRIDED_COPY_MAX_DIMS, "the kernel takes every buffer");
void ref_strided_copy(char *dst, const int64_t *dst_strides, const char *src,
                      const int64_t *src_strides, const int64_t *dims, size_t n,
                      size_t element_size) {
    pjdl__strided_copy_nd(dst, dst_strides, src, src_strides, dims, n, element_size);
}
