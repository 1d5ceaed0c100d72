/* `pjrt-dlpack check` on deliberately broken plugins (tests/broken): each
 * mistake makes the check that covers it FAIL and the command exit 1, or,
 * where the library keeps wrong data from the caller, UNSUPPORTED naming
 * it; the same checks pass on the reference plugin (test_cli). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "run.h"

typedef struct broken_case {
    const char *shim;
    const char *platform; /* "cpu" or "xpu" */
    const char *fails[4]; /* checks that must FAIL */
    int exit_code;
} broken_case;

static void run_case(const broken_case *c) {
    char platform[64];
    snprintf(platform, sizeof platform, "platform=%s", c->platform);
    const char *args[] = {"check", "-o", platform, NULL, NULL, NULL, NULL, NULL, NULL};
    size_t n = 3;
    bool early = strcmp(c->shim, "early_ready") == 0;
    if (strcmp(c->platform, "xpu") == 0) {
        /* Slow transfers make early readiness observable; slow enough that
         * a busy machine cannot hide it. */
        args[n++] = "-o";
        args[n++] = early ? "transfer_delay_us=200000" : "transfer_delay_us=500";
    }
    if (early) {
        args[n++] = "--only";
        args[n++] = "ready";
    }
    args[n++] = cli_broken_plugin(c->shim);
    /* Freed memory is filled with a pattern so use-after-free is visible. */
    const char *env[] = {"MALLOC_PERTURB_=165", NULL};
    cli_run r;
    assert_true(cli_run_command(args, env, 280, &r));
    bool ok = r.exit_code == c->exit_code;
    for (size_t i = 0; i < 4 && c->fails[i]; i++)
        ok = ok && cli_has_result(r.out, "FAIL", c->fails[i]);
    if (!ok)
        print_error("shim %s on %s: exit %d (signal %d), expected %d\n--- stdout\n%s\n--- "
                    "stderr\n%s\n",
                    c->shim, c->platform, r.exit_code, r.signal, c->exit_code, r.out, r.err);
    assert_true(ok);
    cli_run_free(&r);
}

#define CASE(fn, ...)                                                                              \
    static void fn(void **state) {                                                                 \
        (void)state;                                                                               \
        const broken_case c = __VA_ARGS__;                                                         \
        run_case(&c);                                                                              \
    }

CASE(test_nopin_cpu, {"nopin", "cpu", {"pin.raw", "pin.export", "ondelete.once"}, 1})
CASE(test_nopin_xpu, {"nopin", "xpu", {"pin.raw", "pin.export", "ondelete.once"}, 1})
CASE(test_ondelete_twice, {"ondelete_twice", "cpu", {"ondelete.once"}, 1})
CASE(test_ondelete_never, {"ondelete_never", "xpu", {"ondelete.once"}, 1})
CASE(test_early_ready, {"early_ready", "xpu", {"ready.no_stream", "ready.stream"}, 1})
CASE(test_wrong_dtype, {"wrong_dtype", "cpu", {"export.types"}, 1})
CASE(test_unpacked_subbyte, {"unpacked_subbyte", "cpu", {"subbyte.storage"}, 1})
CASE(test_wrong_dims, {"wrong_dims", "cpu", {"export.shapes"}, 1})

/* Limited, not wrong, once the library sees it: a plugin whose views
 * ignore their layout gets no permuted view (import.layouts UNSUPPORTED,
 * naming it), and one that crashes on an element type newer than its ABI
 * is never handed one (abi.types UNSUPPORTED, naming the type and the
 * ABI; subbyte.storage passes on the types it has). Exit 0. */
static void expect_limited(const char *shim, const char *check, const char *says) {
    const char *args[] = {"check", cli_broken_plugin(shim), NULL};
    cli_run r;
    assert_true(cli_run_command(args, NULL, 280, &r));
    bool ok = r.exit_code == 0 && cli_has_result(r.out, "UNSUPPORTED", check) &&
              strstr(r.out, says) != NULL && cli_has_result(r.out, "PASS", "subbyte.storage");
    if (!ok)
        print_error("shim %s: exit %d, expected 0 and %s UNSUPPORTED (%s)\n--- stdout\n%s\n--- "
                    "stderr\n%s\n",
                    shim, r.exit_code, check, says, r.out, r.err);
    assert_true(ok);
    cli_run_free(&r);
}

static void test_view_layout(void **state) {
    (void)state;
    expect_limited("view_layout", "import.layouts", "the plugin ignores the layout of a view");
}

