/* Devices and memories: accessors and the mapping to and from DLDevice. */
#include <string.h>

#include "internal.h"
#include "platform.h"

size_t pjdl_client_device_count(const pjdl_client *client) {
    return client ? client->num_devices : 0;
}

pjdl_device *pjdl_client_device(const pjdl_client *client, size_t index) {
    if (client == NULL || index >= client->num_devices)
        return NULL;
    return &client->devices[index];
}

PJRT_Device *pjdl_device_pjrt(const pjdl_device *device) {
    return device ? device->device : NULL;
}

pjdl_client *pjdl_device_client(const pjdl_device *device) {
    return device ? device->client : NULL;
}

int pjdl_device_id(const pjdl_device *device) {
    return device ? device->id : -1;
}

int pjdl_device_local_hardware_id(const pjdl_device *device) {
    return device ? device->local_hardware_id : -1;
}

const char *pjdl_device_kind(const pjdl_device *device) {
    return device ? device->kind : NULL;
}

const char *pjdl_device_debug_string(const pjdl_device *device) {
    return device ? device->debug_string : NULL;
}

size_t pjdl_device_memory_count(const pjdl_device *device) {
    return device ? device->num_memories : 0;
}

pjdl_memory *pjdl_device_memory(const pjdl_device *device, size_t index) {
    if (device == NULL || index >= device->num_memories)
        return NULL;
    return device->memories[index];
}

pjdl_memory *pjdl_device_default_memory(const pjdl_device *device) {
    return device ? device->default_memory : NULL;
}

PJRT_Memory *pjdl_memory_pjrt(const pjdl_memory *memory) {
    return memory ? memory->memory : NULL;
}

const char *pjdl_memory_kind(const pjdl_memory *memory) {
    return memory ? memory->kind : NULL;
}

int pjdl_memory_id(const pjdl_memory *memory) {
    return memory ? memory->id : -1;
}

pjdl_device *pjdl__client_lookup_device(const pjdl_client *client, const PJRT_Device *device) {
    for (size_t i = 0; i < client->num_devices; i++)
        if (client->devices[i].device == device)
            return &client->devices[i];
    return NULL;
}

pjdl_memory *pjdl__client_lookup_memory(const pjdl_client *client, const PJRT_Memory *memory) {
    for (size_t i = 0; i < client->num_memories; i++)
        if (client->memories[i].memory == memory)
            return &client->memories[i];
    return NULL;
}

/* The tag of a memory's cached DLPack device type for the registry's
 * current generation: (generation + 1) << 32, 0 meaning none. */
static uint64_t dl_type_tag(void) {
    return ((uint64_t)pjdl__platform_generation() + 1) << 32;
}

/* The memory's cached type when it carries `tag`. */
static bool dl_type_cached(const pjdl_memory *memory, uint64_t tag, DLDeviceType *out) {
    uint64_t cached = atomic_load_explicit(&memory->dl_type_cache, memory_order_relaxed);
    if ((cached & ~(uint64_t)UINT32_MAX) != tag)
        return false;
    *out = (DLDeviceType)(uint32_t)cached;
    return true;
}

/* The DLPack device type of `memory` (NULL: the platform's default) on the
 * device's platform. Exports and imports ask this every time, so the answer
 * is cached in the memory and only recomputed after a registration changed
 * the registry (which keeps the registry's lock off the hot paths). */
static pjdl_code memory_dl_type(const pjdl_device *device, pjdl_memory *memory, uint64_t tag,
                                DLDeviceType *out) {
    const char *platform = device->client->platform_name;
    if (memory == NULL)
        return pjdl_platform_dl_type(platform, NULL, out);
    if (dl_type_cached(memory, tag, out))
        return PJDL_OK;
    pjdl_code code = pjdl_platform_dl_type(platform, memory->kind, out);
    if (code == PJDL_OK)
        atomic_store_explicit(&memory->dl_type_cache, tag | (uint32_t)*out, memory_order_relaxed);
    return code;
}

/* The DLDevice of memory of DLPack type `type` on `device`. DLPack: host
 * memory (plain, pinned) has device_id 0, on whichever device of the
 * client it lives; JAX, for one, maps a kDLCPU id to a device of its own
 * and has one CPU device by default. */
static DLDevice dl_of(const pjdl_device *device, DLDeviceType type) {
    int32_t id = pjdl__dl_host_reachable(type) ? 0 : pjdl__device_dl_id(device);
    return (DLDevice){type, id};
}

/* pjdl_device_dl with the registry's tag read once by the caller. */
static pjdl_code device_dl(const pjdl_device *device, const pjdl_memory *memory, uint64_t tag,
                           DLDevice *out) {
    if (memory == NULL)
        memory = device->default_memory;
    DLDeviceType type;
    PJDL_TRY(memory_dl_type(device, (pjdl_memory *)memory, tag, &type));
    *out = dl_of(device, type);
    return PJDL_OK;
}

