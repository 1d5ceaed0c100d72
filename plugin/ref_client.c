/* Clients: option parsing, creation of devices and memories, lifetime, and
 * the PJRT_Client_* queries. */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "ref_internal.h"

typedef struct ref_options {
    ref_platform platform;
    int64_t num_devices; /* 0 = platform default */
    int64_t transfer_delay_us;
    int64_t device_memory_bytes;
    int64_t fail_transfer_every;
    bool xpu_only_option_set;
    const char *xpu_only_option;
} ref_options;

static bool name_is(const PJRT_NamedValue *v, const char *name) {
    size_t len = strlen(name);
    return v->name_size == len && memcmp(v->name, name, len) == 0;
}

static PJRT_Error *option_int(const PJRT_NamedValue *v, const char *name, int64_t lo, int64_t hi,
                              int64_t *out) {
    if (v->type != PJRT_NamedValue_kInt64)
        return ref_error(
            PJRT_Error_Code_INVALID_ARGUMENT,
            "PJRT_Client_Create: option '%s' must be an int64 (PJRT_NamedValue_kInt64)", name);
    if (v->int64_value < lo || v->int64_value > hi)
        return REF_INVALID("PJRT_Client_Create: option '%s' is %lld; it must be in [%lld, %lld]",
                           name, (long long)v->int64_value, (long long)lo, (long long)hi);
    *out = v->int64_value;
    return NULL;
}

static PJRT_Error *parse_option(const PJRT_NamedValue *v, ref_options *opts) {
    if (v->name == NULL)
        return REF_INVALID("PJRT_Client_Create: an option has a NULL name");
    if (name_is(v, "platform")) {
        if (v->type != PJRT_NamedValue_kString || v->string_value == NULL)
            return REF_INVALID("PJRT_Client_Create: option 'platform' must be a string");
        if (v->value_size == 3 && memcmp(v->string_value, "cpu", 3) == 0)
            opts->platform = REF_PLATFORM_CPU;
        else if (v->value_size == 3 && memcmp(v->string_value, "xpu", 3) == 0)
            opts->platform = REF_PLATFORM_XPU;
        else
            return REF_INVALID("PJRT_Client_Create: unknown platform '%.*s' (this plugin provides "
                               "'cpu' and 'xpu')",
                               (int)(v->value_size > 64 ? 64 : v->value_size), v->string_value);
        return NULL;
    }
    if (name_is(v, "num_devices"))
        return option_int(v, "num_devices", 1, REF_MAX_DEVICES, &opts->num_devices);
    const char *xpu_names[] = {"transfer_delay_us", "device_memory_bytes", "fail_transfer_every"};
    int64_t *xpu_values[] = {&opts->transfer_delay_us, &opts->device_memory_bytes,
                             &opts->fail_transfer_every};
    const int64_t xpu_lo[] = {0, 1, 0};
    const int64_t xpu_hi[] = {10 * 1000 * 1000, INT64_MAX, INT64_MAX};
    for (size_t i = 0; i < 3; i++) {
        if (name_is(v, xpu_names[i])) {
            opts->xpu_only_option_set = true;
            opts->xpu_only_option = xpu_names[i];
            return option_int(v, xpu_names[i], xpu_lo[i], xpu_hi[i], xpu_values[i]);
        }
    }
    return REF_INVALID("PJRT_Client_Create: unknown option '%.*s' (known: platform, num_devices, "
                       "transfer_delay_us, device_memory_bytes, fail_transfer_every)",
                       (int)(v->name_size > 64 ? 64 : v->name_size), v->name);
}

