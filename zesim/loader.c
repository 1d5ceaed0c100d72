/*
 * ze_sim: the dynamic Level Zero loader's own interface. Intel's 2026
 * Unified Runtime adapters import no ze* function: they embed the loader's
 * static front-end, which dlopens libze_loader.so.1 and looks these up by
 * name: zeLoaderInit, the loader's versions and handle translation (both
 * called without a NULL check), its tracing handle, and the DDI tables
 * (the getters of ddi.def, 47 of them required). ze_sim's tables hold its
 * own exports, found by name, so the list in ddi.def is the only place a
 * table is described.
 */
#define _GNU_SOURCE /* dladdr, RTLD_NOLOAD */
#include "zs.h"

#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

/* One enumerator per table, in the order of ddi.def. */
enum zs_ddi_table {
#define X(getter, slots) ZS_DDI_##getter,
#include "ddi.def"
#undef X
    ZS_DDI_COUNT
};

static const char *const zs_ddi_slots[ZS_DDI_COUNT] = {
#define X(getter, slots) slots,
#include "ddi.def"
#undef X
};

/* ze_sim's own handle: its exports are looked up there, never in the
 * process at large (another loader's function of the same name). */
static void *zs_self;
static pthread_once_t zs_self_once = PTHREAD_ONCE_INIT;

static void zs_find_self(void) {
    Dl_info info;
    if (dladdr(&zs_self, &info) && info.dli_fname)
        zs_self = dlopen(info.dli_fname, RTLD_LAZY | RTLD_NOLOAD);
}

/* "vM.m": the version it names; 0 for anything else. */
static ze_api_version_t zs_slot_version(const char *tok, size_t n) {
    char buf[16];
    if (n < 4 || n >= sizeof buf || tok[0] != 'v')
        return 0;
    memcpy(buf, tok + 1, n - 1);
    buf[n - 1] = '\0';
    char *dot = NULL, *end = NULL;
    unsigned long major = strtoul(buf, &dot, 10);
    if (*dot != '.')
        return 0;
    unsigned long minor = strtoul(dot + 1, &end, 10);
    return *end ? 0 : (ze_api_version_t)ZE_MAKE_VERSION(major, minor);
}

/* ze_sim's export named by tok (n bytes), or NULL. */
static void *zs_export(const char *tok, size_t n) {
    char name[128];
    if (!zs_self || n >= sizeof name)
        return NULL;
    memcpy(name, tok, n);
    name[n] = '\0';
    return dlsym(zs_self, name);
}

/* Fills the slots of one table that the version has, in the order of its
 * list, as the real loader does; later slots are left as they are. */
static ze_result_t zs_ddi_fill(enum zs_ddi_table t, ze_api_version_t version, void *table) {
    if (!table)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    if (version > ZS_API_VERSION)
        return ZE_RESULT_ERROR_UNSUPPORTED_VERSION;
    pthread_once(&zs_self_once, zs_find_self);
    void **slot = table;
    ze_api_version_t since = 0;
    for (const char *p = zs_ddi_slots[t]; *p;) {
        size_t n = strcspn(p, " ");
        ze_api_version_t v = zs_slot_version(p, n);
        if (v)
            since = v;
        else if (n && since <= version)
            *slot++ = zs_export(p, n);
        else if (n)
            break; /* the slots of later versions follow */
        p += n + strspn(p + n, " ");
    }
    return ZE_RESULT_SUCCESS;
}

/* The getters, one per line of ddi.def (the function types of the
 * specification take a pointer to each table's own structure: the same
 * call on every ABI ze_sim runs on). */
#define X(getter, slots)                                                                           \
    ZE_SIM_EXPORT ze_result_t getter(ze_api_version_t version, void *table);                       \
    ze_result_t getter(ze_api_version_t version, void *table) {                                    \
        return zs_ddi_fill(ZS_DDI_##getter, version, table);                                       \
    }
#include "ddi.def"
#undef X

/* Nothing to load: ze_sim is the driver. */
ze_result_t zeLoaderInit(void) {
    return ZE_RESULT_SUCCESS;
}

/* No tracing layer is loaded: the front-end then refuses to register
 * tracing callbacks. */
void *zeLoaderGetTracingHandle(void) {
    return NULL;
}

static void zs_loader_version(zel_component_version_t *v) {
    memset(v, 0, sizeof *v);
    strcpy(v->component_name, "loader");
    v->spec_version = ZS_API_VERSION;
    v->component_lib_version.major = ZS_LOADER_MAJOR;
    v->component_lib_version.minor = ZS_LOADER_MINOR;
}

/* The loader's versions: one component, the loader itself. */
ze_result_t zelLoaderGetVersions(size_t *num_elems, zel_component_version_t *versions) {
    if (!num_elems)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    if (versions) {
        if (*num_elems < 1)
            return ZE_RESULT_ERROR_INVALID_SIZE;
        zs_loader_version(&versions[0]);
    }
    *num_elems = 1;
    return ZE_RESULT_SUCCESS;
}

ze_result_t zelLoaderGetVersionsInternal(size_t *num_elems, zel_component_version_t *versions) {
    return zelLoaderGetVersions(num_elems, versions);
}

ze_result_t zelLoaderGetVersion(zel_component_version_t *version) {
    if (!version)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    zs_loader_version(version);
    return ZE_RESULT_SUCCESS;
}

/* One driver and no layers: a handle is its own driver's handle. */
ze_result_t zelLoaderTranslateHandle(zel_handle_type_t handleType, void *handleIn,
                                     void **handleOut) {
    (void)handleType;
    if (!handleIn || !handleOut)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    *handleOut = handleIn;
    return ZE_RESULT_SUCCESS;
}

ze_result_t zelLoaderTranslateHandleInternal(zel_handle_type_t handleType, void *handleIn,
                                             void **handleOut) {
    return zelLoaderTranslateHandle(handleType, handleIn, handleOut);
}

/* The dynamic tracing layer: ze_sim has none to turn on. */
ze_result_t zelEnableTracingLayer(void) {
    return ZE_RESULT_ERROR_UNSUPPORTED_FEATURE;
}

ze_result_t zelDisableTracingLayer(void) {
    return ZE_RESULT_ERROR_UNSUPPORTED_FEATURE;
}

ze_result_t zelGetTracingLayerState(bool *enabled) {
    if (!enabled)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    *enabled = false;
    return ZE_RESULT_SUCCESS;
}
