/* Broken: a view's on_delete_callback runs twice. Caught by ondelete.once. */
#include "ondelete_common.h"

static void shim_on_delete(void *ptr, void *arg) {
    wrapped_cb *w = arg;
    w->fn(ptr, w->arg);
    w->fn(ptr, w->arg);
    free(w);
}
