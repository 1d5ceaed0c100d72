/* Many threads exporting and importing the same buffers at once, on both
 * plugins (and on the reference plugin's xpu platform). */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <time.h>

#include "lib_util.h"

#define THREADS 8
#define BUFFERS 4
#define ROUNDS 150

typedef struct shared {
    pjdl_client *client;
    pjdl_buffer *buffers[BUFFERS];
    float data[BUFFERS][64];
    int failures;
} shared;

static bool one_round(shared *s, int t, int i) {
    int k = (t + i) % BUFFERS;
    pjdl_buffer *b = s->buffers[k];
    pjdl_buffer_retain(b);
    bool ok = true;
    float host[64];
    if ((t + i) % 3 == 0) {
        DLManagedTensor *l = NULL;
        ok = pjdl_buffer_export_legacy(b, NULL, &l) == PJDL_OK;
        if (ok) {
            ok = memcmp(l->dl_tensor.data, s->data[k], sizeof host) == 0;
            l->deleter(l);
        }
    } else {
        DLManagedTensorVersioned *v = NULL;
        pjdl_buffer *back = NULL;
        ok = pjdl_buffer_export(b, NULL, &v) == PJDL_OK;
        if (ok && pjdl_import(&s->client, 1, v, NULL, &back) != PJDL_OK) {
            v->deleter(v);
            ok = false;
        }
        if (ok) {
            ok = pjdl_buffer_to_host(back, host, sizeof host) == PJDL_OK &&
                 memcmp(host, s->data[k], sizeof host) == 0;
            pjdl_buffer_release(back);
        }
    }
    pjdl_buffer_release(b);
    return ok;
}

typedef struct worker {
    shared *s;
    int index;
    int failures;
} worker;

static void *run(void *arg) {
    worker *w = arg;
    for (int i = 0; i < ROUNDS; i++)
        if (!one_round(w->s, w->index, i))
            w->failures++;
    return NULL;
}

/* `platform`: NULL for the cpu client of the plugin under test, else a
 * platform of the reference plugin. */
static void hammer(const char *platform) {
    pjdl_plugin *plugin = lib_load_selected();
    shared s = {.client = platform ? lib_client(plugin, platform) : lib_cpu_client(plugin, 0)};
    const int64_t dims[] = {8, 8};
    for (int k = 0; k < BUFFERS; k++) {
        for (int i = 0; i < 64; i++)
            s.data[k][i] = (float)(k * 100 + i);
        LIB_OK(pjdl_buffer_from_host(s.client, s.data[k], PJRT_Buffer_Type_F32, dims, 2, NULL, NULL,
                                     &s.buffers[k]));
    }
    pthread_t threads[THREADS];
    worker workers[THREADS];
    for (int t = 0; t < THREADS; t++) {
        workers[t] = (worker){&s, t, 0};
        assert_int_equal(pthread_create(&threads[t], NULL, run, &workers[t]), 0);
    }
    int failures = 0;
    for (int t = 0; t < THREADS; t++) {
        pthread_join(threads[t], NULL);
        failures += workers[t].failures;
    }
    assert_int_equal(failures, 0);
    for (int k = 0; k < BUFFERS; k++)
        pjdl_buffer_release(s.buffers[k]);
    lib_expect_clean(s.client);
    pjdl_client_release(s.client);
    pjdl_plugin_release(plugin);
}

static void cpu_threads(void **state) {
    (void)state;
    hammer(NULL);
}

static void xpu_threads(void **state) {
    (void)state;
    hammer("xpu");
}

typedef struct racer {
    pjdl_buffer *buffer;
    DLManagedTensorVersioned *won;
} racer;

static void *race_transfer(void *arg) {
    racer *r = arg;
    pjdl_export_options o = PJDL_EXPORT_OPTIONS_INIT;
    o.mode = PJDL_EXPORT_TRANSFER;
    if (pjdl_buffer_export(r->buffer, &o, &r->won) != PJDL_OK) {
        r->won = NULL;
        if (pjdl_last_error()[0] == '\0')
            r->won = (DLManagedTensorVersioned *)1; /* an error without a message */
    }
    return NULL;
}

