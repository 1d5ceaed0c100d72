/* Stress: eight threads mix export (share and transfer), import (views of
 * exports and copies of host tensors), delete and release on a few shared
 * buffers of an xpu client whose transfers are slow and sometimes fail.
 * Deleters run on whichever thread lets go last, including other test
 * threads and the plugin's stream threads.
 *
 * At the end: every deleter the test handed out ran exactly once (counted
 * per tensor by the test), every pin was released and every buffer freed
 * (the plugin's allocation accounting for the client is back to zero), and
 * after the client is released the whole plugin is back to where it started.
 * Under valgrind (PJDL_UNDER_VALGRIND=1) the counts are smaller. */
#include <pthread.h>
#include <stdatomic.h>
#include <time.h>

#include "lib_util.h"

#define THREADS 8
#define SLOTS 6
#define ELEMS 64
#define PENDING 32

static int iterations(void) {
    const char *v = getenv("PJDL_UNDER_VALGRIND");
    return v != NULL && strcmp(v, "1") == 0 ? 60 : 1000;
}

/* An exported tensor wrapped so that the test counts its deleter calls. */
typedef struct wrapped {
    DLManagedTensorVersioned outer;
    DLManagedTensorVersioned *inner;
    atomic_int calls;
} wrapped;

/* A host tensor the library imports by copying; counts its deleter. */
typedef struct host_tensor {
    DLManagedTensorVersioned t;
    int64_t shape[1];
    float data[ELEMS];
    atomic_int calls;
} host_tensor;

typedef struct shared {
    pjdl_client *client;
    pthread_mutex_t slot_mu[SLOTS];
    pjdl_buffer *slots[SLOTS];
    float pattern[ELEMS];
    /* Exports waiting for another thread to call their deleter. */
    pthread_mutex_t pending_mu;
    wrapped *pending[PENDING];
    int num_pending;
    /* Every tensor made, kept until the end to check its count. */
    wrapped *wraps;
    host_tensor *hosts;
    atomic_int num_wraps, num_hosts;
    int capacity;
    /* What happened. */
    atomic_long ok_ops, failed_ops, bad_messages, data_mismatches;
    atomic_long codes[17];
} shared;

static void wrapped_deleter(DLManagedTensorVersioned *self) {
    wrapped *w = self->manager_ctx;
    if (atomic_fetch_add(&w->calls, 1) == 0)
        w->inner->deleter(w->inner);
}

static void host_deleter(DLManagedTensorVersioned *self) {
    host_tensor *h = self->manager_ctx;
    atomic_fetch_add(&h->calls, 1);
}

static wrapped *wrap(shared *s, DLManagedTensorVersioned *inner) {
    int i = atomic_fetch_add(&s->num_wraps, 1);
    assert_true(i < s->capacity);
    wrapped *w = &s->wraps[i];
    w->inner = inner;
    w->outer = *inner;
    w->outer.manager_ctx = w;
    w->outer.deleter = wrapped_deleter;
    return w;
}

static host_tensor *new_host(shared *s) {
    int i = atomic_fetch_add(&s->num_hosts, 1);
    assert_true(i < s->capacity);
    host_tensor *h = &s->hosts[i];
    memcpy(h->data, s->pattern, sizeof h->data);
    h->shape[0] = ELEMS;
    h->t.version.major = DLPACK_MAJOR_VERSION;
    h->t.version.minor = DLPACK_MINOR_VERSION;
    h->t.manager_ctx = h;
    h->t.deleter = host_deleter;
    h->t.dl_tensor = (DLTensor){.data = h->data,
                                .device = {kDLCPU, 0},
                                .ndim = 1,
                                .dtype = {kDLFloat, 32, 1},
                                .shape = h->shape};
    return h;
}

/* Records the outcome of one operation; a failure must say why. */
static bool note(shared *s, pjdl_code code) {
    if (code == PJDL_OK) {
        atomic_fetch_add(&s->ok_ops, 1);
        return true;
    }
    atomic_fetch_add(&s->failed_ops, 1);
    atomic_fetch_add(&s->codes[(unsigned)code < 17 ? code : PJDL_UNKNOWN], 1);
    if (pjdl_last_error()[0] == '\0')
        atomic_fetch_add(&s->bad_messages, 1);
    return false;
}

static pjdl_buffer *take(shared *s, int k) {
    pthread_mutex_lock(&s->slot_mu[k]);
    pjdl_buffer *b = s->slots[k];
    pjdl_buffer_retain(b);
    pthread_mutex_unlock(&s->slot_mu[k]);
    return b;
}

