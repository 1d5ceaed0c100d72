/* pjrt-dlpack info: what the plugin is and which DLPack features it has.
 *
 * The plugin runs in a child process. Real plugins abort the process when
 * they find no device, or wait for minutes on a cloud metadata server while
 * they initialize. The child writes everything it learns, as it learns it
 * (the table's version and extensions, the plugin's attributes, the
 * platform, devices, memories and capability probes), into memory shared
 * with the parent; every call into the plugin is timed (watch.h). The
 * parent prints the report from that memory once the child is gone, however
 * it ended: what was read, then why it stopped. */
#include <dlfcn.h>
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"

/* One row of the capability table. */
typedef struct capability {
    const char *name;
    bool provided;
    char probe[256]; /* "ok", "UNIMPLEMENTED: ...", "not probed", ... */
} capability;

#define MAX_CAPS 24

typedef struct caps {
    capability row[MAX_CAPS];
    size_t n;
} caps;

static capability *cap_add(caps *c, const char *name, bool provided) {
    capability *r = &c->row[c->n++];
    r->name = name;
    r->provided = provided;
    r->probe[0] = '\0';
    return r;
}

static void cap_result(capability *r, pjdl_code rc, const char *msg) {
    if (rc == PJDL_OK)
        snprintf(r->probe, sizeof r->probe, "ok");
    else
        snprintf(r->probe, sizeof r->probe, "%s: %.200s", pjdl_code_name(rc), msg);
}

/* Names of the extension types this build knows; NULL for others. */
static const char *const extension_names[] = {
    "Gpu_Custom_Call",
    "Profiler",
    "Custom_Partitioner",
    "Stream",
    "Layouts",
    "FFI",
    "MemoryDescriptions",
    "Triton",
    "RawBuffer",
    "PhaseCompile",
    "Example",
    "Unknown",
    "CrossHostTransfers",
    "ExecutableMetadata",
    "Callback",
    "HostAllocator",
    "TpuTopology",
    "TpuExecutable",
    "Megascale",
    "Shardings",
    "AbiVersion",
    "Collectives",
    "MultiSlice",
    "HostMemoryAllocator",
    "XlaTransform",
};

static const char *extension_name(int t) {
    if (t >= 0 && (size_t)t < sizeof extension_names / sizeof extension_names[0])
        return extension_names[t];
    return "other";
}

/* The rows of the capability table, in order: entry points, then the
 * stream extension. */
enum {
    CAP_INC,
    CAP_DEC,
    CAP_PTR,
    CAP_UNSAFE_PTR,
    CAP_LAYOUT,
    CAP_READY,
    CAP_VIEW,
    CAP_FROM_HOST,
    CAP_TO_HOST,
    CAP_DELETE,
    CAP_MEMORY,
    CAP_DEFAULT_MEMORY,
    CAP_ON_READY,
    CAP_COPY_TO_MEMORY,
    CAP_STREAM,
};

/* Indexed by the enum above, so that a row cannot land on another's label. */
#define CAP_SLOT(cap, slot) [cap] = {#slot, offsetof(PJRT_Api, slot)}
static const struct {
    const char *name;
    size_t offset;
} cap_slots[CAP_STREAM] = {
    CAP_SLOT(CAP_INC, PJRT_Buffer_IncreaseExternalReferenceCount),
    CAP_SLOT(CAP_DEC, PJRT_Buffer_DecreaseExternalReferenceCount),
    CAP_SLOT(CAP_PTR, PJRT_Buffer_OpaqueDeviceMemoryDataPointer),
    CAP_SLOT(CAP_UNSAFE_PTR, PJRT_Buffer_UnsafePointer),
    CAP_SLOT(CAP_LAYOUT, PJRT_Buffer_GetMemoryLayout),
    CAP_SLOT(CAP_READY, PJRT_Buffer_ReadyEvent),
    CAP_SLOT(CAP_VIEW, PJRT_Client_CreateViewOfDeviceBuffer),
    CAP_SLOT(CAP_FROM_HOST, PJRT_Client_BufferFromHostBuffer),
    CAP_SLOT(CAP_TO_HOST, PJRT_Buffer_ToHostBuffer),
    CAP_SLOT(CAP_DELETE, PJRT_Buffer_Delete),
    CAP_SLOT(CAP_MEMORY, PJRT_Buffer_Memory),
    CAP_SLOT(CAP_DEFAULT_MEMORY, PJRT_Device_DefaultMemory),
    CAP_SLOT(CAP_ON_READY, PJRT_Event_OnReady),
    CAP_SLOT(CAP_COPY_TO_MEMORY, PJRT_Buffer_CopyToMemory),
};
#undef CAP_SLOT

