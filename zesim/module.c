/*
 * ze_sim: modules. A SPIR-V module is built by Intel's OpenCL CPU runtime
 * (opencl.c) into a program for the host's CPU: clCreateProgramWithIL, the
 * specialization constants, clBuildProgram with the build flags OpenCL
 * knows. ze_sim reads the module itself too (spirv.c) for what OpenCL does
 * not report: each kernel's argument kinds, the constants' sizes, imports.
 * Two changes make the CPU compute what a GPU would (spirv.c does them):
 * every kernel that requires no sub-group size is built for 32 lanes
 * (ZS_SUBGROUP_SIZE, the largest size zeDeviceGetComputeProperties reports,
 * which XLA takes as its warp size), where the CPU compiler would pick 4 to
 * 64 by its own heuristics, so XLA's reductions, written for a warp of 32,
 * summed the wrong lanes; and every OpGroupNonUniformShuffleDown becomes
 * SPV_INTEL_subgroups' shuffle down, because at 32 and 64 lanes the CPU
 * runtime (2025.1) computes ShuffleDown as ShuffleUp: lane i gets lane i-d
 * (zesim/README.md has the evidence).
 * A native binary (a GPU's machine code) cannot run on the CPU and is
 * refused, as is every module when the OpenCL runtime is not found; the
 * build log says why.
 */
#include "kernel.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct ze_sim_build_log {
    uint32_t magic;
    char *text;
};

bool zs_module_ok(ze_module_handle_t m) {
    return m && m->magic == ZS_MAGIC_MODULE;
}

static bool zs_build_log_ok(ze_module_build_log_handle_t log) {
    return log && log->magic == ZS_MAGIC_BUILD_LOG;
}

/* A build log for the caller (when it asked for one): text, or empty. */
static ze_result_t zs_build_log_give(ze_module_build_log_handle_t *out, const char *text) {
    if (!out)
        return ZE_RESULT_SUCCESS;
    *out = NULL;
    struct ze_sim_build_log *log = calloc(1, sizeof *log);
    if (!log || !(log->text = strdup(text ? text : ""))) {
        free(log);
        return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    }
    log->magic = ZS_MAGIC_BUILD_LOG;
    *out = log;
    return ZE_RESULT_SUCCESS;
}

/* A failed build: the log says why, the result is BUILD_FAILURE. */
static ze_result_t zs_build_failed(ze_module_build_log_handle_t *out, const char *why) {
    zs_trace("module refused: %s", why);
    ze_result_t rc = zs_build_log_give(out, why);
    return rc == ZE_RESULT_SUCCESS ? ZE_RESULT_ERROR_MODULE_BUILD_FAILURE : rc;
}

/* Level Zero's build flags as OpenCL's: -ze-* flags are the GPU driver's
 * (-ze-opt-disable has OpenCL's twin); the rest pass as they are. */
static char *zs_build_options(const char *flags) {
    size_t n = flags ? strlen(flags) : 0;
    char *out = malloc(n + 32), *o = out;
    if (!out)
        return NULL;
    for (const char *p = flags; p && *p;) {
        while (*p == ' ')
            p++;
        size_t len = strcspn(p, " ");
        if (len == 15 && strncmp(p, "-ze-opt-disable", len) == 0)
            o += sprintf(o, "-cl-opt-disable ");
        else if (len && strncmp(p, "-ze-", 4) != 0)
            o += sprintf(o, "%.*s ", (int)len, p);
        p += len;
    }
    *o = '\0';
    return out;
}

/* The log of a build that failed (OpenCL's own words). */
static char *zs_program_log(const struct zs_cl *cl, cl_program program) {
    size_t n = 0;
    char *text = NULL;
    if (!cl->GetProgramBuildInfo(program, cl->device, ZS_CL_PROGRAM_BUILD_LOG, 0, NULL, &n) &&
        (text = calloc(1, n + 1)) &&
        cl->GetProgramBuildInfo(program, cl->device, ZS_CL_PROGRAM_BUILD_LOG, n, text, NULL))
        text[0] = '\0';
    return text;
}

