/* `pjrt-dlpack info` and `check` on Intel's oneAPI plugin over ze_sim: a
 * GPU-style PJRT client (asynchronous events, an allocator, the stream
 * extension) passes the conformance suite, each UNSUPPORTED naming why. */
#include <stdlib.h>
#include <string.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "run.h"

static const char *oneapi_plugin(void) {
    const char *p = getenv("PJRT_ONEAPI_PLUGIN");
    if (p == NULL || p[0] == '\0')
        fail_msg("PJRT_ONEAPI_PLUGIN is not set: run scripts/setup.sh and reconfigure");
    return p;
}

static void info_creates_a_client(void **state) {
    (void)state;
    const char *args[] = {"info", oneapi_plugin(), NULL};
    cli_run r;
    assert_true(cli_run_command(args, NULL, 240, &r));
    if (r.exit_code != 0)
        fail_msg("info exited %d (signal %d): %s%s", r.exit_code, r.signal, r.out, r.err);
    assert_non_null(strstr(r.out, "platform:         oneapi"));
    assert_non_null(strstr(r.out, "devices:          1"));
    assert_non_null(strstr(r.out, "device       -> DLDevice kDLOneAPI:0"));
    assert_non_null(strstr(r.out, "pinned_host  -> DLDevice kDLCPU:0"));
    assert_non_null(strstr(r.out, "ze_sim simulated Intel GPU 0"));
    cli_run_free(&r);
}

/* ZE_SIM_DEVICES=2: two simulated GPUs, each its own kDLOneAPI device id,
 * and the checks that use every device pass on both. */
static void two_gpus(void **state) {
    (void)state;
    const char *env[] = {"ZE_SIM_DEVICES=2", NULL};
    const char *info[] = {"info", oneapi_plugin(), NULL};
    cli_run r;
    assert_true(cli_run_command(info, env, 240, &r));
    if (r.exit_code != 0)
        fail_msg("info exited %d (signal %d): %s%s", r.exit_code, r.signal, r.out, r.err);
    assert_non_null(strstr(r.out, "devices:          2"));
    assert_non_null(strstr(r.out, "device       -> DLDevice kDLOneAPI:0"));
    assert_non_null(strstr(r.out, "device       -> DLDevice kDLOneAPI:1"));
    cli_run_free(&r);
    const char *check[] = {"check",         "--only", "export.fields", "--only", "threads",
                           oneapi_plugin(), NULL};
    assert_true(cli_run_command(check, env, 600, &r));
    if (r.exit_code != 0)
        fail_msg("check exited %d (signal %d): %s%s", r.exit_code, r.signal, r.out, r.err);
    assert_non_null(strstr(r.out, "on 2 device(s)"));
    assert_non_null(strstr(r.out, "2 passed, 0 failed"));
    cli_run_free(&r);
}

static void check_passes(void **state) {
    (void)state;
    const char *args[] = {"check", oneapi_plugin(), NULL};
    cli_run r;
    assert_true(cli_run_command(args, NULL, 600, &r));
    print_message("%s", r.out);
    if (r.exit_code != 0)
        fail_msg("check exited %d (signal %d): %s%s", r.exit_code, r.signal, r.out, r.err);
    /* XLA's GPU client aborts on a malformed view instead of refusing it. */
    assert_true(cli_has_result(r.out, "UNSUPPORTED", "reject.plugin"));
    assert_non_null(strstr(r.out, "does not refuse malformed requests"));
    const char *must_pass[] = {
        "abi.entry",      "abi.version",     "abi.table",      "abi.extensions", "abi.args",
        "export.types",   "export.shapes",   "export.strided", "export.fields",  "import.views",
        "import.layouts", "ready.no_stream", "ready.stream",   "pin.raw",        "pin.export",
        "ondelete.once",  "transfer.mode",   "reject.tensors", "threads",        "subbyte.storage"};
    for (size_t i = 0; i < sizeof must_pass / sizeof must_pass[0]; i++)
        if (!cli_has_result(r.out, "PASS", must_pass[i]))
            fail_msg("%s did not pass on Intel's oneAPI plugin:\n%s", must_pass[i], r.out);
    assert_non_null(strstr(r.out, "21 passed, 0 failed, 1 unsupported"));
    cli_run_free(&r);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(info_creates_a_client),
        cmocka_unit_test(check_passes),
        cmocka_unit_test(two_gpus),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
