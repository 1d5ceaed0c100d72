/*
 * check.h — the conformance checks of `pjrt-dlpack check`.
 *
 * Each check is a function that fills a ck_result: PASS unless it records a
 * failure (ck_fail, "expected ... got ...") or a missing optional feature
 * (ck_unsupported). Checks observe the plugin through the library and, where
 * the library would hide a plugin's mistake, through the raw PJRT API.
 */
#ifndef PJDL_CLI_CHECK_H
#define PJDL_CLI_CHECK_H

#include <stdatomic.h>

#include "cli.h"

typedef enum ck_status { CK_PASS = 0, CK_UNSUPPORTED, CK_SKIPPED, CK_FAIL } ck_status;

typedef struct ck_result {
    ck_status status;
    char detail[2048];
    size_t len;
    int failures;
    bool noted_unreadable; /* "data not read back" said once */
} ck_result;

/* What the raw ABI inspection found (own dlopen, before the library). */
typedef struct ck_abi {
    void *handle;
    bool has_symbol;
    const PJRT_Api *api; /* what GetPjrtApi returned (NULL if it did) */
    pjdl_code load_code; /* pjdl_plugin_load's result */
    char load_msg[512];
    /* The load crashed or did not return (load_msg says which): the library
     * gave no verdict, so the ABI checks judge the table alone. */
    bool load_lost;
} ck_abi;

typedef struct ck_ctx {
    const cli_args *args;
    cli_session *s;
    ck_abi abi;
    /* Valid when the plugin loaded and the client was created: */
    const PJRT_Api *api;
    pjdl_client *client;
    PJRT_Client *pc;
    pjdl_device *dev; /* the first device */
    /* When non-zero, ck_import_view's views are ready at this point of this
     * stream (the producer's stream of CreateViewOfDeviceBuffer). */
    intptr_t view_stream;
} ck_ctx;

typedef void (*ck_fn)(ck_ctx *ctx, ck_result *r);

typedef struct ck_def {
    const char *name;
    const char *summary;
    ck_fn fn;
    bool needs_client; /* SKIPPED when the plugin did not load */
} ck_def;

