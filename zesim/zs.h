/*
 * ze_sim's internals (prefix zs_): the simulated driver and devices, the
 * allocation table, events and fences, and the command engine. Every
 * exported function is declared in ze_abi.h.
 */
#ifndef ZE_SIM_ZS_H
#define ZE_SIM_ZS_H

#include "ze_abi.h"

#include <pthread.h>
#include <stdbool.h>

#define ZS_MAX_DEVICES 8
/* The API version ze_sim implements, and the loader version it reports
 * (zelLoaderGetVersions): the DDI tables are filled up to that API. */
#define ZS_API_VERSION ZE_MAKE_VERSION(1, 6)
#define ZS_LOADER_MAJOR 1
#define ZS_LOADER_MINOR 17
#define ZS_PAGE 4096
#define ZS_FILL_PATTERN_MAX 128
/* The simulated GPU's one sub-group size: reported by device.c, and every
 * kernel is built for it (module.c). */
#define ZS_SUBGROUP_SIZE 32

/* A tag at the start of every object, checked on each call. */
enum zs_magic {
    ZS_MAGIC_DRIVER = 0x5a534452,
    ZS_MAGIC_DEVICE,
    ZS_MAGIC_CONTEXT,
    ZS_MAGIC_QUEUE,
    ZS_MAGIC_LIST,
    ZS_MAGIC_FENCE,
    ZS_MAGIC_POOL,
    ZS_MAGIC_EVENT,
    ZS_MAGIC_MODULE,
    ZS_MAGIC_KERNEL,
    ZS_MAGIC_BUILD_LOG,
};

struct ze_sim_driver {
    uint32_t magic;
};

struct ze_sim_device {
    uint32_t magic;
    uint32_t index;
};

struct ze_sim_context {
    uint32_t magic;
};

/* The configuration, read once by zeInit from the environment. */
struct zs_config {
    uint32_t devices;     /* ZE_SIM_DEVICES, 1..ZS_MAX_DEVICES, default 1 */
    uint64_t delay_ns;    /* ZE_SIM_DELAY_US: before each command runs */
    uint64_t memory_size; /* ZE_SIM_MEMORY_MB: each device's memory */
    bool trace;           /* ZE_SIM_TRACE=1: allocations, modules, launches on stderr */
    char opencl[1024];    /* ZE_SIM_OPENCL: the OpenCL runtime (opencl.c) */
};

