/* `pjrt-dlpack info` and `check` on XLA's own CPU plugin: the command reads
 * a real plugin, and the conformance suite passes on the de facto standard
 * implementation, each UNSUPPORTED naming what the plugin lacks. */
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
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
        "transfer.mode",  "reject.tensors",  "threads",        "subbyte.storage"};
    for (size_t i = 0; i < sizeof must_pass / sizeof must_pass[0]; i++)
        if (!cli_has_result(r.out, "PASS", must_pass[i]))
            fail_msg("%s did not pass on XLA's CPU plugin:\n%s", must_pass[i], r.out);
    assert_non_null(strstr(r.out, "20 passed, 0 failed, 2 unsupported"));
    cli_run_free(&r);
}

/* `check` on an older build of XLA's CPU plugin (PJRT_XLA_CPU_<abi>_PLUGIN):
 * nothing fails, and each of its bugs is UNSUPPORTED and named. */
static void check_old(const char *var, const char *abi, const char *crash_type, const char *summary,
                      bool view_layouts) {
    const char *plugin = getenv(var);
    if (plugin == NULL || plugin[0] == '\0')
        fail_msg("%s is not set: run scripts/setup.sh test and reconfigure", var);
    const char *args[] = {"check", plugin, NULL};
    cli_run r;
    assert_true(cli_run_command(args, NULL, 600, &r));
    print_message("%s", r.out);
    if (r.exit_code != 0)
        fail_msg("check exited %d (signal %d): %s%s", r.exit_code, r.signal, r.out, r.err);
    /* How the crash is worded depends on how the child ended (a signal, or
     * AddressSanitizer's exit in the sanitizer build); what it was on does
     * not. */
    char crash[256];
    snprintf(crash, sizeof crash, "on BufferFromHostBuffer of %s, a type newer than its ABI %s",
             crash_type, abi);
    assert_true(cli_has_result(r.out, "UNSUPPORTED", "abi.types"));
    assert_non_null(strstr(r.out, crash));
    assert_true(cli_has_result(r.out, "UNSUPPORTED", "export.strided"));
    assert_non_null(strstr(r.out, "a buffer made with a column-major device layout held "
                                  "row-major bytes"));
    assert_true(cli_has_result(r.out, view_layouts ? "PASS" : "UNSUPPORTED", "import.layouts"));
    if (!view_layouts)
        assert_non_null(strstr(r.out, "the plugin ignores the layout of a view"));
    assert_true(cli_has_result(r.out, "PASS", "subbyte.storage"));
    assert_non_null(strstr(r.out, summary));
    cli_run_free(&r);
}

static void check_old_106(void **state) {
    (void)state;
    check_old("PJRT_XLA_CPU_106_PLUGIN", "0.106", "f6e2m3fn", "18 passed, 0 failed, 4 unsupported",
              true);
}

static void check_old_81(void **state) {
    (void)state;
    check_old("PJRT_XLA_CPU_81_PLUGIN", "0.81", "s1", "17 passed, 0 failed, 5 unsupported", false);
}

/* `check --json` of `plugin` written to a new temporary file, whose path
 * is returned (in `path`, of PATH_MAX bytes). */
static void json_report(const char *plugin, char *path) {
    const char *args[] = {"check", "--json", plugin, NULL};
    cli_run r;
    assert_true(cli_run_command(args, NULL, 600, &r));
    if (r.exit_code != 0)
        fail_msg("check --json %s exited %d: %s%s", plugin, r.exit_code, r.out, r.err);
    const char *tmp = getenv("TMPDIR");
    snprintf(path, PATH_MAX, "%s/pjdl-report-XXXXXX", tmp && tmp[0] ? tmp : "/tmp");
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "w");
    assert_non_null(f);
    assert_int_equal(fputs(r.out, f) >= 0, 1);
    assert_int_equal(fclose(f), 0);
    cli_run_free(&r);
}

static void diff_run(const char *a, const char *b, int want_exit, cli_run *r) {
    const char *args[] = {"diff", a, b, NULL};
    assert_true(cli_run_command(args, NULL, 60, r));
    if (r->exit_code != want_exit)
        fail_msg("diff %s %s exited %d, expected %d:\n%s%s", a, b, r->exit_code, want_exit, r->out,
                 r->err);
}

/* `diff` of XLA's report against the reference plugin's shows their real
 * differences (streams, validation) and nothing else; a report against
 * itself differs nowhere; a file that is not a report is refused (2). */
static void diff_against_reference(void **state) {
    (void)state;
    char xla[PATH_MAX], ref[PATH_MAX], bad[PATH_MAX + 8];
    json_report(xla_plugin(), xla);
    json_report(cli_ref_plugin(), ref);
    cli_run r;
    diff_run(xla, ref, 1, &r);
    print_message("%s", r.out);
    assert_non_null(strstr(r.out, "ready.stream       UNSUPPORTED PASS"));
    assert_non_null(strstr(r.out, "reject.plugin      UNSUPPORTED PASS"));
    assert_non_null(strstr(r.out, "A: the plugin has no stream extension"));
    assert_non_null(strstr(r.out, "2 differ, 20 the same"));
    cli_run_free(&r);
    diff_run(ref, ref, 0, &r);
    assert_non_null(strstr(r.out, "0 differ, 22 the same"));
    cli_run_free(&r);
    /* Not a report: a truncated one, and the command's own text output. */
    snprintf(bad, sizeof bad, "%s.bad", ref);
    FILE *f = fopen(bad, "w");
    assert_non_null(f);
    fputs("{\"plugin\": \"x\", \"checks\": [{\"name\": \"abi.entry\", \"status\": ", f);
    assert_int_equal(fclose(f), 0);
    diff_run(ref, bad, 2, &r);
    assert_non_null(strstr(r.err, "expected a string (at byte"));
    cli_run_free(&r);
    diff_run(ref, "/nonexistent/report.json", 2, &r);
    assert_non_null(strstr(r.err, "cannot open"));
    cli_run_free(&r);
    remove(bad);
    remove(xla);
    remove(ref);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(info_reads_it),          cmocka_unit_test(check_passes),
        cmocka_unit_test(check_old_106),          cmocka_unit_test(check_old_81),
        cmocka_unit_test(diff_against_reference),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
