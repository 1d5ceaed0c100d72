/* The library under load for a while (make soak; scripts/soak.sh runs one
 * process per plugin, and the Python soak beside them).
 *
 *   pjdl_soak KIND PLUGIN SECONDS   KIND: xpu (the reference plugin's
 *                                   simulated accelerator, slow transfers,
 *                                   every 97th failing), xla, oneapi
 *
 * THREADS threads (SOAK_THREADS: fewer) loop over the library's moves
 * on one client: export and import the export back as a view, transfer
 * export, host tensors imported by copy, export with copy=ALWAYS, legacy
 * export and import, a delete while an export lives, every value checked. Faults are injected
 * besides the plugin's: every few milliseconds the library's allocation failure injection
 * (pjdl__test_fail_alloc_after) fails one of its next allocations, on whichever thread. An
 * operation that failed on an injected fault must say so (RESOURCE_EXHAUSTED or the plugin's
 * INTERNAL) and leave nothing behind.
 *
 * Every PERIOD_S seconds the threads stop at a point where they hold
 * nothing; with every deleter run, the anonymous resident memory is read
 * (malloc_trim first; resident less shared: the pages of mapped files, a
 * library's code first run late among them, are no allocation and the
 * kernel may drop and reload them). The first stop after the warm-up (a fifth of the
 * run, at most 60 s) is the baseline. Before the threads start, the
 * plugin's own growth per buffer is measured without the library (raw
 * PJRT: BufferFromHostBuffer, ToHostBuffer, Destroy, 4000 times): Intel's
 * plugin keeps about 5 KB of every buffer on ze_sim (ze_sim's own objects
 * stay bounded), XLA's CPU plugin and the reference plugin nothing. It
 * fails (exit 1) if the memory ever grows more than 1 MiB past the
 * baseline beyond that growth times the buffers made since (each import
 * and buffer the soak made), a deleter runs twice or never, a value is
 * wrong, an operation fails for any other reason, or the operations per
 * second of the last quarter of the periods fall below half those of the
 * first quarter. It prints one line of figures (docs/reliability.md). */
#define _GNU_SOURCE
#include <malloc.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "internal.h" /* pjdl__test_fail_alloc_after: the static library's */

#define THREADS 4
#define RING 64 /* wrappers per thread, reused once their deleter ran */
#define N 96    /* floats per buffer */
#define PERIOD_S 10
#define MAX_PERIODS 4096
#define GROWTH_LIMIT (1024 * 1024)

/* A tensor handed out by the library (or made here) whose deleter calls
 * are counted. */
typedef struct soak soak;

typedef struct counted {
    DLManagedTensorVersioned outer;
    DLManagedTensorVersioned *inner; /* NULL: a host tensor of ours */
    soak *s;
    atomic_int calls;
    int64_t shape[1];
    float data[N];
} counted;

typedef struct worker {
    soak *s;
    int index;
    unsigned seed;
    counted ring[RING];
    int next;
    long uses; /* tensors handed out from the ring, each must be deleted once */
} worker;

struct soak {
    const char *kind;
    pjdl_client *client;
    pjdl_memory *host_memory; /* a memory of kDLCPU, NULL if none */
    int threads;              /* SOAK_THREADS, 1 to THREADS; THREADS by default */
    worker workers[THREADS];
    int only;       /* SOAK_ONLY: 0-4, one kind of operation; -1 all */
    bool no_inject; /* SOAK_NO_INJECT=1: no allocation faults */
    atomic_bool stop, pause;
    atomic_int paused;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    atomic_long ops, faults_plugin, faults_alloc, injected, unexpected, wrong, twice;
    atomic_long buffers;  /* PJRT buffers the plugin made for the soak */
    double plugin_growth; /* bytes per buffer the plugin keeps on its own */
    char first_error[512];
};

static void record_error(soak *s, const char *fmt, ...) {
    pthread_mutex_lock(&s->mu);
    if (s->first_error[0] == '\0') {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(s->first_error, sizeof s->first_error, fmt, ap);
        va_end(ap);
    }
    pthread_mutex_unlock(&s->mu);
}

/* An operation's outcome: a fault injected here or by the plugin is
 * counted and survived; anything else is an error. Returns code == OK. */