static ze_result_t zs_set_constants(const struct zs_cl *cl, cl_program program,
                                    const struct zs_spirv *spirv, const ze_module_constants_t *k) {
    if (!k || !k->numConstants)
        return ZE_RESULT_SUCCESS;
    if (!k->pConstantIds || !k->pConstantValues)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    for (uint32_t i = 0; i < k->numConstants; i++) {
        uint32_t size = zs_spirv_spec_size(spirv, k->pConstantIds[i]);
        if (size && k->pConstantValues[i] &&
            cl->SetProgramSpecializationConstant(program, k->pConstantIds[i], size,
                                                 k->pConstantValues[i]))
            return ZE_RESULT_ERROR_INVALID_ARGUMENT;
    }
    return ZE_RESULT_SUCCESS;
}

/* The SPIR-V inputs of a module description: its own, or those of a
 * ze_module_program_exp_desc_t (built into one program by linking), in a
 * new array of *n (free it); NULL, or a sentence saying what is wrong. */
static const char *zs_module_inputs(const ze_module_desc_t *desc, struct zs_module_input **out,
                                    uint32_t *n) {
    const ze_module_program_exp_desc_t *prog = NULL;
    for (const ze_base_properties_t *p = desc->pNext; p; p = p->pNext) {
        if (p->stype == ZE_STRUCTURE_TYPE_MODULE_PROGRAM_EXP_DESC)
            prog = (const void *)p;
    }
    if (prog && (!prog->count || !prog->inputSizes || !prog->pInputModules))
        return "the module program description has no input";
    *n = prog ? prog->count : 1;
    if (!(*out = calloc(*n, sizeof **out)))
        return "out of memory";
    for (uint32_t i = 0; i < *n; i++) {
        struct zs_module_input *in = &(*out)[i];
        if (!prog) {
            *in = (struct zs_module_input){desc->pInputModule, desc->inputSize, desc->pBuildFlags,
                                           desc->pConstants};
            continue;
        }
        *in = (struct zs_module_input){prog->pInputModules[i], prog->inputSizes[i],
                                       prog->pBuildFlags ? prog->pBuildFlags[i] : NULL,
                                       prog->pConstants ? prog->pConstants[i] : NULL};
    }
    return NULL;
}

/* A failed step's result, its log a sentence of ze_sim's. */
static ze_result_t zs_failed(char **log, const char *why) {
    *log = strdup(why);
    return ZE_RESULT_ERROR_MODULE_BUILD_FAILURE;
}

/* One input read (into *spirv), adapted for the CPU (spirv.c) and made an
 * OpenCL program with its specialization constants: not built yet. */
static ze_result_t zs_program_of(const struct zs_cl *cl, const struct zs_module_input *in,
                                 struct zs_spirv *spirv, cl_program *out, char **log) {
    char why[256];
    if (!in->code || !in->size)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    if (zs_spirv_read(in->code, in->size, spirv, why, sizeof why))
        return zs_failed(log, why);
    void *fixed = NULL;
    size_t fixed_size = 0;
    if (zs_spirv_for_cpu(in->code, in->size, spirv, ZS_SUBGROUP_SIZE, &fixed, &fixed_size))
        return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    cl_int err = 0;
    *out = cl->CreateProgramWithIL(cl->context, fixed ? fixed : in->code,
                                   fixed ? fixed_size : in->size, &err);
    free(fixed);
    if (!*out) {
        snprintf(why, sizeof why, "OpenCL refused the SPIR-V module (error %d)", err);
        return zs_failed(log, why);
    }
    return zs_set_constants(cl, *out, spirv, in->constants);
}

