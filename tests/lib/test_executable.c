/* Executables on XLA's own CPU plugin (the reference plugin cannot
 * compile), and on Intel's oneAPI plugin over ze_sim, whose kernels the
 * host's CPU computes (tests/oneapi builds this file as
 * test_oneapi_lib_executable): compile errors with the plugin's message,
 * argument checks, results computed from DLPack views, results that are
 * not ready when Execute returns and an export that waits for them, one
 * made ready on a consumer's stream (Intel's plugin), and results that
 * outlive their executable and inputs.
 *
 * The plugin comes from PJRT_XLA_CPU_PLUGIN (PJRT_ONEAPI_PLUGIN); without
 * it every test fails. */
#include <sched.h>
#include <time.h>

#include "lib_util.h"
/* xla_compute_program: the xla-compute example's program (a * b + 1, and a
 * transposed), examples/xla_compute.mlir. */
#include "xla_compute_program.h"

static const int64_t dims23[] = {2, 3};

static pjdl_executable *compile(lib_fixture *f, const char *text) {
    pjdl_executable *exe = NULL;
    LIB_OK(pjdl_executable_compile(f->client, text, strlen(text), "mlir", &exe));
    return exe;
}

static pjdl_buffer *host_buffer(lib_fixture *f, const float *data, const int64_t *dims,
                                size_t ndim) {
    pjdl_buffer *b = NULL;
    LIB_OK(
        pjdl_buffer_from_host(f->client, data, PJRT_Buffer_Type_F32, dims, ndim, NULL, NULL, &b));
    return b;
}

static void bad_mlir_reports_the_plugins_message(void **state) {
    lib_fixture *f = *state;
    pjdl_executable *exe = NULL;
    static const char bad[] = "func.func @main( this is not MLIR";
    pjdl_code code = pjdl_executable_compile(f->client, bad, strlen(bad), NULL, &exe);
    assert_int_not_equal(code, PJDL_OK);
    assert_null(exe);
    assert_non_null(strstr(pjdl_last_error(), "PJRT_Client_Compile: "));
    /* The MLIR parser's diagnostic, passed on. */
    assert_non_null(strstr(pjdl_last_error(), "error"));
    /* A well-formed module that does not type-check. */
    static const char mistyped[] = "func.func @main(%a: tensor<2xf32>) -> tensor<3xf32> {\n"
                                   "  return %a : tensor<2xf32>\n"
                                   "}\n";
    code = pjdl_executable_compile(f->client, mistyped, strlen(mistyped), NULL, &exe);
    assert_int_not_equal(code, PJDL_OK);
    assert_null(exe);
    assert_non_null(strstr(pjdl_last_error(), "doesn't match function result type"));
    LIB_FAILS(PJDL_INVALID_ARGUMENT,
              pjdl_executable_compile(NULL, xla_compute_program, 1, NULL, &exe));
    LIB_FAILS(PJDL_INVALID_ARGUMENT, pjdl_executable_compile(f->client, NULL, 1, NULL, &exe));
    LIB_FAILS(PJDL_INVALID_ARGUMENT,
              pjdl_executable_compile(f->client, xla_compute_program, strlen(xla_compute_program),
                                      NULL, NULL));
}

static void reference_plugin_cannot_compile(void **state) {
    (void)state;
    pjdl_plugin *ref = lib_load();
    pjdl_client *client = lib_client(ref, "cpu");
    pjdl_executable *exe = NULL;
    LIB_FAILS(PJDL_UNIMPLEMENTED, pjdl_executable_compile(client, xla_compute_program,
                                                          strlen(xla_compute_program), NULL, &exe));
    assert_null(exe);
    pjdl_client_release(client);
    pjdl_plugin_release(ref);
}

