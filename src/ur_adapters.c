/*
 * Two of Intel's SYCL runtimes in one process: a PJRT plugin's (Intel's
 * oneAPI plugin links the 2025.1 runtime, whose Unified Runtime loader is
 * libur_loader.so.0 beside its adapters) and one started before it, such as
 * dpctl's and dpnp's 2026 runtime, whose libsycl embeds its loader and opens
 * its adapters by path. When the plugin's client is created its loader
 * opens each adapter by bare name (libur_adapter_level_zero.so.0), and the
 * dynamic linker answers a bare name with an already loaded library of that
 * SONAME: the other runtime's adapter, which the plugin's loader cannot use
 * (undefined symbol urGetGlobalProcAddrTable, then SIGSEGV in the plugin).
 * So while such a client is created, UR_ADAPTERS_FORCE_LOAD (the loader's
 * own setting, read once when it initializes) names the plugin runtime's
 * adapters by path, and is removed again afterwards. Nothing happens when
 * no adapter of another folder is loaded (the usual case), or when the
 * variable is already set.
 */
#define _GNU_SOURCE /* dl_iterate_phdr */
#include <dirent.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#define UR_FORCE_LOAD "UR_ADAPTERS_FORCE_LOAD"
#define UR_LOADER "libur_loader.so"
#define UR_ADAPTER "libur_adapter_"
#define UR_PATH_MAX 4096

/* What dl_iterate_phdr found: the folder of the loaded UR loader, and
 * whether an adapter was loaded from elsewhere. */
typedef struct {
    char loader_dir[UR_PATH_MAX];
    char adapter_dirs[8][UR_PATH_MAX];
    int num_adapters;
} ur_scan;

/* The folder part of `path` into buf (empty when it has none). */
static void dir_of(const char *path, char *buf) {
    const char *slash = strrchr(path, '/');
    size_t n = slash ? (size_t)(slash - path) : 0;
    if (n >= UR_PATH_MAX)
        n = 0;
    memcpy(buf, path, n);
    buf[n] = '\0';
}

static int scan_one(struct dl_phdr_info *info, size_t size, void *data) {
    (void)size;
    ur_scan *scan = data;
    const char *path = info->dlpi_name;
    const char *base = path ? strrchr(path, '/') : NULL;
    if (base == NULL)
        return 0;
    base++;
    if (strncmp(base, UR_LOADER, strlen(UR_LOADER)) == 0 && scan->loader_dir[0] == '\0')
        dir_of(path, scan->loader_dir);
    else if (strncmp(base, UR_ADAPTER, strlen(UR_ADAPTER)) == 0 && scan->num_adapters < 8)
        dir_of(path, scan->adapter_dirs[scan->num_adapters++]);
    return 0;
}

/* The plugin runtime's adapters (libur_adapter_*.so.0 in `dir`), by path,
 * comma-separated, into buf. Whether any was found. */
static bool own_adapters(const char *dir, char *buf, size_t size) {
    DIR *d = opendir(dir);
    if (d == NULL)
        return false;
    size_t used = 0;
    bool any = false;
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        size_t n = strlen(e->d_name);
        if (strncmp(e->d_name, UR_ADAPTER, strlen(UR_ADAPTER)) != 0 || n < 5 ||
            strcmp(e->d_name + n - 5, ".so.0") != 0)
            continue;
        int w = snprintf(buf + used, size - used, "%s%s/%s", any ? "," : "", dir, e->d_name);
        if (w < 0 || (size_t)w >= size - used)
            break;
        used += (size_t)w;
        any = true;
    }
    closedir(d);
    return any;
}

/* Held from a pin to its unpin: one client creation at a time sets the
 * variable, and none reads it half set. */
static pthread_mutex_t pin_lock = PTHREAD_MUTEX_INITIALIZER;
static ur_scan scan; /* large: not on the stack; under pin_lock */
static char list[4 * UR_PATH_MAX];

/* Whether the variable should be set, with `list` made. */
static bool needs_pin(void) {
    if (getenv(UR_FORCE_LOAD) != NULL)
        return false;
    memset(&scan, 0, sizeof scan);
    dl_iterate_phdr(scan_one, &scan);
    if (scan.loader_dir[0] == '\0')
        return false;
    bool foreign = false;
    for (int i = 0; i < scan.num_adapters; i++)
        foreign |= strcmp(scan.adapter_dirs[i], scan.loader_dir) != 0;
    return foreign && own_adapters(scan.loader_dir, list, sizeof list);
}

bool pjdl__ur_adapters_pin(void) {
    pthread_mutex_lock(&pin_lock);
    if (needs_pin() && setenv(UR_FORCE_LOAD, list, 1) == 0)
        return true;
    pthread_mutex_unlock(&pin_lock);
    return false;
}

void pjdl__ur_adapters_unpin(bool pinned) {
    if (!pinned)
        return;
    unsetenv(UR_FORCE_LOAD);
    pthread_mutex_unlock(&pin_lock);
}
