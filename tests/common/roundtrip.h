/* Round trips host -> PJRT -> DLPack -> PJRT -> host (tests/lib/test_roundtrip.c,
 * on the reference plugin and on XLA's CPU plugin: the same assertions hold
 * on both). */
#ifndef PJDL_TESTS_ROUNDTRIP_H_
#define PJDL_TESTS_ROUNDTRIP_H_

#include "lib_util.h"

static inline void lib_fill(unsigned char *p, size_t n, PJRT_Buffer_Type type) {
    for (size_t i = 0; i < n; i++)
        p[i] = type == PJRT_Buffer_Type_PRED ? (unsigned char)(i & 1) : (unsigned char)(i * 7 + 3);
}

/* Exports `b` (versioned or legacy), checks the tensor against the buffer
 * and `want`, imports it back into `client` and checks that the result is a
 * view of the same memory holding the same bytes. */
static inline void lib_round_trip(pjdl_client *client, pjdl_buffer *b, const unsigned char *want,
                                  size_t nbytes, bool legacy) {
    DLManagedTensorVersioned *v = NULL;
    DLManagedTensor *l = NULL;
    const DLTensor *t;
    if (legacy) {
        LIB_OK(pjdl_buffer_export_legacy(b, NULL, &l));
        t = &l->dl_tensor;
    } else {
        LIB_OK(pjdl_buffer_export(b, NULL, &v));
        assert_int_equal(v->version.major, DLPACK_MAJOR_VERSION);
        assert_int_equal(v->flags & DLPACK_FLAG_BITMASK_IS_COPIED, 0);
        t = &v->dl_tensor;
    }
    assert_int_equal(t->device.device_type, LIB_EXPORT_DEVICE_TYPE);
    assert_int_equal((size_t)t->ndim, pjdl_buffer_ndim(b));
    DLDataType dt;
    LIB_OK(pjdl_dtype_from_pjrt(pjdl_buffer_type(b), &dt));
    assert_int_equal(t->dtype.code, dt.code);
    assert_int_equal(t->dtype.bits, dt.bits);
    for (int i = 0; i < t->ndim; i++)
        assert_int_equal(t->shape[i], pjdl_buffer_dims(b)[i]);
    if (nbytes > 0) {
        void *own = NULL;
        LIB_OK(pjdl_buffer_data_pointer(b, &own));
        assert_ptr_equal((char *)t->data + t->byte_offset, own);
        assert_memory_equal((char *)t->data + t->byte_offset, want, nbytes);
    }
    pjdl_buffer *back = NULL;
    if (legacy)
        LIB_OK(pjdl_import_legacy(&client, 1, l, NULL, &back));
    else
        LIB_OK(pjdl_import(&client, 1, v, NULL, &back));
    assert_int_equal(pjdl_buffer_type(back), pjdl_buffer_type(b));
    unsigned char *got = malloc(nbytes + 1);
    LIB_OK(pjdl_buffer_to_host(back, got, nbytes));
    if (nbytes > 0) {
        assert_memory_equal(got, want, nbytes);
        void *ptr = NULL;
        LIB_OK(pjdl_buffer_data_pointer(back, &ptr));
        assert_ptr_equal(ptr, (char *)t->data + t->byte_offset); /* a view, not a copy */
    }
    free(got);
    pjdl_buffer_release(back); /* runs the export's deleter */
}

/* Every element type the plugin accepts, both ways; a type DLPack cannot
 * express must be refused by the export, naming it. Returns how many types
 * made the round trip. */