/* Of many concurrent transfer-mode exports exactly one wins. */
static void one_transfer_wins(void **state) {
    (void)state;
    pjdl_plugin *plugin = lib_load_selected();
    pjdl_client *client = lib_cpu_client(plugin, 0);
    float data[16] = {1, 2, 3};
    const int64_t dims[] = {16};
    pjdl_buffer *b = NULL;
    LIB_OK(pjdl_buffer_from_host(client, data, PJRT_Buffer_Type_F32, dims, 1, NULL, NULL, &b));
    for (int round = 0; round < 20; round++) {
        pjdl_buffer *mine = NULL;
        LIB_OK(
            pjdl_buffer_from_host(client, data, PJRT_Buffer_Type_F32, dims, 1, NULL, NULL, &mine));
        pthread_t threads[THREADS];
        racer racers[THREADS];
        for (int t = 0; t < THREADS; t++) {
            racers[t] = (racer){mine, NULL};
            assert_int_equal(pthread_create(&threads[t], NULL, race_transfer, &racers[t]), 0);
        }
        int winners = 0;
        for (int t = 0; t < THREADS; t++) {
            pthread_join(threads[t], NULL);
            assert_ptr_not_equal(racers[t].won, (DLManagedTensorVersioned *)1);
            if (racers[t].won) {
                winners++;
                racers[t].won->deleter(racers[t].won);
            }
        }
        assert_int_equal(winners, 1);
        pjdl_buffer_release(mine);
    }
    pjdl_buffer_release(b);
    lib_expect_clean(client);
    pjdl_client_release(client);
    pjdl_plugin_release(plugin);
}

typedef struct exporter {
    pjdl_buffer *buffer;
    const void *expect; /* the buffer's data pointer */
    const float *data;  /* its 16 values */
    pthread_barrier_t *start;
    atomic_long *attempts; /* by all exporters */
    long count;            /* exports to try */
    int ok, refused, wrong;
} exporter;

static void *export_while_deleted(void *arg) {
    exporter *e = arg;
    pthread_barrier_wait(e->start);
    /* A fixed number of exports (no spinning on the other threads: under
     * valgrind a spinning thread can keep the others off the CPU). */
    for (long i = 0; i < e->count; i++) {
        atomic_fetch_add(e->attempts, 1);
        DLManagedTensorVersioned *t = NULL;
        pjdl_code rc = pjdl_buffer_export(e->buffer, NULL, &t);
        if (rc == PJDL_OK) {
            /* Once refused (deleted), never handed out again. */
            bool right = e->refused == 0 && t->dl_tensor.data == e->expect &&
                         memcmp(t->dl_tensor.data, e->data, 16 * sizeof(float)) == 0;
            right ? e->ok++ : e->wrong++;
            t->deleter(t);
        } else if (rc == PJDL_FAILED_PRECONDITION && pjdl_last_error()[0] != '\0') {
            e->refused++;
        } else {
            e->wrong++;
        }
    }
    return NULL;
}

/* Exports each exporter tries: fewer under valgrind. */
static long export_count(void) {
    const char *valgrind = getenv("PJDL_UNDER_VALGRIND");
    return valgrind && valgrind[0] == '1' ? 100 : 2000;
}

/* Starts THREADS exporters of `b` (whose 16 values are `data`), each trying
 * `count` exports once `start` (THREADS + 1 parties, made here) opens. */
static void start_exporters(pjdl_buffer *b, const float *data, long count, pthread_barrier_t *start,
                            atomic_long *attempts, pthread_t *threads, exporter *ex) {
    void *expect = NULL;
    LIB_OK(pjdl_buffer_data_pointer(b, &expect));
    assert_int_equal(pthread_barrier_init(start, NULL, THREADS + 1), 0);
    for (int t = 0; t < THREADS; t++) {
        ex[t] = (exporter){.buffer = b,
                           .expect = expect,
                           .data = data,
                           .start = start,
                           .attempts = attempts,
                           .count = count};
        assert_int_equal(pthread_create(&threads[t], NULL, export_while_deleted, &ex[t]), 0);
    }
}

/* A 4x4 f32 buffer of data[i] = i * step (data: 16 floats, filled here). */
static pjdl_buffer *sixteen_floats(pjdl_client *client, float *data, float step) {
    for (int i = 0; i < 16; i++)
        data[i] = (float)i * step;
    const int64_t dims[] = {4, 4};
    pjdl_buffer *b = NULL;
    LIB_OK(pjdl_buffer_from_host(client, data, PJRT_Buffer_Type_F32, dims, 2, NULL, NULL, &b));
    return b;
}

/* The first exports of fresh buffers race each other (they fill the kept
 * data pointer) and a pjdl_buffer_delete: every export that succeeds has the
 * buffer's pointer and intact data; once one is refused, none succeeds. */
