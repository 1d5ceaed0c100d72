/* Loading plugins: dlopen, version check, one PJRT_Plugin_Initialize per
 * process and table, and the plugin handle's lifetime. */
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

#include "element_type.h"
#include "internal.h"

/* The tables this process has initialized, so each is initialized once. The
 * mutex also serializes initialization itself. Entries are never removed:
 * a plugin the library loads stays mapped until the process exits (see
 * open_library in plugin_load.c), so its table's address stays its own. */
typedef struct init_entry {
    const PJRT_Api *api;
    struct init_entry *next;
} init_entry;

static pthread_mutex_t init_mu = PTHREAD_MUTEX_INITIALIZER;
static init_entry *init_list;

static bool init_known_locked(const PJRT_Api *api) {
    for (init_entry *e = init_list; e; e = e->next)
        if (e->api == api)
            return true;
    return false;
}

/* Calls PJRT_Plugin_Initialize unless this process already did for `api`. */
static pjdl_code plugin_initialize(pjdl_plugin *plugin) {
    pjdl_code code = PJDL_OK;
    pthread_mutex_lock(&init_mu);
    if (!init_known_locked(plugin->api)) {
        init_entry *entry = NULL;
        code = pjdl__alloc(sizeof *entry, "the plugin registry", &entry);
        /* A plugin without Initialize needs none. */
        if (code == PJDL_OK && PJDL_HAS(plugin, PJRT_Plugin_Initialize)) {
            PJRT_Plugin_Initialize_Args args = {.struct_size =
                                                    PJRT_Plugin_Initialize_Args_STRUCT_SIZE};
            code = PJDL_CALL(plugin->api, PJRT_Plugin_Initialize, &args);
        }
        if (code == PJDL_OK) {
            entry->api = plugin->api;
            entry->next = init_list;
            init_list = entry;
        } else {
            free(entry);
        }
    }
    pthread_mutex_unlock(&init_mu);
    return code;
}

_Static_assert(PJDL_ELEMENT_TYPE_COUNT <= 64, "pjdl_plugin.types has a bit per element type");

/* The element types of ABI 0.minor (common/element_type.c has each type's
 * first minor): a plugin of an older ABI is never handed a newer type. */
static uint64_t plugin_types(int minor) {
    uint64_t types = 0;
    for (unsigned t = 0; t < PJDL_ELEMENT_TYPE_COUNT; t++) {
        const pjdl__element_type *info = pjdl__element_type_of((PJRT_Buffer_Type)t);
        if (info != NULL && info->minor <= minor)
            types |= (uint64_t)1 << t;
    }
    return types;
}

__attribute__((cold)) pjdl_code pjdl__type_too_new(const pjdl_plugin *plugin,
                                                   PJRT_Buffer_Type type) {
    const pjdl__element_type *info = pjdl__element_type_of(type);
    if (info == NULL)
        return pjdl__fail(PJDL_INVALID_ARGUMENT, "element type %d is not a PJRT element type",
                          (int)type);
    return pjdl__fail(PJDL_UNIMPLEMENTED,
                      "element type %s (PJRT_Buffer_Type_%s) is new in PJRT C API %d.%d; the "
                      "plugin implements %d.%d, which does not have it, so it is not handed to "
                      "the plugin (older plugins crash on it)",
                      info->name, info->pjrt_name, PJRT_API_MAJOR, info->minor, plugin->major,
                      plugin->minor);
}

/* Checks the table's shape and version; fills plugin->major/minor. */
static pjdl_code plugin_check_api(pjdl_plugin *plugin) {
    const PJRT_Api *api = plugin->api;
    size_t need = offsetof(PJRT_Api, PJRT_Error_GetCode) + sizeof api->PJRT_Error_GetCode;
    if (api->struct_size < need)
        return pjdl__fail(PJDL_INVALID_ARGUMENT,
                          "malformed PJRT_Api table: struct_size %zu is too small to hold even the "
                          "error functions (%zu bytes)",
                          api->struct_size, need);
    plugin->major = api->pjrt_api_version.major_version;
    plugin->minor = api->pjrt_api_version.minor_version;
    if (plugin->major != PJRT_API_MAJOR)
        return pjdl__fail(PJDL_FAILED_PRECONDITION,
                          "the plugin implements PJRT C API version %d.%d; this library speaks "
                          "major version %d (%d.%d), and a different major version is not "
                          "compatible",
                          plugin->major, plugin->minor, PJRT_API_MAJOR, PJRT_API_MAJOR,
                          PJRT_API_MINOR);
    if (!PJDL_HAS(plugin, PJRT_Error_Destroy) || !PJDL_HAS(plugin, PJRT_Error_Message))
        return pjdl__fail(PJDL_INVALID_ARGUMENT, "malformed PJRT_Api table: PJRT_Error_Destroy or "
                                                 "PJRT_Error_Message is NULL");
    plugin->views = PJDL_HAS(plugin, PJRT_Client_CreateViewOfDeviceBuffer) &&
                    PJDL_HAS(plugin, PJRT_Buffer_Destroy);
    plugin->types = plugin_types(plugin->minor);
    return PJDL_OK;
}