/* Replaces slot k's buffer with a fresh one (kept on failure). */
static void refill(shared *s, int k) {
    static const int64_t dims[1] = {ELEMS};
    pjdl_buffer *fresh = NULL;
    if (!note(s, pjdl_buffer_from_host(s->client, s->pattern, PJRT_Buffer_Type_F32, dims, 1, NULL,
                                       NULL, &fresh)))
        return;
    pthread_mutex_lock(&s->slot_mu[k]);
    pjdl_buffer *old = s->slots[k];
    s->slots[k] = fresh;
    pthread_mutex_unlock(&s->slot_mu[k]);
    pjdl_buffer_release(old);
}

/* Hands an export to whichever thread drains the queue next. */
static void defer(shared *s, wrapped *w) {
    pthread_mutex_lock(&s->pending_mu);
    if (s->num_pending < PENDING) {
        s->pending[s->num_pending++] = w;
        w = NULL;
    }
    pthread_mutex_unlock(&s->pending_mu);
    if (w != NULL)
        w->outer.deleter(&w->outer);
}

static void drain_one(shared *s) {
    wrapped *w = NULL;
    pthread_mutex_lock(&s->pending_mu);
    if (s->num_pending > 0)
        w = s->pending[--s->num_pending];
    pthread_mutex_unlock(&s->pending_mu);
    if (w != NULL)
        w->outer.deleter(&w->outer);
}

/* Export, import the export as a view, read it back, release. */
static void op_roundtrip(shared *s, pjdl_buffer *b) {
    DLManagedTensorVersioned *t = NULL;
    if (!note(s, pjdl_buffer_export(b, NULL, &t)))
        return;
    wrapped *w = wrap(s, t);
    pjdl_buffer *view = NULL;
    if (!note(s, pjdl_import(&s->client, 1, &w->outer, NULL, &view))) {
        w->outer.deleter(&w->outer); /* still ours */
        return;
    }
    float back[ELEMS];
    if (note(s, pjdl_buffer_to_host(view, back, sizeof back)) &&
        memcmp(back, s->pattern, sizeof back) != 0)
        atomic_fetch_add(&s->data_mismatches, 1);
    pjdl_buffer_release(view); /* the library calls w's deleter */
}

static void op_export(shared *s, pjdl_buffer *b, pjdl_export_mode mode, int k) {
    pjdl_export_options o = PJDL_EXPORT_OPTIONS_INIT;
    o.mode = mode;
    DLManagedTensorVersioned *t = NULL;
    if (!note(s, pjdl_buffer_export(b, &o, &t)))
        return;
    defer(s, wrap(s, t));
    if (mode == PJDL_EXPORT_TRANSFER)
        refill(s, k);
}

static void op_import_host(shared *s) {
    host_tensor *h = new_host(s);
    pjdl_import_options o = PJDL_IMPORT_OPTIONS_INIT;
    o.device = pjdl_client_device(s->client, 0);
    pjdl_buffer *b = NULL;
    if (!note(s, pjdl_import(&s->client, 1, &h->t, &o, &b))) {
        h->t.deleter(&h->t); /* the caller keeps it on failure */
        return;
    }
    float back[ELEMS];
    if (note(s, pjdl_buffer_to_host(b, back, sizeof back)) &&
        memcmp(back, s->pattern, sizeof back) != 0)
        atomic_fetch_add(&s->data_mismatches, 1);
    pjdl_buffer_release(b);
}

typedef struct worker {
    shared *s;
    unsigned seed;
} worker;

static void *run(void *arg) {
    worker *w = arg;
    shared *s = w->s;
    int n = iterations();
    for (int i = 0; i < n; i++) {
        int k = (int)(rand_r(&w->seed) % SLOTS);
        int op = (int)(rand_r(&w->seed) % 10);
        pjdl_buffer *b = take(s, k);
        switch (op) {
        case 0:
        case 1:
        case 2:
            op_roundtrip(s, b);
            break;
        case 3:
        case 4:
            op_export(s, b, PJDL_EXPORT_SHARE, k);
            break;
        case 5:
            op_export(s, b, PJDL_EXPORT_TRANSFER, k);
            break;
        case 6:
            note(s, pjdl_buffer_delete(b));
            refill(s, k);
            break;
        case 7:
            op_import_host(s);
            break;
        case 8:
            refill(s, k); /* drops the slot's reference */
            break;
        default:
            drain_one(s);
            break;
        }
        pjdl_buffer_release(b);
    }
    return NULL;
}

