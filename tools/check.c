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
    {"abi.entry", "GetPjrtApi is exported and returns a function table", ck_abi_entry, false,
     false},
    {"abi.version", "the ABI major version matches; any minor is accepted", ck_abi_version, false,
     false},
    {"abi.table", "the entry points DLPack needs are inside struct_size and not NULL", ck_abi_table,
     false, false},
    {"abi.extensions", "the extension chain is well formed", ck_abi_extensions, false, false},
    {"abi.args", "args struct_size: too small is refused, larger (newer caller) accepted",
     ck_abi_args, true, false},
    {"export.types", "export of every element type DLPack can express", ck_export_types, true,
     false},
    {"export.shapes", "export of 0-d, zero-size and multi-dimensional buffers", ck_export_shapes,
     true, false},
    {"subbyte.storage", "sub-byte types: host form, packed device memory, zero-copy both ways",
     ck_subbyte_storage, true, false},
    {"export.strided", "export of a buffer with a non-row-major device layout", ck_export_strided,
     true, false},
    {"export.fields",
     "exported tensors carry DLPack 1.3's fields: version, flags, strides, byte_offset, device ids",
     ck_export_fields, true, false},
    {"import.views", "import is a zero-copy view of the producer's memory", ck_import_views, true,
     false},
    {"import.layouts", "views of compact permutations read back in the right order",
     ck_import_layouts, true, false},
    {"ready.no_stream", "export without a stream returns only when the data is there",
     ck_ready_no_stream, true, false},
    {"ready.stream", "export with a consumer stream; streams refused where there are none",
     ck_ready_stream, true, false},
    {"pin.raw", "an external reference keeps memory valid after PJRT_Buffer_Delete", ck_pin_raw,
     true, false},
    {"pin.export", "an exported tensor stays valid after its buffer is deleted and released",
     ck_pin_export, true, false},
    {"ondelete.once", "a view's on_delete_callback runs exactly once, and only when unpinned",
     ck_on_delete, true, false},
    {"transfer.mode", "transfer export: the buffer is unusable, the tensor stays valid",
     ck_transfer_mode, true, false},
    {"reject.tensors", "malformed DLPack tensors are refused and not deleted", ck_reject_tensors,
     true, false},
    {"reject.plugin", "the plugin refuses malformed views and host buffers", ck_reject_plugin, true,
     true},
    {"threads", "concurrent export, import and release from several threads", ck_threads, true,
     false},
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

/* The step a forked check is in, in memory shared with the runner so that
 * it survives the child's crash. NULL (no fork): steps are not recorded. */
#define STEP_SIZE 256
static char *step_page;

void ck_step(const char *fmt, ...) {
    if (step_page == NULL)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(step_page, STEP_SIZE, fmt, ap);
    va_end(ap);
}

