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
    assert_int_equal(t->device.device_type, kDLCPU);
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
            assert_false(expressible && es == 0 && type != PJRT_Buffer_Type_TOKEN && dt.bits < 8);
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

#endif