static void first_exports_race_delete(void **state) {
    (void)state;
    pjdl_plugin *plugin = lib_load_selected();
    pjdl_client *client = lib_cpu_client(plugin, 0);
    long count = export_count();
    float data[16];
    long refused = 0;
    for (int round = 0; round < 6; round++) {
        pjdl_buffer *b = sixteen_floats(client, data, 1.0f);
        pthread_barrier_t start;
        atomic_long attempts = 0;
        pthread_t threads[THREADS];
        exporter ex[THREADS];
        start_exporters(b, data, count, &start, &attempts, threads, ex);
        /* Round 0 deletes before any export starts; the others after a
         * number of exports that grows with the round, polled with short
         * sleeps (the exporters may also all finish first). */
        if (round == 0)
            LIB_OK(pjdl_buffer_delete(b));
        pthread_barrier_wait(&start);
        while (round > 0 && atomic_load(&attempts) < (round - 1) * THREADS * 4) {
            struct timespec ts = {0, 100000};
            nanosleep(&ts, NULL);
        }
        if (round > 0)
            LIB_OK(pjdl_buffer_delete(b));
        for (int t = 0; t < THREADS; t++) {
            pthread_join(threads[t], NULL);
            assert_int_equal(ex[t].wrong, 0);
            assert_int_equal(ex[t].ok + ex[t].refused, count);
            refused += ex[t].refused;
        }
        pthread_barrier_destroy(&start);
        DLManagedTensorVersioned *t = NULL;
        LIB_FAILS(PJDL_FAILED_PRECONDITION, pjdl_buffer_export(b, NULL, &t));
        pjdl_buffer_release(b);
    }
    assert_true(refused >= THREADS * count); /* round 0 at least */
    lib_expect_clean(client);
    pjdl_client_release(client);
    pjdl_plugin_release(plugin);
}

/* Exports race with pjdl_buffer_pjrt, which drops the library's pin of the
 * PJRT buffer whenever it finds no export live: every export still gets
 * the buffer's memory intact (an export that starts as the pin goes takes
 * a new one), and once all are deleted and the handle is taken, the
 * plugin's external reference count is zero. */
static void exports_race_unpin(void **state) {
    (void)state;
    pjdl_plugin *plugin = lib_load_selected();
    pjdl_client *client = lib_cpu_client(plugin, 0);
    float data[16];
    pjdl_buffer *b = sixteen_floats(client, data, 2.0f);
    long count = export_count();
    pthread_barrier_t start;
    atomic_long attempts = 0;
    pthread_t threads[THREADS];
    exporter ex[THREADS];
    start_exporters(b, data, count, &start, &attempts, threads, ex);
    pthread_barrier_wait(&start);
    PJRT_Buffer *raw = NULL;
    for (long i = 0; i < count; i++)
        LIB_OK(pjdl_buffer_pjrt(b, &raw));
    for (int t = 0; t < THREADS; t++) {
        pthread_join(threads[t], NULL);
        assert_int_equal(ex[t].wrong, 0);
        assert_int_equal(ex[t].ok, count);
    }
    pthread_barrier_destroy(&start);
    LIB_OK(pjdl_buffer_pjrt(b, &raw));
    const PJRT_Api *api = pjdl_plugin_api(plugin);
    PJRT_Buffer_DecreaseExternalReferenceCount_Args dec = {
        .struct_size = PJRT_Buffer_DecreaseExternalReferenceCount_Args_STRUCT_SIZE, .buffer = raw};
    PJRT_Error *e = api->PJRT_Buffer_DecreaseExternalReferenceCount(&dec);
    assert_non_null(e); /* zero: nothing left pinned */
    PJRT_Error_Destroy_Args d = {.struct_size = PJRT_Error_Destroy_Args_STRUCT_SIZE, .error = e};
    api->PJRT_Error_Destroy(&d);
    pjdl_buffer_release(b);
    if (!lib_on_xla()) /* XLA has no count of its live allocations */
        assert_int_equal(lib_live(client), 0);
    pjdl_client_release(client);
    pjdl_plugin_release(plugin);
}

int main(int argc, char **argv) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(cpu_threads),
        cmocka_unit_test(one_transfer_wins),
        cmocka_unit_test(first_exports_race_delete),
        cmocka_unit_test(exports_race_unpin),
    };
    const struct CMUnitTest ref_only[] = {cmocka_unit_test(xpu_threads)};
    return lib_run(argc, argv, tests, LIB_COUNT(tests), ref_only, LIB_COUNT(ref_only), NULL, NULL);
}
