/*
 * ze_sim: kernels and their launches. A kernel is an OpenCL kernel of its
 * module's program, with Level Zero's state beside it: the group size and
 * the global offset (zeKernelSetGlobalOffsetExp) it launches with, and each
 * argument's kind (spirv.c), which says how OpenCL is told a value: an
 * address (clSetKernelArgMemPointerINTEL; ze_sim's allocations are host
 * memory, which the CPU device reaches as fine-grained system SVM), a local
 * buffer's size, or bytes. A launch copies the kernel with its arguments
 * (clCloneKernel) when it is appended, as Level Zero captures them then,
 * and the queue's worker runs the copy on the CPU device and waits for it
 * (engine.c), after the launch's wait events and ze_sim's command delay,
 * before it signals the launch's event: events and fences keep their
 * meaning.
 */
#include "kernel.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

bool zs_kernel_ok(ze_kernel_handle_t k) {
    return k && k->magic == ZS_MAGIC_KERNEL;
}

/* Every pointer a kernel reads from memory is host memory too. */
static cl_int zs_allow_system_pointers(const struct zs_cl *cl, cl_kernel kernel) {
    uint32_t yes = 1;
    return cl->SetKernelExecInfo(kernel, ZS_CL_KERNEL_EXEC_INFO_SVM_FINE_GRAIN_SYSTEM, sizeof yes,
                                 &yes);
}

static ze_result_t zs_kernel_init(const struct zs_cl *cl, struct ze_sim_kernel *k) {
    cl_int err = 0;
    k->kernel = cl->CreateKernel(k->module->program, k->spirv.name, &err);
    if (!k->kernel)
        return err == ZS_CL_INVALID_KERNEL_NAME ? ZE_RESULT_ERROR_INVALID_KERNEL_NAME
                                                : ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    if (zs_allow_system_pointers(cl, k->kernel) ||
        cl->GetKernelWorkGroupInfo(k->kernel, cl->device, ZS_CL_KERNEL_COMPILE_WORK_GROUP_SIZE,
                                   sizeof k->required, k->required, NULL) ||
        cl->GetKernelWorkGroupInfo(k->kernel, cl->device, ZS_CL_KERNEL_WORK_GROUP_SIZE,
                                   sizeof k->max_group, &k->max_group, NULL))
        return ZE_RESULT_ERROR_UNKNOWN;
    for (int i = 0; i < 3; i++)
        k->group[i] = k->required[0] ? (uint32_t)k->required[i] : 1;
    return ZE_RESULT_SUCCESS;
}

/* cl is NULL in a forked child: the parent's objects are left alone. */
static void zs_kernel_free(const struct zs_cl *cl, struct ze_sim_kernel *k) {
    if (k->kernel && cl)
        cl->ReleaseKernel(k->kernel);
    free(k->spirv.name);
    free(k->spirv.args);
    free(k->spirv.sizes);
    k->magic = 0;
    free(k);
}

ze_result_t zeKernelCreate(ze_module_handle_t hModule, const ze_kernel_desc_t *desc,
                           ze_kernel_handle_t *phKernel) {
    if (!zs_module_ok(hModule))
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (!desc || !desc->pKernelName || !phKernel)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    const struct zs_spirv_kernel *spirv = zs_spirv_kernel(&hModule->spirv, desc->pKernelName);
    if (!spirv)
        return ZE_RESULT_ERROR_INVALID_KERNEL_NAME;
    const struct zs_cl *cl = zs_opencl();
    if (!cl)
        return ZE_RESULT_ERROR_DEVICE_LOST; /* a forked child (opencl.c) */
    struct ze_sim_kernel *k = calloc(1, sizeof *k);
    if (!k)
        return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    *k = (struct ze_sim_kernel){.magic = ZS_MAGIC_KERNEL, .module = hModule};
    ze_result_t rc = zs_spirv_kernel_copy(&k->spirv, spirv) ? ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY
                                                            : zs_kernel_init(cl, k);
    zs_trace("kernel %p '%s' of module %p: %u arguments, required group %zux%zux%zu: 0x%x",
             (void *)k, spirv->name, (void *)hModule, spirv->num_args, k->required[0],
             k->required[1], k->required[2], (unsigned)rc);
    if (rc != ZE_RESULT_SUCCESS) {
        zs_kernel_free(cl, k);
        return rc;
    }
    *phKernel = k;
    return ZE_RESULT_SUCCESS;
}

