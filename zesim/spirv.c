/*
 * ze_sim: a reader of the few SPIR-V facts ze_sim needs (spirv.h), from the
 * public SPIR-V specification: the header, then instructions of
 * (word count << 16 | opcode). Every length and id is checked against the
 * module's size and bound, so a malformed module is refused, never read
 * past. Ids are looked up in a table of one word per id (the header's
 * bound, which real modules keep below their size in words).
 */
#include "spirv.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ZS_SPIRV_MAGIC 0x07230203u

enum {
    ZS_OP_EXTENSION = 10,
    ZS_OP_ENTRY_POINT = 15,
    ZS_OP_EXECUTION_MODE = 16,
    ZS_OP_CAPABILITY = 17,
    ZS_OP_TYPE_BOOL = 20,
    ZS_OP_TYPE_INT = 21,
    ZS_OP_TYPE_FLOAT = 22,
    ZS_OP_TYPE_POINTER = 32,
    ZS_OP_SPEC_CONSTANT_TRUE = 48,
    ZS_OP_SPEC_CONSTANT_FALSE = 49,
    ZS_OP_SPEC_CONSTANT = 50,
    ZS_OP_FUNCTION = 54,
    ZS_OP_FUNCTION_PARAMETER = 55,
    ZS_OP_FUNCTION_END = 56,
    ZS_OP_DECORATE = 71,
    ZS_OP_EXECUTION_MODE_ID = 331,
    ZS_OP_SHUFFLE_DOWN = 348, /* OpGroupNonUniformShuffleDown */
    ZS_OP_SUBGROUP_SHUFFLE_DOWN_INTEL = 5572,
};
enum { ZS_CAPABILITY_SUBGROUP_SHUFFLE_INTEL = 5568 };
enum { ZS_MODEL_KERNEL = 6 };
enum { ZS_MODE_SUBGROUP_SIZE = 35 };
enum {
    ZS_DECORATION_SPEC_ID = 1,
    ZS_DECORATION_BUILT_IN = 11,
    ZS_DECORATION_LINKAGE = 41,
    ZS_LINKAGE_IMPORT = 1,
};
enum { ZS_STORAGE_WORKGROUP = 4, ZS_STORAGE_FUNCTION = 7 };

/* What the table records of an id: a pointer type and its storage class,
 * or a scalar type and its size in bytes; whether it is a built-in, or
 * imported (a built-in variable is declared imported, and is no import). */
#define ZS_FACT_POINTER 0x80000000u
#define ZS_FACT_BUILT_IN 0x40000000u
#define ZS_FACT_IMPORT 0x20000000u
#define ZS_FACT_VALUE 0x0fffffffu

struct zs_reader {
    const unsigned char *code;
    size_t words;
    bool swap;
    uint32_t bound;
    uint32_t *facts;
    uint32_t *spec_targets; /* (target id, spec id) pairs from OpDecorate */
    uint32_t num_spec_targets;
    uint32_t function; /* the function whose parameters are being read */
    struct zs_spirv *out;
    char *why;
    size_t why_size;
};

static uint32_t zs_word(const struct zs_reader *r, size_t i) {
    uint32_t w;
    memcpy(&w, r->code + 4 * i, 4);
    return r->swap ? __builtin_bswap32(w) : w;
}

/* The ids an instruction defines and uses must lie below the bound. */
static bool zs_id_ok(const struct zs_reader *r, uint32_t id) {
    return id > 0 && id < r->bound;
}

static int zs_fail(struct zs_reader *r, const char *what) {
    snprintf(r->why, r->why_size, "not a SPIR-V module ze_sim can read: %s", what);
    return -1;
}

/* The literal string starting at word i of an instruction ending before
 * word end, copied into a new string; *next is the word after it. */
static char *zs_string(const struct zs_reader *r, size_t i, size_t end, size_t *next) {
    size_t n = 0, cap = (end - i) * 4;
    char *s = malloc(cap + 1);
    if (!s)
        return NULL;
    for (size_t k = i; k < end; k++) {
        uint32_t w = zs_word(r, k);
        for (int b = 0; b < 4; b++) {
            char c = (char)((w >> (8 * b)) & 0xff);
            if (!c) {
                s[n] = '\0';
                *next = k + 1;
                return s;
            }
            s[n++] = c;
        }
    }
    free(s);
    return NULL; /* not terminated inside the instruction */
}

