/* Validation and classification of DLPack tensors (pjdl__tensor_check): is
 * every field that describes memory sane, and can the tensor be viewed by
 * PJRT as it is (row-major or a permutation) or must it be copied? The copy
 * kernel lives in common/strided_copy.c, PJRT layouts in pjrt_layout.c. */
#include "layout.h"

#include "dtype.h"
#include "error.h"

/* Reasons a layout needs a copy (pjdl_layout.why_strided). */
static const char why_broadcast[] = "a dimension has a zero (broadcast) stride";
static const char why_negative[] = "a dimension has a negative stride";
static const char why_overlap[] = "strides overlap: distinct indices share memory";
static const char why_gaps[] = "strides leave gaps: the elements are not contiguous";

bool pjdl__compact_strides(const int64_t *dims, int32_t ndim, size_t elem_size,
                           int64_t *byte_strides) {
    if (ndim < 0 || ndim > PJDL_MAX_RANK || elem_size > (size_t)INT64_MAX)
        return false;
    int64_t stride = (int64_t)elem_size;
    for (int32_t i = ndim - 1; i >= 0; i--) {
        if (dims[i] < 0)
            return false;
        byte_strides[i] = stride;
        /* A zero extent counts as one, so no stride becomes 0 (which would
         * read as a broadcast). The total size is not needed. */
        if (i > 0 && __builtin_mul_overflow(stride, dims[i] > 0 ? dims[i] : 1, &stride))
            return false;
    }
    return true;
}

bool pjdl__extent_product_fits(const int64_t *dims, size_t ndim, size_t elem_size) {
    int64_t product = elem_size > (size_t)INT64_MAX ? -1 : (int64_t)elem_size;
    for (size_t i = 0; i < ndim && product > 0; i++)
        if (dims[i] < 0 || __builtin_mul_overflow(product, dims[i], &product))
            return false;
    return product >= 0;
}

/* Fills l->kind, minor_to_major and why_* for a tensor with elements, whose
 * byte strides and extents are already validated. */
static void classify(pjdl_layout *l) {
    const int32_t n = l->ndim;
    int32_t big[PJDL_MAX_RANK]; /* dimensions of extent > 1 */
    int32_t nbig = 0;
    l->kind = PJDL_LAYOUT_ROW_MAJOR;
    l->why_strided = NULL;
    l->why_dim = -1;
    pjdl__c_order(l->minor_to_major, n);

    for (int32_t i = 0; i < n; i++) {
        if (l->shape[i] <= 1)
            continue;
        big[nbig++] = i;
        if (l->byte_strides[i] == 0 || l->byte_strides[i] < 0) {
            l->kind = PJDL_LAYOUT_STRIDED;
            l->why_strided = l->byte_strides[i] == 0 ? why_broadcast : why_negative;
            l->why_dim = i;
            return;
        }
    }
    /* Sort by stride, ascending (insertion sort: at most 64 entries). Equal
     * strides can only mean overlap, which the walk below reports. */
    for (int32_t a = 1; a < nbig; a++) {
        int32_t d = big[a], b = a;
        for (; b > 0 && l->byte_strides[big[b - 1]] > l->byte_strides[d]; b--)
            big[b] = big[b - 1];
        big[b] = d;
    }
    /* Compact iff each stride is the previous one times its extent. */
    int64_t expect = (int64_t)l->elem_size;
    for (int32_t k = 0; k < nbig; k++) {
        int32_t d = big[k];
        if (l->byte_strides[d] != expect) {
            l->kind = PJDL_LAYOUT_STRIDED;
            l->why_strided = l->byte_strides[d] < expect ? why_overlap : why_gaps;
            l->why_dim = d;
            return;
        }
        /* Cannot overflow: expect * extent <= hi - lo, already checked. */
        expect *= l->shape[d];
    }

    /* Major-to-minor order: the big dimensions by decreasing stride, with the
     * extent-1 dimensions merged in by index, so that C order comes out
     * whenever the big dimensions are in C order. */
    int64_t major[PJDL_MAX_RANK];
    int32_t m = 0, b = nbig - 1, unit = 0;
    while (m < n) {
        while (unit < n && l->shape[unit] > 1)
            unit++;
        if (unit < n && (b < 0 || unit < big[b])) {
            major[m++] = unit++;
        } else {
            major[m++] = big[b--];
        }
    }
    bool c = true;
    for (int32_t i = 0; i < n; i++) {
        l->minor_to_major[i] = major[n - 1 - i];
        if (major[i] != i)
            c = false;
    }
    l->kind = c ? PJDL_LAYOUT_ROW_MAJOR : PJDL_LAYOUT_PERMUTED;
}

