/* The PJRT element types, one row each (see element_type.h). */
#include "element_type.h"

/* A row: PJRT's name (the enum's suffix), XLA's short name, bits, and the
 * first PJRT C API minor version that has the type (docs/plugins.md, "ABI
 * facts": 0 for the types of every header read, 0.31 on; S2 and U2 are in
 * 0.54's header, not in the changelog, and follow TOKEN of 0.50). */
#define ROW(pjrt, xla, bits, minor) [PJRT_Buffer_Type_##pjrt] = {#pjrt, #xla, bits, minor}

static const pjdl__element_type types[] = {
    ROW(INVALID, invalid, 0, 0),
    ROW(PRED, pred, 8, 0),
    ROW(S8, s8, 8, 0),
    ROW(S16, s16, 16, 0),
    ROW(S32, s32, 32, 0),
    ROW(S64, s64, 64, 0),
    ROW(U8, u8, 8, 0),
    ROW(U16, u16, 16, 0),
    ROW(U32, u32, 32, 0),
    ROW(U64, u64, 64, 0),
    ROW(F16, f16, 16, 0),
    ROW(F32, f32, 32, 0),
    ROW(F64, f64, 64, 0),
    ROW(BF16, bf16, 16, 0),
    ROW(C64, c64, 64, 0),
    ROW(C128, c128, 128, 0),
    ROW(F8E5M2, f8e5m2, 8, 0),
    ROW(F8E4M3FN, f8e4m3fn, 8, 0),
    ROW(F8E4M3B11FNUZ, f8e4m3b11fnuz, 8, 0),
    ROW(F8E5M2FNUZ, f8e5m2fnuz, 8, 0),
    ROW(F8E4M3FNUZ, f8e4m3fnuz, 8, 0),
    ROW(S4, s4, 4, 0),
    ROW(U4, u4, 4, 0),
    ROW(TOKEN, token, 0, 50),
    ROW(S2, s2, 2, 54),
    ROW(U2, u2, 2, 54),
    ROW(F8E4M3, f8e4m3, 8, 55),
    ROW(F8E3M4, f8e3m4, 8, 55),
    ROW(F8E8M0FNU, f8e8m0fnu, 8, 63),
    ROW(F4E2M1FN, f4e2m1fn, 4, 63),
    ROW(S1, s1, 1, 94),
    ROW(U1, u1, 1, 94),
    ROW(F6E2M3FN, f6e2m3fn, 6, 114),
    ROW(F6E3M2FN, f6e3m2fn, 6, 114),
};

_Static_assert(sizeof types / sizeof types[0] == PJDL_ELEMENT_TYPE_COUNT,
               "PJDL_ELEMENT_TYPE_COUNT names the table's last row");

const pjdl__element_type *pjdl__element_type_of(PJRT_Buffer_Type type) {
    if ((unsigned)type >= PJDL_ELEMENT_TYPE_COUNT || types[type].name == NULL)
        return NULL;
    return &types[type];
}

size_t pjdl__element_type_size(PJRT_Buffer_Type type) {
    const pjdl__element_type *t = pjdl__element_type_of(type);
    if (t == NULL || t->bits == 0 || t->bits % 8 != 0)
        return 0;
    return t->bits / 8;
}

bool pjdl__element_type_packed(PJRT_Buffer_Type type) {
    const pjdl__element_type *t = pjdl__element_type_of(type);
    return t != NULL && (t->bits == 1 || t->bits == 2 || t->bits == 4);
}

size_t pjdl__packed_size(size_t n, unsigned bits) {
    return n / 8 * bits + (n % 8 * bits + 7) / 8;
}

void pjdl__bits_pack(uint8_t *dst, const uint8_t *src, size_t n, unsigned bits) {
    const unsigned mask = (1u << bits) - 1;
    size_t bytes = pjdl__packed_size(n, bits);
    for (size_t k = 0; k < bytes; k++) {
        /* The elements with a bit in byte k: from the one holding bit 8k to
         * the one holding bit 8k + 7 (or the last). */
        unsigned acc = 0;
        uint64_t first = (uint64_t)k * 8 / bits, last = ((uint64_t)k * 8 + 7) / bits;
        for (uint64_t i = first; i <= last && i < n; i++) {
            int64_t shift = (int64_t)(i * bits) - (int64_t)k * 8;
            unsigned v = src[i] & mask;
            acc |= shift >= 0 ? v << shift : v >> -shift;
        }
        dst[k] = (uint8_t)acc;
    }
}

void pjdl__bits_unpack(uint8_t *dst, const uint8_t *src, size_t n, unsigned bits) {
    for (size_t i = 0; i < n; i++)
        dst[i] = pjdl__bits_get(src, i, bits);
}
