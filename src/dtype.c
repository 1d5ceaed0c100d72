/* PJRT element types <-> DLPack dtypes. */
#include "dtype.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>

#include "element_type.h" /* common/: names and bits, shared with the plugin */
#include "error.h"

/* The DLPack type code of each PJRT element type DLPack can carry: every
 * type with data, sub-byte ones included (DLPack 1.1 sub-byte dtypes: int
 * and uint of 1, 2 and 4 bits, float4_e2m1fn, float6_*). Names and bits per
 * element (the DLPack bits too) are common/element_type.c's, shared with the
 * reference plugin. */
typedef struct {
    bool exchangeable;
    uint8_t code;
} dl_code_of_type;

#define DL(pjrt, code) [PJRT_Buffer_Type_##pjrt] = {true, code}
static const dl_code_of_type dl_codes[PJDL_ELEMENT_TYPE_COUNT] = {
    DL(PRED, kDLBool),
    DL(S8, kDLInt),
    DL(S16, kDLInt),
    DL(S32, kDLInt),
    DL(S64, kDLInt),
    DL(U8, kDLUInt),
    DL(U16, kDLUInt),
    DL(U32, kDLUInt),
    DL(U64, kDLUInt),
    DL(F16, kDLFloat),
    DL(F32, kDLFloat),
    DL(F64, kDLFloat),
    DL(BF16, kDLBfloat),
    DL(C64, kDLComplex),
    DL(C128, kDLComplex),
    DL(F8E5M2, kDLFloat8_e5m2),
    DL(F8E4M3FN, kDLFloat8_e4m3fn),
    DL(F8E4M3B11FNUZ, kDLFloat8_e4m3b11fnuz),
    DL(F8E5M2FNUZ, kDLFloat8_e5m2fnuz),
    DL(F8E4M3FNUZ, kDLFloat8_e4m3fnuz),
    DL(F8E4M3, kDLFloat8_e4m3),
    DL(F8E3M4, kDLFloat8_e3m4),
    DL(F8E8M0FNU, kDLFloat8_e8m0fnu),
    DL(S4, kDLInt),
    DL(U4, kDLUInt),
    DL(S2, kDLInt),
    DL(U2, kDLUInt),
    DL(S1, kDLInt),
    DL(U1, kDLUInt),
    DL(F4E2M1FN, kDLFloat4_e2m1fn),
    DL(F6E2M3FN, kDLFloat6_e2m3fn),
    DL(F6E3M2FN, kDLFloat6_e3m2fn),
};
#undef DL
_Static_assert(PJDL_ELEMENT_TYPE_COUNT <= 256, "dl_to_pjrt stores PJRT types in a byte");

const char *pjdl_pjrt_type_name(PJRT_Buffer_Type type) {
    const pjdl__element_type *info = pjdl__element_type_of(type);
    return info ? info->name : "invalid";
}

int pjdl_pjrt_type_minor(PJRT_Buffer_Type type) {
    const pjdl__element_type *info = pjdl__element_type_of(type);
    return info ? info->minor : -1;
}

size_t pjdl_pjrt_type_size(PJRT_Buffer_Type type) {
    return pjdl__element_type_size(type);
}

pjdl_code pjdl_dtype_from_pjrt(PJRT_Buffer_Type type, DLDataType *out) {
    pjdl__clear_error();
    if (out == NULL)
        return pjdl__fail(PJDL_INVALID_ARGUMENT, "pjdl_dtype_from_pjrt: out is NULL");
    const pjdl__element_type *info = pjdl__element_type_of(type);
    if (info == NULL)
        return pjdl__fail(PJDL_UNIMPLEMENTED,
                          "PJRT element type %d is unknown to this library (newer plugin?)",
                          (int)type);
    if (!dl_codes[type].exchangeable)
        return pjdl__fail(PJDL_UNIMPLEMENTED,
                          "PJRT element type %s has no data and no DLPack equivalent", info->name);
    out->code = dl_codes[type].code;
    out->bits = (uint8_t)info->bits;
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
        [kDLBcomplex] = {"bcomplex", 0}, /* DLPack main: no PJRT type has it */
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
    if (dtype.bits % 8 != 0 && dtype.bits > 8)
        return pjdl__fail(PJDL_INVALID_ARGUMENT,
                          "dtype.bits is %u for %s: must be a multiple of 8 (or below 8)",
                          (unsigned)dtype.bits, info->name);
    if (dtype.lanes != 1)
        return pjdl__fail(PJDL_UNIMPLEMENTED,
                          "dtype %s has %u lanes: vector types are not supported (lanes must "
                          "be 1)",
                          pjdl__dl_dtype_format(dtype, name), (unsigned)dtype.lanes);
    *elem_size = dtype.bits < 8 ? 1 : dtype.bits / 8; /* sub-byte: one per byte, padded */
    return PJDL_OK;
}