ze_result_t zeKernelDestroy(ze_kernel_handle_t hKernel) {
    if (!zs_kernel_ok(hKernel))
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    zs_kernel_free(zs_opencl(), hKernel); /* launches hold their own copies */
    return ZE_RESULT_SUCCESS;
}

static ze_result_t zs_arg_result(cl_int err) {
    return err == ZS_CL_SUCCESS            ? ZE_RESULT_SUCCESS
           : err == ZS_CL_INVALID_ARG_SIZE ? ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_SIZE
                                           : ZE_RESULT_ERROR_INVALID_ARGUMENT;
}

/* A value argument without a value is zero (Intel's runtime passes NULL
 * for an 8-byte zero). A scalar given in more bytes than it has is its
 * first bytes, as Intel's GPU driver takes it (oneMKL sets 32-bit
 * arguments of its SPIR-V kernels from 64-bit values). */
static ze_result_t zs_set_value(const struct zs_cl *cl, cl_kernel kernel, uint32_t index,
                                size_t size, uint32_t scalar, const void *value) {
    if (scalar && size > scalar)
        size = scalar;
    if (value || size == 0)
        return zs_arg_result(cl->SetKernelArg(kernel, index, size, value));
    void *zeros = calloc(1, size);
    if (!zeros)
        return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    ze_result_t rc = zs_arg_result(cl->SetKernelArg(kernel, index, size, zeros));
    free(zeros);
    return rc;
}

static ze_result_t zs_set_argument(ze_kernel_handle_t hKernel, uint32_t argIndex, size_t argSize,
                                   const void *pArgValue) {
    if (!zs_kernel_ok(hKernel))
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (argIndex >= hKernel->spirv.num_args)
        return ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_INDEX;
    const struct zs_cl *cl = zs_opencl();
    if (!cl)
        return ZE_RESULT_ERROR_DEVICE_LOST; /* a forked child (opencl.c) */
    switch (hKernel->spirv.args[argIndex]) {
    case ZS_ARG_POINTER: {
        if (argSize != sizeof(void *))
            return ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_SIZE;
        void *ptr = NULL;
        if (pArgValue)
            memcpy(&ptr, pArgValue, sizeof ptr);
        return zs_arg_result(cl->SetKernelArgMemPointerINTEL(hKernel->kernel, argIndex, ptr));
    }
    case ZS_ARG_LOCAL:
        if (argSize == 0)
            return ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_SIZE;
        return zs_arg_result(cl->SetKernelArg(hKernel->kernel, argIndex, argSize, NULL));
    case ZS_ARG_VALUE:
        break;
    }
    return zs_set_value(cl, hKernel->kernel, argIndex, argSize, hKernel->spirv.sizes[argIndex],
                        pArgValue);
}

ze_result_t zeKernelSetArgumentValue(ze_kernel_handle_t hKernel, uint32_t argIndex, size_t argSize,
                                     const void *pArgValue) {
    ze_result_t rc = zs_set_argument(hKernel, argIndex, argSize, pArgValue);
    if (rc != ZE_RESULT_SUCCESS)
        zs_trace("kernel %p: argument %u of %zu bytes refused: 0x%x", (void *)hKernel, argIndex,
                 argSize, (unsigned)rc);
    return rc;
}

