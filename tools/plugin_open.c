/* Finding the plugin (path, discovery name or default), loading it through
 * the library, and creating the client with the --option values. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"

static bool looks_like_path(const char *spec) {
    size_t n = strlen(spec);
    return strchr(spec, '/') != NULL || (n > 3 && strcmp(spec + n - 3, ".so") == 0);
}

bool cli_plugin_resolve(const cli_args *args, char *path, size_t path_size, char *why,
                        size_t why_size) {
    path[0] = '\0';
    const char *spec = args->plugin;
    if (spec == NULL)
        return true; /* the library's default, learnt after loading */
    const char *file = spec;
    if (!looks_like_path(spec)) {
        if (pjdl_plugin_find(spec, &file) != PJDL_OK) {
            snprintf(why, why_size,
                     "%s\n"
                     "  (a name is looked up in PJRT_NAMES_AND_LIBRARY_PATHS=\"name:path,...\";"
                     " give a path with a '/' to load a file)",
                     pjdl_last_error());
            return false;
        }
    }
    struct stat st;
    if (stat(file, &st) != 0 || !S_ISREG(st.st_mode)) {
        snprintf(why, why_size, "plugin '%s' (%s): no such file", spec, file);
        return false;
    }
    if (strlen(file) >= path_size) {
        snprintf(why, why_size, "plugin path too long: %s", file);
        return false;
    }
    strcpy(path, file);
    return true;
}

/* The library a failed dlopen could not find, from the loader's message
 * ("NAME: cannot open shared object file: ..."), into `name`; false if the
 * message is about something else. */
static bool missing_library(const char *message, char *name, size_t size) {
    const char *end = strstr(message, ": cannot open shared object file");
    if (end == NULL)
        return false;
    const char *start = end;
    while (start > message && !(start[-1] == ' ' && start - 1 > message && start[-2] == ':'))
        start--;
    size_t n = (size_t)(end - start);
    if (n == 0 || n >= size)
        return false;
    memcpy(name, start, n);
    name[n] = '\0';
    return true;
}

/* Under a watch: the plugin through the recording table (watch.h). */
static void plugin_watch(cli_session *s) {
    if (!cli_watch_attached())
        return;
    const PJRT_Api *table = cli_watch_table(s->api);
    if (pjdl_plugin_from_api(table, &s->watched) == PJDL_OK)
        s->api = table;
    else
        s->watched = NULL;
}

pjdl_code cli_plugin_load(cli_session *s) {
    /* Without a path the library finds the file: all three steps are its. */
    cli_watch_mark m = cli_watch_enter(s->path[0] ? "PJRT_Plugin_Initialize"
                                                  : "dlopen, GetPjrtApi or PJRT_Plugin_Initialize");
    pjdl_code rc = pjdl_plugin_load(s->path[0] ? s->path : NULL, &s->plugin);
    cli_watch_leave(m);
    if (rc != PJDL_OK) {
        const char *file = s->path[0] ? s->path : "(default)";
        /* The library's message names the file already, when it has one. */
        if (strstr(pjdl_last_error(), file) != NULL)
            fprintf(stderr, "pjrt-dlpack: %s (%s)\n", pjdl_last_error(), pjdl_code_name(rc));
        else
            fprintf(stderr, "pjrt-dlpack: cannot load plugin %s: %s (%s)\n", file,
                    pjdl_last_error(), pjdl_code_name(rc));
        /* The loader names only the first library it could not find. */
        char lib[512];
        if (missing_library(pjdl_last_error(), lib, sizeof lib) && strcmp(lib, s->path) != 0)
            fprintf(stderr,
                    "pjrt-dlpack: the plugin needs %s, which the dynamic loader cannot find "
                    "(install it, or add its folder to LD_LIBRARY_PATH; 'ldd %s' lists every "
                    "library that is missing)\n",
                    lib, file);
        s->plugin = NULL;
        return rc;
    }
    s->api = pjdl_plugin_api(s->plugin);
    const char *p = pjdl_plugin_path(s->plugin);
    if (s->path[0] == '\0' && p != NULL && strlen(p) < sizeof s->path)
        strcpy(s->path, p);
    plugin_watch(s);
    return PJDL_OK;
}

pjdl_code cli_client_create(cli_session *s) {
    pjdl_code rc = pjdl_client_create(s->watched ? s->watched : s->plugin, s->args->options,
                                      s->args->num_options, &s->client);
    if (rc != PJDL_OK) {
        fprintf(stderr, "pjrt-dlpack: cannot create a client of %s: %s (%s)\n", s->path,
                pjdl_last_error(), pjdl_code_name(rc));
        s->client = NULL;
        return rc;
    }
    if (s->args->timeout_ms > 0)
        pjdl_client_set_wait_timeout(s->client, s->args->timeout_ms);
    return PJDL_OK;
}

void cli_session_close(cli_session *s) {
    pjdl_client_release(s->client);
    s->client = NULL;
    pjdl_plugin_release(s->watched);
    s->watched = NULL;
    pjdl_plugin_release(s->plugin);
    s->plugin = NULL;
    s->api = NULL;
}

typedef struct watched_run {
    const cli_args *args;
    const char *path;
    void *shared;
    cli_watched_child child;
} watched_run;

static int watched_run_child(void *arg) {
    const watched_run *run = arg;
    return run->child(run->args, run->path, run->shared);
}

int cli_run_watched(const cli_args *args, size_t size, cli_watched_child child,
                    cli_watched_report report, cli_unresolved_report unresolved) {
    char path[4096], why[1024];
    if (!cli_plugin_resolve(args, path, sizeof path, why, sizeof why)) {
        fprintf(stderr, "pjrt-dlpack: %s\n", why);
        if (unresolved != NULL)
            unresolved(args, why);
        return CLI_EXIT_NO_PLUGIN;
    }
    void *shared = cli_shared_new(size);
    cli_watch *w = cli_watch_open();
    int rc = CLI_EXIT_INTERNAL;
    if (shared == NULL || w == NULL) {
        fprintf(stderr, "pjrt-dlpack: mmap: %s\n", strerror(errno));
    } else {
        int64_t limit_ms = cli_timeout_ms(args);
        watched_run run = {args, path, shared, child};
        cli_child_end end;
        if (!cli_watch_fork(w, watched_run_child, &run, limit_ms, 0, &end))
            fprintf(stderr, "pjrt-dlpack: fork: %s\n", strerror(errno));
        else
            rc = report(args, path, shared, &end, limit_ms);
    }
    cli_watch_close(w);
    cli_shared_free(shared, size);
    return rc;
}
