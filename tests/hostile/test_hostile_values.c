/* A plugin that hands back nonsense: NULL out-pointers, negative, enormous
 * or too many dimensions, layouts that contradict the dimensions, NULL data
 * pointers, unknown element types and errors without text. The library must
 * refuse each with an error that says what the plugin did wrong, and leak
 * nothing. */
#include "hostile_test.h"

static const float data[12] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11};
static const int64_t dims[2] = {3, 4};

static int setup(void **state) {
    hostile_fixture *f = calloc(1, sizeof *f);
    hostile_open(f);
    *state = f;
    return 0;
}

static int teardown(void **state) {
    hostile_fixture *f = *state;
    hostile_reset(f->ctl);
    pjdl_plugin_release(f->plugin);
    free(f);
    return 0;
}

/* Each test starts clean and must end with the plugin as it found it. */
static int before(void **state) {
    hostile_fixture *f = *state;
    hostile_reset(f->ctl);
    return 0;
}

static int after(void **state) {
    hostile_fixture *f = *state;
    hostile_reset(f->ctl);
    int64_t live = lib_settled_process(f->plugin, f->baseline, 5000);
    if (live != f->baseline) {
        print_error("the plugin has %lld live allocations, %lld before the test\n", (long long)live,
                    (long long)f->baseline);
        f->baseline = live;
        return -1;
    }
    return 0;
}

static void set_fault(hostile_fixture *f, hostile_fault fault) {
    atomic_store(&f->ctl->fault, fault);
}

/* Creating a client fails with `code` and a message naming `what`. */
static void client_refused(void **state, hostile_fault fault, pjdl_code code, const char *what,
                           const char *why) {
    hostile_fixture *f = *state;
    set_fault(f, fault);
    pjdl_client *client = NULL;
    LIB_FAILS(code, hostile_client(f->plugin, "cpu", &client));
    assert_null(client);
    HOSTILE_SAYS(pjdl_last_error(), what);
    HOSTILE_SAYS(pjdl_last_error(), why);
}

static void client_null(void **state) {
    client_refused(state, HOSTILE_CLIENT_NULL, PJDL_INTERNAL, "PJRT_Client_Create", "no client");
}

static void devices_null(void **state) {
    client_refused(state, HOSTILE_DEVICES_NULL, PJDL_INTERNAL, "PJRT_Client_AddressableDevices",
                   "NULL");
}

static void description_null(void **state) {
    client_refused(state, HOSTILE_DESCRIPTION_NULL, PJDL_INTERNAL, "PJRT_Device_GetDescription",
                   "no description");
}

static void memories_null(void **state) {
    client_refused(state, HOSTILE_MEMORIES_NULL, PJDL_INTERNAL, "PJRT_Device_AddressableMemories",
                   "NULL");
}

static pjdl_client *good_client(hostile_fixture *f, const char *platform) {
    pjdl_client *client = NULL;
    LIB_OK(hostile_client(f->plugin, platform, &client));
    return client;
}

/* Making a buffer fails with `code` and a message naming `what`. */
static void buffer_refused(void **state, hostile_fault fault, pjdl_code code, const char *what,
                           const char *why) {
    hostile_fixture *f = *state;
    pjdl_client *client = good_client(f, "cpu");
    set_fault(f, fault);
    pjdl_buffer *b = NULL;
    LIB_FAILS(code,
              pjdl_buffer_from_host(client, data, PJRT_Buffer_Type_F32, dims, 2, NULL, NULL, &b));
    assert_null(b);
    HOSTILE_SAYS(pjdl_last_error(), what);
    HOSTILE_SAYS(pjdl_last_error(), why);
    pjdl_client_release(client);
}

static void from_host_null(void **state) {
    buffer_refused(state, HOSTILE_FROM_HOST_NULL, PJDL_INTERNAL, "PJRT_Client_BufferFromHostBuffer",
                   "no buffer");
}

static void dims_null(void **state) {
    buffer_refused(state, HOSTILE_DIMS_NULL, PJDL_INTERNAL, "PJRT_Buffer_Dimensions", "NULL");
}

static void dims_negative(void **state) {
    buffer_refused(state, HOSTILE_DIMS_NEGATIVE, PJDL_INTERNAL, "PJRT_Buffer_Dimensions", "-3");
}