static PJRT_Error *parse_options(const PJRT_NamedValue *values, size_t n, ref_options *opts) {
    memset(opts, 0, sizeof(*opts));
    if (n > 0 && values == NULL)
        return REF_INVALID("PJRT_Client_Create: create_options is NULL but num_options is %zu", n);
    for (size_t i = 0; i < n; i++) {
        if (values[i].struct_size < REF_FIELD_END(PJRT_NamedValue, value_size))
            return REF_INVALID(
                "PJRT_Client_Create: PJRT_NamedValue %zu: struct_size %zu is smaller "
                "than %zu",
                i, values[i].struct_size, REF_FIELD_END(PJRT_NamedValue, value_size));
        PJRT_Error *err = parse_option(&values[i], opts);
        if (err != NULL)
            return err;
    }
    if (opts->platform == REF_PLATFORM_CPU && opts->xpu_only_option_set)
        return REF_INVALID("PJRT_Client_Create: option '%s' applies only to platform 'xpu'",
                           opts->xpu_only_option);
    if (opts->num_devices == 0)
        opts->num_devices = opts->platform == REF_PLATFORM_XPU ? 2 : 1;
    return NULL;
}

/* ------------------------------------------------------------- lifetime */

static void client_free(PJRT_Client *client) {
    for (size_t i = 0; i < client->num_memories; i++) {
        ref_memory *m = REF_MEMORY(client->memories[i]);
        ref_memory_free_user_data(m);
        ref_memory_flush_cache(m);
        pthread_mutex_destroy(&m->mu);
        ref_free(NULL, m);
    }
    for (int i = 0; i < client->num_devices; i++)
        ref_free(NULL, client->devices[i]);
    pthread_mutex_destroy(&client->streams_mu);
    ref_alloc_unregister_client(client);
    ref_free(NULL, client);
}

void ref_client_release(PJRT_Client *client) {
    if (client != NULL && atomic_fetch_sub(&client->hold, REF_HOLD_REF) == REF_HOLD_REF)
        client_free(client);
}

void ref_client_add_alloc(PJRT_Client *client) {
    atomic_fetch_add(&client->hold, 1);
}

void ref_client_drop_alloc(PJRT_Client *client) {
    if (atomic_fetch_sub(&client->hold, 1) == 1)
        client_free(client);
}

static ref_memory *memory_new(PJRT_Client *client, PJRT_Device *device, int id,
                              ref_memory_kind kind) {
    ref_memory *m = ref_alloc(NULL, sizeof(*m));
    if (m == NULL)
        return NULL;
    m->base.vtable = &ref_memory_vtable;
    m->client = client;
    m->device = device;
    m->id = id;
    m->kind = kind;
    m->kind_name = kind == REF_MEMORY_DEVICE ? "device" : "pinned_host";
    if (kind == REF_MEMORY_DEVICE && client->platform == REF_PLATFORM_XPU)
        m->capacity = client->device_memory_bytes;
    pthread_mutex_init(&m->mu, NULL);
    snprintf(m->debug_string, sizeof(m->debug_string), "%s memory %d of %s:%d (pjrt_ref)",
             m->kind_name, id, client->platform_name, device->id);
    snprintf(m->to_string, sizeof(m->to_string), "%s(id=%d)", m->kind_name, id);
    client->memories[client->num_memories++] = &m->base;
    return m;
}

static PJRT_Device *device_new(PJRT_Client *client, int id) {
    PJRT_Device *d = ref_alloc(NULL, sizeof(*d));
    if (d == NULL)
        return NULL;
    client->devices[client->num_devices++] = d;
    d->client = client;
    d->id = id;
    PJRT_DeviceDescription *desc = &d->description;
    desc->device = d;
    desc->id = id;
    bool xpu = client->platform == REF_PLATFORM_XPU;
    snprintf(desc->kind, sizeof(desc->kind), "%s", xpu ? "pjrt_ref simulated xpu" : "cpu");
    snprintf(desc->debug_string, sizeof(desc->debug_string), "%s:%d", client->platform_name, id);
    snprintf(desc->to_string, sizeof(desc->to_string), "%s(id=%d)", xpu ? "XpuDevice" : "CpuDevice",
             id);
    PJRT_NamedValue *a = &desc->attributes[0];
    a->struct_size = PJRT_NamedValue_STRUCT_SIZE;
    a->name = "simulated";
    a->name_size = strlen(a->name);
    /* An int64 0/1, not a bool: XLA's C-API client (JAX) accepts only string,
     * int64 and int64-list device attributes and aborts the process on any
     * other type when it creates the client. */
    a->type = PJRT_NamedValue_kInt64;
    a->int64_value = xpu ? 1 : 0;
    a->value_size = 1;
    desc->num_attributes = 1;
    if (xpu && client->device_memory_bytes > 0) {
        a = &desc->attributes[1];
        a->struct_size = PJRT_NamedValue_STRUCT_SIZE;
        a->name = "device_memory_bytes";
        a->name_size = strlen(a->name);
        a->type = PJRT_NamedValue_kInt64;
        a->int64_value = client->device_memory_bytes;
        a->value_size = 1;
        desc->num_attributes = 2;
    }
    int mem_id = xpu ? 2 * id : id;
    d->memories[d->num_memories] = (PJRT_Memory *)memory_new(client, d, mem_id, REF_MEMORY_DEVICE);
    if (d->memories[d->num_memories++] == NULL)
        return NULL;
    if (xpu) {
        d->memories[d->num_memories] =
            (PJRT_Memory *)memory_new(client, d, mem_id + 1, REF_MEMORY_PINNED_HOST);
        if (d->memories[d->num_memories++] == NULL)
            return NULL;
    }
    return d;
}

