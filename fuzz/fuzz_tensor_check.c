/* libFuzzer target: pjdl__tensor_check on arbitrary DLTensor metadata, and
 * pjdl__strided_copy on every tensor it accepts, with real memory behind it.
 *
 * Input format (missing bytes read as 0):
 *   ndim selector (1 byte): < 0xF8: ndim = value % 7; else one of the
 *       out-of-range or extreme values in `odd_ndims`;
 *   dtype: code (1), bits (1), lanes (2, little-endian);
 *   flags (1): 1 strides NULL, 2 data NULL, 4 shape NULL, 8 raw byte_offset;
 *   byte_offset: 8 raw bytes with flag 8, else 1 byte (0..63);
 *   shape: ndim entries, each 1 byte: < 0xC0: value % 9, < 0xF0: 9 to 150,
 *       else an escape (raw 8 bytes, -1, INT64_MAX, ...);
 *   strides: ndim entries, each 1 byte: < 0xF0: value - 0x70 (-112..127),
 *       else an escape.
 *
 * For accepted metadata whose span is small, the tensor is rebuilt over a
 * real buffer (byte_offset chosen so that the lowest byte touched is the
 * buffer's first), checked again, copied, and the copy compared element by
 * element with a naive walk. Everything else must be rejected with
 * INVALID_ARGUMENT or UNIMPLEMENTED and a message. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "fuzz_reader.h"
#include "layout.h"

#define MAX_SPAN ((int64_t)1 << 18)
#define MAX_DIMS 130

static int64_t dim(fz_reader *r) {
    uint8_t b = fz_u8(r);
    if (b < 0xC0)
        return b % 9;
    return b < 0xF0 ? 9 + (b - 0xC0) * 3 : fz_escape(r, b); /* 9..150, for the tiled kernels */
}

static int64_t stride(fz_reader *r) {
    uint8_t b = fz_u8(r);
    return b < 0xF0 ? (int64_t)b - 0x70 : fz_escape(r, b);
}

static void fail(const char *what) {
    fprintf(stderr, "fuzz_tensor_check: %s (last error: %s)\n", what, pjdl_last_error());
    abort();
}

/* Properties every accepted layout has. */
static void check_invariants(const pjdl_layout *l) {
    if ((uint64_t)l->nbytes != l->num_elements * l->elem_size)
        fail("nbytes != num_elements * elem_size");
    if (l->num_elements == 0) {
        if (l->lo != 0 || l->hi != 0 || l->kind != PJDL_LAYOUT_ROW_MAJOR)
            fail("zero-size tensor not empty row-major");
        return;
    }
    if (l->lo > 0 || l->hi < (int64_t)l->elem_size)
        fail("bad extent");
    if ((l->kind == PJDL_LAYOUT_STRIDED) != (l->why_strided != NULL))
        fail("why_strided inconsistent with kind");
    if (l->kind != PJDL_LAYOUT_STRIDED) {
        /* Compact: the span is exactly the data. */
        if (l->lo != 0 || l->hi != (int64_t)l->nbytes)
            fail("compact layout with a span other than nbytes");
        uint64_t seen = 0;
        bool c_order = true;
        for (int32_t i = 0; i < l->ndim; i++) {
            int64_t d = l->minor_to_major[i];
            if (d < 0 || d >= l->ndim || (seen >> d & 1))
                fail("minor_to_major is not a permutation");
            seen |= (uint64_t)1 << d;
            if (d != l->ndim - 1 - i)
                c_order = false;
        }
        if (c_order != (l->kind == PJDL_LAYOUT_ROW_MAJOR))
            fail("kind disagrees with minor_to_major");
    }
}

/* Rebuilds `t` over real memory, copies it, and compares. */
static void copy_and_compare(DLTensor t, const pjdl_layout *first) {
    int64_t span = first->hi - first->lo;
    if (first->num_elements == 0 || span > MAX_SPAN || (int64_t)first->nbytes > MAX_SPAN)
        return;
    unsigned char *src = malloc((size_t)span);
    unsigned char *dst = malloc(first->nbytes);
    if (src == NULL || dst == NULL)
        abort();
    for (int64_t i = 0; i < span; i++)
        src[i] = (unsigned char)(i * 31 + 7);
    t.data = src;
    t.byte_offset = (uint64_t)-first->lo;
    pjdl_layout l;
    if (pjdl__tensor_check(&t, &l) != PJDL_OK)
        fail("accepted metadata rejected over real memory");
    if (l.kind != first->kind || l.nbytes != first->nbytes || l.lo != first->lo ||
        l.hi != first->hi)
        fail("layout depends on the data address");
    pjdl__strided_copy(dst, src - first->lo, &l);

    /* Naive walk over (at most) a few thousand evenly spread elements. */
    uint64_t step = l.num_elements / 4096 + 1;
    for (uint64_t lin = 0; lin < l.num_elements; lin += step) {
        int64_t off = -first->lo + fz_offset(lin, l.shape, (size_t)l.ndim, l.byte_strides);
        if (off < 0 || off + (int64_t)l.elem_size > span)
            fail("element outside the span");
        if (memcmp(dst + lin * l.elem_size, src + off, l.elem_size) != 0)
            fail("copied element differs");
    }
    free(src);
    free(dst);
}

/* libFuzzer's entry point (it declares none for C). */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static const int32_t odd_ndims[8] = {-1, -128, 64, 65, 127, INT32_MIN, 7, 100};
    static _Alignas(64) unsigned char probe[64];
    fz_reader r = {data, size};

    uint8_t sel = fz_u8(&r);
    int32_t ndim = sel < 0xF8 ? sel % 7 : odd_ndims[sel - 0xF8];
    DLTensor t;
    memset(&t, 0, sizeof t);
    t.device.device_type = kDLCPU;
    t.ndim = ndim;
    t.dtype.code = fz_u8(&r);
    t.dtype.bits = fz_u8(&r);
    t.dtype.lanes = (uint16_t)(fz_u8(&r) | fz_u8(&r) << 8);
    uint8_t flags = fz_u8(&r);
    t.byte_offset = (flags & 8) ? fz_u64(&r) : fz_u8(&r) % 64;

    int64_t shape[MAX_DIMS], strides[MAX_DIMS];
    int32_t stored = ndim < 0 ? 0 : ndim > MAX_DIMS ? MAX_DIMS : ndim;
    for (int32_t i = 0; i < stored; i++)
        shape[i] = dim(&r);
    for (int32_t i = 0; i < stored; i++)
        strides[i] = stride(&r);
    /* ndim beyond what is stored is always rejected before shape is read. */
    t.shape = (flags & 4) ? NULL : shape;
    t.strides = (flags & 1) ? NULL : strides;
    t.data = (flags & 2) ? NULL : probe;

    pjdl__clear_error();
    pjdl_layout l;
    pjdl_code code = pjdl__tensor_check(&t, &l);
    if (code != PJDL_OK) {
        if (code != PJDL_INVALID_ARGUMENT && code != PJDL_UNIMPLEMENTED)
            fail("unexpected error code");
        if (pjdl_last_error()[0] == '\0')
            fail("error without a message");
        return 0;
    }
    if (ndim < 0 || ndim > PJDL_MAX_RANK)
        fail("bad ndim accepted");
    check_invariants(&l);
    copy_and_compare(t, &l);
    return 0;
}
