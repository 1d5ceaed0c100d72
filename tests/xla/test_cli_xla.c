/* `pjrt-dlpack info` and `check` on XLA's own CPU plugin: the command reads
 * a real plugin, and the conformance suite passes on the de facto standard
 * implementation, each UNSUPPORTED naming what the plugin lacks. */
#include <stdlib.h>
#include <string.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "run.h"

static const char *xla_plugin(void) {
    const char *p = getenv("PJRT_XLA_CPU_PLUGIN");
    if (p == NULL || p[0] == '\0')
        fail_msg("PJRT_XLA_CPU_PLUGIN is not set: run scripts/setup.sh and reconfigure");
    return p;
}

static void info_reads_it(void **state) {
    (void)state;
    const char *args[] = {"info", xla_plugin(), NULL};
    cli_run r;
    assert_true(cli_run_command(args, NULL, 240, &r));
    if (r.exit_code != 0)
        fail_msg("info exited %d (signal %d): %s%s", r.exit_code, r.signal, r.out, r.err);
    assert_non_null(strstr(r.out, "cpu"));
    assert_non_null(strstr(r.out, "0."));
    cli_run_free(&r);
}

static void check_passes(void **state) {
    (void)state;
    const char *args[] = {"check", xla_plugin(), NULL};
    cli_run r;
    assert_true(cli_run_command(args, NULL, 600, &r));
    print_message("%s", r.out);
    if (r.exit_code != 0)
        fail_msg("check exited %d (signal %d): %s%s", r.exit_code, r.signal, r.out, r.err);
    /* What XLA's CPU plugin lacks, and nothing else. */
    assert_true(cli_has_result(r.out, "UNSUPPORTED", "ready.stream"));
    assert_non_null(strstr(r.out, "no stream extension"));
    assert_true(cli_has_result(r.out, "UNSUPPORTED", "reject.plugin"));
    assert_non_null(strstr(r.out, "does not refuse malformed requests"));
    const char *must_pass[] = {
        "abi.entry",      "abi.version",     "abi.table",      "abi.extensions", "abi.args",
        "export.types",   "export.shapes",   "export.strided", "export.fields",  "import.views",
        "import.layouts", "ready.no_stream", "pin.raw",        "pin.export",     "ondelete.once",
        "transfer.mode",  "reject.tensors",  "threads"};
    for (size_t i = 0; i < sizeof must_pass / sizeof must_pass[0]; i++)
        if (!cli_has_result(r.out, "PASS", must_pass[i]))
            fail_msg("%s did not pass on XLA's CPU plugin:\n%s", must_pass[i], r.out);
    assert_non_null(strstr(r.out, "18 passed, 0 failed, 2 unsupported"));
    cli_run_free(&r);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(info_reads_it),
        cmocka_unit_test(check_passes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
