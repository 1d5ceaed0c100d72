/* libFuzzer target: DLPack import through the real library path,
 * pjdl_import / pjdl_import_legacy on the reference plugin's cpu client,
 * with tensor metadata built from the fuzzer's bytes. The library's and the
 * plugin's sources are linked into this target (the plugin through
 * pjdl_plugin_from_api), so both guide the fuzzer.
 *
 * Input format (missing bytes read as 0):
 *   control (1): bit 0 legacy DLManagedTensor, bits 1-2 copy (IF_NEEDED,
 *       NEVER, ALWAYS, an unknown value), bit 3 READ_ONLY, bit 4 IS_COPIED,
 *       bit 5 IS_SUBBYTE_TYPE_PADDED, bit 6 a wrong DLPack major version,
 *       bit 7 NULL shape;
 *   device (1): < 0xE0 kDLCPU device 0; else device type = value - 0xE0
 *       (0..31, kDLCPU with device id 1 for 1);
 *   ndim selector (1): < 0xF8 value % 6, else -1, 64, 65, 127, INT32_MIN, 7,
 *       100, 2;
 *   dtype: code (1), bits (1), lanes (1: 0 -> 1, 1..3 as is, else value);
 *   strides control (1): bit 0 NULL strides, bit 1 raw byte_offset (8 bytes
 *       follow), else byte_offset = next byte % 64; bits 2-3: data NULL,
 *       data misaligned by one byte;
 *   shape: ndim entries (fz_dim); strides: ndim entries, 1 byte each:
 *       < 0xF0 value - 0x70 elements, else an escape.
 *
 * The harness works out by itself what must be rejected (ndim out of range,
 * NULL shape, a negative dimension, an element count that overflows, bits or
 * lanes 0, a device the cpu client has not, another DLPack major version)
 * and gives those a tiny dummy buffer; otherwise it
 * allocates exactly the bytes the strides reach and places the data so that
 * the lowest byte touched is the allocation's first (AddressSanitizer then
 * catches any read outside the tensor). On success the buffer's contents
 * are read back and compared with a naive strided walk; after release the
 * deleter must have run exactly once. Sub-byte dtypes (bits 1..7) are one
 * element per byte when flagged padded, else packed (element i at bit
 * i * bits, negative strides not described), and compared in their low
 * bits with the buffer's host form. On failure the deleter must not have
 * run, the code must be INVALID_ARGUMENT, UNIMPLEMENTED or NOT_FOUND and the
 * message not empty. Any violation aborts. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz_reader.h"
#include "pjrt_dlpack.h"

#define MAX_SPAN ((int64_t)1 << 18)
#define MAX_STORED 130

const PJRT_Api *GetPjrtApi(void);

static pjdl_client *client;
static int deleted; /* deleter calls of the current input */

static void fail(const char *what) {
    fprintf(stderr, "fuzz_import: %s (last error: %s)\n", what, pjdl_last_error());
    abort();
}

static void setup(void) {
    pjdl_plugin *plugin = NULL;
    if (pjdl_plugin_from_api(GetPjrtApi(), &plugin) != PJDL_OK)
        fail("pjdl_plugin_from_api");
    pjdl_option opt = {.name = "platform", .type = PJDL_OPTION_STRING};
    opt.value.string_value = "cpu";
    if (pjdl_client_create(plugin, &opt, 1, &client) != PJDL_OK)
        fail("pjdl_client_create");
    pjdl_plugin_release(plugin); /* the client keeps it */
}

static void deleter_v(DLManagedTensorVersioned *self) {
    (void)self;
    __atomic_fetch_add(&deleted, 1, __ATOMIC_SEQ_CST);
}

static void deleter_l(DLManagedTensor *self) {
    (void)self;
    __atomic_fetch_add(&deleted, 1, __ATOMIC_SEQ_CST);
}

static int64_t stride(fz_reader *r) {
    uint8_t b = fz_u8(r);
    return b < 0xF0 ? (int64_t)b - 0x70 : fz_escape(r, b);
}