PJRT_Error *ref_PJRT_Client_Create(PJRT_Client_Create_Args *args) {
    REF_CHECK_ARGS_UPTO(args, PJRT_Client_Create_Args, client);
    ref_options opts;
    PJRT_Error *err = parse_options(args->create_options, args->num_options, &opts);
    if (err != NULL)
        return err;
    PJRT_Client *client = ref_alloc(NULL, sizeof(*client));
    if (client == NULL)
        return ref_error_oom("PJRT_Client_Create");
    atomic_init(&client->hold, REF_HOLD_REF);
    ref_alloc_register_client(client);
    atomic_init(&client->destroyed, false);
    atomic_init(&client->transfer_count, 0);
    pthread_mutex_init(&client->streams_mu, NULL);
    client->platform = opts.platform;
    client->platform_name = opts.platform == REF_PLATFORM_XPU ? "xpu" : "cpu";
    client->transfer_delay_us = opts.transfer_delay_us;
    client->device_memory_bytes = opts.device_memory_bytes;
    client->fail_transfer_every = opts.fail_transfer_every;
    for (int i = 0; i < (int)opts.num_devices; i++) {
        PJRT_Device *d = device_new(client, i);
        if (d == NULL) {
            ref_client_stop_streams(client);
            client_free(client);
            return ref_error_oom("PJRT_Client_Create");
        }
        if (client->platform == REF_PLATFORM_XPU) {
            err = ref_stream_create(d, &d->stream);
            if (err != NULL) {
                ref_client_stop_streams(client);
                client_free(client);
                return err;
            }
        }
    }
    args->client = client;
    return NULL;
}

PJRT_Error *ref_PJRT_Client_Destroy(PJRT_Client_Destroy_Args *args) {
    REF_CHECK_ARGS(args, PJRT_Client_Destroy_Args);
    PJRT_Client *client = args->client;
    if (client == NULL)
        return NULL;
    if (ref_on_stream_thread(client))
        return ref_error(PJRT_Error_Code_FAILED_PRECONDITION,
                         "PJRT_Client_Destroy: called from one of the client's own stream threads "
                         "(an OnReady callback or host callback); destroy it from another thread");
    if (atomic_exchange(&client->destroyed, true))
        return ref_error(PJRT_Error_Code_FAILED_PRECONDITION,
                         "PJRT_Client_Destroy: the client was already destroyed");
    /* Queued work finishes first; buffers still alive keep the client's
     * memory bookkeeping alive until they are destroyed. */
    ref_client_stop_streams(client);
    ref_client_release(client);
    return NULL;
}

bool ref_client_transfer_faults(PJRT_Client *client) {
    if (client->transfer_delay_us > 0) {
        struct timespec ts = {.tv_sec = client->transfer_delay_us / 1000000,
                              .tv_nsec = (client->transfer_delay_us % 1000000) * 1000};
        while (nanosleep(&ts, &ts) != 0) {
        }
    }
    long long n = atomic_fetch_add(&client->transfer_count, 1) + 1;
    return client->fail_transfer_every > 0 && n % client->fail_transfer_every == 0;
}

