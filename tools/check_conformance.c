/* export.fields: the DLPack 1.3 fields of what a plugin's buffers export as,
 * on every device and memory (docs/conformance.md has the clauses). Most
 * fields are written by the library; what the plugin decides, and this check
 * is there to catch, is the data pointer (its alignment) and the device
 * (memory kinds and hardware ids): two devices that export the same
 * DLDevice cannot be told apart by any consumer, which would then read or
 * place data on the wrong one. */
#include <inttypes.h>
#include <string.h>

#include "check.h"

#define MAX_DEVICES 16

/* The largest power of two dividing `addr`, at most 4096. */
static size_t alignment_of(uintptr_t addr) {
    size_t a = 1;
    while (a < 4096 && addr % (a * 2) == 0)
        a *= 2;
    return a;
}

typedef struct seen {
    DLDevice dl[MAX_DEVICES]; /* device memory's DLDevice per device */
    bool has[MAX_DEVICES];
    size_t exports;
    size_t min_align;
} seen;

/* The fields of one versioned and one legacy export of a [4, 8] f32 buffer. */
static void check_one(ck_result *r, const char *what, pjdl_buffer *b, seen *s, size_t dev_index) {
    DLManagedTensorVersioned *t = NULL;
    pjdl_code rc = pjdl_buffer_export(b, NULL, &t);
    if (rc != PJDL_OK) {
        ck_fail(r, "%s: export: expected OK, got %s: %s", what, pjdl_code_name(rc),
                pjdl_last_error());
        return;
    }
    s->exports++;
    const DLTensor *d = &t->dl_tensor;
    if (t->version.major != DLPACK_MAJOR_VERSION || t->version.minor != DLPACK_MINOR_VERSION)
        ck_fail(r, "%s: expected DLPack version %d.%d, got %u.%u", what, DLPACK_MAJOR_VERSION,
                DLPACK_MINOR_VERSION, t->version.major, t->version.minor);
    if (t->flags != 0)
        ck_fail(r, "%s: a zero-copy, writable export: expected flags 0, got 0x%" PRIx64, what,
                t->flags);
    if (d->ndim != 2 || d->shape == NULL || d->strides == NULL)
        ck_fail(r,
                "%s: expected ndim 2 with shape and strides (never NULL since DLPack 1.2), "
                "got ndim %d, shape %s, strides %s",
                what, d->ndim, d->shape ? "set" : "NULL", d->strides ? "set" : "NULL");
    if (d->byte_offset != 0)
        ck_fail(r,
                "%s: expected byte_offset 0 (the data pointer is the first element), got %" PRIu64,
                what, d->byte_offset);
    uintptr_t addr = (uintptr_t)d->data;
    if (addr == 0)
        ck_fail(r, "%s: expected a data pointer, got NULL for 128 bytes", what);
    else if (addr % sizeof(float) != 0)
        ck_fail(r, "%s: data %p is not aligned to its element size (4 bytes)", what, d->data);
    else if (alignment_of(addr) < s->min_align)
        s->min_align = alignment_of(addr);
    DLDevice dl = d->device;
    if (pjdl_dl_device_type_host_reachable(dl.device_type)) {
        if (dl.device_id != 0)
            ck_fail(r, "%s: host memory (%s) must have device_id 0, got %d", what,
                    pjdl_dl_device_type_name(dl.device_type), (int)dl.device_id);
    } else if (dl.device_id < 0) {
        ck_fail(r, "%s: expected a device_id >= 0, got %d", what, (int)dl.device_id);
    } else if (dev_index < MAX_DEVICES) {
        for (size_t j = 0; j < MAX_DEVICES; j++)
            if (j != dev_index && s->has[j] && s->dl[j].device_type == dl.device_type &&
                s->dl[j].device_id == dl.device_id)
                ck_fail(r,
                        "%s: device %zu exports DLDevice %s:%d like device %zu: a consumer "
                        "cannot tell them apart (PJRT_Device_LocalHardwareId)",
                        what, dev_index, pjdl_dl_device_type_name(dl.device_type),
                        (int)dl.device_id, j);
        s->dl[dev_index] = dl;
        s->has[dev_index] = true;
    }
    void *data = d->data; /* d goes with t */
    t->deleter(t);

    DLManagedTensor *l = NULL;
    rc = pjdl_buffer_export_legacy(b, NULL, &l);
    if (rc != PJDL_OK) {
        ck_fail(r, "%s: legacy export: expected OK, got %s: %s", what, pjdl_code_name(rc),
                pjdl_last_error());
        return;
    }
    if (l->dl_tensor.strides == NULL || l->dl_tensor.byte_offset != 0 || l->dl_tensor.data != data)
        ck_fail(r, "%s: the legacy export differs: strides %s, byte_offset %" PRIu64, what,
                l->dl_tensor.strides ? "set" : "NULL", l->dl_tensor.byte_offset);
    l->deleter(l);
}

void ck_export_fields(ck_ctx *ctx, ck_result *r) {
    static const float data[32] = {1, 2, 3, 4, 5, 6, 7, 8};
    const int64_t dims[2] = {4, 8};
    seen s = {.min_align = 4096};
    size_t nd = pjdl_client_device_count(ctx->client), skipped = 0;
    if (nd > MAX_DEVICES)
        nd = MAX_DEVICES;
    for (size_t i = 0; i < nd; i++) {
        pjdl_device *dev = pjdl_client_device(ctx->client, i);
        for (size_t m = 0; m < pjdl_device_memory_count(dev); m++) {
            pjdl_memory *mem = pjdl_device_memory(dev, m);
            bool is_default = mem == pjdl_device_default_memory(dev);
            char what[160];
            snprintf(what, sizeof what, "device %zu, memory %s", i, pjdl_memory_kind(mem));
            ck_step("%s: creating a buffer", what);
            pjdl_buffer *b = NULL;
            pjdl_code rc = pjdl_buffer_from_host(ctx->client, data, PJRT_Buffer_Type_F32, dims, 2,
                                                 NULL, mem, &b);
            if (rc == PJDL_OK)
                rc = pjdl_buffer_await(b);
            if (rc != PJDL_OK) {
                /* A memory the plugin cannot put host data in is not an
                 * export question; the default memory must work. */
                if (is_default)
                    ck_fail(r, "%s: creating a buffer: %s: %s", what, pjdl_code_name(rc),
                            pjdl_last_error());
                else
                    skipped++;
                pjdl_buffer_release(b);
                continue;
            }
            ck_step("%s: exporting", what);
            check_one(r, what, b, &s, is_default ? i : MAX_DEVICES);
            pjdl_buffer_release(b);
        }
    }
    if (r->failures == 0)
        ck_note(r,
                "%zu exports on %zu device(s): DLPack %d.%d, flags 0, strides set, byte_offset "
                "0, host memory device_id 0, device ids distinct; data aligned to >= %zu bytes "
                "(dlpack.h asks 256, consumers do not rely on it)%s",
                s.exports, nd, DLPACK_MAJOR_VERSION, DLPACK_MINOR_VERSION, s.min_align,
                skipped ? "; memories that take no host data skipped" : "");
}