/* The element size in bytes of a dtype the harness understands (0 if not). */
static size_t elem_bytes(DLDataType d) {
    if (d.lanes == 1 && d.bits > 0 && d.bits < 8)
        return 1; /* sub-byte: counted in elements, one per byte on the host */
    unsigned bits = (unsigned)d.bits * d.lanes;
    return bits == 0 || bits % 8 ? 0 : bits / 8;
}

/* Reads the buffer back and compares it with the source, element by element. */
/* Element `off` of a tensor: its bytes, or for a sub-byte dtype of `bits`
 * bits its value (packed or not) in the low bits of one byte. */
static const unsigned char *element_at(const unsigned char *base, int64_t off, unsigned bits,
                                       bool packed, unsigned char *tmp) {
    if (bits == 0)
        return base + off;
    unsigned v = packed
                     ? (unsigned)base[off * bits / 8] |
                           (off * bits % 8 + bits > 8 ? (unsigned)base[off * bits / 8 + 1] << 8 : 0)
                     : base[off];
    *tmp = (unsigned char)((packed ? v >> (off * bits % 8) : v) & ((1u << bits) - 1));
    return tmp;
}

static void compare(pjdl_buffer *buf, const unsigned char *base, const int64_t *shape, int32_t n,
                    const int64_t *byte_strides, size_t es, uint64_t elements, unsigned bits,
                    bool packed) {
    uint64_t nbytes = elements * es;
    if (pjdl_buffer_size_bytes(buf) != nbytes)
        fail("the buffer's size differs from the tensor's");
    if (pjdl_buffer_ndim(buf) != (size_t)n)
        fail("the buffer's rank differs from the tensor's");
    if (n > 0 && memcmp(pjdl_buffer_dims(buf), shape, (size_t)n * sizeof *shape) != 0)
        fail("the buffer's dims differ from the tensor's shape");
    unsigned char *out = malloc(nbytes ? nbytes : 1);
    if (out == NULL)
        abort();
    if (pjdl_buffer_to_host(buf, out, nbytes) != PJDL_OK)
        fail("pjdl_buffer_to_host on an imported buffer");
    /* Every element of small tensors, a spread of a few thousand otherwise. */
    uint64_t step = elements / 4096 + 1;
    for (uint64_t lin = 0; lin < elements; lin += step) {
        int64_t off = fz_offset(lin, shape, (size_t)n, byte_strides);
        unsigned char want, got;
        const unsigned char *w = element_at(base, off, bits, packed, &want);
        const unsigned char *g =
            bits ? element_at(out, (int64_t)lin, bits, false, &got) : out + lin * es;
        if (memcmp(g, w, es) != 0)
            fail("imported element differs from the source");
    }
    free(out);
}

/* One input, decoded, with what the harness derives from it. */
typedef struct im_case {
    bool legacy, bad_version, null_shape, null_strides, null_data, misaligned;
    pjdl_copy copy;
    uint64_t flags, byte_offset;
    DLDevice device;
    int32_t ndim;
    DLDataType dtype;
    bool reject, packed, backed;
    unsigned sub_bits;
    size_t es;
    uint64_t elements;
    int64_t lo, hi;
    int64_t shape[MAX_STORED], strides[MAX_STORED], byte_strides[MAX_STORED];
} im_case;

