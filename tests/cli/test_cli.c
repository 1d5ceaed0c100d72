/* Tests of the pjrt-dlpack command on the reference plugin: help, usage
 * errors and exit codes, plugin lookup, info, check and bench. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "run.h"

#define RUN(r, env, ...)                                                                           \
    do {                                                                                           \
        const char *args_[] = {__VA_ARGS__, NULL};                                                 \
        assert_true(cli_run_command(args_, env, 240, r));                                          \
    } while (0)

static void expect_exit(const cli_run *r, int code) {
    if (r->exit_code != code)
        print_error("exit %d (signal %d), expected %d\n--- stdout\n%s\n--- stderr\n%s\n",
                    r->exit_code, r->signal, code, r->out, r->err);
    assert_int_equal(r->exit_code, code);
}

static void test_help(void **state) {
    (void)state;
    cli_run r;
    RUN(&r, NULL, "--help");
    expect_exit(&r, 0);
    assert_non_null(strstr(r.out, "Usage: pjrt-dlpack COMMAND"));
    assert_non_null(strstr(r.out, "Exit status:"));
    assert_non_null(strstr(r.out, "PJRT_NAMES_AND_LIBRARY_PATHS"));
    cli_run_free(&r);
    RUN(&r, NULL, "help");
    expect_exit(&r, 0);
    assert_non_null(strstr(r.out, "Commands:"));
    cli_run_free(&r);
    RUN(&r, NULL, "check", "--help");
    expect_exit(&r, 0);
    assert_non_null(strstr(r.out, "Usage: pjrt-dlpack check"));
    assert_non_null(strstr(r.out, "--only"));
    assert_non_null(strstr(r.out, "Exit status:"));
    cli_run_free(&r);
    RUN(&r, NULL, "info", "-h");
    expect_exit(&r, 0);
    assert_non_null(strstr(r.out, "Usage: pjrt-dlpack info"));
    cli_run_free(&r);
    RUN(&r, NULL, "bench", "--help");
    expect_exit(&r, 0);
    assert_non_null(strstr(r.out, "--iterations"));
    cli_run_free(&r);
    RUN(&r, NULL, "--version");
    expect_exit(&r, 0);
    assert_non_null(strstr(r.out, "pjrt-dlpack "));
    cli_run_free(&r);
}

static void test_usage_errors(void **state) {
    (void)state;
    cli_run r;
    const char *none[] = {NULL};
    assert_true(cli_run_command(none, NULL, 60, &r));
    expect_exit(&r, 2);
    assert_non_null(strstr(r.err, "missing command"));
    cli_run_free(&r);
    RUN(&r, NULL, "frobnicate");
    expect_exit(&r, 2);
    assert_non_null(strstr(r.err, "unknown command 'frobnicate'"));
    cli_run_free(&r);
    RUN(&r, NULL, "info", "--bogus");
    expect_exit(&r, 2);
    assert_non_null(strstr(r.err, "unknown option '--bogus'"));
    assert_non_null(strstr(r.err, "pjrt-dlpack info --help"));
    cli_run_free(&r);
    RUN(&r, NULL, "bench", "--iterations", "0");
    expect_exit(&r, 2);
    cli_run_free(&r);
    RUN(&r, NULL, "bench", "--iterations", "12x");
    expect_exit(&r, 2);
    cli_run_free(&r);
    RUN(&r, NULL, "check", "--iterations", "5");
    expect_exit(&r, 2);
    assert_non_null(strstr(r.err, "belong to 'bench'"));
    cli_run_free(&r);
    RUN(&r, NULL, "info", "--option");
    expect_exit(&r, 2);
    cli_run_free(&r);
    RUN(&r, NULL, "info", "--option", "=1");
    expect_exit(&r, 2);
    assert_non_null(strstr(r.err, "bad --option"));
    cli_run_free(&r);
    RUN(&r, NULL, "info", "a.so", "b.so");
    expect_exit(&r, 2);
    cli_run_free(&r);
}

static void test_plugin_not_found(void **state) {
    (void)state;
    cli_run r;
    RUN(&r, NULL, "info", "/nonexistent/libnothing.so");
    expect_exit(&r, 3);
    assert_non_null(strstr(r.err, "/nonexistent/libnothing.so"));
    cli_run_free(&r);
    const char *env[] = {"PJRT_NAMES_AND_LIBRARY_PATHS=", NULL};
    RUN(&r, env, "check", "nosuchplugin");
    expect_exit(&r, 3);
    assert_non_null(strstr(r.err, "no plugin named 'nosuchplugin'"));
    cli_run_free(&r);
    /* A file that is not a shared library. */
    RUN(&r, NULL, "info", PJDL_CLI_SOURCE_FILE);
    expect_exit(&r, 3);
    cli_run_free(&r);
}