/* The buffer's address through both entry points that give it; NULL if
 * neither does. */
static void *probe_pointers(const PJRT_Api *api, PJRT_Buffer *pb, caps *c) {
    char msg[256];
    void *p = NULL;
    if (c->row[CAP_PTR].provided)
        cap_result(&c->row[CAP_PTR], raw_buffer_opaque_pointer(api, pb, &p, msg, sizeof msg), msg);
    uintptr_t u = 0;
    if (c->row[CAP_UNSAFE_PTR].provided)
        cap_result(&c->row[CAP_UNSAFE_PTR], raw_buffer_unsafe_pointer(api, pb, &u, msg, sizeof msg),
                   msg);
    return p != NULL ? p : (void *)u;
}

/* Probes the buffer entry points on a small ready buffer of device 0. */
static void probe_buffer_slots(cli_session *s, caps *c) {
    pjdl_device *dev = pjdl_client_device(s->client, 0);
    if (dev == NULL)
        return;
    const float data[4] = {1, 2, 3, 4};
    const int64_t dims[1] = {4};
    pjdl_buffer *buf = NULL;
    PJRT_Buffer *pb = NULL;
    char msg[256];
    capability *from_host = &c->row[CAP_FROM_HOST];
    if (pjdl_buffer_from_host(s->client, data, PJRT_Buffer_Type_F32, dims, 1, NULL, NULL, &buf) !=
            PJDL_OK ||
        pjdl_buffer_await(buf) != PJDL_OK || pjdl_buffer_pjrt(buf, &pb) != PJDL_OK) {
        snprintf(from_host->probe, sizeof from_host->probe, "%s", pjdl_last_error());
        pjdl_buffer_release(buf);
        return;
    }
    snprintf(from_host->probe, sizeof from_host->probe, "ok");
    const PJRT_Api *api = s->api;
    float back[4];
    PJRT_Buffer_ToHostBuffer_Args t = {.src = pb, .dst = back, .dst_size = sizeof back};
    cap_result(&c->row[CAP_TO_HOST], raw_buffer_to_host(api, &t, msg, sizeof msg), msg);
    if (c->row[CAP_INC].provided) {
        pjdl_code rc = raw_buffer_increase(api, pb, msg, sizeof msg);
        cap_result(&c->row[CAP_INC], rc, msg);
        if (rc == PJDL_OK && c->row[CAP_DEC].provided)
            cap_result(&c->row[CAP_DEC], raw_buffer_decrease(api, pb, msg, sizeof msg), msg);
    }
    void *p = probe_pointers(api, pb, c);
    PJRT_Buffer_MemoryLayout layout;
    if (c->row[CAP_LAYOUT].provided)
        cap_result(&c->row[CAP_LAYOUT], raw_buffer_layout(api, pb, &layout, msg, sizeof msg), msg);
    if (c->row[CAP_READY].provided) {
        bool is_ready = false;
        cap_result(&c->row[CAP_READY], raw_buffer_is_ready(api, pb, &is_ready, msg, sizeof msg),
                   msg);
    }
    if (c->row[CAP_VIEW].provided && p != NULL) {
        PJRT_Client_CreateViewOfDeviceBuffer_Args v = {.client = pjdl_client_pjrt(s->client),
                                                       .device_buffer_ptr = p,
                                                       .dims = dims,
                                                       .num_dims = 1,
                                                       .element_type = PJRT_Buffer_Type_F32,
                                                       .device = pjdl_device_pjrt(dev)};
        cap_result(&c->row[CAP_VIEW], raw_create_view(api, &v, msg, sizeof msg), msg);
        raw_buffer_destroy(api, v.buffer);
    }
    pjdl_buffer_release(buf);
}

