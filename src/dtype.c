/* PJRT element types <-> DLPack dtypes. */
#include "dtype.h"

#include <pthread.h>
#include <stdio.h>

#include "error.h"

/* One row per PJRT_Buffer_Type value, indexed by the value. `dl_bits` 0 means
 * DLPack cannot carry the type (sub-byte, token, invalid). */
typedef struct {
    const char *name;
    unsigned bits; /* bits per element in PJRT; 0: no data */
    uint8_t dl_code;
    uint8_t dl_bits;
} pjrt_type_info;

static const pjrt_type_info pjrt_types[] = {
    [PJRT_Buffer_Type_INVALID] = {"invalid", 0, 0, 0},
    [PJRT_Buffer_Type_PRED] = {"pred", 8, kDLBool, 8},
    [PJRT_Buffer_Type_S8] = {"s8", 8, kDLInt, 8},
    [PJRT_Buffer_Type_S16] = {"s16", 16, kDLInt, 16},
    [PJRT_Buffer_Type_S32] = {"s32", 32, kDLInt, 32},
    [PJRT_Buffer_Type_S64] = {"s64", 64, kDLInt, 64},
    [PJRT_Buffer_Type_U8] = {"u8", 8, kDLUInt, 8},
    [PJRT_Buffer_Type_U16] = {"u16", 16, kDLUInt, 16},
    [PJRT_Buffer_Type_U32] = {"u32", 32, kDLUInt, 32},
    [PJRT_Buffer_Type_U64] = {"u64", 64, kDLUInt, 64},
    [PJRT_Buffer_Type_F16] = {"f16", 16, kDLFloat, 16},
    [PJRT_Buffer_Type_F32] = {"f32", 32, kDLFloat, 32},
    [PJRT_Buffer_Type_F64] = {"f64", 64, kDLFloat, 64},
    [PJRT_Buffer_Type_BF16] = {"bf16", 16, kDLBfloat, 16},
    [PJRT_Buffer_Type_C64] = {"c64", 64, kDLComplex, 64},
    [PJRT_Buffer_Type_C128] = {"c128", 128, kDLComplex, 128},
    [PJRT_Buffer_Type_F8E5M2] = {"f8e5m2", 8, kDLFloat8_e5m2, 8},
    [PJRT_Buffer_Type_F8E4M3FN] = {"f8e4m3fn", 8, kDLFloat8_e4m3fn, 8},
    [PJRT_Buffer_Type_F8E4M3B11FNUZ] = {"f8e4m3b11fnuz", 8, kDLFloat8_e4m3b11fnuz, 8},
    [PJRT_Buffer_Type_F8E5M2FNUZ] = {"f8e5m2fnuz", 8, kDLFloat8_e5m2fnuz, 8},
    [PJRT_Buffer_Type_F8E4M3FNUZ] = {"f8e4m3fnuz", 8, kDLFloat8_e4m3fnuz, 8},
    [PJRT_Buffer_Type_S4] = {"s4", 4, 0, 0},
    [PJRT_Buffer_Type_U4] = {"u4", 4, 0, 0},
    [PJRT_Buffer_Type_TOKEN] = {"token", 0, 0, 0},
    [PJRT_Buffer_Type_S2] = {"s2", 2, 0, 0},
    [PJRT_Buffer_Type_U2] = {"u2", 2, 0, 0},
    [PJRT_Buffer_Type_F8E4M3] = {"f8e4m3", 8, kDLFloat8_e4m3, 8},
    [PJRT_Buffer_Type_F8E3M4] = {"f8e3m4", 8, kDLFloat8_e3m4, 8},
    [PJRT_Buffer_Type_F8E8M0FNU] = {"f8e8m0fnu", 8, kDLFloat8_e8m0fnu, 8},
    [PJRT_Buffer_Type_F4E2M1FN] = {"f4e2m1fn", 4, 0, 0},
    [PJRT_Buffer_Type_S1] = {"s1", 1, 0, 0},
    [PJRT_Buffer_Type_U1] = {"u1", 1, 0, 0},
    [PJRT_Buffer_Type_F6E2M3FN] = {"f6e2m3fn", 6, 0, 0},
    [PJRT_Buffer_Type_F6E3M2FN] = {"f6e3m2fn", 6, 0, 0},
};

#define NUM_PJRT_TYPES (sizeof pjrt_types / sizeof pjrt_types[0])
_Static_assert(NUM_PJRT_TYPES <= 256, "dl_to_pjrt stores PJRT types in a byte");

