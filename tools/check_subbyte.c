/*
 * check_subbyte.c — subbyte.storage: the plugin keeps sub-byte element
 * types as XLA does (docs/design.md, "Sub-byte types"), which is what the
 * library's DLPack exchange of them relies on, since PJRT's layouts cannot
 * say how a sub-byte buffer is stored:
 *  - the host form of BufferFromHostBuffer and ToHostBuffer is one element
 *    per byte, in its low bits;
 *  - device memory of 1-, 2- and 4-bit types is packed little-bit-endian
 *    (exported with no flag), of the 6-bit floats one element per byte
 *    (exported flagged IS_SUBBYTE_TYPE_PADDED);
 *  - the export imports back as a zero-copy view holding the same values
 *    (where the plugin has views at all).
 * A plugin that refuses every sub-byte type lacks an optional feature.
 */
#include <string.h>

#include "check.h"

#define SB_N 13 /* odd, and more than a byte of 1-bit elements */

static const struct {
    PJRT_Buffer_Type type;
    unsigned bits;
    bool packed;
} sb_types[] = {
    {PJRT_Buffer_Type_S4, 4, true},        {PJRT_Buffer_Type_U4, 4, true},
    {PJRT_Buffer_Type_S2, 2, true},        {PJRT_Buffer_Type_U2, 2, true},
    {PJRT_Buffer_Type_S1, 1, true},        {PJRT_Buffer_Type_U1, 1, true},
    {PJRT_Buffer_Type_F4E2M1FN, 4, true},  {PJRT_Buffer_Type_F6E2M3FN, 6, false},
    {PJRT_Buffer_Type_F6E3M2FN, 6, false},
};

/* The device bytes XLA keeps for `host` (one element per byte). */
static size_t sb_expected(const unsigned char *host, unsigned bits, bool packed,
                          unsigned char *out) {
    if (!packed) {
        memcpy(out, host, SB_N);
        return SB_N;
    }
    size_t bytes = (SB_N * bits + 7) / 8;
    memset(out, 0, bytes);
    for (size_t i = 0; i < SB_N; i++)
        out[i * bits / 8] |= (unsigned char)(host[i] << (i * bits % 8));
    return bytes;
}

/* The exported tensor's fields and bytes; its import back as a view. */
static void sb_verify(ck_ctx *ctx, ck_result *r, const char *name, size_t k, pjdl_buffer *buf,
                      const unsigned char *host) {
    DLManagedTensorVersioned *mt = NULL;
    pjdl_code rc = pjdl_buffer_export(buf, NULL, &mt);
    if (rc != PJDL_OK) {
        ck_fail(r, "%s: export: expected OK, got %s: %s", name, pjdl_code_name(rc),
                pjdl_last_error());
        return;
    }
    uint64_t flags = sb_types[k].packed ? 0 : DLPACK_FLAG_BITMASK_IS_SUBBYTE_TYPE_PADDED;
    if (mt->flags != flags)
        ck_fail(r, "%s: export flags: expected 0x%llx, got 0x%llx", name, (unsigned long long)flags,
                (unsigned long long)mt->flags);
    unsigned char want[SB_N], got[SB_N];
    int64_t bytes = (int64_t)sb_expected(host, sb_types[k].bits, sb_types[k].packed, want);
    char msg[512];
    rc = ck_read_memory(ctx, mt->dl_tensor.data, mt->dl_tensor.device, (DLDataType){kDLUInt, 8, 1},
                        &bytes, 1, NULL, got, (size_t)bytes, false, msg, sizeof msg);
    if (rc == PJDL_OK) {
        char what[96];
        snprintf(what, sizeof what, "%s: device memory (%s)", name,
                 sb_types[k].packed ? "packed" : "one element per byte");
        ck_expect_bytes(r, what, want, got, (size_t)bytes);
    } else {
        ck_note(r, "%s: device memory not read back: %s", name, msg);
    }
    pjdl_import_options io = PJDL_IMPORT_OPTIONS_INIT;
    io.copy = PJDL_COPY_NEVER;
    pjdl_buffer *back = NULL;
    rc = pjdl_import(&ctx->client, 1, mt, &io, &back);
    if (rc == PJDL_UNIMPLEMENTED) { /* a plugin without views: optional */
        ck_note(r, "%s: no view import: %s", name, pjdl_last_error());
        mt->deleter(mt);
        return;
    }
    if (rc != PJDL_OK) {
        ck_fail(r, "%s: import of the export as a view: expected OK, got %s: %s", name,
                pjdl_code_name(rc), pjdl_last_error());
        mt->deleter(mt);
        return;
    }
    if (pjdl_buffer_to_host(back, got, SB_N) == PJDL_OK)
        ck_expect_bytes(r, "imported view", host, got, SB_N);
    pjdl_buffer_release(back);
}

void ck_subbyte_storage(ck_ctx *ctx, ck_result *r) {
    size_t done = 0;
    for (size_t k = 0; k < sizeof sb_types / sizeof sb_types[0]; k++) {
        const char *name = pjdl_pjrt_type_name(sb_types[k].type);
        unsigned char host[SB_N], back[SB_N];
        for (size_t i = 0; i < SB_N; i++)
            host[i] = (unsigned char)((i * 5 + 3) & ((1u << sb_types[k].bits) - 1));
        const int64_t dims[1] = {SB_N};
        pjdl_buffer *buf = NULL;
        ck_step("creating a %s buffer", name);
        pjdl_code rc =
            pjdl_buffer_from_host(ctx->client, host, sb_types[k].type, dims, 1, NULL, NULL, &buf);
        if (rc == PJDL_UNIMPLEMENTED || rc == PJDL_INVALID_ARGUMENT)
            continue; /* the plugin does not hold this type */
        if (rc != PJDL_OK) {
            ck_fail(r, "%s: creating the buffer: %s: %s", name, pjdl_code_name(rc),
                    pjdl_last_error());
            continue;
        }
        done++;
        ck_step("reading a %s buffer back", name);
        rc = pjdl_buffer_to_host(buf, back, sizeof back);
        if (rc != PJDL_OK)
            ck_fail(r, "%s: ToHostBuffer: %s: %s", name, pjdl_code_name(rc), pjdl_last_error());
        else
            ck_expect_bytes(r, "host form (one element per byte)", host, back, SB_N);
        ck_step("exporting a %s buffer", name);
        sb_verify(ctx, r, name, k, buf, host);
        pjdl_buffer_release(buf);
    }
    if (done == 0)
        ck_unsupported(r, "the plugin holds no sub-byte element type");
}
