/*
 * ze_sim: Intel's OpenCL CPU runtime, loaded privately (opencl.h). Loaded
 * once, on the first module, with RTLD_LOCAL so that its cl* symbols stay
 * out of the process's namespace, and never unloaded (its worker threads
 * live as long as the process). Without it ze_sim still simulates copies
 * and events; only modules refuse to build, saying why.
 */
#include "kernel.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static struct zs_cl zs_cl;
static pthread_once_t zs_cl_once = PTHREAD_ONCE_INIT;
static bool zs_cl_ok;
static pid_t zs_cl_pid;      /* the process that loaded it */
static char zs_cl_why[1600]; /* a path of up to 1023 bytes and a sentence */

#define ZS_CL_DEFAULT_LIBRARY "libintelocl.so"

/* Every function of struct zs_cl, with its exported name. */
#define ZS_CL_FUNCTIONS(X)                                                                         \
    X(GetPlatformIDs)                                                                              \
    X(GetDeviceIDs)                                                                                \
    X(GetDeviceInfo)                                                                               \
    X(CreateContext)                                                                               \
    X(CreateCommandQueueWithProperties)                                                            \
    X(ReleaseCommandQueue)                                                                         \
    X(Finish)                                                                                      \
    X(CreateProgramWithIL)                                                                         \
    X(SetProgramSpecializationConstant)                                                            \
    X(BuildProgram)                                                                                \
    X(CompileProgram)                                                                              \
    X(LinkProgram)                                                                                 \
    X(GetProgramInfo)                                                                              \
    X(GetProgramBuildInfo)                                                                         \
    X(ReleaseProgram)                                                                              \
    X(CreateKernel)                                                                                \
    X(CloneKernel)                                                                                 \
    X(RetainKernel)                                                                                \
    X(ReleaseKernel)                                                                               \
    X(GetKernelWorkGroupInfo)                                                                      \
    X(GetKernelSubGroupInfo)                                                                       \
    X(SetKernelArg)                                                                                \
    X(SetKernelArgMemPointerINTEL)                                                                 \
    X(SetKernelExecInfo)                                                                           \
    X(EnqueueNDRangeKernel)                                                                        \
    X(GetDeviceGlobalVariablePointerINTEL)                                                         \
    X(GetDeviceFunctionPointerINTEL)

static bool zs_cl_bind(void *lib, const char *path) {
#define ZS_CL_BIND(name)                                                                           \
    *(void **)&zs_cl.name = dlsym(lib, "cl" #name);                                                \
    if (!zs_cl.name) {                                                                             \
        snprintf(zs_cl_why, sizeof zs_cl_why, "%s has no cl" #name, path);                         \
        return false;                                                                              \
    }
    ZS_CL_FUNCTIONS(ZS_CL_BIND)
#undef ZS_CL_BIND
    return true;
}

/* The runtime's first CPU device and a context on it. */
static bool zs_cl_device(const char *path) {
    cl_platform_id platforms[4];
    cl_uint n = 0;
    cl_int rc = zs_cl.GetPlatformIDs(4, platforms, &n);
    for (cl_uint i = 0; rc == ZS_CL_SUCCESS && i < n && i < 4 && !zs_cl.device; i++) {
        cl_uint m = 0;
        if (zs_cl.GetDeviceIDs(platforms[i], ZS_CL_DEVICE_TYPE_CPU, 1, &zs_cl.device, &m) || m == 0)
            zs_cl.device = NULL;
    }
    if (!zs_cl.device) {
        snprintf(zs_cl_why, sizeof zs_cl_why, "%s reports no CPU device (error %d)", path, rc);
        return false;
    }
    zs_cl.context = zs_cl.CreateContext(NULL, 1, &zs_cl.device, NULL, NULL, &rc);
    if (!zs_cl.context) {
        snprintf(zs_cl_why, sizeof zs_cl_why, "%s made no context (error %d)", path, rc);
        return false;
    }
    if (zs_cl.GetDeviceInfo(zs_cl.device, ZS_CL_DEVICE_MAX_WORK_GROUP_SIZE,
                            sizeof zs_cl.max_group_size, &zs_cl.max_group_size, NULL))
        zs_cl.max_group_size = 1024;
    return true;
}

static void zs_cl_load(void) {
    const char *path = zs_config.opencl[0] ? zs_config.opencl : ZS_CL_DEFAULT_LIBRARY;
    void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        snprintf(zs_cl_why, sizeof zs_cl_why,
                 "Intel's OpenCL CPU runtime (%s) cannot be loaded: %s; put the oneAPI runtime's "
                 "lib folder on LD_LIBRARY_PATH or name the library in ZE_SIM_OPENCL",
                 path, dlerror());
        return;
    }
    zs_cl_ok = zs_cl_bind(lib, path) && zs_cl_device(path);
    zs_cl_pid = getpid();
}

/* A child forked after the runtime was loaded has none of its threads, and
 * a kernel enqueued there would never run: the runtime is the parent's. */
const struct zs_cl *zs_opencl(void) {
    pthread_once(&zs_cl_once, zs_cl_load);
    if (zs_cl_ok && getpid() != zs_cl_pid) {
        snprintf(zs_cl_why, sizeof zs_cl_why,
                 "the OpenCL runtime was loaded before this process was forked; its threads "
                 "are the parent's, so no kernel can run here");
        return NULL;
    }
    return zs_cl_ok ? &zs_cl : NULL;
}

const char *zs_opencl_why(void) {
    return zs_cl_why;
}
