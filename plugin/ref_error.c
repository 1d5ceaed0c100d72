/* Errors: creation, the three PJRT_Error entry points, args checking. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "ref_internal.h"

static void vt_destroy(PJRT_Error *error);
static void vt_message(const PJRT_Error *error, const char **message, size_t *message_size);
static PJRT_Error_Code vt_get_code(const PJRT_Error *error);
static void vt_for_each_payload(const PJRT_Error *error, PJRT_Error_PayloadVisitor visitor,
                                void *user_arg);

static const PJRT_Error_FunctionTable error_vtable = {
    .struct_size = PJRT_Error_FunctionTable_STRUCT_SIZE,
    .instance_size = sizeof(ref_err),
    .extension_start = NULL,
    .destroy = vt_destroy,
    .message = vt_message,
    .get_code = vt_get_code,
    .for_each_payload = vt_for_each_payload,
};

static char oom_message[] = "pjrt_ref: out of memory";
static ref_err oom_error = {
    .base = {.vtable = &error_vtable},
    .code = PJRT_Error_Code_RESOURCE_EXHAUSTED,
    .is_static = true,
    .message_size = sizeof(oom_message) - 1,
    .message = oom_message,
};

PJRT_Error *ref_error(PJRT_Error_Code code, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int len = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (len < 0)
        len = 0;
    ref_err *error = ref_alloc(NULL, sizeof(*error) + (size_t)len + 1);
    if (error == NULL)
        return &oom_error.base;
    error->base.vtable = &error_vtable;
    error->code = code;
    error->message = (char *)(error + 1);
    va_start(ap, fmt);
    vsnprintf(error->message, (size_t)len + 1, fmt, ap);
    va_end(ap);
    error->message_size = (size_t)len;
    return &error->base;
}

PJRT_Error *ref_error_oom(const char *what) {
    return ref_error(PJRT_Error_Code_RESOURCE_EXHAUSTED, "%s: out of memory", what);
}

void ref_error_free(PJRT_Error *error) {
    if (error != NULL && !((ref_err *)error)->is_static)
        ref_free(NULL, error);
}

/* The error's own function table, for callers that use it directly. */
static void vt_destroy(PJRT_Error *error) {
    ref_error_free(error);
}

static void vt_message(const PJRT_Error *error, const char **message, size_t *message_size) {
    const ref_err *e = (const ref_err *)error;
    *message = e->message;
    *message_size = e->message_size;
}

static PJRT_Error_Code vt_get_code(const PJRT_Error *error) {
    return ((const ref_err *)error)->code;
}

/* This plugin's errors carry no payloads. */
static void vt_for_each_payload(const PJRT_Error *error, PJRT_Error_PayloadVisitor visitor,
                                void *user_arg) {
    (void)error;
    (void)visitor;
    (void)user_arg;
}

PJRT_Error *ref_check_args(const void *args, size_t struct_size, size_t min_size,
                           const char *type_name) {
    if (args == NULL)
        return REF_INVALID("%s is NULL", type_name);
    if (struct_size < min_size)
        return REF_INVALID("%s: struct_size %zu is smaller than %zu, the smallest layout this "
                           "plugin accepts",
                           type_name, struct_size, min_size);
    return NULL;
}

/* The error entry points cannot report their own errors: a NULL or short
 * args struct is ignored, and a NULL error is "no error". */
void ref_PJRT_Error_Destroy(PJRT_Error_Destroy_Args *args) {
    if (args == NULL || args->struct_size < REF_FIELD_END(PJRT_Error_Destroy_Args, error))
        return;
    ref_error_free(args->error);
}

void ref_PJRT_Error_Message(PJRT_Error_Message_Args *args) {
    if (args == NULL || args->struct_size < REF_FIELD_END(PJRT_Error_Message_Args, message_size))
        return;
    if (args->error == NULL) {
        args->message = "";
        args->message_size = 0;
        return;
    }
    vt_message(args->error, &args->message, &args->message_size);
}

REF_DEFINE_QUERY(PJRT_Error_GetCode, error, args->code = vt_get_code(self);)

PJRT_Error *ref_PJRT_Error_ForEachPayload(PJRT_Error_ForEachPayload_Args *args) {
    REF_CHECK_ENTRY(args, PJRT_Error_ForEachPayload, error);
    REF_RETURN_IF_NULL(args->visitor, "PJRT_Error_ForEachPayload", "visitor");
    return NULL; /* no payloads */
}
