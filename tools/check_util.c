/* Helpers shared by the checks: test data, borrowed tensors, reading
 * exported memory back, counting callbacks. */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check.h"

/* Valgrind's client requests are no-ops outside valgrind; without the header
 * (it comes with valgrind) the reader below is leak-checked like any child. */
#if defined(__has_include)
#if __has_include(<valgrind/valgrind.h>)
#include <valgrind/valgrind.h>
#define CK_NO_LEAK_CHECK() VALGRIND_CLO_CHANGE("--leak-check=no")
#endif
#endif
#ifndef CK_NO_LEAK_CHECK
#define CK_NO_LEAK_CHECK() ((void)0)
#endif

const DLDataType ck_f32 = {kDLFloat, 32, 1};

void ck_pattern(void *dst, size_t n, unsigned seed, PJRT_Buffer_Type type) {
    unsigned char *p = dst;
    for (size_t i = 0; i < n; i++) {
        unsigned v = (unsigned)(i * 131u + seed * 7u + (i >> 8) * 17u + 1u);
        p[i] = type == PJRT_Buffer_Type_PRED ? (unsigned char)(v & 1u) : (unsigned char)v;
    }
}

static void ck_tensor_deleter(DLManagedTensorVersioned *self) {
    ck_tensor *t = (ck_tensor *)self;
    if (t->calls != NULL)
        atomic_fetch_add(t->calls, 1);
    free(t->owned);
    free(t);
}

ck_tensor *ck_tensor_new(void *data, DLDevice device, DLDataType dtype, const int64_t *shape,
                         int ndim, const int64_t *strides, atomic_int *calls, void *owned) {
    ck_tensor *t = calloc(1, sizeof *t);
    if (t == NULL)
        return NULL;
    t->mt.version.major = DLPACK_MAJOR_VERSION;
    t->mt.version.minor = DLPACK_MINOR_VERSION;
    t->mt.manager_ctx = t;
    t->mt.deleter = ck_tensor_deleter;
    t->mt.dl_tensor.data = data;
    t->mt.dl_tensor.device = device;
    t->mt.dl_tensor.dtype = dtype;
    t->mt.dl_tensor.ndim = ndim;
    int n = ndim > 0 && ndim <= 8 ? ndim : 0;
    if (shape != NULL && n)
        memcpy(t->shape, shape, (size_t)n * sizeof *shape);
    if (strides != NULL && n)
        memcpy(t->strides, strides, (size_t)n * sizeof *strides);
    t->mt.dl_tensor.shape = t->shape;
    t->mt.dl_tensor.strides = strides ? t->strides : NULL;
    t->calls = calls;
    t->owned = owned;
    return t;
}

