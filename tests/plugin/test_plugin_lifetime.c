/* Lifetime rules on platform cpu: external references pin memory, a view's
 * on_delete_callback runs exactly once in every order of delete, destroy and
 * unpin, failed views never call it, and all of it holds under threads. */
#include <pthread.h>
#include <stdatomic.h>

#include "plugin_util.h"

static PJRT_Client *client; /* cpu, two devices: shared by the tests */

static int64_t bytes_in_use(void) {
    PJRT_Device_MemoryStats_Args s = {.struct_size = PJRT_Device_MemoryStats_Args_STRUCT_SIZE,
                                      .device = pu_device(client, 0)};
    PU_OK(pu_api->PJRT_Device_MemoryStats(&s));
    return s.bytes_in_use;
}

static void test_external_references_pin(void **state) {
    (void)state;
    float x[256];
    for (int i = 0; i < 256; i++)
        x[i] = (float)i;
    int64_t dims[1] = {256};
    PJRT_Buffer *b = pu_f32(client, x, dims, 1);
    PU_EXPECT_ERROR(pu_unpin(b), PJRT_Error_Code_FAILED_PRECONDITION, "already zero");
    PU_OK(pu_pin(b));
    PU_OK(pu_pin(b));
    const float *p = pu_pointer(b);
    PU_OK(pu_delete_buffer(b));
    PJRT_Buffer_IsDeleted_Args d = {.struct_size = PJRT_Buffer_IsDeleted_Args_STRUCT_SIZE,
                                    .buffer = b};
    PU_OK(pu_api->PJRT_Buffer_IsDeleted(&d));
    assert_true(d.is_deleted);
    /* Still valid and still accounted while pinned. */
    assert_int_equal(bytes_in_use(), 1024);
    assert_true(p[255] == 255.0f);
    PU_OK(pu_unpin(b));
    assert_int_equal(bytes_in_use(), 1024);
    assert_true(p[17] == 17.0f);
    PU_OK(pu_unpin(b)); /* allowed after delete: it releases the memory */
    assert_int_equal(bytes_in_use(), 0);
    PU_EXPECT_ERROR(pu_unpin(b), PJRT_Error_Code_FAILED_PRECONDITION, "already zero");
    pu_destroy_buffer(b);

    /* Destroying the handle releases the references it still holds. */
    b = pu_f32(client, x, dims, 1);
    PU_OK(pu_pin(b));
    pu_destroy_buffer(b);
    assert_int_equal(bytes_in_use(), 0);
}

/* Memory a "framework" owns, viewed by the plugin. */
typedef struct {
    _Alignas(64) int32_t data[64];
} owned;

static PJRT_Buffer *make_view(owned *o, int *deleted) {
    int64_t dims[2] = {8, 8};
    PJRT_Client_CreateViewOfDeviceBuffer_Args v =
        pu_view_args(client, o->data, PJRT_Buffer_Type_S32, dims, 2, deleted);
    PU_OK(pu_api->PJRT_Client_CreateViewOfDeviceBuffer(&v));
    assert_non_null(v.buffer);
    return v.buffer;
}

enum step { DELETE, DESTROY, PIN, UNPIN };

/* Runs a sequence of steps on a fresh view and asserts on_delete ran exactly
 * once, at the step marked `fires`. */
static void run_order(const enum step *steps, size_t n, size_t fires) {
    owned o;
    int deleted = 0;
    PJRT_Buffer *b = make_view(&o, &deleted);
    for (size_t i = 0; i < n; i++) {
        switch (steps[i]) {
        case DELETE:
            PU_OK(pu_delete_buffer(b));
            break;
        case DESTROY:
            pu_destroy_buffer(b);
            break;
        case PIN:
            PU_OK(pu_pin(b));
            break;
        case UNPIN:
            PU_OK(pu_unpin(b));
            break;
        }
        if (deleted != (i >= fires ? 1 : 0))
            fail_msg("order case: after step %zu on_delete ran %d times (expected %d)", i, deleted,
                     i >= fires ? 1 : 0);
    }
    assert_int_equal(deleted, 1);
}

