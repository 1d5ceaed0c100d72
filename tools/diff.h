/*
 * diff.h — `pjrt-dlpack diff A.json B.json` (diff.c): the checks whose
 * outcome differs between two `check --json` reports.
 */
#ifndef PJDL_CLI_DIFF_H
#define PJDL_CLI_DIFF_H

/* Runs the command on its arguments (those after "diff"); returns the exit
 * status: 0 the same outcomes, 1 some differ, 2 a bad command line or a file
 * that is not a report. */
int cli_diff(int argc, char **argv);

#endif /* PJDL_CLI_DIFF_H */
