/* Finding a plugin library (path, name, environment, default) and opening it. */
/* dladdr and Dl_info are GNU extensions. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"

#define PJDL_DEFAULT_PLUGIN "libpjrt_ref.so"
#define PJDL_PATH_MAX 4096

static _Thread_local char found_path[PJDL_PATH_MAX];

typedef const PJRT_Api *get_api_fn(void);

pjdl_code pjdl_plugin_find(const char *name, const char **path) {
    pjdl__clear_error();
    if (name == NULL || path == NULL || name[0] == '\0')
        return pjdl__fail(PJDL_INVALID_ARGUMENT, "pjdl_plugin_find: empty name or NULL path");
    const char *list = getenv("PJRT_NAMES_AND_LIBRARY_PATHS");
    if (list == NULL)
        return pjdl__fail(PJDL_NOT_FOUND,
                          "no plugin named '%s': PJRT_NAMES_AND_LIBRARY_PATHS is not set", name);
    size_t name_len = strlen(name);
    for (const char *item = list; *item;) {
        const char *end = strchr(item, ',');
        size_t item_len = end ? (size_t)(end - item) : strlen(item);
        const char *colon = memchr(item, ':', item_len);
        if (colon && (size_t)(colon - item) == name_len && memcmp(item, name, name_len) == 0) {
            size_t path_len = item_len - name_len - 1;
            if (path_len == 0 || path_len >= sizeof found_path)
                return pjdl__fail(PJDL_INVALID_ARGUMENT,
                                  "PJRT_NAMES_AND_LIBRARY_PATHS: bad path for plugin '%s'", name);
            memcpy(found_path, colon + 1, path_len);
            found_path[path_len] = '\0';
            *path = found_path;
            return PJDL_OK;
        }
        item += item_len + (end ? 1 : 0);
    }
    return pjdl__fail(PJDL_NOT_FOUND, "no plugin named '%s' in PJRT_NAMES_AND_LIBRARY_PATHS", name);
}

static bool looks_like_path(const char *s) {
    size_t n = strlen(s);
    return strchr(s, '/') != NULL || (n >= 3 && strcmp(s + n - 3, ".so") == 0);
}

/* The reference plugin next to this library: dladdr on one of our symbols. */
static pjdl_code default_plugin_path(char *buf, size_t size) {
    Dl_info info;
    if (dladdr((void *)&pjdl_plugin_load, &info) == 0 || info.dli_fname == NULL)
        return pjdl__fail(PJDL_NOT_FOUND, "cannot locate libpjrt_dlpack to find %s next to it",
                          PJDL_DEFAULT_PLUGIN);
    const char *slash = strrchr(info.dli_fname, '/');
    size_t dir = slash ? (size_t)(slash - info.dli_fname) + 1 : 0;
    if (dir + sizeof PJDL_DEFAULT_PLUGIN > size)
        return pjdl__fail(PJDL_INVALID_ARGUMENT, "library path too long: %s", info.dli_fname);
    memcpy(buf, info.dli_fname, dir);
    memcpy(buf + dir, PJDL_DEFAULT_PLUGIN, sizeof PJDL_DEFAULT_PLUGIN);
    return PJDL_OK;
}

/* Turns the argument of pjdl_plugin_load into a file path in `buf`. */
static pjdl_code resolve_path(const char *path, char *buf, size_t size) {
    if (path == NULL) {
        const char *env = getenv("PJRT_DLPACK_PLUGIN");
        if (env == NULL || env[0] == '\0')
            return default_plugin_path(buf, size);
        path = env;
    }
    if (path[0] == '\0')
        return pjdl__fail(PJDL_INVALID_ARGUMENT, "pjdl_plugin_load: empty plugin path");
    if (!looks_like_path(path)) {
        PJDL_TRY(pjdl_plugin_find(path, &path));
    }
    if (strlen(path) >= size)
        return pjdl__fail(PJDL_INVALID_ARGUMENT, "plugin path too long: %.200s...", path);
    strcpy(buf, path);
    return PJDL_OK;
}

/* RTLD_NODELETE: a plugin, once loaded, stays mapped until the process
 * exits. Real plugins are not written to be unloaded: XLA's registers
 * exit-time handlers and keeps thread pools, and the process crashes at exit
 * if its code is gone. PJRT_Plugin_Initialize is also once per process, and
 * frameworks (JAX) never unload a plugin either. */
static pjdl_code open_library(const char *path, void **handle, const PJRT_Api **api) {
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
    if (h == NULL) {
        const char *why = dlerror();
        bool missing = strchr(path, '/') != NULL ? access(path, F_OK) != 0
                                                 : why && strstr(why, "No such file") != NULL;
        char foreign[256];
        if (!missing && strchr(path, '/') != NULL &&
            pjdl__describe_foreign(path, foreign, sizeof foreign))
            return pjdl__fail(PJDL_FAILED_PRECONDITION, "cannot load PJRT plugin %s: %s", path,
                              foreign);
        /* dlerror() starts with the path: said once. */
        size_t n = strlen(path);
        if (why != NULL && strncmp(why, path, n) == 0 && strncmp(why + n, ": ", 2) == 0)
            why += n + 2;
        return pjdl__fail(missing ? PJDL_NOT_FOUND : PJDL_INVALID_ARGUMENT,
                          "cannot load PJRT plugin %s: %s", path, why ? why : "dlopen failed");
    }
    get_api_fn *get_api;
    void *sym = dlsym(h, "GetPjrtApi");
    memcpy(&get_api, &sym, sizeof get_api);
    const PJRT_Api *table = get_api ? get_api() : NULL;
    if (table == NULL) {
        dlclose(h);
        return pjdl__fail(PJDL_INVALID_ARGUMENT, "%s is not a PJRT plugin: %s", path,
                          get_api ? "GetPjrtApi() returned NULL" : "it has no GetPjrtApi symbol");
    }
    *handle = h;
    *api = table;
    return PJDL_OK;
}

pjdl_code pjdl_plugin_load(const char *path, pjdl_plugin **out) {
    pjdl__clear_error();
    if (out == NULL)
        return pjdl__fail(PJDL_INVALID_ARGUMENT, "pjdl_plugin_load: out must not be NULL");
    char file[PJDL_PATH_MAX];
    PJDL_TRY(resolve_path(path, file, sizeof file));
    void *handle = NULL;
    const PJRT_Api *api = NULL;
    PJDL_TRY(open_library(file, &handle, &api));
    char *copy = NULL;
    pjdl_code code = pjdl__strdup(file, strlen(file), &copy);
    if (code != PJDL_OK) {
        dlclose(handle);
        return code;
    }
    return pjdl__plugin_open(handle, copy, api, out);
}
