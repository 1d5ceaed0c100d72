/*
 * ze_sim: kernel launches (see kernel.c). Appending a launch copies the
 * kernel with its arguments (clCloneKernel) into a command; the queue's
 * worker runs it on an OpenCL queue of its own and waits until the CPU
 * device has finished it.
 */
#include "kernel.h"

#include <stdio.h>

/* Level Zero's launches have no dimension count; as Intel's driver does, the
 * last dimension with more than one work-item is the last one. */
static uint32_t zs_dims(const size_t global[3]) {
    return global[2] > 1 ? 3 : global[1] > 1 ? 2 : 1;
}

static ze_result_t zs_append_launch(ze_command_list_handle_t list, ze_kernel_handle_t k,
                                    const ze_group_count_t *count, ze_event_handle_t signal,
                                    uint32_t num_waits, ze_event_handle_t *waits) {
    if (!zs_kernel_ok(k))
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (!count)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    const struct zs_cl *cl = zs_opencl();
    if (!cl)
        return ZE_RESULT_ERROR_DEVICE_LOST; /* a forked child (opencl.c) */
    struct zs_cmd c = zs_cmd_of(ZS_CMD_LAUNCH, signal, num_waits, waits);
    const uint32_t groups[3] = {count->groupCountX, count->groupCountY, count->groupCountZ};
    for (int i = 0; i < 3; i++) {
        c.launch.local[i] = k->group[i];
        c.launch.global[i] = (size_t)groups[i] * k->group[i];
        c.launch.offset[i] = k->offset[i];
    }
    c.launch.dims = zs_dims(c.launch.global);
    zs_trace("launch of kernel %p '%s': groups %ux%ux%u of %ux%ux%u", (void *)k, k->spirv.name,
             groups[0], groups[1], groups[2], k->group[0], k->group[1], k->group[2]);
    cl_int err = 0;
    cl_kernel copy = cl->CloneKernel(k->kernel, &err);
    if (!copy)
        return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    c.launch.kernel = (struct zs_cl_kernel *)copy;
    ze_result_t rc = zs_list_append(list, &c); /* takes its own reference */
    cl->ReleaseKernel(copy);
    return rc;
}

ze_result_t zeCommandListAppendLaunchKernel(ze_command_list_handle_t hCommandList,
                                            ze_kernel_handle_t hKernel,
                                            const ze_group_count_t *pLaunchFuncArgs,
                                            ze_event_handle_t hSignalEvent, uint32_t numWaitEvents,
                                            ze_event_handle_t *phWaitEvents) {
    return zs_append_launch(hCommandList, hKernel, pLaunchFuncArgs, hSignalEvent, numWaitEvents,
                            phWaitEvents);
}

/* Cooperative: the groups run as any launch's do; the CPU device's threads
 * run as many at once as zeKernelSuggestMaxCooperativeGroupCount says. */
ze_result_t zeCommandListAppendLaunchCooperativeKernel(ze_command_list_handle_t hCommandList,
                                                       ze_kernel_handle_t hKernel,
                                                       const ze_group_count_t *pLaunchFuncArgs,
                                                       ze_event_handle_t hSignalEvent,
                                                       uint32_t numWaitEvents,
                                                       ze_event_handle_t *phWaitEvents) {
    return zs_append_launch(hCommandList, hKernel, pLaunchFuncArgs, hSignalEvent, numWaitEvents,
                            phWaitEvents);
}

static void zs_launch_report(const struct zs_launch *l, const char *what, cl_int err) {
    fprintf(stderr, "ze_sim: a kernel launch of %zux%zux%zu work-items did not run: %s (%d)\n",
            l->global[0], l->global[1], l->global[2], what, err);
}

void zs_launch_run(const struct zs_launch *l, struct zs_cl_queue **queue) {
    const struct zs_cl *cl = zs_opencl();
    if (!cl) {
        fprintf(stderr, "ze_sim: a kernel launch did not run: %s\n", zs_opencl_why());
        return;
    }
    if (!l->global[0] || !l->global[1] || !l->global[2])
        return; /* no work-items: nothing to run */
    cl_int err = 0;
    if (!*queue) {
        cl_command_queue q =
            cl->CreateCommandQueueWithProperties(cl->context, cl->device, NULL, &err);
        if (!q) {
            zs_launch_report(l, "no OpenCL queue", err);
            return;
        }
        *queue = (struct zs_cl_queue *)q;
    }
    cl_command_queue q = (cl_command_queue)*queue;
    err = cl->EnqueueNDRangeKernel(q, (cl_kernel)l->kernel, l->dims, l->offset, l->global, l->local,
                                   0, NULL, NULL);
    if (err)
        zs_launch_report(l, "OpenCL refused it", err);
    cl->Finish(q);
}

/* In a forked child the parent's OpenCL objects are neither counted nor
 * released: the runtime's threads are the parent's (opencl.c). */
void zs_launch_retain(const struct zs_launch *l) {
    const struct zs_cl *cl = zs_opencl();
    if (cl)
        cl->RetainKernel((cl_kernel)l->kernel);
}

void zs_launch_release(struct zs_launch *l) {
    const struct zs_cl *cl = zs_opencl();
    if (l->kernel && cl)
        cl->ReleaseKernel((cl_kernel)l->kernel);
    l->kernel = NULL;
}

void zs_launch_queue_free(struct zs_cl_queue *queue) {
    const struct zs_cl *cl = queue ? zs_opencl() : NULL;
    if (cl)
        cl->ReleaseCommandQueue((cl_command_queue)queue);
}