static bool outcome(soak *s, pjdl_code code, const char *what) {
    if (code == PJDL_OK)
        return true;
    if (code == PJDL_RESOURCE_EXHAUSTED) {
        atomic_fetch_add(&s->faults_alloc, 1);
    } else if (code == PJDL_INTERNAL && strcmp(s->kind, "xpu") == 0) {
        atomic_fetch_add(&s->faults_plugin, 1); /* fail_transfer_every */
    } else {
        atomic_fetch_add(&s->unexpected, 1);
        record_error(s, "%s: %s: %s", what, pjdl_code_name(code), pjdl_last_error());
    }
    return false;
}

static void counted_deleter(DLManagedTensorVersioned *self) {
    counted *c = self->manager_ctx;
    if (atomic_fetch_add(&c->calls, 1) != 0) {
        atomic_fetch_add(&c->s->twice, 1);
        record_error(c->s, "a tensor's deleter ran twice");
        return;
    }
    if (c->inner != NULL)
        c->inner->deleter(c->inner);
}

/* The next ring slot: its previous tensor's deleter must have run once. */
static counted *take(worker *w) {
    counted *c = &w->ring[w->next];
    w->next = (w->next + 1) % RING;
    if (w->uses >= RING) {
        int calls = atomic_load(&c->calls);
        for (int i = 0; calls == 0 && i < 10000; i++) {
            usleep(1000); /* a deleter a plugin thread still has to run */
            calls = atomic_load(&c->calls);
        }
        if (calls != 1) {
            atomic_fetch_add(calls == 0 ? &w->s->unexpected : &w->s->twice, 1);
            record_error(w->s, "a tensor's deleter ran %d times", calls);
        }
    }
    atomic_store(&c->calls, 0);
    c->inner = NULL;
    c->s = w->s;
    w->uses++;
    return c;
}

static void fill(float *data, unsigned seed) {
    for (int i = 0; i < N; i++)
        data[i] = (float)(seed % 100000) + (float)i;
}

static bool same(soak *s, const float *got, unsigned seed, const char *what) {
    float want[N];
    fill(want, seed);
    if (memcmp(got, want, sizeof want) == 0)
        return true;
    atomic_fetch_add(&s->wrong, 1);
    record_error(s, "%s: wrong values", what);
    return false;
}

/* A new buffer of pattern `seed`; NULL on a (counted) failure. */
static pjdl_buffer *make(worker *w, unsigned seed) {
    float data[N];
    fill(data, seed);
    const int64_t dims[1] = {N};
    pjdl_buffer *b = NULL;
    if (!outcome(w->s,
                 pjdl_buffer_from_host(w->s->client, data, PJRT_Buffer_Type_F32, dims, 1, NULL,
                                       NULL, &b),
                 "pjdl_buffer_from_host"))
        return NULL;
    atomic_fetch_add(&w->s->buffers, 1);
    return b;
}

static bool check_buffer(worker *w, pjdl_buffer *b, unsigned seed, const char *what) {
    float got[N];
    return outcome(w->s, pjdl_buffer_to_host(b, got, sizeof got), what) &&
           same(w->s, got, seed, what);
}

/* Wraps an export so that its deleter calls are counted. */
static DLManagedTensorVersioned *wrap(worker *w, DLManagedTensorVersioned *inner) {
    counted *c = take(w);
    c->inner = inner;
    c->outer = *inner;
    c->outer.manager_ctx = c;
    c->outer.deleter = counted_deleter;
    return &c->outer;
}

/* An export with `o`, wrapped so that its deleter is counted; NULL on a
 * (counted) failure. */
static DLManagedTensorVersioned *export_counted(worker *w, pjdl_buffer *b,
                                                const pjdl_export_options *o) {
    DLManagedTensorVersioned *t = NULL;
    if (!outcome(w->s, pjdl_buffer_export(b, o, &t), "pjdl_buffer_export"))
        return NULL;
    return wrap(w, t);
}

/* Export, the export imported back as a view, read, both released. */
static void op_round_trip(worker *w, pjdl_buffer *b, unsigned seed, pjdl_export_mode mode) {
    pjdl_export_options o = PJDL_EXPORT_OPTIONS_INIT;
    o.mode = mode;
    DLManagedTensorVersioned *mine = export_counted(w, b, &o);
    if (mine == NULL)
        return;
    pjdl_buffer *view = NULL;
    if (!outcome(w->s, pjdl_import(&w->s->client, 1, mine, NULL, &view), "pjdl_import")) {
        mine->deleter(mine); /* the caller keeps it on failure */
        return;
    }
    atomic_fetch_add(&w->s->buffers, 1);
    check_buffer(w, view, seed, "an export imported back");
    pjdl_buffer_release(view);
}

