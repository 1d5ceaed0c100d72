/* ze_sim: initialization, the driver and contexts. */
#include "zs.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct zs_config zs_config;
struct ze_sim_device zs_devices[ZS_MAX_DEVICES];
static struct ze_sim_driver zs_driver;
static pthread_once_t zs_once = PTHREAD_ONCE_INIT;
static bool zs_initialized;

/* An unsigned environment variable in [lo, hi], or dflt when unset or bad. */
static uint64_t zs_env(const char *name, uint64_t dflt, uint64_t lo, uint64_t hi) {
    const char *s = getenv(name);
    if (!s || !*s)
        return dflt;
    char *end = NULL;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || *end || v < lo || v > hi)
        return dflt;
    return v;
}

static void zs_init_once(void) {
    zs_config.devices = (uint32_t)zs_env("ZE_SIM_DEVICES", 1, 1, ZS_MAX_DEVICES);
    zs_config.delay_ns = zs_env("ZE_SIM_DELAY_US", 200, 0, 10000000) * 1000u;
    zs_config.memory_size = zs_env("ZE_SIM_MEMORY_MB", 1024, 1, 1u << 20) << 20;
    zs_config.trace = zs_env("ZE_SIM_TRACE", 0, 0, 1) == 1;
    const char *opencl = getenv("ZE_SIM_OPENCL");
    if (opencl && strlen(opencl) < sizeof zs_config.opencl)
        strcpy(zs_config.opencl, opencl);
    zs_driver.magic = ZS_MAGIC_DRIVER;
    for (uint32_t i = 0; i < zs_config.devices; i++) {
        zs_devices[i].magic = ZS_MAGIC_DEVICE;
        zs_devices[i].index = i;
    }
    zs_engine_init();
    zs_initialized = true;
}

bool zs_ready(void) {
    return zs_initialized;
}

bool zs_device_ok(ze_device_handle_t device) {
    return device && device >= zs_devices && device < zs_devices + zs_config.devices &&
           device->magic == ZS_MAGIC_DEVICE;
}