static void probe_stream(cli_session *s, capability *r) {
    pjdl_device *dev = pjdl_client_device(s->client, 0);
    intptr_t stream = 0;
    if (dev == NULL)
        return;
    pjdl_code rc = pjdl_device_stream(dev, &stream);
    cap_result(r, rc, pjdl_last_error());
}

static void collect_caps(cli_session *s, caps *c) {
    const PJRT_Api *api = s->api;
    for (size_t i = 0; i < CAP_STREAM; i++)
        cap_add(c, cap_slots[i].name, raw_has_slot(api, cap_slots[i].offset));
    capability *stream =
        cap_add(c, "extension Stream (get_stream)", raw_stream_extension(api) != NULL);
    probe_buffer_slots(s, c);
    if (stream->provided)
        probe_stream(s, stream);
}

_Static_assert(sizeof extension_names / sizeof extension_names[0] ==
                   (size_t)PJRT_Extension_Type_XlaTransform + 1,
               "one name per extension type this build declares");

/* ------------------------------------------- what is read without a client */

#define INFO_MAX_EXTENSIONS 64
#define INFO_MAX_ATTRIBUTES 64
#define INFO_MAX_DEVICES 64
#define INFO_MAX_MEMORIES 8

typedef struct info_attribute {
    char name[128];
    char value[512];
} info_attribute;

typedef struct info_memory {
    int id;
    char kind[64];
    bool is_default;
    bool mapped; /* has a DLDevice: dl_type, dl_id */
    char dl_type[32];
    int dl_id;
} info_memory;

typedef struct info_device {
    int id;
    char kind[128];
    int local_hardware_id;
    size_t num_memories; /* as reported; at most INFO_MAX_MEMORIES kept */
    info_memory memories[INFO_MAX_MEMORIES];
} info_device;

/* Lives in memory shared by the parent and the child: the child fills it as
 * it reads, the parent prints it once the child is gone. */
typedef struct info_facts {
    char path[4096];
    char step[128];    /* what the child is doing, in words */
    bool table_read;   /* GetPjrtApi answered; the fields below are set */
    size_t api_size;   /* PJRT_Api.struct_size */
    bool version_read; /* the table is long enough to hold the version */
    int major, minor;
    size_t num_extensions;
    int extensions[INFO_MAX_EXTENSIONS];
    bool extensions_loop; /* the chain comes back to an extension seen */
    bool extensions_more; /* longer than INFO_MAX_EXTENSIONS */
    bool loaded;          /* the library loaded and initialized the plugin */
    bool attributes_read;
    size_t num_attributes; /* as reported; at most INFO_MAX_ATTRIBUTES kept */
    info_attribute attributes[INFO_MAX_ATTRIBUTES];
    char attributes_error[512];
    bool client_created;
    char error_code[32]; /* why there is no client, or why the child stopped */
    char error[2048];
    /* With a client, read in this order: */
    bool platform_read;
    char platform[128];
    char platform_version[256];
    uint64_t platform_id;
    size_t num_devices;  /* as reported */
    size_t devices_read; /* kept so far, at most INFO_MAX_DEVICES */
    info_device devices[INFO_MAX_DEVICES];
    caps caps;     /* rows appear as they are probed */
    bool finished; /* the child read everything */
} info_facts;

static void facts_step(info_facts *f, const char *step) {
    snprintf(f->step, sizeof f->step, "%s", step);
}

static void facts_error(info_facts *f, pjdl_code code, const char *message) {
    snprintf(f->error_code, sizeof f->error_code, "%s", pjdl_code_name(code));
    snprintf(f->error, sizeof f->error, "%s", message);
}