static void computes(void **state) {
    lib_fixture *f = *state;
    pjdl_executable *exe = compile(f, xla_compute_program);
    assert_int_equal(pjdl_executable_output_count(exe), 2);
    assert_ptr_equal(pjdl_executable_client(exe), f->client);
    assert_ptr_equal(pjdl_executable_device(exe), pjdl_client_device(f->client, 0));
    assert_non_null(pjdl_executable_pjrt(exe));
    const float a[6] = {1, 2, 3, 4, 5, 6}, b[6] = {2, 2, 2, 3, 3, 3};
    pjdl_buffer *in[2] = {host_buffer(f, a, dims23, 2), host_buffer(f, b, dims23, 2)};
    pjdl_buffer *out[3] = {NULL, NULL, NULL};
    size_t n = 0;
    LIB_OK(pjdl_executable_execute(exe, in, 2, out, 3, &n));
    assert_int_equal(n, 2);
    assert_null(out[2]);
    assert_int_equal(pjdl_buffer_type(out[0]), PJRT_Buffer_Type_F32);
    assert_int_equal(pjdl_buffer_ndim(out[1]), 2);
    assert_int_equal(pjdl_buffer_dims(out[1])[0], 3);
    assert_int_equal(pjdl_buffer_dims(out[1])[1], 2);
    float s[6], t[6];
    LIB_OK(pjdl_buffer_to_host(out[0], s, sizeof s));
    LIB_OK(pjdl_buffer_to_host(out[1], t, sizeof t));
    const float want_s[6] = {3, 5, 7, 13, 16, 19}, want_t[6] = {1, 4, 2, 5, 3, 6};
    assert_memory_equal(s, want_s, sizeof s);
    assert_memory_equal(t, want_t, sizeof t);
    /* Executing again gives new buffers. */
    pjdl_buffer *again[2];
    LIB_OK(pjdl_executable_execute(exe, in, 2, again, 2, &n));
    assert_ptr_not_equal(again[0], out[0]);
    LIB_OK(pjdl_buffer_to_host(again[0], s, sizeof s));
    assert_memory_equal(s, want_s, sizeof s);
    for (int i = 0; i < 2; i++) {
        pjdl_buffer_release(again[i]);
        pjdl_buffer_release(out[i]);
        pjdl_buffer_release(in[i]);
    }
    pjdl_executable_release(exe);
}

static void bad_arguments(void **state) {
    lib_fixture *f = *state;
    pjdl_executable *exe = compile(f, xla_compute_program);
    const float a[6] = {0};
    pjdl_buffer *in[2] = {host_buffer(f, a, dims23, 2), host_buffer(f, a, dims23, 2)};
    pjdl_buffer *out[2] = {NULL, NULL};
    size_t n = 7;
    /* Wrong number of inputs: the plugin's check and message. */
    LIB_FAILS(PJDL_INVALID_ARGUMENT, pjdl_executable_execute(exe, in, 1, out, 2, &n));
    assert_non_null(strstr(pjdl_last_error(), "PJRT_LoadedExecutable_Execute: "));
    assert_non_null(strstr(pjdl_last_error(), "expected 2"));
    /* An input of another size. (The C API cannot tell the library the
     * parameters' shapes; XLA's CPU plugin checks sizes, not dimensions.) */
    const float nine[9] = {0};
    const int64_t dims33[] = {3, 3};
    pjdl_buffer *wrong = host_buffer(f, nine, dims33, 2);
    pjdl_buffer *mixed[2] = {in[0], wrong};
    assert_int_not_equal(pjdl_executable_execute(exe, mixed, 2, out, 2, &n), PJDL_OK);
    assert_non_null(strstr(pjdl_last_error(), "PJRT_LoadedExecutable_Execute: "));
    pjdl_buffer_release(wrong);
    /* Too little room for the results. */
    LIB_FAILS(PJDL_OUT_OF_RANGE, pjdl_executable_execute(exe, in, 2, out, 1, &n));
    /* NULLs. */
    LIB_FAILS(PJDL_INVALID_ARGUMENT, pjdl_executable_execute(NULL, in, 2, out, 2, &n));
    LIB_FAILS(PJDL_INVALID_ARGUMENT, pjdl_executable_execute(exe, NULL, 2, out, 2, &n));
    LIB_FAILS(PJDL_INVALID_ARGUMENT, pjdl_executable_execute(exe, in, 2, NULL, 2, &n));
    LIB_FAILS(PJDL_INVALID_ARGUMENT, pjdl_executable_execute(exe, in, 2, out, 2, NULL));
    pjdl_buffer *with_null[2] = {in[0], NULL};
    LIB_FAILS(PJDL_INVALID_ARGUMENT, pjdl_executable_execute(exe, with_null, 2, out, 2, &n));
    /* A deleted input, named. */
    LIB_OK(pjdl_buffer_delete(in[1]));
    LIB_FAILS(PJDL_FAILED_PRECONDITION, pjdl_executable_execute(exe, in, 2, out, 2, &n));
    assert_non_null(strstr(pjdl_last_error(), "input 1"));
    assert_non_null(strstr(pjdl_last_error(), "deleted"));
    /* An input of another client (the reference plugin's). */
    pjdl_plugin *ref = lib_load();
    pjdl_client *other = lib_client(ref, "cpu");
    pjdl_buffer *foreign = NULL;
    LIB_OK(pjdl_buffer_from_host(other, a, PJRT_Buffer_Type_F32, dims23, 2, NULL, NULL, &foreign));
    pjdl_buffer *cross[2] = {in[0], foreign};
    LIB_FAILS(PJDL_INVALID_ARGUMENT, pjdl_executable_execute(exe, cross, 2, out, 2, &n));
    assert_non_null(strstr(pjdl_last_error(), "another client"));
    /* Nothing was written on failure. */
    assert_null(out[0]);
    assert_null(out[1]);
    assert_int_equal(n, 7);
    pjdl_buffer_release(foreign);
    pjdl_client_release(other);
    pjdl_plugin_release(ref);
    pjdl_buffer_release(in[0]);
    pjdl_buffer_release(in[1]);
    pjdl_executable_release(exe);
}

