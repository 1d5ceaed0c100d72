/* DLPack 1.3, clause by clause (docs/conformance.md): what the library
 * writes as a producer and what it accepts or refuses as a consumer. Each
 * test names the clauses it pins; the table says which row. On both
 * plugins: the reference plugin's cpu and xpu clients, XLA's cpu client
 * (host data is 64-byte aligned: XLA views nothing less aligned). */
#include <pthread.h>

#include "lib_util.h"

typedef struct fixture {
    pjdl_plugin *plugin;
    pjdl_client *cpu;
    pjdl_client *xpu;
} fixture;

/* The plugin under test and its cpu client; the reference plugin's xpu
 * client too (XLA's CPU plugin has no device memory, f->xpu is NULL). */
static int setup(void **state) {
    fixture *f = calloc(1, sizeof *f);
    f->plugin = lib_load_selected();
    f->cpu = lib_cpu_client(f->plugin, 0);
    if (!lib_on_xla())
        f->xpu = lib_client(f->plugin, "xpu");
    *state = f;
    return 0;
}

static int teardown(void **state) {
    fixture *f = *state;
    pjdl_client_release(f->cpu);
    if (f->xpu != NULL)
        pjdl_client_release(f->xpu);
    pjdl_plugin_release(f->plugin);
    free(f);
    return 0;
}

static pjdl_buffer *upload(pjdl_client *c, const int64_t *dims, size_t ndim, pjdl_memory *mem) {
    static const float data[64] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11};
    pjdl_buffer *b = NULL;
    LIB_OK(pjdl_buffer_from_host(c, data, PJRT_Buffer_Type_F32, dims, ndim, NULL, mem, &b));
    return b;
}

/* The fields a zero-copy export must carry: version 1.3, no flags, strides
 * for every dimension (never NULL since 1.2), byte_offset 0 with data at
 * the first element, host memory with device_id 0. */
static void check_zero_copy(pjdl_buffer *b, const DLManagedTensorVersioned *t) {
    assert_int_equal(t->version.major, DLPACK_MAJOR_VERSION);
    assert_int_equal(t->version.minor, DLPACK_MINOR_VERSION);
    assert_int_equal(t->flags, 0);
    assert_non_null(t->deleter);
    const DLTensor *d = &t->dl_tensor;
    assert_int_equal(d->byte_offset, 0);
    void *ptr = NULL;
    LIB_OK(pjdl_buffer_data_pointer(b, &ptr));
    assert_ptr_equal(d->data, ptr);
    assert_int_equal(d->ndim, (int)pjdl_buffer_ndim(b));
    if (d->ndim > 0) {
        assert_non_null(d->shape);
        assert_non_null(d->strides);
        int64_t want = 1;
        for (int i = d->ndim; i-- > 0;) {
            assert_int_equal(d->shape[i], pjdl_buffer_dims(b)[i]);
            assert_int_equal(d->strides[i], want);
            want *= d->shape[i];
        }
    }
    DLDevice own;
    LIB_OK(pjdl_buffer_dl_device(b, &own));
    assert_int_equal(d->device.device_type, own.device_type);
    assert_int_equal(d->device.device_id, own.device_id);
    if (pjdl_dl_device_type_host_reachable(own.device_type))
        assert_int_equal(d->device.device_id, 0);
}

/* Producer: version, flags, strides, byte_offset, device ids; on both
 * platforms and every memory, for 2-d, 0-d and zero-size buffers. */