/* A host tensor of ours imported by copy (to the host memory, when the
 * client has one, else the default). */
static void op_host_copy(worker *w, unsigned seed) {
    counted *c = take(w);
    fill(c->data, seed);
    c->shape[0] = N;
    memset(&c->outer, 0, sizeof c->outer);
    c->outer.version.major = DLPACK_MAJOR_VERSION;
    c->outer.version.minor = DLPACK_MINOR_VERSION;
    c->outer.manager_ctx = c;
    c->outer.deleter = counted_deleter;
    c->outer.dl_tensor = (DLTensor){.data = c->data,
                                    .device = {kDLCPU, 0},
                                    .ndim = 1,
                                    .dtype = {kDLFloat, 32, 1},
                                    .shape = c->shape};
    pjdl_import_options io = PJDL_IMPORT_OPTIONS_INIT;
    io.copy = PJDL_COPY_ALWAYS;
    io.memory = w->s->host_memory;
    pjdl_buffer *b = NULL;
    if (!outcome(w->s, pjdl_import(&w->s->client, 1, &c->outer, &io, &b), "pjdl_import copy")) {
        c->outer.deleter(&c->outer);
        return;
    }
    atomic_fetch_add(&w->s->buffers, 1);
    check_buffer(w, b, seed, "a host tensor imported by copy");
    pjdl_buffer_release(b);
}

/* Export with copy=ALWAYS: host memory read here directly. */
static void op_export_copy(worker *w, pjdl_buffer *b, unsigned seed) {
    pjdl_export_options o = PJDL_EXPORT_OPTIONS_INIT;
    o.copy = PJDL_COPY_ALWAYS;
    DLManagedTensorVersioned *mine = export_counted(w, b, &o);
    if (mine == NULL)
        return;
    const DLTensor *t = &mine->dl_tensor;
    same(w->s, (const float *)((char *)t->data + t->byte_offset), seed, "an export copy");
    mine->deleter(mine);
}

/* A legacy export, the buffer deleted while it lives, imported back. */
static void op_legacy_deleted(worker *w, pjdl_buffer *b, unsigned seed) {
    DLManagedTensor *t = NULL;
    if (!outcome(w->s, pjdl_buffer_export_legacy(b, NULL, &t), "pjdl_buffer_export_legacy"))
        return;
    outcome(w->s, pjdl_buffer_delete(b), "pjdl_buffer_delete");
    pjdl_buffer *view = NULL;
    if (!outcome(w->s, pjdl_import_legacy(&w->s->client, 1, t, NULL, &view),
                 "pjdl_import_legacy")) {
        t->deleter(t);
        return;
    }
    atomic_fetch_add(&w->s->buffers, 1);
    check_buffer(w, view, seed, "a legacy export of a deleted buffer");
    pjdl_buffer_release(view);
}

static void one_op(worker *w, long i) {
    unsigned seed = (unsigned)(w->index * 1000003 + i);
    if (w->s->only >= 0)
        i = i - i % 5 + w->s->only; /* SOAK_ONLY: one kind of operation */
    if (i % 5 == 1) {
        op_host_copy(w, seed);
        atomic_fetch_add(&w->s->ops, 1);
        return;
    }
    pjdl_buffer *b = make(w, seed);
    if (b == NULL)
        return;
    switch (i % 5) {
    case 0:
        op_round_trip(w, b, seed, PJDL_EXPORT_SHARE);
        break;
    case 2:
        op_round_trip(w, b, seed, PJDL_EXPORT_TRANSFER);
        break;
    case 3:
        op_export_copy(w, b, seed);
        break;
    default:
        op_legacy_deleted(w, b, seed);
        break;
    }
    pjdl_buffer_release(b);
    atomic_fetch_add(&w->s->ops, 1);
}

static void wait_if_paused(soak *s) {
    if (!atomic_load(&s->pause))
        return;
    pthread_mutex_lock(&s->mu);
    atomic_fetch_add(&s->paused, 1);
    pthread_cond_broadcast(&s->cv);
    while (atomic_load(&s->pause))
        pthread_cond_wait(&s->cv, &s->mu);
    atomic_fetch_sub(&s->paused, 1);
    pthread_mutex_unlock(&s->mu);
}