/* Builds one input into the module's program, or says why not. */
static ze_result_t zs_build_one(const struct zs_cl *cl, const struct zs_module_input *in,
                                struct ze_sim_module *m, char **log) {
    ze_result_t rc = zs_program_of(cl, in, &m->spirv, &m->program, log);
    if (rc != ZE_RESULT_SUCCESS)
        return rc;
    char *options = zs_build_options(in->flags);
    if (!options)
        return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    cl_int err = cl->BuildProgram(m->program, 1, &cl->device, options, NULL, NULL);
    free(options);
    *log = zs_program_log(cl, m->program);
    return err ? ZE_RESULT_ERROR_MODULE_BUILD_FAILURE : ZE_RESULT_SUCCESS;
}

/* Compiles input i into parts[i], its kernels joining the module's. */
static ze_result_t zs_compile_part(const struct zs_cl *cl, const struct zs_module_input *in,
                                   struct ze_sim_module *m, cl_program *part, char **log) {
    struct zs_spirv spirv;
    ze_result_t rc = zs_program_of(cl, in, &spirv, part, log);
    char *options = rc == ZE_RESULT_SUCCESS ? zs_build_options(in->flags) : NULL;
    if (rc == ZE_RESULT_SUCCESS && !options)
        rc = ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    if (rc == ZE_RESULT_SUCCESS &&
        cl->CompileProgram(*part, 1, &cl->device, options, 0, NULL, NULL, NULL, NULL)) {
        *log = zs_program_log(cl, *part);
        rc = ZE_RESULT_ERROR_MODULE_BUILD_FAILURE;
    }
    free(options);
    if (rc == ZE_RESULT_SUCCESS && zs_spirv_merge(&m->spirv, &spirv))
        rc = ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    zs_spirv_free(&spirv);
    return rc;
}

/* Several inputs (ZE_experimental_module_program): each compiled, then all
 * linked into one program, which resolves what one imports from another. */
static ze_result_t zs_build_linked(const struct zs_cl *cl, const struct zs_module_input *in,
                                   uint32_t n, struct ze_sim_module *m, char **log) {
    cl_program *parts = calloc(n, sizeof *parts);
    if (!parts)
        return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    ze_result_t rc = ZE_RESULT_SUCCESS;
    for (uint32_t i = 0; i < n && rc == ZE_RESULT_SUCCESS; i++)
        rc = zs_compile_part(cl, &in[i], m, &parts[i], log);
    if (rc == ZE_RESULT_SUCCESS) {
        cl_int err = 0;
        m->program = cl->LinkProgram(cl->context, 1, &cl->device, "", n, parts, NULL, NULL, &err);
        if (m->program)
            *log = zs_program_log(cl, m->program);
        else
            rc = zs_failed(log, "OpenCL could not link the modules");
        if (err && rc == ZE_RESULT_SUCCESS)
            rc = ZE_RESULT_ERROR_MODULE_BUILD_FAILURE;
        m->spirv.imports = false; /* resolved by linking */
    }
    for (uint32_t i = 0; i < n; i++) {
        if (parts[i])
            cl->ReleaseProgram(parts[i]);
    }
    free(parts);
    return rc;
}

/* cl is NULL in a forked child: the parent's program is left alone. */
static void zs_module_free(const struct zs_cl *cl, struct ze_sim_module *m) {
    if (m->program && cl)
        cl->ReleaseProgram(m->program);
    zs_spirv_free(&m->spirv);
    free(m->names);
    m->magic = 0;
    free(m);
}

static ze_result_t zs_module_names(struct ze_sim_module *m) {
    m->names = calloc(m->spirv.num_kernels + 1, sizeof *m->names);
    if (!m->names)
        return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    for (uint32_t i = 0; i < m->spirv.num_kernels; i++)
        m->names[i] = m->spirv.kernels[i].name;
    return ZE_RESULT_SUCCESS;
}

/* A native binary is refused; the trace says whose code it is (an ELF
 * file's e_machine, bytes 18-19). */