static void export_fields(void **state) {
    fixture *f = *state;
    const int64_t shapes[3][2] = {{2, 3}, {0, 0}, {0, 5}};
    const size_t ndims[3] = {2, 0, 2};
    pjdl_client *clients[2] = {f->cpu, f->xpu};
    for (int c = 0; c < (f->xpu ? 2 : 1); c++)
        for (size_t d = 0; d < pjdl_client_device_count(clients[c]); d++) {
            pjdl_device *dev = pjdl_client_device(clients[c], d);
            for (size_t m = 0; m < pjdl_device_memory_count(dev); m++)
                for (int s = 0; s < 3; s++) {
                    pjdl_buffer *b =
                        upload(clients[c], shapes[s], ndims[s], pjdl_device_memory(dev, m));
                    DLManagedTensorVersioned *t = NULL;
                    LIB_OK(pjdl_buffer_export(b, NULL, &t));
                    if (pjdl_buffer_size_bytes(b) > 0)
                        check_zero_copy(b, t);
                    else /* zero-size: any data pointer, the rest as above */
                        assert_int_equal(t->dl_tensor.byte_offset, 0);
                    t->deleter(t);
                    pjdl_buffer_release(b);
                }
        }
}

/* Producer: the legacy struct carries strides too, and byte_offset 0. */
static void export_legacy_fields(void **state) {
    fixture *f = *state;
    const int64_t dims[] = {4, 2};
    pjdl_buffer *b = upload(f->cpu, dims, 2, NULL);
    DLManagedTensor *t = NULL;
    LIB_OK(pjdl_buffer_export_legacy(b, NULL, &t));
    assert_non_null(t->dl_tensor.strides);
    assert_int_equal(t->dl_tensor.strides[0], 2);
    assert_int_equal(t->dl_tensor.strides[1], 1);
    assert_int_equal(t->dl_tensor.byte_offset, 0);
    assert_int_equal(t->dl_tensor.device.device_id, 0);
    t->deleter(t);
    pjdl_buffer_release(b);
}

/* Producer flags: IS_COPIED exactly when a copy was made for the consumer,
 * READ_ONLY exactly when asked; a copy is host memory aligned to 256 bytes
 * (what dlpack.h asks of data, free to honour in our own allocation). */
static void export_flags_and_copies(void **state) {
    fixture *f = *state;
    const int64_t dims[] = {3, 5};
    pjdl_client *clients[2] = {f->cpu, f->xpu};
    for (int c = 0; c < (f->xpu ? 2 : 1); c++) {
        pjdl_buffer *b = upload(clients[c], dims, 2, NULL);
        pjdl_export_options o = PJDL_EXPORT_OPTIONS_INIT;
        o.copy = PJDL_COPY_ALWAYS;
        DLManagedTensorVersioned *t = NULL;
        LIB_OK(pjdl_buffer_export(b, &o, &t));
        assert_int_equal(t->flags, DLPACK_FLAG_BITMASK_IS_COPIED);
        assert_int_equal((uintptr_t)t->dl_tensor.data % 256, 0);
        assert_int_equal(t->dl_tensor.byte_offset, 0);
        assert_int_equal(t->dl_tensor.device.device_type, kDLCPU);
        assert_int_equal(t->dl_tensor.device.device_id, 0);
        assert_non_null(t->dl_tensor.strides);
        assert_int_equal(t->dl_tensor.strides[0], 5);
        assert_int_equal(((float *)t->dl_tensor.data)[7], 7.0f);
        t->deleter(t);
        o = (pjdl_export_options)PJDL_EXPORT_OPTIONS_INIT;
        o.read_only = true;
        LIB_OK(pjdl_buffer_export(b, &o, &t));
        assert_int_equal(t->flags, DLPACK_FLAG_BITMASK_READ_ONLY);
        t->deleter(t);
        /* The legacy struct has no flags: read-only needs a copy. */
        DLManagedTensor *l = NULL;
        o.copy = PJDL_COPY_NEVER;
        LIB_FAILS(PJDL_INVALID_ARGUMENT, pjdl_buffer_export_legacy(b, &o, &l));
        pjdl_buffer_release(b);
    }
}

/* Consumer: another major version is refused before any other field is
 * read, and the deleter is left to the caller (who may call it: it is at a
 * fixed place in every major version). A newer minor is accepted. */