/* Reads the table's own fields: plain memory, no call into the plugin. */
static void read_table(const PJRT_Api *api, info_facts *f) {
    f->table_read = true;
    f->api_size = api->struct_size;
    f->version_read =
        api->struct_size >= offsetof(PJRT_Api, pjrt_api_version) + sizeof api->pjrt_api_version;
    if (f->version_read) {
        f->major = api->pjrt_api_version.major_version;
        f->minor = api->pjrt_api_version.minor_version;
    }
    const PJRT_Extension_Base *seen[INFO_MAX_EXTENSIONS];
    size_t n = 0;
    for (const PJRT_Extension_Base *e = pjdl_api_extensions(api); e != NULL; e = e->next) {
        for (size_t i = 0; i < n; i++)
            if (seen[i] == e)
                f->extensions_loop = true;
        if (f->extensions_loop)
            break;
        if (n == INFO_MAX_EXTENSIONS) {
            f->extensions_more = true;
            break;
        }
        seen[n] = e;
        f->extensions[n++] = (int)e->type;
    }
    f->num_extensions = n;
}

/* A plugin that speaks another minor version has a shorter or longer
 * table; only what is inside its struct_size is read. Before
 * PJRT_Plugin_Initialize only the table's own fields are read: the C API
 * allows no call before it. */
static void read_table_early(const char *path, info_facts *f) {
    facts_step(f, "dlopen");
    cli_watch_mark m = cli_watch_enter("dlopen");
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    cli_watch_leave(m);
    if (h == NULL)
        return; /* the library fails the same way and says why */
    facts_step(f, "GetPjrtApi");
    const PJRT_Api *api;
    m = cli_watch_enter("GetPjrtApi");
    raw_get_api(h, NULL, &api);
    cli_watch_leave(m);
    if (api != NULL)
        read_table(api, f);
    /* Never closed: the library opens the same file next, and plugins are
     * not written to be unloaded. */
}

static void named_value_text(const PJRT_NamedValue *v, char *out, size_t n);

static void read_attributes(const PJRT_Api *api, info_facts *f) {
    if (!RAW_HAS(api, PJRT_Plugin_Attributes)) {
        snprintf(f->attributes_error, sizeof f->attributes_error,
                 "PJRT_Plugin_Attributes is not in the table");
        return;
    }
    facts_step(f, "PJRT_Plugin_Attributes");
    PJRT_Plugin_Attributes_Args a = {0};
    a.struct_size = PJRT_Plugin_Attributes_Args_STRUCT_SIZE;
    char msg[400];
    pjdl_code rc = raw_take_error(api, api->PJRT_Plugin_Attributes(&a), msg, sizeof msg);
    if (rc != PJDL_OK) {
        snprintf(f->attributes_error, sizeof f->attributes_error, "%s: %s", pjdl_code_name(rc),
                 msg);
        return;
    }
    f->attributes_read = true;
    f->num_attributes = a.attributes ? a.num_attributes : 0;
    for (size_t i = 0; i < f->num_attributes && i < INFO_MAX_ATTRIBUTES; i++) {
        const PJRT_NamedValue *v = &a.attributes[i];
        snprintf(f->attributes[i].name, sizeof f->attributes[i].name, "%.*s", (int)v->name_size,
                 v->name ? v->name : "");
        named_value_text(v, f->attributes[i].value, sizeof f->attributes[i].value);
    }
}

/* The attribute's value as text. */
static void named_value_text(const PJRT_NamedValue *v, char *out, size_t n) {
    switch (v->type) {
    case PJRT_NamedValue_kString:
        snprintf(out, n, "%.*s", (int)v->value_size, v->string_value ? v->string_value : "");
        break;
    case PJRT_NamedValue_kInt64:
        snprintf(out, n, "%" PRId64, v->int64_value);
        break;
    case PJRT_NamedValue_kInt64List: {
        size_t used = (size_t)snprintf(out, n, "[");
        for (size_t i = 0; i < v->value_size && v->int64_array_value && used < n; i++)
            used += (size_t)snprintf(out + used, n - used, "%s%" PRId64, i ? "," : "",
                                     v->int64_array_value[i]);
        if (used < n)
            snprintf(out + used, n - used, "]");
        break;
    }
    case PJRT_NamedValue_kFloat:
        snprintf(out, n, "%g", (double)v->float_value);
        break;
    case PJRT_NamedValue_kBool:
        snprintf(out, n, "%s", v->bool_value ? "true" : "false");
        break;
    default:
        snprintf(out, n, "(type %d)", (int)v->type);
    }
}

