/*
 * ze_sim: command queues and command lists. A regular list records
 * commands until it is closed; zeCommandQueueExecuteCommandLists copies
 * them into one job of the queue's worker. An immediate list has a worker
 * of its own and hands each command to it as it is appended (and waits for
 * it when the list was created synchronous).
 */
#include "zs.h"

#include <stdlib.h>
#include <string.h>

struct ze_sim_list {
    uint32_t magic;
    ze_device_handle_t device;
    struct ze_sim_queue *queue; /* immediate lists only */
    bool synchronous;
    bool closed;
    struct zs_cmd *cmds;
    size_t n, cap;
};

static bool zs_list_ok(ze_command_list_handle_t l) {
    return l && l->magic == ZS_MAGIC_LIST;
}

ze_result_t zeCommandQueueCreate(ze_context_handle_t hContext, ze_device_handle_t hDevice,
                                 const ze_command_queue_desc_t *desc,
                                 ze_command_queue_handle_t *phCommandQueue) {
    if (!zs_context_ok(hContext) || !zs_device_ok(hDevice))
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (!desc || !phCommandQueue)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    if (desc->ordinal != 0)
        return ZE_RESULT_ERROR_INVALID_ARGUMENT; /* one group of queues */
    return zs_queue_new(hDevice, phCommandQueue);
}

ze_result_t zeCommandQueueDestroy(ze_command_queue_handle_t hCommandQueue) {
    if (!zs_queue_ok(hCommandQueue))
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    zs_queue_free(hCommandQueue);
    return ZE_RESULT_SUCCESS;
}

ze_result_t zeCommandQueueSynchronize(ze_command_queue_handle_t hCommandQueue, uint64_t timeout) {
    if (!zs_queue_ok(hCommandQueue))
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    return zs_queue_sync(hCommandQueue, timeout);
}

/* Copies every command of the closed regular lists into one job. */
ze_result_t zeCommandQueueExecuteCommandLists(ze_command_queue_handle_t hCommandQueue,
                                              uint32_t numCommandLists,
                                              ze_command_list_handle_t *phCommandLists,
                                              ze_fence_handle_t hFence) {
    if (!zs_queue_ok(hCommandQueue) || (hFence && hFence->magic != ZS_MAGIC_FENCE))
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (!phCommandLists)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    if (numCommandLists == 0)
        return ZE_RESULT_ERROR_INVALID_SIZE;
    size_t total = 0;
    for (uint32_t i = 0; i < numCommandLists; i++) {
        ze_command_list_handle_t l = phCommandLists[i];
        if (!zs_list_ok(l))
            return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
        if (l->queue || !l->closed)
            return ZE_RESULT_ERROR_INVALID_ARGUMENT;
        total += l->n;
    }
    struct zs_cmd *cmds = calloc(total ? total : 1, sizeof *cmds);
    if (!cmds)
        return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    size_t k = 0;
    for (uint32_t i = 0; i < numCommandLists; i++) {
        for (size_t j = 0; j < phCommandLists[i]->n; j++) {
            if (zs_cmd_clone(&cmds[k], &phCommandLists[i]->cmds[j]) != ZE_RESULT_SUCCESS) {
                while (k--)
                    zs_cmd_free(&cmds[k]);
                free(cmds);
                return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
            }
            k++;
        }
    }
    return zs_queue_submit(hCommandQueue, cmds, total, hFence);
}

static ze_result_t zs_list_new(ze_device_handle_t device, bool immediate,
                               ze_command_list_handle_t *out) {
    struct ze_sim_list *l = calloc(1, sizeof *l);
    if (!l)
        return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    l->magic = ZS_MAGIC_LIST;
    l->device = device;
    if (immediate && zs_queue_new(device, &l->queue) != ZE_RESULT_SUCCESS) {
        free(l);
        return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    }
    *out = l;
    return ZE_RESULT_SUCCESS;
}

