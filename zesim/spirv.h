/*
 * ze_sim: what it reads from a SPIR-V module itself (spirv.c). OpenCL's
 * runtime reports no argument information for a program made from SPIR-V,
 * but Level Zero sets arguments by value and size alone: whether argument N
 * is a pointer (a USM address), a local buffer (a size) or a value decides
 * how OpenCL must be told. Level Zero also gives specialization constants
 * by id and value, without their sizes, which OpenCL needs.
 */
#ifndef ZE_SIM_SPIRV_H
#define ZE_SIM_SPIRV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum zs_arg_kind {
    ZS_ARG_VALUE,   /* bytes, including structures passed by value */
    ZS_ARG_POINTER, /* global, constant or generic memory: an address */
    ZS_ARG_LOCAL,   /* workgroup memory: only its size is given */
};

struct zs_spirv_kernel {
    char *name;
    uint32_t function; /* the entry point's function id */
    uint32_t num_args;
    enum zs_arg_kind *args;
    uint32_t *sizes;        /* a scalar value argument's bytes, else 0 */
    uint32_t subgroup_size; /* its SubgroupSize execution mode, or 0 */
};

struct zs_spirv_spec {
    uint32_t id;   /* SpecId */
    uint32_t size; /* bytes of its scalar type */
};

struct zs_spirv {
    struct zs_spirv_kernel *kernels;
    uint32_t num_kernels;
    struct zs_spirv_spec *specs;
    uint32_t num_specs;
    uint32_t version;       /* major << 16 | minor << 8, as in the header */
    bool imports;           /* something other than a built-in has Import linkage */
    size_t caps_end;        /* the word after the last OpCapability */
    size_t modes_end;       /* the word after the entry points and execution modes */
    uint32_t shuffle_downs; /* OpGroupNonUniformShuffleDown instructions */
    bool intel_shuffles;    /* it declares SPV_INTEL_subgroups' capability */
};

/* Reads a module of size bytes: 0 on success, else -1 with why (a sentence)
 * filled. out is cleared first; zs_spirv_free frees what it holds. */
int zs_spirv_read(const void *code, size_t size, struct zs_spirv *out, char *why, size_t why_size);
void zs_spirv_free(struct zs_spirv *s);
const struct zs_spirv_kernel *zs_spirv_kernel(const struct zs_spirv *s, const char *name);
/* The module (code, size bytes, read into s) as ze_sim has the CPU
 * compiler build it (module.c says why): an execution mode SubgroupSize
 * subgroup for every kernel that has none, and every
 * OpGroupNonUniformShuffleDown as SPV_INTEL_subgroups' shuffle down of a
 * value with itself. In a new buffer (*out, *out_size bytes; free it), or
 * NULL in *out when nothing changes; -1 when out of memory. */
int zs_spirv_for_cpu(const void *code, size_t size, const struct zs_spirv *s, uint32_t subgroup,
                     void **out, size_t *out_size);
/* Moves from's kernels to the end of into's (from is left without them):
 * 0, or -1 when out of memory (nothing moved). */
int zs_spirv_merge(struct zs_spirv *into, struct zs_spirv *from);
/* A deep copy of a kernel's facts: 0, or -1 when out of memory. */
int zs_spirv_kernel_copy(struct zs_spirv_kernel *dst, const struct zs_spirv_kernel *src);
/* The size of specialization constant id, or 0 if the module has none. */
uint32_t zs_spirv_spec_size(const struct zs_spirv *s, uint32_t id);

#endif
