/* Runs the pjrt-dlpack command as a subprocess and captures what it says. */
#ifndef PJDL_TEST_CLI_RUN_H
#define PJDL_TEST_CLI_RUN_H

#include <stdbool.h>
#include <stddef.h>

typedef struct cli_run {
    int exit_code; /* -1 if killed by a signal */
    int signal;
    char *out; /* stdout, NUL-terminated, owned */
    char *err; /* stderr */
} cli_run;

/* Runs the command with `args` (NULL-terminated, without argv[0]) and extra
 * environment settings `env` ("NAME=VALUE", NULL-terminated, may be NULL;
 * "NAME=" unsets NAME). Kills it after `timeout_s` seconds. */
bool cli_run_command(const char *const *args, const char *const *env, int timeout_s, cli_run *out);
/* The same, with the command's stderr on a pseudo-terminal (to see what it
 * shows a user at a terminal). */
bool cli_run_command_tty(const char *const *args, const char *const *env, int timeout_s,
                         cli_run *out);
void cli_run_free(cli_run *r);

/* The reference plugin's path (PJRT_REF_PLUGIN) and a broken plugin's. */
const char *cli_ref_plugin(void);
const char *cli_broken_plugin(const char *name);

/* True if `text` has a line starting with `status` padded to the column
 * of the check names, then `check`. */
bool cli_has_result(const char *text, const char *status, const char *check);

#endif