/* ------------------------------------------------------------- printing */

static size_t entry_points(size_t struct_size) {
    size_t first = offsetof(PJRT_Api, PJRT_Error_Destroy);
    return struct_size > first ? (struct_size - first) / sizeof(void (*)(void)) : 0;
}

/* What was read without a client: path, version, table, attributes,
 * extensions. */
static void print_plugin_text(const info_facts *f) {
    printf("plugin:           %s\n", f->path[0] ? f->path : "(default)");
    if (f->version_read)
        printf("PJRT ABI:         %d.%d (this build: %d.%d)\n", f->major, f->minor, PJRT_API_MAJOR,
               PJRT_API_MINOR);
    else
        printf("PJRT ABI:         unknown (the table is %zu bytes, too short for its version)\n",
               f->api_size);
    printf("entry points:     %zu (this build: %zu)\n", entry_points(f->api_size),
           entry_points(sizeof(PJRT_Api)));
    if (f->attributes_read) {
        for (size_t i = 0; i < f->num_attributes && i < INFO_MAX_ATTRIBUTES; i++)
            printf("attribute:        %s = %s\n", f->attributes[i].name, f->attributes[i].value);
        if (f->num_attributes == 0)
            printf("attributes:       none\n");
        else if (f->num_attributes > INFO_MAX_ATTRIBUTES)
            printf("attributes:       %zu more not shown\n",
                   f->num_attributes - INFO_MAX_ATTRIBUTES);
    } else {
        printf("attributes:       not read: %s\n",
               f->attributes_error[0] ? f->attributes_error
                                      : "the plugin was not initialized (see below)");
    }
    printf("extensions:      ");
    for (size_t i = 0; i < f->num_extensions; i++)
        printf((unsigned)f->extensions[i] > 255 ? " %s(0x%x)" : " %s(%u)",
               extension_name(f->extensions[i]), (unsigned)f->extensions[i]);
    if (f->extensions_loop)
        printf(" ... (the chain loops back)");
    else if (f->extensions_more)
        printf(" ... (more than %d)", INFO_MAX_EXTENSIONS);
    printf("%s\n", f->num_extensions ? "" : " none");
}

/* Opens the JSON report on stdout with what was read without a client; ends
 * with the key "client_error", whose value the caller writes. */
static void json_report_begin(json_writer *w, const info_facts *f) {
    json_init(w, stdout);
    json_begin_object(w);
    json_field_string(w, "plugin", f->path);
    json_key(w, "abi_version");
    if (f->version_read) {
        json_begin_object(w);
        json_field_int(w, "major", f->major);
        json_field_int(w, "minor", f->minor);
        json_end_object(w);
    } else {
        json_null(w);
    }
    json_key(w, "api_struct_size");
    json_uint(w, f->api_size);
    json_key(w, "entry_points");
    json_uint(w, entry_points(f->api_size));
    json_key(w, "attributes");
    if (f->attributes_read) {
        json_begin_object(w);
        for (size_t i = 0; i < f->num_attributes && i < INFO_MAX_ATTRIBUTES; i++) {
            json_field_string(w, f->attributes[i].name, f->attributes[i].value);
        }
        json_end_object(w);
    } else {
        json_null(w);
    }
    json_key(w, "extensions");
    json_begin_array(w);
    for (size_t i = 0; i < f->num_extensions; i++) {
        json_begin_object(w);
        json_field_int(w, "type", f->extensions[i]);
        json_field_string(w, "name", extension_name(f->extensions[i]));
        json_end_object(w);
    }
    json_end_array(w);
    json_field_bool(w, "extensions_chain_ends", !f->extensions_loop && !f->extensions_more);
    json_key(w, "client_error");
}