static void step_reset(void) {
    if (step_page == NULL) {
        void *p = mmap(NULL, STEP_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED)
            return;
        step_page = p;
    }
    step_page[0] = '\0';
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

/* dlopens the plugin ourselves to inspect the table before the library
 * judges it. Returns false when the file cannot be loaded at all. */
static bool inspect_raw(ck_ctx *ctx) {
    const char *path = ctx->s->path;
    ctx->abi.handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (ctx->abi.handle == NULL) {
        fprintf(stderr, "pjrt-dlpack: cannot load plugin %s: %s\n", path, dlerror());
        return false;
    }
    raw_get_api(ctx->abi.handle, &ctx->abi.has_symbol, &ctx->abi.api);
    return true;
}

/* What the parent learnt from a client it created and released before the
 * checks ran (no plugin threads may exist when a check is forked). */
typedef struct ck_platform {
    char name[128];
    char version[256];
    size_t devices;
    bool ok;
} ck_platform;

static ck_platform platform;

static void print_header(ck_ctx *ctx) {
    if (ctx->args->json)
        return;
    printf("plugin:   %s\n", ctx->s->path[0] ? ctx->s->path : "(default)");
    if (platform.ok)
        printf("platform: %s %s, %zu device(s)\n", platform.name, platform.version,
               platform.devices);
    printf("\n");
}

static void print_result(const cli_args *args, const ck_def *d, const ck_result *r) {
    if (args->json)
        return;
    printf("%-11s %-16s %s\n", status_name(r->status), d->name, r->len ? r->detail : d->summary);
    fflush(stdout);
}

static void print_json(ck_ctx *ctx, const ck_result *results, const bool *ran, int counts[4]) {
    json_writer w;
    json_init(&w, stdout);
    json_begin_object(&w);
    json_field_string(&w, "plugin", ctx->s->path);
    json_field_string(&w, "platform", platform.ok ? platform.name : NULL);
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

/* ------------------------------------------------------------ running */

/* A check's outcome as a child process reports it. */
typedef struct ck_report {
    ck_result r;
} ck_report;

#define CHECK_TIMEOUT_S 120

/* Runs one check with a client of its own (created here, released after). */
static void run_body(ck_ctx *ctx, const ck_def *d, ck_result *r) {
    memset(r, 0, sizeof *r);
    pjdl_client *client = NULL;
    if (d->needs_client) {
        if (ctx->s->plugin == NULL || !platform.ok) {
            r->status = CK_SKIPPED;
            ck_note(r, "%s",
                    ctx->s->plugin ? "no client could be created"
                                   : "the library could not load the plugin");
            return;
        }
        pjdl_code rc =
            pjdl_client_create(ctx->s->plugin, ctx->args->options, ctx->args->num_options, &client);
        if (rc != PJDL_OK) {
            ck_fail(r, "creating a client: %s: %s", pjdl_code_name(rc), pjdl_last_error());
            return;
        }
        /* A hang is a failure, not a stuck command. */
        pjdl_client_set_wait_timeout(client,
                                     ctx->args->timeout_ms > 0 ? ctx->args->timeout_ms : 20000);
        ctx->api = ctx->s->api;
        ctx->client = client;
        ctx->pc = pjdl_client_pjrt(client);
        ctx->dev = pjdl_client_device(client, 0);
        if (ctx->dev == NULL) {
            ck_fail(r, "the client has no addressable device");
            pjdl_client_release(client);
            return;
        }
    }
    d->fn(ctx, r);
    ctx->client = NULL;
    ctx->pc = NULL;
    ctx->dev = NULL;
    pjdl_client_release(client);
}

/* What a check's child that did not report says: it hung, crashed (a
 * signal), or ended the process otherwise (an exit without a report, which
 * is how AddressSanitizer ends a process on a plugin's abort). */
static void report_unfinished(const ck_def *d, int status, bool timed_out, ck_result *r) {
    memset(r, 0, sizeof *r);
    const char *step = step_page && step_page[0] ? step_page : NULL;
    char how[64];
    if (WIFSIGNALED(status))
        snprintf(how, sizeof how, "signal %d, %s", WTERMSIG(status), strsignal(WTERMSIG(status)));
    else
        snprintf(how, sizeof how, "exit %d", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    if (timed_out)
        ck_fail(r, "the check did not finish within %d s (a wait that never ends?)",
                CHECK_TIMEOUT_S);
    else if (d->crash_is_unsupported)
        ck_unsupported(r,
                       "the plugin does not refuse malformed requests: it ended the process "
                       "(%s) on %s. The C API does not require it to validate, so callers must "
                       "(libpjrt_dlpack checks everything before calling)",
                       how, step ? step : "its first request");
    else if (WIFSIGNALED(status))
        ck_fail(r, "the check crashed (%s)%s%s; run with --no-fork under a debugger", how,
                step ? " during: " : "", step ? step : "");
    else
        ck_fail(r, "the check's process exited (%s) before reporting%s%s", how,
                step ? " during: " : "", step ? step : "");
}

/* Runs the check in a child process: a crash or a hang (a plugin that frees
 * twice, a deleter run twice, an event that never completes) is then that
 * check's FAIL, and the other checks still run. */
static void run_forked(ck_ctx *ctx, const ck_def *d, ck_result *r) {
    int fds[2];
    if (pipe(fds) != 0) {
        run_body(ctx, d, r);
        return;
    }
    fflush(NULL);
    step_reset();
    pid_t pid = fork();
    if (pid < 0) {
        close(fds[0]);
        close(fds[1]);
        run_body(ctx, d, r);
        return;
    }
    if (pid == 0) {
        close(fds[0]);
        static ck_report rep;
        run_body(ctx, d, &rep.r);
        const char *p = (const char *)&rep;
        size_t left = sizeof rep;
        while (left > 0) {
            ssize_t n = write(fds[1], p, left);
            if (n <= 0)
                _exit(3);
            p += n;
            left -= (size_t)n;
        }
        fflush(NULL);
        _exit(0);
    }
    close(fds[1]);
    static ck_report rep;
    memset(&rep, 0, sizeof rep);
    size_t got = 0;
    bool timed_out = false;
    uint64_t deadline = bench_now_ns() + (uint64_t)CHECK_TIMEOUT_S * 1000000000ull;
    while (got < sizeof rep) {
        uint64_t now = bench_now_ns();
        if (now >= deadline) {
            timed_out = true;
            break;
        }
        struct pollfd pfd = {fds[0], POLLIN, 0};
        int ms = (int)((deadline - now) / 1000000ull) + 1;
        int pr = poll(&pfd, 1, ms);
        if (pr < 0 && errno == EINTR)
            continue;
        if (pr <= 0)
            continue;
        ssize_t n = read(fds[0], (char *)&rep + got, sizeof rep - got);
        if (n <= 0)
            break;
        got += (size_t)n;
    }
    close(fds[0]);
    if (timed_out)
        kill(pid, SIGKILL);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    if (got == sizeof rep && !timed_out) {
        *r = rep.r;
        return;
    }
    report_unfinished(d, status, timed_out, r);
}

static int run_all(ck_ctx *ctx) {
    static ck_result results[NUM_CHECKS];
    bool ran[NUM_CHECKS] = {false};
    int counts[4] = {0};
    size_t total = 0, done = 0;
    for (size_t i = 0; i < NUM_CHECKS; i++)
        total += selected(ctx->args, checks[i].name);
    if (total == 0) {
        fprintf(stderr, "pjrt-dlpack: --only matches no check (see 'pjrt-dlpack check --list')\n");
        return CLI_EXIT_USAGE;
    }
    for (size_t i = 0; i < NUM_CHECKS; i++) {
        if (!selected(ctx->args, checks[i].name))
            continue;
        ck_result *r = &results[i];
        progress_show(ctx->args->progress, "check", ++done, total, checks[i].name);
        if (ctx->args->no_fork)
            run_body(ctx, &checks[i], r);
        else
            run_forked(ctx, &checks[i], r);
        ran[i] = true;
        counts[r->status]++;
    }
    progress_done(ctx->args->progress);
    /* No client and nothing wrong with the plugin's ABI: a set-up problem
     * (e.g. an option the plugin refuses), already reported. */
    if (ctx->s->plugin != NULL && !platform.ok && counts[CK_FAIL] == 0)
        return CLI_EXIT_NO_PLUGIN;
    if (ctx->args->json) {
        print_json(ctx, results, ran, counts);
    } else {
        print_header(ctx);
        for (size_t i = 0; i < NUM_CHECKS; i++)
            if (ran[i])
                print_result(ctx->args, &checks[i], &results[i]);
        printf("\n%d passed, %d failed, %d unsupported, %d skipped\n", counts[CK_PASS],
               counts[CK_FAIL], counts[CK_UNSUPPORTED], counts[CK_SKIPPED]);
    }
    return counts[CK_FAIL] ? CLI_EXIT_FAILED : CLI_EXIT_OK;
}

int cli_check(const cli_args *args) {
    if (args->list_checks)
        return list_checks(args);
    cli_session s = {0};
    s.args = args;
    ck_ctx ctx = {0};
    ctx.args = args;
    ctx.s = &s;
    if (!cli_plugin_resolve(args, s.path, sizeof s.path))
        return CLI_EXIT_NO_PLUGIN;
    /* The library resolves the default; learn its path, or fail as it does. */
    ctx.abi.load_code = cli_plugin_load(&s);
    if (ctx.abi.load_code != PJDL_OK) {
        snprintf(ctx.abi.load_msg, sizeof ctx.abi.load_msg, "%s", pjdl_last_error());
        if (s.path[0] == '\0' || ctx.abi.load_code == PJDL_NOT_FOUND)
            return CLI_EXIT_NO_PLUGIN;
    }
    if (!inspect_raw(&ctx)) {
        cli_session_close(&s);
        return CLI_EXIT_NO_PLUGIN;
    }
    int rc;
    memset(&platform, 0, sizeof platform);
    if (s.plugin != NULL && cli_client_create(&s) == PJDL_OK) {
        /* Learn the platform, then destroy the client: the checks run in
         * child processes, which must not inherit plugin threads. */
        snprintf(platform.name, sizeof platform.name, "%s", pjdl_client_platform_name(s.client));
        snprintf(platform.version, sizeof platform.version, "%s",
                 pjdl_client_platform_version(s.client));
        platform.devices = pjdl_client_device_count(s.client);
        platform.ok = platform.devices > 0;
        if (!platform.ok)
            fprintf(stderr, "pjrt-dlpack: the client of %s has no addressable device\n", s.path);
        pjdl_client_release(s.client);
        s.client = NULL;
    }
    rc = run_all(&ctx);
    cli_session_close(&s);
    if (ctx.abi.handle != NULL)
        dlclose(ctx.abi.handle);
    return rc;
}
