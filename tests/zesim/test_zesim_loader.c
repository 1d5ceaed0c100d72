/* ze_sim's loader interface (zesim/loader.c) as the Level Zero loader's
 * static front-end, embedded in Intel's 2026 Unified Runtime adapters, uses
 * it: libze_loader.so.1 opened with dlopen and every entry point looked up
 * by name, the required DDI tables filled for the API version the loader
 * reports, then the driver initialized through them. The table layouts and
 * the required getters are declared here from the specification and the
 * front-end's behaviour, independently of ze_sim's list (ddi.def), so a
 * slot out of place there fails here. Run with ZE_SIM_DEVICES=2. */
#include <dlfcn.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "ze_abi.h"

#define ZE_OK(expr) assert_int_equal((expr), ZE_RESULT_SUCCESS)

typedef ze_result_t (*zt_getter)(ze_api_version_t, void *);

static void *zt_lib;

static int zt_open(void **state) {
    (void)state;
    zt_lib = dlopen(PJDL_ZE_LOADER, RTLD_NOW | RTLD_LOCAL);
    return zt_lib ? 0 : -1;
}

static int zt_close(void **state) {
    (void)state;
    return dlclose(zt_lib);
}

static void *zt_sym(const char *name) {
    void *p = dlsym(zt_lib, name);
    if (!p)
        fail_msg("ze_sim does not export %s", name);
    return p;
}

/* The version the loader reports for itself, which the front-end asks the
 * tables for. */
static ze_api_version_t zt_loader_version(void) {
    ze_result_t (*get)(size_t *, zel_component_version_t *) =
        (ze_result_t(*)(size_t *, zel_component_version_t *))zt_sym("zelLoaderGetVersionsInternal");
    size_t n = 0;
    ZE_OK(get(&n, NULL));
    assert_int_equal(n, 1);
    zel_component_version_t v;
    ZE_OK(get(&n, &v));
    assert_string_equal(v.component_name, "loader");
    assert_int_equal(v.component_lib_version.major, 1);
    return v.spec_version;
}

