/*
 * ze_sim's modules (module.c) and kernels (kernel.c): what the two share.
 */
#ifndef ZE_SIM_KERNEL_H
#define ZE_SIM_KERNEL_H

#include "opencl.h"
#include "spirv.h"
#include "zs.h"

/* The SPIR-V a module is built from, wherever the description put it. */
struct zs_module_input {
    const uint8_t *code;
    size_t size;
    const char *flags;
    const ze_module_constants_t *constants;
};

struct ze_sim_module {
    uint32_t magic;
    ze_device_handle_t device;
    cl_program program;
    struct zs_spirv spirv; /* its kernels and their argument kinds */
    const char **names;    /* the kernels' names (zeModuleGetKernelNames) */
};

bool zs_module_ok(ze_module_handle_t module);

struct ze_sim_kernel {
    uint32_t magic;
    ze_module_handle_t module; /* read at creation only: it may go first */
    cl_kernel kernel;
    struct zs_spirv_kernel spirv; /* a copy: XLA destroys modules first */
    uint32_t group[3];            /* zeKernelSetGroupSize */
    uint32_t offset[3];           /* zeKernelSetGlobalOffsetExp */
    size_t required[3];           /* the kernel's required group size, or zeros */
    size_t max_group;             /* work-items per group at most */
};

bool zs_kernel_ok(ze_kernel_handle_t kernel);

#endif