bool pjdl__dl_dtype_whole_bytes(DLDataType dtype) {
    const dl_code_info *info = dl_code(dtype.code);
    return info != NULL && dtype.lanes == 1 && dtype.bits >= 8 && dtype.bits % 8 == 0 &&
           (info->fixed_bits == 0 || dtype.bits == info->fixed_bits);
}

pjdl_code pjdl_dtype_to_pjrt(DLDataType dtype, PJRT_Buffer_Type *out) {
    pjdl__clear_error();
    if (out == NULL)
        return pjdl__fail(PJDL_INVALID_ARGUMENT, "pjdl_dtype_to_pjrt: out is NULL");
    size_t elem_size;
    PJDL_TRY(pjdl__dl_dtype_check(dtype, &elem_size));
    return pjdl__dtype_to_pjrt_checked(dtype, out);
}

/* dl_codes inverted: the PJRT type of (DLPack code, bits / 8) for whole
 * bytes up to 128 bits, 0 (INVALID) where there is none. Built once from
 * the table above. */
#define DL_CODES 32
#define DL_MAX_BYTES 16 /* 128 bits */
static uint8_t dl_to_pjrt[DL_CODES][DL_MAX_BYTES + 1];
static pthread_once_t dl_to_pjrt_once = PTHREAD_ONCE_INIT;
/* Set once the table is built: the library's constructor builds it, so
 * that an import tests a flag instead of calling pthread_once (callgrind:
 * ~10 instructions of every import); a call made before the constructor
 * ran (another object's constructor) still builds it once. */
static atomic_bool dl_to_pjrt_built;

static void dl_to_pjrt_build(void) {
    for (unsigned t = 0; t < PJDL_ELEMENT_TYPE_COUNT; t++) {
        const pjdl__element_type *info = pjdl__element_type_of((PJRT_Buffer_Type)t);
        unsigned bits = info ? info->bits : 0;
        if (dl_codes[t].exchangeable && dl_codes[t].code < DL_CODES && bits >= 8 && bits % 8 == 0 &&
            bits / 8 <= DL_MAX_BYTES)
            dl_to_pjrt[dl_codes[t].code][bits / 8] = (uint8_t)t;
    }
    atomic_store_explicit(&dl_to_pjrt_built, true, memory_order_release);
}

__attribute__((constructor)) static void dl_to_pjrt_init(void) {
    pthread_once(&dl_to_pjrt_once, dl_to_pjrt_build);
}

/* The sub-byte PJRT type of a (code, bits < 8), INVALID if none: a search
 * of the few sub-byte rows. */
static PJRT_Buffer_Type sub_byte_type(DLDataType dtype) {
    for (unsigned t = 0; t < PJDL_ELEMENT_TYPE_COUNT; t++) {
        const pjdl__element_type *info = pjdl__element_type_of((PJRT_Buffer_Type)t);
        if (info != NULL && info->bits == dtype.bits && dl_codes[t].exchangeable &&
            dl_codes[t].code == dtype.code)
            return (PJRT_Buffer_Type)t;
    }
    return PJRT_Buffer_Type_INVALID;
}

static inline bool whole_lookup(DLDataType dtype, PJRT_Buffer_Type *out) {
    unsigned bits = dtype.bits;
    if (dtype.lanes != 1 || dtype.code >= DL_CODES || bits % 8 != 0 || bits / 8 > DL_MAX_BYTES)
        return false;
    uint8_t t = dl_to_pjrt[dtype.code][bits / 8];
    if (t == 0)
        return false;
    *out = (PJRT_Buffer_Type)t;
    return true;
}

/* The first lookup before the constructor ran: out of line, so that the
 * common path saves no registers around a call. */
__attribute__((noinline, cold)) static bool whole_first(DLDataType dtype, PJRT_Buffer_Type *out) {
    dl_to_pjrt_init();
    return whole_lookup(dtype, out);
}

bool pjdl__dtype_to_pjrt_whole(DLDataType dtype, PJRT_Buffer_Type *out) {
    if (!atomic_load_explicit(&dl_to_pjrt_built, memory_order_acquire))
        return whole_first(dtype, out);
    return whole_lookup(dtype, out);
}

pjdl_code pjdl__dtype_to_pjrt_checked(DLDataType dtype, PJRT_Buffer_Type *out) {
    if (pjdl__dtype_to_pjrt_whole(dtype, out))
        return PJDL_OK;
    if (dtype.bits < 8 && sub_byte_type(dtype) != PJRT_Buffer_Type_INVALID) {
        *out = sub_byte_type(dtype);
        return PJDL_OK;
    }
    char name[PJDL_DTYPE_NAME_MAX];
    return pjdl__fail(PJDL_UNIMPLEMENTED, "DLPack dtype %s has no PJRT element type",
                      pjdl__dl_dtype_format(dtype, name));
}