static void import_versions(void **state) {
    fixture *f = *state;
    static _Alignas(64) float data[4] = {1, 2, 3, 4};
    const int64_t shape[] = {4};
    const uint32_t majors[] = {0, 2, 255};
    for (size_t i = 0; i < 3; i++) {
        lib_tensor t;
        lib_tensor_init(&t, data, lib_dtype(kDLFloat, 32), 1, shape, NULL);
        t.v.version.major = majors[i];
        t.v.dl_tensor.ndim = -7; /* never looked at */
        pjdl_buffer *b = NULL;
        LIB_FAILS(PJDL_INVALID_ARGUMENT, pjdl_import(&f->cpu, 1, &t.v, NULL, &b));
        assert_non_null(strstr(pjdl_last_error(), "major version"));
        assert_int_equal(t.deleted, 0);
        t.v.deleter(&t.v);
        assert_int_equal(t.deleted, 1);
    }
    lib_tensor t;
    lib_tensor_init(&t, data, lib_dtype(kDLFloat, 32), 1, shape, NULL);
    t.v.version.minor = 99;
    pjdl_buffer *b = NULL;
    LIB_OK(pjdl_import(&f->cpu, 1, &t.v, NULL, &b));
    pjdl_buffer_release(b);
    assert_int_equal(lib_deleted(&t, 1), 1);
}

/* Consumer flags: an unknown flag bit (from a newer minor) is refused, as
 * the tensor cannot be understood; IS_COPIED changes nothing; a padded
 * sub-byte tensor is refused; none of these refusals calls the deleter. */
static void import_flags(void **state) {
    fixture *f = *state;
    static _Alignas(64) float data[4] = {1, 2, 3, 4};
    const int64_t shape[] = {4};
    for (int bit = 3; bit < 64; bit += 20) {
        lib_tensor t;
        lib_tensor_init(&t, data, lib_dtype(kDLFloat, 32), 1, shape, NULL);
        t.v.flags = (uint64_t)1 << bit;
        pjdl_buffer *b = NULL;
        LIB_FAILS(PJDL_INVALID_ARGUMENT, pjdl_import(&f->cpu, 1, &t.v, NULL, &b));
        assert_non_null(strstr(pjdl_last_error(), "flags"));
        assert_int_equal(t.deleted, 0);
    }
    lib_tensor t;
    lib_tensor_init(&t, data, lib_dtype(kDLFloat, 32), 1, shape, NULL);
    t.v.flags = DLPACK_FLAG_BITMASK_IS_COPIED;
    pjdl_buffer *b = NULL;
    LIB_OK(pjdl_import(&f->cpu, 1, &t.v, NULL, &b));
    void *ptr = NULL;
    LIB_OK(pjdl_buffer_data_pointer(b, &ptr));
    assert_ptr_equal(ptr, data); /* still a view */
    pjdl_buffer_release(b);
    assert_int_equal(lib_deleted(&t, 1), 1);

    /* The padded flag speaks of sub-byte elements only: a float32 tensor
     * carrying it is still viewed. */
    lib_tensor_init(&t, data, lib_dtype(kDLFloat, 32), 1, shape, NULL);
    t.v.flags = DLPACK_FLAG_BITMASK_IS_SUBBYTE_TYPE_PADDED;
    LIB_OK(pjdl_import(&f->cpu, 1, &t.v, NULL, &b));
    LIB_OK(pjdl_buffer_data_pointer(b, &ptr));
    assert_ptr_equal(ptr, data);
    pjdl_buffer_release(b);
    assert_int_equal(t.deleted, 1);
}

/* Consumer READ_ONLY: never viewed as a writable PJRT buffer; copied when
 * allowed (the copy is ours, so the producer's memory is never written),
 * refused with copy=NEVER. */
