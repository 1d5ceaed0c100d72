/* Every call into the plugin under a time limit: the shared record, the
 * recording table, the parent's wait (see watch.h). */
#include "watch.h"

#include <errno.h>
#include <stddef.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench_util.h"
#include "raw.h"

#define WATCH_SLOTS 64

/* One thread's current entry point, NULL between calls, and a count of
 * its enters and leaves. The child only stores (no clock, no
 * read-modify-write: a call into the plugin costs a few plain stores); the
 * parent times a call itself, from the first poll that saw the slot's
 * (entry, seq) pair to the last that saw it unchanged. */
typedef struct watch_slot {
    _Atomic(const char *) entry;
    _Atomic uint64_t seq;
} watch_slot;

struct cli_watch {
    watch_slot slot[WATCH_SLOTS];
    atomic_uint used;
    atomic_bool malformed;
    char context[256];
};

/* What the parent last saw in each slot, and since when (its clock). */
typedef struct watch_seen {
    const char *entry;
    uint64_t seq;
    uint64_t since;
} watch_seen;

/* ------------------------------------------------------------- the parent */

cli_watch *cli_watch_open(void) {
    return cli_shared_new(sizeof(cli_watch));
}

void cli_watch_reset(cli_watch *w) {
    memset(w, 0, sizeof *w);
}

void cli_watch_close(cli_watch *w) {
    cli_shared_free(w, sizeof *w);
}

/* Reads every slot into `seen` at time `now`: a slot whose (entry, seq)
 * changed since the last poll starts its time again. A slot read while it
 * changes (seq before and after differ) keeps what was seen before. */
static void watch_observe(const cli_watch *w, watch_seen *seen, uint64_t now) {
    unsigned n = atomic_load_explicit(&w->used, memory_order_acquire);
    for (unsigned i = 0; i < n && i < WATCH_SLOTS; i++) {
        const watch_slot *s = &w->slot[i];
        uint64_t q1 = atomic_load_explicit(&s->seq, memory_order_acquire);
        const char *e = atomic_load_explicit(&s->entry, memory_order_acquire);
        uint64_t q2 = atomic_load_explicit(&s->seq, memory_order_acquire);
        if (q1 != q2 || (e == seen[i].entry && q1 == seen[i].seq))
            continue;
        seen[i] = (watch_seen){e, q1, now};
    }
}

/* The active entry point that was seen first (overdue) or last (current);
 * NULL if the child is in none. */
