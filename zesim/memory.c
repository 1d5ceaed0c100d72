/*
 * ze_sim: memory. Device, host and shared allocations all live in host
 * memory, aligned to 4096 bytes (d) or the caller's larger alignment; a
 * table maps any address inside one to its allocation, as the driver's
 * zeMemGetAllocProperties does. Device memory is counted against the
 * device's reported size. The table is guarded by zs_lock (held across
 * fork, see engine.c).
 */
#include "zs.h"

#include <stdlib.h>
#include <string.h>

static struct zs_alloc_info *zs_allocs;
static size_t zs_num_allocs, zs_cap_allocs;
static uint64_t zs_next_id = 1;
static uint64_t zs_used[ZS_MAX_DEVICES];

/* The index of the allocation holding ptr, or zs_num_allocs (lock held). */
static size_t zs_find_locked(const void *ptr) {
    uintptr_t p = (uintptr_t)ptr;
    for (size_t i = 0; i < zs_num_allocs; i++) {
        uintptr_t b = (uintptr_t)zs_allocs[i].base;
        if (p >= b && p - b < (zs_allocs[i].size ? zs_allocs[i].size : 1))
            return i;
    }
    return zs_num_allocs;
}

/* At unload, the table if nothing is left in it (a caller's late zeMemFree
 * would still find an empty table). */
__attribute__((destructor)) static void zs_mem_unload(void) {
    pthread_mutex_lock(&zs_lock);
    if (zs_num_allocs == 0) {
        free(zs_allocs);
        zs_allocs = NULL;
        zs_cap_allocs = 0;
    }
    pthread_mutex_unlock(&zs_lock);
}

bool zs_alloc_find(const void *ptr, struct zs_alloc_info *out) {
    pthread_mutex_lock(&zs_lock);
    size_t i = zs_find_locked(ptr);
    bool found = i < zs_num_allocs;
    if (found && out)
        *out = zs_allocs[i];
    pthread_mutex_unlock(&zs_lock);
    return found;
}

static ze_result_t zs_alloc(size_t size, size_t alignment, ze_memory_type_t type, uint32_t device,
                            void **pptr) {
    if (!pptr)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    if (alignment & (alignment - 1))
        return ZE_RESULT_ERROR_UNSUPPORTED_ALIGNMENT;
    size_t align = alignment > ZS_PAGE ? alignment : ZS_PAGE;
    if (size > zs_config.memory_size)
        return type == ZE_MEMORY_TYPE_HOST ? ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY
                                           : ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY;
    size_t rounded = (size + align - 1) / align * align;
    pthread_mutex_lock(&zs_lock);
    ze_result_t rc = ZE_RESULT_SUCCESS;
    bool counted = type != ZE_MEMORY_TYPE_HOST;
    if (counted && zs_used[device] + size > zs_config.memory_size)
        rc = ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY;
    if (rc == ZE_RESULT_SUCCESS && zs_num_allocs == zs_cap_allocs) {
        size_t cap = zs_cap_allocs ? zs_cap_allocs * 2 : 64;
        struct zs_alloc_info *grown = realloc(zs_allocs, cap * sizeof *grown);
        if (grown) {
            zs_allocs = grown;
            zs_cap_allocs = cap;
        } else {
            rc = ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
        }
    }
    void *mem = rc == ZE_RESULT_SUCCESS ? aligned_alloc(align, rounded ? rounded : align) : NULL;
    if (rc == ZE_RESULT_SUCCESS && !mem)
        rc = ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    if (rc == ZE_RESULT_SUCCESS) {
        zs_allocs[zs_num_allocs++] = (struct zs_alloc_info){mem, size, type, device, zs_next_id++};
        if (counted)
            zs_used[device] += size;
        *pptr = mem;
        zs_trace("alloc %p %zu bytes, type %d", mem, size, (int)type);
    }
    pthread_mutex_unlock(&zs_lock);
    return rc;
}