static void *work(void *arg) {
    worker *w = arg;
    for (long i = 0; !atomic_load(&w->s->stop); i++) {
        wait_if_paused(w->s);
        one_op(w, i);
    }
    return NULL;
}

/* Waits until every tensor handed out has had its deleter run (up to 30 s:
 * a plugin's thread may run one late); counts those that did not. */
static void drain(soak *s) {
    for (int t = 0; t < s->threads; t++) {
        worker *w = &s->workers[t];
        long used = w->uses < RING ? w->uses : RING;
        for (long k = 0; k < used; k++) {
            counted *c = &w->ring[k];
            for (int i = 0; atomic_load(&c->calls) == 0 && i < 30000; i++)
                usleep(1000);
            if (atomic_load(&c->calls) != 1) {
                atomic_fetch_add(&s->unexpected, 1);
                record_error(s, "a tensor's deleter never ran");
            }
        }
    }
}

/* Anonymous resident memory in bytes (statm's resident less its shared,
 * the pages of mapped files), with the heap trimmed first. */
static long resident(void) {
    malloc_trim(0);
    long pages = 0, rss = 0, shared = 0;
    int got = 0;
    FILE *f = fopen("/proc/self/statm", "r");
    if (f != NULL) {
        got = fscanf(f, "%ld %ld %ld", &pages, &rss, &shared);
        fclose(f);
    }
    if (got != 3) {
        fprintf(stderr, "pjdl_soak: cannot read resident memory from /proc/self/statm\n");
        exit(2);
    }
    return (rss - shared) * sysconf(_SC_PAGESIZE);
}

/* Stops the workers where they hold nothing, drains, measures. */
static long snapshot(soak *s) {
    atomic_store(&s->pause, true);
    pthread_mutex_lock(&s->mu);
    while (atomic_load(&s->paused) < s->threads)
        pthread_cond_wait(&s->cv, &s->mu);
    pthread_mutex_unlock(&s->mu);
    drain(s);
    long rss = resident();
    pthread_mutex_lock(&s->mu);
    atomic_store(&s->pause, false);
    pthread_cond_broadcast(&s->cv);
    pthread_mutex_unlock(&s->mu);
    return rss;
}

/* The fault injector: one of the library's next few allocations fails,
 * every 2 ms, on whichever thread makes it. */
static void *inject(void *arg) {
    soak *s = arg;
    unsigned seed = 12345;
    while (!atomic_load(&s->stop)) {
        if (!atomic_load(&s->pause) && !s->no_inject) {
            pjdl__test_fail_alloc_after(1 + rand_r(&seed) % 20);
            atomic_fetch_add(&s->injected, 1);
        }
        usleep(2000);
    }
    pjdl__test_fail_alloc_after(0);
    return NULL;
}

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

typedef struct figures {
    int periods;
    double rate[MAX_PERIODS]; /* operations per second after warm-up */
    long base_rss, max_growth, last_growth;
    long base_buffers;
    long over; /* the most growth past the plugin's own */
} figures;

/* The mean rate of periods [from, to). */
static double mean_rate(const figures *f, int from, int to) {
    double sum = 0;
    for (int i = from; i < to; i++)
        sum += f->rate[i];
    return to > from ? sum / (to - from) : 0;
}

/* Runs the periods until `seconds` are over. */
static void run_periods(soak *s, double seconds, figures *f) {
    double start = now_s(), warm = seconds / 5 < 60 ? seconds / 5 : 60;
    double mark = start;
    long ops_mark = 0;
    bool warmed = false;
    while (now_s() - start < seconds) {
        double left = seconds - (now_s() - start);
        double step = !warmed ? warm - (now_s() - start) : PERIOD_S;
        usleep((useconds_t)((step < left ? (step > 0 ? step : 0) : left) * 1e6));
        long rss = snapshot(s);
        double t = now_s();
        long ops = atomic_load(&s->ops);
        fprintf(stderr, "soak %s: %.0f s: %ld operations, anonymous resident %.3f MiB\n", s->kind,
                t - start, ops, (double)rss / 1048576.0);
        if (!warmed) {
            warmed = true;
            f->base_rss = rss;
            f->base_buffers = atomic_load(&s->buffers);
        } else if (f->periods < MAX_PERIODS) {
            f->rate[f->periods++] = (double)(ops - ops_mark) / (t - mark);
            f->last_growth = rss - f->base_rss;
            if (f->last_growth > f->max_growth)
                f->max_growth = f->last_growth;
            long own =
                (long)(s->plugin_growth * (double)(atomic_load(&s->buffers) - f->base_buffers));
            if (f->last_growth - own > f->over)
                f->over = f->last_growth - own;
        }
        mark = now_s();
        ops_mark = atomic_load(&s->ops);
    }
}