pjdl_code pjdl_device_dl(const pjdl_device *device, const pjdl_memory *memory, DLDevice *out) {
    if (device == NULL || out == NULL)
        return pjdl__fail(PJDL_INVALID_ARGUMENT, "pjdl_device_dl: device and out must not be NULL");
    return device_dl(device, memory, dl_type_tag(), out);
}

/* Whether (device, memory) has DLDevice `dl`; memory NULL: the default.
 * Every import without a target asks this, for the same few memories. */
static bool device_has_dl(const pjdl_device *device, const pjdl_memory *memory, DLDevice dl,
                          uint64_t tag) {
    DLDevice have;
    return device_dl(device, memory, tag, &have) == PJDL_OK && pjdl__dl_device_same(have, dl);
}

/* The first device of `client` with memory `dl`: its default memory when
 * that matches, else (unless default_only) another of its memories. */
bool pjdl__client_find_dl_memory(const pjdl_client *client, DLDevice dl, bool default_only,
                                 pjdl_device **device, pjdl_memory **memory) {
    uint64_t tag = dl_type_tag();
    for (int pass = 0; pass < (default_only ? 1 : 2); pass++) {
        for (size_t i = 0; i < client->num_devices; i++) {
            pjdl_device *d = &client->devices[i];
            pjdl_memory *found = NULL;
            if (pass == 0 && device_has_dl(d, NULL, dl, tag))
                found = d->default_memory;
            for (size_t m = 0; pass == 1 && found == NULL && m < d->num_memories; m++)
                if (device_has_dl(d, d->memories[m], dl, tag))
                    found = d->memories[m];
            if (found != NULL) {
                if (device)
                    *device = d;
                if (memory)
                    *memory = found;
                return true;
            }
        }
    }
    return false;
}

/* The general search, for a memory whose type is not cached in this
 * generation: cold and out of line, so that the common import, which
 * inlines pjdl__client_find_default_dl, keeps it out of its hot code
 * (bench/README.md, ninth look). */
__attribute__((cold, noinline)) static bool find_default_uncached(const pjdl_client *client,
                                                                  DLDevice dl, pjdl_device **device,
                                                                  pjdl_memory **memory) {
    return pjdl__client_find_dl_memory(client, dl, true, device, memory);
}

bool pjdl__client_find_default_dl(const pjdl_client *client, DLDevice dl, pjdl_device **device,
                                  pjdl_memory **memory) {
    uint64_t tag = dl_type_tag();
    for (size_t i = 0; i < client->num_devices; i++) {
        pjdl_device *d = &client->devices[i];
        DLDeviceType type;
        /* A type not cached yet in this generation: the general search. */
        if (d->default_memory == NULL || !dl_type_cached(d->default_memory, tag, &type))
            return find_default_uncached(client, dl, device, memory);
        if (pjdl__dl_device_same(dl_of(d, type), dl)) {
            *device = d;
            *memory = d->default_memory;
            return true;
        }
    }
    return false;
}

pjdl_code pjdl_client_find_dl(const pjdl_client *client, DLDevice dl, pjdl_device **device,
                              pjdl_memory **memory) {
    if (client == NULL)
        return pjdl__fail(PJDL_INVALID_ARGUMENT, "pjdl_client_find_dl: client is NULL");
    if (pjdl__client_find_dl_memory(client, dl, false, device, memory))
        return PJDL_OK;
    return pjdl__fail(PJDL_NOT_FOUND, "the %s client has no device with DLDevice {%d, %d}",
                      client->platform_name, (int)dl.device_type, (int)dl.device_id);
}

pjdl_code pjdl_device_stream(const pjdl_device *device, intptr_t *stream) {
    pjdl__clear_error();
    if (device == NULL || stream == NULL)
        return pjdl__fail(PJDL_INVALID_ARGUMENT,
                          "pjdl_device_stream: device and stream must not be NULL");
    const pjdl_plugin *plugin = device->client->plugin;
    const PJRT_Stream_Extension *ext = pjdl__stream_extension(plugin);
    if (ext == NULL || ext->get_stream == NULL)
        return pjdl__fail(PJDL_UNIMPLEMENTED, "the %s plugin has no stream extension (get_stream)",
                          device->client->platform_name);
    PJRT_Get_Stream_For_External_Ready_Events_Args args = {
        .struct_size = PJRT_Get_Stream_For_External_Ready_Events_Args_STRUCT_SIZE,
        .device = device->device};
    pjdl_code code = pjdl__take_error_ctx(plugin->api, ext->get_stream(&args), "get_stream");
    if (code == PJDL_OK)
        *stream = args.stream;
    return code;
}