static void stress(void **state) {
    (void)state;
    pjdl_plugin *plugin = lib_load();
    int64_t process_before = lib_live_process(plugin);
    pjdl_option opts[3] = {{.name = "platform", .type = PJDL_OPTION_STRING},
                           {.name = "transfer_delay_us", .type = PJDL_OPTION_INT64},
                           {.name = "fail_transfer_every", .type = PJDL_OPTION_INT64}};
    opts[0].value.string_value = "xpu";
    opts[1].value.int64_value = 50;
    opts[2].value.int64_value = 7;
    shared *s = calloc(1, sizeof *s);
    assert_non_null(s);
    LIB_OK(pjdl_client_create(plugin, opts, 3, &s->client));
    pjdl_client_set_wait_timeout(s->client, 60000); /* a hang becomes a failure */
    for (int i = 0; i < ELEMS; i++)
        s->pattern[i] = (float)i * 0.5f;
    s->capacity = THREADS * iterations() + 1;
    s->wraps = calloc((size_t)s->capacity, sizeof *s->wraps);
    s->hosts = calloc((size_t)s->capacity, sizeof *s->hosts);
    assert_true(s->wraps != NULL && s->hosts != NULL);
    pthread_mutex_init(&s->pending_mu, NULL);
    for (int k = 0; k < SLOTS; k++) {
        pthread_mutex_init(&s->slot_mu[k], NULL);
        while (s->slots[k] == NULL)
            refill(s, k); /* a transfer fault may fail one */
    }

    pthread_t threads[THREADS];
    worker workers[THREADS];
    for (int t = 0; t < THREADS; t++) {
        workers[t] = (worker){s, (unsigned)(1234 + 77 * t)};
        assert_int_equal(pthread_create(&threads[t], NULL, run, &workers[t]), 0);
    }
    for (int t = 0; t < THREADS; t++)
        pthread_join(threads[t], NULL);

    while (s->num_pending > 0)
        drain_one(s);
    for (int k = 0; k < SLOTS; k++) {
        pjdl_buffer_release(s->slots[k]);
        pthread_mutex_destroy(&s->slot_mu[k]);
    }
    pthread_mutex_destroy(&s->pending_mu);

    /* Deleters of imported exports may still be on their way (views are
     * freed on the stream threads once queued work is done). */
    assert_int_equal(lib_settled(s->client, 5000), 0);
    int wraps = atomic_load(&s->num_wraps), hosts = atomic_load(&s->num_hosts);
    int bad_wraps = 0, bad_hosts = 0;
    for (int i = 0; i < wraps; i++)
        bad_wraps += atomic_load(&s->wraps[i].calls) != 1;
    for (int i = 0; i < hosts; i++)
        bad_hosts += atomic_load(&s->hosts[i].calls) != 1;
    print_message("stress: %ld operations succeeded, %ld failed (INTERNAL %ld, "
                  "FAILED_PRECONDITION %ld, other %ld); %d exports and %d host imports\n",
                  atomic_load(&s->ok_ops), atomic_load(&s->failed_ops),
                  atomic_load(&s->codes[PJDL_INTERNAL]),
                  atomic_load(&s->codes[PJDL_FAILED_PRECONDITION]),
                  atomic_load(&s->failed_ops) - atomic_load(&s->codes[PJDL_INTERNAL]) -
                      atomic_load(&s->codes[PJDL_FAILED_PRECONDITION]),
                  wraps, hosts);
    assert_int_equal(bad_wraps, 0);
    assert_int_equal(bad_hosts, 0);
    assert_int_equal(atomic_load(&s->bad_messages), 0);
    assert_int_equal(atomic_load(&s->data_mismatches), 0);
    assert_true(atomic_load(&s->ok_ops) > 0);
    assert_true(atomic_load(&s->codes[PJDL_INTERNAL]) > 0); /* the injected faults were seen */
    assert_true(wraps > 0 && hosts > 0);

    pjdl_client_release(s->client);
    /* The plugin as a whole is back to where it started. */
    assert_int_equal(lib_settled_process(plugin, process_before, 5000), process_before);
    free(s->wraps);
    free(s->hosts);
    free(s);
    pjdl_plugin_release(plugin);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(stress),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