static void dims_huge(void **state) {
    buffer_refused(state, HOSTILE_DIMS_HUGE, PJDL_INTERNAL, "PJRT_Buffer_Dimensions", "overflow");
}

static void dims_too_many(void **state) {
    buffer_refused(state, HOSTILE_DIMS_TOO_MANY, PJDL_UNIMPLEMENTED, "PJRT_Buffer_Dimensions",
                   "65 dimensions");
}

static void type_bogus(void **state) {
    buffer_refused(state, HOSTILE_TYPE_BOGUS, PJDL_UNIMPLEMENTED, "PJRT_Buffer_ElementType",
                   "9999");
}

/* A layout the plugin reports wrongly: the buffer is made (the layout only
 * matters to zero-copy exports), a copy=NEVER export names the problem, and
 * the default export falls back to a correct host copy. */
static void layout_refused(void **state, hostile_fault fault, pjdl_code code, const char *why) {
    hostile_fixture *f = *state;
    pjdl_client *client = good_client(f, "cpu");
    set_fault(f, fault);
    pjdl_buffer *b = NULL;
    LIB_OK(pjdl_buffer_from_host(client, data, PJRT_Buffer_Type_F32, dims, 2, NULL, NULL, &b));
    set_fault(f, HOSTILE_NONE);
    pjdl_export_options o = PJDL_EXPORT_OPTIONS_INIT;
    o.copy = PJDL_COPY_NEVER;
    DLManagedTensorVersioned *t = NULL;
    LIB_FAILS(code, pjdl_buffer_export(b, &o, &t));
    assert_null(t);
    HOSTILE_SAYS(pjdl_last_error(), "PJRT_Buffer_GetMemoryLayout");
    HOSTILE_SAYS(pjdl_last_error(), why);
    LIB_OK(pjdl_buffer_export(b, NULL, &t));
    assert_true(t->flags & DLPACK_FLAG_BITMASK_IS_COPIED);
    assert_int_equal(t->dl_tensor.device.device_type, kDLCPU);
    assert_memory_equal(t->dl_tensor.data, data, sizeof data);
    t->deleter(t);
    pjdl_buffer_release(b);
    pjdl_client_release(client);
}

static void layout_short(void **state) {
    layout_refused(state, HOSTILE_LAYOUT_SHORT, PJDL_INVALID_ARGUMENT, "1 entries for 2");
}

static void layout_not_permutation(void **state) {
    layout_refused(state, HOSTILE_LAYOUT_NOT_PERM, PJDL_INVALID_ARGUMENT, "not a permutation");
}

static void layout_out_of_range(void **state) {
    layout_refused(state, HOSTILE_LAYOUT_OUT_RANGE, PJDL_INVALID_ARGUMENT, "is 7");
}

static void layout_m2m_null(void **state) {
    layout_refused(state, HOSTILE_LAYOUT_M2M_NULL, PJDL_INVALID_ARGUMENT, "NULL");
}

static void layout_tiles_null(void **state) {
    layout_refused(state, HOSTILE_LAYOUT_TILES_NULL, PJDL_INVALID_ARGUMENT, "NULL");
}

static void layout_tile_zero(void **state) {
    layout_refused(state, HOSTILE_LAYOUT_TILE_ZERO, PJDL_INVALID_ARGUMENT, "tile");
}

static void layout_tiled(void **state) {
    layout_refused(state, HOSTILE_LAYOUT_TILED_REAL, PJDL_UNIMPLEMENTED, "cannot be expressed");
}

static void layout_bad_type(void **state) {
    layout_refused(state, HOSTILE_LAYOUT_BAD_TYPE, PJDL_INVALID_ARGUMENT, "77");
}

static void layout_strides_null(void **state) {
    layout_refused(state, HOSTILE_LAYOUT_STRIDES, PJDL_INVALID_ARGUMENT, "byte strides");
}

/* A view the plugin claims to have made but does not return: the import
 * fails, the caller keeps the tensor (its deleter is not called). */
