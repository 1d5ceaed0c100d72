/* pjrt-dlpack check: the runner (registry, set-up, output, exit code). */
#include <dlfcn.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench_util.h"
#include "check.h"

static const ck_def checks[] = {
    {"abi.entry", "GetPjrtApi is exported and returns a function table", ck_abi_entry, false},
    {"abi.version", "the ABI major version matches; any minor is accepted", ck_abi_version, false},
    {"abi.table", "the entry points DLPack needs are inside struct_size and not NULL", ck_abi_table,
     false},
    {"abi.extensions", "the extension chain is well formed", ck_abi_extensions, false},
    {"abi.args", "args struct_size: too small is refused, larger (newer caller) accepted",
     ck_abi_args, true},
    {"abi.types", "element types newer than the plugin's ABI are not handed to it", ck_abi_types,
     true},
    {"export.types", "export of every element type DLPack can express", ck_export_types, true},
    {"export.shapes", "export of 0-d, zero-size and multi-dimensional buffers", ck_export_shapes,
     true},
    {"subbyte.storage", "sub-byte types: host form, packed device memory, zero-copy both ways",
     ck_subbyte_storage, true},
    {"export.strided", "export of a buffer with a non-row-major device layout", ck_export_strided,
     true},
    {"export.fields",
     "exported tensors carry DLPack 1.3's fields: version, flags, strides, byte_offset, device ids",
     ck_export_fields, true},
    {"import.views", "import is a zero-copy view of the producer's memory", ck_import_views, true},
    {"import.layouts", "views of compact permutations read back in the right order",
     ck_import_layouts, true},
    {"ready.no_stream", "export without a stream returns only when the data is there",
     ck_ready_no_stream, true},
    {"ready.stream", "export with a consumer stream; streams refused where there are none",
     ck_ready_stream, true},
    {"pin.raw", "an external reference keeps memory valid after PJRT_Buffer_Delete", ck_pin_raw,
     true},
    {"pin.export", "an exported tensor stays valid after its buffer is deleted and released",
     ck_pin_export, true},
    {"ondelete.once", "a view's on_delete_callback runs exactly once, and only when unpinned",
     ck_on_delete, true},
    {"transfer.mode", "transfer export: the buffer is unusable, the tensor stays valid",
     ck_transfer_mode, true},
    {"reject.tensors", "malformed DLPack tensors are refused and not deleted", ck_reject_tensors,
     true},
    {"reject.plugin", "the plugin refuses malformed views and host buffers", ck_reject_plugin,
     true},
    {"threads", "concurrent export, import and release from several threads", ck_threads, true},
};
#define NUM_CHECKS (sizeof checks / sizeof checks[0])

/* ------------------------------------------------------------ recording */

static void append(ck_result *r, const char *fmt, va_list ap) {
    if (r->len + 4 >= sizeof r->detail)
        return;
    if (r->len > 0) {
        memcpy(r->detail + r->len, "; ", 3);
        r->len += 2;
    }
    int n = vsnprintf(r->detail + r->len, sizeof r->detail - r->len, fmt, ap);
    if (n > 0)
        r->len += (size_t)n < sizeof r->detail - r->len ? (size_t)n : sizeof r->detail - r->len - 1;
}

void ck_fail(ck_result *r, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    r->status = CK_FAIL;
    r->failures++;
    if (r->failures <= 4)
        append(r, fmt, ap);
    va_end(ap);
}

static void step_text(bool malformed, const char *fmt, va_list ap) {
    char text[256];
    vsnprintf(text, sizeof text, fmt, ap);
    cli_watch_context(text, malformed);
}

void ck_step(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    step_text(false, fmt, ap);
    va_end(ap);
}

void ck_malformed(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    step_text(true, fmt, ap);
    va_end(ap);
}

void ck_unsupported(ck_result *r, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    if (r->status == CK_PASS)
        r->status = CK_UNSUPPORTED;
    append(r, fmt, ap);
    va_end(ap);
}

void ck_note(ck_result *r, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    append(r, fmt, ap);
    va_end(ap);
}

static const char *status_name(ck_status s) {
    switch (s) {
    case CK_PASS:
        return "PASS";
    case CK_FAIL:
        return "FAIL";
    case CK_UNSUPPORTED:
        return "UNSUPPORTED";
    default:
        return "SKIPPED";
    }
}

/* ------------------------------------------------------------ selection */

static bool selected(const cli_args *args, const char *name) {
    if (args->num_only == 0)
        return true;
    for (size_t i = 0; i < args->num_only; i++)
        if (strncmp(name, args->only[i], strlen(args->only[i])) == 0)
            return true;
    return false;
}