/* One buffer made, read and destroyed by the plugin alone (raw PJRT). */
static void raw_cycle(pjdl_client *client, const PJRT_Api *api) {
    static const float data[N];
    float out[N];
    const int64_t dims[1] = {N};
    PJRT_Client_BufferFromHostBuffer_Args b = {
        .struct_size = PJRT_Client_BufferFromHostBuffer_Args_STRUCT_SIZE,
        .client = pjdl_client_pjrt(client),
        .data = data,
        .type = PJRT_Buffer_Type_F32,
        .dims = dims,
        .num_dims = 1,
        .host_buffer_semantics = PJRT_HostBufferSemantics_kImmutableOnlyDuringCall,
        .device = pjdl_device_pjrt(pjdl_client_device(client, 0))};
    PJRT_Error *e = api->PJRT_Client_BufferFromHostBuffer(&b);
    PJRT_Event *events[2] = {b.done_with_host_buffer, NULL};
    if (e == NULL) {
        PJRT_Buffer_ToHostBuffer_Args t = {.struct_size = PJRT_Buffer_ToHostBuffer_Args_STRUCT_SIZE,
                                           .src = b.buffer,
                                           .dst = out,
                                           .dst_size = sizeof out};
        e = api->PJRT_Buffer_ToHostBuffer(&t);
        events[1] = t.event;
    }
    for (int i = 0; i < 2; i++) {
        PJRT_Event_Await_Args w = {.struct_size = PJRT_Event_Await_Args_STRUCT_SIZE,
                                   .event = events[i]};
        PJRT_Event_Destroy_Args d = {.struct_size = PJRT_Event_Destroy_Args_STRUCT_SIZE,
                                     .event = events[i]};
        if (events[i] != NULL) {
            PJRT_Error_Destroy_Args x = {.struct_size = PJRT_Error_Destroy_Args_STRUCT_SIZE,
                                         .error = api->PJRT_Event_Await(&w)};
            api->PJRT_Error_Destroy(&x);
            x.error = api->PJRT_Event_Destroy(&d);
            api->PJRT_Error_Destroy(&x);
        }
    }
    PJRT_Error_Destroy_Args x = {.struct_size = PJRT_Error_Destroy_Args_STRUCT_SIZE, .error = e};
    api->PJRT_Error_Destroy(&x);
    PJRT_Buffer_Destroy_Args d = {.struct_size = PJRT_Buffer_Destroy_Args_STRUCT_SIZE,
                                  .buffer = b.buffer};
    if (b.buffer != NULL) {
        x.error = api->PJRT_Buffer_Destroy(&d);
        api->PJRT_Error_Destroy(&x);
    }
}

/* The plugin's own growth per buffer, in bytes (0 if it shrinks). */
static double plugin_growth(pjdl_client *client) {
    const PJRT_Api *api = pjdl_plugin_api(pjdl_client_plugin(client));
    for (int i = 0; i < 1000; i++)
        raw_cycle(client, api);
    long before = resident();
    for (int i = 0; i < 4000; i++)
        raw_cycle(client, api);
    long grown = resident() - before;
    /* Under 1 MiB is noise (a page here and there), not a plugin's leak. */
    return grown > GROWTH_LIMIT ? (double)grown / 4000.0 : 0.0;
}

static pjdl_client *open_client(const char *kind, const char *path) {
    pjdl_plugin *plugin = NULL;
    pjdl_client *client = NULL;
    pjdl_option opts[3] = {{.name = "platform", .type = PJDL_OPTION_STRING},
                           {.name = "transfer_delay_us", .type = PJDL_OPTION_INT64},
                           {.name = "fail_transfer_every", .type = PJDL_OPTION_INT64}};
    opts[0].value.string_value = "xpu";
    opts[1].value.int64_value = 50;
    opts[2].value.int64_value = 97;
    bool xpu = strcmp(kind, "xpu") == 0;
    if (pjdl_plugin_load(path, &plugin) != PJDL_OK ||
        pjdl_client_create(plugin, xpu ? opts : NULL, xpu ? 3 : 0, &client) != PJDL_OK) {
        fprintf(stderr, "soak %s: %s\n", kind, pjdl_last_error());
        exit(2);
    }
    pjdl_plugin_release(plugin);
    pjdl_client_set_wait_timeout(client, 60000); /* a hang becomes a failure */
    return client;
}