static const pjrt_type_info *pjrt_info(PJRT_Buffer_Type type) {
    if ((unsigned)type >= NUM_PJRT_TYPES || pjrt_types[type].name == NULL)
        return NULL;
    return &pjrt_types[type];
}

const char *pjdl_pjrt_type_name(PJRT_Buffer_Type type) {
    const pjrt_type_info *info = pjrt_info(type);
    return info ? info->name : "invalid";
}

size_t pjdl_pjrt_type_size(PJRT_Buffer_Type type) {
    const pjrt_type_info *info = pjrt_info(type);
    if (info == NULL || info->bits == 0 || info->bits % 8 != 0)
        return 0;
    return info->bits / 8;
}

pjdl_code pjdl_dtype_from_pjrt(PJRT_Buffer_Type type, DLDataType *out) {
    pjdl__clear_error();
    if (out == NULL)
        return pjdl__fail(PJDL_INVALID_ARGUMENT, "pjdl_dtype_from_pjrt: out is NULL");
    const pjrt_type_info *info = pjrt_info(type);
    if (info == NULL)
        return pjdl__fail(PJDL_UNIMPLEMENTED,
                          "PJRT element type %d is unknown to this library (newer plugin?)",
                          (int)type);
    if (info->dl_bits == 0) {
        if (info->bits == 0)
            return pjdl__fail(PJDL_UNIMPLEMENTED,
                              "PJRT element type %s has no data and no DLPack equivalent",
                              info->name);
        return pjdl__fail(PJDL_UNIMPLEMENTED,
                          "PJRT element type %s has %u bits per element: sub-byte types cannot "
                          "be exchanged through DLPack by this library",
                          info->name, info->bits);
    }
    out->code = info->dl_code;
    out->bits = info->dl_bits;
    out->lanes = 1;
    return PJDL_OK;
}

/* -------------------------------------------------------- DLPack dtypes */

/* The kind of a DLPack type code, for validation and naming. */
typedef struct {
    const char *name;
    /* The one width the code allows, or 0 for "any multiple of 8". */
    unsigned fixed_bits;
} dl_code_info;

static const dl_code_info *dl_code(uint8_t code) {
    static const dl_code_info codes[] = {
        [kDLInt] = {"int", 0},
        [kDLUInt] = {"uint", 0},
        [kDLFloat] = {"float", 0},
        [kDLOpaqueHandle] = {"handle", 0},
        [kDLBfloat] = {"bfloat", 0},
        [kDLComplex] = {"complex", 0},
        [kDLBool] = {"bool", 8},
        [kDLFloat8_e3m4] = {"float8_e3m4", 8},
        [kDLFloat8_e4m3] = {"float8_e4m3", 8},
        [kDLFloat8_e4m3b11fnuz] = {"float8_e4m3b11fnuz", 8},
        [kDLFloat8_e4m3fn] = {"float8_e4m3fn", 8},
        [kDLFloat8_e4m3fnuz] = {"float8_e4m3fnuz", 8},
        [kDLFloat8_e5m2] = {"float8_e5m2", 8},
        [kDLFloat8_e5m2fnuz] = {"float8_e5m2fnuz", 8},
        [kDLFloat8_e8m0fnu] = {"float8_e8m0fnu", 8},
        [kDLFloat6_e2m3fn] = {"float6_e2m3fn", 6},
        [kDLFloat6_e3m2fn] = {"float6_e3m2fn", 6},
        [kDLFloat4_e2m1fn] = {"float4_e2m1fn", 4},
    };
    if (code >= sizeof codes / sizeof codes[0] || codes[code].name == NULL)
        return NULL;
    return &codes[code];
}

const char *pjdl__dl_dtype_format(DLDataType dtype, char *buf) {
    const dl_code_info *info = dl_code(dtype.code);
    if (info == NULL) {
        snprintf(buf, PJDL_DTYPE_NAME_MAX, "dtype(code=%u, bits=%u, lanes=%u)",
                 (unsigned)dtype.code, (unsigned)dtype.bits, (unsigned)dtype.lanes);
        return buf;
    }
    int n;
    if (info->fixed_bits != 0 && dtype.bits == info->fixed_bits)
        n = snprintf(buf, PJDL_DTYPE_NAME_MAX, "%s", info->name);
    else
        n = snprintf(buf, PJDL_DTYPE_NAME_MAX, "%s%u", info->name, (unsigned)dtype.bits);
    if (dtype.lanes != 1 && n > 0 && n < PJDL_DTYPE_NAME_MAX)
        snprintf(buf + n, (size_t)(PJDL_DTYPE_NAME_MAX - n), "x%u", (unsigned)dtype.lanes);
    return buf;
}