static int list_checks(const cli_args *args) {
    if (args->json) {
        json_writer w;
        json_init(&w, stdout);
        json_begin_array(&w);
        for (size_t i = 0; i < NUM_CHECKS; i++) {
            json_begin_object(&w);
            json_field_string(&w, "name", checks[i].name);
            json_field_string(&w, "summary", checks[i].summary);
            json_end_object(&w);
        }
        json_end_array(&w);
        json_finish(&w);
    } else {
        for (size_t i = 0; i < NUM_CHECKS; i++)
            printf("%-16s %s\n", checks[i].name, checks[i].summary);
    }
    return CLI_EXIT_OK;
}

/* --------------------------------------------------------------- set-up */

/* What the set-up learnt, in memory shared with the parent when it runs in
 * a child: the plugin's file (the default resolved), the library's verdict
 * on it, and the platform of a client it created and released. The checks'
 * children load the plugin again and create clients of their own. */
typedef struct ck_setup {
    char path[4096];
    bool opened; /* our own dlopen worked (else why: on stderr) */
    bool loaded; /* the library's load returned, with load_code */
    pjdl_code load_code;
    char load_msg[512];
    char lost[512]; /* the set-up crashed or hung: where (and ok is false) */
    char name[128];
    char version[256];
    size_t devices;
    bool ok; /* a client with a device was created */
} ck_setup;

static ck_setup *setup;

/* dlopens the plugin ourselves to inspect the table before the library
 * judges it. Returns false when the file cannot be loaded at all. */
static bool inspect_raw(ck_ctx *ctx) {
    const char *path = ctx->s->path;
    cli_watch_mark m = cli_watch_enter("dlopen");
    ctx->abi.handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    cli_watch_leave(m);
    if (ctx->abi.handle == NULL) {
        snprintf(setup->load_msg, sizeof setup->load_msg, "cannot load plugin %.200s: %.280s", path,
                 dlerror());
        fprintf(stderr, "pjrt-dlpack: %s\n", setup->load_msg);
        return false;
    }
    m = cli_watch_enter("GetPjrtApi");
    raw_get_api(ctx->abi.handle, &ctx->abi.has_symbol, &ctx->abi.api);
    cli_watch_leave(m);
    return true;
}

/* Our own look at the table and the library's load, in the order that
 * names each step (the default's path is known only after the load). */
static void setup_load(ck_ctx *ctx) {
    cli_session *s = ctx->s;
    if (s->path[0] && !(setup->opened = inspect_raw(ctx)))
        return;
    pjdl_code rc = cli_plugin_load(s);
    setup->load_code = rc;
    if (rc != PJDL_OK)
        snprintf(setup->load_msg, sizeof setup->load_msg, "%s", pjdl_last_error());
    setup->loaded = true;
    snprintf(setup->path, sizeof setup->path, "%s", s->path);
    if (s->path[0] == '\0' || rc == PJDL_NOT_FOUND)
        return; /* the default failed: nothing to inspect */
    if (ctx->abi.handle == NULL)
        setup->opened = inspect_raw(ctx);
}

/* Creates and releases a client, to learn the platform. */
static void setup_platform(ck_ctx *ctx) {
    cli_session *s = ctx->s;
    if (s->plugin == NULL || cli_client_create(s) != PJDL_OK)
        return;
    snprintf(setup->name, sizeof setup->name, "%s", pjdl_client_platform_name(s->client));
    snprintf(setup->version, sizeof setup->version, "%s", pjdl_client_platform_version(s->client));
    setup->devices = pjdl_client_device_count(s->client);
    setup->ok = setup->devices > 0;
    if (!setup->ok)
        fprintf(stderr, "pjrt-dlpack: the client of %s has no addressable device\n", s->path);
    pjdl_client_release(s->client);
    s->client = NULL;
}

/* Plugins log to stdout too (Tenstorrent's does): in a child, whose results
 * go to the parent through shared memory, stdout is stderr, so that the
 * command's stdout holds only the report (--json). */
static void child_stdout_to_stderr(void) {
    fflush(stdout);
    dup2(STDERR_FILENO, STDOUT_FILENO);
}

static int setup_child(void *arg) {
    ck_ctx *ctx = arg;
    child_stdout_to_stderr();
    setup_load(ctx);
    if (setup->opened && setup->load_code == PJDL_OK)
        setup_platform(ctx);
    cli_session_close(ctx->s);
    return 0;
}

/* The set-up in a child: a plugin that crashes or hangs in its load or its
 * client creation cannot take the command with it. */
