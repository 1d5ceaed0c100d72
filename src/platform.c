/* The platform registry (see platform.h). */
#include "platform.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "error.h"
#include "internal.h"

typedef struct {
    const char *name;
    DLDeviceType device;
    DLDeviceType host;
} platform_entry;

/* What every process knows without being told. Metal goes by three names:
 * "metal" (Apple's jax-metal reports "METAL"), "mps" (jax-mps) and "mtl"
 * (metal-pjrt-plugin). TPU plugins report "tpu"; their pinned host memory is
 * kDLTPUHost, as JAX exports it. No PJRT plugin reporting "ascend" or "npu"
 * was found, so kDLAscend has no name here (pjdl_register_platform). */
static const platform_entry builtin_platforms[] = {
    {"cpu", kDLCPU, kDLCPU},         {"cuda", kDLCUDA, kDLCUDAHost}, {"rocm", kDLROCM, kDLROCMHost},
    {"xpu", kDLOneAPI, kDLCPU},      {"oneapi", kDLOneAPI, kDLCPU},  {"sycl", kDLOneAPI, kDLCPU},
    {"metal", kDLMetal, kDLCPU},     {"mps", kDLMetal, kDLCPU},      {"mtl", kDLMetal, kDLCPU},
    {"vulkan", kDLVulkan, kDLCPU},   {"opencl", kDLOpenCL, kDLCPU},  {"webgpu", kDLWebGPU, kDLCPU},
    {"hexagon", kDLHexagon, kDLCPU}, {"maia", kDLMAIA, kDLCPU},      {"trn", kDLTrn, kDLCPU},
    {"tpu", kDLTPU, kDLTPUHost},
};

/* Registered platforms, newest registration of a name wins (a replacement
 * overwrites the entry in place). Names are owned copies. */
static pthread_rwlock_t registry_lock = PTHREAD_RWLOCK_INITIALIZER;
/* See pjdl_platform_generation (platform.h: read inline, on every export
 * and import, with no call through the PLT). A cache
 * line of its own, so that writes to neighbouring globals do not slow the
 * reads down across threads. */
_Alignas(64) atomic_uint pjdl__registry_generation;
static platform_entry *registered;
static size_t num_registered, cap_registered;

/* Frees the registrations when the library is unloaded, so that leak checkers
 * see nothing. Lookups after this still see the built-ins. */
__attribute__((destructor)) static void registry_free(void) {
    pthread_rwlock_wrlock(&registry_lock);
    for (size_t i = 0; i < num_registered; i++)
        free((char *)registered[i].name);
    free(registered);
    registered = NULL;
    num_registered = cap_registered = 0;
    pthread_rwlock_unlock(&registry_lock);
}

bool pjdl__dl_device_type_valid(DLDeviceType type) {
    switch (type) {
    case kDLCPU:
    case kDLCUDA:
    case kDLCUDAHost:
    case kDLOpenCL:
    case kDLVulkan:
    case kDLMetal:
    case kDLVPI:
    case kDLROCM:
    case kDLROCMHost:
    case kDLExtDev:
    case kDLCUDAManaged:
    case kDLOneAPI:
    case kDLWebGPU:
    case kDLHexagon:
    case kDLMAIA:
    case kDLTrn:
    case kDLTPU:
    case kDLTPUHost:
    case kDLAscend:
        return true;
    }
    return false;
}

const char *pjdl_dl_device_type_name(DLDeviceType type) {
    switch (type) {
    case kDLCPU:
        return "kDLCPU";
    case kDLCUDA:
        return "kDLCUDA";
    case kDLCUDAHost:
        return "kDLCUDAHost";
    case kDLOpenCL:
        return "kDLOpenCL";
    case kDLVulkan:
        return "kDLVulkan";
    case kDLMetal:
        return "kDLMetal";
    case kDLVPI:
        return "kDLVPI";
    case kDLROCM:
        return "kDLROCM";
    case kDLROCMHost:
        return "kDLROCMHost";
    case kDLExtDev:
        return "kDLExtDev";
    case kDLCUDAManaged:
        return "kDLCUDAManaged";
    case kDLOneAPI:
        return "kDLOneAPI";
    case kDLWebGPU:
        return "kDLWebGPU";
    case kDLHexagon:
        return "kDLHexagon";
    case kDLMAIA:
        return "kDLMAIA";
    case kDLTrn:
        return "kDLTrn";
    case kDLTPU:
        return "kDLTPU";
    case kDLTPUHost:
        return "kDLTPUHost";
    case kDLAscend:
        return "kDLAscend";
    }
    return "unknown device type";
}

bool pjdl_dl_device_type_host_reachable(DLDeviceType type) {
    return pjdl__dl_host_reachable(type);
}

bool pjdl_dl_device_same(DLDevice a, DLDevice b) {
    return pjdl__dl_device_same(a, b);
}