static void test_old_abi(void **state) {
    (void)state;
    /* The crash itself is worded by how the child ended (a signal, or
     * AddressSanitizer's exit in the sanitizer build). */
    expect_limited("old_abi", "abi.types",
                   "on BufferFromHostBuffer of f6e2m3fn, a type newer than its ABI 0.106 (new in "
                   "0.114)");
}
CASE(test_accepts_negative, {"accepts_negative", "cpu", {"reject.plugin"}, 1})
CASE(test_null_api, {"null_api", "cpu", {"abi.entry"}, 1})
CASE(test_short_api, {"short_api", "cpu", {"abi.table"}, 1})
CASE(test_bad_major, {"bad_major", "cpu", {"abi.version"}, 1})
CASE(test_bad_extensions, {"bad_extensions", "cpu", {"abi.extensions"}, 1})
CASE(test_no_size_check, {"no_size_check", "cpu", {"abi.args"}, 1})
CASE(test_wrong_layout, {"wrong_layout", "cpu", {"export.strided"}, 1})
CASE(test_same_hardware_id, {"same_hardware_id", "xpu", {"export.fields"}, 1})
/* Every host buffer crashes, well formed or not: reject.plugin must not
 * take that for the plugin refusing a malformed one (UNSUPPORTED). */
CASE(test_buffer_crash, {"buffer_crash", "cpu", {"reject.plugin"}, 1})

/* A plugin without views is limited, not wrong: UNSUPPORTED, exit 0. */
static void test_no_views(void **state) {
    (void)state;
    const char *args[] = {"check", cli_broken_plugin("no_views"), NULL};
    cli_run r;
    assert_true(cli_run_command(args, NULL, 280, &r));
    bool ok = r.exit_code == 0 && cli_has_result(r.out, "UNSUPPORTED", "import.views") &&
              cli_has_result(r.out, "UNSUPPORTED", "ondelete.once") &&
              cli_has_result(r.out, "PASS", "export.types") && strstr(r.out, "\nFAIL") == NULL &&
              /* Refusals of malformed views and no-copy imports say nothing
               * when the well-formed ones fail too: not asked, and said. */
              strstr(r.out, "malformed views not asked: a well-formed view fails") != NULL &&
              strstr(r.out, "5 malformed tensors not asked: the same tensor, well formed, does "
                            "not import without a copy either") != NULL;
    if (!ok)
        print_error("exit %d\n--- stdout\n%s\n--- stderr\n%s\n", r.exit_code, r.out, r.err);
    assert_true(ok);
    cli_run_free(&r);
}

/* A plugin that logs to stdout (as Tenstorrent's does) cannot spoil the
 * report: its line goes to stderr, stdout is the JSON document alone. */
static void test_check_json_plugin_logs(void **state) {
    (void)state;
    const char *args[] = {"check", "--json", cli_broken_plugin("no_client"), NULL};
    cli_run r;
    assert_true(cli_run_command(args, NULL, 120, &r));
    bool ok = r.exit_code == 3 && r.out[0] == '{' &&
              strstr(r.out, "\"name\":\"abi.entry\",\"status\":\"PASS\"") != NULL &&
              strstr(r.err, "no_client shim: a log line on stdout") != NULL;
    if (!ok)
        print_error("exit %d\n--- stdout\n%s\n--- stderr\n%s\n", r.exit_code, r.out, r.err);
    assert_true(ok);
    cli_run_free(&r);
}

/* info probes the entry points: the limited plugin's view slot is there but
 * answers UNIMPLEMENTED. */
static void test_info_probes_unimplemented(void **state) {
    (void)state;
    const char *args[] = {"info", cli_broken_plugin("no_views"), NULL};
    cli_run r;
    assert_true(cli_run_command(args, NULL, 120, &r));
    bool ok =
        r.exit_code == 0 &&
        strstr(r.out, "PJRT_Client_CreateViewOfDeviceBuffer         provided  UNIMPLEMENTED") !=
            NULL &&
        strstr(r.out, "PJRT_Buffer_IncreaseExternalReferenceCount   provided  ok") != NULL;
    if (!ok)
        print_error("exit %d\n--- stdout\n%s\n--- stderr\n%s\n", r.exit_code, r.out, r.err);
    assert_true(ok);
    cli_run_free(&r);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_nopin_cpu),        cmocka_unit_test(test_nopin_xpu),
        cmocka_unit_test(test_ondelete_twice),   cmocka_unit_test(test_ondelete_never),
        cmocka_unit_test(test_early_ready),      cmocka_unit_test(test_wrong_dtype),
        cmocka_unit_test(test_unpacked_subbyte), cmocka_unit_test(test_wrong_dims),
        cmocka_unit_test(test_view_layout),      cmocka_unit_test(test_old_abi),
        cmocka_unit_test(test_accepts_negative), cmocka_unit_test(test_null_api),
        cmocka_unit_test(test_short_api),        cmocka_unit_test(test_bad_major),
        cmocka_unit_test(test_bad_extensions),   cmocka_unit_test(test_no_size_check),
        cmocka_unit_test(test_wrong_layout),     cmocka_unit_test(test_same_hardware_id),
        cmocka_unit_test(test_no_views),         cmocka_unit_test(test_info_probes_unimplemented),
        cmocka_unit_test(test_buffer_crash),     cmocka_unit_test(test_check_json_plugin_logs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