static void setup_forked(ck_ctx *ctx, cli_watch *w) {
    int64_t limit = cli_timeout_ms(ctx->args);
    cli_child_end end = {0};
    bool forked = cli_watch_fork(w, setup_child, ctx, limit, 0, &end);
    if (forked && !end.hung && WIFEXITED(end.status) && WEXITSTATUS(end.status) == 0)
        return;
    setup->ok = false;
    if (!forked)
        snprintf(setup->lost, sizeof setup->lost, "fork: %s", strerror(errno));
    else
        cli_child_end_text(&end, setup->loaded ? "PJRT_Client_Create" : "loading the plugin", limit,
                           setup->lost, sizeof setup->lost);
    fprintf(stderr, "pjrt-dlpack: %s: %s\n", setup->path[0] ? setup->path : "(default)",
            setup->lost);
}

/* A check's child: the plugin as the set-up found it, loaded again. */
static bool child_load(ck_ctx *ctx) {
    snprintf(ctx->s->path, sizeof ctx->s->path, "%s", setup->path);
    ctx->abi.load_code = setup->load_code;
    snprintf(ctx->abi.load_msg, sizeof ctx->abi.load_msg, "%s", setup->load_msg);
    if (!setup->loaded) {
        ctx->abi.load_lost = true;
        ctx->abi.load_code = PJDL_UNAVAILABLE;
        snprintf(ctx->abi.load_msg, sizeof ctx->abi.load_msg, "%s", setup->lost);
    }
    if (setup->opened && !inspect_raw(ctx))
        return false;
    if (setup->loaded && setup->load_code == PJDL_OK && cli_plugin_load(ctx->s) != PJDL_OK)
        return false;
    return true;
}

static void print_header(ck_ctx *ctx) {
    if (ctx->args->json)
        return;
    printf("plugin:   %s\n", setup->path[0] ? setup->path : "(default)");
    if (setup->ok)
        printf("platform: %s %s, %zu device(s)\n", setup->name, setup->version, setup->devices);
    else if (setup->lost[0])
        printf("platform: none: %s\n", setup->lost);
    printf("\n");
}

static void print_result(const cli_args *args, const ck_def *d, const ck_result *r) {
    if (args->json)
        return;
    printf("%-11s %-16s %s\n", status_name(r->status), d->name, r->len ? r->detail : d->summary);
    fflush(stdout);
}

/* The report as JSON, every key always there: `platform` null and
 * `setup_error` the reason when there is no client, `checks` empty when
 * none ran (a plugin that could not be found or loaded). */
static void print_json_of(const char *path, const char *platform, const char *setup_error,
                          const ck_result *results, const bool *ran, const int counts[4]) {
    json_writer w;
    json_init(&w, stdout);
    json_begin_object(&w);
    json_field_string(&w, "plugin", path);
    json_field_string(&w, "platform", platform);
    json_field_string(&w, "setup_error", setup_error);
    json_key(&w, "checks");
    json_begin_array(&w);
    for (size_t i = 0; i < NUM_CHECKS; i++) {
        if (!ran[i])
            continue;
        json_begin_object(&w);
        json_field_string(&w, "name", checks[i].name);
        json_field_string(&w, "status", status_name(results[i].status));
        json_field_string(&w, "summary", checks[i].summary);
        json_field_string(&w, "detail", results[i].detail);
        json_end_object(&w);
    }
    json_end_array(&w);
    json_key(&w, "summary");
    json_begin_object(&w);
    json_field_int(&w, "pass", counts[CK_PASS]);
    json_field_int(&w, "fail", counts[CK_FAIL]);
    json_field_int(&w, "unsupported", counts[CK_UNSUPPORTED]);
    json_field_int(&w, "skipped", counts[CK_SKIPPED]);
    json_end_object(&w);
    json_end_object(&w);
    json_finish(&w);
}

static void print_json(const ck_result *results, const bool *ran, int counts[4]) {
    print_json_of(setup->path, setup->ok ? setup->name : NULL, setup->lost[0] ? setup->lost : NULL,
                  results, ran, counts);
}

/* --json when the plugin could not be found or loaded: no check ran. */
static void print_json_unloaded(const cli_args *args, const char *path, const char *why) {
    static const bool ran[NUM_CHECKS] = {false};
    static const int counts[4] = {0};
    if (args->json)
        print_json_of(path[0] ? path : (args->plugin ? args->plugin : ""), NULL, why, NULL, ran,
                      counts);
}

/* ------------------------------------------------------------ running */

/* A check's outcome as its child reports it, in memory shared with the
 * parent; `done` once written. */
typedef struct ck_report {
    ck_result r;
    bool done;
} ck_report;