static pjdl_code plugin_new(const PJRT_Api *api, pjdl_plugin **out) {
    pjdl_plugin *plugin = NULL;
    PJDL_TRY(pjdl__alloc(sizeof *plugin, "a plugin", &plugin));
    atomic_init(&plugin->refs, 1);
    plugin->api = api;
    plugin->views = false; /* plugin_check_api */
    plugin->types = 0;
    *out = plugin;
    return PJDL_OK;
}

pjdl_code pjdl_plugin_from_api(const PJRT_Api *api, pjdl_plugin **out) {
    pjdl__clear_error();
    if (api == NULL || out == NULL)
        return pjdl__fail(PJDL_INVALID_ARGUMENT,
                          "pjdl_plugin_from_api: api and out must not be NULL");
    pjdl_plugin *plugin = NULL;
    PJDL_TRY(plugin_new(api, &plugin));
    pjdl_code code = plugin_check_api(plugin);
    if (code != PJDL_OK) {
        free(plugin);
        return code;
    }
    /* The framework initialized it; remember that so a later load of the same
     * library does not initialize it twice. Best effort: on allocation failure
     * the worst case is that a later pjdl_plugin_load initializes it again. */
    pthread_mutex_lock(&init_mu);
    init_entry *entry = NULL;
    if (!init_known_locked(api) && pjdl__alloc(sizeof *entry, "the plugin registry", &entry) == 0) {
        entry->api = api;
        entry->next = init_list;
        init_list = entry;
    }
    pthread_mutex_unlock(&init_mu);
    pjdl__clear_error();
    *out = plugin;
    return PJDL_OK;
}

/* Takes ownership of `handle` and `path` (both freed on failure). */
pjdl_code pjdl__plugin_open(void *handle, char *path, const PJRT_Api *api, pjdl_plugin **out) {
    pjdl_plugin *plugin = NULL;
    pjdl_code code = plugin_new(api, &plugin);
    if (code != PJDL_OK) {
        dlclose(handle);
        free(path);
        return code;
    }
    plugin->handle = handle;
    plugin->path = path;
    code = plugin_check_api(plugin);
    if (code == PJDL_OK)
        code = plugin_initialize(plugin);
    if (code != PJDL_OK) {
        pjdl_plugin_release(plugin);
        return code;
    }
    *out = plugin;
    return PJDL_OK;
}

void pjdl_plugin_retain(pjdl_plugin *plugin) {
    if (plugin)
        atomic_fetch_add_explicit(&plugin->refs, 1, memory_order_relaxed);
}

void pjdl_plugin_release(pjdl_plugin *plugin) {
    if (plugin == NULL)
        return;
    if (atomic_fetch_sub_explicit(&plugin->refs, 1, memory_order_acq_rel) != 1)
        return;
    if (plugin->handle != NULL)
        dlclose(plugin->handle); /* drops a count; the library stays mapped */
    free(plugin->path);
    free(plugin);
}

const PJRT_Api *pjdl_plugin_api(const pjdl_plugin *plugin) {
    return plugin ? plugin->api : NULL;
}

const char *pjdl_plugin_path(const pjdl_plugin *plugin) {
    return plugin ? plugin->path : NULL;
}

void pjdl_plugin_abi_version(const pjdl_plugin *plugin, int *major, int *minor) {
    if (major)
        *major = plugin ? plugin->major : -1;
    if (minor)
        *minor = plugin ? plugin->minor : -1;
}

const PJRT_Extension_Base *pjdl_plugin_extension(const pjdl_plugin *plugin,
                                                 PJRT_Extension_Type type) {
    if (plugin == NULL)
        return NULL;
    /* A malformed chain must not hang us: bound the walk. */
    size_t steps = 0;
    for (const PJRT_Extension_Base *e = pjdl_api_extensions(plugin->api); e && steps < 1024;
         e = e->next, steps++)
        if (e->type == type)
            return e;
    return NULL;
}

const PJRT_Stream_Extension *pjdl__stream_extension(const pjdl_plugin *plugin) {
    const PJRT_Extension_Base *base = pjdl_plugin_extension(plugin, PJRT_Extension_Type_Stream);
    if (base == NULL || base->struct_size < PJRT_Stream_Extension_STRUCT_SIZE)
        return NULL;
    return (const PJRT_Stream_Extension *)base;
}

/* At unload of this library (or exit) the registry is dropped: nothing can
 * use it any more. */
__attribute__((destructor)) static void registry_free(void) {
    pthread_mutex_lock(&init_mu);
    while (init_list != NULL) {
        init_entry *dead = init_list;
        init_list = dead->next;
        free(dead);
    }
    pthread_mutex_unlock(&init_mu);
}