static const char *watch_pick(const watch_seen *seen, bool oldest, uint64_t *since_out) {
    const char *found = NULL;
    uint64_t found_since = 0;
    for (unsigned i = 0; i < WATCH_SLOTS; i++) {
        if (seen[i].entry == NULL)
            continue;
        if (found == NULL || (oldest ? seen[i].since < found_since : seen[i].since > found_since)) {
            found = seen[i].entry;
            found_since = seen[i].since;
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
    watch_seen seen[WATCH_SLOTS] = {{0}};
    uint64_t start = bench_now_ns(), limit_ns = (uint64_t)limit_ms * 1000000ull;
    for (;;) {
        pid_t r = waitpid(pid, &end->status, WNOHANG);
        if (r == pid || (r < 0 && errno != EINTR))
            break;
        uint64_t since = 0, now = bench_now_ns();
        watch_observe(w, seen, now);
        const char *entry = watch_pick(seen, true, &since);
        bool overdue = entry != NULL && now > since && now - since > limit_ns;
        if (overdue || (total_ms > 0 && now - start > (uint64_t)total_ms * 1000000ull)) {
            end->hung = true;
            end->total_ms = overdue ? 0 : total_ms;
            end->entry = overdue ? entry : watch_pick(seen, false, NULL);
            kill(pid, SIGKILL);
            while (waitpid(pid, &end->status, 0) < 0 && errno == EINTR)
                ;
            break;
        }
        sleep_ms(5);
    }
    if (!end->hung) {
        watch_observe(w, seen, bench_now_ns());
        end->entry = watch_pick(seen, false, NULL);
    }
    snprintf(end->context, sizeof end->context, "%s", w->context);
    end->malformed = atomic_load(&w->malformed);
}

bool cli_watch_fork(cli_watch *w, int (*child)(void *arg), void *arg, int64_t limit_ms,
                    int64_t total_ms, cli_child_end *end) {
    fflush(NULL); /* nothing buffered is written twice */
    pid_t pid = fork();
    if (pid < 0)
        return false;
    if (pid == 0) {
        cli_watch_attach(w);
        int rc = child(arg);
        fflush(NULL);
        _exit(rc);
    }
    cli_watch_wait(w, pid, limit_ms, total_ms, end);
    return true;
}

void *cli_shared_new(size_t size) {
    void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        return NULL;
    memset(p, 0, size);
    return p;
}

void cli_shared_free(void *p, size_t size) {
    if (p != NULL)
        munmap(p, size);
}

void cli_child_end_text(const cli_child_end *end, const char *where, int64_t limit_ms, char *out,
                        size_t size) {
    const char *in = end->entry != NULL ? end->entry : where;
    int st = end->status;
    if (end->hung && end->total_ms > 0)
        snprintf(out, size,
                 "%s did not finish within its whole limit of %.0f s%s%s (no single call had "
                 "reached the per-call limit of %.1f s)",
                 where, (double)end->total_ms / 1000.0, end->entry ? "; it was in " : "",
                 end->entry ? end->entry : "", (double)limit_ms / 1000.0);
    else if (end->hung && end->entry != NULL)
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

/* Only this thread writes its slot: plain (release) stores, the entry
 * first, then the count the parent compares. */
static void watch_set(watch_slot *s, const char *entry) {
    atomic_store_explicit(&s->entry, entry, memory_order_release);
    uint64_t q = atomic_load_explicit(&s->seq, memory_order_relaxed);
    atomic_store_explicit(&s->seq, q + 1, memory_order_release);
}

cli_watch_mark cli_watch_enter(const char *entry) {
    cli_watch_mark m = {-1, NULL};
    if (attached == NULL || (m.slot = my_slot()) < 0)
        return m;
    watch_slot *s = &attached->slot[m.slot];
    m.entry = atomic_load_explicit(&s->entry, memory_order_relaxed);
    watch_set(s, entry);
    return m;
}

void cli_watch_leave(cli_watch_mark m) {
    if (attached == NULL || m.slot < 0)
        return;
    watch_set(&attached->slot[m.slot], m.entry);
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

/* The Stream extension's two functions, recorded like the table's: the
 * library calls them (exports with a consumer stream, `info`'s probe), and
 * a plugin can hang in them as in any entry point. */
static PJRT_Get_Stream_For_External_Ready_Events *watch_real_get_stream;
static PJRT_Wait_Until_Buffer_Ready_On_Stream *watch_real_wait_stream;

static PJRT_Error *watch_get_stream(PJRT_Get_Stream_For_External_Ready_Events_Args *args) {
    cli_watch_mark m = cli_watch_enter("PJRT_Stream_Extension get_stream");
    PJRT_Error *e = watch_real_get_stream(args);
    cli_watch_leave(m);
    return e;
}

static PJRT_Error *watch_wait_stream(PJRT_Wait_Until_Buffer_Ready_On_Stream_Args *args) {
    cli_watch_mark m = cli_watch_enter("PJRT_Stream_Extension wait_stream");
    PJRT_Error *e = watch_real_wait_stream(args);
    cli_watch_leave(m);
    return e;
}

/* The copied extension chain: every node copied as it is (by its
 * struct_size), the Stream extension's functions replaced. No allocation:
 * the copies live here, as the table's does. */
#define WATCH_MAX_EXTENSIONS 32
#define WATCH_MAX_EXTENSION_SIZE 512
static _Alignas(
    max_align_t) unsigned char watch_nodes[WATCH_MAX_EXTENSIONS][WATCH_MAX_EXTENSION_SIZE];

/* Whether the chain from `first` can be copied: at most
 * WATCH_MAX_EXTENSIONS nodes, no loop, each of a plausible size, one of them
 * a Stream extension that holds both functions. Anything else is left as
 * the plugin made it (the library and `check` judge it), unwatched. */
static size_t watch_chain_length(const PJRT_Extension_Base *first) {
    const PJRT_Extension_Base *seen[WATCH_MAX_EXTENSIONS];
    size_t n = 0;
    bool stream = false;
    for (const PJRT_Extension_Base *e = first; e != NULL; e = e->next) {
        if (n == WATCH_MAX_EXTENSIONS || e->struct_size < sizeof *e ||
            e->struct_size > WATCH_MAX_EXTENSION_SIZE)
            return 0;
        for (size_t i = 0; i < n; i++)
            if (seen[i] == e)
                return 0;
        seen[n++] = e;
        stream = stream || (e->type == PJRT_Extension_Type_Stream &&
                            e->struct_size >= PJRT_Stream_Extension_STRUCT_SIZE);
    }
    return stream ? n : 0;
}

static void watch_extensions(PJRT_Api *copy) {
    if (pjdl_api_extensions(copy) == NULL)
        return; /* none, or records of an ABI before 0.45 */
    size_t n = watch_chain_length(copy->extension_start);
    PJRT_Extension_Base **link = &copy->extension_start;
    for (size_t i = 0; i < n; i++) {
        PJRT_Extension_Base *node = (PJRT_Extension_Base *)watch_nodes[i];
        memcpy(node, *link, (*link)->struct_size);
        *link = node;
        link = &node->next;
        if (node->type != PJRT_Extension_Type_Stream)
            continue;
        PJRT_Stream_Extension *stream = (PJRT_Stream_Extension *)node;
        watch_real_get_stream = stream->get_stream;
        watch_real_wait_stream = stream->wait_stream;
        stream->get_stream = stream->get_stream ? watch_get_stream : NULL;
        stream->wait_stream = stream->wait_stream ? watch_wait_stream : NULL;
    }
}

const PJRT_Api *cli_watch_table(const PJRT_Api *real) {
    if (real == watch_real)
        return &watch_copy;
    size_t n = real->struct_size < sizeof watch_copy ? real->struct_size : sizeof watch_copy;
    memset(&watch_copy, 0, sizeof watch_copy);
    memcpy(&watch_copy, real, n);
    watch_copy.struct_size = n;
    watch_real = real;
    PJDL_PJRT_API_FOREACH_SLOT(WATCH_INSTALL)
    watch_extensions(&watch_copy);
    return &watch_copy;
}
