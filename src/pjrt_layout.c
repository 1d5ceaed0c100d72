/* PJRT memory layouts as DLPack strides (pjdl__layout_to_strides): the
 * strided form, and the tiled form where its tiles do not move any element. */
#include "layout.h"

#include <string.h>

#include "error.h"

/* Element strides for the order minor_to_major; INVALID_ARGUMENT on
 * overflow. */
static pjdl_code strides_from_order(const int64_t *m2m, const int64_t *dims, int32_t ndim,
                                    int64_t *strides) {
    int64_t s = 1;
    for (int32_t i = 0; i < ndim; i++) {
        int64_t d = m2m[i];
        strides[d] = s;
        if (__builtin_mul_overflow(s, dims[d] > 0 ? dims[d] : 1, &s))
            return pjdl__fail(PJDL_INVALID_ARGUMENT, "layout: the strides of the shape overflow");
    }
    return PJDL_OK;
}

/* The largest physical rank tiling may produce; more is refused. */
#define MAX_TILED_RANK (4 * PJDL_MAX_RANK)

/* Checks whether one tile `tile` (k sizes) applied to the physical shape
 * phys (np extents, major to minor) keeps the elements in row-major order of
 * the shape (padding at the very end is allowed), and if so replaces phys
 * with the tiled shape for the next tile. */
static pjdl_code apply_tile(int64_t *phys, size_t *np, const int64_t *tile, size_t k, size_t t) {
    for (size_t j = 0; j < k; j++) {
        if (tile[j] == -1)
            return pjdl__fail(PJDL_UNIMPLEMENTED,
                              "tiled layout (tile %zu combines dimensions) cannot be expressed in "
                              "DLPack",
                              t);
        if (tile[j] <= 0)
            return pjdl__fail(PJDL_INVALID_ARGUMENT,
                              "layout: tile %zu has dimension %zu of size %lld: must be positive",
                              t, j, (long long)tile[j]);
    }
    if (k + *np > MAX_TILED_RANK || k > MAX_TILED_RANK / 2)
        return pjdl__fail(PJDL_UNIMPLEMENTED,
                          "tiled layout with %zu tile dimensions cannot be expressed in DLPack", k);
    /* A tile of more dimensions than the shape sees leading 1s. */
    if (k > *np) {
        size_t extra = k - *np;
        memmove(phys + extra, phys, *np * sizeof *phys);
        for (size_t i = 0; i < extra; i++)
            phys[i] = 1;
        *np = k;
    }
    size_t first = *np - k; /* position of tile[0] in phys */
    /* q: the most major extent > 1. */
    size_t q = *np;
    for (size_t i = 0; i < *np; i++)
        if (phys[i] > 1) {
            q = i;
            break;
        }
    /* Leading tile sizes of 1 change nothing; j0 is the first that may. The
     * tiling keeps row-major order iff the j0 dimension is split into
     * whole tiles (or is the most major extent > 1, so padding lands at the
     * end), and every later tiled dimension fits in a single tile: exactly
     * when something more major has extent > 1, at most when nothing
     * does. */
    size_t j0 = 0;
    while (j0 < k && tile[j0] == 1)
        j0++;
    for (size_t j = j0; j < k && q < *np; j++) {
        size_t pos = first + j;
        bool ok;
        if (j == j0)
            ok = pos <= q || phys[pos] % tile[j] == 0;
        else if (pos > q)
            ok = tile[j] == phys[pos];
        else
            ok = pos < q || tile[j] >= phys[pos];
        if (!ok)
            return pjdl__fail(PJDL_UNIMPLEMENTED,
                              "tiled layout (tile %zu reorders elements) cannot be expressed in "
                              "DLPack",
                              t);
    }
    /* The tiled shape: outer dims, tile counts, tile sizes. */
    for (size_t j = 0; j < k; j++) {
        int64_t e = phys[first + j];
        phys[first + j] = e / tile[j] + (e % tile[j] != 0);
        phys[*np + j] = tile[j];
    }
    *np += k;
    return PJDL_OK;
}