/* Recording. Messages are appended ("; "-separated) to the detail. */
void ck_fail(ck_result *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void ck_unsupported(ck_result *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void ck_note(ck_result *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Names what the check is about to ask of the plugin: if the process dies
 * there, the runner's message says during which step. */
void ck_step(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The same for a deliberately malformed request. Call it only after the
 * same call, well formed, returned in this process: then, and only then, a
 * crash on it is the plugin not validating its input (UNSUPPORTED: the C API
 * does not require it) rather than a plugin that crashes anyway (FAIL). The
 * next ck_step or ck_malformed ends it. */
void ck_malformed(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* ----------------------------------------------------------- helpers */

/* The element type most checks use. */
extern const DLDataType ck_f32;

/* Deterministic test data: `n` bytes from `seed`; for PRED only 0 and 1. */
void ck_pattern(void *dst, size_t n, unsigned seed, PJRT_Buffer_Type type);

/* Gathers a host array of `ndim` dims with element strides `strides` at
 * `src` into compact row-major order at `dst`; elements of `esize` bytes. */
void ck_gather(void *dst, const void *src, const int64_t *shape, int ndim, const int64_t *strides,
               size_t esize);

/* A DLManagedTensorVersioned the check builds over memory it does not own
 * (or owns through `owned`, freed by the deleter). The deleter counts its
 * calls in *calls and frees the wrapper. */
typedef struct ck_tensor {
    DLManagedTensorVersioned mt;
    int64_t shape[8];
    int64_t strides[8];
    atomic_int *calls;
    void *owned;
} ck_tensor;

ck_tensor *ck_tensor_new(void *data, DLDevice device, DLDataType dtype, const int64_t *shape,
                         int ndim, const int64_t *strides, atomic_int *calls, void *owned);

/* Waits up to `ms` for *counter to reach `want`; returns the value then seen
 * after a short grace period (so a late second call is seen too). */
int ck_wait_count(atomic_int *counter, int want, int ms);

/* Reads the logical (row-major, compact) content of a tensor's memory into
 * dst (`size` bytes): directly when the host can read the memory, else
 * through a view import and a copy to host. With `isolated`, a direct read is
 * done in a child process, so reading freed memory fails the check instead
 * of crashing the command. UNIMPLEMENTED when the memory can be read neither
 * way. */
pjdl_code ck_read_memory(ck_ctx *ctx, void *data, DLDevice device, DLDataType dtype,
                         const int64_t *shape, int ndim, const int64_t *strides, void *dst,
                         size_t size, bool isolated, char *msg, size_t msg_size);

/* Compares `got` with `want`; on a mismatch records a failure naming the
 * first differing byte. Returns true if equal. */
bool ck_expect_bytes(ck_result *r, const char *what, const void *want, const void *got, size_t n);

/* The memory of the first device that the host can read directly (its
 * DLDevice is kDLCPU, kDLCUDAHost or kDLROCMHost), or NULL. */
pjdl_memory *ck_host_memory(ck_ctx *ctx);

/* Allocates `count` buffers of `size` bytes in `memory` filled with 0xEE so
 * that freed memory is likely reused; release them with ck_churn_release. */
typedef struct ck_churn {
    pjdl_buffer *b[8];
} ck_churn;
void ck_churn_fill(ck_ctx *ctx, pjdl_memory *memory, size_t size, ck_churn *c);
void ck_churn_release(ck_churn *c);

/* A buffer with pattern data: f32 [n] in `memory` (NULL: default), awaited. */
pjdl_code ck_make_buffer(ck_ctx *ctx, pjdl_memory *memory, size_t n_floats, unsigned seed,
                         float **host_copy, pjdl_buffer **out);

/* PJRT's arguments for an f32 array of `ndim` dims on the check's device
 * (ctx->dev): host data to copy, or device memory to view. The caller adds
 * what else it needs (memory, layout, callback) and calls raw_buffer_from_host
 * or raw_create_view. */
PJRT_Client_BufferFromHostBuffer_Args ck_f32_host_args(ck_ctx *ctx, const float *data,
                                                       const int64_t *dims, size_t ndim);
PJRT_Client_CreateViewOfDeviceBuffer_Args ck_f32_view_args(ck_ctx *ctx, void *ptr,
                                                           const int64_t *dims, size_t ndim);

/* Imports `t` as a view (copy never). On failure the wrapper `t` is freed
 * (not t->owned) and the library's code returned. */
pjdl_code ck_import_view(ck_ctx *ctx, ck_tensor *t, pjdl_buffer **out);

/* --------------------------------------------------------- the checks */

void ck_abi_entry(ck_ctx *ctx, ck_result *r);
void ck_abi_version(ck_ctx *ctx, ck_result *r);
void ck_abi_table(ck_ctx *ctx, ck_result *r);
void ck_abi_extensions(ck_ctx *ctx, ck_result *r);
void ck_abi_args(ck_ctx *ctx, ck_result *r);
void ck_abi_types(ck_ctx *ctx, ck_result *r);
void ck_export_types(ck_ctx *ctx, ck_result *r);
void ck_export_shapes(ck_ctx *ctx, ck_result *r);
void ck_export_strided(ck_ctx *ctx, ck_result *r);
void ck_export_fields(ck_ctx *ctx, ck_result *r);
void ck_import_views(ck_ctx *ctx, ck_result *r);
void ck_import_layouts(ck_ctx *ctx, ck_result *r);
void ck_ready_no_stream(ck_ctx *ctx, ck_result *r);
void ck_ready_stream(ck_ctx *ctx, ck_result *r);
void ck_pin_raw(ck_ctx *ctx, ck_result *r);
void ck_pin_export(ck_ctx *ctx, ck_result *r);
void ck_on_delete(ck_ctx *ctx, ck_result *r);
void ck_transfer_mode(ck_ctx *ctx, ck_result *r);
void ck_reject_tensors(ck_ctx *ctx, ck_result *r);
void ck_reject_plugin(ck_ctx *ctx, ck_result *r);
void ck_threads(ck_ctx *ctx, ck_result *r);
void ck_subbyte_storage(ck_ctx *ctx, ck_result *r);

#endif /* PJDL_CLI_CHECK_H */