/* A 64-byte-aligned host tensor (XLA refuses to view less aligned data). */
static float *aligned_floats(size_t n) {
    void *p = NULL;
    assert_int_equal(posix_memalign(&p, 64, n * sizeof(float)), 0);
    return p;
}

/* On Intel's plugin: host memory is the GPU client's pinned_host memory,
 * which XLA's executables do not take as an input (Execute says so), and
 * views of device memory (exports of its own buffers) are inputs. */
static void device_views_in(lib_fixture *f, pjdl_executable *exe, pjdl_buffer *host_views[2]) {
    pjdl_buffer *out[2];
    size_t n = 0;
    assert_int_equal(pjdl_executable_execute(exe, host_views, 2, out, 2, &n),
                     PJDL_INVALID_ARGUMENT);
    assert_non_null(strstr(pjdl_last_error(), "RuntimeProgramInputMismatch"));
    const float a[6] = {0, 1, 2, 3, 4, 5}, b[6] = {10, 10, 10, 10, 10, 10};
    pjdl_buffer *dev[2] = {host_buffer(f, a, dims23, 2), host_buffer(f, b, dims23, 2)}, *in[2];
    pjdl_import_options opts = lib_import_options(PJDL_COPY_NEVER);
    for (int i = 0; i < 2; i++) {
        DLManagedTensorVersioned *t = NULL;
        LIB_OK(pjdl_buffer_export(dev[i], NULL, &t));
        assert_int_equal(t->dl_tensor.device.device_type, kDLOneAPI);
        LIB_OK(pjdl_import(&f->client, 1, t, &opts, &in[i]));
    }
    LIB_OK(pjdl_executable_execute(exe, in, 2, out, 2, &n));
    float s[6];
    LIB_OK(pjdl_buffer_to_host(out[0], s, sizeof s));
    for (int i = 0; i < 6; i++)
        assert_true(s[i] == a[i] * b[i] + 1.0f);
    for (int i = 0; i < 2; i++) {
        pjdl_buffer_release(out[i]);
        pjdl_buffer_release(in[i]);
        pjdl_buffer_release(dev[i]);
    }
}

/* Inputs that are DLPack views: the executable reads the producer's memory,
 * and each producer's deleter runs once, after the last user (the running
 * execution included) is done with it. */
