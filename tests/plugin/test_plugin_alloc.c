/* Allocation-failure injection: for every n, fail the plugin's n-th
 * allocation during a scenario on each platform. Every call either succeeds
 * or returns RESOURCE_EXHAUSTED, nothing leaks, and a view's on_delete runs
 * exactly once if and only if the view was created. */
#include <unistd.h>

#include "plugin_util.h"

/* Success or RESOURCE_EXHAUSTED: true if the call succeeded. */
static bool ok_result(pu_result r) {
    if (r.code == PJDL_OK)
        return true;
    if (r.code != PJDL_RESOURCE_EXHAUSTED)
        fail_msg("unexpected error under allocation failure: %s", r.msg);
    return false;
}
/* `e`: a PJRT_Error * or a pu_result. */
#define ok(e) ok_result(PU_RESULT(e))

/* Returns true if the scenario ran to the end without a failure. */
static bool scenario(const char *platform, int *view_created, int *view_deleted) {
    PJRT_NamedValue o[2] = {pu_opt_string("platform", platform), pu_opt_int("num_devices", 2)};
    PJRT_Client *c = NULL;
    if (!ok(pu_try_client(o, 2, &c)))
        return false;
    bool all = false;
    float x[16];
    for (int i = 0; i < 16; i++)
        x[i] = (float)i;
    int64_t dims[1] = {16};
    PJRT_Client_BufferFromHostBuffer_Args a = pu_h2d_args(c, x, PJRT_Buffer_Type_F32, dims, 1);
    a.host_buffer_semantics = PJRT_HostBufferSemantics_kImmutableUntilTransferCompletes;
    PJRT_Buffer *b = NULL, *copy = NULL, *view = NULL;
    if (!ok(pu_api->PJRT_Client_BufferFromHostBuffer(&a)))
        goto out;
    b = a.buffer;
    ok(pu_await(a.done_with_host_buffer));
    pu_destroy_event(a.done_with_host_buffer);
    PJRT_Buffer_ReadyEvent_Args re = {.struct_size = PJRT_Buffer_ReadyEvent_Args_STRUCT_SIZE,
                                      .buffer = b};
    if (!ok(pu_api->PJRT_Buffer_ReadyEvent(&re)))
        goto out;
    bool ready_ok = ok(pu_await(re.event));
    pu_destroy_event(re.event);
    if (!ready_ok)
        goto out;
    if (!ok(pu_pin(b)))
        goto out;
    PJRT_Buffer_OpaqueDeviceMemoryDataPointer_Args p = {
        .struct_size = PJRT_Buffer_OpaqueDeviceMemoryDataPointer_Args_STRUCT_SIZE, .buffer = b};
    PU_OK(pu_api->PJRT_Buffer_OpaqueDeviceMemoryDataPointer(&p));
    PJRT_Client_CreateViewOfDeviceBuffer_Args v =
        pu_view_args(c, p.device_memory_ptr, PJRT_Buffer_Type_F32, dims, 1, view_deleted);
    v.device = pu_device(c, 0);
    if (ok(pu_api->PJRT_Client_CreateViewOfDeviceBuffer(&v))) {
        view = v.buffer;
        *view_created = 1;
    }
    PJRT_Buffer_CopyToDevice_Args cd = {.struct_size = PJRT_Buffer_CopyToDevice_Args_STRUCT_SIZE,
                                        .buffer = view ? view : b,
                                        .dst_device = pu_device(c, 1)};
    if (!ok(pu_api->PJRT_Buffer_CopyToDevice(&cd)))
        goto out;
    copy = cd.dst_buffer;
    float y[16];
    PJRT_Buffer_ToHostBuffer_Args t = {.struct_size = PJRT_Buffer_ToHostBuffer_Args_STRUCT_SIZE,
                                       .src = copy,
                                       .dst = y,
                                       .dst_size = sizeof(y)};
    if (!ok(pu_api->PJRT_Buffer_ToHostBuffer(&t)))
        goto out;
    bool copied = ok(pu_await(t.event));
    pu_destroy_event(t.event);
    if (copied)
        assert_memory_equal(x, y, sizeof(x));
    all = copied && view != NULL;
out:
    if (view != NULL)
        pu_destroy_buffer(view);
    if (copy != NULL)
        pu_destroy_buffer(copy);
    /* As the view's owner, keep b's memory until the plugin is done with the
     * view: a copy from it may still be queued on xpu. */
    for (int i = 0; i < 10000 && __atomic_load_n(view_deleted, __ATOMIC_SEQ_CST) < *view_created;
         i++)
        usleep(100);
    if (b != NULL)
        pu_destroy_buffer(b); /* also releases the pin */
    PJRT_Client_Destroy_Args d = {.struct_size = PJRT_Client_Destroy_Args_STRUCT_SIZE, .client = c};
    PU_OK(pu_api->PJRT_Client_Destroy(&d));
    return all;
}

/* Fails each allocation of the scenario in turn on platform *state. */
static void test_walk(void **state) {
    const char *platform = *state;
    int64_t baseline = pu_live_process();
    int created = 0, deleted = 0;
    pu_fail_allocation(0);
    assert_true(scenario(platform, &created, &deleted));
    assert_int_equal(deleted, 1);
    int failures = 0;
    for (int64_t n = 1; n < 400; n++) {
        created = deleted = 0;
        pu_fail_allocation(n);
        bool all = scenario(platform, &created, &deleted);
        pu_fail_allocation(0);
        assert_int_equal(deleted, created);
        assert_int_equal(pu_live_process(), baseline);
        if (all)
            break; /* n is past the scenario's last allocation */
        failures++;
    }
    print_message("%s: %d allocation sites failed cleanly\n", platform, failures);
    assert_true(failures > 10);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        PU_PER_PLATFORM_TESTS(test_walk),
    };
    return PU_RUN_TESTS(tests, NULL);
}