/* Each order of steps, and the step at which on_delete must run. */
static const struct {
    enum step steps[6];
    size_t n, fires;
} orders[] = {
    {{DELETE, DESTROY}, 2, 0},
    {{DESTROY}, 1, 0},
    {{PIN, DELETE, UNPIN, DESTROY}, 4, 2},
    {{PIN, UNPIN, DELETE, DESTROY}, 4, 2},
    {{PIN, PIN, DELETE, UNPIN, UNPIN, DESTROY}, 6, 4},
    {{PIN, DESTROY}, 2, 1},
    {{PIN, DELETE, DESTROY}, 3, 2},
    {{PIN, PIN, UNPIN, DESTROY}, 4, 3},
    {{DELETE, DELETE, DESTROY}, 3, 0},
};

static void test_view_on_delete_every_order(void **state) {
    (void)state;
    for (size_t i = 0; i < sizeof(orders) / sizeof(orders[0]); i++)
        run_order(orders[i].steps, orders[i].n, orders[i].fires);
}

static void test_view_aliases_memory(void **state) {
    (void)state;
    owned o;
    for (int i = 0; i < 64; i++)
        o.data[i] = i;
    int deleted = 0;
    PJRT_Buffer *b = make_view(&o, &deleted);
    assert_ptr_equal(pu_pointer(b), o.data);
    o.data[5] = -5;
    int32_t out[64];
    PU_OK(pu_to_host(b, out, sizeof(out), NULL));
    assert_int_equal(out[5], -5);
    assert_int_equal(out[63], 63);
    PJRT_Event *e = pu_ready_event(b);
    assert_true(pu_is_ready(e));
    pu_destroy_event(e);
    /* Views do not count as owned allocations. */
    assert_int_equal(bytes_in_use(), 0);
    pu_destroy_buffer(b);
    assert_int_equal(deleted, 1);
}

static void test_view_layout_and_memory(void **state) {
    (void)state;
    owned o;
    for (int i = 0; i < 64; i++)
        o.data[i] = i;
    int deleted = 0;
    int64_t dims[2] = {4, 16};
    int64_t strides[2] = {4, 16}; /* column-major */
    PJRT_Buffer_MemoryLayout l = pu_strided(strides, 2);
    PJRT_Client_CreateViewOfDeviceBuffer_Args v =
        pu_view_args(client, o.data, PJRT_Buffer_Type_S32, dims, 2, &deleted);
    v.layout = &l;
    v.device = NULL;
    v.memory = pu_memory(pu_device(client, 1), "device");
    PU_OK(pu_api->PJRT_Client_CreateViewOfDeviceBuffer(&v));
    PJRT_Buffer_GetMemoryLayout_Args gl = {
        .struct_size = PJRT_Buffer_GetMemoryLayout_Args_STRUCT_SIZE, .buffer = v.buffer};
    PU_OK(pu_api->PJRT_Buffer_GetMemoryLayout(&gl));
    assert_int_equal(gl.layout.tiled.minor_to_major[0], 0);
    assert_int_equal(gl.layout.tiled.minor_to_major[1], 1);
    assert_ptr_equal(pu_buffer_device(v.buffer), pu_device(client, 1));
    int64_t rm[2] = {1, 0};
    PJRT_Buffer_MemoryLayout row_major = pu_tiled(rm, 2);
    int32_t out[64];
    PU_OK(pu_to_host(v.buffer, out, sizeof(out), &row_major));
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 16; j++)
            assert_int_equal(out[i * 16 + j], o.data[j * 4 + i]);
    pu_destroy_buffer(v.buffer);
    assert_int_equal(deleted, 1);

    /* An older caller whose struct ends before `memory` is accepted. */
    deleted = 0;
    v = pu_view_args(client, o.data, PJRT_Buffer_Type_S32, dims, 2, &deleted);
    v.struct_size = offsetof(PJRT_Client_CreateViewOfDeviceBuffer_Args, memory);
    PU_OK(pu_api->PJRT_Client_CreateViewOfDeviceBuffer(&v));
    pu_destroy_buffer(v.buffer);
    assert_int_equal(deleted, 1);
}

