/* Calling into a plugin's PJRT_Api table safely: slot checks and errors. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

typedef struct slot_entry {
    const char *name;
    size_t offset;
} slot_entry;

#define PJDL_SLOT_ENTRY(name) {#name, offsetof(PJRT_Api, name)},
static const slot_entry slot_table[] = {PJDL_PJRT_API_FOREACH_SLOT(PJDL_SLOT_ENTRY)};
_Static_assert(sizeof slot_table / sizeof slot_table[0] == PJDL_PJRT_API_NUM_SLOTS,
               "the slot table names every PJRT_Api slot");
#undef PJDL_SLOT_ENTRY

pjdl_code pjdl__need_slot(const pjdl_plugin *plugin, size_t offset, const char *name) {
    if (pjdl__slot_present(plugin->api, offset))
        return PJDL_OK;
    if (offset + sizeof(void (*)(void)) > plugin->api->struct_size)
        return pjdl__fail(PJDL_UNIMPLEMENTED,
                          "the plugin does not implement %s (its PJRT_Api table, version %d.%d, "
                          "is %zu bytes and ends before that entry point)",
                          name, plugin->major, plugin->minor, plugin->api->struct_size);
    return pjdl__fail(PJDL_UNIMPLEMENTED, "the plugin does not implement %s (the entry is NULL)",
                      name);
}

bool pjdl_plugin_provides(const pjdl_plugin *plugin, const char *slot) {
    if (plugin == NULL || slot == NULL)
        return false;
    for (size_t i = 0; i < sizeof slot_table / sizeof slot_table[0]; i++)
        if (strcmp(slot_table[i].name, slot) == 0)
            return pjdl__slot_present(plugin->api, slot_table[i].offset);
    return false;
}

static pjdl_code error_code(const PJRT_Api *api, PJRT_Error *error) {
    if (!pjdl__slot_present(api, offsetof(PJRT_Api, PJRT_Error_GetCode)))
        return PJDL_UNKNOWN;
    PJRT_Error_GetCode_Args args = {.struct_size = PJRT_Error_GetCode_Args_STRUCT_SIZE,
                                    .error = error};
    PJRT_Error *meta = api->PJRT_Error_GetCode(&args);
    if (meta != NULL) {
        pjdl__drop_error(api, meta);
        return PJDL_UNKNOWN;
    }
    /* OK is not a failure code; anything out of range is not one of ours. */
    if (args.code <= PJRT_Error_Code_OK || args.code > PJRT_Error_Code_UNAUTHENTICATED)
        return PJDL_UNKNOWN;
    return (pjdl_code)args.code;
}

void pjdl__drop_error(const PJRT_Api *api, PJRT_Error *error) {
    if (error == NULL || !pjdl__slot_present(api, offsetof(PJRT_Api, PJRT_Error_Destroy)))
        return;
    PJRT_Error_Destroy_Args args = {.struct_size = PJRT_Error_Destroy_Args_STRUCT_SIZE,
                                    .error = error};
    api->PJRT_Error_Destroy(&args);
}

pjdl_code pjdl__error_read(const PJRT_Api *api, PJRT_Error *error, char *buf, size_t size) {
    pjdl_code code = error_code(api, error);
    const char *text = "(no message)";
    size_t len = strlen(text);
    if (pjdl__slot_present(api, offsetof(PJRT_Api, PJRT_Error_Message))) {
        PJRT_Error_Message_Args args = {.struct_size = PJRT_Error_Message_Args_STRUCT_SIZE,
                                        .error = error};
        api->PJRT_Error_Message(&args);
        if (args.message != NULL) {
            text = args.message;
            len = args.message_size;
        }
    }
    if (len > 4000)
        len = 4000;
    snprintf(buf, size, "%.*s", (int)len, text);
    pjdl__drop_error(api, error);
    return code;
}

pjdl_code pjdl__take_error_ctx(const PJRT_Api *api, PJRT_Error *error, const char *context) {
    if (error == NULL)
        return PJDL_OK;
    char message[1024];
    pjdl_code code = pjdl__error_read(api, error, message, sizeof message);
    return pjdl__fail(code, "%s%s%s", context ? context : "", context ? ": " : "", message);
}