/* Finds `name` among the registrations; call with the lock held. */
static const platform_entry *find_registered(const char *name) {
    for (size_t i = 0; i < num_registered; i++)
        if (strcasecmp(registered[i].name, name) == 0)
            return &registered[i];
    return NULL;
}

static const platform_entry *find_builtin(const char *name) {
    for (size_t i = 0; i < sizeof builtin_platforms / sizeof builtin_platforms[0]; i++)
        if (strcasecmp(builtin_platforms[i].name, name) == 0)
            return &builtin_platforms[i];
    return NULL;
}

pjdl_code pjdl__platform_lookup(const char *name, DLDeviceType *device, DLDeviceType *host) {
    if (name == NULL || name[0] == '\0')
        return pjdl__fail(PJDL_INVALID_ARGUMENT, "platform name is %s",
                          name == NULL ? "NULL" : "empty");
    platform_entry found = {NULL, kDLCPU, kDLCPU};
    pthread_rwlock_rdlock(&registry_lock);
    const platform_entry *e = find_registered(name);
    if (e != NULL)
        found = *e;
    pthread_rwlock_unlock(&registry_lock);
    if (e == NULL) {
        e = find_builtin(name);
        if (e == NULL)
            return pjdl__fail(PJDL_UNIMPLEMENTED,
                              "platform '%s' is not known; call pjdl_register_platform", name);
        found = *e;
    }
    if (device != NULL)
        *device = found.device;
    if (host != NULL)
        *host = found.host;
    return PJDL_OK;
}

pjdl_code pjdl_register_platform(const char *platform_name, DLDeviceType device_type,
                                 DLDeviceType host_memory_type) {
    pjdl__clear_error();
    if (platform_name == NULL || platform_name[0] == '\0')
        return pjdl__fail(PJDL_INVALID_ARGUMENT, "pjdl_register_platform: platform_name is %s",
                          platform_name == NULL ? "NULL" : "empty");
    if (!pjdl__dl_device_type_valid(device_type))
        return pjdl__fail(PJDL_INVALID_ARGUMENT,
                          "pjdl_register_platform: device_type is %d: not a DLPack device type",
                          (int)device_type);
    if (!pjdl__dl_device_type_valid(host_memory_type))
        return pjdl__fail(PJDL_INVALID_ARGUMENT,
                          "pjdl_register_platform: host_memory_type is %d: not a DLPack device "
                          "type",
                          (int)host_memory_type);

    /* Allocate outside the lock; most registrations are new names. */
    char *copy = NULL;
    if (pjdl__strdup(platform_name, strlen(platform_name), &copy) != PJDL_OK)
        return pjdl__fail(PJDL_RESOURCE_EXHAUSTED, "pjdl_register_platform: out of memory");

    pjdl_code code = PJDL_OK;
    pthread_rwlock_wrlock(&registry_lock);
    platform_entry *e = (platform_entry *)find_registered(platform_name);
    if (e != NULL) {
        e->device = device_type;
        e->host = host_memory_type;
    } else {
        if (num_registered == cap_registered) {
            size_t cap = cap_registered ? cap_registered * 2 : 8;
            platform_entry *grown = pjdl__realloc(registered, cap * sizeof *grown);
            if (grown == NULL) {
                code = pjdl__fail(PJDL_RESOURCE_EXHAUSTED, "pjdl_register_platform: out of memory");
                goto unlock;
            }
            registered = grown;
            cap_registered = cap;
        }
        registered[num_registered++] = (platform_entry){copy, device_type, host_memory_type};
        copy = NULL;
    }
unlock:
    if (code == PJDL_OK)
        atomic_fetch_add(&pjdl__registry_generation, 1);
    pthread_rwlock_unlock(&registry_lock);
    free(copy);
    return code;
}

unsigned pjdl_platform_generation(void) {
    return pjdl__platform_generation();
}

pjdl_code pjdl_platform_dl_type(const char *platform_name, const char *memory_kind,
                                DLDeviceType *out) {
    pjdl__clear_error();
    if (out == NULL)
        return pjdl__fail(PJDL_INVALID_ARGUMENT, "pjdl_platform_dl_type: out is NULL");
    if (platform_name == NULL || platform_name[0] == '\0')
        return pjdl__fail(PJDL_INVALID_ARGUMENT, "pjdl_platform_dl_type: platform_name is %s",
                          platform_name == NULL ? "NULL" : "empty");
    /* Unpinned host memory is ordinary CPU memory whatever the platform, known
     * or not. */
    if (memory_kind != NULL && strcmp(memory_kind, "unpinned_host") == 0) {
        *out = kDLCPU;
        return PJDL_OK;
    }
    DLDeviceType device, host;
    PJDL_TRY(pjdl__platform_lookup(platform_name, &device, &host));
    *out = memory_kind != NULL && strcmp(memory_kind, "pinned_host") == 0 ? host : device;
    return PJDL_OK;
}