static inline int lib_round_trip_every_type(pjdl_client *client) {
    const int64_t dims[] = {3, 5};
    int tested = 0;
    for (int ty = PJRT_Buffer_Type_PRED; ty <= PJRT_Buffer_Type_F6E3M2FN; ty++) {
        PJRT_Buffer_Type type = (PJRT_Buffer_Type)ty;
        size_t es = pjdl_pjrt_type_size(type);
        DLDataType dt;
        bool expressible = pjdl_dtype_from_pjrt(type, &dt) == PJDL_OK;
        if (es == 0 || type == PJRT_Buffer_Type_TOKEN) {
            /* Sub-byte types are expressible; lib_round_trip_sub_byte tests them. */
            assert_true(expressible == (type != PJRT_Buffer_Type_TOKEN));
            continue;
        }
        size_t nbytes = 15 * es;
        unsigned char *data = malloc(nbytes);
        lib_fill(data, nbytes, type);
        pjdl_buffer *b = NULL;
        pjdl_code code = pjdl_buffer_from_host(client, data, type, dims, 2, NULL, NULL, &b);
        if (code != PJDL_OK) {
            print_message("type %s: plugin refuses: %s\n", pjdl_pjrt_type_name(type),
                          pjdl_last_error());
            free(data);
            continue;
        }
        if (expressible) {
            lib_round_trip(client, b, data, nbytes, false);
            lib_round_trip(client, b, data, nbytes, true);
            tested++;
        } else {
            DLManagedTensorVersioned *v = NULL;
            LIB_FAILS(PJDL_UNIMPLEMENTED, pjdl_buffer_export(b, NULL, &v));
            assert_non_null(strstr(pjdl_last_error(), pjdl_pjrt_type_name(type)));
        }
        pjdl_buffer_release(b);
        free(data);
    }
    return tested;
}

/* A cmocka test on a lib_fixture: a 0-d f32 and a [4,0,3] s32 buffer, both
 * ways. */
static inline void lib_round_trip_scalar_and_empty(void **state) {
    pjdl_client *client = ((lib_fixture *)*state)->client;
    float x = 42.5f;
    pjdl_buffer *b = NULL;
    LIB_OK(pjdl_buffer_from_host(client, &x, PJRT_Buffer_Type_F32, NULL, 0, NULL, NULL, &b));
    assert_int_equal(pjdl_buffer_ndim(b), 0);
    assert_int_equal(pjdl_buffer_size_bytes(b), 4);
    lib_round_trip(client, b, (unsigned char *)&x, 4, false);
    lib_round_trip(client, b, (unsigned char *)&x, 4, true);
    pjdl_buffer_release(b);

    const int64_t dims[] = {4, 0, 3};
    LIB_OK(pjdl_buffer_from_host(client, NULL, PJRT_Buffer_Type_S32, dims, 3, NULL, NULL, &b));
    assert_int_equal(pjdl_buffer_size_bytes(b), 0);
    lib_round_trip(client, b, NULL, 0, false);
    lib_round_trip(client, b, NULL, 0, true);
    pjdl_buffer_release(b);
}

/* ------------------------------------------------------- sub-byte types */

/* The sub-byte types, their DLPack dtype and whether PJRT keeps them packed
 * (1, 2 and 4 bits; the 6-bit floats take a byte each). */
static const struct {
    PJRT_Buffer_Type type;
    uint8_t code, bits;
    bool packed;
} lib_sub_byte_types[] = {
    {PJRT_Buffer_Type_S4, kDLInt, 4, true},
    {PJRT_Buffer_Type_U4, kDLUInt, 4, true},
    {PJRT_Buffer_Type_S2, kDLInt, 2, true},
    {PJRT_Buffer_Type_U2, kDLUInt, 2, true},
    {PJRT_Buffer_Type_S1, kDLInt, 1, true},
    {PJRT_Buffer_Type_U1, kDLUInt, 1, true},
    {PJRT_Buffer_Type_F4E2M1FN, kDLFloat4_e2m1fn, 4, true},
    {PJRT_Buffer_Type_F6E2M3FN, kDLFloat6_e2m3fn, 6, false},
    {PJRT_Buffer_Type_F6E3M2FN, kDLFloat6_e3m2fn, 6, false},
};

#define LIB_SUB_N 13 /* odd, and more than a byte of 1-bit elements */

/* Element i of `data` as DLPack lays it out: packed little-bit-endian, or
 * one per byte in the low bits. Written here independently of the
 * library's packing code. */