static void import_read_only(void **state) {
    fixture *f = *state;
    static _Alignas(64) float data[4] = {1, 2, 3, 4};
    const int64_t shape[] = {4};
    lib_tensor t;
    lib_tensor_init(&t, data, lib_dtype(kDLFloat, 32), 1, shape, NULL);
    t.v.flags = DLPACK_FLAG_BITMASK_READ_ONLY;
    pjdl_import_options o = lib_import_options(PJDL_COPY_NEVER);
    pjdl_buffer *b = NULL;
    LIB_FAILS(PJDL_INVALID_ARGUMENT, pjdl_import(&f->cpu, 1, &t.v, &o, &b));
    assert_int_equal(t.deleted, 0);
    LIB_OK(pjdl_import(&f->cpu, 1, &t.v, NULL, &b));
    void *ptr = NULL;
    LIB_OK(pjdl_buffer_data_pointer(b, &ptr));
    assert_ptr_not_equal(ptr, data);
    pjdl_buffer_release(b);
    assert_int_equal(lib_deleted(&t, 1), 1);
}

/* Consumer strides: NULL with ndim > 0 is accepted as compact row-major
 * (producers before 1.2 sent it, and the ecosystem still accepts it);
 * shape and strides may both be NULL for a 0-d tensor. */
static void import_null_strides(void **state) {
    fixture *f = *state;
    static _Alignas(64) float data[6] = {0, 1, 2, 3, 4, 5};
    const int64_t shape[] = {2, 3};
    lib_tensor t;
    lib_tensor_init(&t, data, lib_dtype(kDLFloat, 32), 2, shape, NULL);
    assert_null(t.v.dl_tensor.strides);
    pjdl_buffer *b = NULL;
    LIB_OK(pjdl_import(&f->cpu, 1, &t.v, NULL, &b));
    float back[6];
    LIB_OK(pjdl_buffer_to_host(b, back, sizeof back));
    assert_memory_equal(back, data, sizeof data);
    pjdl_buffer_release(b);
    assert_int_equal(lib_deleted(&t, 1), 1);

    lib_tensor_init(&t, data, lib_dtype(kDLFloat, 32), 0, shape, NULL);
    t.v.dl_tensor.shape = NULL;
    LIB_OK(pjdl_import(&f->cpu, 1, &t.v, NULL, &b));
    assert_int_equal(pjdl_buffer_ndim(b), 0);
    pjdl_buffer_release(b);
    assert_int_equal(lib_deleted(&t, 1), 1);
}

/* Consumer data and byte_offset: the first element is at data +
 * byte_offset whatever the alignment of data (the 256-byte rule is not
 * relied on); a zero-size tensor may have data NULL. */
static void import_byte_offset(void **state) {
    fixture *f = *state;
    float storage[16];
    for (int i = 0; i < 16; i++)
        storage[i] = (float)i;
    const int64_t shape[] = {4};
    for (uint64_t off = 0; off < 4; off++) {
        lib_tensor t;
        /* data itself misaligned by 1 to 3 elements, offset brings it back */
        lib_tensor_init(&t, storage + 3 - off, lib_dtype(kDLFloat, 32), 1, shape, NULL);
        t.v.dl_tensor.byte_offset = (off + 2) * sizeof(float);
        pjdl_buffer *b = NULL;
        LIB_OK(pjdl_import(&f->cpu, 1, &t.v, NULL, &b));
        float back[4];
        LIB_OK(pjdl_buffer_to_host(b, back, sizeof back));
        for (int i = 0; i < 4; i++)
            assert_true(back[i] == (float)(5 + i));
        pjdl_buffer_release(b);
        assert_int_equal(lib_deleted(&t, 1), 1);
    }
    const int64_t empty[] = {0, 4};
    lib_tensor t;
    lib_tensor_init(&t, NULL, lib_dtype(kDLFloat, 32), 2, empty, NULL);
    pjdl_buffer *b = NULL;
    LIB_OK(pjdl_import(&f->cpu, 1, &t.v, NULL, &b));
    assert_int_equal(pjdl_buffer_size_bytes(b), 0);
    pjdl_buffer_release(b);
    assert_int_equal(lib_deleted(&t, 1), 1);
}

