/* Import of every stride pattern with each copy setting: compact
 * permutations are viewed, everything else is copied or refused; on both
 * plugins (the storage is 64-byte aligned, which XLA needs for a view). */
#include "lib_util.h"
#include "permutations.h"

#define STORAGE 4096

/* The row-major values of an int32 tensor (storage[k] == k). */
static size_t expected(const int64_t *shape, const int64_t *strides, int ndim, int64_t base,
                       int32_t *out) {
    size_t n = 1;
    for (int d = 0; d < ndim; d++)
        n *= (size_t)shape[d];
    for (size_t i = 0; i < n; i++) {
        size_t rest = i;
        int64_t off = base;
        for (int d = ndim; d-- > 0;) {
            off += (int64_t)(rest % (size_t)shape[d]) * strides[d];
            rest /= (size_t)shape[d];
        }
        out[i] = (int32_t)off;
    }
    return n;
}

typedef struct outcome {
    pjdl_code code;
    bool viewed;
} outcome;

/* Imports an int32 tensor over `storage` at element offset `base` (plus
 * `misalign` bytes) and checks its contents and deleter. */
static outcome try_import(lib_fixture *f, int32_t *storage, int64_t base, size_t misalign,
                          const int64_t *shape, const int64_t *strides, int ndim, pjdl_copy copy,
                          bool read_only) {
    lib_tensor t;
    lib_tensor_init(&t, storage, lib_dtype(kDLInt, 32), ndim, shape, strides);
    t.v.dl_tensor.byte_offset = (uint64_t)base * 4 + misalign;
    if (read_only)
        t.v.flags |= DLPACK_FLAG_BITMASK_READ_ONLY;
    pjdl_import_options o = lib_import_options(copy);
    pjdl_buffer *b = NULL;
    pjdl_client *clients[] = {f->client};
    outcome r = {pjdl_import(clients, 1, &t.v, &o, &b), false};
    if (r.code != PJDL_OK) {
        assert_int_equal(t.deleted, 0); /* the caller keeps it */
        return r;
    }
    void *ptr = NULL;
    LIB_OK(pjdl_buffer_data_pointer(b, &ptr));
    r.viewed = ptr == (char *)storage + t.v.dl_tensor.byte_offset;
    if (misalign == 0) {
        int32_t want[STORAGE], got[STORAGE];
        size_t n = expected(shape, strides, ndim, base, want);
        LIB_OK(pjdl_buffer_to_host(b, got, sizeof got));
        assert_memory_equal(got, want, n * 4);
    }
    LIB_OK(pjdl_buffer_await(b));
    if (r.viewed) {
        /* Exported again, the view has the producer's strides: the layout
         * made it through PJRT and back. */
        DLManagedTensorVersioned *e = NULL;
        LIB_OK(pjdl_buffer_export(b, NULL, &e));
        assert_ptr_equal(e->dl_tensor.data, ptr);
        for (int d = 0; d < ndim; d++)
            if (shape[d] > 1 && strides != NULL)
                assert_int_equal(e->dl_tensor.strides[d], strides[d]);
        e->deleter(e);
    }
    pjdl_buffer_release(b);
    assert_int_equal(lib_deleted(&t, 1), 1);
    return r;
}

static void permutations_4d(void **state) {
    lib_fixture *f = *state;
    int32_t *storage = lib_aligned(STORAGE * sizeof *storage);
    for (int i = 0; i < STORAGE; i++)
        storage[i] = i;
    const int64_t extent[4] = {2, 3, 4, 5};
    int m2m[4] = {0, 1, 2, 3}, perms = 0;
    do {
        int64_t strides[4];
        test_order_strides(extent, m2m, 4, strides);
        /* Viewed, unless the plugin ignores a view's layout and the order is
         * not row-major (minor_to_major 3,2,1,0): then copied. */
        bool row_major = m2m[0] == 3 && m2m[1] == 2 && m2m[2] == 1 && m2m[3] == 0;
        bool view = lib_views_keep_layouts() || row_major;
        outcome r = try_import(f, storage, 0, 0, extent, strides, 4, PJDL_COPY_IF_NEEDED, false);
        LIB_OK(r.code);
        assert_true(r.viewed == view);
        r = try_import(f, storage, 0, 0, extent, strides, 4, PJDL_COPY_NEVER, false);
        if (view) {
            LIB_OK(r.code);
            assert_true(r.viewed);
        } else {
            assert_int_equal(r.code, PJDL_UNIMPLEMENTED);
        }
        r = try_import(f, storage, 0, 0, extent, strides, 4, PJDL_COPY_ALWAYS, false);
        LIB_OK(r.code);
        assert_false(r.viewed);
        perms++;
    } while (test_next_permutation(m2m, 4));
    assert_int_equal(perms, 24);
    free(storage);
}

typedef struct strided_case {
    const char *name;
    int64_t shape[3];
    int64_t strides[3];
    int64_t base;
    size_t misalign;
} strided_case;