static void test_client_option_refused(void **state) {
    (void)state;
    cli_run r;
    RUN(&r, NULL, "info", "--option", "no_such_option=1", cli_ref_plugin());
    expect_exit(&r, 3);
    assert_non_null(strstr(r.err, "no_such_option"));
    cli_run_free(&r);
}

static void test_info_cpu(void **state) {
    (void)state;
    cli_run r;
    RUN(&r, NULL, "info", cli_ref_plugin());
    expect_exit(&r, 0);
    assert_non_null(strstr(r.out, "platform:         cpu"));
    assert_non_null(strstr(r.out, "platform id:      0xf88da91c978c8500"));
    assert_non_null(strstr(r.out, "DLDevice kDLCPU:0"));
    assert_non_null(strstr(r.out, "PJRT_Client_CreateViewOfDeviceBuffer"));
    assert_non_null(strstr(r.out, "PJRT_Buffer_IncreaseExternalReferenceCount   provided  ok"));
    assert_null(strstr(r.err, "\r")); /* no progress when not a terminal */
    cli_run_free(&r);
}

static void test_info_xpu_json(void **state) {
    (void)state;
    cli_run r;
    RUN(&r, NULL, "info", "--json", "-o", "platform=xpu", cli_ref_plugin());
    expect_exit(&r, 0);
    assert_int_equal(r.out[0], '{');
    assert_non_null(strstr(r.out, "\"platform\":\"xpu\""));
    assert_non_null(strstr(r.out, "\"platform_id\":\"0xac4b42972bd25347\""));
    assert_non_null(strstr(r.out, "\"device_type\":\"kDLOneAPI\""));
    assert_non_null(strstr(r.out, "\"name\":\"Stream\""));
    assert_non_null(strstr(r.out, "\"kind\":\"pinned_host\""));
    assert_non_null(strstr(r.out, "\"stopped\":null}"));
    cli_run_free(&r);
}

static void test_plugin_by_name_and_default(void **state) {
    (void)state;
    char names[2048];
    snprintf(names, sizeof names, "PJRT_NAMES_AND_LIBRARY_PATHS=other:/nope.so,ref:%s",
             cli_ref_plugin());
    const char *env[] = {names, NULL};
    cli_run r;
    RUN(&r, env, "info", "ref");
    expect_exit(&r, 0);
    assert_non_null(strstr(r.out, "platform:         cpu"));
    cli_run_free(&r);
    char def[2048];
    snprintf(def, sizeof def, "PJRT_DLPACK_PLUGIN=%s", cli_ref_plugin());
    const char *env2[] = {def, NULL};
    RUN(&r, env2, "info");
    expect_exit(&r, 0);
    assert_non_null(strstr(r.out, cli_ref_plugin()));
    cli_run_free(&r);
    /* Nothing given: the bundled reference plugin. */
    const char *env3[] = {"PJRT_DLPACK_PLUGIN=", NULL};
    RUN(&r, env3, "check", "--only", "abi");
    expect_exit(&r, 0);
    assert_non_null(strstr(r.out, "libpjrt_ref.so"));
    assert_non_null(strstr(r.out, "6 passed, 0 failed"));
    cli_run_free(&r);
}

static const char *all_checks[] = {
    "abi.entry",    "abi.version",     "abi.table",       "abi.extensions", "abi.args",
    "abi.types",    "export.types",    "export.shapes",   "export.strided", "export.fields",
    "import.views", "import.layouts",  "ready.no_stream", "ready.stream",   "pin.raw",
    "pin.export",   "ondelete.once",   "transfer.mode",   "reject.tensors", "reject.plugin",
    "threads",      "subbyte.storage",
};

/* Every check passes; none is unsupported on the reference plugin except
 * streams on cpu. */
