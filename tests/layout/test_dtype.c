/* PJRT element types <-> DLPack dtypes, for every type. */
#include "layout_test.h"

#include "dtype.h"

/* The expected mapping, written out independently of dtype.c. */
static const struct {
    PJRT_Buffer_Type type;
    const char *name;
    size_t size;
    int dl_code; /* -1: not expressible */
    int dl_bits;
} expected[] = {
    {PJRT_Buffer_Type_INVALID, "invalid", 0, -1, 0},
    {PJRT_Buffer_Type_PRED, "pred", 1, kDLBool, 8},
    {PJRT_Buffer_Type_S8, "s8", 1, kDLInt, 8},
    {PJRT_Buffer_Type_S16, "s16", 2, kDLInt, 16},
    {PJRT_Buffer_Type_S32, "s32", 4, kDLInt, 32},
    {PJRT_Buffer_Type_S64, "s64", 8, kDLInt, 64},
    {PJRT_Buffer_Type_U8, "u8", 1, kDLUInt, 8},
    {PJRT_Buffer_Type_U16, "u16", 2, kDLUInt, 16},
    {PJRT_Buffer_Type_U32, "u32", 4, kDLUInt, 32},
    {PJRT_Buffer_Type_U64, "u64", 8, kDLUInt, 64},
    {PJRT_Buffer_Type_F16, "f16", 2, kDLFloat, 16},
    {PJRT_Buffer_Type_F32, "f32", 4, kDLFloat, 32},
    {PJRT_Buffer_Type_F64, "f64", 8, kDLFloat, 64},
    {PJRT_Buffer_Type_BF16, "bf16", 2, kDLBfloat, 16},
    {PJRT_Buffer_Type_C64, "c64", 8, kDLComplex, 64},
    {PJRT_Buffer_Type_C128, "c128", 16, kDLComplex, 128},
    {PJRT_Buffer_Type_F8E5M2, "f8e5m2", 1, kDLFloat8_e5m2, 8},
    {PJRT_Buffer_Type_F8E4M3FN, "f8e4m3fn", 1, kDLFloat8_e4m3fn, 8},
    {PJRT_Buffer_Type_F8E4M3B11FNUZ, "f8e4m3b11fnuz", 1, kDLFloat8_e4m3b11fnuz, 8},
    {PJRT_Buffer_Type_F8E5M2FNUZ, "f8e5m2fnuz", 1, kDLFloat8_e5m2fnuz, 8},
    {PJRT_Buffer_Type_F8E4M3FNUZ, "f8e4m3fnuz", 1, kDLFloat8_e4m3fnuz, 8},
    {PJRT_Buffer_Type_S4, "s4", 0, kDLInt, 4},
    {PJRT_Buffer_Type_U4, "u4", 0, kDLUInt, 4},
    {PJRT_Buffer_Type_TOKEN, "token", 0, -1, 0},
    {PJRT_Buffer_Type_S2, "s2", 0, kDLInt, 2},
    {PJRT_Buffer_Type_U2, "u2", 0, kDLUInt, 2},
    {PJRT_Buffer_Type_F8E4M3, "f8e4m3", 1, kDLFloat8_e4m3, 8},
    {PJRT_Buffer_Type_F8E3M4, "f8e3m4", 1, kDLFloat8_e3m4, 8},
    {PJRT_Buffer_Type_F8E8M0FNU, "f8e8m0fnu", 1, kDLFloat8_e8m0fnu, 8},
    {PJRT_Buffer_Type_F4E2M1FN, "f4e2m1fn", 0, kDLFloat4_e2m1fn, 4},
    {PJRT_Buffer_Type_S1, "s1", 0, kDLInt, 1},
    {PJRT_Buffer_Type_U1, "u1", 0, kDLUInt, 1},
    {PJRT_Buffer_Type_F6E2M3FN, "f6e2m3fn", 0, kDLFloat6_e2m3fn, 6},
    {PJRT_Buffer_Type_F6E3M2FN, "f6e3m2fn", 0, kDLFloat6_e3m2fn, 6},
};
#define NUM_EXPECTED (sizeof expected / sizeof expected[0])