static void sleep_ms(int ms) {
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

int ck_wait_count(atomic_int *counter, int want, int ms) {
    for (int waited = 0; atomic_load(counter) < want && waited < ms; waited += 2)
        sleep_ms(2);
    sleep_ms(20); /* a second, late call must be seen too */
    return atomic_load(counter);
}

bool ck_expect_bytes(ck_result *r, const char *what, const void *want, const void *got, size_t n) {
    const unsigned char *a = want, *b = got;
    for (size_t i = 0; i < n; i++) {
        if (a[i] != b[i]) {
            ck_fail(r, "%s: byte %zu of %zu: expected 0x%02x, got 0x%02x", what, i, n, a[i], b[i]);
            return false;
        }
    }
    return true;
}

void ck_gather(void *to, const void *from, const int64_t *shape, int ndim, const int64_t *strides,
               size_t esize) {
    char *dst = to;
    const char *src = from;
    if (ndim == 0) {
        memcpy(dst, src, esize);
        return;
    }
    int64_t total = 1;
    for (int d = 0; d < ndim; d++)
        total *= shape[d];
    int64_t idx[8] = {0};
    for (int64_t k = 0; k < total; k++) {
        int64_t off = 0;
        for (int d = 0; d < ndim; d++)
            off += idx[d] * strides[d];
        memcpy(dst + (size_t)k * esize, src + off * (int64_t)esize, esize);
        for (int d = ndim - 1; d >= 0; d--) {
            if (++idx[d] < shape[d])
                break;
            idx[d] = 0;
        }
    }
}

static void row_major(const int64_t *shape, int ndim, int64_t *strides) {
    int64_t s = 1;
    for (int d = ndim - 1; d >= 0; d--) {
        strides[d] = s;
        s *= shape[d] > 0 ? shape[d] : 1;
    }
}

/* The child of read_isolated: gathers into `tmp` (allocated before the
 * fork: the plugin's threads are not copied, and a lock one of them held
 * stays held here) and writes the bytes into the pipe. It owns nothing it
 * could leak, and the memory only the plugin's threads pointed to looks
 * lost here, so a leak checker following the fork is told not to look. */
static void reader_child(int fd, char *tmp, const char *src, const int64_t *shape, int ndim,
                         const int64_t *strides, size_t esize, size_t size) {
    CK_NO_LEAK_CHECK();
    ck_gather(tmp, src, shape, ndim, strides, esize);
    size_t off = 0;
    while (off < size) {
        ssize_t w = write(fd, tmp + off, size - off);
        if (w <= 0)
            _exit(4);
        off += (size_t)w;
    }
    _exit(0);
}

/* Reads in a child so that a fault only fails the check. The child writes
 * the bytes into a pipe. */
static pjdl_code read_isolated(const char *src, const int64_t *shape, int ndim,
                               const int64_t *strides, size_t esize, void *dst, size_t size,
                               char *msg, size_t msg_size) {
    int fds[2];
    char *tmp = malloc(size ? size : 1);
    if (tmp == NULL) {
        snprintf(msg, msg_size, "out of memory");
        return PJDL_RESOURCE_EXHAUSTED;
    }
    if (pipe(fds) != 0) {
        free(tmp);
        snprintf(msg, msg_size, "pipe failed");
        return PJDL_INTERNAL;
    }
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        close(fds[0]);
        close(fds[1]);
        free(tmp);
        snprintf(msg, msg_size, "fork failed");
        return PJDL_INTERNAL;
    }
    if (pid == 0) {
        close(fds[0]);
        reader_child(fds[1], tmp, src, shape, ndim, strides, esize, size);
    }
    free(tmp);
    close(fds[1]);
    size_t off = 0;
    while (off < size) {
        ssize_t n = read(fds[0], (char *)dst + off, size - off);
        if (n <= 0)
            break;
        off += (size_t)n;
    }
    close(fds[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    if (WIFSIGNALED(status)) {
        snprintf(msg, msg_size, "reading the memory crashed (signal %d)", WTERMSIG(status));
        return PJDL_DATA_LOSS;
    }
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || off != size) {
        snprintf(msg, msg_size, "reading the memory failed (the reader exited with %d)",
                 WIFEXITED(status) ? WEXITSTATUS(status) : -1);
        return PJDL_DATA_LOSS;
    }
    return PJDL_OK;
}

pjdl_code ck_read_memory(ck_ctx *ctx, void *data, DLDevice device, DLDataType dtype,
                         const int64_t *shape, int ndim, const int64_t *strides, void *dst,
                         size_t size, bool isolated, char *msg, size_t msg_size) {
    size_t esize = (size_t)dtype.bits / 8 * dtype.lanes;
    int64_t rm[8];
    if (ndim < 0 || ndim > 8 || esize == 0) {
        snprintf(msg, msg_size, "cannot read a tensor of ndim %d, %d bits", ndim, dtype.bits);
        return PJDL_INVALID_ARGUMENT;
    }
    if (strides == NULL) {
        row_major(shape, ndim, rm);
        strides = rm;
    }
    if (pjdl_dl_device_type_host_reachable(device.device_type)) {
        if (isolated)
            return read_isolated(data, shape, ndim, strides, esize, dst, size, msg, msg_size);
        ck_gather(dst, data, shape, ndim, strides, esize);
        return PJDL_OK;
    }
    /* Device memory: view it through the plugin and copy to host. */
    /* No counter: the deleter may run after this returns. */
    ck_tensor *t = ck_tensor_new(data, device, dtype, shape, ndim, strides, NULL, NULL);
    if (t == NULL) {
        snprintf(msg, msg_size, "out of memory");
        return PJDL_RESOURCE_EXHAUSTED;
    }
    pjdl_buffer *view = NULL;
    pjdl_code rc = ck_import_view(ctx, t, &view);
    if (rc != PJDL_OK) {
        snprintf(msg, msg_size, "viewing the memory through the plugin failed: %s (%s)",
                 pjdl_last_error(), pjdl_code_name(rc));
        return rc;
    }
    rc = pjdl_buffer_to_host(view, dst, size);
    if (rc != PJDL_OK)
        snprintf(msg, msg_size, "copying the viewed memory to host failed: %s (%s)",
                 pjdl_last_error(), pjdl_code_name(rc));
    pjdl_buffer_release(view);
    return rc;
}

pjdl_memory *ck_host_memory(ck_ctx *ctx) {
    for (size_t i = 0; i < pjdl_device_memory_count(ctx->dev); i++) {
        pjdl_memory *m = pjdl_device_memory(ctx->dev, i);
        DLDevice dl;
        if (pjdl_device_dl(ctx->dev, m, &dl) == PJDL_OK &&
            pjdl_dl_device_type_host_reachable(dl.device_type))
            return m;
    }
    return NULL;
}

void ck_churn_fill(ck_ctx *ctx, pjdl_memory *memory, size_t size, ck_churn *c) {
    memset(c, 0, sizeof *c);
    unsigned char *junk = malloc(size);
    if (junk == NULL)
        return;
    memset(junk, 0xEE, size);
    int64_t dims[1] = {(int64_t)size};
    for (size_t i = 0; i < sizeof c->b / sizeof c->b[0]; i++) {
        if (pjdl_buffer_from_host(ctx->client, junk, PJRT_Buffer_Type_U8, dims, 1, NULL, memory,
                                  &c->b[i]) != PJDL_OK)
            break;
        pjdl_buffer_await(c->b[i]);
    }
    free(junk);
}

void ck_churn_release(ck_churn *c) {
    for (size_t i = 0; i < sizeof c->b / sizeof c->b[0]; i++)
        pjdl_buffer_release(c->b[i]);
    memset(c, 0, sizeof *c);
}

pjdl_code ck_make_buffer(ck_ctx *ctx, pjdl_memory *memory, size_t n_floats, unsigned seed,
                         float **host_copy, pjdl_buffer **out) {
    float *data = malloc(n_floats * sizeof *data);
    if (data == NULL)
        return PJDL_RESOURCE_EXHAUSTED;
    for (size_t i = 0; i < n_floats; i++)
        data[i] = (float)(seed * 1000 + i) + 0.25f;
    int64_t dims[1] = {(int64_t)n_floats};
    pjdl_code rc =
        pjdl_buffer_from_host(ctx->client, data, PJRT_Buffer_Type_F32, dims, 1, NULL, memory, out);
    if (rc == PJDL_OK) {
        rc = pjdl_buffer_await(*out);
        if (rc != PJDL_OK) {
            pjdl_buffer_release(*out);
            *out = NULL;
        }
    }
    if (rc == PJDL_OK && host_copy != NULL)
        *host_copy = data;
    else
        free(data);
    return rc;
}

PJRT_Client_BufferFromHostBuffer_Args ck_f32_host_args(ck_ctx *ctx, const float *data,
                                                       const int64_t *dims, size_t ndim) {
    return (PJRT_Client_BufferFromHostBuffer_Args){.client = ctx->pc,
                                                   .data = data,
                                                   .type = PJRT_Buffer_Type_F32,
                                                   .dims = dims,
                                                   .num_dims = ndim,
                                                   .device = pjdl_device_pjrt(ctx->dev)};
}

PJRT_Client_CreateViewOfDeviceBuffer_Args ck_f32_view_args(ck_ctx *ctx, void *ptr,
                                                           const int64_t *dims, size_t ndim) {
    return (PJRT_Client_CreateViewOfDeviceBuffer_Args){.client = ctx->pc,
                                                       .device_buffer_ptr = ptr,
                                                       .dims = dims,
                                                       .num_dims = ndim,
                                                       .element_type = PJRT_Buffer_Type_F32,
                                                       .device = pjdl_device_pjrt(ctx->dev)};
}

pjdl_code ck_import_view(ck_ctx *ctx, ck_tensor *t, pjdl_buffer **out) {
    pjdl_import_options io = PJDL_IMPORT_OPTIONS_INIT;
    io.copy = PJDL_COPY_NEVER;
    io.has_stream = ctx->view_stream != 0;
    io.stream = ctx->view_stream;
    *out = NULL;
    pjdl_code rc = pjdl_import(&ctx->client, 1, &t->mt, &io, out);
    if (rc != PJDL_OK)
        free(t);
    return rc;
}