ze_result_t zeMemAllocDevice(ze_context_handle_t hContext,
                             const ze_device_mem_alloc_desc_t *device_desc, size_t size,
                             size_t alignment, ze_device_handle_t hDevice, void **pptr) {
    if (!zs_context_ok(hContext) || !zs_device_ok(hDevice))
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (!device_desc)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    return zs_alloc(size, alignment, ZE_MEMORY_TYPE_DEVICE, hDevice->index, pptr);
}

ze_result_t zeMemAllocHost(ze_context_handle_t hContext, const ze_host_mem_alloc_desc_t *host_desc,
                           size_t size, size_t alignment, void **pptr) {
    if (!zs_context_ok(hContext))
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (!host_desc)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    return zs_alloc(size, alignment, ZE_MEMORY_TYPE_HOST, 0, pptr);
}

ze_result_t zeMemAllocShared(ze_context_handle_t hContext,
                             const ze_device_mem_alloc_desc_t *device_desc,
                             const ze_host_mem_alloc_desc_t *host_desc, size_t size,
                             size_t alignment, ze_device_handle_t hDevice, void **pptr) {
    if (!zs_context_ok(hContext) || (hDevice && !zs_device_ok(hDevice)))
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (!device_desc || !host_desc)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    return zs_alloc(size, alignment, ZE_MEMORY_TYPE_SHARED, hDevice ? hDevice->index : 0, pptr);
}

ze_result_t zeMemFree(ze_context_handle_t hContext, void *ptr) {
    if (!zs_context_ok(hContext))
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (!ptr)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    pthread_mutex_lock(&zs_lock);
    size_t i = zs_find_locked(ptr);
    bool found = i < zs_num_allocs && zs_allocs[i].base == ptr;
    if (found) {
        if (zs_allocs[i].type != ZE_MEMORY_TYPE_HOST)
            zs_used[zs_allocs[i].device] -= zs_allocs[i].size;
        zs_allocs[i] = zs_allocs[--zs_num_allocs];
    }
    pthread_mutex_unlock(&zs_lock);
    zs_trace("free %p%s", ptr, found ? "" : " (not an allocation)");
    if (!found)
        return ZE_RESULT_ERROR_INVALID_ARGUMENT;
    free(ptr);
    return ZE_RESULT_SUCCESS;
}

ze_result_t zeMemGetAllocProperties(ze_context_handle_t hContext, const void *ptr,
                                    ze_memory_allocation_properties_t *p,
                                    ze_device_handle_t *phDevice) {
    if (!zs_context_ok(hContext))
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (!ptr || !p)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    struct zs_alloc_info a;
    bool found = zs_alloc_find(ptr, &a);
    p->type = found ? a.type : ZE_MEMORY_TYPE_UNKNOWN;
    p->id = found ? a.id : 0;
    p->pageSize = found ? ZS_PAGE : 0;
    if (phDevice)
        *phDevice = found && a.type != ZE_MEMORY_TYPE_HOST ? &zs_devices[a.device] : NULL;
    return ZE_RESULT_SUCCESS;
}

ze_result_t zeMemGetAddressRange(ze_context_handle_t hContext, const void *ptr, void **pBase,
                                 size_t *pSize) {
    if (!zs_context_ok(hContext))
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    struct zs_alloc_info a;
    if (!zs_alloc_find(ptr, &a))
        return ZE_RESULT_ERROR_ADDRESS_NOT_FOUND;
    if (pBase)
        *pBase = a.base;
    if (pSize)
        *pSize = a.size;
    return ZE_RESULT_SUCCESS;
}

/* Residency: every allocation is always resident. */
ze_result_t zeContextMakeMemoryResident(ze_context_handle_t hContext, ze_device_handle_t hDevice,
                                        void *ptr, size_t size) {
    (void)size;
    if (!zs_context_ok(hContext) || !zs_device_ok(hDevice))
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    return ptr ? ZE_RESULT_SUCCESS : ZE_RESULT_ERROR_INVALID_NULL_POINTER;
}