/* Validates the shape into l->shape and l->num_elements. */
static pjdl_code check_shape(const DLTensor *t, pjdl_layout *l) {
    if (t->ndim < 0 || t->ndim > PJDL_MAX_RANK)
        return pjdl__fail(PJDL_INVALID_ARGUMENT, "ndim is %d: must be between 0 and %d", t->ndim,
                          PJDL_MAX_RANK);
    l->ndim = t->ndim;
    if (t->ndim > 0 && t->shape == NULL)
        return pjdl__fail(PJDL_INVALID_ARGUMENT, "shape is NULL but ndim is %d", t->ndim);
    int64_t count = 1;
    bool overflow = false;
    for (int32_t i = 0; i < t->ndim; i++) {
        int64_t d = t->shape[i];
        if (d < 0)
            return pjdl__fail(PJDL_INVALID_ARGUMENT,
                              "shape[%d] is %lld: dimensions must be non-negative", i,
                              (long long)d);
        l->shape[i] = d;
        if (!overflow && __builtin_mul_overflow(count, d, &count))
            overflow = true;
    }
    /* A zero anywhere makes the product 0 even if a prefix overflowed. */
    for (int32_t i = 0; i < t->ndim; i++)
        if (t->shape[i] == 0) {
            count = 0;
            overflow = false;
        }
    if (overflow)
        return pjdl__fail(PJDL_INVALID_ARGUMENT,
                          "shape: the number of elements overflows int64 (ndim %d)", t->ndim);
    l->num_elements = (uint64_t)count;
    return PJDL_OK;
}

/* Validates strides into l->byte_strides. */
static pjdl_code check_strides(const DLTensor *t, pjdl_layout *l) {
    int64_t es = (int64_t)l->elem_size;
    if (t->strides == NULL) {
        if (!pjdl__compact_strides(l->shape, l->ndim, l->elem_size, l->byte_strides))
            return pjdl__fail(PJDL_INVALID_ARGUMENT,
                              "shape: the compact strides of the shape overflow int64");
        return PJDL_OK;
    }
    for (int32_t i = 0; i < l->ndim; i++) {
        if (!__builtin_mul_overflow(t->strides[i], es, &l->byte_strides[i]))
            continue;
        /* A dimension of extent 1 only ever has index 0: its stride is never
         * multiplied, so one too large for bytes describes it as well as 0. */
        l->byte_strides[i] = 0;
        if (l->shape[i] != 1)
            return pjdl__fail(PJDL_INVALID_ARGUMENT,
                              "strides[%d] is %lld: times the element size %lld it overflows "
                              "int64",
                              i, (long long)t->strides[i], (long long)es);
    }
    return PJDL_OK;
}

int32_t pjdl__byte_span(const int64_t *shape, const int64_t *byte_strides, int32_t n,
                        int64_t elem_size, int64_t *lo, int64_t *hi) {
    *lo = 0;
    *hi = elem_size;
    for (int32_t i = 0; i < n; i++) {
        if (shape[i] <= 1)
            continue;
        int64_t span, whole;
        /* shape * stride is checked too, so callers may compute it. */
        bool bad = __builtin_mul_overflow(shape[i], byte_strides[i], &whole) ||
                   __builtin_mul_overflow(shape[i] - 1, byte_strides[i], &span);
        if (!bad)
            bad = span < 0 ? __builtin_add_overflow(*lo, span, lo)
                           : __builtin_add_overflow(*hi, span, hi);
        if (bad)
            return i;
    }
    int64_t span;
    return __builtin_sub_overflow(*hi, *lo, &span) ? n : -1;
}

/* Computes [lo, hi) and checks the address range, for a tensor with
 * elements. */
static pjdl_code check_extent(const DLTensor *t, pjdl_layout *l) {
    int64_t lo, hi;
    int32_t i =
        pjdl__byte_span(l->shape, l->byte_strides, l->ndim, (int64_t)l->elem_size, &lo, &hi);
    if (i == l->ndim)
        return pjdl__fail(PJDL_INVALID_ARGUMENT, "strides: the tensor spans more than int64 bytes");
    if (i >= 0)
        return pjdl__fail(PJDL_INVALID_ARGUMENT,
                          "strides[%d] is %lld: with shape[%d] = %lld the tensor spans more "
                          "than int64 bytes",
                          i, (long long)(l->byte_strides[i] / (int64_t)l->elem_size), i,
                          (long long)l->shape[i]);
    l->lo = lo;
    l->hi = hi;
    uintptr_t base;
    if (!pjdl__tensor_span_fits(t, lo, hi, &base))
        return pjdl__fail(PJDL_INVALID_ARGUMENT,
                          "byte_offset is %llu: data + byte_offset and the strides reach outside "
                          "the address space",
                          (unsigned long long)t->byte_offset);
    return PJDL_OK;
}