/* Consumer dtypes: sub-byte codes with the wrong width must stop the
 * import (dlpack.h), the right width is imported (packed, the default),
 * vector lanes are refused. */
static void import_sub_byte_and_lanes(void **state) {
    fixture *f = *state;
    uint8_t data[8] = {0};
    const int64_t shape[] = {8};
    const struct {
        DLDataType dtype;
        pjdl_code code;
    } cases[] = {
        {{kDLFloat4_e2m1fn, 8, 1}, PJDL_INVALID_ARGUMENT},
        {{kDLFloat6_e2m3fn, 8, 1}, PJDL_INVALID_ARGUMENT},
        {{kDLFloat4_e2m1fn, 4, 1}, PJDL_OK},
        {{kDLFloat6_e3m2fn, 6, 1}, PJDL_OK},
        {{kDLFloat, 32, 4}, PJDL_UNIMPLEMENTED},
        {{kDLBool, 1, 1}, PJDL_INVALID_ARGUMENT},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        lib_tensor t;
        lib_tensor_init(&t, data, cases[i].dtype, 1, shape, NULL);
        pjdl_buffer *b = NULL;
        PJRT_Buffer_Type type;
        if (cases[i].code == PJDL_OK && pjdl_dtype_to_pjrt(cases[i].dtype, &type) == PJDL_OK &&
            !lib_has_type(type)) {
            /* Newer than the plugin's ABI (f6e3m2fn on 0.106 and 0.81). */
            LIB_FAILS(PJDL_UNIMPLEMENTED, pjdl_import(&f->cpu, 1, &t.v, NULL, &b));
            assert_int_equal(t.deleted, 0);
            continue;
        }
        if (cases[i].code == PJDL_OK) {
            LIB_OK(pjdl_import(&f->cpu, 1, &t.v, NULL, &b));
            pjdl_buffer_release(b);
            assert_int_equal(t.deleted, 1);
            continue;
        }
        LIB_FAILS(cases[i].code, pjdl_import(&f->cpu, 1, &t.v, NULL, &b));
        assert_int_equal(t.deleted, 0);
    }
}

/* PyTorch's float4_e2m1fn_x2: kDLFloat4_e2m1fn with 2 lanes, each byte two
 * fp4 values (first in the low bits), imported as a float4_e2m1fn buffer
 * whose last dimension is doubled; 0-d pairs and a strided last dimension
 * are refused. Other vector types stay refused (above). */
