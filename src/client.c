/* Clients: creating or wrapping a PJRT client and its lifetime. */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

static pjdl_code named_value(const pjdl_option *o, PJRT_NamedValue *v) {
    if (o->name == NULL || o->name[0] == '\0')
        return pjdl__fail(PJDL_INVALID_ARGUMENT, "client option with an empty name");
    *v = (PJRT_NamedValue){.struct_size = PJRT_NamedValue_STRUCT_SIZE,
                           .name = o->name,
                           .name_size = strlen(o->name),
                           .value_size = 1};
    switch (o->type) {
    case PJDL_OPTION_STRING:
        if (o->value.string_value == NULL)
            return pjdl__fail(PJDL_INVALID_ARGUMENT, "client option '%s': NULL string", o->name);
        v->type = PJRT_NamedValue_kString;
        v->string_value = o->value.string_value;
        v->value_size = strlen(o->value.string_value);
        return PJDL_OK;
    case PJDL_OPTION_INT64:
        v->type = PJRT_NamedValue_kInt64;
        v->int64_value = o->value.int64_value;
        return PJDL_OK;
    case PJDL_OPTION_INT64_LIST:
        if (o->value.int64_list.values == NULL && o->value.int64_list.count != 0)
            return pjdl__fail(PJDL_INVALID_ARGUMENT, "client option '%s': NULL list", o->name);
        v->type = PJRT_NamedValue_kInt64List;
        v->int64_array_value = o->value.int64_list.values;
        v->value_size = o->value.int64_list.count;
        return PJDL_OK;
    case PJDL_OPTION_FLOAT:
        v->type = PJRT_NamedValue_kFloat;
        v->float_value = o->value.float_value;
        return PJDL_OK;
    case PJDL_OPTION_BOOL:
        v->type = PJRT_NamedValue_kBool;
        v->bool_value = o->value.bool_value;
        return PJDL_OK;
    }
    return pjdl__fail(PJDL_INVALID_ARGUMENT, "client option '%s': unknown type %d", o->name,
                      (int)o->type);
}

static pjdl_code create_pjrt_client(pjdl_plugin *plugin, const pjdl_option *options, size_t n,
                                    PJRT_Client **out) {
    /* Without the destroy functions every client and event made would leak:
     * refuse such a plugin up front rather than leak. */
    PJDL_TRY(PJDL_NEED(plugin, PJRT_Client_Create));
    PJDL_TRY(PJDL_NEED(plugin, PJRT_Client_Destroy));
    PJDL_TRY(PJDL_NEED(plugin, PJRT_Event_Destroy));
    if (n > 0 && options == NULL)
        return pjdl__fail(PJDL_INVALID_ARGUMENT, "%zu client options but options is NULL", n);
    if (n > SIZE_MAX / sizeof(PJRT_NamedValue))
        return pjdl__fail(PJDL_INVALID_ARGUMENT, "too many client options (%zu)", n);
    PJRT_NamedValue *values = NULL;
    pjdl_code code = pjdl__alloc(n * sizeof *values, "client options", &values);
    for (size_t i = 0; code == PJDL_OK && i < n; i++)
        code = named_value(&options[i], &values[i]);
    if (code == PJDL_OK) {
        PJRT_Client_Create_Args args = {.struct_size = PJRT_Client_Create_Args_STRUCT_SIZE,
                                        .create_options = values,
                                        .num_options = n};
        bool pinned = pjdl__ur_adapters_pin();
        code = PJDL_CALL(plugin->api, PJRT_Client_Create, &args);
        pjdl__ur_adapters_unpin(pinned);
        if (code == PJDL_OK && args.client == NULL)
            code = pjdl__fail(PJDL_INTERNAL, "PJRT_Client_Create succeeded but returned no client");
        if (code == PJDL_OK)
            *out = args.client;
    }
    free(values);
    return code;
}

static void destroy_pjrt_client(pjdl_plugin *plugin, PJRT_Client *client) {
    if (!PJDL_HAS(plugin, PJRT_Client_Destroy))
        return;
    PJRT_Client_Destroy_Args args = {.struct_size = PJRT_Client_Destroy_Args_STRUCT_SIZE,
                                     .client = client};
    pjdl__drop_error(plugin->api, plugin->api->PJRT_Client_Destroy(&args));
}