/* ------------------------------------------------------------- queries */

REF_DEFINE_QUERY(PJRT_Client_PlatformName, client,
                 REF_SET_STRING(args->platform_name, self->platform_name);)
REF_DEFINE_QUERY(PJRT_Client_ProcessIndex, client, args->process_index = 0;)

PJRT_Error *ref_PJRT_Client_PlatformVersion(PJRT_Client_PlatformVersion_Args *args) {
    REF_CHECK_ENTRY(args, PJRT_Client_PlatformVersion, client);
    static const char cpu[] = "pjrt_ref " REF_VERSION " cpu";
    static const char xpu[] = "pjrt_ref " REF_VERSION " xpu (simulated)";
    bool is_xpu = args->client->platform == REF_PLATFORM_XPU;
    args->platform_version = is_xpu ? xpu : cpu;
    args->platform_version_size = is_xpu ? sizeof(xpu) - 1 : sizeof(cpu) - 1;
    return NULL;
}

/* Every device is addressable: both lists are the client's devices. */
REF_DEFINE_QUERY(PJRT_Client_Devices, client, args->devices = self->devices;
                 args->num_devices = (size_t)self->num_devices;)
REF_DEFINE_QUERY(PJRT_Client_AddressableDevices, client, args->addressable_devices = self->devices;
                 args->num_addressable_devices = (size_t)self->num_devices;)
REF_DEFINE_QUERY(PJRT_Client_AddressableMemories, client,
                 args->addressable_memories = self->memories;
                 args->num_addressable_memories = self->num_memories;)

static PJRT_Error *lookup(PJRT_Client *client, int id, const char *fn, const char *what,
                          PJRT_Device **out) {
    if (id < 0 || id >= client->num_devices)
        return REF_INVALID("%s: no device with %s %d (the %s client has %d device%s, 0 to %d)", fn,
                           what, id, client->platform_name, client->num_devices,
                           client->num_devices == 1 ? "" : "s", client->num_devices - 1);
    *out = client->devices[id];
    return NULL;
}

PJRT_Error *ref_PJRT_Client_LookupDevice(PJRT_Client_LookupDevice_Args *args) {
    REF_CHECK_ENTRY(args, PJRT_Client_LookupDevice, client);
    return lookup(args->client, args->id, "PJRT_Client_LookupDevice", "id", &args->device);
}

PJRT_Error *
ref_PJRT_Client_LookupAddressableDevice(PJRT_Client_LookupAddressableDevice_Args *args) {
    REF_CHECK_ENTRY(args, PJRT_Client_LookupAddressableDevice, client);
    return lookup(args->client, args->local_hardware_id, "PJRT_Client_LookupAddressableDevice",
                  "local_hardware_id", &args->addressable_device);
}

PJRT_Error *ref_PJRT_Client_Compile(PJRT_Client_Compile_Args *args) {
    REF_CHECK_ARGS(args, PJRT_Client_Compile_Args);
    return ref_error(PJRT_Error_Code_UNIMPLEMENTED,
                     "PJRT_Client_Compile: the pjrt_ref plugin holds buffers; it does not compile "
                     "or run programs");
}

PJRT_Error *ref_check_alive(PJRT_Client *client, const char *fn) {
    if (atomic_load(&client->destroyed))
        return ref_error(PJRT_Error_Code_FAILED_PRECONDITION, "%s: the client has been destroyed",
                         fn);
    return NULL;
}

PJRT_Error *ref_check_device(PJRT_Client *client, PJRT_Device *device, const char *fn) {
    if (device == NULL)
        return REF_INVALID("%s: device is NULL", fn);
    if (client != NULL && device->client != client)
        return REF_INVALID("%s: device %s belongs to another client", fn,
                           device->description.debug_string);
    return NULL;
}

PJRT_Error *ref_check_memory(PJRT_Client *client, ref_memory *memory, const char *fn) {
    if (memory == NULL)
        return REF_INVALID("%s: memory is NULL", fn);
    if (client != NULL && memory->client != client)
        return REF_INVALID("%s: memory %s belongs to another client", fn, memory->debug_string);
    return NULL;
}
