/* `pjrt-dlpack info` on plugins without a client: one whose client creation
 * fails, aborts or hangs (tests/broken shims), one that cannot be loaded
 * because a library it needs is missing, and XLA's CPU plugin, which speaks
 * another minor version. Whatever can be read without a client is printed,
 * then why there is none, and the exit code is 3. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "run.h"

#define RUN(r, ...)                                                                                \
    do {                                                                                           \
        const char *args_[] = {__VA_ARGS__, NULL};                                                 \
        assert_true(cli_run_command(args_, NULL, 120, r));                                         \
    } while (0)

/* Fails with the whole output when `text` lacks `part`. */
static void expect_has(const cli_run *r, const char *text, const char *part) {
    if (strstr(text, part) == NULL)
        fail_msg("missing \"%s\"; exit %d (signal %d)\n--- stdout\n%s\n--- stderr\n%s", part,
                 r->exit_code, r->signal, r->out, r->err);
}

static void expect_exit(const cli_run *r, int code) {
    if (r->exit_code != code)
        fail_msg("exit %d (signal %d), expected %d\n--- stdout\n%s\n--- stderr\n%s", r->exit_code,
                 r->signal, code, r->out, r->err);
}

/* What the shims (all wrapping the reference plugin) show without a client. */
static void expect_clientless_facts(const cli_run *r) {
    expect_has(r, r->out, "PJRT ABI:         0.114 (this build: 0.114)");
    expect_has(r, r->out, "entry points:     138");
    expect_has(r, r->out, "attribute:        pjrt_ref_version = ");
    expect_has(r, r->out, "attribute:        pjrt_ref_platforms = cpu,xpu");
    expect_has(r, r->out, "extensions:       Stream(3)");
}

static void test_client_error(void **state) {
    (void)state;
    cli_run r;
    RUN(&r, "info", cli_broken_plugin("no_client"));
    expect_exit(&r, 3);
    expect_clientless_facts(&r);
    expect_has(&r, r.out,
               "client:           none: PJRT_Client_Create: no_client shim: no device of this "
               "platform is visible (FAILED_PRECONDITION)");
    expect_has(&r, r.err, "no_client shim: no device of this platform is visible");
    assert_null(strstr(r.out, "platform:"));
    cli_run_free(&r);
}

static void test_client_error_json(void **state) {
    (void)state;
    cli_run r;
    RUN(&r, "info", "--json", cli_broken_plugin("no_client"));
    expect_exit(&r, 3);
    /* The plugin's log line goes to stderr: stdout is the document alone. */
    assert_int_equal(r.out[0], '{');
    expect_has(&r, r.err, "no_client shim: a log line on stdout");
    expect_has(&r, r.out, "\"abi_version\":{\"major\":0,\"minor\":114}");
    expect_has(&r, r.out, "\"pjrt_ref_platforms\":\"cpu,xpu\"");
    expect_has(&r, r.out, "{\"type\":3,\"name\":\"Stream\"}");
    expect_has(&r, r.out,
               "\"client_error\":{\"step\":\"PJRT_Client_Create\",\"code\":\"FAILED_PRECONDITION\","
               "\"message\":\"PJRT_Client_Create: no_client shim: no device of this platform is "
               "visible\"}");
    cli_run_free(&r);
}

static void test_client_abort(void **state) {
    (void)state;
    cli_run r;
    RUN(&r, "info", cli_broken_plugin("client_abort"));
    expect_exit(&r, 3);
    expect_clientless_facts(&r);
    expect_has(&r, r.out,
               "client:           none: the plugin crashed the process in "
               "PJRT_Client_Create: signal 6");
    expect_has(&r, r.err, "signal 6");
    cli_run_free(&r);
    RUN(&r, "info", "--json", cli_broken_plugin("client_abort"));
    expect_exit(&r, 3);
    expect_has(&r, r.out, "\"client_error\":{\"step\":\"PJRT_Client_Create\",\"code\":\"CRASH\"");
    cli_run_free(&r);
}

static void test_client_hang(void **state) {
    (void)state;
    cli_run r;
    RUN(&r, "info", "--timeout-ms", "1500", cli_broken_plugin("client_hang"));
    expect_exit(&r, 3);
    expect_clientless_facts(&r);
    expect_has(&r, r.out, "client:           none: PJRT_Client_Create did not return within 1.5 s");
    cli_run_free(&r);
}

/* A plugin that crashes after its client was created (every host buffer
 * aborts): what was read (table, attributes, platform, devices, memories,
 * the capability rows) is printed, then the crash and its entry point;
 * exit 1. */
static void test_crash_after_client(void **state) {
    (void)state;
    cli_run r;
    RUN(&r, "info", cli_broken_plugin("buffer_crash"));
    expect_exit(&r, 1);
    expect_clientless_facts(&r);
    expect_has(&r, r.out, "platform:         cpu");
    expect_has(&r, r.out, "platform id:      0xf88da91c978c8500");
    expect_has(&r, r.out, "  device 0: kind \"cpu\", local hardware id 0");
    expect_has(&r, r.out, "    memory 0: device       -> DLDevice kDLCPU:0  (default)");
    expect_has(&r, r.out, "  PJRT_Client_BufferFromHostBuffer             provided");
    expect_has(&r, r.out,
               "stopped:          the plugin crashed the process in "
               "PJRT_Client_BufferFromHostBuffer: signal 6");
    expect_has(&r, r.err, "PJRT_Client_BufferFromHostBuffer: signal 6");
    cli_run_free(&r);
    RUN(&r, "info", "--json", cli_broken_plugin("buffer_crash"));
    expect_exit(&r, 1);
    assert_int_equal(r.out[0], '{');
    expect_has(&r, r.out, "\"pjrt_ref_platforms\":\"cpu,xpu\"");
    expect_has(&r, r.out, "\"client_error\":null,\"platform\":\"cpu\"");
    expect_has(&r, r.out, "\"dl_device\":{\"device_type\":\"kDLCPU\",\"device_id\":0}");
    expect_has(&r, r.out, "{\"name\":\"PJRT_Buffer_ToHostBuffer\",\"provided\":true");
    expect_has(&r, r.out,
               "\"stopped\":{\"code\":\"CRASH\",\"message\":\"the plugin crashed the process in "
               "PJRT_Client_BufferFromHostBuffer: signal 6");
    cli_run_free(&r);
}