/* The client's part of the facts, read through the library's accessors. */
static void read_client(cli_session *s, info_facts *f) {
    facts_step(f, "reading the platform and devices");
    snprintf(f->platform, sizeof f->platform, "%s", pjdl_client_platform_name(s->client));
    snprintf(f->platform_version, sizeof f->platform_version, "%s",
             pjdl_client_platform_version(s->client));
    f->platform_id = pjdl_client_platform_id(s->client);
    f->num_devices = pjdl_client_device_count(s->client);
    f->platform_read = true;
    for (size_t i = 0; i < f->num_devices && i < INFO_MAX_DEVICES; i++) {
        pjdl_device *d = pjdl_client_device(s->client, i);
        info_device *o = &f->devices[i];
        o->id = pjdl_device_id(d);
        snprintf(o->kind, sizeof o->kind, "%s", pjdl_device_kind(d));
        o->local_hardware_id = pjdl_device_local_hardware_id(d);
        pjdl_memory *def = pjdl_device_default_memory(d);
        o->num_memories = pjdl_device_memory_count(d);
        for (size_t m = 0; m < o->num_memories && m < INFO_MAX_MEMORIES; m++) {
            pjdl_memory *mem = pjdl_device_memory(d, m);
            info_memory *om = &o->memories[m];
            om->id = pjdl_memory_id(mem);
            snprintf(om->kind, sizeof om->kind, "%s", pjdl_memory_kind(mem));
            om->is_default = mem == def;
            DLDevice dl;
            om->mapped = pjdl_device_dl(d, mem, &dl) == PJDL_OK;
            if (om->mapped) {
                snprintf(om->dl_type, sizeof om->dl_type, "%s",
                         pjdl_dl_device_type_name((DLDeviceType)dl.device_type));
                om->dl_id = (int)dl.device_id;
            }
        }
        f->devices_read = i + 1;
    }
}

static size_t memories_kept(const info_device *d) {
    return d->num_memories < INFO_MAX_MEMORIES ? d->num_memories : INFO_MAX_MEMORIES;
}

static void print_devices_text(const info_facts *f) {
    printf("devices:          %zu\n", f->num_devices);
    for (size_t i = 0; i < f->devices_read; i++) {
        const info_device *d = &f->devices[i];
        printf("  device %d: kind \"%s\", local hardware id %d\n", d->id, d->kind,
               d->local_hardware_id);
        for (size_t m = 0; m < memories_kept(d); m++) {
            const info_memory *om = &d->memories[m];
            char dltext[64] = "unmapped";
            if (om->mapped)
                snprintf(dltext, sizeof dltext, "%s:%d", om->dl_type, om->dl_id);
            printf("    memory %d: %-12s -> DLDevice %s%s\n", om->id, om->kind, dltext,
                   om->is_default ? "  (default)" : "");
        }
        if (d->num_memories > INFO_MAX_MEMORIES)
            printf("    %zu more memories not shown\n", d->num_memories - INFO_MAX_MEMORIES);
    }
    if (f->devices_read < f->num_devices)
        printf("  %zu more devices not shown\n", f->num_devices - f->devices_read);
}

/* Everything that was read; `stopped`: why the child did not finish, or
 * NULL. */
static void print_text(const info_facts *f, const char *stopped) {
    print_plugin_text(f);
    if (f->platform_read) {
        printf("platform:         %s\n", f->platform);
        printf("platform version: %s\n", f->platform_version);
        printf("platform id:      0x%016" PRIx64 "\n", f->platform_id);
        print_devices_text(f);
    }
    if (f->caps.n > 0)
        printf("capabilities:\n");
    for (size_t i = 0; i < f->caps.n; i++) {
        const capability *c = &f->caps.row[i];
        printf("  %-44s %-9s %s\n", c->name, c->provided ? "provided" : "missing",
               c->provided ? c->probe : "");
    }
    if (stopped != NULL)
        printf("stopped:          %s\n", stopped);
}

static void json_memory(json_writer *w, const info_memory *om) {
    json_begin_object(w);
    json_field_int(w, "id", om->id);
    json_field_string(w, "kind", om->kind);
    json_field_bool(w, "default", om->is_default);
    json_key(w, "dl_device");
    if (om->mapped) {
        json_begin_object(w);
        json_field_string(w, "device_type", om->dl_type);
        json_field_int(w, "device_id", om->dl_id);
        json_end_object(w);
    } else {
        json_null(w);
    }
    json_end_object(w);
}