/* The first memory of the first device that is host memory (kDLCPU). */
static pjdl_memory *host_memory(pjdl_client *client) {
    pjdl_device *d = pjdl_client_device(client, 0);
    for (size_t i = 0; i < pjdl_device_memory_count(d); i++) {
        DLDevice dl;
        pjdl_memory *m = pjdl_device_memory(d, i);
        if (pjdl_device_dl(d, m, &dl) == PJDL_OK && dl.device_type == kDLCPU)
            return m;
    }
    return NULL;
}

static int report(soak *s, const figures *f, double seconds) {
    int q = f->periods / 4 > 0 ? f->periods / 4 : 1;
    double first = mean_rate(f, 0, q), last = mean_rate(f, f->periods - q, f->periods);
    long faults = atomic_load(&s->faults_plugin) + atomic_load(&s->faults_alloc);
    bool ok = atomic_load(&s->unexpected) == 0 && atomic_load(&s->wrong) == 0 &&
              atomic_load(&s->twice) == 0 && f->over <= GROWTH_LIMIT && f->periods > 0 &&
              last >= first / 2;
    printf("soak %s: %.0f s, %d threads, %ld operations, %ld faults injected into the library "
           "(%ld failed an operation, survived), %ld plugin faults survived, %ld wrong values, "
           "%ld deleters run twice, %ld other failures; anonymous resident %.1f MiB after "
           "warm-up, growth %+.3f MiB at the end (most %+.3f MiB; the plugin alone keeps %.0f "
           "bytes a buffer, %ld buffers: at most %+.3f MiB past that); %.0f ops/s in the first "
           "quarter, %.0f in the last (%.2fx): %s\n",
           s->kind, seconds, s->threads, atomic_load(&s->ops), atomic_load(&s->injected),
           atomic_load(&s->faults_alloc), atomic_load(&s->faults_plugin), atomic_load(&s->wrong),
           atomic_load(&s->twice), atomic_load(&s->unexpected), (double)f->base_rss / 1048576.0,
           (double)f->last_growth / 1048576.0, (double)f->max_growth / 1048576.0, s->plugin_growth,
           atomic_load(&s->buffers), (double)f->over / 1048576.0, first, last,
           first > 0 ? last / first : 0, ok ? "PASS" : "FAIL");
    (void)faults;
    if (s->first_error[0] != '\0')
        printf("soak %s: first error: %s\n", s->kind, s->first_error);
    return ok ? 0 : 1;
}

int main(int argc, char **argv) {
    if (argc != 4) {
        fprintf(stderr, "usage: pjdl_soak xpu|xla|oneapi PLUGIN SECONDS\n");
        return 2;
    }
    static soak s;
    static figures f;
    s.kind = argv[1];
    s.only = getenv("SOAK_ONLY") ? atoi(getenv("SOAK_ONLY")) : -1;
    s.no_inject = getenv("SOAK_NO_INJECT") && strcmp(getenv("SOAK_NO_INJECT"), "1") == 0;
    s.threads = getenv("SOAK_THREADS") ? atoi(getenv("SOAK_THREADS")) : THREADS;
    if (s.threads < 1 || s.threads > THREADS) {
        fprintf(stderr, "pjdl_soak: SOAK_THREADS must be 1 to %d\n", THREADS);
        return 2;
    }
    double seconds = atof(argv[3]);
    pthread_mutex_init(&s.mu, NULL);
    pthread_cond_init(&s.cv, NULL);
    s.client = open_client(argv[1], argv[2]);
    s.host_memory = host_memory(s.client);
    s.plugin_growth = plugin_growth(s.client);
    pthread_t threads[THREADS], injector;
    for (int t = 0; t < s.threads; t++) {
        s.workers[t] = (worker){.s = &s, .index = t};
        pthread_create(&threads[t], NULL, work, &s.workers[t]);
    }
    pthread_create(&injector, NULL, inject, &s);
    run_periods(&s, seconds, &f);
    atomic_store(&s.stop, true);
    pthread_join(injector, NULL);
    for (int t = 0; t < s.threads; t++)
        pthread_join(threads[t], NULL);
    drain(&s);
    int rc = report(&s, &f, seconds);
    pjdl_client_release(s.client);
    return rc;
}