static inline unsigned lib_sub_get(const void *data, size_t i, unsigned bits, bool packed) {
    const unsigned char *p = data;
    unsigned mask = (1u << bits) - 1;
    if (!packed)
        return p[i] & mask;
    size_t bit = i * bits;
    unsigned word = p[bit / 8] | (bit % 8 + bits > 8 ? (unsigned)p[bit / 8 + 1] << 8 : 0u);
    return (word >> (bit % 8)) & mask;
}

static inline void lib_sub_expect(const void *data, const unsigned char *want, unsigned bits,
                                  bool packed) {
    for (size_t i = 0; i < LIB_SUB_N; i++)
        assert_int_equal(lib_sub_get(data, i, bits, packed), want[i]);
}

/* The buffer's values read back through the library: PJRT's host form. */
static inline void lib_sub_expect_buffer(pjdl_buffer *b, const unsigned char *want, unsigned bits) {
    unsigned char got[LIB_SUB_N];
    assert_int_equal(pjdl_buffer_size_bytes(b), LIB_SUB_N);
    LIB_OK(pjdl_buffer_to_host(b, got, sizeof got));
    lib_sub_expect(got, want, bits, false);
}

/* Zero-copy exports (versioned, legacy) and their import back as views; a
 * legacy export of padded memory is a packed host copy instead. */
static inline void lib_sub_zero_copy(pjdl_client *client, pjdl_buffer *b, size_t k,
                                     const unsigned char *want) {
    unsigned bits = lib_sub_byte_types[k].bits;
    bool packed = lib_sub_byte_types[k].packed;
    void *ptr = NULL;
    LIB_OK(pjdl_buffer_data_pointer(b, &ptr));
    DLManagedTensorVersioned *v = NULL;
    LIB_OK(pjdl_buffer_export(b, NULL, &v));
    assert_int_equal(v->dl_tensor.dtype.code, lib_sub_byte_types[k].code);
    assert_int_equal(v->dl_tensor.dtype.bits, bits);
    assert_ptr_equal(v->dl_tensor.data, ptr);
    assert_int_equal(v->flags, packed ? 0 : DLPACK_FLAG_BITMASK_IS_SUBBYTE_TYPE_PADDED);
    lib_sub_expect(v->dl_tensor.data, want, bits, packed);
    pjdl_import_options never = lib_import_options(PJDL_COPY_NEVER);
    pjdl_buffer *back = NULL;
    LIB_OK(pjdl_import(&client, 1, v, &never, &back));
    void *back_ptr = NULL;
    LIB_OK(pjdl_buffer_data_pointer(back, &back_ptr));
    assert_ptr_equal(back_ptr, ptr);
    lib_sub_expect_buffer(back, want, bits);
    pjdl_buffer_release(back);

    DLManagedTensor *l = NULL;
    LIB_OK(pjdl_buffer_export_legacy(b, NULL, &l));
    assert_true(packed == (l->dl_tensor.data == ptr));
    lib_sub_expect(l->dl_tensor.data, want, bits, true); /* legacy: always packed */
    LIB_OK(pjdl_import_legacy(&client, 1, l, NULL, &back));
    lib_sub_expect_buffer(back, want, bits);
    pjdl_buffer_release(back);
}

/* A host copy: one element per byte, flagged padded; imported back (a copy
 * where PJRT packs the type). */
static inline void lib_sub_host_copy(pjdl_client *client, pjdl_buffer *b, size_t k,
                                     const unsigned char *want) {
    unsigned bits = lib_sub_byte_types[k].bits;
    pjdl_export_options o = PJDL_EXPORT_OPTIONS_INIT;
    o.copy = PJDL_COPY_ALWAYS;
    DLManagedTensorVersioned *v = NULL;
    LIB_OK(pjdl_buffer_export(b, &o, &v));
    assert_int_equal(v->flags,
                     DLPACK_FLAG_BITMASK_IS_COPIED | DLPACK_FLAG_BITMASK_IS_SUBBYTE_TYPE_PADDED);
    lib_sub_expect(v->dl_tensor.data, want, bits, false);
    pjdl_buffer *back = NULL;
    if (lib_sub_byte_types[k].packed) { /* padded memory cannot be a packed buffer */
        pjdl_import_options never = lib_import_options(PJDL_COPY_NEVER);
        LIB_FAILS(PJDL_INVALID_ARGUMENT, pjdl_import(&client, 1, v, &never, &back));
        assert_non_null(strstr(pjdl_last_error(), "padded"));
    }
    LIB_OK(pjdl_import(&client, 1, v, NULL, &back));
    lib_sub_expect_buffer(back, want, bits);
    pjdl_buffer_release(back);
}