extern struct zs_config zs_config;
/* One line on stderr, "ze_sim: " first, when ZE_SIM_TRACE=1. */
void zs_trace(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
extern struct ze_sim_device zs_devices[ZS_MAX_DEVICES];

/* zeInit has run (zs_ready), a handle is one of ours (zs_device_ok,
 * zs_context_ok). */
bool zs_ready(void);
bool zs_device_ok(ze_device_handle_t device);
bool zs_context_ok(ze_context_handle_t context);
/* A string for a caller's (size, buffer) pair: without a buffer, the size
 * it needs (with the terminator); with one, as much as fits, terminated. */
ze_result_t zs_string_out(const char *text, size_t *size, char *out);
uint64_t zs_now_ns(void);
/* Device ticks: nanoseconds, masked to the reported valid bits. */
uint64_t zs_ticks(uint64_t ns, uint32_t bits);
#define ZS_TIMESTAMP_BITS 56
#define ZS_KERNEL_TIMESTAMP_BITS 36

/* The one lock and condition of every event, fence and queue: waits are
 * few and short, so one broadcast per state change is cheap. */
extern pthread_mutex_t zs_lock;
extern pthread_cond_t zs_changed;
/* Waits on zs_changed (zs_lock held) until done(arg) is true or timeout_ns
 * (UINT64_MAX: forever) passed: ZE_RESULT_SUCCESS or ZE_RESULT_NOT_READY. */
ze_result_t zs_wait_locked(bool (*done)(const void *), const void *arg, uint64_t timeout_ns);
/* The same for a flag that changes under zs_lock (takes the lock). */
ze_result_t zs_wait_flag(const bool *flag, uint64_t timeout_ns);

struct ze_sim_event_pool {
    uint32_t magic;
    uint32_t count;
    uint32_t live; /* events created and not destroyed */
};

/* An event or a fence that pending commands still name outlives its
 * destruction (holds > 0: destroyed, freed by the last command to let go),
 * as on hardware, where the device's late signal lands in memory the
 * driver still has; here it would land in freed heap (engine.c). */
struct ze_sim_event {
    uint32_t magic;
    bool signaled;  /* under zs_lock */
    bool destroyed; /* under zs_lock */
    uint32_t holds; /* recorded or queued commands naming it, under zs_lock */
    ze_event_pool_handle_t pool;
    uint64_t signal_ns;
};

struct ze_sim_fence {
    uint32_t magic;
    bool signaled;  /* under zs_lock */
    bool destroyed; /* under zs_lock */
    uint32_t holds; /* queued jobs that signal it, under zs_lock */
    ze_command_queue_handle_t queue;
};

bool zs_event_ok(ze_event_handle_t event);
/* Sets or clears an event (takes zs_lock). */
void zs_event_set(ze_event_handle_t event, bool signaled);

/* Allocations: device memory lives in host memory, 4096-aligned. */
struct zs_alloc_info {
    void *base;
    size_t size;
    ze_memory_type_t type;
    uint32_t device; /* index, for device and shared memory */
    uint64_t id;
};
bool zs_alloc_find(const void *ptr, struct zs_alloc_info *out);

/* One command of a list, run by a queue's worker. */
enum zs_cmd_kind {
    ZS_CMD_COPY,
    ZS_CMD_COPY_REGION,
    ZS_CMD_FILL,
    ZS_CMD_BARRIER, /* waits and signals only */
    ZS_CMD_RESET_EVENT,
    ZS_CMD_WRITE_TIMESTAMP,
    ZS_CMD_QUERY_TIMESTAMPS,
    ZS_CMD_LAUNCH,
};

/* A kernel launch (kernel.c): a copy of the kernel made when the launch
 * was appended, so its arguments are the ones set then, and its sizes. */
struct zs_cl_kernel;
struct zs_cl_queue;
struct zs_launch {
    struct zs_cl_kernel *kernel; /* one reference per command holding it */
    uint32_t dims;
    size_t global[3], local[3], offset[3];
};

struct zs_region {
    ze_copy_region_t box;
    uint32_t pitch, slice_pitch;
};

struct zs_cmd {
    enum zs_cmd_kind kind;
    void *dst;
    const void *src;
    size_t size;
    struct zs_region dst_region, src_region;
    unsigned char pattern[ZS_FILL_PATTERN_MAX];
    size_t pattern_size;
    ze_event_handle_t target; /* reset, or the events of a timestamp query */
    ze_event_handle_t *targets;
    size_t *offsets;
    uint32_t num_targets;
    ze_event_handle_t signal;
    ze_event_handle_t *waits;
    uint32_t num_waits;
    struct zs_launch launch;
};

/* A queue: a worker thread that runs its jobs in order (engine.c). */
struct ze_sim_queue;
ze_result_t zs_queue_new(ze_device_handle_t device, struct ze_sim_queue **out);
/* Hands cmds (n of them, taken over) to the queue; fence may be NULL. */
ze_result_t zs_queue_submit(struct ze_sim_queue *q, struct zs_cmd *cmds, size_t n,
                            ze_fence_handle_t fence);
ze_result_t zs_queue_sync(struct ze_sim_queue *q, uint64_t timeout_ns);
void zs_queue_free(struct ze_sim_queue *q);
bool zs_queue_ok(const struct ze_sim_queue *q);
/* Once, from zeInit: the fork handlers (engine.c). */
void zs_engine_init(void);

/* A command of kind with its signal event and wait list, the rest zero
 * (append.c). */
struct zs_cmd zs_cmd_of(enum zs_cmd_kind kind, ze_event_handle_t signal, uint32_t num_waits,
                        ze_event_handle_t *waits);

/* Appends cmd to a list: recorded, or run at once on an immediate list. */
ze_result_t zs_list_append(ze_command_list_handle_t list, const struct zs_cmd *cmd);

/* Runs a launch on the OpenCL queue *queue (made on first use by the
 * worker that owns it) and waits for it; a launch that cannot run is
 * reported on stderr. The references a launch command holds, and the
 * queue's release (kernel.c). */
void zs_launch_run(const struct zs_launch *launch, struct zs_cl_queue **queue);
void zs_launch_retain(const struct zs_launch *launch);
void zs_launch_release(struct zs_launch *launch);
void zs_launch_queue_free(struct zs_cl_queue *queue);

/* A deep copy (its own arrays, and a hold on each event it names), and
 * freeing those arrays and letting go of those events. */
ze_result_t zs_cmd_clone(struct zs_cmd *dst, const struct zs_cmd *src);
void zs_cmd_free(struct zs_cmd *cmd);

#endif