static void dlpack_views_in_outputs_out(void **state) {
    lib_fixture *f = *state;
    pjdl_executable *exe = compile(f, xla_compute_program);
    float *a = aligned_floats(6), *b = aligned_floats(6);
    for (int i = 0; i < 6; i++) {
        a[i] = (float)i;
        b[i] = 10.0f;
    }
    lib_tensor ta, tb;
    lib_tensor_init(&ta, a, lib_dtype(kDLFloat, 32), 2, dims23, NULL);
    lib_tensor_init(&tb, b, lib_dtype(kDLFloat, 32), 2, dims23, NULL);
    pjdl_import_options opts = lib_import_options(PJDL_COPY_NEVER);
    pjdl_buffer *in[2];
    LIB_OK(pjdl_import(&f->client, 1, &ta.v, &opts, &in[0]));
    LIB_OK(pjdl_import(&f->client, 1, &tb.v, &opts, &in[1]));
    void *pa = NULL;
    LIB_OK(pjdl_buffer_data_pointer(in[0], &pa));
    assert_ptr_equal(pa, a);
    pjdl_buffer *out[2];
    size_t n = 0;
    if (lib_on_oneapi()) {
        device_views_in(f, exe, in);
        pjdl_buffer_release(in[0]);
        pjdl_buffer_release(in[1]);
        pjdl_executable_release(exe);
        assert_int_equal(lib_deleted(&ta, 1), 1);
        assert_int_equal(lib_deleted(&tb, 1), 1);
        free(a);
        free(b);
        return;
    }
    LIB_OK(pjdl_executable_execute(exe, in, 2, out, 2, &n));
    pjdl_buffer_release(in[0]);
    pjdl_buffer_release(in[1]);
    DLManagedTensorVersioned *t = NULL;
    LIB_OK(pjdl_buffer_export(out[0], NULL, &t));
    assert_int_equal(t->flags & DLPACK_FLAG_BITMASK_IS_COPIED, 0);
    void *po = NULL;
    LIB_OK(pjdl_buffer_data_pointer(out[0], &po));
    assert_ptr_equal((char *)t->dl_tensor.data + t->dl_tensor.byte_offset, po);
    const float *s = (const float *)((char *)t->dl_tensor.data + t->dl_tensor.byte_offset);
    for (int i = 0; i < 6; i++)
        assert_true(s[i] == (float)i * 10.0f + 1.0f);
    t->deleter(t);
    pjdl_buffer_release(out[0]);
    pjdl_buffer_release(out[1]);
    pjdl_executable_release(exe);
    /* XLA drops its hold on the inputs when the execution ends, which may
     * be a moment after the results became ready. */
    for (int i = 0; i < 5000 && (__atomic_load_n(&ta.deleted, __ATOMIC_SEQ_CST) == 0 ||
                                 __atomic_load_n(&tb.deleted, __ATOMIC_SEQ_CST) == 0);
         i++)
        nanosleep(&(struct timespec){0, 1000000}, NULL);
    assert_int_equal(__atomic_load_n(&ta.deleted, __ATOMIC_SEQ_CST), 1);
    assert_int_equal(__atomic_load_n(&tb.deleted, __ATOMIC_SEQ_CST), 1);
    free(a);
    free(b);
}

/* A product of two N x N matrices: long enough (tens of milliseconds) that
 * XLA's executor is still computing when Execute returns. On Intel's
 * plugin an elementwise a * b * N, which gives the same values for inputs
 * of one value: its matrix products go to oneDNN, whose kernels are GPU
 * machine code ze_sim cannot run (zesim/README.md), and ze_sim delays
 * every command (ZE_SIM_DELAY_US) anyway. */
#define BIG 1024

static char *big_program_text(void) {
#ifdef PJDL_TEST_ONEAPI
    static const char fmt[] =
        "func.func @main(%%a: tensor<%dx%dxf32>, %%b: tensor<%dx%dxf32>) -> tensor<%dx%dxf32> {\n"
        "  %%p = stablehlo.multiply %%a, %%b : tensor<%dx%dxf32>\n"
        "  %%n = stablehlo.constant dense<%d.0> : tensor<%dx%dxf32>\n"
        "  %%c = stablehlo.multiply %%p, %%n : tensor<%dx%dxf32>\n"
        "  return %%c : tensor<%dx%dxf32>\n"
        "}\n";
    char *text = malloc(1024);
    snprintf(text, 1024, fmt, BIG, BIG, BIG, BIG, BIG, BIG, BIG, BIG, BIG, BIG, BIG, BIG, BIG, BIG,
             BIG);
#else
    static const char fmt[] =
        "func.func @main(%%a: tensor<%dx%dxf32>, %%b: tensor<%dx%dxf32>) -> tensor<%dx%dxf32> {\n"
        "  %%c = stablehlo.dot_general %%a, %%b, contracting_dims = [1] x [0]\n"
        "      : (tensor<%dx%dxf32>, tensor<%dx%dxf32>) -> tensor<%dx%dxf32>\n"
        "  return %%c : tensor<%dx%dxf32>\n"
        "}\n";
    char *text = malloc(1024);
    snprintf(text, 1024, fmt, BIG, BIG, BIG, BIG, BIG, BIG, BIG, BIG, BIG, BIG, BIG, BIG, BIG, BIG);
#endif
    return text;
}

