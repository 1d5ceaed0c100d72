/* Every call into the plugin under a time limit: the shared record, the
 * recording table, the parent's wait (see watch.h). */
#include "watch.h"

#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>

#include "bench_util.h"
#include "raw.h"

#define WATCH_SLOTS 64

/* One thread's current entry point. `entry` is NULL between calls; a
 * reader takes entry, since, entry and trusts `since` only when both reads
 * of entry agree. */
typedef struct watch_slot {
    _Atomic(const char *) entry;
    _Atomic uint64_t since;
} watch_slot;

struct cli_watch {
    watch_slot slot[WATCH_SLOTS];
    atomic_uint used;
    atomic_bool malformed;
    char context[256];
};

/* ------------------------------------------------------------- the parent */

cli_watch *cli_watch_open(void) {
    void *p =
        mmap(NULL, sizeof(cli_watch), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        return NULL;
    cli_watch_reset(p);
    return p;
}

void cli_watch_reset(cli_watch *w) {
    memset(w, 0, sizeof *w);
}

void cli_watch_close(cli_watch *w) {
    if (w != NULL)
        munmap(w, sizeof *w);
}

/* The active entry point that started first (overdue) or last (current);
 * NULL if the child is in none. */
static const char *watch_scan(const cli_watch *w, bool oldest, uint64_t *since_out) {
    const char *found = NULL;
    uint64_t found_since = 0;
    unsigned n = atomic_load(&w->used);
    for (unsigned i = 0; i < n && i < WATCH_SLOTS; i++) {
        const watch_slot *s = &w->slot[i];
        const char *e1 = atomic_load(&s->entry);
        uint64_t since = atomic_load(&s->since);
        const char *e2 = atomic_load(&s->entry);
        if (e1 == NULL || e1 != e2)
            continue;
        if (found == NULL || (oldest ? since < found_since : since > found_since)) {
            found = e1;
            found_since = since;
        }
    }
    if (since_out != NULL)
        *since_out = found_since;
    return found;
}

static void sleep_ms(long ms) {
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

void cli_watch_wait(cli_watch *w, pid_t pid, int64_t limit_ms, int64_t total_ms,
                    cli_child_end *end) {
    memset(end, 0, sizeof *end);
    uint64_t start = bench_now_ns(), limit_ns = (uint64_t)limit_ms * 1000000ull;
    for (;;) {
        pid_t r = waitpid(pid, &end->status, WNOHANG);
        if (r == pid || (r < 0 && errno != EINTR))
            break;
        uint64_t since = 0, now = bench_now_ns();
        const char *entry = watch_scan(w, true, &since);
        bool overdue = entry != NULL && now > since && now - since > limit_ns;
        if (overdue || (total_ms > 0 && now - start > (uint64_t)total_ms * 1000000ull)) {
            end->hung = true;
            end->entry = overdue ? entry : watch_scan(w, false, NULL);
            kill(pid, SIGKILL);
            while (waitpid(pid, &end->status, 0) < 0 && errno == EINTR)
                ;
            break;
        }
        sleep_ms(5);
    }
    if (!end->hung)
        end->entry = watch_scan(w, false, NULL);
    snprintf(end->context, sizeof end->context, "%s", w->context);
    end->malformed = atomic_load(&w->malformed);
}

void cli_child_end_text(const cli_child_end *end, const char *where, int64_t limit_ms, char *out,
                        size_t size) {
    const char *in = end->entry != NULL ? end->entry : where;
    int st = end->status;
    if (end->hung && end->entry != NULL)
        snprintf(out, size, "%s did not return within %.1f s", in, (double)limit_ms / 1000.0);
    else if (end->hung)
        snprintf(out, size, "the process did not finish (in %s)", in);
    else if (WIFSIGNALED(st))
        snprintf(out, size, "%s in %s: signal %d (%s)",
                 end->entry != NULL ? "the plugin crashed the process" : "the process crashed", in,
                 WTERMSIG(st), strsignal(WTERMSIG(st)));
    else
        snprintf(out, size, "the process exited with status %d in %s",
                 WIFEXITED(st) ? WEXITSTATUS(st) : -1, in);
}

/* -------------------------------------------------------------- the child */

static cli_watch *attached;
static _Thread_local int thread_slot = -1; /* -1: none claimed yet */

void cli_watch_attach(cli_watch *w) {
    attached = w;
    /* A child stuck in the plugin must not outlive a command that was
     * killed (by a user, or a test's own limit). */
    if (w != NULL)
        prctl(PR_SET_PDEATHSIG, SIGKILL);
}

bool cli_watch_attached(void) {
    return attached != NULL;
}

/* This thread's slot, claimed on first use; -1 when all are taken (the
 * thread's calls are then not timed). */
static int my_slot(void) {
    if (thread_slot == -1) {
        unsigned i = atomic_fetch_add(&attached->used, 1);
        thread_slot = i < WATCH_SLOTS ? (int)i : -2;
    }
    return thread_slot >= 0 ? thread_slot : -1;
}

cli_watch_mark cli_watch_enter(const char *entry) {
    cli_watch_mark m = {-1, NULL, 0};
    if (attached == NULL || (m.slot = my_slot()) < 0)
        return m;
    watch_slot *s = &attached->slot[m.slot];
    m.entry = atomic_load(&s->entry);
    m.since = atomic_load(&s->since);
    atomic_store(&s->entry, NULL);
    atomic_store(&s->since, bench_now_ns());
    atomic_store(&s->entry, entry);
    return m;
}

void cli_watch_leave(cli_watch_mark m) {
    if (attached == NULL || m.slot < 0)
        return;
    watch_slot *s = &attached->slot[m.slot];
    atomic_store(&s->entry, NULL);
    atomic_store(&s->since, m.since);
    atomic_store(&s->entry, m.entry);
}

void cli_watch_context(const char *text, bool malformed) {
    if (attached == NULL)
        return;
    atomic_store(&attached->malformed, false);
    snprintf(attached->context, sizeof attached->context, "%s", text);
    atomic_store(&attached->malformed, malformed);
}

/* ------------------------------------------------- the recording table */

static const PJRT_Api *watch_real;
static PJRT_Api watch_copy;

/* One function per slot of PJRT_Api, made from its name: two return void
 * (WATCH_VOID_ names them), the others PJRT_Error *. */
#define WATCH_CAT_(a, b) a##b
#define WATCH_CAT(a, b) WATCH_CAT_(a, b)
#define WATCH_SECOND(a, b, ...) b
#define WATCH_PROBE(...) WATCH_SECOND(__VA_ARGS__, 0, ~)
#define WATCH_VOID_PJRT_Error_Destroy ~, 1
#define WATCH_VOID_PJRT_Error_Message ~, 1
#define WATCH_IS_VOID(name) WATCH_PROBE(WATCH_VOID_##name)

#define WATCH_DEFINE_0(name)                                                                       \
    static PJRT_Error *watch_##name(name##_Args *args) {                                           \
        cli_watch_mark m = cli_watch_enter(#name);                                                 \
        PJRT_Error *e = watch_real->name(args);                                                    \
        cli_watch_leave(m);                                                                        \
        return e;                                                                                  \
    }
#define WATCH_DEFINE_1(name)                                                                       \
    static void watch_##name(name##_Args *args) {                                                  \
        cli_watch_mark m = cli_watch_enter(#name);                                                 \
        watch_real->name(args);                                                                    \
        cli_watch_leave(m);                                                                        \
    }
#define WATCH_DEFINE(name) WATCH_CAT(WATCH_DEFINE_, WATCH_IS_VOID(name))(name)
PJDL_PJRT_API_FOREACH_SLOT(WATCH_DEFINE)

#define WATCH_INSTALL(name)                                                                        \
    if (raw_has_slot(real, offsetof(PJRT_Api, name)))                                              \
        watch_copy.name = watch_##name;

const PJRT_Api *cli_watch_table(const PJRT_Api *real) {
    if (real == watch_real)
        return &watch_copy;
    size_t n = real->struct_size < sizeof watch_copy ? real->struct_size : sizeof watch_copy;
    memset(&watch_copy, 0, sizeof watch_copy);
    memcpy(&watch_copy, real, n);
    watch_copy.struct_size = n;
    watch_real = real;
    PJDL_PJRT_API_FOREACH_SLOT(WATCH_INSTALL)
    return &watch_copy;
}