bool pjdl__tensor_check_c_order(const DLTensor *t, pjdl_layout *l) {
    const int32_t n = t->ndim;
    if (n < 0 || n > PJDL_MAX_RANK || (n > 0 && t->shape == NULL) || t->data == NULL ||
        t->byte_offset > (uint64_t)INT64_MAX)
        return false;
    const int64_t es = t->dtype.bits / 8;
    int64_t stride = es; /* the compact byte stride of dimension i */
    for (int32_t i = n - 1; i >= 0; i--) {
        int64_t d = t->shape[i];
        if (d <= 0)
            return false;
        l->shape[i] = d;
        l->minor_to_major[n - 1 - i] = i;
        l->byte_strides[i] = stride;
        if (t->strides != NULL && d == 1 &&
            __builtin_mul_overflow(t->strides[i], es, &l->byte_strides[i]))
            l->byte_strides[i] = 0; /* as check_strides: never multiplied */
        if (t->strides != NULL && d > 1 && t->strides[i] != stride / es)
            return false;
        if (__builtin_mul_overflow(stride, d, &stride))
            return false;
    }
    /* stride is now the size in bytes; the bytes must not wrap around. */
    uintptr_t addr;
    if (!pjdl__tensor_span_fits(t, 0, stride, &addr))
        return false;
    l->ndim = n;
    l->elem_size = (size_t)es;
    l->num_elements = (uint64_t)(stride / es);
    l->nbytes = (size_t)stride;
    l->kind = PJDL_LAYOUT_ROW_MAJOR;
    l->lo = 0;
    l->hi = stride;
    l->why_strided = NULL;
    l->why_dim = -1;
    size_t align = (size_t)(es & -es); /* lowest set bit, as below */
    l->aligned = (addr & (align - 1)) == 0;
    l->packed_bits = 0;
    return true;
}

pjdl_code pjdl__tensor_check(const DLTensor *t, pjdl_layout *out) {
    if (t == NULL || out == NULL)
        return pjdl__fail(PJDL_INVALID_ARGUMENT, "pjdl__tensor_check: %s is NULL",
                          t == NULL ? "tensor" : "out");
    if (pjdl__dl_dtype_whole_bytes(t->dtype) && pjdl__tensor_check_c_order(t, out))
        return PJDL_OK;
    /* Filled in place, arrays only up to ndim: the struct has room for
     * PJDL_MAX_RANK dimensions, and clearing or copying all of it would cost
     * more than the rest of an import. */
    pjdl_layout *l = out;
    l->ndim = 0;
    l->lo = l->hi = 0;
    l->why_strided = NULL;
    l->why_dim = -1;
    l->packed_bits = 0;
    l->kind = PJDL_LAYOUT_ROW_MAJOR;
    PJDL_TRY(check_shape(t, l));
    PJDL_TRY(pjdl__dl_dtype_check(t->dtype, &l->elem_size));
    int64_t nbytes;
    if (__builtin_mul_overflow((int64_t)l->num_elements, (int64_t)l->elem_size, &nbytes))
        return pjdl__fail(PJDL_INVALID_ARGUMENT,
                          "shape: %llu elements of %zu bytes overflow int64 bytes",
                          (unsigned long long)l->num_elements, l->elem_size);
    l->nbytes = (size_t)nbytes;
    if (l->num_elements == 0) {
        if (!pjdl__extent_product_fits(l->shape, (size_t)l->ndim, l->elem_size))
            return pjdl__fail(PJDL_INVALID_ARGUMENT,
                              "shape: an empty tensor whose dimensions before the first 0, times "
                              "the element size, overflow int64 (shape[0] is %lld): XLA's "
                              "plugins abort the process on such a shape, so none is given one",
                              (long long)l->shape[0]);
        /* No element is addressed: strides of any size describe it, and no
         * stride arithmetic may fail (shape (0, 2**62), its compact strides
         * or PyTorch's (2**62, 1), is a valid empty tensor). */
        for (int32_t i = 0; i < l->ndim; i++)
            l->byte_strides[i] = 0;
    } else {
        PJDL_TRY(check_strides(t, l));
    }
    if (t->byte_offset > (uint64_t)INT64_MAX)
        return pjdl__fail(PJDL_INVALID_ARGUMENT, "byte_offset is %llu: larger than INT64_MAX",
                          (unsigned long long)t->byte_offset);

    uintptr_t addr = (uintptr_t)t->data + (uintptr_t)t->byte_offset;
    size_t align = l->elem_size & (~l->elem_size + 1); /* lowest set bit */
    l->aligned = (addr & (align - 1)) == 0;            /* align is a power of two */
    if (l->num_elements == 0) {
        pjdl__c_order(l->minor_to_major, l->ndim);
        return PJDL_OK;
    }
    if (t->data == NULL)
        return pjdl__fail(PJDL_INVALID_ARGUMENT, "data is NULL for a tensor of %llu elements",
                          (unsigned long long)l->num_elements);
    PJDL_TRY(check_extent(t, l));
    if (t->strides == NULL) /* compact C order by definition */
        pjdl__c_order(l->minor_to_major, l->ndim);
    else
        classify(l);
    return PJDL_OK;
}