static void strided_cases(void **state) {
    lib_fixture *f = *state;
    int32_t *storage = lib_aligned((STORAGE + 1) * sizeof *storage);
    for (int i = 0; i < STORAGE; i++)
        storage[i] = i;
    const strided_case cases[] = {
        {"gap", {3, 4, 2}, {16, 4, 1}, 0, 0},
        {"every other", {3, 4, 2}, {24, 6, 2}, 0, 0},
        {"broadcast", {3, 4, 2}, {0, 2, 1}, 0, 0},
        {"all broadcast", {3, 4, 2}, {0, 0, 0}, 5, 0},
        {"negative", {3, 4, 2}, {-8, 2, 1}, 16, 0},
        {"all negative", {3, 4, 2}, {-8, -2, -1}, 23, 0},
        {"overlap", {3, 4, 2}, {1, 1, 1}, 0, 0},
        {"unaligned", {3, 4, 2}, {8, 2, 1}, 0, 1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const strided_case *c = &cases[i];
        outcome r = try_import(f, storage, c->base, c->misalign, c->shape, c->strides, 3,
                               PJDL_COPY_NEVER, false);
        if (r.code == PJDL_OK)
            fail_msg("%s: imported with copy=NEVER", c->name);
        assert_non_null(strstr(pjdl_last_error(), "copy=NEVER"));
        r = try_import(f, storage, c->base, c->misalign, c->shape, c->strides, 3,
                       PJDL_COPY_IF_NEEDED, false);
        if (r.code != PJDL_OK)
            fail_msg("%s: %s", c->name, pjdl_last_error());
        assert_false(r.viewed);
        r = try_import(f, storage, c->base, c->misalign, c->shape, c->strides, 3, PJDL_COPY_ALWAYS,
                       false);
        LIB_OK(r.code);
        assert_false(r.viewed);
    }
    free(storage);
}

static void read_only_tensor(void **state) {
    lib_fixture *f = *state;
    int32_t storage[24];
    for (int i = 0; i < 24; i++)
        storage[i] = i;
    const int64_t shape[] = {4, 6};
    const int64_t strides[] = {6, 1};
    outcome r = try_import(f, storage, 0, 0, shape, strides, 2, PJDL_COPY_NEVER, true);
    assert_int_not_equal(r.code, PJDL_OK);
    assert_non_null(strstr(pjdl_last_error(), "read-only"));
    r = try_import(f, storage, 0, 0, shape, strides, 2, PJDL_COPY_IF_NEEDED, true);
    LIB_OK(r.code);
    assert_false(r.viewed);
}

static void bad_tensors(void **state) {
    lib_fixture *f = *state;
    int32_t storage[8] = {0};
    const int64_t shape[] = {2, 4};
    lib_tensor t;
    pjdl_buffer *b = NULL;
    pjdl_client *clients[] = {f->client};
    lib_tensor_init(&t, storage, lib_dtype(kDLInt, 32), 2, shape, NULL);
    t.v.dl_tensor.ndim = -1;
    LIB_FAILS(PJDL_INVALID_ARGUMENT, pjdl_import(clients, 1, &t.v, NULL, &b));
    lib_tensor_init(&t, storage, lib_dtype(kDLInt, 32), 2, shape, NULL);
    t.v.dl_tensor.device.device_type = kDLCUDA;
    LIB_FAILS(PJDL_NOT_FOUND, pjdl_import(clients, 1, &t.v, NULL, &b));
    lib_tensor_init(&t, storage, lib_dtype(kDLInt, 32), 2, shape, NULL);
    t.v.version.major = 2;
    LIB_FAILS(PJDL_INVALID_ARGUMENT, pjdl_import(clients, 1, &t.v, NULL, &b));
    lib_tensor_init(&t, storage, lib_dtype(kDLFloat, 12), 2, shape, NULL);
    assert_int_not_equal(pjdl_import(clients, 1, &t.v, NULL, &b), PJDL_OK);
    lib_tensor_init(&t, NULL, lib_dtype(kDLInt, 32), 2, shape, NULL);
    LIB_FAILS(PJDL_INVALID_ARGUMENT, pjdl_import(clients, 1, &t.v, NULL, &b));
    pjdl_import_options o = PJDL_IMPORT_OPTIONS_INIT;
    o.struct_size = 4;
    lib_tensor_init(&t, storage, lib_dtype(kDLInt, 32), 2, shape, NULL);
    LIB_FAILS(PJDL_INVALID_ARGUMENT, pjdl_import(clients, 1, &t.v, &o, &b));
    assert_int_equal(t.deleted, 0);
}

int main(int argc, char **argv) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(permutations_4d, lib_setup, lib_teardown_clean),
        cmocka_unit_test_setup_teardown(strided_cases, lib_setup, lib_teardown_clean),
        cmocka_unit_test_setup_teardown(read_only_tensor, lib_setup, lib_teardown_clean),
        cmocka_unit_test_setup_teardown(bad_tensors, lib_setup, lib_teardown_clean),
    };
    return LIB_RUN(argc, argv, tests);
}
