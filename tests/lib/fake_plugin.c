/* A minimal PJRT plugin for the loader tests: counts PJRT_Plugin_Initialize
 * calls and implements nothing else but errors. */
#include <stdlib.h>
#include <string.h>

#include "fake_api.h"

__attribute__((visibility("default"))) int lib_fake_init_calls;

static void fake_error_destroy(PJRT_Error_Destroy_Args *args) {
    (void)args;
}

static void fake_error_message(PJRT_Error_Message_Args *args) {
    args->message = "fake";
    args->message_size = 4;
}

static PJRT_Error *fake_error_code(PJRT_Error_GetCode_Args *args) {
    args->code = PJRT_Error_Code_INTERNAL;
    return NULL;
}

static PJRT_Error *fake_initialize(PJRT_Plugin_Initialize_Args *args) {
    (void)args;
    __atomic_fetch_add(&lib_fake_init_calls, 1, __ATOMIC_SEQ_CST);
    return NULL;
}

static PJRT_Api fake_api;

__attribute__((visibility("default"))) const PJRT_Api *GetPjrtApi(void);

__attribute__((visibility("default"))) const PJRT_Api *GetPjrtApi(void) {
    PJRT_Api api; /* filled aside: the table may be in use already */
    fake_api_init(&api, 1, fake_error_destroy, fake_error_message, fake_error_code);
    api.PJRT_Plugin_Initialize = fake_initialize;
    fake_api = api;
    return &fake_api;
}