static void decode(fz_reader *r, im_case *c) {
    static const int32_t odd_ndims[8] = {-1, 64, 65, 127, INT32_MIN, 7, 100, 2};
    static const pjdl_copy copies[4] = {PJDL_COPY_IF_NEEDED, PJDL_COPY_NEVER, PJDL_COPY_ALWAYS,
                                        (pjdl_copy)7};
    uint8_t ctl = fz_u8(r);
    c->legacy = ctl & 1;
    c->copy = copies[(ctl >> 1) & 3];
    c->flags = 0;
    if (ctl & 0x08)
        c->flags |= DLPACK_FLAG_BITMASK_READ_ONLY;
    if (ctl & 0x10)
        c->flags |= DLPACK_FLAG_BITMASK_IS_COPIED;
    if (ctl & 0x20)
        c->flags |= DLPACK_FLAG_BITMASK_IS_SUBBYTE_TYPE_PADDED;
    c->bad_version = (ctl & 0x40) != 0;
    c->null_shape = (ctl & 0x80) != 0;
    uint8_t dev = fz_u8(r);
    c->device = (DLDevice){kDLCPU, 0};
    if (dev >= 0xE0) {
        c->device.device_type = (DLDeviceType)(dev - 0xE0);
        c->device.device_id = dev == 0xE1 ? 1 : 0;
    }
    uint8_t sel = fz_u8(r);
    c->ndim = sel < 0xF8 ? sel % 6 : odd_ndims[sel - 0xF8];
    c->dtype.code = fz_u8(r);
    c->dtype.bits = fz_u8(r);
    uint8_t lanes = fz_u8(r);
    c->dtype.lanes = lanes == 0 ? 1 : lanes;
    uint8_t sctl = fz_u8(r);
    c->null_strides = sctl & 1;
    c->byte_offset = (sctl & 2) ? fz_u64(r) : fz_u8(r) % 64;
    c->null_data = (sctl >> 2 & 3) == 1;
    c->misaligned = (sctl >> 2 & 3) == 2;
    int32_t stored = c->ndim < 0 ? 0 : c->ndim > MAX_STORED ? MAX_STORED : c->ndim;
    for (int32_t i = 0; i < stored; i++)
        c->shape[i] = fz_dim(r);
    for (int32_t i = 0; i < stored; i++)
        c->strides[i] = stride(r);
}

/* The byte strides of the memory the metadata describes and its span
 * [lo, hi) (c->backed: memory of at most MAX_SPAN bytes can stand behind
 * it). */
static void describe_memory(im_case *c) {
    int32_t ndim = c->ndim;
    size_t es = c->es;
    bool ok = true;
    for (int32_t i = 0; i < ndim; i++) {
        int64_t s = 1;
        if (c->elements == 0)
            s = 0; /* unused */
        else if (!c->null_strides)
            s = c->strides[i];
        else
            for (int32_t k = i + 1; k < ndim; k++)
                s *= c->shape[k]; /* bounded: the element count fits */
        if (__builtin_mul_overflow(s, (int64_t)es, &c->byte_strides[i]))
            ok = false;
    }
    int64_t width;
    c->backed = ok && fz_span(c->shape, (size_t)ndim, c->byte_strides, es, &c->lo, &c->hi) &&
                !__builtin_sub_overflow(c->hi, c->lo, &width) && width <= MAX_SPAN &&
                (!c->packed || c->lo == 0);
    /* [0, hi) elements: the bytes their bits reach (only when backed: hi is
     * then at most MAX_SPAN; otherwise unused, and may be anything). */
    if (c->backed && c->packed)
        c->hi = (c->hi * c->sub_bits + 7) / 8;
}

/* What must be rejected, decided without the library (c->reject), and
 * whether memory can back the tensor. False: plausible but too large (or
 * unrepresentable) to back, to be skipped. */
static bool judge(im_case *c) {
    int32_t ndim = c->ndim;
    DLDataType dtype = c->dtype;
    c->reject = ndim < 0 || ndim > 64 || (c->null_shape && ndim > 0) || dtype.bits == 0 ||
                (c->bad_version && !c->legacy) || c->device.device_type != kDLCPU ||
                (int)c->copy == 7;
    c->sub_bits = dtype.lanes == 1 && dtype.bits < 8 ? dtype.bits : 0;
    c->packed =
        c->sub_bits && (c->legacy || !(c->flags & DLPACK_FLAG_BITMASK_IS_SUBBYTE_TYPE_PADDED));
    /* kDLCPU with any device_id is host memory (dlpack.h gives it id 0, and
     * the library accepts the others as the host): not a reason to refuse. */
    c->elements = 1;
    if (!c->reject && !fz_count(c->shape, (size_t)ndim, &c->elements))
        c->reject = true;
    c->es = elem_bytes(dtype);
    if (!c->reject && c->null_data && c->elements > 0)
        c->reject = true; /* no memory behind a non-empty tensor */
    uint64_t nbytes = c->elements;
    c->lo = c->hi = 0;
    c->backed = false;
    if (!c->reject && c->es != 0 && !fz_mul(&nbytes, c->es) && nbytes <= (uint64_t)MAX_SPAN &&
        c->byte_offset <= (uint64_t)MAX_SPAN)
        describe_memory(c);
    return c->reject || c->backed || c->es == 0;
}

