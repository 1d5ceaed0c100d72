/* The common part of the broken plugins: load the real one, copy its table. */
#include "shim.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef SHIM_REAL_PLUGIN
#define SHIM_REAL_PLUGIN "libpjrt_ref.so"
#endif

static pthread_once_t once = PTHREAD_ONCE_INIT;
static const PJRT_Api *real;
static PJRT_Api copy;
static const PJRT_Api *result;

static void init(void) {
    const char *path = getenv("PJRT_REF_PLUGIN");
    if (path == NULL || *path == '\0')
        path = SHIM_REAL_PLUGIN;
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (h == NULL) {
        fprintf(stderr, "broken plugin shim: cannot load %s: %s\n", path, dlerror());
        return;
    }
    const PJRT_Api *(*get)(void);
    void *sym = dlsym(h, "GetPjrtApi");
    memcpy(&get, &sym, sizeof get);
    real = sym ? get() : NULL;
    if (real == NULL) {
        fprintf(stderr, "broken plugin shim: %s has no usable GetPjrtApi\n", path);
        return;
    }
    size_t n = real->struct_size < sizeof copy ? real->struct_size : sizeof copy;
    memcpy(&copy, real, n);
    result = shim_install(&copy);
}

/* The exported entry point; found with dlsym, declared by no header. */
__attribute__((visibility("default"))) const PJRT_Api *GetPjrtApi(void);

__attribute__((visibility("default"))) const PJRT_Api *GetPjrtApi(void) {
    pthread_once(&once, init);
    return result;
}

const PJRT_Api *shim_real(void) {
    return real;
}

PJRT_Stream_Extension *shim_own_stream_extension(PJRT_Api *api) {
    PJRT_Extension_Base **link = &api->extension_start;
    PJRT_Stream_Extension *stream = NULL;
    for (int i = 0; *link != NULL && i < 64; i++) {
        PJRT_Extension_Base *orig = *link;
        PJRT_Extension_Base *dup = malloc(orig->struct_size);
        if (dup == NULL)
            return NULL;
        memcpy(dup, orig, orig->struct_size);
        *link = dup; /* kept for the life of the process */
        if (dup->type == PJRT_Extension_Type_Stream)
            stream = (PJRT_Stream_Extension *)dup;
        link = &dup->next;
    }
    return stream;
}

PJRT_Error *shim_error(PJRT_Error_Code code, const char *message) {
    PJRT_Event_Create_Args c = {0};
    c.struct_size = PJRT_Event_Create_Args_STRUCT_SIZE;
    PJRT_Error *err = real->PJRT_Event_Create(&c);
    if (err != NULL)
        return err;
    PJRT_Event_Set_Args s = {0};
    s.struct_size = PJRT_Event_Set_Args_STRUCT_SIZE;
    s.event = c.event;
    s.error_code = code;
    s.error_message = message;
    s.error_message_size = strlen(message);
    err = real->PJRT_Event_Set(&s);
    if (err == NULL) {
        PJRT_Event_Error_Args e = {0};
        e.struct_size = PJRT_Event_Error_Args_STRUCT_SIZE;
        e.event = c.event;
        err = real->PJRT_Event_Error(&e);
    }
    PJRT_Event_Destroy_Args d = {0};
    d.struct_size = PJRT_Event_Destroy_Args_STRUCT_SIZE;
    d.event = c.event;
    PJRT_Error *derr = real->PJRT_Event_Destroy(&d);
    (void)derr;
    return err;
}