pjdl_code pjdl__dl_dtype_check(DLDataType dtype, size_t *elem_size) {
    char name[PJDL_DTYPE_NAME_MAX];
    const dl_code_info *info = dl_code(dtype.code);
    if (info == NULL)
        return pjdl__fail(PJDL_INVALID_ARGUMENT, "dtype.code is %u: not a DLPack type code",
                          (unsigned)dtype.code);
    if (dtype.lanes == 0)
        return pjdl__fail(PJDL_INVALID_ARGUMENT, "dtype.lanes is 0: must be at least 1");
    if (dtype.bits == 0)
        return pjdl__fail(PJDL_INVALID_ARGUMENT, "dtype.bits is 0 for %s: must be positive",
                          info->name);
    if (info->fixed_bits != 0 && dtype.bits != info->fixed_bits)
        return pjdl__fail(PJDL_INVALID_ARGUMENT, "dtype.bits is %u for %s: must be %u",
                          (unsigned)dtype.bits, info->name, info->fixed_bits);
    if (dtype.bits % 8 != 0) {
        if (dtype.bits < 8)
            return pjdl__fail(PJDL_UNIMPLEMENTED,
                              "dtype %s has %u bits per element: sub-byte types are not "
                              "supported",
                              pjdl__dl_dtype_format(dtype, name), (unsigned)dtype.bits);
        return pjdl__fail(PJDL_INVALID_ARGUMENT,
                          "dtype.bits is %u for %s: must be a multiple of 8 (or below 8)",
                          (unsigned)dtype.bits, info->name);
    }
    if (dtype.lanes != 1)
        return pjdl__fail(PJDL_UNIMPLEMENTED,
                          "dtype %s has %u lanes: vector types are not supported (lanes must "
                          "be 1)",
                          pjdl__dl_dtype_format(dtype, name), (unsigned)dtype.lanes);
    *elem_size = dtype.bits / 8;
    return PJDL_OK;
}

pjdl_code pjdl_dtype_to_pjrt(DLDataType dtype, PJRT_Buffer_Type *out) {
    pjdl__clear_error();
    if (out == NULL)
        return pjdl__fail(PJDL_INVALID_ARGUMENT, "pjdl_dtype_to_pjrt: out is NULL");
    size_t elem_size;
    pjdl_code code = pjdl__dl_dtype_check(dtype, &elem_size);
    if (code != PJDL_OK)
        return code;
    return pjdl__dtype_to_pjrt_checked(dtype, out);
}

/* pjrt_types inverted: the PJRT type of (DLPack code, log2(bits / 8)), 0
 * (INVALID) where there is none. Built once from the table above. */
#define DL_CODES 32
#define DL_SIZES 5 /* 8, 16, 32, 64, 128 bits */
static uint8_t dl_to_pjrt[DL_CODES][DL_SIZES];
static pthread_once_t dl_to_pjrt_once = PTHREAD_ONCE_INIT;

static int size_index(unsigned bits) {
    for (int i = 0; i < DL_SIZES; i++)
        if (bits == 8u << i)
            return i;
    return -1;
}

static void dl_to_pjrt_build(void) {
    for (size_t t = 0; t < NUM_PJRT_TYPES; t++) {
        const pjrt_type_info *info = &pjrt_types[t];
        int k = size_index(info->dl_bits);
        if (info->name != NULL && info->dl_bits != 0 && info->dl_code < DL_CODES && k >= 0)
            dl_to_pjrt[info->dl_code][k] = (uint8_t)t;
    }
}

pjdl_code pjdl__dtype_to_pjrt_checked(DLDataType dtype, PJRT_Buffer_Type *out) {
    pthread_once(&dl_to_pjrt_once, dl_to_pjrt_build);
    int k = size_index(dtype.bits);
    if (dtype.code < DL_CODES && k >= 0 && dl_to_pjrt[dtype.code][k] != 0) {
        *out = (PJRT_Buffer_Type)dl_to_pjrt[dtype.code][k];
        return PJDL_OK;
    }
    char name[PJDL_DTYPE_NAME_MAX];
    return pjdl__fail(PJDL_UNIMPLEMENTED, "DLPack dtype %s has no PJRT element type",
                      pjdl__dl_dtype_format(dtype, name));
}