/* Runs one check with a client of its own (created here, released after). */
static void run_body(ck_ctx *ctx, const ck_def *d, ck_result *r) {
    memset(r, 0, sizeof *r);
    if (d->needs_client) {
        if (ctx->s->plugin == NULL || !setup->ok) {
            r->status = CK_SKIPPED;
            ck_note(r, "%s%s%s",
                    ctx->s->plugin ? "no client could be created"
                                   : "the library could not load the plugin",
                    setup->lost[0] ? ": " : "", setup->lost);
            return;
        }
        pjdl_code rc = cli_client_create(ctx->s);
        if (rc != PJDL_OK) {
            ck_fail(r, "creating a client: %s: %s", pjdl_code_name(rc), pjdl_last_error());
            return;
        }
        /* A hang is a failure, not a stuck command. */
        pjdl_client_set_wait_timeout(ctx->s->client, cli_timeout_ms(ctx->args));
        ctx->api = ctx->s->api;
        ctx->client = ctx->s->client;
        ctx->pc = pjdl_client_pjrt(ctx->client);
        ctx->dev = pjdl_client_device(ctx->client, 0);
        if (ctx->dev == NULL)
            ck_fail(r, "the client has no addressable device");
    }
    if (r->status != CK_FAIL)
        d->fn(ctx, r);
    ctx->client = NULL;
    ctx->pc = NULL;
    ctx->dev = NULL;
    pjdl_client_release(ctx->s->client);
    ctx->s->client = NULL;
}

/* What a check's child that did not report says: it hung, crashed (a
 * signal), or ended the process otherwise (an exit without a report, which
 * is how AddressSanitizer ends a process on a plugin's abort). A crash is
 * blamed on a malformed request only when the check said so (ck_malformed:
 * the well-formed call returned first). */
static void report_unfinished(const cli_child_end *end, int64_t limit_ms, ck_result *r) {
    memset(r, 0, sizeof *r);
    const char *during = end->context[0] ? end->context : NULL;
    char what[512];
    cli_child_end_text(end, "the check", limit_ms, what, sizeof what);
    if (end->hung && end->entry == NULL)
        ck_fail(r, "%s (a wait that never ends?)", what);
    else if (!end->hung && end->malformed)
        ck_unsupported(r,
                       "the plugin does not refuse malformed requests: %s, on %s, after the same "
                       "call well formed had returned. The C API does not require it to "
                       "validate, so callers must (libpjrt_dlpack checks everything before "
                       "calling)",
                       what, during);
    else
        ck_fail(r, "%s%s%s%s", what, during ? " during: " : "", during ? during : "",
                !end->hung && WIFSIGNALED(end->status) ? "; run with --no-fork under a debugger"
                                                       : "");
}

/* A check in its child (run_forked). */
typedef struct check_run {
    ck_ctx *ctx;
    const ck_def *def;
    ck_report *report;
} check_run;

static int check_child(void *arg) {
    check_run *run = arg;
    child_stdout_to_stderr();
    if (child_load(run->ctx))
        run_body(run->ctx, run->def, &run->report->r);
    else
        ck_fail(&run->report->r, "loading the plugin again in the check's process failed: %s",
                pjdl_last_error());
    cli_session_close(run->ctx->s);
    run->report->done = true;
    return 0;
}

/* Runs the check in a child process: a crash or a hang (a plugin that frees
 * twice, a deleter run twice, an event that never completes, an entry point
 * that never returns) is then that check's FAIL, and the other checks still
 * run. */
static void run_forked(ck_ctx *ctx, const ck_def *d, cli_watch *w, ck_report *rep, ck_result *r) {
    memset(rep, 0, sizeof *rep);
    cli_watch_reset(w);
    int64_t limit = cli_timeout_ms(ctx->args);
    check_run run = {ctx, d, rep};
    cli_child_end end;
    if (!cli_watch_fork(w, check_child, &run, limit, cli_check_limit_ms(ctx->args), &end)) {
        memset(r, 0, sizeof *r);
        ck_fail(r, "fork: %s", strerror(errno));
        return;
    }
    if (rep->done && !end.hung && WIFEXITED(end.status) && WEXITSTATUS(end.status) == 0)
        *r = rep->r;
    else
        report_unfinished(&end, limit, r);
}

/* Runs every selected check; `w` and `rep` are shared with the children
 * (NULL with --no-fork). */