static pjdl_code tiled_to_strides(const PJRT_Buffer_MemoryLayout_Tiled *tl, const int64_t *dims,
                                  int32_t ndim, int64_t *strides) {
    if (tl->minor_to_major_size != (size_t)ndim)
        return pjdl__fail(PJDL_INVALID_ARGUMENT,
                          "layout: minor_to_major has %zu entries for %d dimensions",
                          tl->minor_to_major_size, ndim);
    if (ndim > 0 && tl->minor_to_major == NULL)
        return pjdl__fail(PJDL_INVALID_ARGUMENT, "layout: minor_to_major is NULL");
    uint64_t seen = 0;
    for (int32_t i = 0; i < ndim; i++) {
        int64_t d = tl->minor_to_major[i];
        if (d < 0 || d >= ndim || (seen >> d & 1))
            return pjdl__fail(PJDL_INVALID_ARGUMENT,
                              "layout: minor_to_major[%d] is %lld: not a permutation of 0..%d", i,
                              (long long)d, ndim - 1);
        seen |= (uint64_t)1 << d;
    }
    if (tl->num_tiles > 0) {
        if (tl->tile_dim_sizes == NULL || tl->tile_dims == NULL)
            return pjdl__fail(PJDL_INVALID_ARGUMENT,
                              "layout: %zu tiles but tile_dims or tile_dim_sizes is NULL",
                              tl->num_tiles);
        bool empty = false;
        for (int32_t i = 0; i < ndim; i++)
            if (dims[i] == 0)
                empty = true;
        int64_t phys[MAX_TILED_RANK];
        size_t np = (size_t)ndim, offset = 0;
        for (int32_t i = 0; i < ndim; i++)
            phys[i] = dims[tl->minor_to_major[ndim - 1 - i]];
        for (size_t t = 0; t < tl->num_tiles; t++) {
            size_t k = tl->tile_dim_sizes[t];
            if (k > MAX_TILED_RANK)
                return pjdl__fail(PJDL_UNIMPLEMENTED,
                                  "tiled layout with %zu tile dimensions cannot be expressed in "
                                  "DLPack",
                                  k);
            const int64_t *tile = tl->tile_dims + offset;
            offset += k;
            if (empty)
                continue; /* no data: any tiling is trivially satisfied */
            PJDL_TRY(apply_tile(phys, &np, tile, k, t));
        }
    }
    return strides_from_order(tl->minor_to_major, dims, ndim, strides);
}

pjdl_code pjdl__layout_to_strides(const PJRT_Buffer_MemoryLayout *layout, const int64_t *dims,
                                  int32_t ndim, size_t elem_size, int64_t *strides) {
    if (ndim < 0 || ndim > PJDL_MAX_RANK)
        return pjdl__fail(PJDL_INVALID_ARGUMENT, "layout: ndim is %d: must be between 0 and %d",
                          ndim, PJDL_MAX_RANK);
    if (ndim > 0 && (dims == NULL || strides == NULL))
        return pjdl__fail(PJDL_INVALID_ARGUMENT, "layout: dims or strides is NULL");
    for (int32_t i = 0; i < ndim; i++)
        if (dims[i] < 0)
            return pjdl__fail(PJDL_INVALID_ARGUMENT, "layout: dims[%d] is %lld: must be >= 0", i,
                              (long long)dims[i]);
    if (elem_size == 0 || elem_size > (size_t)INT64_MAX)
        return pjdl__fail(PJDL_INVALID_ARGUMENT, "layout: element size is %zu", elem_size);

    int64_t m2m[PJDL_MAX_RANK];
    pjdl__c_order(m2m, ndim);
    if (layout == NULL)
        return strides_from_order(m2m, dims, ndim, strides);

    switch (layout->type) {
    case PJRT_Buffer_MemoryLayout_Type_Strides: {
        const PJRT_Buffer_MemoryLayout_Strides *sl = &layout->strides;
        if (sl->num_byte_strides != (size_t)ndim)
            return pjdl__fail(PJDL_INVALID_ARGUMENT, "layout: %zu byte strides for %d dimensions",
                              sl->num_byte_strides, ndim);
        if (ndim > 0 && sl->byte_strides == NULL)
            return pjdl__fail(PJDL_INVALID_ARGUMENT, "layout: byte_strides is NULL");
        int64_t tmp[PJDL_MAX_RANK];
        for (int32_t i = 0; i < ndim; i++) {
            int64_t bs = sl->byte_strides[i];
            if (bs % (int64_t)elem_size != 0)
                return pjdl__fail(PJDL_UNIMPLEMENTED,
                                  "layout: byte stride %lld of dimension %d is not a multiple of "
                                  "the element size %zu, which DLPack cannot express",
                                  (long long)bs, i, elem_size);
            tmp[i] = bs / (int64_t)elem_size;
        }
        if (ndim > 0)
            memcpy(strides, tmp, (size_t)ndim * sizeof *strides);
        return PJDL_OK;
    }
    case PJRT_Buffer_MemoryLayout_Type_Tiled: {
        int64_t tmp[PJDL_MAX_RANK];
        pjdl_code code = tiled_to_strides(&layout->tiled, dims, ndim, tmp);
        if (code == PJDL_OK && ndim > 0)
            memcpy(strides, tmp, (size_t)ndim * sizeof *strides);
        return code;
    }
    }
    return pjdl__fail(PJDL_INVALID_ARGUMENT, "layout: unknown layout type %d", (int)layout->type);
}
