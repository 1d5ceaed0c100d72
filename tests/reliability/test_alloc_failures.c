/* Allocation-failure injection across the library and the plugin.
 *
 * One scenario per platform (cpu, xpu): register a platform name, load the
 * plugin, create a client, copy a host array in, export it (share mode),
 * import that export back (a zero-copy view of the plugin's memory), import
 * a host tensor with copy=ALWAYS, one with copy=IF_NEEDED (a view on cpu, a
 * copy on xpu) and a broadcast one (a staged copy), export a host copy
 * (legacy DLManagedTensor), read everything back (with a wait timeout, after
 * the first read) and compare, then release all of it.
 *
 * The walk fails the n-th library allocation (pjdl__test_fail_alloc_after)
 * for n = 1, 2, ... until a run makes fewer than n allocations, then does
 * the same with the plugin's n-th allocation (its fail_allocation test
 * extension). Every run must: return PJDL_OK or RESOURCE_EXHAUSTED from each
 * call (with a message), call the deleter of each imported host tensor
 * exactly once if its import succeeded and never otherwise, leave the
 * plugin's process-wide allocation count where it was, and (checked by the
 * .memcheck variant under valgrind, and by LeakSanitizer in the ASan build)
 * leak nothing. */
#include <unistd.h>

#include "internal.h" /* pjdl__test_fail_alloc_after: test-only, static library */
#include "lib_util.h"

#define ROWS 4
#define COLS 6
#define N (ROWS * COLS)

static pjdl_plugin *keeper; /* keeps the plugin loaded and its extension reachable */

/* The outcome of one step: true on success; RESOURCE_EXHAUSTED is a clean
 * failure; anything else fails the test. */
static bool step(pjdl_code code, const char *what, const char *platform, long n) {
    if (code == PJDL_OK)
        return true;
    if (code != PJDL_RESOURCE_EXHAUSTED)
        fail_msg("%s on %s (n=%ld): %s (%s), wanted OK or RESOURCE_EXHAUSTED", what, platform, n,
                 pjdl_code_name(code), pjdl_last_error());
    if (pjdl_last_error()[0] == '\0')
        fail_msg("%s on %s (n=%ld): RESOURCE_EXHAUSTED without a message", what, platform, n);
    return false;
}

static void expect_contents(pjdl_buffer *b, const float *want, const char *platform, long n,
                            bool *all) {
    float got[N];
    if (step(pjdl_buffer_to_host(b, got, sizeof got), "pjdl_buffer_to_host", platform, n))
        assert_memory_equal(got, want, sizeof got);
    else
        *all = false;
}

static void wait_deleted(lib_tensor *t, int want) {
    for (int i = 0; i < 20000 && __atomic_load_n(&t->deleted, __ATOMIC_SEQ_CST) < want; i++)
        usleep(100);
}

/* One run of the scenario: what it made, and whether every step so far
 * succeeded. */
typedef struct scn {
    const char *platform;
    long n;
    bool all;
    float src[N];
    pjdl_plugin *plugin;
    pjdl_client *client;
    pjdl_buffer *b, *view, *copied, *maybe_view, *bcast;
    DLManagedTensorVersioned *exported;
    DLManagedTensor *host_copy;
    lib_tensor always, if_needed, row;
    float always_data[N], if_needed_data[N], row_data[COLS], rows[N];
    bool always_ok, if_needed_ok, row_ok;
} scn;

/* step() for the scenario: false (and all false) when the call failed. */
static bool scn_step(scn *s, pjdl_code code, const char *what) {
    bool ok = step(code, what, s->platform, s->n);
    s->all = s->all && ok;
    return ok;
}

static void scn_init(scn *s, const char *platform, long n) {
    static const int64_t dims[2] = {ROWS, COLS}, broadcast[2] = {0, 1};
    memset(s, 0, sizeof *s);
    s->platform = platform;
    s->n = n;
    s->all = true;
    for (int i = 0; i < N; i++)
        s->src[i] = (float)i * 0.5f - 3.0f;
    memcpy(s->always_data, s->src, sizeof s->src);
    memcpy(s->if_needed_data, s->src, sizeof s->src);
    memcpy(s->row_data, s->src, sizeof s->row_data);
    for (int i = 0; i < N; i++)
        s->rows[i] = s->src[i % COLS];
    lib_tensor_init(&s->always, s->always_data, lib_dtype(kDLFloat, 32), 2, dims, NULL);
    lib_tensor_init(&s->if_needed, s->if_needed_data, lib_dtype(kDLFloat, 32), 2, dims, NULL);
    lib_tensor_init(&s->row, s->row_data, lib_dtype(kDLFloat, 32), 2, dims, broadcast);
}