static void test_every_pjrt_type(void **state) {
    (void)state;
    int mapped = 0;
    for (size_t i = 0; i < NUM_EXPECTED; i++) {
        PJRT_Buffer_Type type = expected[i].type;
        assert_int_equal((size_t)type, i); /* the table covers every value */
        assert_string_equal(pjdl_pjrt_type_name(type), expected[i].name);
        assert_int_equal(pjdl_pjrt_type_size(type), expected[i].size);
        DLDataType dt = {0xee, 0xee, 0xeeee};
        if (expected[i].dl_code < 0) {
            /* Unsupported types fail naming the type and leave out alone. */
            assert_code(pjdl_dtype_from_pjrt(type, &dt), PJDL_UNIMPLEMENTED, expected[i].name);
            assert_int_equal(dt.code, 0xee);
            continue;
        }
        assert_code(pjdl_dtype_from_pjrt(type, &dt), PJDL_OK, NULL);
        assert_int_equal(dt.code, expected[i].dl_code);
        assert_int_equal(dt.bits, expected[i].dl_bits);
        assert_int_equal(dt.lanes, 1);
        PJRT_Buffer_Type back = PJRT_Buffer_Type_INVALID;
        assert_code(pjdl_dtype_to_pjrt(dt, &back), PJDL_OK, NULL);
        assert_int_equal(back, type);
        mapped++;
    }
    assert_int_equal(mapped, 32); /* all but INVALID and TOKEN */
}

static void test_sub_byte_messages(void **state) {
    (void)state;
    DLDataType dt;
    assert_code(pjdl_dtype_from_pjrt(PJRT_Buffer_Type_S4, &dt), PJDL_OK, NULL);
    assert_int_equal(dt.bits, 4); /* sub-byte types are exchanged */
    assert_code(pjdl_dtype_from_pjrt(PJRT_Buffer_Type_TOKEN, &dt), PJDL_UNIMPLEMENTED,
                "token has no data");
    assert_code(pjdl_dtype_from_pjrt((PJRT_Buffer_Type)99, &dt), PJDL_UNIMPLEMENTED,
                "PJRT element type 99 is unknown");
    assert_string_equal(pjdl_pjrt_type_name((PJRT_Buffer_Type)99), "invalid");
    assert_string_equal(pjdl_pjrt_type_name((PJRT_Buffer_Type)-1), "invalid");
    assert_int_equal(pjdl_pjrt_type_size((PJRT_Buffer_Type)99), 0);
    assert_code(pjdl_dtype_from_pjrt(PJRT_Buffer_Type_F32, NULL), PJDL_INVALID_ARGUMENT,
                "out is NULL");
}