ze_result_t zeCommandListCreate(ze_context_handle_t hContext, ze_device_handle_t hDevice,
                                const ze_command_list_desc_t *desc,
                                ze_command_list_handle_t *phCommandList) {
    if (!zs_context_ok(hContext) || !zs_device_ok(hDevice))
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (!desc || !phCommandList)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    return zs_list_new(hDevice, false, phCommandList);
}

ze_result_t zeCommandListCreateImmediate(ze_context_handle_t hContext, ze_device_handle_t hDevice,
                                         const ze_command_queue_desc_t *altdesc,
                                         ze_command_list_handle_t *phCommandList) {
    if (!zs_context_ok(hContext) || !zs_device_ok(hDevice))
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (!altdesc || !phCommandList)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    ze_result_t rc = zs_list_new(hDevice, true, phCommandList);
    if (rc == ZE_RESULT_SUCCESS)
        (*phCommandList)->synchronous = altdesc->mode == ZE_COMMAND_QUEUE_MODE_SYNCHRONOUS;
    return rc;
}

static void zs_list_clear(ze_command_list_handle_t l) {
    for (size_t i = 0; i < l->n; i++)
        zs_cmd_free(&l->cmds[i]);
    l->n = 0;
    l->closed = false;
}

ze_result_t zeCommandListDestroy(ze_command_list_handle_t hCommandList) {
    if (!zs_list_ok(hCommandList))
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (hCommandList->queue)
        zs_queue_free(hCommandList->queue);
    zs_list_clear(hCommandList);
    free(hCommandList->cmds);
    hCommandList->magic = 0;
    free(hCommandList);
    return ZE_RESULT_SUCCESS;
}

ze_result_t zeCommandListClose(ze_command_list_handle_t hCommandList) {
    if (!zs_list_ok(hCommandList))
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    hCommandList->closed = true;
    return ZE_RESULT_SUCCESS;
}

ze_result_t zeCommandListReset(ze_command_list_handle_t hCommandList) {
    if (!zs_list_ok(hCommandList))
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (hCommandList->queue)
        zs_queue_sync(hCommandList->queue, UINT64_MAX);
    zs_list_clear(hCommandList);
    return ZE_RESULT_SUCCESS;
}

/* An immediate list waits for its worker; a regular list has nothing in
 * flight of its own (its commands run as jobs of the queues). */
ze_result_t zeCommandListHostSynchronize(ze_command_list_handle_t hCommandList, uint64_t timeout) {
    if (!zs_list_ok(hCommandList))
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    return hCommandList->queue ? zs_queue_sync(hCommandList->queue, timeout) : ZE_RESULT_SUCCESS;
}

/* Records cmd (with copies of its arrays) or, on an immediate list, runs it. */
ze_result_t zs_list_append(ze_command_list_handle_t l, const struct zs_cmd *cmd) {
    if (!zs_list_ok(l))
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (cmd->signal && !zs_event_ok(cmd->signal))
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (cmd->num_waits && !cmd->waits)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    for (uint32_t i = 0; i < cmd->num_waits; i++) {
        if (!zs_event_ok(cmd->waits[i]))
            return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    }
    if (!l->queue && l->closed)
        return ZE_RESULT_ERROR_INVALID_ARGUMENT;
    if (!l->queue && l->n == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 16;
        struct zs_cmd *grown = realloc(l->cmds, cap * sizeof *grown);
        if (!grown)
            return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
        l->cmds = grown;
        l->cap = cap;
    }
    struct zs_cmd *slot = l->queue ? malloc(sizeof *slot) : &l->cmds[l->n];
    if (!slot)
        return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    ze_result_t rc = zs_cmd_clone(slot, cmd);
    if (rc != ZE_RESULT_SUCCESS) {
        if (l->queue)
            free(slot);
        return rc;
    }
    if (!l->queue) {
        l->n++;
        return ZE_RESULT_SUCCESS;
    }
    rc = zs_queue_submit(l->queue, slot, 1, NULL);
    if (rc == ZE_RESULT_SUCCESS && l->synchronous)
        rc = zs_queue_sync(l->queue, UINT64_MAX);
    return rc;
}