/* Export, and import the export back: a view of the plugin's memory. */
static void scn_export_and_view(scn *s) {
    pjdl_export_options eo = PJDL_EXPORT_OPTIONS_INIT;
    if (!scn_step(s, pjdl_buffer_export(s->b, &eo, &s->exported), "pjdl_buffer_export"))
        return;
    pjdl_import_options io = PJDL_IMPORT_OPTIONS_INIT;
    io.copy = PJDL_COPY_NEVER;
    if (scn_step(s, pjdl_import(&s->client, 1, s->exported, &io, &s->view),
                 "pjdl_import (view of an export)")) {
        s->exported = NULL; /* the library owns it now */
        expect_contents(s->view, s->src, s->platform, s->n, &s->all);
    }
}

/* Host tensors: an explicit copy, whatever is cheapest, and a broadcast. */
static void scn_host_imports(scn *s) {
    pjdl_import_options io = PJDL_IMPORT_OPTIONS_INIT;
    io.copy = PJDL_COPY_ALWAYS;
    io.device = pjdl_client_device(s->client, 0);
    s->always_ok = scn_step(s, pjdl_import(&s->client, 1, &s->always.v, &io, &s->copied),
                            "pjdl_import (copy=ALWAYS)");
    if (s->always_ok)
        expect_contents(s->copied, s->src, s->platform, s->n, &s->all);
    io.copy = PJDL_COPY_IF_NEEDED;
    s->if_needed_ok = scn_step(s, pjdl_import(&s->client, 1, &s->if_needed.v, &io, &s->maybe_view),
                               "pjdl_import (copy=IF_NEEDED)");
    if (s->if_needed_ok)
        expect_contents(s->maybe_view, s->src, s->platform, s->n, &s->all);
    s->row_ok = scn_step(s, pjdl_import(&s->client, 1, &s->row.v, &io, &s->bcast),
                         "pjdl_import (broadcast)");
    if (s->row_ok)
        expect_contents(s->bcast, s->rows, s->platform, s->n, &s->all);
}

/* A host copy as a legacy tensor. */
static void scn_host_copy(scn *s) {
    pjdl_export_options co = PJDL_EXPORT_OPTIONS_INIT;
    co.copy = PJDL_COPY_ALWAYS;
    if (scn_step(s, pjdl_buffer_export_legacy(s->b, &co, &s->host_copy),
                 "pjdl_buffer_export_legacy (copy)")) {
        assert_int_equal(s->host_copy->dl_tensor.device.device_type, kDLCPU);
        assert_memory_equal(s->host_copy->dl_tensor.data, s->src, sizeof s->src);
    }
}

/* Releases everything in an order unlike creation (the library must
 * cope), and checks each imported tensor's deleter ran once if and only if
 * its import succeeded. */
static void scn_release(scn *s) {
    if (s->host_copy != NULL)
        s->host_copy->deleter(s->host_copy);
    if (s->exported != NULL)
        s->exported->deleter(s->exported); /* its import failed: still ours */
    pjdl_buffer_release(s->b);
    pjdl_buffer_release(s->view);
    pjdl_buffer_release(s->copied);
    pjdl_buffer_release(s->maybe_view);
    pjdl_buffer_release(s->bcast);
    pjdl_client_release(s->client);
    pjdl_plugin_release(s->plugin);
    wait_deleted(&s->always, s->always_ok);
    wait_deleted(&s->if_needed, s->if_needed_ok);
    wait_deleted(&s->row, s->row_ok);
    assert_int_equal(s->row.deleted, s->row_ok ? 1 : 0);
    assert_int_equal(s->always.deleted, s->always_ok ? 1 : 0);
    assert_int_equal(s->if_needed.deleted, s->if_needed_ok ? 1 : 0);
}