/* The import of a tensor the library accepted: the deleter's count, the
 * values, and the deleter exactly once after the release. */
static void check_accepted(const im_case *c, pjdl_buffer *buf, const unsigned char *base) {
    if (c->reject)
        fail("accepted a tensor that must be rejected");
    if (!c->backed)
        fail("accepted a tensor whose memory the harness could not describe");
    if (__atomic_load_n(&deleted, __ATOMIC_SEQ_CST) > 1)
        fail("the deleter ran more than once during import");
    /* PyTorch's float4_e2m1fn_x2 (fp4, 2 lanes) becomes F4E2M1FN with its
     * last dimension doubled: the buffer is not the tensor's shape, so its
     * values are left to test_conformance's import_float4_pairs; memory
     * safety, refusals and the deleter are still checked here. */
    DLDataType d = c->dtype;
    bool fp4_pairs = d.code == kDLFloat4_e2m1fn && d.bits == 4 && d.lanes == 2;
    if (!fp4_pairs)
        compare(buf, base, c->shape, c->ndim, c->byte_strides, c->es, c->elements, c->sub_bits,
                c->packed);
    pjdl_buffer_release(buf);
    /* The deleter may come from a plugin thread once PJRT lets go. */
    for (int i = 0; i < 2000 && __atomic_load_n(&deleted, __ATOMIC_SEQ_CST) == 0; i++)
        usleep(500);
    if (__atomic_load_n(&deleted, __ATOMIC_SEQ_CST) != 1)
        fail("the deleter did not run exactly once after release");
}

/* libFuzzer's entry point (it declares none for C). */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (client == NULL)
        setup();
    fz_reader r = {data, size};
    static im_case c; /* large: not on the stack */
    decode(&r, &c);
    if (!judge(&c))
        return 0; /* plausible but too large (or unrepresentable) to back */
    static _Alignas(64) unsigned char dummy[64];
    unsigned char *storage = NULL, *base = NULL;
    void *tensor_data = c.null_data ? NULL : dummy;
    if (c.backed && c.hi > c.lo && !c.null_data) {
        int64_t skew = c.misaligned ? 1 : 0;
        storage = malloc((size_t)(c.hi - c.lo) + 1);
        if (storage == NULL)
            abort();
        base = storage + skew - c.lo; /* element 0 */
        for (int64_t i = 0; i < c.hi - c.lo; i++)
            storage[i + skew] = (unsigned char)(i * 29 + 3);
        tensor_data = base - c.byte_offset;
    }
    DLTensor t = {.data = tensor_data,
                  .device = c.device,
                  .ndim = c.ndim,
                  .dtype = c.dtype,
                  .shape = c.null_shape ? NULL : c.shape,
                  .strides = c.null_strides ? NULL : c.strides,
                  .byte_offset = c.byte_offset};
    DLManagedTensorVersioned v = {.version = {c.bad_version ? 2 : DLPACK_MAJOR_VERSION, 0},
                                  .deleter = deleter_v,
                                  .flags = c.flags,
                                  .dl_tensor = t};
    DLManagedTensor l = {.dl_tensor = t, .deleter = deleter_l};
    pjdl_import_options o = PJDL_IMPORT_OPTIONS_INIT;
    o.copy = c.copy;
    pjdl_buffer *buf = NULL;
    deleted = 0;
    pjdl_code code = c.legacy ? pjdl_import_legacy(&client, 1, &l, &o, &buf)
                              : pjdl_import(&client, 1, &v, &o, &buf);
    if (code == PJDL_OK) {
        check_accepted(&c, buf, base);
    } else {
        if (__atomic_load_n(&deleted, __ATOMIC_SEQ_CST) != 0)
            fail("the deleter ran on a failed import");
        if (code != PJDL_INVALID_ARGUMENT && code != PJDL_UNIMPLEMENTED && code != PJDL_NOT_FOUND)
            fail("unexpected error code");
        if (pjdl_last_error()[0] == '\0')
            fail("error without a message");
    }
    free(storage);
    return 0;
}
