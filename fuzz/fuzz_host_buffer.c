/* libFuzzer target: the reference plugin's PJRT_Client_BufferFromHostBuffer
 * with fuzzed dims, element type, host byte strides, device layout and host
 * buffer semantics, through the raw C API (the plugin's sources are linked
 * into this target, so their coverage guides the fuzzer). The fuzzed call is
 * made here; the set-up and read-back go through the command's direct PJRT
 * calls (tools/raw.c), any failure of theirs aborting.
 *
 * Input format (missing bytes read as 0):
 *   control (1): bit 0 platform xpu (else cpu), bits 1-2 host_buffer_semantics
 *       (3 = an unknown value 7), bits 3-4 device_layout: none, tiled
 *       (minor_to_major + tiles), strides, or a too-small struct_size;
 *       bit 5 host byte strides given, bit 6 a wrong num_byte_strides,
 *       bit 7 NULL dims;
 *   type (1): PJRT_Buffer_Type = value % 40 (invalid and sub-byte included;
 *       sub-byte arrays are one element per byte on the host, compared in
 *       their low bits);
 *   ndim selector (1): < 0xF8 value % 6, else 8, 63, 64, 65, 200, ...;
 *   dims: ndim entries (fz_dim);
 *   host byte strides: ndim entries, each 1 byte: < 0xE0 (value - 0x70)
 *       elements, < 0xF0 (value - 0xE8) bytes, else an escape;
 *   layout: tiled: ndim minor_to_major bytes, then a tile count byte; strides:
 *       ndim entries as for host strides.
 *
 * The harness decides independently which metadata must be rejected
 * (unknown type or one without data, negative dimension, element count or byte size
 * overflowing, a host stride span that overflows, a wrong stride count;
 * only the element sizes are the plugin's own, common/element_type.c):
 * those calls get a tiny dummy source and must fail with INVALID_ARGUMENT or
 * UNIMPLEMENTED. Metadata it considers valid and small gets a real source
 * buffer covering exactly the strided span; an accepted buffer is read back
 * compact row-major and compared with a naive strided walk. Valid but large
 * arrays are skipped (nothing would bound the plugin's allocation). */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "element_type.h" /* common/, as the plugin: bytes per element */
#include "fuzz_reader.h"
#include "pjrt_dlpack/pjrt_abi.h"
#include "raw.h" /* tools/: the direct PJRT calls */

#define MAX_SPAN ((int64_t)1 << 18)
#define MAX_STORED 200

const PJRT_Api *GetPjrtApi(void);

static const PJRT_Api *api;
static PJRT_Client *clients[2];
static PJRT_Device *devices[2];

static void die(const char *what, const char *detail) {
    fprintf(stderr, "fuzz_host_buffer: %s %s\n", what, detail);
    abort();
}

static char msg[1024]; /* the last raw_* call's message */

/* Aborts with the message unless `rc`, a raw_* call's code, is PJDL_OK. */
static void check(pjdl_code rc, const char *what) {
    if (rc != PJDL_OK)
        die(what, msg);
}

static void setup(void) {
    api = GetPjrtApi();
    check(raw_plugin_initialize(api, msg, sizeof msg), "PJRT_Plugin_Initialize");
    static const char *const platforms[2] = {"cpu", "xpu"};
    for (int i = 0; i < 2; i++) {
        PJRT_NamedValue o = {.struct_size = PJRT_NamedValue_STRUCT_SIZE,
                             .name = "platform",
                             .name_size = 8,
                             .type = PJRT_NamedValue_kString,
                             .string_value = platforms[i],
                             .value_size = 3};
        check(raw_client_create(api, &o, 1, &clients[i], msg, sizeof msg), "PJRT_Client_Create");
        check(raw_client_device(api, clients[i], 0, &devices[i], msg, sizeof msg),
              "PJRT_Client_AddressableDevices");
    }
}

static int64_t host_stride(fz_reader *r, size_t es) {
    uint8_t b = fz_u8(r);
    if (b < 0xE0)
        return ((int64_t)b - 0x70) * (int64_t)es;
    return b < 0xF0 ? (int64_t)b - 0xE8 : fz_escape(r, b);
}

/* One input, decoded, with what the harness derives from it. */
typedef struct hb_case {
    int plat;
    PJRT_HostBufferSemantics sem;
    int layout_kind;
    bool has_strides, wrong_count, null_dims;
    PJRT_Buffer_Type type;
    size_t ndim, es;
    unsigned char mask;
    bool reject;
    uint64_t elements, nbytes;
    int64_t lo, hi;
    int64_t dims[MAX_STORED], strides[MAX_STORED], lstrides[MAX_STORED], m2m[MAX_STORED];
} hb_case;