/* The BIG x BIG product compiled, and a BIG x BIG input of `value`s. */
static pjdl_executable *big_program(lib_fixture *f, float value, pjdl_buffer **in) {
    char *text = big_program_text();
    pjdl_executable *exe = compile(f, text);
    free(text);
    const size_t count = (size_t)BIG * BIG;
    float *host = aligned_floats(count);
    for (size_t i = 0; i < count; i++)
        host[i] = value;
    const int64_t dims[] = {BIG, BIG};
    *in = host_buffer(f, host, dims, 2);
    free(host);
    return exe;
}

/* PJRT_Event_IsReady of the buffer's ready event, asked of the plugin. */
static bool plugin_says_ready(lib_fixture *f, pjdl_buffer *b) {
    const PJRT_Api *api = pjdl_plugin_api(f->plugin);
    PJRT_Buffer *pjrt = NULL;
    LIB_OK(pjdl_buffer_pjrt(b, &pjrt));
    PJRT_Buffer_ReadyEvent_Args r = {.struct_size = PJRT_Buffer_ReadyEvent_Args_STRUCT_SIZE,
                                     .buffer = pjrt};
    assert_null(api->PJRT_Buffer_ReadyEvent(&r));
    PJRT_Event_IsReady_Args q = {.struct_size = PJRT_Event_IsReady_Args_STRUCT_SIZE,
                                 .event = r.event};
    assert_null(api->PJRT_Event_IsReady(&q));
    PJRT_Event_Destroy_Args d = {.struct_size = PJRT_Event_Destroy_Args_STRUCT_SIZE,
                                 .event = r.event};
    assert_null(api->PJRT_Event_Destroy(&d));
    return q.is_ready;
}

/* Execute returns before the result is computed; an export without a
 * stream waits for it. Were the export not to wait, the plugin would still
 * call the result not ready when the export returns (and the data would not
 * be all BIG). Three runs at least, five at most: at least one must be
 * caught unfinished (a run may finish before the question on a busy host). */
static void export_waits_for_results(void **state) {
    lib_fixture *f = *state;
    pjdl_buffer *in = NULL;
    pjdl_executable *exe = big_program(f, 1.0f, &in);
    LIB_OK(pjdl_buffer_await(in));
    const size_t count = (size_t)BIG * BIG;
    pjdl_buffer *args[2] = {in, in};
    int caught = 0;
    int attempts = 0;
    for (; attempts < 5 && (caught == 0 || attempts < 3); attempts++) {
        pjdl_buffer *out = NULL;
        size_t n = 0;
        LIB_OK(pjdl_executable_execute(exe, args, 2, &out, 1, &n));
        bool ready_at_return = plugin_says_ready(f, out);
        DLManagedTensorVersioned *t = NULL;
        LIB_OK(pjdl_buffer_export(out, NULL, &t));
        assert_true(plugin_says_ready(f, out));
        const float *c = (const float *)((char *)t->dl_tensor.data + t->dl_tensor.byte_offset);
        for (size_t i = 0; i < count; i++)
            if (c[i] != (float)BIG)
                fail_msg("element %zu is %g, wanted %d", i, (double)c[i], BIG);
        t->deleter(t);
        pjdl_buffer_release(out);
        if (!ready_at_return)
            caught++;
    }
    print_message("the result was not ready at Execute's return in %d of %d runs; each export "
                  "waited\n",
                  caught, attempts);
    assert_int_not_equal(caught, 0);
    pjdl_buffer_release(in);
    pjdl_executable_release(exe);
}

/* Fresh inputs queued behind a backlog of host-to-device copies, which a
 * GPU-style plugin runs one after another (ze_sim: ZE_SIM_DELAY_US each),
 * so an execution on them ends well after any command queued next. */
#define BACKLOG 12

static void backlog_inputs(lib_fixture *f, int round, pjdl_buffer *backlog[BACKLOG]) {
    for (int k = 0; k < BACKLOG; k++) {
        float v[6];
        for (int i = 0; i < 6; i++)
            v[i] = (float)(100 * round + 10 * k + i);
        backlog[k] = host_buffer(f, v, dims23, 2);
    }
}

/* A result nobody waited for, exported to a consumer's stream (the stream
 * extension's WaitUntilBufferReadyOnStream): the export does not wait, the
 * stream does, so a view imported on that stream reads the computed data.
 * Were the stream not made to wait, the view's copy to the host would run
 * long before the execution (its inputs arrive after the backlog) and
 * read what the memory held before. Plugins without streams refuse one. */
