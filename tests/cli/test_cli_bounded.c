/* Every call that `info`, `check` and `bench` make into a plugin is bounded
 * by --timeout-ms: plugins whose PJRT_Plugin_Initialize, PJRT_Client_Create
 * or PJRT_Client_BufferFromHostBuffer never returns (tests/broken). The
 * command returns, names the entry point that did not return, prints what
 * it read, and exits with the documented code (README.md, "Exit status").
 * The same for the Stream extension's functions, which are not in the
 * table. `bench` also outlives a plugin that crashes it.
 * Nothing here measures time: the runner's own limit (and ctest's TIMEOUT)
 * only keeps a regression from hanging. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "run.h"

#define RUN(r, ...)                                                                                \
    do {                                                                                           \
        const char *args_[] = {__VA_ARGS__, NULL};                                                 \
        assert_true(cli_run_command(args_, NULL, 90, r));                                          \
    } while (0)

static void expect(const cli_run *r, int code, const char *const *parts) {
    bool ok = r->exit_code == code;
    for (size_t i = 0; ok && parts[i] != NULL; i++)
        ok = strstr(r->out, parts[i]) != NULL;
    if (!ok) {
        for (size_t i = 0; parts[i] != NULL; i++)
            print_error("expected: %s\n", parts[i]);
        fail_msg("exit %d (signal %d), expected %d\n--- stdout\n%s\n--- stderr\n%s", r->exit_code,
                 r->signal, code, r->out, r->err);
    }
}

static void test_initialize_hangs(void **state) {
    (void)state;
    cli_run r;
    RUN(&r, "info", "--timeout-ms", "1000", cli_broken_plugin("init_hang"));
    const char *info[] = {"PJRT ABI:         0.114", "extensions:       Stream(3)",
                          "client:           none: PJRT_Plugin_Initialize did not return "
                          "within 1.0 s (TIMEOUT)",
                          NULL};
    expect(&r, 3, info);
    cli_run_free(&r);
    RUN(&r, "check", "--timeout-ms", "1000", cli_broken_plugin("init_hang"));
    const char *check[] = {"platform: none: PJRT_Plugin_Initialize did not return within 1.0 s",
                           "PASS        abi.entry", "PASS        abi.extensions",
                           "SKIPPED     export.types", NULL};
    expect(&r, 3, check);
    assert_non_null(strstr(r.err, "PJRT_Plugin_Initialize did not return"));
    cli_run_free(&r);
}

static void test_client_creation_hangs(void **state) {
    (void)state;
    cli_run r;
    RUN(&r, "check", "--timeout-ms", "1000", "--json", cli_broken_plugin("client_hang"));
    const char *check[] = {"\"setup_error\":\"PJRT_Client_Create did not return within 1.0 s\"",
                           "\"name\":\"abi.entry\",\"status\":\"PASS\"",
                           "\"name\":\"threads\",\"status\":\"SKIPPED\"", NULL};
    expect(&r, 3, check);
    cli_run_free(&r);
}

/* A hang after the client exists: every check that makes a buffer fails,
 * naming the entry point; info prints the platform and devices first. */
static void test_buffer_creation_hangs(void **state) {
    (void)state;
    cli_run r;
    RUN(&r, "check", "--timeout-ms", "1000", cli_broken_plugin("buffer_hang"));
    const char *check[] = {
        "platform: cpu pjrt_ref 0.1.0 cpu, 1 device(s)", "PASS        abi.args",
        "FAIL        export.types     PJRT_Client_BufferFromHostBuffer did not return within 1.0 s",
        "FAIL        reject.plugin    PJRT_Client_BufferFromHostBuffer did not return within 1.0 s",
        NULL};
    expect(&r, 1, check);
    cli_run_free(&r);
    RUN(&r, "info", "--timeout-ms", "1000", cli_broken_plugin("buffer_hang"));
    const char *info[] = {
        "attribute:        pjrt_ref_platforms = cpu,xpu", "platform:         cpu",
        "  device 0: kind \"cpu\", local hardware id 0",
        "stopped:          PJRT_Client_BufferFromHostBuffer did not return within 1.0 s", NULL};
    expect(&r, 1, info);
    cli_run_free(&r);
}