static void json_devices(json_writer *w, const info_facts *f) {
    json_key(w, "devices");
    json_begin_array(w);
    for (size_t i = 0; i < f->devices_read; i++) {
        const info_device *d = &f->devices[i];
        json_begin_object(w);
        json_field_int(w, "id", d->id);
        json_field_string(w, "kind", d->kind);
        json_field_int(w, "local_hardware_id", d->local_hardware_id);
        json_key(w, "memories");
        json_begin_array(w);
        for (size_t m = 0; m < memories_kept(d); m++)
            json_memory(w, &d->memories[m]);
        json_end_array(w);
        json_end_object(w);
    }
    json_end_array(w);
}

/* The "stopped" member: null, or the code and message of why the child did
 * not finish (CRASH, TIMEOUT). */
static void json_stopped(json_writer *w, const info_facts *f, const char *stopped) {
    json_key(w, "stopped");
    if (stopped == NULL) {
        json_null(w);
        return;
    }
    json_begin_object(w);
    json_field_string(w, "code", f->error_code);
    json_field_string(w, "message", stopped);
    json_end_object(w);
}

/* The report as JSON: every key always there, empty (null, 0, []) where
 * nothing was read, so that a script can tell what happened from stdout
 * alone; "client_error" is null once a client was created, else why there
 * is none (the step, a code and the message); "stopped" why the child did
 * not finish (CRASH, TIMEOUT) after that. */
static void print_json(const info_facts *f, const char *stopped) {
    json_writer w;
    json_report_begin(&w, f);
    if (f->client_created) {
        json_null(&w);
    } else {
        json_begin_object(&w);
        json_field_string(&w, "step", f->step);
        json_field_string(&w, "code", f->error_code);
        json_field_string(&w, "message", f->error);
        json_end_object(&w);
    }
    json_field_string(&w, "platform", f->platform_read ? f->platform : NULL);
    json_field_string(&w, "platform_version", f->platform_read ? f->platform_version : NULL);
    json_key(&w, "platform_id");
    char id[32];
    snprintf(id, sizeof id, "0x%016" PRIx64, f->platform_id);
    if (f->platform_read)
        json_string(&w, id);
    else
        json_null(&w);
    json_key(&w, "device_count");
    json_uint(&w, f->platform_read ? f->num_devices : 0);
    json_devices(&w, f);
    json_key(&w, "capabilities");
    json_begin_array(&w);
    for (size_t i = 0; i < f->caps.n; i++) {
        json_begin_object(&w);
        json_field_string(&w, "name", f->caps.row[i].name);
        json_field_bool(&w, "provided", f->caps.row[i].provided);
        json_field_string(&w, "probe", f->caps.row[i].probe);
        json_end_object(&w);
    }
    json_end_array(&w);
    json_stopped(&w, f, f->client_created ? stopped : NULL);
    json_end_object(&w);
    json_finish(&w);
}

/* The report without a client: what was read, then why there is none. */
static void print_no_client(const cli_args *args, const info_facts *f) {
    if (args->json) {
        print_json(f, NULL);
    } else {
        if (f->table_read || f->loaded)
            print_plugin_text(f);
        else
            printf("plugin:           %s\n", f->path[0] ? f->path : "(default)");
        printf("client:           none: %s (%s)\n", f->error, f->error_code);
    }
    fflush(stdout);
}

/* The plugin could not even be found: the report of nothing read. */
static void info_unresolved(const cli_args *args, const char *why) {
    static info_facts f; /* large: not on the stack */
    memset(&f, 0, sizeof f);
    snprintf(f.path, sizeof f.path, "%s", args->plugin ? args->plugin : "");
    snprintf(f.step, sizeof f.step, "finding the plugin");
    snprintf(f.error_code, sizeof f.error_code, "%s", pjdl_code_name(PJDL_NOT_FOUND));
    snprintf(f.error, sizeof f.error, "%s", why);
    if (args->json)
        print_no_client(args, &f);
}

/* ------------------------------------------------------ the child's work */