/* What the front-end calls without checking that the lookup found it. */
static void unchecked_entry_points(void **state) {
    (void)state;
    ze_result_t (*init)(void) = (ze_result_t(*)(void))zt_sym("zeLoaderInit");
    ZE_OK(init());
    void *(*tracing)(void) = (void *(*)(void))zt_sym("zeLoaderGetTracingHandle");
    assert_null(tracing()); /* no tracing layer: callbacks are refused */
    ze_api_version_t v = zt_loader_version();
    assert_true(v >= ZE_MAKE_VERSION(1, 0));
    ze_result_t (*version)(zel_component_version_t *) =
        (ze_result_t(*)(zel_component_version_t *))zt_sym("zelLoaderGetVersion");
    zel_component_version_t one;
    ZE_OK(version(&one));
    assert_int_equal(one.spec_version, v);
    ze_result_t (*translate)(zel_handle_type_t, void *, void **) = (ze_result_t(*)(
        zel_handle_type_t, void *, void **))zt_sym("zelLoaderTranslateHandleInternal");
    int object;
    void *out = NULL;
    ZE_OK(translate(0, &object, &out));
    assert_ptr_equal(out, &object);
    assert_int_equal(translate(0, NULL, &out), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    ze_result_t (*state_of)(bool *) = (ze_result_t(*)(bool *))zt_sym("zelGetTracingLayerState");
    bool on = true;
    ZE_OK(state_of(&on));
    assert_false(on);
    ze_result_t (*enable)(void) = (ze_result_t(*)(void))zt_sym("zelEnableTracingLayer");
    assert_int_equal(enable(), ZE_RESULT_ERROR_UNSUPPORTED_FEATURE);
}

/* The getters whose failure fails the front-end's initialization. */
static const char *const zt_required[] = {
    "zeGetGlobalProcAddrTable",
    "zeGetDriverProcAddrTable",
    "zeGetDeviceProcAddrTable",
    "zeGetContextProcAddrTable",
    "zeGetCommandQueueProcAddrTable",
    "zeGetCommandListProcAddrTable",
    "zeGetEventProcAddrTable",
    "zeGetEventPoolProcAddrTable",
    "zeGetFenceProcAddrTable",
    "zeGetImageProcAddrTable",
    "zeGetKernelProcAddrTable",
    "zeGetMemProcAddrTable",
    "zeGetModuleProcAddrTable",
    "zeGetModuleBuildLogProcAddrTable",
    "zeGetPhysicalMemProcAddrTable",
    "zeGetSamplerProcAddrTable",
    "zeGetVirtualMemProcAddrTable",
    "zetGetDeviceProcAddrTable",
    "zetGetContextProcAddrTable",
    "zetGetCommandListProcAddrTable",
    "zetGetKernelProcAddrTable",
    "zetGetModuleProcAddrTable",
    "zetGetDebugProcAddrTable",
    "zetGetMetricProcAddrTable",
    "zetGetMetricGroupProcAddrTable",
    "zetGetMetricQueryProcAddrTable",
    "zetGetMetricQueryPoolProcAddrTable",
    "zetGetMetricStreamerProcAddrTable",
    "zetGetTracerExpProcAddrTable",
    "zesGetDeviceProcAddrTable",
    "zesGetDriverProcAddrTable",
    "zesGetDiagnosticsProcAddrTable",
    "zesGetEngineProcAddrTable",
    "zesGetFabricPortProcAddrTable",
    "zesGetFanProcAddrTable",
    "zesGetFirmwareProcAddrTable",
    "zesGetFrequencyProcAddrTable",
    "zesGetLedProcAddrTable",
    "zesGetMemoryProcAddrTable",
    "zesGetPerformanceFactorProcAddrTable",
    "zesGetPowerProcAddrTable",
    "zesGetPsuProcAddrTable",
    "zesGetRasProcAddrTable",
    "zesGetSchedulerProcAddrTable",
    "zesGetStandbyProcAddrTable",
    "zesGetTemperatureProcAddrTable",
    "zelGetTracerApiProcAddrTable",
};
#define ZT_SLOTS 64
#define ZT_UNTOUCHED ((void *)0x5a5a)

static void required_getters(void **state) {
    (void)state;
    ze_api_version_t v = zt_loader_version();
    assert_int_equal(sizeof zt_required / sizeof zt_required[0], 47);
    for (size_t i = 0; i < sizeof zt_required / sizeof zt_required[0]; i++) {
        zt_getter get = (zt_getter)zt_sym(zt_required[i]);
        void *table[ZT_SLOTS];
        ZE_OK(get(v, table));
        /* A newer API than the loader's is refused, as the loader does. */
        assert_int_equal(get(v + 1, table), ZE_RESULT_ERROR_UNSUPPORTED_VERSION);
        assert_int_equal(get(v, NULL), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    }
}

/* One slot of a table: the function it holds and the API version whose
 * table has it. */
typedef struct {
    const char *name;
    ze_api_version_t since;
} zt_slot;

#define V(major, minor) ZE_MAKE_VERSION(major, minor)

/* Fills `getter`'s table at the loader's version and checks each slot:
 * ze_sim's function of that name (NULL where it has none), and the slots of
 * later versions left as they were. */
static void zt_check_table(const char *getter, const zt_slot *slots, size_t n) {
    ze_api_version_t v = zt_loader_version();
    void *table[ZT_SLOTS];
    for (size_t i = 0; i < ZT_SLOTS; i++)
        table[i] = ZT_UNTOUCHED;
    ZE_OK(((zt_getter)zt_sym(getter))(v, table));
    for (size_t i = 0; i < n; i++) {
        void *want = slots[i].since <= v ? dlsym(zt_lib, slots[i].name) : ZT_UNTOUCHED;
        if (table[i] != want)
            fail_msg("%s: slot %zu (%s) holds %p, expected %p", getter, i, slots[i].name, table[i],
                     want);
    }
    assert_ptr_equal(table[n], ZT_UNTOUCHED);
}

static void table_layouts(void **state) {
    (void)state;
    static const zt_slot global[] = {{"zeInit", V(1, 0)}, {"zeInitDrivers", V(1, 10)}};
    zt_check_table("zeGetGlobalProcAddrTable", global, 2);
    static const zt_slot driver[] = {
        {"zeDriverGet", V(1, 0)},
        {"zeDriverGetApiVersion", V(1, 0)},
        {"zeDriverGetProperties", V(1, 0)},
        {"zeDriverGetIpcProperties", V(1, 0)},
        {"zeDriverGetExtensionProperties", V(1, 0)},
        {"zeDriverGetExtensionFunctionAddress", V(1, 1)},
        {"zeDriverGetLastErrorDescription", V(1, 6)},
        {"zeDriverRTASFormatCompatibilityCheckExt", V(1, 13)},
        {"zeDriverGetDefaultContext", V(1, 14)},
    };
    zt_check_table("zeGetDriverProcAddrTable", driver, 9);
    static const zt_slot mem[] = {
        {"zeMemAllocShared", V(1, 0)},
        {"zeMemAllocDevice", V(1, 0)},
        {"zeMemAllocHost", V(1, 0)},
        {"zeMemFree", V(1, 0)},
        {"zeMemGetAllocProperties", V(1, 0)},
        {"zeMemGetAddressRange", V(1, 0)},
        {"zeMemGetIpcHandle", V(1, 0)},
        {"zeMemOpenIpcHandle", V(1, 0)},
        {"zeMemCloseIpcHandle", V(1, 0)},
        {"zeMemFreeExt", V(1, 3)},
        {"zeMemPutIpcHandle", V(1, 6)},
        {"zeMemGetPitchFor2dImage", V(1, 9)},
        {"zeMemGetIpcHandleWithProperties", V(1, 15)},
    };
    zt_check_table("zeGetMemProcAddrTable", mem, 13);
    static const zt_slot memory[] = {{"zesMemoryGetProperties", V(1, 0)},
                                     {"zesMemoryGetState", V(1, 0)},
                                     {"zesMemoryGetBandwidth", V(1, 0)}};
    zt_check_table("zesGetMemoryProcAddrTable", memory, 3);
    static const zt_slot kernel_exp[] = {{"zeKernelSetGlobalOffsetExp", V(1, 1)},
                                         {"zeKernelSchedulingHintExp", V(1, 2)},
                                         {"zeKernelGetBinaryExp", V(1, 11)},
                                         {"zeKernelGetAllocationPropertiesExp", V(1, 14)}};
    zt_check_table("zeGetKernelExpProcAddrTable", kernel_exp, 4);
}

/* Slots that must hold a function: what the 2026 runtime calls first. */
static void tables_reach_the_driver(void **state) {
    (void)state;
    ze_api_version_t v = zt_loader_version();
    void *global[ZT_SLOTS] = {0}, *driver[ZT_SLOTS] = {0}, *cl[ZT_SLOTS] = {0};
    ZE_OK(((zt_getter)zt_sym("zeGetGlobalProcAddrTable"))(v, global));
    ZE_OK(((zt_getter)zt_sym("zeGetDriverProcAddrTable"))(v, driver));
    ZE_OK(((zt_getter)zt_sym("zeGetCommandListProcAddrTable"))(v, cl));
    assert_non_null(global[0]);
    ZE_OK(((ze_result_t(*)(ze_init_flags_t))global[0])(0));
    uint32_t n = 0;
    ZE_OK(((ze_result_t(*)(uint32_t *, ze_driver_handle_t *))driver[0])(&n, NULL));
    assert_int_equal(n, 1);
    /* zeCommandListAppendMemoryCopy follows ...MemoryRangesBarrier. */
    assert_ptr_equal(cl[8], dlsym(zt_lib, "zeCommandListAppendMemoryCopy"));
    assert_non_null(cl[8]);
}

/* zeInitDrivers: ze_sim's driver is a GPU driver; an NPU-only request
 * finds none, and no type at all is refused. */
static void init_drivers(void **state) {
    (void)state;
    ze_result_t (*init)(uint32_t *, ze_driver_handle_t *, ze_init_driver_type_desc_t *) =
        (ze_result_t(*)(uint32_t *, ze_driver_handle_t *, ze_init_driver_type_desc_t *))zt_sym(
            "zeInitDrivers");
    ze_init_driver_type_desc_t desc = {ZE_STRUCTURE_TYPE_INIT_DRIVER_TYPE_DESC, NULL,
                                       ZE_INIT_DRIVER_TYPE_FLAG_GPU};
    uint32_t n = 0;
    ZE_OK(init(&n, NULL, &desc));
    assert_int_equal(n, 1);
    ze_driver_handle_t driver = NULL;
    ZE_OK(init(&n, &driver, &desc));
    assert_non_null(driver);
    ze_result_t (*devices)(ze_driver_handle_t, uint32_t *, ze_device_handle_t *) =
        (ze_result_t(*)(ze_driver_handle_t, uint32_t *, ze_device_handle_t *))zt_sym("zeDeviceGet");
    n = 0;
    ZE_OK(devices(driver, &n, NULL));
    assert_int_equal(n, 2); /* ZE_SIM_DEVICES=2 */
    desc.flags = ZE_INIT_DRIVER_TYPE_FLAG_NPU;
    n = 5;
    ZE_OK(init(&n, NULL, &desc));
    assert_int_equal(n, 0);
    desc.flags = 0;
    assert_int_equal(init(&n, NULL, &desc), ZE_RESULT_ERROR_INVALID_ENUMERATION);
    assert_int_equal(init(&n, NULL, NULL), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(unchecked_entry_points), cmocka_unit_test(required_getters),
        cmocka_unit_test(table_layouts),          cmocka_unit_test(tables_reach_the_driver),
        cmocka_unit_test(init_drivers),
    };
    return cmocka_run_group_tests(tests, zt_open, zt_close);
}