static void decode(fz_reader *r, hb_case *c) {
    static const size_t odd_ndims[8] = {8, 63, 64, 65, 200, 0, 1, 3};
    static const PJRT_HostBufferSemantics sems[4] = {
        PJRT_HostBufferSemantics_kImmutableOnlyDuringCall,
        PJRT_HostBufferSemantics_kImmutableUntilTransferCompletes,
        PJRT_HostBufferSemantics_kImmutableZeroCopy, (PJRT_HostBufferSemantics)7};
    uint8_t ctl = fz_u8(r);
    c->plat = ctl & 1;
    c->sem = sems[(ctl >> 1) & 3];
    c->layout_kind = (ctl >> 3) & 3;
    c->has_strides = (ctl & 0x20) != 0;
    c->wrong_count = (ctl & 0x40) != 0;
    c->null_dims = (ctl & 0x80) != 0;
    c->type = (PJRT_Buffer_Type)(fz_u8(r) % 40);
    uint8_t sel = fz_u8(r);
    c->ndim = sel < 0xF8 ? sel % 6 : odd_ndims[sel - 0xF8];
    /* Bytes per element on the host, 1 for a sub-byte type (one per byte,
     * its low bits kept: `mask`); 0: the plugin must refuse the type. */
    const pjdl__element_type *info = pjdl__element_type_of(c->type);
    bool sub_byte = info != NULL && info->bits > 0 && info->bits < 8;
    c->es = sub_byte ? 1 : pjdl__element_type_size(c->type);
    c->mask = sub_byte ? (unsigned char)((1u << info->bits) - 1) : 0xff;
    for (size_t i = 0; i < c->ndim; i++)
        c->dims[i] = fz_dim(r);
    for (size_t i = 0; i < c->ndim; i++)
        c->strides[i] = host_stride(r, c->es ? c->es : 1);
}

/* What must be rejected, decided without the plugin (c->reject, and the
 * compact strides when none are given). False: valid but too large to back
 * with memory, to be skipped. */
static bool judge(hb_case *c) {
    size_t ndim = c->ndim, es = c->es;
    c->reject = es == 0 || ndim > 64 || (c->null_dims && ndim > 0) || (int)c->sem == 7 ||
                (c->has_strides && c->wrong_count);
    c->elements = 1;
    if (!c->reject && !fz_count(c->dims, ndim, &c->elements))
        c->reject = true;
    c->nbytes = c->elements;
    if (!c->reject && (fz_mul(&c->nbytes, es) || c->nbytes > (uint64_t)INT64_MAX))
        c->reject = true;
    if (!c->reject && !c->has_strides) {
        uint64_t s = es; /* wraps only for empty arrays, whose strides are unused */
        for (size_t i = ndim; i-- > 0;) {
            c->strides[i] = (int64_t)s;
            s *= c->dims[i] > 0 ? (uint64_t)c->dims[i] : 1;
        }
    }
    c->lo = c->hi = 0;
    if (!c->reject && !fz_span(c->dims, ndim, c->strides, es, &c->lo, &c->hi))
        c->reject = true;
    int64_t width;
    return c->reject || (!__builtin_sub_overflow(c->hi, c->lo, &width) && width <= MAX_SPAN &&
                         c->nbytes <= (uint64_t)MAX_SPAN);
}

/* The device layout the input asks for (none: kind 0). */
static void read_layout(fz_reader *r, hb_case *c, PJRT_Buffer_MemoryLayout *layout) {
    static const int64_t tile_dims[2] = {8, 128};
    static const size_t tile_dim_sizes[1] = {2};
    memset(layout, 0, sizeof *layout);
    layout->struct_size = PJRT_Buffer_MemoryLayout_STRUCT_SIZE;
    if (c->layout_kind == 1) {
        layout->type = PJRT_Buffer_MemoryLayout_Type_Tiled;
        layout->tiled.struct_size = PJRT_Buffer_MemoryLayout_Tiled_STRUCT_SIZE;
        for (size_t i = 0; i < c->ndim && i < MAX_STORED; i++)
            c->m2m[i] = fz_u8(r) % (c->ndim + 1);
        layout->tiled.minor_to_major = c->m2m;
        layout->tiled.minor_to_major_size = c->ndim;
        layout->tiled.num_tiles = fz_u8(r) % 3 == 2 ? 1 : 0;
        layout->tiled.tile_dims = tile_dims;
        layout->tiled.tile_dim_sizes = tile_dim_sizes;
    } else if (c->layout_kind == 2) {
        layout->type = PJRT_Buffer_MemoryLayout_Type_Strides;
        layout->strides.struct_size = PJRT_Buffer_MemoryLayout_Strides_STRUCT_SIZE;
        for (size_t i = 0; i < c->ndim; i++)
            c->lstrides[i] = host_stride(r, c->es ? c->es : 1);
        layout->strides.byte_strides = c->lstrides;
        layout->strides.num_byte_strides = c->ndim;
    } else if (c->layout_kind == 3) {
        layout->struct_size = 4;
    }
}