pjdl_code pjdl__take_error(const PJRT_Api *api, PJRT_Error *error) {
    return pjdl__take_error_ctx(api, error, NULL);
}

void pjdl__event_destroy(const PJRT_Api *api, PJRT_Event *event) {
    if (event == NULL || !pjdl__slot_present(api, offsetof(PJRT_Api, PJRT_Event_Destroy)))
        return;
    PJRT_Event_Destroy_Args args = {.struct_size = PJRT_Event_Destroy_Args_STRUCT_SIZE,
                                    .event = event};
    pjdl__drop_error(api, api->PJRT_Event_Destroy(&args));
}

/* Allocation-failure injection (pjdl__test_fail_alloc_after). Every library
 * allocation counts; the armed one fails once, as if the host were out of
 * memory. Process-wide, like the heap it stands for. */
static atomic_long alloc_count;   /* allocations since the last arming */
static atomic_long alloc_fail_at; /* 1-based index in alloc_count; 0: none */
/* Set by the first pjdl__test_fail_alloc_after: until a test uses the switch,
 * allocations only read this flag, so threads share no written cache line. */
static atomic_bool alloc_testing;

long pjdl__test_fail_alloc_after(long nth) {
    atomic_store(&alloc_testing, true);
    atomic_store(&alloc_fail_at, 0);
    long since = atomic_exchange(&alloc_count, 0);
    atomic_store(&alloc_fail_at, nth > 0 ? nth : 0);
    return since;
}

static bool injected_failure(void) {
    if (!atomic_load_explicit(&alloc_testing, memory_order_relaxed))
        return false;
    long n = atomic_fetch_add(&alloc_count, 1) + 1;
    return n == atomic_load(&alloc_fail_at);
}

void *pjdl__malloc(size_t size) {
    return injected_failure() ? NULL : malloc(size ? size : 1);
}

void *pjdl__realloc(void *p, size_t size) {
    return injected_failure() ? NULL : realloc(p, size ? size : 1);
}

pjdl_code pjdl__alloc(size_t size, const char *what, void *out) {
    /* malloc + memset, not calloc: glibc's calloc bypasses the per-thread
     * cache, which makes it several times slower than this for the small
     * objects of the hot paths. */
    void *p = injected_failure() ? NULL : malloc(size ? size : 1);
    if (p != NULL)
        memset(p, 0, size);
    if (p == NULL)
        return pjdl__fail(PJDL_RESOURCE_EXHAUSTED, "out of memory allocating %zu bytes for %s",
                          size, what);
    memcpy(out, &p, sizeof p);
    return PJDL_OK;
}

pjdl_code pjdl__strdup(const char *s, size_t len, char **out) {
    char *p = pjdl__malloc(len + 1);
    if (p == NULL)
        return pjdl__fail(PJDL_RESOURCE_EXHAUSTED, "out of memory copying a %zu-byte string", len);
    if (len)
        memcpy(p, s, len);
    p[len] = '\0';
    *out = p;
    return PJDL_OK;
}

void *pjdl__aligned_alloc(size_t size) {
    void *p = NULL;
    if (injected_failure())
        return NULL;
    if (posix_memalign(&p, PJDL_DATA_ALIGNMENT, size ? size : PJDL_DATA_ALIGNMENT) != 0)
        return NULL;
    return p;
}

pjdl_code pjdl__copy_options(const void *options, size_t struct_size, size_t min_size, void *out,
                             size_t out_size, const char *what) {
    if (options == NULL)
        return PJDL_OK;
    if (struct_size < min_size)
        return pjdl__fail(
            PJDL_INVALID_ARGUMENT,
            "%s.struct_size is %zu, less than the smallest layout (%zu bytes); set it "
            "to sizeof(%s)",
            what, struct_size, min_size, what);
    /* A newer caller's larger struct: its extra fields are not understood. */
    memcpy(out, options, struct_size < out_size ? struct_size : out_size);
    return PJDL_OK;
}