/* dlopen fails: the library it needs is named, on stderr, with the hint. */
static void test_missing_dependency(void **state) {
    (void)state;
    cli_run r;
    RUN(&r, "info", cli_broken_plugin("missing_dep"));
    expect_exit(&r, 3);
    expect_has(&r, r.err, "libpjdl_gone.so: cannot open shared object file");
    expect_has(&r, r.err, "the plugin needs libpjdl_gone.so, which the dynamic loader cannot find");
    cli_run_free(&r);
}

/* --json always writes the whole document on stdout, every key present
 * (null, 0 or [] where nothing was read), whatever stopped the command:
 * a file that does not exist, a name nobody registered, a library the
 * loader refuses, a client that never comes (issue 38: these printed
 * nothing, or left keys out). */
static void expect_json_keys(const cli_run *r, const char *const *keys) {
    if (r->out[0] != '{')
        fail_msg("stdout is not a JSON document\n--- stdout\n%s\n--- stderr\n%s", r->out, r->err);
    for (size_t i = 0; keys[i] != NULL; i++) {
        char quoted[64];
        snprintf(quoted, sizeof quoted, "\"%s\":", keys[i]);
        expect_has(r, r->out, quoted);
    }
}

static void test_json_always_complete(void **state) {
    (void)state;
    static const char *const info_keys[] = {"plugin",
                                            "abi_version",
                                            "api_struct_size",
                                            "entry_points",
                                            "attributes",
                                            "extensions",
                                            "extensions_chain_ends",
                                            "client_error",
                                            "platform",
                                            "platform_version",
                                            "platform_id",
                                            "device_count",
                                            "devices",
                                            "capabilities",
                                            "stopped",
                                            NULL};
    static const char *const check_keys[] = {"plugin", "platform", "setup_error",
                                             "checks", "summary",  NULL};
    const char *plugins[] = {"/nonexistent/plugin.so", "no_such_registered_name",
                             cli_broken_plugin("missing_dep"), cli_broken_plugin("client_hang")};
    const char *why[] = {"no such file", "no_such_registered_name", "libpjdl_gone.so",
                         "did not return within"};
    for (size_t i = 0; i < sizeof plugins / sizeof plugins[0]; i++) {
        cli_run r;
        RUN(&r, "info", "--json", "--timeout-ms", "1000", plugins[i]);
        expect_exit(&r, 3);
        expect_json_keys(&r, info_keys);
        expect_has(&r, r.out, "\"platform\":null");
        expect_has(&r, r.out, "\"devices\":[]");
        expect_has(&r, r.out, why[i]);
        cli_run_free(&r);
        RUN(&r, "check", "--json", "--timeout-ms", "1000", "--only", "export.types", plugins[i]);
        expect_exit(&r, 3);
        expect_json_keys(&r, check_keys);
        expect_has(&r, r.out, "\"platform\":null");
        expect_has(&r, r.out, why[i]);
        cli_run_free(&r);
    }
}

/* A chain that loops back is shown up to the loop, not followed forever. */
static void test_extension_loop(void **state) {
    (void)state;
    cli_run r;
    RUN(&r, "info", cli_broken_plugin("bad_extensions"));
    expect_exit(&r, 0);
    expect_has(&r, r.out,
               "extensions:       Stream(3) other(0x504a5246) ... (the chain loops back)");
    cli_run_free(&r);
}

/* XLA's CPU plugin reports another minor; the names of its extensions are
 * known. */
static void test_xla_cpu(void **state) {
    (void)state;
    const char *xla = getenv("PJRT_XLA_CPU_PLUGIN");
    if (xla == NULL || xla[0] == '\0')
        fail_msg("PJRT_XLA_CPU_PLUGIN is not set: run scripts/setup.sh and reconfigure");
    cli_run r;
    RUN(&r, "info", xla);
    expect_exit(&r, 0);
    expect_has(&r, r.out, "PJRT ABI:         0.115 (this build: 0.114)");
    expect_has(&r, r.out, "attribute:        xla_version = 2");
    expect_has(&r, r.out, "Layouts(4)");
    expect_has(&r, r.out, "MemoryDescriptions(6)");
    expect_has(&r, r.out, "platform:         cpu");
    assert_null(strstr(r.out, "other("));
    cli_run_free(&r);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_client_error),         cmocka_unit_test(test_client_error_json),
        cmocka_unit_test(test_client_abort),         cmocka_unit_test(test_client_hang),
        cmocka_unit_test(test_crash_after_client),   cmocka_unit_test(test_missing_dependency),
        cmocka_unit_test(test_extension_loop),       cmocka_unit_test(test_xla_cpu),
        cmocka_unit_test(test_json_always_complete),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
