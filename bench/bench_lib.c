/* The library's hot paths as benchmark loops (see bench_lib.h). */
#include "bench_lib.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "bench_util.h"
#include "pjrt_dlpack.h"

struct bench_env {
    pjdl_plugin *plugin;
    pjdl_client *client;
};

struct bench_view {
    bench_env *env;
    DLManagedTensorVersioned tensor; /* the producer's tensor: deleter counts */
    int64_t shape[2];
    int64_t strides[2];
    pjdl_buffer *buffer;           /* a view of the same memory, for export */
    DLManagedTensorVersioned *own; /* the tensor `buffer` views; freed last */
};

#define MAP_FROM ((size_t)64 << 20)

bench_env *bench_env_open(const char *plugin, const char *platform) {
    bench_env *env = calloc(1, sizeof *env);
    if (env == NULL)
        return NULL;
    pjdl_option opt = {.name = "platform", .type = PJDL_OPTION_STRING};
    opt.value.string_value = platform;
    if (pjdl_plugin_load(plugin, &env->plugin) != PJDL_OK ||
        pjdl_client_create(env->plugin, &opt, platform ? 1 : 0, &env->client) != PJDL_OK) {
        fprintf(stderr, "bench: cannot open a %s client: %s\n", platform ? platform : "default",
                pjdl_last_error());
        bench_env_close(env);
        return NULL;
    }
    return env;
}

void bench_env_close(bench_env *env) {
    if (env == NULL)
        return;
    pjdl_client_release(env->client);
    pjdl_plugin_release(env->plugin);
    free(env);
}

void *bench_host_alloc(size_t bytes) {
    if (bytes >= MAP_FROM) {
        void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        return p == MAP_FAILED ? NULL : p;
    }
    void *p = aligned_alloc(64, (bytes + 63) / 64 * 64);
    if (p != NULL)
        memset(p, 0x3c, bytes);
    return p;
}

void bench_host_free(void *p, size_t bytes) {
    if (p == NULL)
        return;
    if (bytes >= MAP_FROM)
        munmap(p, bytes);
    else
        free(p);
}

static void noop_deleter(DLManagedTensorVersioned *self) {
    (void)self;
}

bench_view *bench_view_open(bench_env *env, void *data, int64_t rows, int64_t cols) {
    bench_view *v = calloc(1, sizeof *v);
    if (v == NULL)
        return NULL;
    v->env = env;
    v->shape[0] = rows;
    v->shape[1] = cols;
    DLManagedTensorVersioned *t = &v->tensor;
    t->version.major = DLPACK_MAJOR_VERSION;
    t->version.minor = DLPACK_MINOR_VERSION;
    t->manager_ctx = v;
    t->deleter = noop_deleter; /* as the libtorch baseline's (bench_torch.cpp) */
    t->dl_tensor.data = data;
    t->dl_tensor.device = (DLDevice){kDLCPU, 0};
    t->dl_tensor.ndim = 2;
    t->dl_tensor.dtype = (DLDataType){kDLFloat, 32, 1};
    t->dl_tensor.shape = v->shape;
    /* The buffer for export: a view of the same memory from a second tensor
     * whose deleter does nothing (the memory is the benchmark's). */
    DLManagedTensorVersioned *own = malloc(sizeof *own);
    if (own == NULL) {
        free(v);
        return NULL;
    }
    *own = *t;
    own->deleter = noop_deleter;
    pjdl_import_options io = PJDL_IMPORT_OPTIONS_INIT;
    io.copy = PJDL_COPY_NEVER;
    if (pjdl_import(&env->client, 1, own, &io, &v->buffer) != PJDL_OK ||
        pjdl_buffer_await(v->buffer) != PJDL_OK) {
        fprintf(stderr, "bench: cannot view a %lldx%lld tensor: %s\n", (long long)rows,
                (long long)cols, pjdl_last_error());
        pjdl_buffer_release(v->buffer); /* NULL if the import failed */
        free(own);
        free(v);
        return NULL;
    }
    v->own = own;
    return v;
}

void bench_view_close(bench_view *v) {
    if (v == NULL)
        return;
    pjdl_buffer_release(v->buffer);
    free(v->own);
    free(v);
}

void bench_view_transpose(bench_view *v) {
    /* column-major: element (i, j) at i + j * rows */
    v->strides[0] = 1;
    v->strides[1] = v->shape[0];
    v->tensor.dl_tensor.strides = v->strides;
}

void bench_loop_export(void *arg, int64_t n) {
    bench_view *v = arg;
    pjdl_export_options o = PJDL_EXPORT_OPTIONS_INIT;
    for (int64_t i = 0; i < n; i++) {
        DLManagedTensorVersioned *mt = NULL;
        if (pjdl_buffer_export(v->buffer, &o, &mt) != PJDL_OK) {
            fprintf(stderr, "bench: export failed: %s\n", pjdl_last_error());
            exit(1);
        }
        BENCH_SINK(mt->dl_tensor.data);
        mt->deleter(mt);
    }
}

void bench_loop_import_view(void *arg, int64_t n) {
    bench_view *v = arg;
    pjdl_import_options io = PJDL_IMPORT_OPTIONS_INIT;
    io.copy = PJDL_COPY_NEVER;
    for (int64_t i = 0; i < n; i++) {
        pjdl_buffer *b = NULL;
        if (pjdl_import(&v->env->client, 1, &v->tensor, &io, &b) != PJDL_OK) {
            fprintf(stderr, "bench: import failed: %s\n", pjdl_last_error());
            exit(1);
        }
        pjdl_buffer_release(b);
    }
}