/* A check stopped by its whole limit (--check-limit-s) inside a call that
 * had not reached --timeout-ms names that limit and the entry point, not
 * the per-call limit (issue 38: it blamed --timeout-ms). */
static void test_whole_check_limit_is_named(void **state) {
    (void)state;
    cli_run r;
    RUN(&r, "check", "--timeout-ms", "60000", "--check-limit-s", "2", "--only", "export.types",
        cli_broken_plugin("buffer_hang"));
    const char *check[] = {"FAIL        export.types     the check did not finish within its whole "
                           "limit of 2 s; it was in PJRT_Client_BufferFromHostBuffer (no single "
                           "call had reached the per-call limit of 60.0 s)",
                           NULL};
    expect(&r, 1, check);
    assert_null(strstr(r.out, "did not return within"));
    cli_run_free(&r);
}

/* A hang in an extension's function, not in the PJRT_Api table: the Stream
 * extension's get_stream never returns. info stops there after printing
 * what it read; check fails the check that asked for a stream. */
static void test_stream_extension_hangs(void **state) {
    (void)state;
    cli_run r;
    RUN(&r, "info", "--timeout-ms", "1000", cli_broken_plugin("stream_hang"));
    const char *info[] = {
        "platform:         cpu",
        "stopped:          PJRT_Stream_Extension get_stream did not return within 1.0 s", NULL};
    expect(&r, 1, info);
    cli_run_free(&r);
    RUN(&r, "check", "--timeout-ms", "1000", "-o", "platform=xpu",
        cli_broken_plugin("stream_hang"));
    const char *check[] = {"PASS        export.types",
                           "FAIL        ready.stream     PJRT_Stream_Extension get_stream did not "
                           "return within 1.0 s",
                           "21 passed, 1 failed", NULL};
    expect(&r, 1, check);
    cli_run_free(&r);
}

/* bench: a hang or a crash ends the run (no figures), named on stderr;
 * exit 3 before a client exists, 1 after. */
static void expect_bench(const char *plugin, int code, const char *message) {
    cli_run r;
    RUN(&r, "bench", "--timeout-ms", "1000", "-n", "3", "--size", "4k", cli_broken_plugin(plugin));
    if (r.exit_code != code || strstr(r.err, message) == NULL || r.out[0] != '\0')
        fail_msg("bench on %s: exit %d (signal %d), expected %d and '%s'\n--- stdout\n%s\n"
                 "--- stderr\n%s",
                 plugin, r.exit_code, r.signal, code, message, r.out, r.err);
    cli_run_free(&r);
}

static void test_bench_outlives_the_plugin(void **state) {
    (void)state;
    expect_bench("init_hang", 3, "PJRT_Plugin_Initialize did not return within 1.0 s");
    expect_bench("client_hang", 3, "PJRT_Client_Create did not return within 1.0 s");
    expect_bench("buffer_hang", 1, "PJRT_Client_BufferFromHostBuffer did not return within 1.0 s");
    expect_bench("client_abort", 3,
                 "the plugin crashed the process in PJRT_Client_Create: signal 6 (Aborted)");
    expect_bench("buffer_crash", 1,
                 "the plugin crashed the process in PJRT_Client_BufferFromHostBuffer: signal 6");
}

/* One option for both commands, and its default is at most 30 s. */
static void test_documented(void **state) {
    (void)state;
    cli_run r;
    RUN(&r, "check", "--help");
    assert_non_null(strstr(r.out, "--timeout-ms N"));
    assert_non_null(strstr(r.out, "(default 30000)"));
    cli_run_free(&r);
    RUN(&r, "info", "--help");
    assert_non_null(strstr(r.out, "(default 30000)"));
    cli_run_free(&r);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_initialize_hangs),
        cmocka_unit_test(test_client_creation_hangs),
        cmocka_unit_test(test_buffer_creation_hangs),
        cmocka_unit_test(test_whole_check_limit_is_named),
        cmocka_unit_test(test_stream_extension_hangs),
        cmocka_unit_test(test_bench_outlives_the_plugin),
        cmocka_unit_test(test_documented),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