/* Loads the plugin at `path` (cli_run_watched), reads it, creates a client
 * and probes it, writing each fact into the shared info_facts as soon as
 * it is known. Returns the exit code. */
static int info_child(const cli_args *args, const char *path, void *shared) {
    info_facts *f = shared;
    snprintf(f->path, sizeof f->path, "%s", path);
    /* Plugins log to stdout too (Tenstorrent's does): the child's stdout is
     * stderr, so that stdout holds only the report, which the parent
     * prints. */
    fflush(stdout);
    dup2(STDERR_FILENO, STDOUT_FILENO);
    cli_session s = {0};
    s.args = args;
    snprintf(s.path, sizeof s.path, "%s", f->path);
    if (s.path[0])
        read_table_early(s.path, f);
    facts_step(f, "PJRT_Plugin_Initialize");
    pjdl_code loaded = cli_plugin_load(&s);
    if (loaded != PJDL_OK) {
        facts_error(f, loaded, pjdl_last_error());
        return CLI_EXIT_NO_PLUGIN;
    }
    f->loaded = true;
    snprintf(f->path, sizeof f->path, "%s", s.path);
    if (!f->table_read)
        read_table(pjdl_plugin_api(s.plugin), f);
    read_attributes(s.api, f);
    facts_step(f, "PJRT_Client_Create");
    pjdl_code rc = cli_client_create(&s);
    if (rc != PJDL_OK) {
        facts_error(f, rc, pjdl_last_error());
        cli_session_close(&s);
        return CLI_EXIT_NO_PLUGIN;
    }
    f->client_created = true;
    read_client(&s, f);
    facts_step(f, "probing the client's entry points");
    collect_caps(&s, &f->caps);
    facts_step(f, "releasing the client");
    cli_session_close(&s);
    f->finished = true;
    return CLI_EXIT_OK;
}

/* ------------------------------------------------ the parent's supervision */

/* Reports a child that did not finish: with a client, everything it read
 * and why it stopped (exit 1); without one, what it read and why there is
 * no client (exit 3). */
static int report_lost_child(const cli_args *args, info_facts *f, const cli_child_end *end,
                             int64_t limit_ms) {
    char what[512];
    cli_child_end_text(end, f->step, limit_ms, what, sizeof what);
    fprintf(stderr, "pjrt-dlpack: %s: %s\n", f->path[0] ? f->path : "(default)", what);
    snprintf(f->error_code, sizeof f->error_code, "%s", end->hung ? "TIMEOUT" : "CRASH");
    if (f->client_created) {
        if (args->json)
            print_json(f, what);
        else
            print_text(f, what);
        return CLI_EXIT_FAILED;
    }
    if (end->entry != NULL)
        snprintf(f->step, sizeof f->step, "%s", end->entry);
    snprintf(f->error, sizeof f->error, "%s", what);
    print_no_client(args, f);
    return CLI_EXIT_NO_PLUGIN;
}

static int info_report(const cli_args *args, info_facts *f, const cli_child_end *end,
                       int64_t limit_ms) {
    int st = end->status;
    bool exited = !end->hung && WIFEXITED(st);
    if (exited && WEXITSTATUS(st) == CLI_EXIT_OK && f->finished) {
        if (args->json)
            print_json(f, NULL);
        else
            print_text(f, NULL);
        return CLI_EXIT_OK;
    }
    if (exited && WEXITSTATUS(st) == CLI_EXIT_NO_PLUGIN && !f->client_created) {
        /* The child said why on stderr; what it read goes to stdout. */
        print_no_client(args, f);
        return CLI_EXIT_NO_PLUGIN;
    }
    return report_lost_child(args, f, end, limit_ms);
}

/* How the child ended, reported (the parent's side of info_child). */
static int info_report_end(const cli_args *args, const char *path, void *shared,
                           const cli_child_end *end, int64_t limit_ms) {
    (void)path; /* the child wrote it into the facts */
    return info_report(args, shared, end, limit_ms);
}

int cli_info(const cli_args *args) {
    int rc =
        cli_run_watched(args, sizeof(info_facts), info_child, info_report_end, info_unresolved);
    fflush(stdout);
    return rc;
}