static int zs_entry_point(struct zs_reader *r, size_t at, size_t count) {
    if (count < 4)
        return zs_fail(r, "a short OpEntryPoint");
    if (zs_word(r, at + 1) != ZS_MODEL_KERNEL)
        return 0;
    struct zs_spirv *s = r->out;
    struct zs_spirv_kernel *grown = realloc(s->kernels, (s->num_kernels + 1) * sizeof *grown);
    if (!grown)
        return zs_fail(r, "out of memory");
    s->kernels = grown;
    struct zs_spirv_kernel *k = &s->kernels[s->num_kernels];
    memset(k, 0, sizeof *k);
    k->function = zs_word(r, at + 2);
    s->modes_end = at + count;
    size_t next = 0;
    if (!(k->name = zs_string(r, at + 3, at + count, &next)))
        return zs_fail(r, "an entry point's name is not a string");
    s->num_kernels++;
    return 0;
}

static int zs_decorate(struct zs_reader *r, size_t at, size_t count) {
    if (count < 3)
        return zs_fail(r, "a short OpDecorate");
    uint32_t target = zs_word(r, at + 1), decoration = zs_word(r, at + 2);
    if (!zs_id_ok(r, target))
        return zs_fail(r, "a decoration of an id beyond the bound");
    if (decoration == ZS_DECORATION_BUILT_IN)
        r->facts[target] |= ZS_FACT_BUILT_IN;
    if (decoration == ZS_DECORATION_LINKAGE && count >= 5 &&
        zs_word(r, at + count - 1) == ZS_LINKAGE_IMPORT)
        r->facts[target] |= ZS_FACT_IMPORT;
    if (decoration != ZS_DECORATION_SPEC_ID || count < 4)
        return 0;
    uint32_t *grown = realloc(r->spec_targets, (r->num_spec_targets + 1) * 2 * sizeof *grown);
    if (!grown)
        return zs_fail(r, "out of memory");
    r->spec_targets = grown;
    grown[2 * r->num_spec_targets] = target;
    grown[2 * r->num_spec_targets + 1] = zs_word(r, at + 3);
    r->num_spec_targets++;
    return 0;
}

static int zs_execution_mode(struct zs_reader *r, size_t at, size_t count) {
    if (count < 3)
        return zs_fail(r, "a short OpExecutionMode");
    r->out->modes_end = at + count;
    if (zs_word(r, at + 2) != ZS_MODE_SUBGROUP_SIZE || count < 4)
        return 0;
    for (uint32_t i = 0; i < r->out->num_kernels; i++) {
        if (r->out->kernels[i].function == zs_word(r, at + 1))
            r->out->kernels[i].subgroup_size = zs_word(r, at + 3);
    }
    return 0;
}

static int zs_spec_constant(struct zs_reader *r, uint32_t type, uint32_t id) {
    for (uint32_t i = 0; i < r->num_spec_targets; i++) {
        if (r->spec_targets[2 * i] != id)
            continue;
        struct zs_spirv *s = r->out;
        struct zs_spirv_spec *grown = realloc(s->specs, (s->num_specs + 1) * sizeof *grown);
        if (!grown)
            return zs_fail(r, "out of memory");
        s->specs = grown;
        uint32_t size = r->facts[type] & ZS_FACT_POINTER ? 8 : r->facts[type] & ZS_FACT_VALUE;
        s->specs[s->num_specs++] = (struct zs_spirv_spec){r->spec_targets[2 * i + 1], size};
    }
    return 0;
}

/* A parameter of the function being read, for every kernel it serves. */
static int zs_parameter(struct zs_reader *r, uint32_t type) {
    uint32_t fact = r->facts[type];
    enum zs_arg_kind kind = ZS_ARG_VALUE;
    if (fact & ZS_FACT_POINTER) {
        uint32_t storage = fact & ZS_FACT_VALUE;
        kind = storage == ZS_STORAGE_WORKGROUP  ? ZS_ARG_LOCAL
               : storage == ZS_STORAGE_FUNCTION ? ZS_ARG_VALUE /* ByVal */
                                                : ZS_ARG_POINTER;
    }
    struct zs_spirv *s = r->out;
    for (uint32_t i = 0; i < s->num_kernels; i++) {
        struct zs_spirv_kernel *k = &s->kernels[i];
        if (k->function != r->function)
            continue;
        enum zs_arg_kind *grown = realloc(k->args, (k->num_args + 1) * sizeof *grown);
        if (grown)
            k->args = grown;
        uint32_t *sizes = grown ? realloc(k->sizes, (k->num_args + 1) * sizeof *sizes) : NULL;
        if (!sizes)
            return zs_fail(r, "out of memory");
        k->sizes = sizes;
        k->sizes[k->num_args] = fact & ZS_FACT_POINTER ? 0 : fact & ZS_FACT_VALUE;
        k->args[k->num_args++] = kind;
    }
    return 0;
}

