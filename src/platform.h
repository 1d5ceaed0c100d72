/* The process-wide platform registry: which DLPack device types a PJRT
 * platform's memories have. The public half (pjdl_register_platform,
 * pjdl_platform_dl_type, pjdl_platform_id) is declared in pjrt_dlpack.h.
 *
 * Platform names are compared ignoring ASCII case, because plugins are not
 * consistent about it (jax-metal reports "METAL"; XLA's own are lower-case):
 * "CUDA", "Cuda" and "cuda" are the same platform, and registering "Foo"
 * replaces an earlier "foo". Memory kinds are compared exactly.
 *
 * The registry is process-wide mutable state (docs/design.md lists the rest:
 * the table of initialized plugins, the test build's fault injection, the
 * thread-local error). It is guarded by a reader-writer lock: lookups take
 * the read side and never allocate; registration takes the write side. */
#ifndef PJDL_SRC_PLATFORM_H_
#define PJDL_SRC_PLATFORM_H_

#include <stdatomic.h>
#include <stdbool.h>

#include "pjrt_dlpack.h"

/* The registry's generation (platform.c): the definition of the public
 * pjdl_platform_generation, inline for the hot paths (an export reads it on
 * every call; the public function is reached through the PLT). */
extern atomic_uint pjdl__registry_generation;

static inline unsigned pjdl__platform_generation(void) {
    return atomic_load(&pjdl__registry_generation);
}

/* The device type of platform `name`'s device memory and of its pinned host
 * memory. Either out-pointer may be NULL. UNIMPLEMENTED "platform 'x' is not
 * known; call pjdl_register_platform" for an unknown platform,
 * INVALID_ARGUMENT for a NULL or empty name. Sets the thread's error only on
 * failure; does not clear it. */
pjdl_code pjdl__platform_lookup(const char *name, DLDeviceType *device, DLDeviceType *host);

/* Whether `type` is a device type DLPack defines. */
bool pjdl__dl_device_type_valid(DLDeviceType type);

/* pjdl_dl_device_type_host_reachable and pjdl_dl_device_same are public
 * (pjrt_dlpack.h); these are their definitions, inline for the hot paths. */
static inline bool pjdl__dl_host_reachable(DLDeviceType type) {
    return type == kDLCPU || type == kDLCUDAHost || type == kDLROCMHost || type == kDLTPUHost;
}

static inline bool pjdl__dl_device_same(DLDevice a, DLDevice b) {
    return a.device_type == b.device_type &&
           (a.device_id == b.device_id || pjdl__dl_host_reachable(a.device_type));
}

#endif
