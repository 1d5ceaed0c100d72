/* Small helpers shared by the subcommands: the progress line. */
#include <string.h>

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
