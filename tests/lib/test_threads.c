/* Many threads exporting and importing the same buffers at once. */
#include <pthread.h>

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

static void hammer(const char *platform) {
    pjdl_plugin *plugin = lib_load();
    shared s = {.client = lib_client(plugin, platform)};
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
    assert_int_equal(lib_live(s.client), 0);
    pjdl_client_release(s.client);
    pjdl_plugin_release(plugin);
}

static void cpu_threads(void **state) {
    (void)state;
    hammer("cpu");
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
    pjdl_plugin *plugin = lib_load();
    pjdl_client *client = lib_client(plugin, "cpu");
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
    assert_int_equal(lib_live(client), 0);
    pjdl_client_release(client);
    pjdl_plugin_release(plugin);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(cpu_threads),
        cmocka_unit_test(xpu_threads),
        cmocka_unit_test(one_transfer_wins),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