static ze_result_t zs_native_refused(const ze_module_desc_t *desc,
                                     ze_module_build_log_handle_t *log) {
    uint16_t machine = 0;
    if (desc->pInputModule && desc->inputSize >= 20 && !memcmp(desc->pInputModule, "\177ELF", 4))
        memcpy(&machine, desc->pInputModule + 18, 2);
    zs_trace("native module of %zu bytes, ELF machine %u", desc->inputSize, machine);
    return zs_build_failed(log,
                           "ze_sim builds SPIR-V modules only: a native binary is a GPU's "
                           "machine code, which the simulated GPU (the host's CPU) cannot run");
}

/* Builds the inputs into m: its result, and the log in *log. */
static ze_result_t zs_module_build(const struct zs_cl *cl, const struct zs_module_input *in,
                                   uint32_t n, struct ze_sim_module *m, char **log) {
    uint64_t start = zs_now_ns();
    ze_result_t rc = n == 1 ? zs_build_one(cl, in, m, log) : zs_build_linked(cl, in, n, m, log);
    if (rc == ZE_RESULT_SUCCESS)
        rc = zs_module_names(m);
    zs_trace("module %p: %u SPIR-V input(s), the first %zu bytes, %u kernels, flags '%s': 0x%x in "
             "%.1f ms%s%s",
             (void *)m, n, in[0].size, m->spirv.num_kernels, in[0].flags ? in[0].flags : "",
             (unsigned)rc, (double)(zs_now_ns() - start) / 1e6, *log && **log ? ", log: " : "",
             *log ? *log : "");
    return rc;
}

ze_result_t zeModuleCreate(ze_context_handle_t hContext, ze_device_handle_t hDevice,
                           const ze_module_desc_t *desc, ze_module_handle_t *phModule,
                           ze_module_build_log_handle_t *phBuildLog) {
    if (!zs_context_ok(hContext) || !zs_device_ok(hDevice))
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (!desc || !phModule)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    *phModule = NULL;
    const struct zs_cl *cl = zs_opencl();
    if (!cl) {
        char why[1800];
        snprintf(why, sizeof why, "ze_sim: the simulated GPU runs no kernels: %s", zs_opencl_why());
        return zs_build_failed(phBuildLog, why);
    }
    if (desc->format != ZE_MODULE_FORMAT_IL_SPIRV)
        return zs_native_refused(desc, phBuildLog);
    struct zs_module_input *in = NULL;
    uint32_t n = 0;
    const char *bad = zs_module_inputs(desc, &in, &n);
    struct ze_sim_module *m = bad ? NULL : calloc(1, sizeof *m);
    if (!m) {
        free(in);
        return bad ? zs_build_failed(phBuildLog, bad) : ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    }
    m->magic = ZS_MAGIC_MODULE;
    m->device = hDevice;
    char *log = NULL;
    ze_result_t rc = zs_module_build(cl, in, n, m, &log);
    free(in);
    ze_result_t logged = zs_build_log_give(phBuildLog, log);
    free(log);
    if (rc == ZE_RESULT_SUCCESS)
        rc = logged;
    if (rc != ZE_RESULT_SUCCESS) {
        zs_module_free(cl, m);
        return rc;
    }
    *phModule = m;
    return ZE_RESULT_SUCCESS;
}

ze_result_t zeModuleDestroy(ze_module_handle_t hModule) {
    if (!zs_module_ok(hModule))
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    /* Its kernels live on (XLA destroys a module before its kernels):
     * OpenCL's kernels hold the program, ze_sim's their own facts. */
    zs_module_free(zs_opencl(), hModule);
    return ZE_RESULT_SUCCESS;
}

ze_result_t zeModuleBuildLogGetString(ze_module_build_log_handle_t hModuleBuildLog, size_t *pSize,
                                      char *pBuildLog) {
    if (!zs_build_log_ok(hModuleBuildLog))
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (!pSize)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    return zs_string_out(hModuleBuildLog->text, pSize, pBuildLog);
}

