/* Force-included into tools/args.c for fuzz_args: its usage messages go to
 * a sink instead of stderr, which stays free for sanitizer reports. */
#ifndef PJDL_FUZZ_QUIET_H_
#define PJDL_FUZZ_QUIET_H_
#include <stdio.h>
extern FILE *fz_quiet;
#undef stderr
#define stderr fz_quiet
#endif