static void import_float4_pairs(void **state) {
    fixture *f = *state;
    uint8_t data[6] = {0x21, 0x43, 0xa9, 0x65, 0xf7, 0x0c};
    const int64_t shape[2] = {2, 3};
    DLDataType x2 = {kDLFloat4_e2m1fn, 4, 2};
    lib_tensor t;
    lib_tensor_init(&t, data, x2, 2, shape, NULL);
    pjdl_buffer *b = NULL;
    LIB_OK(pjdl_import(&f->cpu, 1, &t.v, NULL, &b));
    assert_int_equal(pjdl_buffer_type(b), PJRT_Buffer_Type_F4E2M1FN);
    assert_int_equal(pjdl_buffer_dims(b)[0], 2);
    assert_int_equal(pjdl_buffer_dims(b)[1], 6);
    uint8_t host[12];
    LIB_OK(pjdl_buffer_to_host(b, host, sizeof host));
    for (size_t i = 0; i < 12; i++)
        assert_int_equal(host[i], (data[i / 2] >> (i % 2 * 4)) & 15);
    pjdl_buffer_release(b);
    assert_int_equal(lib_deleted(&t, 1), 1);

    /* Two values in each byte: packed whatever the padded flag says (read
     * as padded, the 12 values would need 12 bytes of the 6 there are). */
    lib_tensor_init(&t, data, x2, 2, shape, NULL);
    t.v.flags |= DLPACK_FLAG_BITMASK_IS_SUBBYTE_TYPE_PADDED;
    LIB_OK(pjdl_import(&f->cpu, 1, &t.v, NULL, &b));
    memset(host, 0xff, sizeof host);
    LIB_OK(pjdl_buffer_to_host(b, host, sizeof host));
    for (size_t i = 0; i < 12; i++)
        assert_int_equal(host[i], (data[i / 2] >> (i % 2 * 4)) & 15);
    pjdl_buffer_release(b);
    assert_int_equal(lib_deleted(&t, 1), 1);

    /* A stride no element multiplies may be too large to double: extent 1,
     * or no elements (as for every tensor, pjdl__tensor_check). */
    const int64_t unit_shape[2] = {1, 3}, empty_shape[2] = {0, 3};
    const int64_t huge[2] = {INT64_C(1) << 62, 1};
    lib_tensor_init(&t, data, x2, 2, unit_shape, huge);
    LIB_OK(pjdl_import(&f->cpu, 1, &t.v, NULL, &b));
    assert_int_equal(pjdl_buffer_dims(b)[1], 6);
    LIB_OK(pjdl_buffer_to_host(b, host, 6));
    for (size_t i = 0; i < 6; i++)
        assert_int_equal(host[i], (data[i / 2] >> (i % 2 * 4)) & 15);
    pjdl_buffer_release(b);
    assert_int_equal(lib_deleted(&t, 1), 1);
    lib_tensor_init(&t, data, x2, 2, empty_shape, huge);
    LIB_OK(pjdl_import(&f->cpu, 1, &t.v, NULL, &b));
    pjdl_buffer_release(b);
    assert_int_equal(lib_deleted(&t, 1), 1);
    const int64_t wide[2] = {2, 3}; /* extent 2: the doubled stride must fit */
    lib_tensor_init(&t, data, x2, 2, wide, huge);
    LIB_FAILS(PJDL_UNIMPLEMENTED, pjdl_import(&f->cpu, 1, &t.v, NULL, &b));
    assert_int_equal(t.deleted, 0);

    const int64_t strided[2] = {3, 2};
    lib_tensor_init(&t, data, x2, 2, shape, strided);
    LIB_FAILS(PJDL_UNIMPLEMENTED, pjdl_import(&f->cpu, 1, &t.v, NULL, &b));
    assert_non_null(strstr(pjdl_last_error(), "must be contiguous"));
    lib_tensor_init(&t, data, x2, 0, shape, NULL);
    LIB_FAILS(PJDL_UNIMPLEMENTED, pjdl_import(&f->cpu, 1, &t.v, NULL, &b));
    assert_int_equal(t.deleted, 0);
}

/* Consumer deleters: a NULL deleter is allowed (nothing to release); the
 * legacy struct's deleter is called exactly once too. */
static void import_null_deleter(void **state) {
    fixture *f = *state;
    static _Alignas(64) float data[4] = {1, 2, 3, 4};
    const int64_t shape[] = {4};
    lib_tensor t;
    lib_tensor_init(&t, data, lib_dtype(kDLFloat, 32), 1, shape, NULL);
    t.v.deleter = NULL;
    t.l.deleter = NULL;
    pjdl_buffer *b = NULL;
    LIB_OK(pjdl_import(&f->cpu, 1, &t.v, NULL, &b));
    pjdl_buffer_release(b);
    LIB_OK(pjdl_import_legacy(&f->cpu, 1, &t.l, NULL, &b));
    pjdl_buffer_release(b);
    assert_int_equal(t.deleted, 0);
    lib_tensor_init(&t, data, lib_dtype(kDLFloat, 32), 1, shape, NULL);
    LIB_OK(pjdl_import_legacy(&f->cpu, 1, &t.l, NULL, &b));
    pjdl_buffer_release(b);
    assert_int_equal(lib_deleted(&t, 1), 1);
}

/* Metal (DLPack main): data is an id<MTLBuffer>. The export hands out the
 * plugin's pointer with byte_offset 0; an import passes data unchanged to
 * the plugin and refuses a byte_offset, which would need arithmetic on the
 * object. The reference plugin's xpu platform stands in for a Metal one. */
