/* Every call the library makes into the plugin fails once, in turn, during a
 * full export / import scenario on both platforms. Each run must end with a
 * clean error that names the entry point that failed (or succeed when the
 * library may do without it), call every deleter it owns exactly once, and
 * leave the plugin with no live allocation: nothing leaks, nothing crashes,
 * nothing hangs. */
#include "hostile_test.h"

typedef struct outcome {
    pjdl_code code;
    char step[48];
    char message[1100];
} outcome;

/* Records the first failure of the scenario. */
#define STEP(name, expr)                                                                           \
    do {                                                                                           \
        pjdl_code step_code_ = (expr);                                                             \
        if (step_code_ != PJDL_OK) {                                                               \
            out->code = step_code_;                                                                \
            snprintf(out->step, sizeof out->step, "%s", name);                                     \
            snprintf(out->message, sizeof out->message, "%s", pjdl_last_error());                  \
            goto done;                                                                             \
        }                                                                                          \
    } while (0)

static void scenario(pjdl_plugin *plugin, const char *platform, lib_tensor *host,
                     bool *host_imported, outcome *out) {
    float data[12], back[12], strided_src[12];
    for (int i = 0; i < 12; i++)
        data[i] = strided_src[i] = (float)i;
    const int64_t dims[] = {3, 4};
    pjdl_client *client = NULL;
    pjdl_buffer *b = NULL, *b2 = NULL, *view = NULL, *copied = NULL;
    DLManagedTensorVersioned *t = NULL;
    memset(out, 0, sizeof *out);
    *host_imported = false;
    const int64_t shape[] = {2, 3};
    const int64_t strides[] = {1, 4};
    lib_tensor_init(host, strided_src, lib_dtype(kDLFloat, 32), 2, shape, strides);

    STEP("client", hostile_client(plugin, platform, &client));
    pjdl_client_set_wait_timeout(client, 20000); /* a hang becomes an error */
    pjdl_device *dev = pjdl_client_device(client, 0);
    if (dev == NULL) {
        out->code = PJDL_INTERNAL;
        snprintf(out->step, sizeof out->step, "devices");
        snprintf(out->message, sizeof out->message, "the client has no device");
        goto done;
    }
    STEP("from_host",
         pjdl_buffer_from_host(client, data, PJRT_Buffer_Type_F32, dims, 2, NULL, NULL, &b));
    STEP("await", pjdl_buffer_await(b));
    STEP("export", pjdl_buffer_export(b, NULL, &t));
    {
        pjdl_code code = pjdl_import(&client, 1, t, NULL, &view);
        if (code != PJDL_OK)
            t->deleter(t); /* still ours after a failed import */
        STEP("import view", code);
    }
    STEP("to_host", pjdl_buffer_to_host(view, back, sizeof back));
    assert_memory_equal(back, data, sizeof data);
    {
        pjdl_export_options o = PJDL_EXPORT_OPTIONS_INIT;
        o.copy = PJDL_COPY_ALWAYS;
        DLManagedTensor *legacy = NULL;
        STEP("export copy", pjdl_buffer_export_legacy(b, &o, &legacy));
        legacy->deleter(legacy);
    }
    {
        pjdl_import_options o = PJDL_IMPORT_OPTIONS_INIT;
        o.device = dev;
        STEP("import copy", pjdl_import(&client, 1, &host->v, &o, &copied));
        *host_imported = true;
    }
    if (strcmp(platform, "xpu") == 0) {
        intptr_t stream = 0;
        STEP("stream", pjdl_device_stream(dev, &stream));
        pjdl_export_options o = PJDL_EXPORT_OPTIONS_INIT;
        o.has_stream = true;
        o.stream = stream;
        DLManagedTensorVersioned *ts = NULL;
        STEP("export stream", pjdl_buffer_export(b, &o, &ts));
        ts->deleter(ts);
    }
    {
        STEP("from_host 2",
             pjdl_buffer_from_host(client, data, PJRT_Buffer_Type_F32, dims, 2, NULL, NULL, &b2));
        pjdl_export_options o = PJDL_EXPORT_OPTIONS_INIT;
        o.mode = PJDL_EXPORT_TRANSFER;
        DLManagedTensorVersioned *tt = NULL;
        STEP("export transfer", pjdl_buffer_export(b2, &o, &tt));
        tt->deleter(tt);
    }
    STEP("delete", pjdl_buffer_delete(b));
done:
    pjdl_buffer_release(copied);
    pjdl_buffer_release(view);
    pjdl_buffer_release(b2);
    pjdl_buffer_release(b);
    pjdl_client_release(client);
}