void zs_trace(const char *fmt, ...) {
    if (!zs_config.trace)
        return;
    char line[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    fprintf(stderr, "ze_sim: %s\n", line);
}

bool zs_context_ok(ze_context_handle_t c) {
    return c && c->magic == ZS_MAGIC_CONTEXT;
}

ze_result_t zs_string_out(const char *text, size_t *size, char *out) {
    size_t n = strlen(text) + 1;
    if (!out) {
        *size = n;
        return ZE_RESULT_SUCCESS;
    }
    size_t k = *size < n ? *size : n;
    if (k) {
        memcpy(out, text, k);
        out[k - 1] = '\0';
    }
    return ZE_RESULT_SUCCESS;
}

static bool zs_driver_ok(ze_driver_handle_t driver) {
    return driver == &zs_driver && zs_driver.magic == ZS_MAGIC_DRIVER;
}

uint64_t zs_now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

uint64_t zs_ticks(uint64_t ns, uint32_t bits) {
    return ns & ((UINT64_C(1) << bits) - 1);
}

ze_result_t zeInit(ze_init_flags_t flags) {
    (void)flags; /* GPU-only or none: ze_sim's devices are GPUs */
    pthread_once(&zs_once, zs_init_once);
    return ZE_RESULT_SUCCESS;
}

ze_result_t zeDriverGet(uint32_t *pCount, ze_driver_handle_t *phDrivers) {
    if (!zs_ready())
        return ZE_RESULT_ERROR_UNINITIALIZED;
    if (!pCount)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    if (phDrivers && *pCount >= 1)
        phDrivers[0] = &zs_driver;
    *pCount = 1;
    return ZE_RESULT_SUCCESS;
}

/* zeInit and zeDriverGet in one call (API 1.10), for the driver types
 * asked: ze_sim's one driver is a GPU driver. The 2026 adapters call it;
 * oneDNN, inside Intel's plugin, looks it up by name, and while it was
 * missing reported that through a path that waits on its own start-up:
 * the process hung. */
ze_result_t zeInitDrivers(uint32_t *pCount, ze_driver_handle_t *phDrivers,
                          ze_init_driver_type_desc_t *desc) {
    if (!pCount || !desc)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    if (desc->flags == 0)
        return ZE_RESULT_ERROR_INVALID_ENUMERATION;
    pthread_once(&zs_once, zs_init_once);
    if (!(desc->flags & ZE_INIT_DRIVER_TYPE_FLAG_GPU)) {
        *pCount = 0;
        return ZE_RESULT_SUCCESS;
    }
    return zeDriverGet(pCount, phDrivers);
}

ze_result_t zeDriverGetApiVersion(ze_driver_handle_t hDriver, ze_api_version_t *version) {
    if (!zs_driver_ok(hDriver))
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (!version)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    *version = ZS_API_VERSION;
    return ZE_RESULT_SUCCESS;
}

ze_result_t zeDriverGetProperties(ze_driver_handle_t hDriver,
                                  ze_driver_properties_t *pDriverProperties) {
    if (!zs_driver_ok(hDriver))
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (!pDriverProperties)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    memset(&pDriverProperties->uuid, 0, sizeof pDriverProperties->uuid);
    memcpy(pDriverProperties->uuid.id, "ze_sim-driver", 13);
    pDriverProperties->driverVersion = (1u << 24) | (6u << 16) | 1u;
    return ZE_RESULT_SUCCESS;
}

/* The extensions whose structures ze_sim takes or fills or whose functions
 * it has (Intel's runtime sets every launch's global offset, and fails the
 * launch when the driver lacks ZE_experimental_global_offset; the 2026
 * runtime links a kernel with SYCL's device libraries only through
 * ZE_experimental_module_program). */
static const char *const zs_extensions[] = {
    "ZE_extension_device_ip_version",
    "ZE_extension_pci_properties",
    "ZE_experimental_global_offset",
    "ZE_experimental_module_program",
};
#define ZS_NUM_EXTENSIONS (sizeof zs_extensions / sizeof zs_extensions[0])

ze_result_t zeDriverGetExtensionProperties(ze_driver_handle_t hDriver, uint32_t *pCount,
                                           ze_driver_extension_properties_t *pExtensionProperties) {
    if (!zs_driver_ok(hDriver))
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (!pCount)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    if (pExtensionProperties) {
        uint32_t n = *pCount < ZS_NUM_EXTENSIONS ? *pCount : (uint32_t)ZS_NUM_EXTENSIONS;
        for (uint32_t i = 0; i < n; i++) {
            memset(&pExtensionProperties[i], 0, sizeof pExtensionProperties[i]);
            strcpy(pExtensionProperties[i].name, zs_extensions[i]);
            pExtensionProperties[i].version = ZE_MAKE_VERSION(1, 0);
        }
        *pCount = n;
        return ZE_RESULT_SUCCESS;
    }
    *pCount = (uint32_t)ZS_NUM_EXTENSIONS;
    return ZE_RESULT_SUCCESS;
}

/* The functions of the extensions above; every other name is unknown. */
ze_result_t zeDriverGetExtensionFunctionAddress(ze_driver_handle_t hDriver, const char *name,
                                                void **ppFunctionAddress) {
    if (!zs_driver_ok(hDriver))
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (!name || !ppFunctionAddress)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    *ppFunctionAddress = NULL;
    if (strcmp(name, "zeKernelSetGlobalOffsetExp") == 0)
        *(ze_result_t(**)(ze_kernel_handle_t, uint32_t, uint32_t, uint32_t))ppFunctionAddress =
            zeKernelSetGlobalOffsetExp;
    return *ppFunctionAddress ? ZE_RESULT_SUCCESS : ZE_RESULT_ERROR_INVALID_FUNCTION_NAME;
}

ze_result_t zeDeviceGet(ze_driver_handle_t hDriver, uint32_t *pCount,
                        ze_device_handle_t *phDevices) {
    if (!zs_driver_ok(hDriver))
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (!pCount)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    if (!phDevices || *pCount == 0) {
        *pCount = zs_config.devices;
        return ZE_RESULT_SUCCESS;
    }
    uint32_t n = *pCount < zs_config.devices ? *pCount : zs_config.devices;
    for (uint32_t i = 0; i < n; i++)
        phDevices[i] = &zs_devices[i];
    *pCount = n;
    return ZE_RESULT_SUCCESS;
}

ze_result_t zeContextCreate(ze_driver_handle_t hDriver, const ze_context_desc_t *desc,
                            ze_context_handle_t *phContext) {
    if (!zs_driver_ok(hDriver))
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (!desc || !phContext)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    struct ze_sim_context *c = calloc(1, sizeof *c);
    if (!c)
        return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    c->magic = ZS_MAGIC_CONTEXT;
    *phContext = c;
    return ZE_RESULT_SUCCESS;
}

ze_result_t zeContextDestroy(ze_context_handle_t hContext) {
    if (!zs_context_ok(hContext))
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    hContext->magic = 0;
    free(hContext);
    return ZE_RESULT_SUCCESS;
}