/* Runs the scenario once; true if every step succeeded. */
static bool scenario(const char *platform, long n) {
    static const int64_t dims[2] = {ROWS, COLS};
    scn run, *s = &run;
    scn_init(s, platform, n);
    /* The registry: a copy of the name each time (freed when known). */
    scn_step(s, pjdl_register_platform("reliability-test", kDLExtDev, kDLCPU),
             "pjdl_register_platform");
    if (!step(pjdl_plugin_load(lib_plugin_path(), &s->plugin), "pjdl_plugin_load", platform, n))
        return false;
    pjdl_option opt = {.name = "platform", .type = PJDL_OPTION_STRING};
    opt.value.string_value = platform;
    if (scn_step(s, pjdl_client_create(s->plugin, &opt, 1, &s->client), "pjdl_client_create") &&
        scn_step(s,
                 pjdl_buffer_from_host(s->client, s->src, PJRT_Buffer_Type_F32, dims, 2, NULL, NULL,
                                       &s->b),
                 "pjdl_buffer_from_host")) {
        expect_contents(s->b, s->src, platform, n, &s->all);
        /* From here on reads go through the library's deadline path. */
        pjdl_client_set_wait_timeout(s->client, 60000);
        scn_export_and_view(s);
        scn_host_imports(s);
        scn_host_copy(s);
    }
    scn_release(s);
    return s->all;
}

/* Waits (bounded) for the plugin's count to come back: xpu streams may
 * finish freeing after the last release returns. */
static void expect_plugin_baseline(int64_t baseline, const char *platform, const char *who,
                                   long n) {
    int64_t live = lib_settled_process(keeper, baseline, 2000);
    if (live != baseline)
        fail_msg("%s, %s allocation %ld failed: the plugin has %lld live allocations, %lld before",
                 platform, who, n, (long long)live, (long long)baseline);
}

/* The walk on platform *state. */
static void test_walk(void **state) {
    const char *platform = *state;
    int64_t baseline = lib_live_process(keeper);
    pjdl__test_fail_alloc_after(0);
    lib_fail_allocation(keeper, 0);
    assert_true(scenario(platform, 0));
    long lib_total = pjdl__test_fail_alloc_after(0);
    long plugin_total = (long)lib_fail_allocation(keeper, 0);
    expect_plugin_baseline(baseline, platform, "no", 0);

    long lib_sites = 0, plugin_sites = 0;
    for (long n = 1;; n++) {
        pjdl__test_fail_alloc_after(n);
        bool all = scenario(platform, n);
        long made = pjdl__test_fail_alloc_after(0);
        expect_plugin_baseline(baseline, platform, "library", n);
        if (made < n) {
            assert_true(all); /* nothing failed: the walk is past the end */
            break;
        }
        lib_sites++;
        assert_true(n < 100000);
    }
    for (long n = 1;; n++) {
        lib_fail_allocation(keeper, n);
        bool all = scenario(platform, n);
        long made = (long)lib_fail_allocation(keeper, 0);
        expect_plugin_baseline(baseline, platform, "plugin", n);
        if (made < n) {
            assert_true(all);
            break;
        }
        plugin_sites++;
        assert_true(n < 100000);
    }
    print_message("%s: %ld library and %ld plugin allocations in the scenario; each failed once "
                  "cleanly (%ld + %ld runs)\n",
                  platform, lib_total, plugin_total, lib_sites, plugin_sites);
    /* Asynchronous work may make the count vary a little between runs. */
    assert_true(lib_sites >= lib_total - 2 && lib_sites > 10);
    assert_true(plugin_sites > 10);
}

int main(void) {
    LIB_OK(pjdl_plugin_load(lib_plugin_path(), &keeper));
    if (lib_ref_ext(keeper) == NULL) {
        fprintf(stderr, "the reference plugin has no test extension\n");
        return 1;
    }
    const struct CMUnitTest tests[] = {
        {"test_walk(cpu)", test_walk, NULL, NULL, (void *)"cpu"},
        {"test_walk(xpu)", test_walk, NULL, NULL, (void *)"xpu"},
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    pjdl_plugin_release(keeper);
    return rc;
}
