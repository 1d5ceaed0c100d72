/* bench_lib.h — the library's hot paths as benchmark loops.
 *
 * Opaque types only (no DLPack or PJRT declarations), so that the libtorch
 * benchmark can run the library's loops interleaved with PyTorch's in the
 * same process. */
#ifndef PJDL_BENCH_LIB_H
#define PJDL_BENCH_LIB_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct bench_env bench_env;

/* Loads the plugin (NULL: the library's default) and creates a client of
 * `platform` ("cpu" or "xpu"; NULL: no create options, as real plugins such
 * as XLA's refuse options they do not know). Prints the error and returns
 * NULL on failure. */
bench_env *bench_env_open(const char *plugin, const char *platform);
void bench_env_close(bench_env *env);
/* The env's client; borrowed. */
struct pjdl_client *bench_env_client(bench_env *env);

/* Host memory of `bytes` bytes for a tensor: small sizes are malloc'd and
 * filled; from 64 MiB on the memory is an untouched anonymous mapping (no
 * physical memory is used by a view of it). 64-byte aligned. */
void *bench_host_alloc(size_t bytes);
void bench_host_free(void *p, size_t bytes);

/* A float32 tensor of shape {rows, cols} over `data`, and a buffer of the
 * env's client that views it (imported with copy=NEVER), ready. */
typedef struct bench_view bench_view;
bench_view *bench_view_open(bench_env *env, void *data, int64_t rows, int64_t cols);
void bench_view_close(bench_view *v);

/* Loops for bench_interleave (arg: a bench_view). */
void bench_loop_export(void *view, int64_t n);      /* export (share) + deleter */
void bench_loop_import_view(void *view, int64_t n); /* import copy=NEVER + release */
/* import copy=ALWAYS + await + release; element strides of the source may be
 * transposed (see bench_view_transpose). */
void bench_loop_import_copy(void *view, int64_t n);
/* The baseline of an import: the plugin's own CreateViewOfDeviceBuffer
 * (float32, shape {shape[0], shape[1]} at `data`, the client's first
 * device, an on-delete callback that does nothing) + PJRT_Buffer_Destroy,
 * n times; exits with the plugin's message on failure. The loop form takes
 * a bench_view and views its memory. */
void bench_plugin_view_pair(struct pjdl_client *client, void *data, const int64_t *shape,
                            int64_t n);
void bench_loop_plugin_view_pair(void *view, int64_t n);
/* Makes the tensor's strides {1, rows}: the column-major view of the same
 * memory (shape unchanged). */
void bench_view_transpose(bench_view *v);

/* The gap between the exports of `a` and `b`: one export of each is made
 * and deleted, and the least distance between the start of one's DLPack
 * struct or buffer object and the start of one of the other's returned.
 * A buffer keeps the block of its first export for every later export
 * made while no other is live (export.c), so the gap holds for them. */
size_t bench_views_gap(bench_view *a, bench_view *b);

/* A view of `data` (rows x cols f32, as bench_view_open) whose exports
 * write no cache line in common with `a`'s: views are opened until one's
 * gap to `a` (bench_views_gap) is at least min_gap bytes, at most 16, the
 * farthest kept; the others are closed once one is kept (held open until
 * then, so that the heap does not hand their memory out again). NULL when
 * no view opens. */
bench_view *bench_view_apart(bench_env *env, bench_view *a, void *data, int64_t rows, int64_t cols,
                             size_t min_gap);

#ifdef __cplusplus
}
#endif

#endif