static void test_failed_views_keep_ownership(void **state) {
    (void)state;
    owned o;
    int deleted = 0;
    int64_t dims[1] = {8};
    PJRT_Client_CreateViewOfDeviceBuffer_Args v =
        pu_view_args(client, (char *)o.data + 2, PJRT_Buffer_Type_S32, dims, 1, &deleted);
    PU_EXPECT_ERROR(pu_api->PJRT_Client_CreateViewOfDeviceBuffer(&v),
                    PJRT_Error_Code_INVALID_ARGUMENT, "not aligned");
    v.device_buffer_ptr = o.data;
    v.on_delete_callback = NULL; /* XLA would abort later; refused now */
    PU_EXPECT_ERROR(pu_api->PJRT_Client_CreateViewOfDeviceBuffer(&v),
                    PJRT_Error_Code_INVALID_ARGUMENT, "on_delete_callback");
    v.on_delete_callback = pu_count_delete;
    v.device_buffer_ptr = (char *)o.data + 8;
    v.element_type = PJRT_Buffer_Type_C128;
    PU_EXPECT_ERROR(pu_api->PJRT_Client_CreateViewOfDeviceBuffer(&v),
                    PJRT_Error_Code_INVALID_ARGUMENT, "16-byte size of element type C128");
    v.element_type = PJRT_Buffer_Type_S32;
    v.device_buffer_ptr = NULL;
    PU_EXPECT_ERROR(pu_api->PJRT_Client_CreateViewOfDeviceBuffer(&v),
                    PJRT_Error_Code_INVALID_ARGUMENT, "device_buffer_ptr is NULL");
    v.device_buffer_ptr = o.data;
    v.stream = 0x1234;
    PU_EXPECT_ERROR(pu_api->PJRT_Client_CreateViewOfDeviceBuffer(&v),
                    PJRT_Error_Code_INVALID_ARGUMENT, "platform cpu has no streams");
    v.stream = 0;
    v.element_type = PJRT_Buffer_Type_TOKEN;
    PU_EXPECT_ERROR(pu_api->PJRT_Client_CreateViewOfDeviceBuffer(&v),
                    PJRT_Error_Code_INVALID_ARGUMENT, "TOKEN");
    v.element_type = PJRT_Buffer_Type_S32;
    v.struct_size = offsetof(PJRT_Client_CreateViewOfDeviceBuffer_Args, buffer);
    PU_EXPECT_ERROR(pu_api->PJRT_Client_CreateViewOfDeviceBuffer(&v),
                    PJRT_Error_Code_INVALID_ARGUMENT, "PJRT_Client_CreateViewOfDeviceBuffer_Args");
    assert_int_equal(deleted, 0);
}

static void test_view_outlives_client(void **state) {
    (void)state;
    PJRT_Client *c = pu_cpu_client();
    owned o;
    int deleted = 0;
    int64_t dims[1] = {64};
    PJRT_Client_CreateViewOfDeviceBuffer_Args v =
        pu_view_args(c, o.data, PJRT_Buffer_Type_S32, dims, 1, &deleted);
    PU_OK(pu_api->PJRT_Client_CreateViewOfDeviceBuffer(&v));
    PU_OK(pu_pin(v.buffer));
    PJRT_Client_Destroy_Args d = {.struct_size = PJRT_Client_Destroy_Args_STRUCT_SIZE, .client = c};
    PU_OK(pu_api->PJRT_Client_Destroy(&d));
    assert_int_equal(deleted, 0);
    /* Work that needs the client fails; releasing does not. */
    int32_t out[64];
    PU_EXPECT_ERROR(pu_to_host(v.buffer, out, sizeof(out), NULL),
                    PJRT_Error_Code_FAILED_PRECONDITION, "client has been destroyed");
    PU_OK(pu_unpin(v.buffer));
    assert_int_equal(deleted, 0);
    pu_destroy_buffer(v.buffer);
    assert_int_equal(deleted, 1);
}