ze_result_t zeModuleBuildLogDestroy(ze_module_build_log_handle_t hModuleBuildLog) {
    if (!zs_build_log_ok(hModuleBuildLog))
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    hModuleBuildLog->magic = 0;
    free(hModuleBuildLog->text);
    free(hModuleBuildLog);
    return ZE_RESULT_SUCCESS;
}

ze_result_t zeModuleGetKernelNames(ze_module_handle_t hModule, uint32_t *pCount,
                                   const char **pNames) {
    if (!zs_module_ok(hModule))
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (!pCount)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    uint32_t n = hModule->spirv.num_kernels;
    if (*pCount == 0 || !pNames) {
        *pCount = n;
        return ZE_RESULT_SUCCESS;
    }
    if (*pCount > n)
        *pCount = n;
    memcpy(pNames, hModule->names, *pCount * sizeof *pNames);
    return ZE_RESULT_SUCCESS;
}

ze_result_t zeModuleGetProperties(ze_module_handle_t hModule,
                                  ze_module_properties_t *pModuleProperties) {
    if (!zs_module_ok(hModule))
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (!pModuleProperties)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    pModuleProperties->flags = hModule->spirv.imports ? ZE_MODULE_PROPERTY_FLAG_IMPORTS : 0;
    return ZE_RESULT_SUCCESS;
}

ze_result_t zeModuleGetGlobalPointer(ze_module_handle_t hModule, const char *pGlobalName,
                                     size_t *pSize, void **pptr) {
    if (!zs_module_ok(hModule))
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (!pGlobalName)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    const struct zs_cl *cl = zs_opencl();
    size_t size = 0;
    void *ptr = NULL;
    if (!cl || cl->GetDeviceGlobalVariablePointerINTEL(cl->device, hModule->program, pGlobalName,
                                                       &size, &ptr))
        return ZE_RESULT_ERROR_INVALID_GLOBAL_NAME;
    if (pSize)
        *pSize = size;
    if (pptr)
        *pptr = ptr;
    return ZE_RESULT_SUCCESS;
}

ze_result_t zeModuleGetFunctionPointer(ze_module_handle_t hModule, const char *pFunctionName,
                                       void **pfnFunction) {
    if (!zs_module_ok(hModule))
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (!pFunctionName || !pfnFunction)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    const struct zs_cl *cl = zs_opencl();
    cl_ulong address = 0;
    if (!cl ||
        cl->GetDeviceFunctionPointerINTEL(cl->device, hModule->program, pFunctionName, &address))
        return ZE_RESULT_ERROR_INVALID_FUNCTION_NAME;
    *pfnFunction = (void *)(uintptr_t)address;
    return ZE_RESULT_SUCCESS;
}

/* The CPU program is not a GPU binary anyone could load again. */
ze_result_t zeModuleGetNativeBinary(ze_module_handle_t hModule, size_t *pSize,
                                    uint8_t *pModuleNativeBinary) {
    (void)pModuleNativeBinary;
    if (!zs_module_ok(hModule))
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    return pSize ? ZE_RESULT_ERROR_UNSUPPORTED_FEATURE : ZE_RESULT_ERROR_INVALID_NULL_POINTER;
}

/* Modules without imports need no linking; OpenCL cannot link programs
 * already built, so imports cannot be resolved. */
ze_result_t zeModuleDynamicLink(uint32_t numModules, ze_module_handle_t *phModules,
                                ze_module_build_log_handle_t *phLinkLog) {
    if (numModules && !phModules)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    bool imports = false;
    for (uint32_t i = 0; i < numModules; i++) {
        if (!zs_module_ok(phModules[i]))
            return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
        imports = imports || phModules[i]->spirv.imports;
    }
    ze_result_t rc =
        zs_build_log_give(phLinkLog, imports ? "ze_sim cannot link modules with imports" : "");
    if (rc != ZE_RESULT_SUCCESS)
        return rc;
    return imports ? ZE_RESULT_ERROR_UNSUPPORTED_FEATURE : ZE_RESULT_SUCCESS;
}
