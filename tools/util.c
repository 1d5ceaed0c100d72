/* Small helpers shared by the subcommands: progress, names, time. */
#include <string.h>
#include <time.h>

#include "cli.h"

void progress_show(bool enabled, const char *label, size_t i, size_t n, const char *item) {
    if (!enabled)
        return;
    fprintf(stderr, "\r\033[K%s [%zu/%zu] %s", label, i, n, item);
    fflush(stderr);
}

void progress_done(bool enabled) {
    if (!enabled)
        return;
    fputs("\r\033[K", stderr);
    fflush(stderr);
}

uint64_t cli_now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}
