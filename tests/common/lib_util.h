/* Helpers for the library's tests (tests/lib): choosing and loading the
 * plugin under test (the reference plugin or XLA's CPU plugin), making
 * clients, and DLPack tensors with counting deleters. */
#ifndef PJDL_TESTS_LIB_UTIL_H_
#define PJDL_TESTS_LIB_UTIL_H_

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <setjmp.h>

#include <cmocka.h>

#include "pjrt_dlpack.h"
#include "pjrt_ref_ext.h"

/* Fails the test with the library's message when `expr` is not PJDL_OK. */
#define LIB_OK(expr)                                                                               \
    do {                                                                                           \
        pjdl_code lib_code_ = (expr);                                                              \
        if (lib_code_ != PJDL_OK)                                                                  \
            fail_msg("%s -> %s: %s", #expr, pjdl_code_name(lib_code_), pjdl_last_error());         \
    } while (0)

/* Asserts `expr` fails with `code`. */
#define LIB_FAILS(code, expr)                                                                      \
    do {                                                                                           \
        pjdl_code lib_code_ = (expr);                                                              \
        if (lib_code_ != (code))                                                                   \
            fail_msg("%s -> %s (%s), wanted %s", #expr, pjdl_code_name(lib_code_),                 \
                     pjdl_last_error(), pjdl_code_name(code));                                     \
    } while (0)

static inline const char *lib_plugin_path(void) {
    const char *p = getenv("PJRT_REF_PLUGIN");
    if (p == NULL || p[0] == '\0')
        fail_msg("PJRT_REF_PLUGIN is not set");
    return p;
}

/* The real plugin of a library test's "xla" side (lib_run), installed by
 * the set-up (a test that needs it fails without it): XLA's CPU plugin, or,
 * in a test built with PJDL_TEST_ONEAPI (tests/oneapi), Intel's oneAPI
 * plugin over ze_sim. What a test body needs to know of it:
 *  - LIB_XLA_PLUGIN_ENV: the variable naming the plugin;
 *  - LIB_XLA_PLATFORM, LIB_XLA_PLATFORM_ID: its platform name and id (XLA
 *    takes the id from the name, so XLA's "cpu" is the reference plugin's);
 *  - LIB_EXPORT_DEVICE_TYPE: the device type of an exported buffer in its
 *    default memory (kDLCPU on the CPU plugins, kDLOneAPI on Intel's).
 * lib_on_oneapi() says which at run time. */
#ifdef PJDL_TEST_ONEAPI
#define LIB_XLA_PLUGIN_ENV "PJRT_ONEAPI_PLUGIN"
#define LIB_XLA_PLATFORM "oneapi"
#define LIB_XLA_PLATFORM_ID 0xbf630fea306e98f7ull
#define LIB_EXPORT_DEVICE_TYPE kDLOneAPI
#else
#define LIB_XLA_PLUGIN_ENV "PJRT_XLA_CPU_PLUGIN"
#define LIB_XLA_PLATFORM "cpu"
#define LIB_XLA_PLATFORM_ID 0xf88da91c978c8500ull
#define LIB_EXPORT_DEVICE_TYPE kDLCPU
#endif

static inline const char *lib_xla_plugin_path(void) {
    const char *p = getenv(LIB_XLA_PLUGIN_ENV);
    if (p == NULL || p[0] == '\0')
        fail_msg("%s is not set to the plugin: run scripts/setup.sh and reconfigure",
                 LIB_XLA_PLUGIN_ENV);
    return p;
}

/* Which plugin a test binary runs against, chosen by its first argument
 * (lib_run): the reference plugin ("ref", the default) or XLA's CPU plugin
 * ("xla"). A library test has one body and two fixtures; where XLA
 * legitimately differs from the reference plugin the body says so with
 * lib_on_xla(), for that plugin only. */
typedef enum lib_kind { LIB_REF, LIB_XLA } lib_kind;

static inline lib_kind *lib_kind_slot(void) {
    static lib_kind kind = LIB_REF;
    return &kind;
}

static inline bool lib_on_xla(void) {
    return *lib_kind_slot() == LIB_XLA;
}

/* Whether this run tests Intel's oneAPI plugin (the "xla" side of a test
 * built with PJDL_TEST_ONEAPI). */
static inline bool lib_on_oneapi(void) {
#ifdef PJDL_TEST_ONEAPI
    return lib_on_xla();
#else
    return false;
#endif
}

/* Whether the devices of lib_cpu_client have streams: Intel's GPUs (XLA's
 * GPU client, with the stream extension) only. */
static inline bool lib_has_streams(void) {
    return lib_on_oneapi();
}

/* The plugin this run tests: PJRT_REF_PLUGIN or LIB_XLA_PLUGIN_ENV. */
static inline const char *lib_selected_path(void) {
    return lib_on_xla() ? lib_xla_plugin_path() : lib_plugin_path();
}

/* The ABI minor version (0.minor) of the plugin this run tests: XLA's CPU
 * plugin of make test is 0.115, and tests/lib runs the "xla" side again on
 * two older builds, 0.106 and 0.81 (PJRT_XLA_CPU_PLUGIN pointed at them:
 * test_lib_<name>.xla106 and .xla81). */
static inline int lib_abi_minor(void) {
    static int minor = -1;
    if (minor < 0) {
        pjdl_plugin *plugin = NULL;
        int major = 0;
        if (pjdl_plugin_load(lib_selected_path(), &plugin) != PJDL_OK)
            fail_msg("loading %s: %s", lib_selected_path(), pjdl_last_error());
        pjdl_plugin_abi_version(plugin, &major, &minor);
        pjdl_plugin_release(plugin);
    }
    return minor;
}

/* Whether the plugin's ABI has element type `type`; the library hands it
 * no other (UNIMPLEMENTED naming the type and both versions). */
static inline bool lib_has_type(PJRT_Buffer_Type type) {
    return pjdl_pjrt_type_minor(type) <= lib_abi_minor();
}

/* Whether a view made with a permuted layout keeps it: XLA's CPU plugin of
 * ABI 0.81 ignores it (the library's probe finds that, and copies such a
 * tensor or, with copy=NEVER, refuses it). */
static inline bool lib_views_keep_layouts(void) {
    return !lib_on_xla() || lib_abi_minor() > 81;
}

/* Whether the plugin refuses a client option it does not know: XLA's CPU
 * plugins of ABI 0.106 and 0.81 ignore one. */
static inline bool lib_refuses_unknown_options(void) {
    return !lib_on_xla() || lib_on_oneapi() || lib_abi_minor() > 106;
}

/* A client of XLA's CPU plugin with its default options. */
static inline void lib_xla_client(pjdl_plugin **plugin, pjdl_client **client) {
    LIB_OK(pjdl_plugin_load(lib_xla_plugin_path(), plugin));
    LIB_OK(pjdl_client_create(*plugin, NULL, 0, client));
}

static inline pjdl_plugin *lib_load(void) {
    pjdl_plugin *plugin = NULL;
    LIB_OK(pjdl_plugin_load(lib_plugin_path(), &plugin));
    return plugin;
}

/* A client of the reference plugin on `platform` ("cpu" or "xpu"). */
static inline pjdl_client *lib_client(pjdl_plugin *plugin, const char *platform) {
    pjdl_option opt = {.name = "platform", .type = PJDL_OPTION_STRING};
    opt.value.string_value = platform;
    pjdl_client *client = NULL;
    LIB_OK(pjdl_client_create(plugin, &opt, 1, &client));
    return client;
}

/* The plugin this run tests, loaded. */
static inline pjdl_plugin *lib_load_selected(void) {
    pjdl_plugin *plugin = NULL;
    LIB_OK(pjdl_plugin_load(lib_selected_path(), &plugin));
    return plugin;
}

/* The simulated GPUs of ze_sim (ZE_SIM_DEVICES, read once per process by
 * its zeInit: tests/oneapi sets it in a test's environment, and a test
 * cannot change it case by case); 1, ze_sim's default, when not set. */
static inline int64_t lib_zesim_devices(void) {
    const char *v = getenv("ZE_SIM_DEVICES");
    return v != NULL && v[0] != '\0' ? strtoll(v, NULL, 10) : 1;
}

/* The client of `plugin` (the one this run tests) on its cpu platform, or
 * Intel's on its GPUs, with `devices` devices (0: the plugin's default):
 * the reference plugin's platform "cpu" with num_devices; XLA's
 * cpu_device_count; Intel's visible_devices 0 .. devices-1 of ze_sim's
 * ZE_SIM_DEVICES GPUs (the plugin quietly drops ids it does not have, so
 * this fails first when ze_sim has fewer). */
static inline pjdl_client *lib_cpu_client(pjdl_plugin *plugin, int64_t devices) {
    pjdl_option opts[2] = {{.name = "platform", .type = PJDL_OPTION_STRING},
                           {.name = "num_devices", .type = PJDL_OPTION_INT64}};
    opts[0].value.string_value = "cpu";
    opts[1].value.int64_value = devices;
    pjdl_option *o = opts;
    size_t n = devices > 0 ? 2 : 1;
    int64_t ids[8] = {0, 1, 2, 3, 4, 5, 6, 7};
    if (lib_on_oneapi()) {
        if (devices > lib_zesim_devices() || devices > 8)
            fail_msg("%lld devices asked of ze_sim, which has ZE_SIM_DEVICES=%lld",
                     (long long)devices, (long long)lib_zesim_devices());
        opts[1] = (pjdl_option){.name = "visible_devices", .type = PJDL_OPTION_INT64_LIST};
        opts[1].value.int64_list.values = ids;
        opts[1].value.int64_list.count = (size_t)devices;
    } else if (lib_on_xla()) {
        opts[1].name = "cpu_device_count";
    }
    if (lib_on_xla()) {
        o = opts + 1;
        n = devices > 0 ? 1 : 0;
    }
    pjdl_client *client = NULL;
    LIB_OK(pjdl_client_create(plugin, n ? o : NULL, n, &client));
    return client;
}

/* The platform name and id of lib_cpu_client's client: "cpu" on the
 * reference plugin (with XLA's id for it), LIB_XLA_PLATFORM on the real
 * one. */
static inline const char *lib_cpu_platform(void) {
    return lib_on_xla() ? LIB_XLA_PLATFORM : "cpu";
}

static inline uint64_t lib_cpu_platform_id(void) {
    return lib_on_xla() ? LIB_XLA_PLATFORM_ID : 0xf88da91c978c8500ull;
}

/* A consumer stream that lib_cpu_client's plugin refuses, for an export
 * that is to fail after its pin: any on the cpu platforms, which have no
 * streams (1 here); Intel's takes a stream for a SYCL queue and refuses
 * only a null one (INTERNAL, "Stream handle is not initialized"): any
 * other value it uses as a queue, which crashes unless the data is already
 * ready. */
static inline intptr_t lib_refused_stream(void) {
    return lib_has_streams() ? 0 : 1;
}

static inline const PJRT_Ref_Extension *lib_ref_ext(const pjdl_plugin *plugin) {
    return (const PJRT_Ref_Extension *)pjdl_plugin_extension(plugin, PJRT_REF_EXTENSION_TYPE);
}

/* Live allocations of the plugin for `client` (its buffers and work). */
static inline int64_t lib_live(pjdl_client *client) {
    const PJRT_Ref_Extension *ext = lib_ref_ext(pjdl_client_plugin(client));
    assert_non_null(ext);
    PJRT_Ref_LiveAllocations_Args a = {.struct_size = PJRT_Ref_LiveAllocations_Args_STRUCT_SIZE,
                                       .client = pjdl_client_pjrt(client)};
    assert_null(ext->live_allocations(&a));
    return a.client_allocations;
}

/* Every live allocation of the reference plugin in the process (clients,
 * buffers, events, errors, ...). */
static inline int64_t lib_live_process(const pjdl_plugin *plugin) {
    const PJRT_Ref_Extension *ext = lib_ref_ext(plugin);
    assert_non_null(ext);
    PJRT_Ref_LiveAllocations_Args a = {.struct_size = PJRT_Ref_LiveAllocations_Args_STRUCT_SIZE};
    assert_null(ext->live_allocations(&a));
    return a.process_allocations;
}

/* Polls (every 0.1 ms, for at most timeout_ms) the live allocations of `client`, or of
 * the whole process when `client` is NULL, until they are `want`; returns
 * the last count read. Asynchronous work (xpu streams) may free after the
 * last release returns. */
static inline int64_t lib_settle(const pjdl_plugin *plugin, pjdl_client *client, int64_t want,
                                 int timeout_ms) {
    for (int i = 0;; i++) {
        int64_t live = client != NULL ? lib_live(client) : lib_live_process(plugin);
        if (live == want || i >= timeout_ms * 10)
            return live;
        nanosleep(&(struct timespec){0, 100000L}, NULL); /* 0.1 ms */
    }
}

/* The live allocations of `client` once its asynchronous work is done (at
 * most timeout_ms later): 0 unless something leaked. */
static inline int64_t lib_settled(pjdl_client *client, int timeout_ms) {
    return lib_settle(NULL, client, 0, timeout_ms);
}

/* The reference plugin's process-wide count once back to `baseline` (at
 * most timeout_ms later). */
static inline int64_t lib_settled_process(const pjdl_plugin *plugin, int64_t baseline,
                                          int timeout_ms) {
    return lib_settle(plugin, NULL, baseline, timeout_ms);
}

/* Makes the reference plugin's nth allocation from now on fail (0: none);
 * returns how many allocations it made since the previous call. */
static inline int64_t lib_fail_allocation(const pjdl_plugin *plugin, int64_t nth) {
    const PJRT_Ref_Extension *ext = lib_ref_ext(plugin);
    assert_non_null(ext);
    PJRT_Ref_FailAllocation_Args a = {.struct_size = PJRT_Ref_FailAllocation_Args_STRUCT_SIZE,
                                      .nth = nth};
    assert_null(ext->fail_allocation(&a));
    return a.allocations_since_last;
}

/* The fixture of most tests: a plugin and one client of it. */
typedef struct lib_fixture {
    pjdl_plugin *plugin;
    pjdl_client *client;
} lib_fixture;

/* cmocka set-up: the reference plugin and a cpu client. */
static inline int lib_setup_cpu(void **state) {
    lib_fixture *f = calloc(1, sizeof *f);
    *state = f;
    f->plugin = lib_load();
    f->client = lib_client(f->plugin, "cpu");
    return 0;
}

/* cmocka set-up: XLA's CPU plugin and a client with its default options. */
static inline int lib_setup_xla(void **state) {
    lib_fixture *f = calloc(1, sizeof *f);
    *state = f;
    lib_xla_client(&f->plugin, &f->client);
    return 0;
}

/* cmocka set-up of the plugin this run tests: lib_setup_cpu or
 * lib_setup_xla. */
static inline int lib_setup(void **state) {
    return lib_on_xla() ? lib_setup_xla(state) : lib_setup_cpu(state);
}

/* cmocka teardown of either set-up. */
static inline int lib_teardown(void **state) {
    lib_fixture *f = *state;
    if (f == NULL)
        return 0;
    pjdl_client_release(f->client);
    pjdl_plugin_release(f->plugin);
    free(f);
    return 0;
}

/* Asserts that nothing of `client` is left allocated in the reference
 * plugin. XLA's plugin has no such count: on it, its leaks are the business
 * of the valgrind and ASan runs of the same test (tests/CMakeLists.txt). */
static inline void lib_expect_clean(pjdl_client *client) {
    if (!lib_on_xla())
        assert_int_equal(lib_live(client), 0);
}

/* cmocka teardown that first checks that the test left nothing of the
 * client's allocated (lib_expect_clean). */
static inline int lib_teardown_clean(void **state) {
    lib_fixture *f = *state;
    lib_expect_clean(f->client);
    return lib_teardown(state);
}

#ifdef LIB_SUITE
/* In test_lib_xla_suite each test's main is renamed (tests/lib/CMakeLists.txt):
 * this is its prototype. */
int main(int argc, char **argv);
#endif

/* main() of a library test: selects the plugin from argv[1] ("ref", the
 * default, or "xla"; anything else is a usage error, exit 2), then runs
 * `both` and, on the reference plugin only, `ref_only` (the tests of its
 * own features: fault injection, its test extension, the xpu platform) as
 * one cmocka group with the given group set-up and teardown. */
static inline int lib_run(int argc, char **argv, const struct CMUnitTest *both, size_t n_both,
                          const struct CMUnitTest *ref_only, size_t n_ref,
                          CMFixtureFunction group_setup, CMFixtureFunction group_teardown) {
    const char *which = argc > 1 ? argv[1] : "ref";
    if (argc > 2 || (strcmp(which, "ref") != 0 && strcmp(which, "xla") != 0)) {
        fprintf(stderr, "usage: %s [ref|xla]\n", argv[0]);
        return 2;
    }
    *lib_kind_slot() = strcmp(which, "xla") == 0 ? LIB_XLA : LIB_REF;
    size_t n = n_both + (lib_on_xla() ? 0 : n_ref);
    struct CMUnitTest *tests = calloc(n, sizeof *tests);
    if (tests == NULL)
        return 1;
    memcpy(tests, both, n_both * sizeof *tests);
    if (n > n_both)
        memcpy(tests + n_both, ref_only, n_ref * sizeof *tests);
    int failed = _cmocka_run_group_tests(which, tests, n, group_setup, group_teardown);
    free(tests);
    return failed;
}

#define LIB_COUNT(tests) (sizeof(tests) / sizeof((tests)[0]))

/* The common main(): every test of `tests` on both plugins, no group
 * fixture. */
#define LIB_RUN(argc, argv, tests) lib_run(argc, argv, tests, LIB_COUNT(tests), NULL, 0, NULL, NULL)

/* Import options with `copy`, the rest default. */
static inline pjdl_import_options lib_import_options(pjdl_copy copy) {
    pjdl_import_options o = PJDL_IMPORT_OPTIONS_INIT;
    o.copy = copy;
    return o;
}

/* A host tensor that counts its deleter calls. */
typedef struct lib_tensor {
    DLManagedTensorVersioned v;
    DLManagedTensor l;
    int64_t shape[8];
    int64_t strides[8];
    void *storage;
    int deleted; /* deleter calls (atomic: deleters may run on any thread) */
} lib_tensor;

static inline void lib_tensor_deleter_v(DLManagedTensorVersioned *self) {
    __atomic_fetch_add(&((lib_tensor *)self->manager_ctx)->deleted, 1, __ATOMIC_SEQ_CST);
}

static inline void lib_tensor_deleter_l(DLManagedTensor *self) {
    __atomic_fetch_add(&((lib_tensor *)self->manager_ctx)->deleted, 1, __ATOMIC_SEQ_CST);
}

/* Waits up to 10 s for `*counter` (a deleter count, updated atomically from
 * any thread) to reach `want`, and returns what it reached. A real plugin
 * (XLA's) may release a view's memory, and so run its on_delete_callback and
 * the producer's deleter, on a thread of its own after the last reference
 * goes, not inside the call that dropped it. */
static inline int lib_wait_count(const int *counter, int want) {
    for (int i = 0; i < 10000 && __atomic_load_n(counter, __ATOMIC_SEQ_CST) < want; i++) {
        struct timespec ts = {0, 1000000};
        nanosleep(&ts, NULL);
    }
    return __atomic_load_n(counter, __ATOMIC_SEQ_CST);
}

/* The deleter count of `t` once the last view of it is gone: the reference
 * plugin runs the view's on_delete_callback inside the call that dropped
 * it; XLA may run it on a thread of its own a moment later, so on XLA this
 * waits for `want` (lib_wait_count). */
static inline int lib_deleted(lib_tensor *t, int want) {
    return lib_on_xla() ? lib_wait_count(&t->deleted, want)
                        : __atomic_load_n(&t->deleted, __ATOMIC_SEQ_CST);
}

/* The device's memory of `kind` ("pinned_host", ...); the test fails
 * without one. */
static inline pjdl_memory *lib_memory_of_kind(pjdl_device *dev, const char *kind) {
    for (size_t i = 0; i < pjdl_device_memory_count(dev); i++)
        if (strcmp(pjdl_memory_kind(pjdl_device_memory(dev, i)), kind) == 0)
            return pjdl_device_memory(dev, i);
    fail_msg("%s has no %s memory", pjdl_device_kind(dev), kind);
    return NULL;
}

/* 64-byte-aligned host memory, freed with free(): XLA views nothing less
 * aligned, so a test that expects a view on both plugins imports this. */
static inline void *lib_aligned(size_t n) {
    void *p = NULL;
    assert_int_equal(posix_memalign(&p, 64, n ? n : 64), 0);
    return p;
}

/* Fills a tensor over `storage` (not owned); strides NULL: row-major. */
static inline void lib_tensor_init(lib_tensor *t, void *storage, DLDataType dtype, int ndim,
                                   const int64_t *shape, const int64_t *strides) {
    memset(t, 0, sizeof *t);
    t->storage = storage;
    memcpy(t->shape, shape, (size_t)ndim * sizeof *shape);
    if (strides)
        memcpy(t->strides, strides, (size_t)ndim * sizeof *strides);
    DLTensor dl = {.data = storage,
                   .device = {kDLCPU, 0},
                   .ndim = ndim,
                   .dtype = dtype,
                   .shape = t->shape,
                   .strides = strides ? t->strides : NULL,
                   .byte_offset = 0};
    t->v.version.major = DLPACK_MAJOR_VERSION;
    t->v.version.minor = DLPACK_MINOR_VERSION;
    t->v.manager_ctx = t;
    t->v.deleter = lib_tensor_deleter_v;
    t->v.dl_tensor = dl;
    t->l.manager_ctx = t;
    t->l.deleter = lib_tensor_deleter_l;
    t->l.dl_tensor = dl;
}

static inline DLDataType lib_dtype(uint8_t code, uint8_t bits) {
    DLDataType d = {code, bits, 1};
    return d;
}

#endif
