/*
 * ze_sim: the OpenCL runtime that compiles and runs the simulated GPU's
 * kernels (opencl.c). Intel's OpenCL CPU runtime (libintelocl.so, in the
 * oneAPI runtime the plugin pins) exports the cl* functions itself, so
 * ze_sim loads it privately with dlopen: no ICD loader, and no SYCL runtime
 * sees an OpenCL device. The types, values and prototypes ze_sim uses are
 * declared here from the public OpenCL specification and Intel's published
 * extensions (cl_intel_unified_shared_memory, cl_intel_required_subgroup_size).
 */
#ifndef ZE_SIM_OPENCL_H
#define ZE_SIM_OPENCL_H

#include <stddef.h>
#include <stdint.h>

typedef int32_t cl_int;
typedef uint32_t cl_uint;
typedef uint64_t cl_ulong;
typedef struct zs_cl_platform *cl_platform_id;
typedef struct zs_cl_device *cl_device_id;
typedef struct zs_cl_context *cl_context;
typedef struct zs_cl_queue *cl_command_queue;
typedef struct zs_cl_program *cl_program;
typedef struct zs_cl_kernel *cl_kernel;
typedef struct zs_cl_event *cl_event;

enum {
    ZS_CL_SUCCESS = 0,
    ZS_CL_BUILD_PROGRAM_FAILURE = -11,
    ZS_CL_INVALID_ARG_SIZE = -51,
    ZS_CL_INVALID_KERNEL_NAME = -46,
};
#define ZS_CL_DEVICE_TYPE_CPU (UINT64_C(1) << 1)
enum {
    ZS_CL_DEVICE_MAX_WORK_GROUP_SIZE = 0x1004,
    ZS_CL_PROGRAM_BINARY_SIZES = 0x1165,
    ZS_CL_PROGRAM_BINARIES = 0x1166,
    ZS_CL_PROGRAM_KERNEL_NAMES = 0x1168,
    ZS_CL_PROGRAM_BUILD_LOG = 0x1183,
    ZS_CL_KERNEL_NUM_ARGS = 0x1191,
    ZS_CL_KERNEL_WORK_GROUP_SIZE = 0x11B0,
    ZS_CL_KERNEL_COMPILE_WORK_GROUP_SIZE = 0x11B1,
    ZS_CL_KERNEL_LOCAL_MEM_SIZE = 0x11B2,
    ZS_CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE = 0x11B3,
    ZS_CL_KERNEL_PRIVATE_MEM_SIZE = 0x11B4,
    ZS_CL_KERNEL_EXEC_INFO_SVM_FINE_GRAIN_SYSTEM = 0x11B7,
    ZS_CL_KERNEL_MAX_NUM_SUB_GROUPS = 0x11B9,
    ZS_CL_KERNEL_COMPILE_NUM_SUB_GROUPS = 0x11BA,
    ZS_CL_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE = 0x2033,
    ZS_CL_KERNEL_SPILL_MEM_SIZE_INTEL = 0x4109,
    ZS_CL_KERNEL_COMPILE_SUB_GROUP_SIZE_INTEL = 0x410A,
};

/* The functions ze_sim calls, and the runtime's one CPU device. */
struct zs_cl {
    cl_int (*GetPlatformIDs)(cl_uint, cl_platform_id *, cl_uint *);
    cl_int (*GetDeviceIDs)(cl_platform_id, cl_ulong, cl_uint, cl_device_id *, cl_uint *);
    cl_int (*GetDeviceInfo)(cl_device_id, cl_uint, size_t, void *, size_t *);
    cl_context (*CreateContext)(const intptr_t *, cl_uint, const cl_device_id *, void *, void *,
                                cl_int *);
    cl_command_queue (*CreateCommandQueueWithProperties)(cl_context, cl_device_id, const cl_ulong *,
                                                         cl_int *);
    cl_int (*ReleaseCommandQueue)(cl_command_queue);
    cl_int (*Finish)(cl_command_queue);
    cl_program (*CreateProgramWithIL)(cl_context, const void *, size_t, cl_int *);
    cl_int (*SetProgramSpecializationConstant)(cl_program, cl_uint, size_t, const void *);
    cl_int (*BuildProgram)(cl_program, cl_uint, const cl_device_id *, const char *, void *, void *);
    cl_int (*CompileProgram)(cl_program, cl_uint, const cl_device_id *, const char *, cl_uint,
                             const cl_program *, const char **, void *, void *);
    cl_program (*LinkProgram)(cl_context, cl_uint, const cl_device_id *, const char *, cl_uint,
                              const cl_program *, void *, void *, cl_int *);
    cl_int (*GetProgramInfo)(cl_program, cl_uint, size_t, void *, size_t *);
    cl_int (*GetProgramBuildInfo)(cl_program, cl_device_id, cl_uint, size_t, void *, size_t *);
    cl_int (*ReleaseProgram)(cl_program);
    cl_kernel (*CreateKernel)(cl_program, const char *, cl_int *);
    cl_kernel (*CloneKernel)(cl_kernel, cl_int *);
    cl_int (*RetainKernel)(cl_kernel);
    cl_int (*ReleaseKernel)(cl_kernel);
    cl_int (*GetKernelWorkGroupInfo)(cl_kernel, cl_device_id, cl_uint, size_t, void *, size_t *);
    cl_int (*GetKernelSubGroupInfo)(cl_kernel, cl_device_id, cl_uint, size_t, const void *, size_t,
                                    void *, size_t *);
    cl_int (*SetKernelArg)(cl_kernel, cl_uint, size_t, const void *);
    cl_int (*SetKernelArgMemPointerINTEL)(cl_kernel, cl_uint, const void *);
    cl_int (*SetKernelExecInfo)(cl_kernel, cl_uint, size_t, const void *);
    cl_int (*EnqueueNDRangeKernel)(cl_command_queue, cl_kernel, cl_uint, const size_t *,
                                   const size_t *, const size_t *, cl_uint, const cl_event *,
                                   cl_event *);
    cl_int (*GetDeviceGlobalVariablePointerINTEL)(cl_device_id, cl_program, const char *, size_t *,
                                                  void **);
    cl_int (*GetDeviceFunctionPointerINTEL)(cl_device_id, cl_program, const char *, cl_ulong *);
    cl_context context;
    cl_device_id device;
    size_t max_group_size;
};

/* The runtime, loaded and its context made on first use (ZE_SIM_OPENCL
 * names the library, default libintelocl.so); NULL when it cannot be, with
 * the reason in zs_opencl_why(). */
const struct zs_cl *zs_opencl(void);
const char *zs_opencl_why(void);

#endif