/* A packed 3x5 tensor of the producer's making, read through transposed
 * strides (a 5x3 view): imported by unpacking into a copy. */
static inline void lib_sub_import_strided(pjdl_client *client, size_t k) {
    unsigned bits = lib_sub_byte_types[k].bits, mask = (1u << bits) - 1;
    unsigned char packed[16] = {0}, want[15];
    for (size_t i = 0; i < 15; i++) { /* element (r, c) of the 3x5 at r * 5 + c */
        unsigned v = (unsigned)(i * 3 + 1) & mask;
        size_t bit = i * bits;
        packed[bit / 8] |= (unsigned char)(v << (bit % 8));
        if (bit % 8 + bits > 8)
            packed[bit / 8 + 1] |= (unsigned char)(v >> (8 - bit % 8));
    }
    for (size_t c = 0; c < 5; c++) /* the 5x3 transpose, row-major */
        for (size_t r = 0; r < 3; r++)
            want[c * 3 + r] = (unsigned char)((r * 5 + c) * 3 + 1) & mask;
    const int64_t shape[2] = {5, 3}, strides[2] = {1, 5};
    lib_tensor t;
    lib_tensor_init(&t, packed, lib_dtype(lib_sub_byte_types[k].code, (uint8_t)bits), 2, shape,
                    strides);
    pjdl_buffer *b = NULL;
    LIB_OK(pjdl_import(&client, 1, &t.v, NULL, &b));
    unsigned char got[15];
    LIB_OK(pjdl_buffer_to_host(b, got, sizeof got));
    assert_memory_equal(got, want, sizeof want);
    pjdl_buffer_release(b);
    assert_int_equal(lib_wait_count(&t.deleted, 1), 1);
}

/* Every sub-byte type both ways, values checked element by element. */
static inline void lib_round_trip_sub_byte(pjdl_client *client) {
    for (size_t k = 0; k < sizeof lib_sub_byte_types / sizeof lib_sub_byte_types[0]; k++) {
        unsigned bits = lib_sub_byte_types[k].bits;
        unsigned char host[LIB_SUB_N];
        for (size_t i = 0; i < LIB_SUB_N; i++)
            host[i] = (unsigned char)((i * 5 + 3) & ((1u << bits) - 1));
        const int64_t dims[1] = {LIB_SUB_N};
        pjdl_buffer *b = NULL;
        if (!lib_has_type(lib_sub_byte_types[k].type)) {
            /* Newer than the plugin's ABI: not handed to it (older XLA
             * plugins crash on one), named in the error. */
            LIB_FAILS(PJDL_UNIMPLEMENTED,
                      pjdl_buffer_from_host(client, host, lib_sub_byte_types[k].type, dims, 1, NULL,
                                            NULL, &b));
            assert_non_null(
                strstr(pjdl_last_error(), pjdl_pjrt_type_name(lib_sub_byte_types[k].type)));
            continue;
        }
        LIB_OK(pjdl_buffer_from_host(client, host, lib_sub_byte_types[k].type, dims, 1, NULL, NULL,
                                     &b));
        lib_sub_expect_buffer(b, host, bits);
        lib_sub_zero_copy(client, b, k, host);
        lib_sub_host_copy(client, b, k, host);
        lib_sub_import_strided(client, k);
        pjdl_buffer_release(b);
    }
}

#endif
