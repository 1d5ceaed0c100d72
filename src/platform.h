/* The process-wide platform registry: which DLPack device types a PJRT
 * platform's memories have. The public half (pjdl_register_platform,
 * pjdl_platform_dl_type, pjdl_platform_id) is declared in pjrt_dlpack.h.
 *
 * Platform names are compared ignoring ASCII case, because plugins are not
 * consistent about it (jax-metal reports "METAL"; XLA's own are lower-case):
 * "CUDA", "Cuda" and "cuda" are the same platform, and registering "Foo"
 * replaces an earlier "foo". Memory kinds are compared exactly.
 *
 * The registry is the library's only global mutable state. It is guarded by
 * a reader-writer lock: lookups take the read side and never allocate;
 * registration takes the write side. */
#ifndef PJDL_SRC_PLATFORM_H_
#define PJDL_SRC_PLATFORM_H_

#include <stdbool.h>

#include "pjrt_dlpack.h"

/* The device type of platform `name`'s device memory and of its pinned host
 * memory. Either out-pointer may be NULL. UNIMPLEMENTED "platform 'x' is not
 * known; call pjdl_register_platform" for an unknown platform,
 * INVALID_ARGUMENT for a NULL or empty name. Sets the thread's error only on
 * failure; does not clear it. */
pjdl_code pjdl_platform_lookup(const char *name, DLDeviceType *device, DLDeviceType *host);

/* A number that changes with every successful pjdl_register_platform, so
 * that a DLPack device type computed earlier can be cached and revalidated
 * with one atomic load. */
unsigned pjdl_platform_generation(void);

/* Whether `type` is a device type DLPack defines. */
bool pjdl_dl_device_type_valid(DLDeviceType type);

/* Whether memory of `type` can be read by the host CPU with plain loads
 * (kDLCPU, kDLCUDAHost, kDLROCMHost). kDLCUDAManaged is excluded: reading it
 * from the host while a device stream writes it is not safe without a
 * synchronisation this library cannot do. */
bool pjdl_dl_device_type_host_reachable(DLDeviceType type);

/* Whether two DLDevices name the same memory. Host memory (the host-reachable
 * types above) is one memory whatever the id: DLPack gives it device_id 0,
 * and a producer that writes another id (some did) still means the host. */
bool pjdl_dl_device_same(DLDevice a, DLDevice b);

#endif
