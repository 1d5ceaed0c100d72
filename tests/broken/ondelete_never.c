/* Broken: a view's on_delete_callback never runs (the producer's memory
 * leaks). Caught by ondelete.once. */
#include "ondelete_common.h"

static void shim_on_delete(void *ptr, void *arg) {
    (void)ptr;
    free(arg);
}