ze_result_t zeKernelSetGroupSize(ze_kernel_handle_t hKernel, uint32_t groupSizeX,
                                 uint32_t groupSizeY, uint32_t groupSizeZ) {
    if (!zs_kernel_ok(hKernel))
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    const uint32_t g[3] = {groupSizeX, groupSizeY, groupSizeZ};
    uint64_t total = (uint64_t)g[0] * g[1] * g[2];
    if (total == 0 || total > hKernel->max_group)
        return ZE_RESULT_ERROR_INVALID_GROUP_SIZE_DIMENSION;
    for (int i = 0; i < 3; i++) {
        if (hKernel->required[0] && g[i] != hKernel->required[i])
            return ZE_RESULT_ERROR_INVALID_GROUP_SIZE_DIMENSION;
    }
    memcpy(hKernel->group, g, sizeof g);
    return ZE_RESULT_SUCCESS;
}

/* The largest divisor of n that is at most most (both at least 1). */
static uint32_t zs_divisor(uint32_t n, uint32_t most) {
    for (uint32_t d = most < n ? most : n; d > 1; d--) {
        if (n % d == 0)
            return d;
    }
    return 1;
}

/* Group sizes that divide the global sizes, as large as a group may be,
 * X first; the kernel's required size if it has one. */
ze_result_t zeKernelSuggestGroupSize(ze_kernel_handle_t hKernel, uint32_t globalSizeX,
                                     uint32_t globalSizeY, uint32_t globalSizeZ,
                                     uint32_t *groupSizeX, uint32_t *groupSizeY,
                                     uint32_t *groupSizeZ) {
    if (!zs_kernel_ok(hKernel))
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (!groupSizeX || !groupSizeY || !groupSizeZ)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    if (!globalSizeX || !globalSizeY || !globalSizeZ)
        return ZE_RESULT_ERROR_INVALID_GLOBAL_WIDTH_DIMENSION;
    const uint32_t global[3] = {globalSizeX, globalSizeY, globalSizeZ};
    uint32_t *out[3] = {groupSizeX, groupSizeY, groupSizeZ};
    uint32_t budget = hKernel->max_group > UINT32_MAX ? UINT32_MAX : (uint32_t)hKernel->max_group;
    for (int i = 0; i < 3; i++) {
        uint32_t g = hKernel->required[0] ? (uint32_t)hKernel->required[i]
                                          : zs_divisor(global[i], budget ? budget : 1);
        *out[i] = g;
        budget /= g ? g : 1;
    }
    return ZE_RESULT_SUCCESS;
}

ze_result_t zeKernelSetGlobalOffsetExp(ze_kernel_handle_t hKernel, uint32_t offsetX,
                                       uint32_t offsetY, uint32_t offsetZ) {
    if (!zs_kernel_ok(hKernel))
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    hKernel->offset[0] = offsetX;
    hKernel->offset[1] = offsetY;
    hKernel->offset[2] = offsetZ;
    return ZE_RESULT_SUCCESS;
}

/* Hints: every allocation is host memory the CPU device reaches. */
ze_result_t zeKernelSetIndirectAccess(ze_kernel_handle_t hKernel,
                                      ze_kernel_indirect_access_flags_t flags) {
    (void)flags;
    return zs_kernel_ok(hKernel) ? ZE_RESULT_SUCCESS : ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
}

ze_result_t zeKernelSetCacheConfig(ze_kernel_handle_t hKernel, ze_cache_config_flags_t flags) {
    (void)flags;
    return zs_kernel_ok(hKernel) ? ZE_RESULT_SUCCESS : ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
}

ze_result_t zeKernelGetName(ze_kernel_handle_t hKernel, size_t *pSize, char *pName) {
    if (!zs_kernel_ok(hKernel))
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (!pSize)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    return zs_string_out(hKernel->spirv.name, pSize, pName);
}

/* No source attributes (reqd_work_group_size and the like are reported
 * by zeKernelGetProperties): an empty string. */
ze_result_t zeKernelGetSourceAttributes(ze_kernel_handle_t hKernel, uint32_t *pSize,
                                        char **pString) {
    if (!zs_kernel_ok(hKernel))
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (!pSize)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    if (pString && *pString && *pSize)
        (*pString)[0] = '\0';
    *pSize = 1;
    return ZE_RESULT_SUCCESS;
}