static void view_null(void **state) {
    hostile_fixture *f = *state;
    pjdl_client *client = good_client(f, "cpu");
    float storage[12];
    memcpy(storage, data, sizeof data);
    lib_tensor t;
    lib_tensor_init(&t, storage, lib_dtype(kDLFloat, 32), 2, dims, NULL);
    set_fault(f, HOSTILE_VIEW_NULL);
    pjdl_import_options o = lib_import_options(PJDL_COPY_NEVER);
    pjdl_buffer *b = NULL;
    LIB_FAILS(PJDL_INTERNAL, pjdl_import(&client, 1, &t.v, &o, &b));
    HOSTILE_SAYS(pjdl_last_error(), "PJRT_Client_CreateViewOfDeviceBuffer");
    HOSTILE_SAYS(pjdl_last_error(), "no buffer");
    assert_null(b);
    assert_int_equal(t.deleted, 0);
    pjdl_client_release(client);
    assert_int_equal(t.deleted, 0);
}

/* A NULL data pointer for a buffer with data is never handed to a
 * consumer. */
static void data_null(void **state) {
    hostile_fixture *f = *state;
    pjdl_client *client = good_client(f, "cpu");
    pjdl_buffer *b = NULL;
    LIB_OK(pjdl_buffer_from_host(client, data, PJRT_Buffer_Type_F32, dims, 2, NULL, NULL, &b));
    set_fault(f, HOSTILE_DATA_NULL);
    DLManagedTensorVersioned *t = NULL;
    LIB_FAILS(PJDL_INTERNAL, pjdl_buffer_export(b, NULL, &t));
    assert_null(t);
    HOSTILE_SAYS(pjdl_last_error(), "NULL data pointer");
    HOSTILE_SAYS(pjdl_last_error(), "PJRT_Buffer_OpaqueDeviceMemoryDataPointer");
    /* The failed export left the buffer as it was. */
    set_fault(f, HOSTILE_NONE);
    LIB_OK(pjdl_buffer_export(b, NULL, &t));
    assert_memory_equal(t->dl_tensor.data, data, sizeof data);
    t->deleter(t);
    pjdl_buffer_release(b);
    pjdl_client_release(client);
}

/* No ready event at all is not "ready". */
static void ready_null(void **state) {
    hostile_fixture *f = *state;
    pjdl_client *client = good_client(f, "cpu");
    pjdl_buffer *b = NULL;
    LIB_OK(pjdl_buffer_from_host(client, data, PJRT_Buffer_Type_F32, dims, 2, NULL, NULL, &b));
    set_fault(f, HOSTILE_READY_NULL);
    LIB_FAILS(PJDL_INTERNAL, pjdl_buffer_await(b));
    HOSTILE_SAYS(pjdl_last_error(), "PJRT_Buffer_ReadyEvent");
    HOSTILE_SAYS(pjdl_last_error(), "no event");
    DLManagedTensorVersioned *t = NULL;
    LIB_FAILS(PJDL_INTERNAL, pjdl_buffer_export(b, NULL, &t));
    set_fault(f, HOSTILE_NONE);
    LIB_OK(pjdl_buffer_await(b));
    pjdl_buffer_release(b);
    pjdl_client_release(client);
}

/* An error without text and with a code outside the enum. */
static void error_without_text(void **state) {
    hostile_fixture *f = *state;
    set_fault(f, HOSTILE_ERROR_NO_TEXT);
    atomic_store(&f->ctl->fail_at, 1); /* PJRT_Client_Create */
    pjdl_client *client = NULL;
    LIB_FAILS(PJDL_UNKNOWN, hostile_client(f->plugin, "cpu", &client));
    HOSTILE_SAYS(pjdl_last_error(), "PJRT_Client_Create");
    HOSTILE_SAYS(pjdl_last_error(), "no message");
    assert_string_equal(f->ctl->failed, "PJRT_Client_Create");
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, before, after)

int main(void) {
    const struct CMUnitTest tests[] = {
        T(client_null),         T(devices_null),       T(description_null),
        T(memories_null),       T(from_host_null),     T(dims_null),
        T(dims_negative),       T(dims_huge),          T(dims_too_many),
        T(type_bogus),          T(layout_short),       T(layout_not_permutation),
        T(layout_out_of_range), T(layout_m2m_null),    T(layout_tiles_null),
        T(layout_tile_zero),    T(layout_tiled),       T(layout_bad_type),
        T(layout_strides_null), T(view_null),          T(data_null),
        T(ready_null),          T(error_without_text),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