static void test_dlpack_to_pjrt(void **state) {
    (void)state;
    PJRT_Buffer_Type t = PJRT_Buffer_Type_S8;
    /* Invalid dtypes. */
    assert_code(pjdl_dtype_to_pjrt((DLDataType){200, 8, 1}, &t), PJDL_INVALID_ARGUMENT,
                "dtype.code is 200");
    assert_code(pjdl_dtype_to_pjrt((DLDataType){kDLFloat, 0, 1}, &t), PJDL_INVALID_ARGUMENT,
                "bits is 0");
    assert_code(pjdl_dtype_to_pjrt((DLDataType){kDLFloat, 32, 0}, &t), PJDL_INVALID_ARGUMENT,
                "lanes is 0");
    assert_code(pjdl_dtype_to_pjrt((DLDataType){kDLBool, 1, 1}, &t), PJDL_INVALID_ARGUMENT,
                "must be 8");
    /* Valid but not supported. */
    assert_code(pjdl_dtype_to_pjrt((DLDataType){kDLFloat, 32, 2}, &t), PJDL_UNIMPLEMENTED,
                "float32x2 has 2 lanes");
    assert_code(pjdl_dtype_to_pjrt((DLDataType){kDLInt, 4, 2}, &t), PJDL_UNIMPLEMENTED,
                "int4x2 has 2 lanes");
    assert_code(pjdl_dtype_to_pjrt((DLDataType){kDLFloat, 4, 1}, &t), PJDL_UNIMPLEMENTED,
                "DLPack dtype float4 has no PJRT element type");
    assert_code(pjdl_dtype_to_pjrt((DLDataType){kDLInt, 3, 1}, &t), PJDL_UNIMPLEMENTED, "int3");
    assert_code(pjdl_dtype_to_pjrt((DLDataType){kDLFloat, 128, 1}, &t), PJDL_UNIMPLEMENTED,
                "DLPack dtype float128 has no PJRT element type");
    assert_code(pjdl_dtype_to_pjrt((DLDataType){kDLBfloat, 32, 1}, &t), PJDL_UNIMPLEMENTED,
                "bfloat32");
    assert_code(pjdl_dtype_to_pjrt((DLDataType){kDLOpaqueHandle, 64, 1}, &t), PJDL_UNIMPLEMENTED,
                "handle64");
    assert_code(pjdl_dtype_to_pjrt((DLDataType){kDLComplex, 32, 1}, &t), PJDL_UNIMPLEMENTED,
                "complex32");
    /* bfloat complex (DLPack main) is a valid code no PJRT type has. */
    assert_code(pjdl_dtype_to_pjrt((DLDataType){kDLBcomplex, 32, 1}, &t), PJDL_UNIMPLEMENTED,
                "DLPack dtype bcomplex32 has no PJRT element type");
    assert_int_equal(t, PJRT_Buffer_Type_S8); /* untouched by failures */
    assert_code(pjdl_dtype_to_pjrt((DLDataType){kDLFloat, 32, 1}, NULL), PJDL_INVALID_ARGUMENT,
                "out is NULL");
    /* Success clears an earlier message. */
    assert_code(pjdl_dtype_to_pjrt((DLDataType){kDLFloat, 16, 1}, &t), PJDL_OK, NULL);
    assert_int_equal(t, PJRT_Buffer_Type_F16);
    assert_string_equal(pjdl_last_error(), "");
    assert_code(pjdl_dtype_to_pjrt((DLDataType){kDLFloat4_e2m1fn, 4, 1}, &t), PJDL_OK, NULL);
    assert_int_equal(t, PJRT_Buffer_Type_F4E2M1FN);
    assert_code(pjdl_dtype_to_pjrt((DLDataType){kDLUInt, 2, 1}, &t), PJDL_OK, NULL);
    assert_int_equal(t, PJRT_Buffer_Type_U2);
}

/* Every DLPack code and width 0..255 maps consistently: what maps to PJRT
 * maps back to itself. */
static void test_every_dlpack_dtype(void **state) {
    (void)state;
    int ok = 0;
    for (int code = 0; code < 256; code++)
        for (int bits = 0; bits < 256; bits++) {
            DLDataType dt = {(uint8_t)code, (uint8_t)bits, 1};
            PJRT_Buffer_Type t;
            pjdl_code c = pjdl_dtype_to_pjrt(dt, &t);
            if (c != PJDL_OK) {
                assert_true(c == PJDL_INVALID_ARGUMENT || c == PJDL_UNIMPLEMENTED);
                assert_true(strlen(pjdl_last_error()) > 0);
                continue;
            }
            DLDataType back;
            assert_code(pjdl_dtype_from_pjrt(t, &back), PJDL_OK, NULL);
            assert_int_equal(back.code, code);
            assert_int_equal(back.bits, bits);
            ok++;
        }
    assert_int_equal(ok, 32);
}

static void test_format(void **state) {
    (void)state;
    char buf[PJDL_DTYPE_NAME_MAX];
    assert_string_equal(pjdl__dl_dtype_format((DLDataType){kDLFloat, 32, 1}, buf), "float32");
    assert_string_equal(pjdl__dl_dtype_format((DLDataType){kDLBool, 8, 1}, buf), "bool");
    assert_string_equal(pjdl__dl_dtype_format((DLDataType){kDLBfloat, 16, 1}, buf), "bfloat16");
    assert_string_equal(pjdl__dl_dtype_format((DLDataType){kDLFloat8_e4m3fn, 8, 1}, buf),
                        "float8_e4m3fn");
    assert_string_equal(pjdl__dl_dtype_format((DLDataType){kDLInt, 8, 16}, buf), "int8x16");
    assert_string_equal(pjdl__dl_dtype_format((DLDataType){99, 8, 1}, buf),
                        "dtype(code=99, bits=8, lanes=1)");
    assert_string_equal(pjdl__dl_dtype_format((DLDataType){255, 255, 65535}, buf),
                        "dtype(code=255, bits=255, lanes=65535)");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_pjrt_type), cmocka_unit_test(test_sub_byte_messages),
        cmocka_unit_test(test_dlpack_to_pjrt),  cmocka_unit_test(test_every_dlpack_dtype),
        cmocka_unit_test(test_format),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