/* A sub-group fact of the kernel for a group of the kernel's group size. */
static uint32_t zs_sub_group_info(const struct zs_cl *cl, ze_kernel_handle_t k, cl_uint what) {
    const size_t local[3] = {k->group[0], k->group[1], k->group[2]};
    size_t value = 0;
    if (cl->GetKernelSubGroupInfo(k->kernel, cl->device, what, sizeof local, local, sizeof value,
                                  &value, NULL))
        return 0;
    return (uint32_t)value;
}

static uint32_t zs_group_info(const struct zs_cl *cl, ze_kernel_handle_t k, cl_uint what) {
    cl_ulong value = 0; /* the widest of these facts (size_t or cl_ulong) */
    if (cl->GetKernelWorkGroupInfo(k->kernel, cl->device, what, sizeof value, &value, NULL))
        return 0;
    return value > UINT32_MAX ? UINT32_MAX : (uint32_t)value;
}

static void zs_kernel_chain(const struct zs_cl *cl, ze_kernel_handle_t k, void *pNext) {
    for (ze_base_properties_t *p = pNext; p; p = p->pNext) {
        if (p->stype == ZE_STRUCTURE_TYPE_KERNEL_PREFERRED_GROUP_SIZE_PROPERTIES)
            ((ze_kernel_preferred_group_size_properties_t *)(void *)p)->preferredMultiple =
                zs_group_info(cl, k, ZS_CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE);
        else if (p->stype == ZE_STRUCTURE_TYPE_KERNEL_MAX_GROUP_SIZE_EXT_PROPERTIES)
            ((ze_kernel_max_group_size_ext_properties_t *)(void *)p)->maxGroupSize =
                (uint32_t)k->max_group;
    }
}

ze_result_t zeKernelGetProperties(ze_kernel_handle_t hKernel, ze_kernel_properties_t *p) {
    if (!zs_kernel_ok(hKernel))
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (!p)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    const struct zs_cl *cl = zs_opencl();
    if (!cl)
        return ZE_RESULT_ERROR_DEVICE_LOST; /* a forked child (opencl.c) */
    p->numKernelArgs = hKernel->spirv.num_args;
    p->requiredGroupSizeX = (uint32_t)hKernel->required[0];
    p->requiredGroupSizeY = (uint32_t)hKernel->required[1];
    p->requiredGroupSizeZ = (uint32_t)hKernel->required[2];
    p->requiredNumSubGroups = zs_sub_group_info(cl, hKernel, ZS_CL_KERNEL_COMPILE_NUM_SUB_GROUPS);
    p->requiredSubgroupSize =
        zs_sub_group_info(cl, hKernel, ZS_CL_KERNEL_COMPILE_SUB_GROUP_SIZE_INTEL);
    p->maxSubgroupSize =
        zs_sub_group_info(cl, hKernel, ZS_CL_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE);
    p->maxNumSubgroups = zs_sub_group_info(cl, hKernel, ZS_CL_KERNEL_MAX_NUM_SUB_GROUPS);
    p->localMemSize = zs_group_info(cl, hKernel, ZS_CL_KERNEL_LOCAL_MEM_SIZE);
    p->privateMemSize = zs_group_info(cl, hKernel, ZS_CL_KERNEL_PRIVATE_MEM_SIZE);
    p->spillMemSize = 0;
    /* The kernel's and its module's identity: their addresses. */
    memset(&p->uuid, 0, sizeof p->uuid);
    memcpy(p->uuid.kid, &hKernel, sizeof hKernel);
    memcpy(p->uuid.mid, &hKernel->module, sizeof hKernel->module);
    zs_kernel_chain(cl, hKernel, p->pNext);
    return ZE_RESULT_SUCCESS;
}

/* The CPU device runs a group's work-items on one of its threads, so as
 * many groups as it has threads run at once. */
ze_result_t zeKernelSuggestMaxCooperativeGroupCount(ze_kernel_handle_t hKernel,
                                                    uint32_t *totalGroupCount) {
    if (!zs_kernel_ok(hKernel))
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (!totalGroupCount)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    *totalGroupCount = cpus > 0 ? (uint32_t)cpus : 1;
    return ZE_RESULT_SUCCESS;
}
