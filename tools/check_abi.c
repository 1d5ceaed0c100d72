/* Checks of the plugin's ABI: entry symbol, version, function table,
 * extension chain, and struct_size handling of args structs. */
#include <string.h>

#include "check.h"

/* Entry points without which no DLPack exchange is possible. */
#define SLOT(name)                                                                                 \
    { #name, offsetof(PJRT_Api, name) }
static const struct {
    const char *name;
    size_t offset;
} required_slots[] = {
    SLOT(PJRT_Error_Destroy),
    SLOT(PJRT_Error_Message),
    SLOT(PJRT_Error_GetCode),
    SLOT(PJRT_Plugin_Initialize),
    SLOT(PJRT_Event_Destroy),
    SLOT(PJRT_Event_Await),
    SLOT(PJRT_Client_Create),
    SLOT(PJRT_Client_Destroy),
    SLOT(PJRT_Client_PlatformName),
    SLOT(PJRT_Client_AddressableDevices),
    SLOT(PJRT_Client_BufferFromHostBuffer),
    SLOT(PJRT_Buffer_Destroy),
    SLOT(PJRT_Buffer_ElementType),
    SLOT(PJRT_Buffer_Dimensions),
    SLOT(PJRT_Buffer_Delete),
    SLOT(PJRT_Buffer_ReadyEvent),
    SLOT(PJRT_Buffer_ToHostBuffer),
    /* export pins memory with these */
    SLOT(PJRT_Buffer_IncreaseExternalReferenceCount),
    SLOT(PJRT_Buffer_DecreaseExternalReferenceCount),
};
/* Optional: their absence makes some checks UNSUPPORTED. */
static const struct {
    const char *name;
    size_t offset;
    const char *without;
} optional_slots[] = {
    {"PJRT_Client_CreateViewOfDeviceBuffer",
     offsetof(PJRT_Api, PJRT_Client_CreateViewOfDeviceBuffer), "no zero-copy import"},
    {"PJRT_Buffer_GetMemoryLayout", offsetof(PJRT_Api, PJRT_Buffer_GetMemoryLayout),
     "export assumes row-major"},
    {"PJRT_Buffer_Memory", offsetof(PJRT_Api, PJRT_Buffer_Memory), "no memory kinds"},
    {"PJRT_Device_DefaultMemory", offsetof(PJRT_Api, PJRT_Device_DefaultMemory), "no memory kinds"},
};

void ck_abi_entry(ck_ctx *ctx, ck_result *r) {
    if (!ctx->abi.has_symbol) {
        ck_fail(r, "expected the symbol GetPjrtApi, got none exported");
        return;
    }
    if (ctx->abi.api == NULL) {
        ck_fail(r, "expected GetPjrtApi() to return a PJRT_Api table, got NULL");
        return;
    }
    if (ctx->abi.api->struct_size < offsetof(PJRT_Api, PJRT_Error_Destroy)) {
        ck_fail(r, "expected PJRT_Api.struct_size >= %zu (header and version), got %zu",
                offsetof(PJRT_Api, PJRT_Error_Destroy), ctx->abi.api->struct_size);
        return;
    }
    ck_note(r, "PJRT_Api.struct_size %zu (this build: %zu)", ctx->abi.api->struct_size,
            sizeof(PJRT_Api));
}

void ck_abi_version(ck_ctx *ctx, ck_result *r) {
    const PJRT_Api *api = ctx->abi.api;
    if (api == NULL || api->struct_size < offsetof(PJRT_Api, PJRT_Error_Destroy)) {
        ck_fail(r, "no usable PJRT_Api table to read a version from");
        return;
    }
    int major = api->pjrt_api_version.major_version;
    int minor = api->pjrt_api_version.minor_version;
    if (major != PJRT_API_MAJOR) {
        ck_fail(r, "expected ABI major version %d, got %d.%d", PJRT_API_MAJOR, major, minor);
        if (ctx->abi.load_code == PJDL_OK)
            ck_fail(r, "expected the library to refuse major %d, but it loaded the plugin", major);
        return;
    }
    if (ctx->abi.load_lost) {
        ck_note(r, "ABI %d.%d; the library's load did not finish: %s", major, minor,
                ctx->abi.load_msg);
        return;
    }
    if (ctx->abi.load_code != PJDL_OK) {
        ck_fail(r, "expected the library to load an ABI %d.%d plugin, got %s: %s", major, minor,
                pjdl_code_name(ctx->abi.load_code), ctx->abi.load_msg);
        return;
    }
    int lmaj = -1, lmin = -1;
    pjdl_plugin_abi_version(ctx->s->plugin, &lmaj, &lmin);
    if (lmaj != major || lmin != minor)
        ck_fail(r, "expected the library to report %d.%d, got %d.%d", major, minor, lmaj, lmin);
    ck_note(r, "ABI %d.%d (this build: %d.%d%s)", major, minor, PJRT_API_MAJOR, PJRT_API_MINOR,
            minor == PJRT_API_MINOR ? "" : "; a different minor is fine");
}

void ck_abi_table(ck_ctx *ctx, ck_result *r) {
    const PJRT_Api *api = ctx->abi.api;
    if (api == NULL) {
        ck_fail(r, "no PJRT_Api table");
        return;
    }
    for (size_t i = 0; i < sizeof required_slots / sizeof required_slots[0]; i++) {
        size_t off = required_slots[i].offset;
        if (api->struct_size < off + sizeof(void *))
            ck_fail(r, "expected %s inside PJRT_Api.struct_size %zu, got a table too short for it",
                    required_slots[i].name, api->struct_size);
        else if (!raw_has_slot(api, off))
            ck_fail(r, "expected %s, got NULL", required_slots[i].name);
    }
    for (size_t i = 0; i < sizeof optional_slots / sizeof optional_slots[0]; i++)
        if (!raw_has_slot(api, optional_slots[i].offset))
            ck_unsupported(r, "%s missing (%s)", optional_slots[i].name, optional_slots[i].without);
    if (ctx->abi.load_lost)
        ck_note(r, "the library's load did not finish: %s", ctx->abi.load_msg);
    else if (ctx->abi.load_code != PJDL_OK)
        ck_fail(r, "the library refused the plugin: %s (%s)", ctx->abi.load_msg,
                pjdl_code_name(ctx->abi.load_code));
    else if (pjdl_plugin_api(ctx->s->plugin)->struct_size != api->struct_size)
        ck_fail(r, "expected the library to see the same table, got struct_size %zu vs %zu",
                pjdl_plugin_api(ctx->s->plugin)->struct_size, api->struct_size);
    /* The library must agree about missing slots. */
    if (ctx->abi.load_code == PJDL_OK) {
        bool lib = pjdl_plugin_provides(ctx->s->plugin, "PJRT_Client_CreateViewOfDeviceBuffer");
        bool raw = RAW_HAS(api, PJRT_Client_CreateViewOfDeviceBuffer);
        if (lib != raw)
            ck_fail(r, "pjdl_plugin_provides(CreateViewOfDeviceBuffer): expected %d, got %d", raw,
                    lib);
    }
}

void ck_abi_extensions(ck_ctx *ctx, ck_result *r) {
    const PJRT_Api *api = ctx->abi.api;
    if (api == NULL || api->struct_size < offsetof(PJRT_Api, pjrt_api_version)) {
        ck_fail(r, "no PJRT_Api table");
        return;
    }
    const PJRT_Extension_Base *seen[64];
    size_t n = 0;
    for (const PJRT_Extension_Base *e = pjdl_api_extensions(api); e != NULL; e = e->next) {
        for (size_t i = 0; i < n; i++) {
            if (seen[i] == e) {
                ck_fail(r, "expected a NULL-terminated extension chain, got a cycle after %zu", n);
                return;
            }
        }
        if (n == 64) {
            ck_fail(r, "expected at most 64 extensions, got more");
            return;
        }
        seen[n++] = e;
        if (e->struct_size < sizeof(PJRT_Extension_Base))
            ck_fail(r, "extension %zu (type %d): expected struct_size >= %zu, got %zu", n,
                    (int)e->type, sizeof(PJRT_Extension_Base), e->struct_size);
        if (e->type == PJRT_Extension_Type_Stream) {
            const PJRT_Stream_Extension *s = (const PJRT_Stream_Extension *)e;
            if (e->struct_size < sizeof(PJRT_Stream_Extension))
                ck_fail(r, "stream extension: expected struct_size >= %zu, got %zu",
                        sizeof(PJRT_Stream_Extension), e->struct_size);
            else if (s->get_stream == NULL || s->wait_stream == NULL)
                ck_fail(r, "stream extension: expected get_stream and wait_stream, got NULL");
        }
    }
    ck_note(r, "%zu extension(s)%s", n,
            raw_stream_extension(api) ? ", stream extension present" : "");
    if (raw_stream_extension(api) == NULL)
        ck_note(r, "no stream extension: exports wait for ready events");
}

void ck_abi_args(ck_ctx *ctx, ck_result *r) {
    const PJRT_Api *api = ctx->api;
    if (!RAW_HAS(api, PJRT_Client_PlatformName)) {
        ck_fail(r, "PJRT_Client_PlatformName missing");
        return;
    }
    char msg[256];
    struct {
        PJRT_Client_PlatformName_Args a;
        char pad[64];
    } big;
    /* A newer caller passes a larger struct: that must work. It goes first,
     * so that a crash on the malformed call below is known to be that. */
    memset(&big, 0, sizeof big);
    big.a.struct_size = sizeof big;
    big.a.client = ctx->pc;
    ck_step("PJRT_Client_PlatformName with struct_size %zu (a newer caller)", sizeof big);
    pjdl_code rc = raw_take_error(api, api->PJRT_Client_PlatformName(&big.a), msg, sizeof msg);
    if (rc != PJDL_OK)
        ck_fail(r,
                "PJRT_Client_PlatformName with struct_size %zu (a newer caller): expected OK, "
                "got %s: %s",
                sizeof big, pjdl_code_name(rc), msg);
    else if (big.a.platform_name == NULL ||
             strncmp(big.a.platform_name, pjdl_client_platform_name(ctx->client),
                     big.a.platform_name_size) != 0)
        ck_fail(r, "PJRT_Client_PlatformName: expected \"%s\", got another name",
                pjdl_client_platform_name(ctx->client));
    /* A caller compiled against an older, smaller layout than the plugin
     * supports must be refused, not read past. */
    memset(&big, 0, sizeof big);
    big.a.struct_size = 1;
    big.a.client = ctx->pc;
    ck_step("PJRT_Client_PlatformName with struct_size 1");
    rc = raw_take_error(api, api->PJRT_Client_PlatformName(&big.a), msg, sizeof msg);
    if (rc == PJDL_OK)
        ck_fail(r, "PJRT_Client_PlatformName with struct_size 1: expected an error, got OK");
    else if (rc != PJDL_INVALID_ARGUMENT)
        ck_note(r, "struct_size 1 refused with %s (INVALID_ARGUMENT is usual)", pjdl_code_name(rc));
}

/* The first element type with data that ABI 0.minor does not have, or
 * INVALID when it has all this build knows. */
static PJRT_Buffer_Type first_newer_type(int minor) {
    for (int t = 1; t < 64; t++) {
        int first = pjdl_pjrt_type_minor((PJRT_Buffer_Type)t);
        if (first > minor && strcmp(pjdl_pjrt_type_name((PJRT_Buffer_Type)t), "token") != 0)
            return (PJRT_Buffer_Type)t;
    }
    return PJRT_Buffer_Type_INVALID;
}

void ck_abi_types(ck_ctx *ctx, ck_result *r) {
    int minor = ctx->abi.api->pjrt_api_version.minor_version;
    PJRT_Buffer_Type type = first_newer_type(minor);
    if (type == PJRT_Buffer_Type_INVALID) {
        ck_note(r, "ABI 0.%d has every element type of this build", minor);
        return;
    }
    const char *name = pjdl_pjrt_type_name(type);
    unsigned char data[4] = {0};
    const int64_t dims[1] = {4};
    pjdl_buffer *buf = NULL;
    pjdl_code rc = pjdl_buffer_from_host(ctx->client, data, type, dims, 1, NULL, NULL, &buf);
    if (rc != PJDL_UNIMPLEMENTED) {
        ck_fail(r,
                "%s (new in 0.%d) on an ABI 0.%d plugin: expected the library to refuse it, "
                "got %s",
                name, pjdl_pjrt_type_minor(type), minor, pjdl_code_name(rc));
        pjdl_buffer_release(buf);
        return;
    }
    /* The plugin on its own, after a well-formed call returned: a crash is
     * the plugin not refusing a type newer than its ABI. */
    char msg[512];
    float f[4] = {0};
    PJRT_Client_BufferFromHostBuffer_Args good = ck_f32_host_args(ctx, f, dims, 1);
    ck_step("BufferFromHostBuffer of f32 (well formed)");
    if (raw_buffer_from_host(ctx->api, &good, msg, sizeof msg) != PJDL_OK) {
        ck_note(r, "the library refuses %s; the plugin not asked (an f32 buffer fails: %s)", name,
                msg);
        return;
    }
    raw_buffer_destroy(ctx->api, good.buffer);
    PJRT_Client_BufferFromHostBuffer_Args a = ck_f32_host_args(ctx, f, dims, 1);
    a.type = type;
    ck_malformed("BufferFromHostBuffer of %s, a type newer than its ABI 0.%d (new in 0.%d)", name,
                 minor, pjdl_pjrt_type_minor(type));
    rc = raw_buffer_from_host(ctx->api, &a, msg, sizeof msg);
    if (rc == PJDL_OK)
        raw_buffer_destroy(ctx->api, a.buffer);
    ck_note(r, "the library refuses %s (new in 0.%d) on ABI 0.%d; the plugin on its own %s", name,
            pjdl_pjrt_type_minor(type), minor, rc == PJDL_OK ? "takes it" : "refuses it");
}
