/*
 * cli.h — internal declarations of the pjrt-dlpack command.
 *
 * One concern per file: main.c (dispatch, help, exit codes), args.c
 * (command-line parsing), plugin_open.c (finding and loading the plugin,
 * creating the client), raw.c (direct PJRT calls, declared in raw.h and
 * shared with the plugin's tests and fuzz target), json.c (JSON output),
 * util.c (progress, names, time), watch.c (timing every call into the
 * plugin, watch.h), info.c, check*.c (check.c runs them and
 * reports), bench.c.
 */
#ifndef PJDL_CLI_H
#define PJDL_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "pjrt_dlpack.h"
#include "raw.h"
#include "watch.h"

/* ------------------------------------------------------------ exit codes */

enum {
    CLI_EXIT_OK = 0,        /* success; every check passed or is unsupported */
    CLI_EXIT_FAILED = 1,    /* at least one check failed */
    CLI_EXIT_USAGE = 2,     /* bad command line */
    CLI_EXIT_NO_PLUGIN = 3, /* plugin not found / not loadable, or no client */
    CLI_EXIT_INTERNAL = 4,  /* out of memory or an error of the command itself */
};

/* ------------------------------------------------------------- arguments */

#define CLI_MAX_OPTIONS 64

typedef enum cli_command {
    CLI_CMD_NONE = 0,
    CLI_CMD_INFO,
    CLI_CMD_CHECK,
    CLI_CMD_BENCH
} cli_command;

typedef struct cli_args {
    cli_command command;
    const char *plugin; /* NULL: the library's default */
    pjdl_option options[CLI_MAX_OPTIONS];
    size_t num_options;
    int64_t *lists[CLI_MAX_OPTIONS]; /* owned copies of INT64_LIST values */
    char *names[CLI_MAX_OPTIONS];    /* owned copies of names */
    char *strings[CLI_MAX_OPTIONS];  /* owned copies of STRING values */
    bool json;
    bool help;
    bool version;
    bool list_checks;     /* check --list */
    bool no_fork;         /* check --no-fork: run checks in this process */
    const char *only[16]; /* check --only PREFIX (repeatable) */
    size_t num_only;
    int64_t iterations;    /* bench; 0 = default */
    int64_t size_bytes;    /* bench --size; 0 = default */
    int64_t timeout_ms;    /* info, check: limit of each call and wait; 0 = default */
    int threads;           /* check: threads of the concurrency check */
    int64_t check_limit_s; /* check --check-limit-s: one check's whole limit; 0 = default */
    bool progress;         /* decided from isatty(stderr) */
} cli_args;

/* Parses argv into *args. On a usage error prints the message to stderr and
 * returns false. */
bool cli_args_parse(int argc, char **argv, cli_args *args);
/* --timeout-ms, or CLI_DEFAULT_TIMEOUT_MS when not given. */
int64_t cli_timeout_ms(const cli_args *args);
/* The longest one check may run (--check-limit-s, default 120 s), in ms. */
int64_t cli_check_limit_ms(const cli_args *args);
void cli_args_free(cli_args *args);
const char *cli_command_name(cli_command command);

/* ----------------------------------------------------------------- help */

void cli_print_help(FILE *out, cli_command command);
void cli_print_usage_hint(FILE *err, cli_command command);

/* ----------------------------------------------------------- the plugin */

/* Everything a subcommand works with. */
typedef struct cli_session {
    const cli_args *args;
    char path[4096];     /* the plugin's file, "" if unknown */
    pjdl_plugin *plugin; /* owned; the library's load, the plugin's own table */
    /* Owned, NULL unless a watch is attached (watch.h): the same plugin
     * through the recording table, which the client and every call use. */
    pjdl_plugin *watched;
    const PJRT_Api *api; /* the table to call: the recording one when watched */
    pjdl_client *client; /* owned, NULL until created */
} cli_session;

/* Resolves args->plugin to a file path (a name goes through
 * PJRT_NAMES_AND_LIBRARY_PATHS). For the default (NULL) the path stays ""
 * and is learnt when the library loads the plugin. Returns false, with why
 * the message (not printed), when a name is unknown or the file does not
 * exist. */
bool cli_plugin_resolve(const cli_args *args, char *path, size_t path_size, char *why,
                        size_t why_size);

/* The frame of a subcommand run in one watched child (`info`, `bench`):
 * resolves the plugin's path (cli_plugin_resolve), maps `size` zeroed bytes
 * the child shares with the parent (cli_shared_new), runs
 * child(args, path, shared) under a watch with --timeout-ms per call
 * (cli_watch_fork), and returns what report(args, path, shared, end,
 * limit_ms) makes of how the child ended. Its own exit statuses:
 * CLI_EXIT_NO_PLUGIN for an unknown plugin, CLI_EXIT_INTERNAL when mmap or
 * fork failed (said on stderr). */
typedef int (*cli_watched_child)(const cli_args *args, const char *path, void *shared);
typedef int (*cli_watched_report)(const cli_args *args, const char *path, void *shared,
                                  const cli_child_end *end, int64_t limit_ms);
/* Called instead (after the message on stderr) when the plugin cannot be
 * resolved: a report of nothing read, e.g. --json's. */
typedef void (*cli_unresolved_report)(const cli_args *args, const char *why);
int cli_run_watched(const cli_args *args, size_t size, cli_watched_child child,
                    cli_watched_report report, cli_unresolved_report unresolved);

/* Loads the plugin with the library (under a watch, recorded as
 * PJRT_Plugin_Initialize, and then wrapped in the recording table); on
 * failure prints the library's message and returns its code. */
pjdl_code cli_plugin_load(cli_session *s);
/* Creates the client with the --option values; prints an error on failure. */
pjdl_code cli_client_create(cli_session *s);
void cli_session_close(cli_session *s);

/* ------------------------------------------------------------------ JSON */

/* A small streaming JSON writer: commas and nesting are tracked. */
typedef struct json_writer {
    FILE *out;
    int depth;
    bool need_comma[32];
    bool after_key;
} json_writer;

void json_init(json_writer *w, FILE *out);
void json_begin_object(json_writer *w);
void json_end_object(json_writer *w);
void json_begin_array(json_writer *w);
void json_end_array(json_writer *w);
void json_key(json_writer *w, const char *key);
void json_string(json_writer *w, const char *value); /* NULL writes null */
void json_int(json_writer *w, int64_t value);
void json_uint(json_writer *w, uint64_t value);
void json_double(json_writer *w, double value);
void json_bool(json_writer *w, bool value);
void json_null(json_writer *w);
/* A key and its value, in one call. */
void json_field_string(json_writer *w, const char *key, const char *value);
void json_field_int(json_writer *w, const char *key, int64_t value);
void json_field_bool(json_writer *w, const char *key, bool value);
/* Ends the document with a newline. */
void json_finish(json_writer *w);

/* -------------------------------------------------------------- progress */

/* Shows "label [i/n] item" on stderr when enabled (a terminal); the line is
 * overwritten by the next call and erased by progress_done. */
void progress_show(bool enabled, const char *label, size_t i, size_t n, const char *item);
void progress_done(bool enabled);

/* ------------------------------------------------------------ subcommands */

int cli_info(const cli_args *args);
int cli_check(const cli_args *args);
int cli_bench(const cli_args *args);

#endif /* PJDL_CLI_H */