/* The opcodes SPIR-V's core grammar assigns (1.6, in ranges), and the span
 * extensions' opcodes are assigned from. Intel's CPU compiler crashes on an
 * opcode it does not know (in its SPIR-V reader, SPIRVEntry::setModule), so
 * ze_sim refuses the unassigned ones of the core; an unassigned opcode in
 * the extensions' span still reaches it (ze_sim does not validate modules
 * in full: zesim/README.md). */
static const uint16_t zs_core_opcodes[][2] = {
    {0, 8},     {10, 12},   {14, 17},   {19, 39},   {41, 46},   {48, 52},   {54, 57},   {59, 75},
    {77, 84},   {86, 107},  {109, 124}, {126, 152}, {154, 191}, {194, 205}, {207, 215}, {218, 221},
    {224, 225}, {227, 242}, {245, 257}, {259, 271}, {274, 288}, {291, 366}, {400, 403},
};
#define ZS_EXTENSION_OPCODES_FIRST 4096
#define ZS_EXTENSION_OPCODES_END 7168

static bool zs_opcode_known(uint32_t op) {
    if (op >= ZS_EXTENSION_OPCODES_FIRST)
        return op < ZS_EXTENSION_OPCODES_END;
    for (size_t i = 0; i < sizeof zs_core_opcodes / sizeof zs_core_opcodes[0]; i++) {
        if (op >= zs_core_opcodes[i][0] && op <= zs_core_opcodes[i][1])
            return true;
    }
    return false;
}

static int zs_step(struct zs_reader *r, size_t at, size_t count, uint32_t op) {
    if (!zs_opcode_known(op))
        return zs_fail(r, "an opcode SPIR-V does not define");
    uint32_t a = count > 1 ? zs_word(r, at + 1) : 0, b = count > 2 ? zs_word(r, at + 2) : 0;
    switch (op) {
    case ZS_OP_CAPABILITY:
        r->out->caps_end = at + count;
        r->out->intel_shuffles |= a == ZS_CAPABILITY_SUBGROUP_SHUFFLE_INTEL;
        return 0;
    case ZS_OP_SHUFFLE_DOWN:
        r->out->shuffle_downs++;
        return count == 6 ? 0 : zs_fail(r, "a malformed OpGroupNonUniformShuffleDown");
    case ZS_OP_ENTRY_POINT:
        return zs_entry_point(r, at, count);
    case ZS_OP_DECORATE:
        return zs_decorate(r, at, count);
    case ZS_OP_EXECUTION_MODE:
    case ZS_OP_EXECUTION_MODE_ID:
        return zs_execution_mode(r, at, count);
    case ZS_OP_TYPE_BOOL:
    case ZS_OP_TYPE_INT:
    case ZS_OP_TYPE_FLOAT:
        if (!zs_id_ok(r, a) || (op != ZS_OP_TYPE_BOOL && count < 3))
            return zs_fail(r, "a malformed scalar type");
        r->facts[a] |= op == ZS_OP_TYPE_BOOL ? 1 : (b / 8) & ZS_FACT_VALUE;
        return 0;
    case ZS_OP_TYPE_POINTER:
        if (count < 4 || !zs_id_ok(r, a))
            return zs_fail(r, "a malformed OpTypePointer");
        r->facts[a] |= ZS_FACT_POINTER | (b & ZS_FACT_VALUE);
        return 0;
    case ZS_OP_SPEC_CONSTANT_TRUE:
    case ZS_OP_SPEC_CONSTANT_FALSE:
    case ZS_OP_SPEC_CONSTANT:
        if (count < 3 || !zs_id_ok(r, a) || !zs_id_ok(r, b))
            return zs_fail(r, "a malformed specialization constant");
        return zs_spec_constant(r, a, b);
    case ZS_OP_FUNCTION:
        if (count < 5 || !zs_id_ok(r, b))
            return zs_fail(r, "a malformed OpFunction");
        r->function = b;
        return 0;
    case ZS_OP_FUNCTION_PARAMETER:
        if (count < 3 || !zs_id_ok(r, a) || !r->function)
            return zs_fail(r, "a malformed OpFunctionParameter");
        return zs_parameter(r, a);
    case ZS_OP_FUNCTION_END:
        r->function = 0;
        return 0;
    default:
        return 0;
    }
}