void bench_loop_import_copy(void *arg, int64_t n) {
    bench_view *v = arg;
    pjdl_import_options io = PJDL_IMPORT_OPTIONS_INIT;
    io.copy = PJDL_COPY_ALWAYS;
    for (int64_t i = 0; i < n; i++) {
        pjdl_buffer *b = NULL;
        if (pjdl_import(&v->env->client, 1, &v->tensor, &io, &b) != PJDL_OK ||
            pjdl_buffer_await(b) != PJDL_OK) {
            fprintf(stderr, "bench: copy import failed: %s\n", pjdl_last_error());
            exit(1);
        }
        pjdl_buffer_release(b);
    }
}

/* The least distance between the starts of what an export of `a` writes
 * (its DLPack struct, its buffer object) and what one of `b` writes. */
static size_t gap_of(const bench_view *a, const DLManagedTensorVersioned *ta, const bench_view *b,
                     const DLManagedTensorVersioned *tb) {
    uintptr_t pa[2] = {(uintptr_t)ta, (uintptr_t)a->buffer};
    uintptr_t pb[2] = {(uintptr_t)tb, (uintptr_t)b->buffer};
    size_t gap = SIZE_MAX;
    for (int i = 0; i < 2; i++) {
        for (int j = 0; j < 2; j++) {
            size_t d = pa[i] > pb[j] ? pa[i] - pb[j] : pb[j] - pa[i];
            gap = d < gap ? d : gap;
        }
    }
    return gap;
}

#define APART_TRIES 16

static DLManagedTensorVersioned *export_or_exit(bench_view *v) {
    pjdl_export_options o = PJDL_EXPORT_OPTIONS_INIT;
    DLManagedTensorVersioned *mt = NULL;
    if (pjdl_buffer_export(v->buffer, &o, &mt) != PJDL_OK) {
        fprintf(stderr, "bench: export failed: %s\n", pjdl_last_error());
        exit(1);
    }
    return mt;
}

size_t bench_views_gap(bench_view *a, bench_view *b) {
    DLManagedTensorVersioned *ta = export_or_exit(a), *tb = export_or_exit(b);
    size_t gap = gap_of(a, ta, b, tb);
    ta->deleter(ta);
    tb->deleter(tb);
    return gap;
}

bench_view *bench_view_apart(bench_env *env, bench_view *a, void *data, int64_t rows, int64_t cols,
                             size_t min_gap) {
    bench_view *tried[APART_TRIES];
    int n = 0, best = -1;
    size_t best_gap = 0;
    while (n < APART_TRIES && best_gap < min_gap) {
        if ((tried[n] = bench_view_open(env, data, rows, cols)) == NULL)
            break;
        size_t gap = bench_views_gap(a, tried[n]);
        if (best < 0 || gap > best_gap) {
            best = n;
            best_gap = gap;
        }
        n++;
    }
    for (int i = 0; i < n; i++)
        if (i != best)
            bench_view_close(tried[i]);
    return best < 0 ? NULL : tried[best];
}

pjdl_client *bench_env_client(bench_env *env) {
    return env->client;
}

static void noop_on_delete(void *ptr, void *arg) {
    (void)ptr;
    (void)arg;
}

static void plugin_failed(const PJRT_Api *api, const char *what, PJRT_Error *error) {
    PJRT_Error_Message_Args m = {.struct_size = PJRT_Error_Message_Args_STRUCT_SIZE,
                                 .error = error};
    api->PJRT_Error_Message(&m);
    fprintf(stderr, "bench: the plugin's %s failed: %.*s\n", what, (int)m.message_size, m.message);
    exit(1);
}

void bench_plugin_view_pair(pjdl_client *client, void *data, const int64_t *shape, int64_t n) {
    const PJRT_Api *api = pjdl_plugin_api(pjdl_client_plugin(client));
    PJRT_Device *device = pjdl_device_pjrt(pjdl_client_device(client, 0));
    for (int64_t i = 0; i < n; i++) {
        PJRT_Client_CreateViewOfDeviceBuffer_Args v = {
            .struct_size = PJRT_Client_CreateViewOfDeviceBuffer_Args_STRUCT_SIZE,
            .client = pjdl_client_pjrt(client),
            .device_buffer_ptr = data,
            .dims = shape,
            .num_dims = 2,
            .element_type = PJRT_Buffer_Type_F32,
            .device = device,
            .on_delete_callback = noop_on_delete};
        PJRT_Error *e = api->PJRT_Client_CreateViewOfDeviceBuffer(&v);
        if (e != NULL)
            plugin_failed(api, "CreateViewOfDeviceBuffer", e);
        PJRT_Buffer_Destroy_Args d = {.struct_size = PJRT_Buffer_Destroy_Args_STRUCT_SIZE,
                                      .buffer = v.buffer};
        if ((e = api->PJRT_Buffer_Destroy(&d)) != NULL)
            plugin_failed(api, "PJRT_Buffer_Destroy", e);
    }
}

void bench_loop_plugin_view_pair(void *arg, int64_t n) {
    bench_view *v = arg;
    bench_plugin_view_pair(v->env->client, v->tensor.dl_tensor.data, v->shape, n);
}