/* ------------------------------------------------------------- threads */

#define THREADS 8
#define ROUNDS 150

static atomic_int view_deletes;

static void count_view_delete(void *ptr, void *arg) {
    (void)ptr;
    (void)arg;
    atomic_fetch_add(&view_deletes, 1);
}

static void *worker(void *arg) {
    unsigned seed = (unsigned)(uintptr_t)arg;
    owned *o = malloc(sizeof(owned));
    for (int r = 0; r < ROUNDS; r++) {
        float x[32];
        for (int i = 0; i < 32; i++)
            x[i] = (float)(r + i);
        int64_t dims[1] = {32};
        PJRT_Client_BufferFromHostBuffer_Args a =
            pu_h2d_args(client, x, PJRT_Buffer_Type_F32, dims, 1);
        a.device = pu_device(client, (size_t)(r & 1));
        PJRT_Error *err = pu_api->PJRT_Client_BufferFromHostBuffer(&a);
        if (err != NULL)
            return (void *)1;
        pu_destroy_event(a.done_with_host_buffer);
        PJRT_Buffer *b = a.buffer;
        int64_t vd[2] = {8, 8};
        PJRT_Client_CreateViewOfDeviceBuffer_Args v =
            pu_view_args(client, o->data, PJRT_Buffer_Type_S32, vd, 2, NULL);
        v.on_delete_callback = count_view_delete;
        if (pu_api->PJRT_Client_CreateViewOfDeviceBuffer(&v) != NULL)
            return (void *)2;
        seed = seed * 1103515245u + 12345u;
        int pins = (int)(seed >> 16) % 3;
        for (int p = 0; p < pins; p++) {
            if (pu_pin(b).code != PJDL_OK || pu_pin(v.buffer).code != PJDL_OK)
                return (void *)3;
        }
        const float *data = pu_pointer(b);
        if (seed & 1) {
            pu_delete_buffer(b);
            pu_delete_buffer(v.buffer);
        }
        if (pins > 0 && data[31] != (float)(r + 31))
            return (void *)4;
        for (int p = 0; p < pins; p++) {
            if (pu_unpin(b).code != PJDL_OK || pu_unpin(v.buffer).code != PJDL_OK)
                return (void *)5;
        }
        pu_destroy_buffer(b);
        pu_destroy_buffer(v.buffer);
    }
    free(o);
    return NULL;
}

static void test_threads(void **state) {
    (void)state;
    pthread_t t[THREADS];
    atomic_store(&view_deletes, 0);
    for (uintptr_t i = 0; i < THREADS; i++)
        assert_int_equal(pthread_create(&t[i], NULL, worker, (void *)(i + 1)), 0);
    for (int i = 0; i < THREADS; i++) {
        void *ret;
        pthread_join(t[i], &ret);
        assert_null(ret);
    }
    assert_int_equal(atomic_load(&view_deletes), THREADS * ROUNDS);
    assert_int_equal(pu_live(client), 0);
    assert_int_equal(bytes_in_use(), 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_external_references_pin),
        cmocka_unit_test(test_view_on_delete_every_order),
        cmocka_unit_test(test_view_aliases_memory),
        cmocka_unit_test(test_view_layout_and_memory),
        cmocka_unit_test(test_failed_views_keep_ownership),
        cmocka_unit_test(test_view_outlives_client),
        cmocka_unit_test(test_threads),
    };
    return PU_RUN_TESTS(tests, &client);
}
