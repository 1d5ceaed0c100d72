/* Calling into a plugin's PJRT_Api table safely: slot checks, PJRT errors into
 * pjdl codes and the thread's message, destroying events. */
#include <stdio.h>
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

PJDL_HOT void pjdl__drop_error(const PJRT_Api *api, PJRT_Error *error) {
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

PJDL_HOT pjdl_code pjdl__take_error_ctx(const PJRT_Api *api, PJRT_Error *error,
                                        const char *context) {
    if (error == NULL)
        return PJDL_OK;
    char message[1024];
    pjdl_code code = pjdl__error_read(api, error, message, sizeof message);
    /* Plugins that name the entry point themselves ("PJRT_X: ...") are not
     * prefixed again. */
    size_t n = context ? strlen(context) : 0;
    if (n > 0 && strncmp(message, context, n) == 0 && message[n] == ':')
        context = NULL;
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
