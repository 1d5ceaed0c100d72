/*
 * watch.h — every call that `info`, `check` and `bench` make into a plugin,
 * under a time limit, named.
 *
 * The plugin runs in a child process. The child calls the plugin through a
 * copy of its PJRT_Api table (cli_watch_table) whose every entry point
 * first records, in memory shared with the parent, which entry point this
 * thread is in and a count of its calls: a few plain stores, no clock, so
 * that `bench` measures the plugin and not the watch. The copy's extension
 * chain is a copy too, in which the Stream extension's get_stream and
 * wait_stream record themselves alike. The steps that are not table calls
 * (dlopen, GetPjrtApi, PJRT_Plugin_Initialize inside the library's load)
 * are recorded by hand (cli_watch_enter / cli_watch_leave). The parent
 * waits for the child (cli_watch_wait), polling every 5 ms and timing each
 * call itself from the first poll that saw it: when one has lasted longer
 * than the limit it kills the child and names that entry point; when the
 * child crashes it names the entry point the child was in.
 */
#ifndef PJDL_CLI_WATCH_H
#define PJDL_CLI_WATCH_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "pjrt_dlpack.h"

/* --timeout-ms when not given: the longest any one call into a plugin may
 * take, in `info` and `check`. */
#define CLI_DEFAULT_TIMEOUT_MS 30000

typedef struct cli_watch cli_watch;

/* The parent's side. cli_watch_open maps the shared memory (NULL on
 * failure, with errno); cli_watch_reset clears it before each child. */
cli_watch *cli_watch_open(void);
void cli_watch_reset(cli_watch *w);
void cli_watch_close(cli_watch *w);

/* How a watched child ended. */
typedef struct cli_child_end {
    int status;        /* waitpid's status */
    bool hung;         /* killed: a call (or the whole child) took too long */
    int64_t total_ms;  /* the whole child's limit, when that is what ended it (else 0) */
    const char *entry; /* the entry point it was in (hung or crashed), or NULL */
    char context[256]; /* what the child said it was doing (cli_watch_context) */
    bool malformed;    /* ... and that it was a malformed request (see there) */
} cli_child_end;

/* Waits for `pid`. Kills it when one call into the plugin has lasted longer
 * than limit_ms, or when the child has run longer than total_ms (0: no such
 * limit). */
void cli_watch_wait(cli_watch *w, pid_t pid, int64_t limit_ms, int64_t total_ms,
                    cli_child_end *end);

/* Runs child(arg) in a forked child under `w` (attached: its calls into
 * the plugin are recorded, and it is killed when the parent dies); what
 * child returns is the child's exit status (_exit: the plugin's exit-time
 * handlers end with the child). Waits for it as cli_watch_wait does.
 * False when fork failed (errno; `end` untouched). */
bool cli_watch_fork(cli_watch *w, int (*child)(void *arg), void *arg, int64_t limit_ms,
                    int64_t total_ms, cli_child_end *end);

/* A zeroed mapping of `size` bytes shared with the children forked after
 * it (NULL on failure, with errno); cli_shared_free unmaps it (NULL:
 * nothing to do). */
void *cli_shared_new(size_t size);
void cli_shared_free(void *p, size_t size);

/* "the plugin crashed the process in ENTRY: signal N (Name)", "ENTRY did
 * not return within N s", ... for `end`; `where` names the step when the
 * child was in no entry point. */
void cli_child_end_text(const cli_child_end *end, const char *where, int64_t limit_ms, char *out,
                        size_t size);

/* The child's side: records into `w` from now on (NULL: records nothing),
 * and is killed when the parent dies. */
void cli_watch_attach(cli_watch *w);
bool cli_watch_attached(void);

/* What this thread was in before cli_watch_enter; give it back to
 * cli_watch_leave. Nested calls (a plugin calling back into the command,
 * which calls the plugin) restore the outer one. */
typedef struct cli_watch_mark {
    int slot;
    const char *entry;
} cli_watch_mark;

/* `entry` must be a string with static storage (a literal). */
cli_watch_mark cli_watch_enter(const char *entry);
void cli_watch_leave(cli_watch_mark mark);

/* What the child is doing, in words (e.g. "BufferFromHostBuffer with dims
 * [4,-4]"); shown with a crash or a hang. `malformed`: the next call is a
 * deliberately malformed request whose well-formed twin already returned in
 * this process, so that a crash there may be blamed on the request. */
void cli_watch_context(const char *text, bool malformed);

/* A copy of `real` whose entry points record themselves (one per process;
 * the same copy for the same table). NULL slots and struct_size are kept. */
const PJRT_Api *cli_watch_table(const PJRT_Api *real);

#endif /* PJDL_CLI_WATCH_H */