static void expect_all_pass(const cli_run *r, const char *unsupported_ok) {
    for (size_t i = 0; i < sizeof all_checks / sizeof all_checks[0]; i++) {
        bool pass = cli_has_result(r->out, "PASS", all_checks[i]);
        if (!pass && unsupported_ok && strcmp(all_checks[i], unsupported_ok) == 0)
            pass = cli_has_result(r->out, "UNSUPPORTED", all_checks[i]);
        if (!pass)
            print_error("check %s did not pass:\n%s\n%s\n", all_checks[i], r->out, r->err);
        assert_true(pass);
    }
    assert_null(strstr(r->out, "\nFAIL"));
    assert_non_null(strstr(r->out, " 0 failed"));
}

static void test_check_cpu(void **state) {
    (void)state;
    cli_run r;
    RUN(&r, NULL, "check", cli_ref_plugin());
    expect_exit(&r, 0);
    expect_all_pass(&r, NULL);
    assert_null(strstr(r.err, "\r"));
    cli_run_free(&r);
}

static void test_check_xpu(void **state) {
    (void)state;
    cli_run r;
    RUN(&r, NULL, "check", "-o", "platform=xpu", "-o", "transfer_delay_us=2000", cli_ref_plugin());
    expect_exit(&r, 0);
    expect_all_pass(&r, NULL);
    cli_run_free(&r);
}

static void test_check_list_only_json(void **state) {
    (void)state;
    cli_run r;
    RUN(&r, NULL, "check", "--list");
    expect_exit(&r, 0);
    for (size_t i = 0; i < sizeof all_checks / sizeof all_checks[0]; i++)
        assert_non_null(strstr(r.out, all_checks[i]));
    cli_run_free(&r);
    RUN(&r, NULL, "check", "--only", "abi", "--json", cli_ref_plugin());
    expect_exit(&r, 0);
    assert_int_equal(r.out[0], '{');
    assert_non_null(strstr(r.out, "\"name\":\"abi.entry\",\"status\":\"PASS\""));
    assert_null(strstr(r.out, "export.types"));
    assert_non_null(strstr(r.out, "\"fail\":0"));
    cli_run_free(&r);
    RUN(&r, NULL, "check", "--only", "nothing.like.this", cli_ref_plugin());
    expect_exit(&r, 2);
    cli_run_free(&r);
}

/* On a terminal, check shows progress on stderr; piped it stays quiet
 * (test_check_cpu). */
static void test_progress_on_terminal(void **state) {
    (void)state;
    const char *args[] = {"check", "--only", "abi", cli_ref_plugin(), NULL};
    cli_run r;
    assert_true(cli_run_command_tty(args, NULL, 120, &r));
    expect_exit(&r, 0);
    assert_non_null(strstr(r.err, "check [1/6] abi.entry"));
    assert_non_null(strstr(r.err, "\r"));
    assert_non_null(strstr(r.out, "PASS        abi.entry"));
    cli_run_free(&r);
}

static void test_bench(void **state) {
    (void)state;
    cli_run r;
    RUN(&r, NULL, "bench", "-n", "5", "--size", "64k", cli_ref_plugin());
    expect_exit(&r, 0);
    assert_non_null(strstr(r.out, "| export + deleter (share)"));
    assert_non_null(strstr(r.out, "| import view + release"));
    assert_non_null(strstr(r.out, "| copy fallback import (64 KiB)"));
    assert_non_null(strstr(r.out, "| memcpy (64 KiB)"));
    assert_non_null(strstr(r.out, "| copy fallback / memcpy"));
    cli_run_free(&r);
    RUN(&r, NULL, "bench", "--json", "-n", "3", "--size", "4k", "-o", "platform=xpu",
        cli_ref_plugin());
    expect_exit(&r, 0);
    assert_non_null(strstr(r.out, "\"platform\":\"xpu\""));
    assert_non_null(strstr(r.out, "\"unit\":\"GB/s\""));
    cli_run_free(&r);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_help),
        cmocka_unit_test(test_usage_errors),
        cmocka_unit_test(test_plugin_not_found),
        cmocka_unit_test(test_client_option_refused),
        cmocka_unit_test(test_info_cpu),
        cmocka_unit_test(test_info_xpu_json),
        cmocka_unit_test(test_plugin_by_name_and_default),
        cmocka_unit_test(test_check_cpu),
        cmocka_unit_test(test_check_xpu),
        cmocka_unit_test(test_check_list_only_json),
        cmocka_unit_test(test_progress_on_terminal),
        cmocka_unit_test(test_bench),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
