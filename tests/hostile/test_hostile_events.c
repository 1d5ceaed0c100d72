/* Events that never complete: with a wait timeout every wait of the library
 * ends in DEADLINE_EXCEEDED instead of hanging, a failed export leaves the
 * buffer usable, and when the plugin finally completes the events (here: it
 * cancels them at client destroy) the library's pending callbacks free
 * everything they hold (valgrind checks that nothing is left). */
#include "hostile_test.h"

#define TIMEOUT_MS 200

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Fails with DEADLINE_EXCEEDED within a few timeouts. */
#define TIMES_OUT(expr)                                                                            \
    do {                                                                                           \
        double t0_ = now_s();                                                                      \
        LIB_FAILS(PJDL_DEADLINE_EXCEEDED, (expr));                                                 \
        HOSTILE_SAYS(pjdl_last_error(), "wait timeout of 200 ms");                                 \
        assert_true(now_s() - t0_ < 5.0);                                                          \
    } while (0)

static const float data[12] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11};
static const int64_t dims[2] = {3, 4};

typedef struct events {
    hostile_fixture h;
    pjdl_client *client;
} events;

/* Set-up: the hostile plugin and a client on the test's platform (its
 * initial state) whose waits give up after TIMEOUT_MS. */
static int setup(void **state) {
    const char *platform = *state;
    events *e = calloc(1, sizeof *e);
    *state = e;
    hostile_open(&e->h);
    LIB_OK(hostile_client(e->h.plugin, platform, &e->client));
    pjdl_client_set_wait_timeout(e->client, TIMEOUT_MS);
    return 0;
}

/* Teardown: the test released the client, whose destroy cancelled the
 * stuck events; nothing of them, or of anything else, is left. */
static int teardown(void **state) {
    events *e = *state;
    assert_int_equal(atomic_load(&e->h.ctl->stuck_events), 0);
    assert_int_equal(lib_settled_process(e->h.plugin, e->h.baseline, 5000), e->h.baseline);
    pjdl_plugin_release(e->h.plugin);
    free(e);
    return 0;
}

/* The data as a buffer on the test's client. */
static pjdl_buffer *upload(events *e) {
    pjdl_buffer *b = NULL;
    LIB_OK(pjdl_buffer_from_host(e->client, data, PJRT_Buffer_Type_F32, dims, 2, NULL, NULL, &b));
    return b;
}

static void ready_never(void **state) {
    events *e = *state;
    pjdl_buffer *b = upload(e);
    atomic_store(&e->h.ctl->fault, HOSTILE_READY_NEVER);

    TIMES_OUT(pjdl_buffer_await(b));
    DLManagedTensorVersioned *t = NULL;
    TIMES_OUT(pjdl_buffer_export(b, NULL, &t));
    assert_null(t);
    pjdl_export_options o = PJDL_EXPORT_OPTIONS_INIT;
    o.mode = PJDL_EXPORT_TRANSFER;
    TIMES_OUT(pjdl_buffer_export(b, &o, &t));
    /* Nothing changed: not transferred, still readable and exportable. */
    assert_false(pjdl_buffer_is_deleted(b));
    assert_true(atomic_load(&e->h.ctl->stuck_events) >= 3);

    atomic_store(&e->h.ctl->fault, HOSTILE_NONE);
    float back[12];
    LIB_OK(pjdl_buffer_to_host(b, back, sizeof back));
    assert_memory_equal(back, data, sizeof data);
    LIB_OK(pjdl_buffer_export(b, &o, &t));
    assert_true(pjdl_buffer_is_deleted(b));
    assert_memory_equal(t->dl_tensor.data, data, sizeof data);

    /* Release with the stuck events outstanding, the export last. */
    pjdl_buffer_release(b);
    pjdl_client_release(e->client);
    t->deleter(t);
}

/* The copy to the host is done, but its event never says so: the caller's
 * memory must not be written after the wait gave up. */
static void to_host_never(void **state) {
    events *e = *state;
    pjdl_buffer *b = upload(e);
    LIB_OK(pjdl_buffer_await(b));
    atomic_store(&e->h.ctl->fault, HOSTILE_TO_HOST_NEVER);

    float *back = calloc(12, sizeof(float));
    TIMES_OUT(pjdl_buffer_to_host(b, back, 12 * sizeof(float)));
    free(back); /* the plugin still "owes" a completion: it must not land here */
    pjdl_export_options o = PJDL_EXPORT_OPTIONS_INIT;
    o.copy = PJDL_COPY_ALWAYS;
    DLManagedTensorVersioned *t = NULL;
    TIMES_OUT(pjdl_buffer_export(b, &o, &t));
    assert_null(t);
    assert_true(atomic_load(&e->h.ctl->stuck_events) >= 2);

    atomic_store(&e->h.ctl->fault, HOSTILE_NONE);
    pjdl_client_release(e->client); /* the buffer keeps it alive */
    pjdl_buffer_release(b);
}

/* kImmutableOnlyDuringCall promises the data is not read after the call, so
 * a done_with_host_buffer event that never completes ends in the client's
 * wait timeout instead of hanging pjdl_buffer_from_host. */
static void done_never(void **state) {
    events *e = *state;
    atomic_store(&e->h.ctl->fault, HOSTILE_DONE_NEVER);
    pjdl_buffer *b = NULL;
    TIMES_OUT(
        pjdl_buffer_from_host(e->client, data, PJRT_Buffer_Type_F32, dims, 2, NULL, NULL, &b));
    assert_null(b);
    assert_true(atomic_load(&e->h.ctl->stuck_events) >= 1);
    atomic_store(&e->h.ctl->fault, HOSTILE_NONE);
    pjdl_client_release(e->client);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        HOSTILE_ON(ready_never, "cpu", setup, teardown),
        HOSTILE_ON(ready_never, "xpu", setup, teardown),
        HOSTILE_ON(done_never, "cpu", setup, teardown),
        HOSTILE_ON(done_never, "xpu", setup, teardown),
        HOSTILE_ON(to_host_never, "cpu", setup, teardown),
        HOSTILE_ON(to_host_never, "xpu", setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