/* Failures whose message need not name the failed entry point: the library
 * can do without it and the error surfaces elsewhere. Filled as found. */
static bool names_entry_point(const outcome *o, const char *failed) {
    if (strstr(o->message, failed) != NULL)
        return true;
    return false;
}

/* The scenario without faults, then with each of its plugin calls failing
 * in turn, on the test's platform (its initial state). */
static void calls(void **state) {
    const char *platform = *state;
    hostile_fixture h;
    hostile_open(&h);
    hostile_config *ctl = h.ctl;
    pjdl_plugin *plugin = h.plugin;
    int64_t baseline = h.baseline;
    lib_tensor host;
    bool imported = false;
    outcome out;

    scenario(plugin, platform, &host, &imported, &out);
    if (out.code != PJDL_OK)
        fail_msg("%s without faults: step %s: %s", platform, out.step, out.message);
    long count = atomic_load(&ctl->calls);
    assert_true(count > 20);
    assert_int_equal(lib_settled_process(plugin, baseline, 5000), baseline);

    int failures = 0, unnamed = 0, leaks = 0;
    /* HOSTILE_ONLY_CALL=k reruns one case (for debugging). */
    const char *only = getenv("HOSTILE_ONLY_CALL");
    long first = only ? atol(only) : 1, last = only ? first : count + 5;
    for (long k = first; k <= last; k++) {
        hostile_reset(ctl);
        atomic_store(&ctl->fail_at, k);
        scenario(plugin, platform, &host, &imported, &out);
        atomic_store(&ctl->fail_at, 0);
        char failed[sizeof ctl->failed];
        snprintf(failed, sizeof failed, "%s", ctl->failed);
        if (out.code != PJDL_OK) {
            failures++;
            if (out.message[0] == '\0')
                fail_msg("call %ld (%s) failed: step %s returned %s with no message", k, failed,
                         out.step, pjdl_code_name(out.code));
            if (failed[0] != '\0' && !names_entry_point(&out, failed)) {
                unnamed++;
                print_message("call %ld: %s failed; step %s: %s: %s\n", k, failed, out.step,
                              pjdl_code_name(out.code), out.message);
            }
        }
        /* The copied host tensor: its deleter ran once iff the import
         * succeeded (the copy's source is released asynchronously). */
        int want = imported ? 1 : 0;
        for (int i = 0; i < 5000 && __atomic_load_n(&host.deleted, __ATOMIC_SEQ_CST) != want; i++)
            hostile_sleep_ms(1);
        if (host.deleted != want)
            fail_msg("call %ld (%s): host tensor deleter ran %d times, expected %d", k, failed,
                     host.deleted, want);
        int64_t live = lib_settled_process(plugin, baseline, 5000);
        if (live != baseline) {
            leaks++;
            print_message(
                "call %ld (%s) failed (step %s: %s): the plugin has %lld live allocations, "
                "%lld before\n",
                k, failed, out.step, out.message, (long long)live, (long long)baseline);
            baseline = live; /* report each leak once */
        }
    }
    print_message("%s: %ld plugin calls in the scenario, %d runs failed cleanly\n", platform, count,
                  failures);
    assert_true(failures > 0 || only != NULL);
    assert_int_equal(unnamed, 0);
    assert_int_equal(leaks, 0);
    hostile_reset(ctl);
    pjdl_plugin_release(plugin);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        HOSTILE_ON(calls, "cpu", NULL, NULL),
        HOSTILE_ON(calls, "xpu", NULL, NULL),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