static int zs_header(struct zs_reader *r, size_t size) {
    if (!r->code || size < 20 || size % 4)
        return zs_fail(r, "shorter than its header or not whole words");
    uint32_t magic;
    memcpy(&magic, r->code, 4);
    r->swap = magic == __builtin_bswap32(ZS_SPIRV_MAGIC);
    if (magic != ZS_SPIRV_MAGIC && !r->swap)
        return zs_fail(r, "no SPIR-V magic number");
    r->words = size / 4;
    r->out->version = zs_word(r, 1);
    r->bound = zs_word(r, 3);
    /* Each id is defined by an instruction of two words or more, so a bound
     * far beyond the module's size is a malformed (or hostile) header. */
    if (r->bound == 0 || r->bound > 4 * r->words + 4096)
        return zs_fail(r, "an id bound larger than the module");
    r->facts = calloc(r->bound, sizeof *r->facts);
    return r->facts ? 0 : zs_fail(r, "out of memory");
}

int zs_spirv_read(const void *code, size_t size, struct zs_spirv *out, char *why, size_t why_size) {
    memset(out, 0, sizeof *out);
    struct zs_reader r = {.code = code, .out = out, .why = why, .why_size = why_size};
    int rc = zs_header(&r, size);
    for (size_t at = 5; rc == 0 && at < r.words;) {
        uint32_t first = zs_word(&r, at);
        size_t count = first >> 16;
        if (count == 0 || count > r.words - at) {
            rc = zs_fail(&r, "an instruction runs past the end");
            break;
        }
        rc = zs_step(&r, at, count, first & 0xffff);
        at += count;
    }
    for (uint32_t id = 1; rc == 0 && id < r.bound; id++) {
        if ((r.facts[id] & (ZS_FACT_IMPORT | ZS_FACT_BUILT_IN)) == ZS_FACT_IMPORT)
            out->imports = true;
    }
    free(r.facts);
    free(r.spec_targets);
    if (rc)
        zs_spirv_free(out);
    return rc;
}

void zs_spirv_free(struct zs_spirv *s) {
    for (uint32_t i = 0; i < s->num_kernels; i++) {
        free(s->kernels[i].name);
        free(s->kernels[i].args);
        free(s->kernels[i].sizes);
    }
    free(s->kernels);
    free(s->specs);
    memset(s, 0, sizeof *s);
}

const struct zs_spirv_kernel *zs_spirv_kernel(const struct zs_spirv *s, const char *name) {
    for (uint32_t i = 0; i < s->num_kernels; i++) {
        if (strcmp(s->kernels[i].name, name) == 0)
            return &s->kernels[i];
    }
    return NULL;
}

/* A writer of words in a module's own byte order. */
struct zs_writer {
    unsigned char *at;
    bool swap;
};

static void zs_put(struct zs_writer *w, const uint32_t *words, size_t n) {
    for (size_t i = 0; i < n; i++) {
        uint32_t v = w->swap ? __builtin_bswap32(words[i]) : words[i];
        memcpy(w->at, &v, 4);
        w->at += 4;
    }
}

static void zs_put_bytes(struct zs_writer *w, const unsigned char *from, size_t n) {
    memcpy(w->at, from, n);
    w->at += n;
}

/* OpCapability SubgroupShuffleINTEL, OpExtension "SPV_INTEL_subgroups". */
static const uint32_t zs_intel_shuffles[] = {
    2u << 16 | ZS_OP_CAPABILITY,
    ZS_CAPABILITY_SUBGROUP_SHUFFLE_INTEL,
    6u << 16 | ZS_OP_EXTENSION,
    0x5f565053,
    0x45544e49,
    0x75735f4c,
    0x6f726762,
    0x00737075,
};

/* Rewrites, in place, each OpGroupNonUniformShuffleDown (type, result,
 * scope, value, delta) as OpSubgroupShuffleDownINTEL (type, result, value,
 * value, delta): the same lanes for every lane ShuffleDown defines. */
