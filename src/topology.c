/* Reading a client's platform, devices and memories once, at creation. */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

static pjdl_code read_platform(pjdl_client *c) {
    const PJRT_Api *api = pjdl__client_api(c);
    const char *name = "", *version = "";
    size_t name_len = 0, version_len = 0;
    PJDL_TRY(PJDL_NEED(c->plugin, PJRT_Client_PlatformName));
    PJRT_Client_PlatformName_Args n = {.struct_size = PJRT_Client_PlatformName_Args_STRUCT_SIZE,
                                       .client = c->client};
    PJDL_TRY(PJDL_CALL(api, PJRT_Client_PlatformName, &n));
    if (n.platform_name) {
        name = n.platform_name;
        name_len = n.platform_name_size;
    }
    if (PJDL_HAS(c->plugin, PJRT_Client_PlatformVersion)) {
        PJRT_Client_PlatformVersion_Args v = {
            .struct_size = PJRT_Client_PlatformVersion_Args_STRUCT_SIZE, .client = c->client};
        PJDL_TRY(PJDL_CALL(api, PJRT_Client_PlatformVersion, &v));
        if (v.platform_version) {
            version = v.platform_version;
            version_len = v.platform_version_size;
        }
    }
    c->platform_id = pjdl_platform_id(name, name_len);
    pjdl_code code = pjdl__strdup(name, name_len, &c->platform_name);
    if (code == PJDL_OK)
        code = pjdl__strdup(version, version_len, &c->platform_version);
    return code;
}

static pjdl_code read_description(pjdl_device *d) {
    const pjdl_plugin *p = d->client->plugin;
    const PJRT_Api *api = p->api;
    PJDL_TRY(PJDL_NEED(p, PJRT_Device_GetDescription));
    PJRT_Device_GetDescription_Args g = {.struct_size = PJRT_Device_GetDescription_Args_STRUCT_SIZE,
                                         .device = d->device};
    PJDL_TRY(PJDL_CALL(api, PJRT_Device_GetDescription, &g));
    if (g.device_description == NULL)
        return pjdl__fail(PJDL_INTERNAL,
                          "PJRT_Device_GetDescription succeeded but returned no description");
    const char *kind = "", *debug = "";
    size_t kind_len = 0, debug_len = 0;
    pjdl_code code = PJDL_OK;
    if (PJDL_HAS(p, PJRT_DeviceDescription_Id)) {
        PJRT_DeviceDescription_Id_Args a = {.struct_size =
                                                PJRT_DeviceDescription_Id_Args_STRUCT_SIZE,
                                            .device_description = g.device_description};
        code = PJDL_CALL(api, PJRT_DeviceDescription_Id, &a);
        d->id = a.id;
    }
    if (code == PJDL_OK && PJDL_HAS(p, PJRT_DeviceDescription_Kind)) {
        PJRT_DeviceDescription_Kind_Args a = {.struct_size =
                                                  PJRT_DeviceDescription_Kind_Args_STRUCT_SIZE,
                                              .device_description = g.device_description};
        code = PJDL_CALL(api, PJRT_DeviceDescription_Kind, &a);
        if (a.device_kind) {
            kind = a.device_kind;
            kind_len = a.device_kind_size;
        }
    }
    if (code == PJDL_OK && PJDL_HAS(p, PJRT_DeviceDescription_DebugString)) {
        PJRT_DeviceDescription_DebugString_Args a = {
            .struct_size = PJRT_DeviceDescription_DebugString_Args_STRUCT_SIZE,
            .device_description = g.device_description};
        code = PJDL_CALL(api, PJRT_DeviceDescription_DebugString, &a);
        if (a.debug_string) {
            debug = a.debug_string;
            debug_len = a.debug_string_size;
        }
    }
    if (code == PJDL_OK)
        code = pjdl__strdup(kind, kind_len, &d->kind);
    if (code == PJDL_OK)
        code = pjdl__strdup(debug, debug_len, &d->debug_string);
    return code;
}