/* Reads the accepted buffer back compact row-major and compares it with a
 * naive strided walk of the source. */
static void compare_read_back(const hb_case *c, PJRT_Buffer *buffer, const unsigned char *src) {
    size_t ndim = c->ndim, es = c->es;
    unsigned char *out = malloc(c->nbytes ? c->nbytes : 1);
    if (out == NULL)
        abort();
    int64_t row_major[64];
    uint64_t s = es; /* unsigned: an empty array's other dims may be huge */
    for (size_t i = ndim; i-- > 0;) {
        row_major[i] = (int64_t)s;
        s *= c->dims[i] > 0 ? (uint64_t)c->dims[i] : 1;
    }
    PJRT_Buffer_MemoryLayout host_layout = {.struct_size = PJRT_Buffer_MemoryLayout_STRUCT_SIZE,
                                            .type = PJRT_Buffer_MemoryLayout_Type_Strides};
    host_layout.strides.struct_size = PJRT_Buffer_MemoryLayout_Strides_STRUCT_SIZE;
    host_layout.strides.byte_strides = row_major;
    host_layout.strides.num_byte_strides = ndim;
    PJRT_Buffer_ToHostBuffer_Args t = {
        .src = buffer, .host_layout = &host_layout, .dst = out, .dst_size = c->nbytes};
    check(raw_buffer_to_host(api, &t, msg, sizeof msg), "PJRT_Buffer_ToHostBuffer");
    /* Every element of small arrays, a spread of a few thousand otherwise. */
    uint64_t step = c->elements / 4096 + 1;
    for (uint64_t lin = 0; lin < c->elements; lin += step) {
        int64_t off = -c->lo + fz_offset(lin, c->dims, ndim, c->strides);
        if (es == 1 ? ((out[lin] ^ src[off]) & c->mask) != 0
                    : memcmp(out + lin * es, src + off, es) != 0)
            die("read-back element differs from the source", "");
    }
    free(out);
}

/* Destroys the buffer; zero-copy semantics may alias the source until the
 * storage is released: done_with_host_buffer says when it may go. */
static void finish(PJRT_Client_BufferFromHostBuffer_Args *a) {
    if (raw_buffer_destroy(api, a->buffer) != PJDL_OK)
        die("PJRT_Buffer_Destroy failed", "");
    if (a->done_with_host_buffer != NULL) {
        check(raw_event_await(api, a->done_with_host_buffer, msg, sizeof msg),
              "PJRT_Event_Await (done_with_host_buffer)");
        check(raw_event_destroy(api, a->done_with_host_buffer, msg, sizeof msg),
              "PJRT_Event_Destroy (done_with_host_buffer)");
    }
}

/* libFuzzer's entry point (it declares none for C). */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (api == NULL)
        setup();
    fz_reader r = {data, size};
    static hb_case c; /* large: not on the stack */
    decode(&r, &c);
    if (!judge(&c))
        return 0; /* valid but too large to back with memory */
    PJRT_Buffer_MemoryLayout layout;
    read_layout(&r, &c, &layout);
    static _Alignas(64) unsigned char dummy[64];
    unsigned char *src = NULL;
    const void *host = dummy;
    if (!c.reject && c.hi > c.lo) {
        src = malloc((size_t)(c.hi - c.lo));
        if (src == NULL)
            abort();
        for (int64_t i = 0; i < c.hi - c.lo; i++)
            src[i] = (unsigned char)(i * 13 + 5);
        host = src - c.lo;
    }
    PJRT_Client_BufferFromHostBuffer_Args a = {
        .struct_size = PJRT_Client_BufferFromHostBuffer_Args_STRUCT_SIZE,
        .client = clients[c.plat],
        .data = host,
        .type = c.type,
        .dims = c.null_dims ? NULL : c.dims,
        .num_dims = c.ndim,
        .byte_strides = c.has_strides ? c.strides : NULL,
        .num_byte_strides = c.has_strides ? (c.wrong_count ? c.ndim + 1 : c.ndim) : 0,
        .host_buffer_semantics = c.sem,
        .device = devices[c.plat],
        .device_layout = c.layout_kind ? &layout : NULL};
    pjdl_code code =
        raw_take_error(api, api->PJRT_Client_BufferFromHostBuffer(&a), msg, sizeof msg);
    if (code != PJDL_OK) {
        if (code != PJDL_INVALID_ARGUMENT && code != PJDL_UNIMPLEMENTED)
            die("unexpected error code", msg);
        free(src);
        return 0;
    }
    if (c.reject)
        die("accepted metadata that must be rejected", "");
    compare_read_back(&c, a.buffer, src);
    finish(&a);
    free(src);
    return 0;
}