/* Builds the pjdl_client; on failure destroys `pjrt` only if `owned`. */
static pjdl_code client_new(pjdl_plugin *plugin, PJRT_Client *pjrt, bool owned, pjdl_client **out) {
    pjdl_client *client = NULL;
    pjdl_code code = pjdl__alloc(sizeof *client, "a client", &client);
    if (code != PJDL_OK) {
        if (owned)
            destroy_pjrt_client(plugin, pjrt);
        return code;
    }
    atomic_init(&client->refs, 1);
    atomic_init(&client->timeout_ms, 0);
    atomic_init(&client->layout_trust, 0);
    client->plugin = plugin;
    client->client = pjrt;
    client->owned = owned;
    pjdl_plugin_retain(plugin);
    code = pjdl__client_read_topology(client);
    if (code != PJDL_OK) {
        pjdl_client_release(client);
        return code;
    }
    *out = client;
    return PJDL_OK;
}

pjdl_code pjdl_client_create(pjdl_plugin *plugin, const pjdl_option *options, size_t num_options,
                             pjdl_client **out) {
    pjdl__clear_error();
    if (plugin == NULL || out == NULL)
        return pjdl__fail(PJDL_INVALID_ARGUMENT,
                          "pjdl_client_create: plugin and out must not be NULL");
    PJRT_Client *pjrt = NULL;
    PJDL_TRY(create_pjrt_client(plugin, options, num_options, &pjrt));
    return client_new(plugin, pjrt, true, out);
}

pjdl_code pjdl_client_wrap(pjdl_plugin *plugin, PJRT_Client *client, pjdl_client **out) {
    pjdl__clear_error();
    if (plugin == NULL || client == NULL || out == NULL)
        return pjdl__fail(PJDL_INVALID_ARGUMENT,
                          "pjdl_client_wrap: plugin, client and out must not be NULL");
    return client_new(plugin, client, false, out);
}

void pjdl_client_retain(pjdl_client *client) {
    if (client)
        pjdl__client_ref(client);
}

/* How deep the calling thread is in callbacks the plugin made into the
 * library (completion and on-delete callbacks, which may run deleters). */
static _Thread_local int callback_depth;

PJDL_HOT int *pjdl__callback_enter(void) {
    int *depth = &callback_depth;
    ++*depth;
    return depth;
}

PJDL_HOT void pjdl__callback_leave(int *depth) {
    --*depth;
}

static void client_free(pjdl_client *client) {
    pjdl__client_free_topology(client);
    if (client->owned)
        destroy_pjrt_client(client->plugin, client->client);
    pjdl_plugin_release(client->plugin);
    free(client);
}

static void *client_free_thread(void *arg) {
    client_free(arg);
    return NULL;
}

void pjdl_client_release(pjdl_client *client) {
    if (client != NULL)
        pjdl__client_unref(client);
}

PJDL_HOT void pjdl__client_unref(pjdl_client *client) {
    if (atomic_fetch_sub_explicit(&client->refs, 1, memory_order_acq_rel) != 1)
        return;
    /* Inside a plugin's callback, the thread may be one of the client's own
     * (a stream worker): PJRT_Client_Destroy there would have to join it.
     * Destroy the client from a thread of our own instead. */
    if (callback_depth > 0 && client->owned) {
        pthread_attr_t attr;
        pthread_t thread;
        pjdl__keep_loaded(); /* the thread runs our code after we return */
        bool started = pthread_attr_init(&attr) == 0;
        if (started) {
            pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
            started = pthread_create(&thread, &attr, client_free_thread, client) == 0;
            pthread_attr_destroy(&attr);
        }
        if (started)
            return;
    }
    client_free(client);
}

PJRT_Client *pjdl_client_pjrt(const pjdl_client *client) {
    return client ? client->client : NULL;
}

pjdl_plugin *pjdl_client_plugin(const pjdl_client *client) {
    return client ? client->plugin : NULL;
}

const char *pjdl_client_platform_name(const pjdl_client *client) {
    return client ? client->platform_name : NULL;
}

const char *pjdl_client_platform_version(const pjdl_client *client) {
    return client ? client->platform_version : NULL;
}

uint64_t pjdl_client_platform_id(const pjdl_client *client) {
    return client ? client->platform_id : 0;
}

void pjdl_client_set_wait_timeout(pjdl_client *client, int64_t timeout_ms) {
    if (client)
        atomic_store(&client->timeout_ms, timeout_ms > 0 ? timeout_ms : 0);
}