static void read_hardware_id(pjdl_device *d) {
    const pjdl_plugin *p = d->client->plugin;
    d->local_hardware_id = -1;
    if (!PJDL_HAS(p, PJRT_Device_LocalHardwareId))
        return;
    PJRT_Device_LocalHardwareId_Args a = {
        .struct_size = PJRT_Device_LocalHardwareId_Args_STRUCT_SIZE, .device = d->device};
    PJRT_Error *error = p->api->PJRT_Device_LocalHardwareId(&a);
    if (error == NULL)
        d->local_hardware_id = a.local_hardware_id;
    pjdl__drop_error(p->api, error);
}

/* Finds or adds `m` in the client's memory table (sized for the worst case). */
static pjdl_code intern_memory(pjdl_client *c, PJRT_Memory *m, pjdl_memory **out) {
    for (size_t i = 0; i < c->num_memories; i++) {
        if (c->memories[i].memory == m) {
            *out = &c->memories[i];
            return PJDL_OK;
        }
    }
    pjdl_memory *mem = &c->memories[c->num_memories];
    const PJRT_Api *api = pjdl__client_api(c);
    *mem = (pjdl_memory){.client = c, .memory = m};
    const char *kind = "";
    size_t kind_len = 0;
    pjdl_code code = PJDL_OK;
    if (PJDL_HAS(c->plugin, PJRT_Memory_Id)) {
        PJRT_Memory_Id_Args a = {.struct_size = PJRT_Memory_Id_Args_STRUCT_SIZE, .memory = m};
        code = PJDL_CALL(api, PJRT_Memory_Id, &a);
        mem->id = a.id;
    }
    if (code == PJDL_OK && PJDL_HAS(c->plugin, PJRT_Memory_Kind)) {
        PJRT_Memory_Kind_Args a = {.struct_size = PJRT_Memory_Kind_Args_STRUCT_SIZE, .memory = m};
        code = PJDL_CALL(api, PJRT_Memory_Kind, &a);
        if (a.kind) {
            kind = a.kind;
            kind_len = a.kind_size;
        }
    }
    if (code == PJDL_OK)
        code = pjdl__strdup(kind, kind_len, &mem->kind);
    if (code != PJDL_OK)
        return code;
    c->num_memories++;
    *out = mem;
    return PJDL_OK;
}

/* The device's memories as PJRT reports them (none when unsupported). */
static pjdl_code device_pjrt_memories(pjdl_device *d, PJRT_Memory *const **mems, size_t *n) {
    const pjdl_plugin *p = d->client->plugin;
    *mems = NULL;
    *n = 0;
    if (!PJDL_HAS(p, PJRT_Device_AddressableMemories))
        return PJDL_OK;
    PJRT_Device_AddressableMemories_Args a = {
        .struct_size = PJRT_Device_AddressableMemories_Args_STRUCT_SIZE, .device = d->device};
    pjdl_code code = PJDL_CALL(p->api, PJRT_Device_AddressableMemories, &a);
    if (code == PJDL_UNIMPLEMENTED)
        return PJDL_OK;
    if (code == PJDL_OK && a.num_memories > 0 && a.memories == NULL)
        return pjdl__fail(PJDL_INTERNAL, "PJRT_Device_AddressableMemories returned NULL");
    *mems = a.memories;
    *n = code == PJDL_OK ? a.num_memories : 0;
    return code;
}

static PJRT_Memory *device_pjrt_default_memory(pjdl_device *d) {
    const pjdl_plugin *p = d->client->plugin;
    if (!PJDL_HAS(p, PJRT_Device_DefaultMemory))
        return NULL;
    PJRT_Device_DefaultMemory_Args a = {.struct_size = PJRT_Device_DefaultMemory_Args_STRUCT_SIZE,
                                        .device = d->device};
    PJRT_Error *error = p->api->PJRT_Device_DefaultMemory(&a);
    if (error != NULL) {
        pjdl__drop_error(p->api, error); /* no default memory: not an error for us */
        return NULL;
    }
    return a.memory;
}