static void run_checks(ck_ctx *ctx, cli_watch *w, ck_report *rep, ck_result *results, bool *ran,
                       int counts[4], size_t total) {
    size_t done = 0;
    for (size_t i = 0; i < NUM_CHECKS; i++) {
        if (!selected(ctx->args, checks[i].name))
            continue;
        ck_result *r = &results[i];
        progress_show(ctx->args->progress, "check", ++done, total, checks[i].name);
        if (w == NULL)
            run_body(ctx, &checks[i], r);
        else
            run_forked(ctx, &checks[i], w, rep, r);
        ran[i] = true;
        counts[r->status]++;
    }
    progress_done(ctx->args->progress);
}

static int run_all(ck_ctx *ctx, cli_watch *w, ck_report *rep) {
    static ck_result results[NUM_CHECKS];
    bool ran[NUM_CHECKS] = {false};
    int counts[4] = {0};
    size_t total = 0;
    for (size_t i = 0; i < NUM_CHECKS; i++)
        total += selected(ctx->args, checks[i].name);
    if (total == 0) {
        fprintf(stderr, "pjrt-dlpack: --only matches no check (see 'pjrt-dlpack check --list')\n");
        return CLI_EXIT_USAGE;
    }
    run_checks(ctx, w, rep, results, ran, counts, total);
    if (ctx->args->json) {
        print_json(results, ran, counts);
    } else {
        print_header(ctx);
        for (size_t i = 0; i < NUM_CHECKS; i++)
            if (ran[i])
                print_result(ctx->args, &checks[i], &results[i]);
        printf("\n%d passed, %d failed, %d unsupported, %d skipped\n", counts[CK_PASS],
               counts[CK_FAIL], counts[CK_UNSUPPORTED], counts[CK_SKIPPED]);
    }
    if (counts[CK_FAIL])
        return CLI_EXIT_FAILED;
    /* No client and nothing wrong with the plugin's ABI: a set-up problem
     * (an option the plugin refuses, a load or a client creation that
     * crashed or hung), already reported. */
    bool needed = false;
    for (size_t i = 0; i < NUM_CHECKS; i++)
        needed = needed || (ran[i] && checks[i].needs_client);
    return needed && !setup->ok ? CLI_EXIT_NO_PLUGIN : CLI_EXIT_OK;
}

/* The shared memory of the set-up, the watch and the reports. */
typedef struct ck_shared {
    ck_setup setup;
    ck_report report;
} ck_shared;

static int check_plugin(ck_ctx *ctx, cli_watch *w, ck_shared *sh) {
    setup = &sh->setup;
    snprintf(setup->path, sizeof setup->path, "%s", ctx->s->path);
    if (w == NULL) { /* --no-fork: everything here */
        setup_load(ctx);
        if (setup->opened && setup->load_code == PJDL_OK)
            setup_platform(ctx);
        ctx->abi.load_code = setup->load_code;
        snprintf(ctx->abi.load_msg, sizeof ctx->abi.load_msg, "%s", setup->load_msg);
    } else {
        setup_forked(ctx, w);
    }
    /* Not opened: not loadable, or the default could not be found or
     * loaded; said why on stderr. */
    if (!setup->opened) {
        print_json_unloaded(ctx->args, setup->path,
                            setup->lost[0]       ? setup->lost
                            : setup->load_msg[0] ? setup->load_msg
                                                 : "the plugin could not be loaded");
        return CLI_EXIT_NO_PLUGIN;
    }
    return run_all(ctx, w, w ? &sh->report : NULL);
}

int cli_check(const cli_args *args) {
    if (args->list_checks)
        return list_checks(args);
    cli_session s = {0};
    s.args = args;
    ck_ctx ctx = {0};
    ctx.args = args;
    ctx.s = &s;
    char why[1024];
    if (!cli_plugin_resolve(args, s.path, sizeof s.path, why, sizeof why)) {
        fprintf(stderr, "pjrt-dlpack: %s\n", why);
        print_json_unloaded(args, "", why);
        return CLI_EXIT_NO_PLUGIN;
    }
    ck_shared *sh = cli_shared_new(sizeof *sh);
    cli_watch *w = args->no_fork ? NULL : cli_watch_open();
    if (sh == NULL || (!args->no_fork && w == NULL)) {
        fprintf(stderr, "pjrt-dlpack: mmap: %s\n", strerror(errno));
        cli_shared_free(sh, sizeof *sh);
        cli_watch_close(w);
        return CLI_EXIT_INTERNAL;
    }
    int rc = check_plugin(&ctx, w, sh);
    cli_session_close(&s);
    if (ctx.abi.handle != NULL)
        dlclose(ctx.abi.handle);
    cli_watch_close(w);
    cli_shared_free(sh, sizeof *sh);
    setup = NULL;
    return rc;
}
