/* Wraps CreateViewOfDeviceBuffer's on_delete_callback so that a shim decides
 * how often the caller's callback runs. */
#ifndef PJDL_BROKEN_ONDELETE_COMMON_H
#define PJDL_BROKEN_ONDELETE_COMMON_H

#include <stdlib.h>

#include "shim.h"

typedef struct wrapped_cb {
    void (*fn)(void *ptr, void *arg);
    void *arg;
} wrapped_cb;

/* Defined by the shim: runs when the real plugin calls back. Frees w. */
static void shim_on_delete(void *ptr, void *arg);

static PJRT_Error *wrapped_view(PJRT_Client_CreateViewOfDeviceBuffer_Args *args) {
    if (args == NULL || args->on_delete_callback == NULL)
        return shim_real()->PJRT_Client_CreateViewOfDeviceBuffer(args);
    wrapped_cb *w = malloc(sizeof *w);
    if (w == NULL)
        return shim_real()->PJRT_Client_CreateViewOfDeviceBuffer(args);
    w->fn = args->on_delete_callback;
    w->arg = args->on_delete_callback_arg;
    args->on_delete_callback = shim_on_delete;
    args->on_delete_callback_arg = w;
    PJRT_Error *err = shim_real()->PJRT_Client_CreateViewOfDeviceBuffer(args);
    args->on_delete_callback = w->fn;
    args->on_delete_callback_arg = w->arg;
    if (err != NULL)
        free(w);
    return err;
}

const PJRT_Api *shim_install(PJRT_Api *api) {
    api->PJRT_Client_CreateViewOfDeviceBuffer = wrapped_view;
    return api;
}

#endif
