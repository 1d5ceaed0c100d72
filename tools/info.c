/* pjrt-dlpack info: what the plugin is and which DLPack features it has. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

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

static const char *extension_name(PJRT_Extension_Type t) {
    switch (t) {
    case PJRT_Extension_Type_Gpu_Custom_Call:
        return "Gpu_Custom_Call";
    case PJRT_Extension_Type_Profiler:
        return "Profiler";
    case PJRT_Extension_Type_Custom_Partitioner:
        return "Custom_Partitioner";
    case PJRT_Extension_Type_Stream:
        return "Stream";
    case PJRT_Extension_Type_Layouts:
        return "Layouts";
    case PJRT_Extension_Type_FFI:
        return "FFI";
    case PJRT_Extension_Type_MemoryDescriptions:
        return "MemoryDescriptions";
    case PJRT_Extension_Type_RawBuffer:
        return "RawBuffer";
    case PJRT_Extension_Type_Example:
        return "Example";
    default:
        return "other";
    }
}

/* Probes the buffer entry points on a small ready buffer of device 0. */
static void probe_buffer_slots(cli_session *s, capability *from_host, capability *to_host,
                               capability *inc, capability *dec, capability *ptr,
                               capability *unsafe_ptr, capability *layout, capability *ready,
                               capability *view) {
    pjdl_device *dev = pjdl_client_device(s->client, 0);
    if (dev == NULL)
        return;
    const float data[4] = {1, 2, 3, 4};
    const int64_t dims[1] = {4};
    pjdl_buffer *buf = NULL;
    PJRT_Buffer *pb = NULL;
    char msg[256];
    if (pjdl_buffer_from_host(s->client, data, PJRT_Buffer_Type_F32, dims, 1, NULL, NULL, &buf) !=
            PJDL_OK ||
        pjdl_buffer_await(buf) != PJDL_OK || pjdl_buffer_pjrt(buf, &pb) != PJDL_OK) {
        snprintf(from_host->probe, sizeof from_host->probe, "%s", pjdl_last_error());
        pjdl_buffer_release(buf);
        return;
    }
    snprintf(from_host->probe, sizeof from_host->probe, "ok");
    float back[4];
    cap_result(to_host, raw_buffer_to_host(s->api, pb, back, sizeof back, msg, sizeof msg), msg);
    const PJRT_Api *api = s->api;
    if (inc->provided) {
        pjdl_code rc = raw_buffer_increase(api, pb, msg, sizeof msg);
        cap_result(inc, rc, msg);
        if (rc == PJDL_OK && dec->provided)
            cap_result(dec, raw_buffer_decrease(api, pb, msg, sizeof msg), msg);
    }
    void *p = NULL;
    if (ptr->provided) {
        PJRT_Buffer_OpaqueDeviceMemoryDataPointer_Args a = {0};
        a.struct_size = PJRT_Buffer_OpaqueDeviceMemoryDataPointer_Args_STRUCT_SIZE;
        a.buffer = pb;
        pjdl_code rc = raw_take_error(api, api->PJRT_Buffer_OpaqueDeviceMemoryDataPointer(&a), msg,
                                      sizeof msg);
        cap_result(ptr, rc, msg);
        if (rc == PJDL_OK)
            p = a.device_memory_ptr;
    }
    if (unsafe_ptr->provided) {
        PJRT_Buffer_UnsafePointer_Args a = {0};
        a.struct_size = PJRT_Buffer_UnsafePointer_Args_STRUCT_SIZE;
        a.buffer = pb;
        pjdl_code rc = raw_take_error(api, api->PJRT_Buffer_UnsafePointer(&a), msg, sizeof msg);
        cap_result(unsafe_ptr, rc, msg);
        if (rc == PJDL_OK && p == NULL)
            p = (void *)a.buffer_pointer;
    }
    if (layout->provided) {
        PJRT_Buffer_GetMemoryLayout_Args a = {0};
        a.struct_size = PJRT_Buffer_GetMemoryLayout_Args_STRUCT_SIZE;
        a.buffer = pb;
        cap_result(layout,
                   raw_take_error(api, api->PJRT_Buffer_GetMemoryLayout(&a), msg, sizeof msg), msg);
    }
    if (ready->provided) {
        bool is_ready = false;
        cap_result(ready, raw_buffer_is_ready(api, pb, &is_ready, msg, sizeof msg), msg);
    }
    if (view->provided && p != NULL) {
        PJRT_Buffer *v = NULL;
        pjdl_code rc =
            raw_create_view(api, pjdl_client_pjrt(s->client), p, PJRT_Buffer_Type_F32, dims, 1,
                            NULL, pjdl_device_pjrt(dev), NULL, NULL, NULL, &v, msg, sizeof msg);
        cap_result(view, rc, msg);
        raw_buffer_destroy(api, v);
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
    capability *inc = cap_add(c, "PJRT_Buffer_IncreaseExternalReferenceCount",
                              RAW_HAS(api, PJRT_Buffer_IncreaseExternalReferenceCount));
    capability *dec = cap_add(c, "PJRT_Buffer_DecreaseExternalReferenceCount",
                              RAW_HAS(api, PJRT_Buffer_DecreaseExternalReferenceCount));
    capability *ptr = cap_add(c, "PJRT_Buffer_OpaqueDeviceMemoryDataPointer",
                              RAW_HAS(api, PJRT_Buffer_OpaqueDeviceMemoryDataPointer));
    capability *uptr =
        cap_add(c, "PJRT_Buffer_UnsafePointer", RAW_HAS(api, PJRT_Buffer_UnsafePointer));
    capability *lay =
        cap_add(c, "PJRT_Buffer_GetMemoryLayout", RAW_HAS(api, PJRT_Buffer_GetMemoryLayout));
    capability *ready = cap_add(c, "PJRT_Buffer_ReadyEvent", RAW_HAS(api, PJRT_Buffer_ReadyEvent));
    capability *view = cap_add(c, "PJRT_Client_CreateViewOfDeviceBuffer",
                               RAW_HAS(api, PJRT_Client_CreateViewOfDeviceBuffer));
    capability *from_host = cap_add(c, "PJRT_Client_BufferFromHostBuffer",
                                    RAW_HAS(api, PJRT_Client_BufferFromHostBuffer));
    capability *to_host =
        cap_add(c, "PJRT_Buffer_ToHostBuffer", RAW_HAS(api, PJRT_Buffer_ToHostBuffer));
    cap_add(c, "PJRT_Buffer_Delete", RAW_HAS(api, PJRT_Buffer_Delete));
    cap_add(c, "PJRT_Buffer_Memory", RAW_HAS(api, PJRT_Buffer_Memory));
    cap_add(c, "PJRT_Device_DefaultMemory", RAW_HAS(api, PJRT_Device_DefaultMemory));
    cap_add(c, "PJRT_Event_OnReady", RAW_HAS(api, PJRT_Event_OnReady));
    cap_add(c, "PJRT_Buffer_CopyToMemory", RAW_HAS(api, PJRT_Buffer_CopyToMemory));
    capability *stream =
        cap_add(c, "extension Stream (get_stream)", raw_stream_extension(api) != NULL);
    probe_buffer_slots(s, from_host, to_host, inc, dec, ptr, uptr, lay, ready, view);
    if (stream->provided)
        probe_stream(s, stream);
}

/* The plugin's attributes, printed or written as JSON. */
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
        for (size_t i = 0; i < v->value_size && used < n; i++)
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

static void get_attributes(const PJRT_Api *api, const PJRT_NamedValue **attrs, size_t *n) {
    *attrs = NULL;
    *n = 0;
    if (!RAW_HAS(api, PJRT_Plugin_Attributes))
        return;
    PJRT_Plugin_Attributes_Args a = {0};
    a.struct_size = PJRT_Plugin_Attributes_Args_STRUCT_SIZE;
    if (raw_take_error(api, api->PJRT_Plugin_Attributes(&a), NULL, 0) == PJDL_OK) {
        *attrs = a.attributes;
        *n = a.num_attributes;
    }
}

static void print_text(cli_session *s, caps *c) {
    int major = 0, minor = 0;
    pjdl_plugin_abi_version(s->plugin, &major, &minor);
    printf("plugin:           %s\n", s->path[0] ? s->path : "(default)");
    printf("PJRT ABI:         %d.%d (this build: %d.%d)\n", major, minor, PJRT_API_MAJOR,
           PJRT_API_MINOR);
    const PJRT_NamedValue *attrs;
    size_t na;
    get_attributes(s->api, &attrs, &na);
    for (size_t i = 0; i < na; i++) {
        char text[256];
        named_value_text(&attrs[i], text, sizeof text);
        printf("attribute:        %.*s = %s\n", (int)attrs[i].name_size, attrs[i].name, text);
    }
    printf("platform:         %s\n", pjdl_client_platform_name(s->client));
    printf("platform version: %s\n", pjdl_client_platform_version(s->client));
    printf("platform id:      0x%016" PRIx64 "\n", pjdl_client_platform_id(s->client));
    size_t nd = pjdl_client_device_count(s->client);
    printf("devices:          %zu\n", nd);
    for (size_t i = 0; i < nd; i++) {
        pjdl_device *d = pjdl_client_device(s->client, i);
        printf("  device %d: kind \"%s\", local hardware id %d\n", pjdl_device_id(d),
               pjdl_device_kind(d), pjdl_device_local_hardware_id(d));
        pjdl_memory *def = pjdl_device_default_memory(d);
        for (size_t m = 0; m < pjdl_device_memory_count(d); m++) {
            pjdl_memory *mem = pjdl_device_memory(d, m);
            DLDevice dl;
            char dltext[64] = "unmapped";
            if (pjdl_device_dl(d, mem, &dl) == PJDL_OK)
                snprintf(dltext, sizeof dltext, "%s:%d",
                         pjdl_dl_device_type_name((DLDeviceType)dl.device_type), (int)dl.device_id);
            printf("    memory %d: %-12s -> DLDevice %s%s\n", pjdl_memory_id(mem),
                   pjdl_memory_kind(mem), dltext, mem == def ? "  (default)" : "");
        }
    }
    printf("extensions:      ");
    int count = 0;
    for (const PJRT_Extension_Base *e = s->api->extension_start; e != NULL && count < 64;
         e = e->next, count++)
        printf((unsigned)e->type > 255 ? " %s(0x%x)" : " %s(%u)", extension_name(e->type),
               (unsigned)e->type);
    printf("%s\n", count ? "" : " none");
    printf("capabilities:\n");
    for (size_t i = 0; i < c->n; i++)
        printf("  %-44s %-9s %s\n", c->row[i].name, c->row[i].provided ? "provided" : "missing",
               c->row[i].provided ? c->row[i].probe : "");
}

static void print_json(cli_session *s, caps *c) {
    json_writer w;
    json_init(&w, stdout);
    int major = 0, minor = 0;
    pjdl_plugin_abi_version(s->plugin, &major, &minor);
    json_begin_object(&w);
    json_key(&w, "plugin");
    json_string(&w, s->path);
    json_key(&w, "abi_version");
    json_begin_object(&w);
    json_key(&w, "major");
    json_int(&w, major);
    json_key(&w, "minor");
    json_int(&w, minor);
    json_end_object(&w);
    json_key(&w, "attributes");
    json_begin_object(&w);
    const PJRT_NamedValue *attrs;
    size_t na;
    get_attributes(s->api, &attrs, &na);
    for (size_t i = 0; i < na; i++) {
        char name[128], text[256];
        snprintf(name, sizeof name, "%.*s", (int)attrs[i].name_size, attrs[i].name);
        named_value_text(&attrs[i], text, sizeof text);
        json_key(&w, name);
        json_string(&w, text);
    }
    json_end_object(&w);
    json_key(&w, "platform");
    json_string(&w, pjdl_client_platform_name(s->client));
    json_key(&w, "platform_version");
    json_string(&w, pjdl_client_platform_version(s->client));
    json_key(&w, "platform_id");
    char id[32];
    snprintf(id, sizeof id, "0x%016" PRIx64, pjdl_client_platform_id(s->client));
    json_string(&w, id);
    json_key(&w, "devices");
    json_begin_array(&w);
    for (size_t i = 0; i < pjdl_client_device_count(s->client); i++) {
        pjdl_device *d = pjdl_client_device(s->client, i);
        json_begin_object(&w);
        json_key(&w, "id");
        json_int(&w, pjdl_device_id(d));
        json_key(&w, "kind");
        json_string(&w, pjdl_device_kind(d));
        json_key(&w, "local_hardware_id");
        json_int(&w, pjdl_device_local_hardware_id(d));
        json_key(&w, "memories");
        json_begin_array(&w);
        pjdl_memory *def = pjdl_device_default_memory(d);
        for (size_t m = 0; m < pjdl_device_memory_count(d); m++) {
            pjdl_memory *mem = pjdl_device_memory(d, m);
            DLDevice dl;
            json_begin_object(&w);
            json_key(&w, "id");
            json_int(&w, pjdl_memory_id(mem));
            json_key(&w, "kind");
            json_string(&w, pjdl_memory_kind(mem));
            json_key(&w, "default");
            json_bool(&w, mem == def);
            json_key(&w, "dl_device");
            if (pjdl_device_dl(d, mem, &dl) == PJDL_OK) {
                json_begin_object(&w);
                json_key(&w, "device_type");
                json_string(&w, pjdl_dl_device_type_name((DLDeviceType)dl.device_type));
                json_key(&w, "device_id");
                json_int(&w, dl.device_id);
                json_end_object(&w);
            } else {
                json_null(&w);
            }
            json_end_object(&w);
        }
        json_end_array(&w);
        json_end_object(&w);
    }
    json_end_array(&w);
    json_key(&w, "extensions");
    json_begin_array(&w);
    int count = 0;
    for (const PJRT_Extension_Base *e = s->api->extension_start; e != NULL && count < 64;
         e = e->next, count++) {
        json_begin_object(&w);
        json_key(&w, "type");
        json_int(&w, (int64_t)e->type);
        json_key(&w, "name");
        json_string(&w, extension_name(e->type));
        json_end_object(&w);
    }
    json_end_array(&w);
    json_key(&w, "capabilities");
    json_begin_array(&w);
    for (size_t i = 0; i < c->n; i++) {
        json_begin_object(&w);
        json_key(&w, "name");
        json_string(&w, c->row[i].name);
        json_key(&w, "provided");
        json_bool(&w, c->row[i].provided);
        json_key(&w, "probe");
        json_string(&w, c->row[i].probe);
        json_end_object(&w);
    }
    json_end_array(&w);
    json_end_object(&w);
    json_finish(&w);
}

int cli_info(const cli_args *args) {
    cli_session s = {0};
    s.args = args;
    if (!cli_plugin_resolve(args, s.path, sizeof s.path))
        return CLI_EXIT_NO_PLUGIN;
    if (cli_plugin_load(&s) != PJDL_OK)
        return CLI_EXIT_NO_PLUGIN;
    if (cli_client_create(&s) != PJDL_OK) {
        cli_session_close(&s);
        return CLI_EXIT_NO_PLUGIN;
    }
    caps c = {0};
    collect_caps(&s, &c);
    if (args->json)
        print_json(&s, &c);
    else
        print_text(&s, &c);
    cli_session_close(&s);
    return CLI_EXIT_OK;
}