static void zs_rewrite_shuffle_downs(unsigned char *code, size_t words, bool swap) {
    struct zs_reader r = {.code = code, .words = words, .swap = swap};
    for (size_t at = 5; at < words;) {
        uint32_t first = zs_word(&r, at);
        size_t count = first >> 16;
        if ((first & 0xffff) == ZS_OP_SHUFFLE_DOWN && count == 6) {
            uint32_t w[6] = {first,
                             zs_word(&r, at + 1),
                             zs_word(&r, at + 2),
                             zs_word(&r, at + 4),
                             zs_word(&r, at + 4),
                             zs_word(&r, at + 5)};
            w[0] = 6u << 16 | ZS_OP_SUBGROUP_SHUFFLE_DOWN_INTEL;
            struct zs_writer out = {code + 4 * at, swap};
            zs_put(&out, w, 6);
        }
        at += count;
    }
}

int zs_spirv_for_cpu(const void *code, size_t size, const struct zs_spirv *s, uint32_t subgroup,
                     void **out, size_t *out_size) {
    *out = NULL;
    uint32_t missing = 0;
    for (uint32_t i = 0; i < s->num_kernels; i++)
        missing += s->kernels[i].subgroup_size == 0;
    bool shuffles = s->shuffle_downs && !s->intel_shuffles;
    if (!missing && !s->shuffle_downs)
        return 0;
    uint32_t magic;
    memcpy(&magic, code, 4);
    const unsigned char *in = code;
    size_t total = size + 16 * (size_t)missing + (shuffles ? sizeof zs_intel_shuffles : 0);
    unsigned char *buf = malloc(total);
    if (!buf)
        return -1;
    struct zs_writer w = {buf, magic != ZS_SPIRV_MAGIC};
    zs_put_bytes(&w, in, 4 * s->caps_end);
    if (shuffles)
        zs_put(&w, zs_intel_shuffles, sizeof zs_intel_shuffles / 4);
    zs_put_bytes(&w, in + 4 * s->caps_end, 4 * (s->modes_end - s->caps_end));
    for (uint32_t i = 0; i < s->num_kernels; i++) {
        const uint32_t mode[4] = {4u << 16 | ZS_OP_EXECUTION_MODE, s->kernels[i].function,
                                  ZS_MODE_SUBGROUP_SIZE, subgroup};
        if (!s->kernels[i].subgroup_size)
            zs_put(&w, mode, 4);
    }
    zs_put_bytes(&w, in + 4 * s->modes_end, size - 4 * s->modes_end);
    if (s->shuffle_downs)
        zs_rewrite_shuffle_downs(buf, total / 4, magic != ZS_SPIRV_MAGIC);
    *out = buf;
    *out_size = total;
    return 0;
}

int zs_spirv_merge(struct zs_spirv *into, struct zs_spirv *from) {
    if (!from->num_kernels)
        return 0;
    struct zs_spirv_kernel *grown =
        realloc(into->kernels, (into->num_kernels + from->num_kernels) * sizeof *grown);
    if (!grown)
        return -1;
    memcpy(grown + into->num_kernels, from->kernels, from->num_kernels * sizeof *grown);
    into->kernels = grown;
    into->num_kernels += from->num_kernels;
    free(from->kernels);
    from->kernels = NULL;
    from->num_kernels = 0;
    return 0;
}

int zs_spirv_kernel_copy(struct zs_spirv_kernel *dst, const struct zs_spirv_kernel *src) {
    *dst = *src;
    size_t n = src->num_args ? src->num_args : 1;
    dst->name = strdup(src->name);
    dst->args = malloc(n * sizeof *dst->args);
    dst->sizes = malloc(n * sizeof *dst->sizes);
    if (!dst->name || !dst->args || !dst->sizes) {
        free(dst->name);
        free(dst->args);
        free(dst->sizes);
        memset(dst, 0, sizeof *dst);
        return -1;
    }
    if (src->num_args) {
        memcpy(dst->args, src->args, src->num_args * sizeof *dst->args);
        memcpy(dst->sizes, src->sizes, src->num_args * sizeof *dst->sizes);
    }
    return 0;
}

uint32_t zs_spirv_spec_size(const struct zs_spirv *s, uint32_t id) {
    for (uint32_t i = 0; i < s->num_specs; i++) {
        if (s->specs[i].id == id)
            return s->specs[i].size;
    }
    return 0;
}