static pjdl_code read_device_memories(pjdl_device *d) {
    PJRT_Memory *const *mems;
    size_t n;
    pjdl_code code = device_pjrt_memories(d, &mems, &n);
    if (code == PJDL_OK)
        code = pjdl__alloc((n ? n : 1) * sizeof *d->memories, "device memories", &d->memories);
    for (size_t i = 0; code == PJDL_OK && i < n; i++) {
        code = intern_memory(d->client, mems[i], &d->memories[i]);
        d->num_memories = i + 1;
    }
    if (code != PJDL_OK)
        return code;
    PJRT_Memory *def = device_pjrt_default_memory(d);
    if (def != NULL)
        code = intern_memory(d->client, def, &d->default_memory);
    return code;
}

/* Upper bound of distinct memories: each device's list plus its default. */
static pjdl_code count_memories(pjdl_client *c, size_t *total) {
    *total = 0;
    for (size_t i = 0; i < c->num_devices; i++) {
        PJRT_Memory *const *mems;
        size_t n;
        PJDL_TRY(device_pjrt_memories(&c->devices[i], &mems, &n));
        if (n > SIZE_MAX / 2 / sizeof(pjdl_memory) - *total)
            return pjdl__fail(PJDL_INTERNAL, "the plugin reports too many memories (%zu)", n);
        *total += n + 1;
    }
    return PJDL_OK;
}

static pjdl_code read_devices(pjdl_client *c) {
    const PJRT_Api *api = pjdl__client_api(c);
    PJDL_TRY(PJDL_NEED(c->plugin, PJRT_Client_AddressableDevices));
    PJRT_Client_AddressableDevices_Args a = {
        .struct_size = PJRT_Client_AddressableDevices_Args_STRUCT_SIZE, .client = c->client};
    PJDL_TRY(PJDL_CALL(api, PJRT_Client_AddressableDevices, &a));
    if (a.num_addressable_devices > 0 && a.addressable_devices == NULL)
        return pjdl__fail(PJDL_INTERNAL, "PJRT_Client_AddressableDevices returned NULL");
    if (a.num_addressable_devices > 1u << 20)
        return pjdl__fail(PJDL_INTERNAL, "the plugin reports %zu devices",
                          a.num_addressable_devices);
    PJDL_TRY(pjdl__alloc((a.num_addressable_devices ? a.num_addressable_devices : 1) *
                             sizeof *c->devices,
                         "devices", &c->devices));
    c->num_devices = a.num_addressable_devices;
    for (size_t i = 0; i < c->num_devices; i++)
        c->devices[i] = (pjdl_device){
            .client = c, .device = a.addressable_devices[i], .index = i, .local_hardware_id = -1};
    size_t total = 0;
    pjdl_code code = count_memories(c, &total);
    if (code == PJDL_OK)
        code = pjdl__alloc((total ? total : 1) * sizeof *c->memories, "memories", &c->memories);
    for (size_t i = 0; code == PJDL_OK && i < c->num_devices; i++) {
        pjdl_device *d = &c->devices[i];
        read_hardware_id(d);
        code = read_description(d);
        if (code == PJDL_OK)
            code = read_device_memories(d);
    }
    return code;
}

pjdl_code pjdl__client_read_topology(pjdl_client *client) {
    pjdl_code code = read_platform(client);
    if (code == PJDL_OK)
        code = read_devices(client);
    return code;
}

void pjdl__client_free_topology(pjdl_client *client) {
    for (size_t i = 0; client->devices && i < client->num_devices; i++) {
        free(client->devices[i].kind);
        free(client->devices[i].debug_string);
        free(client->devices[i].memories);
    }
    for (size_t i = 0; client->memories && i < client->num_memories; i++)
        free(client->memories[i].kind);
    free(client->devices);
    free(client->memories);
    free(client->platform_name);
    free(client->platform_version);
}