static void metal_data_is_the_buffer_object(void **state) {
    fixture *f = *state;
    LIB_OK(pjdl_register_platform("xpu", kDLMetal, kDLCPU));
    const int64_t dims[] = {4};
    pjdl_buffer *b = upload(f->xpu, dims, 1, NULL);
    DLManagedTensorVersioned *t = NULL;
    LIB_OK(pjdl_buffer_export(b, NULL, &t));
    assert_int_equal(t->dl_tensor.device.device_type, kDLMetal);
    check_zero_copy(b, t);
    pjdl_buffer *back = NULL;
    LIB_OK(pjdl_import(&f->xpu, 1, t, NULL, &back)); /* a view of the same object */
    void *p = NULL;
    LIB_OK(pjdl_buffer_data_pointer(back, &p));
    assert_ptr_equal(p, t->dl_tensor.data);
    pjdl_buffer_release(back);

    LIB_OK(pjdl_buffer_export(b, NULL, &t));
    t->dl_tensor.byte_offset = sizeof(float);
    t->dl_tensor.shape[0] = 3;
    LIB_FAILS(PJDL_INVALID_ARGUMENT, pjdl_import(&f->xpu, 1, t, NULL, &back));
    assert_non_null(strstr(pjdl_last_error(), "id<MTLBuffer>"));
    t->deleter(t);
    pjdl_buffer_release(b);
    LIB_OK(pjdl_register_platform("xpu", kDLOneAPI, kDLCPU));
}

static void *call_deleter(void *arg) {
    DLManagedTensorVersioned *t = arg;
    t->deleter(t);
    return NULL;
}

/* Producer deleters: callable from a thread that is not the exporter's,
 * after the buffer and client are gone; the memory stays valid until then.
 * The memory is host memory: on the reference plugin that of an xpu
 * client's pinned_host memory, on XLA (cpu only) its cpu client's. */
static void deleter_on_another_thread(void **state) {
    fixture *f = *state;
    pjdl_client *c = lib_on_xla() ? lib_cpu_client(f->plugin, 0) : lib_client(f->plugin, "xpu");
    pjdl_device *d = pjdl_client_device(c, 0);
    pjdl_memory *host =
        lib_on_xla() ? pjdl_device_default_memory(d) : lib_memory_of_kind(d, "pinned_host");
    assert_non_null(host);
    const int64_t dims[] = {12};
    pjdl_buffer *b = upload(c, dims, 1, host);
    DLManagedTensorVersioned *t = NULL;
    LIB_OK(pjdl_buffer_export(b, NULL, &t));
    pjdl_buffer_release(b);
    pjdl_client_release(c);
    assert_true(((float *)t->dl_tensor.data)[11] == 11.0f);
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, call_deleter, t), 0);
    assert_int_equal(pthread_join(th, NULL), 0);
}

int main(int argc, char **argv) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(export_fields),
        cmocka_unit_test(export_legacy_fields),
        cmocka_unit_test(export_flags_and_copies),
        cmocka_unit_test(import_versions),
        cmocka_unit_test(import_flags),
        cmocka_unit_test(import_read_only),
        cmocka_unit_test(import_null_strides),
        cmocka_unit_test(import_byte_offset),
        cmocka_unit_test(import_sub_byte_and_lanes),
        cmocka_unit_test(import_null_deleter),
        cmocka_unit_test(import_float4_pairs),
        cmocka_unit_test(deleter_on_another_thread),
    };
    /* The platform registry's kDLMetal stands in for a Metal plugin on xpu. */
    const struct CMUnitTest ref_only[] = {cmocka_unit_test(metal_data_is_the_buffer_object)};
    return lib_run(argc, argv, tests, LIB_COUNT(tests), ref_only, LIB_COUNT(ref_only), setup,
                   teardown);
}