static void consumer_stream_orders_results(void **state) {
    lib_fixture *f = *state;
    intptr_t stream = 0;
    if (!lib_has_streams()) {
        assert_int_not_equal(pjdl_device_stream(pjdl_client_device(f->client, 0), &stream),
                             PJDL_OK);
        return;
    }
    LIB_OK(pjdl_device_stream(pjdl_client_device(f->client, 0), &stream));
    pjdl_executable *exe = compile(f, xla_compute_program);
    int pending = 0;
    for (int round = 0; round < 4; round++) {
        pjdl_buffer *backlog[BACKLOG], *out[2];
        backlog_inputs(f, round, backlog);
        size_t n = 0;
        LIB_OK(pjdl_executable_execute(exe, &backlog[BACKLOG - 2], 2, out, 2, &n));
        pjdl_export_options eo = PJDL_EXPORT_OPTIONS_INIT;
        eo.has_stream = true;
        eo.stream = stream;
        DLManagedTensorVersioned *t = NULL;
        LIB_OK(pjdl_buffer_export(out[0], &eo, &t));
        pending += !plugin_says_ready(f, out[0]);
        pjdl_import_options io = lib_import_options(PJDL_COPY_NEVER);
        io.has_stream = true;
        io.stream = stream;
        pjdl_buffer *view = NULL;
        LIB_OK(pjdl_import(&f->client, 1, t, &io, &view));
        float got[6];
        LIB_OK(pjdl_buffer_to_host(view, got, sizeof got));
        for (int i = 0; i < 6; i++) {
            float a = (float)(100 * round + 10 * (BACKLOG - 2) + i), b = a + 10.0f;
            if (got[i] != a * b + 1.0f)
                fail_msg("round %d, element %d: %g, not %g: read before it was computed", round, i,
                         (double)got[i], (double)(a * b + 1.0f));
        }
        pjdl_buffer_release(view);
        pjdl_buffer_release(out[0]);
        pjdl_buffer_release(out[1]);
        for (int k = 0; k < BACKLOG; k++)
            pjdl_buffer_release(backlog[k]);
    }
    print_message("the result was still being computed after %d of 4 exports\n", pending);
    assert_int_not_equal(pending, 0);
    pjdl_executable_release(exe);
}

/* Results live on when the executable and the inputs are released while
 * the execution is still running. */
static void results_outlive_executable(void **state) {
    lib_fixture *f = *state;
    pjdl_buffer *in = NULL;
    pjdl_executable *exe = big_program(f, 2.0f, &in);
    const size_t count = (size_t)BIG * BIG;
    pjdl_buffer *args[2] = {in, in};
    pjdl_buffer *out = NULL;
    size_t n = 0;
    LIB_OK(pjdl_executable_execute(exe, args, 2, &out, 1, &n));
    pjdl_executable_release(exe);
    pjdl_buffer_release(in);
    float *c = aligned_floats(count);
    LIB_OK(pjdl_buffer_to_host(out, c, count * sizeof *c));
    for (size_t i = 0; i < count; i++)
        if (c[i] != 4.0f * BIG)
            fail_msg("element %zu is %g, wanted %d", i, (double)c[i], 4 * BIG);
    free(c);
    /* A retained executable outlives its first release. */
    exe = compile(f, xla_compute_program);
    pjdl_executable_retain(exe);
    pjdl_executable_release(exe);
    assert_int_equal(pjdl_executable_output_count(exe), 2);
    pjdl_executable_release(exe);
    pjdl_executable_release(NULL);
    pjdl_buffer_release(out);
}

int main(int argc, char **argv) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(bad_mlir_reports_the_plugins_message),
        cmocka_unit_test(reference_plugin_cannot_compile),
        cmocka_unit_test(computes),
        cmocka_unit_test(bad_arguments),
        cmocka_unit_test(dlpack_views_in_outputs_out),
        cmocka_unit_test(export_waits_for_results),
        cmocka_unit_test(consumer_stream_orders_results),
        cmocka_unit_test(results_outlive_executable),
    };
    /* Run with "xla" (the fixture is XLA's whatever the argument). */
    return lib_run(argc, argv, tests, LIB_COUNT(tests), NULL, 0, lib_setup_xla, lib_teardown);
}
