/* The exactly-once deleter of an imported tensor (see import.h).
 *
 * The import call and PJRT's release each set their bit in one atomic word;
 * whoever comes second sees the other's bit and finishes (calls the deleter
 * if the import succeeded, frees the owner). No lock on the common path.
 * Only a failed import whose memory PJRT still holds waits, on one
 * process-wide condition variable (rare: a plugin that fails after taking
 * the memory). A view's owner is freed with its buffer's allocation, so
 * the buffer holds it (OWNER_HELD) until its own last release. */
#include <stdlib.h>

#include "import.h"

enum {
    OWNER_LIVE = 1u,     /* the import succeeded */
    OWNER_FAILED = 2u,   /* the import failed; the caller keeps the tensor */
    OWNER_RELEASED = 4u, /* PJRT no longer needs the memory (or never will call) */
    OWNER_WAITER = 8u,   /* abandon() waits for OWNER_RELEASED */
    OWNER_HELD = 16u,    /* the container buffer is still in use */
};

static pthread_mutex_t waiters_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t waiters_cv = PTHREAD_COND_INITIALIZER;

void pjdl__import_owner_init(import_owner *o, DLManagedTensorVersioned *v, DLManagedTensor *l,
                             pjdl_buffer *container) {
    o->versioned = v;
    o->legacy = l;
    o->versioned_deleter = v != NULL ? v->deleter : NULL;
    o->legacy_deleter = v == NULL && l != NULL ? l->deleter : NULL;
    o->container = container;
    atomic_init(&o->destroying, false);
    PJDL_PUBLISH(o->bits, 0u);
}

pjdl_code pjdl__import_owner_new(DLManagedTensorVersioned *v, DLManagedTensor *l,
                                 import_owner **out) {
    import_owner *o = NULL;
    PJDL_TRY(pjdl__alloc(sizeof *o, "an imported tensor", &o));
    pjdl__import_owner_init(o, v, l, NULL);
    *out = o;
    return PJDL_OK;
}

/* Frees the owner (with its container). `here`: on the thread that
 * imported or released the buffer, whose stock may keep a view's block. */
static void owner_free(import_owner *o, bool here) {
    if (o->container == NULL)
        free(o);
    else if (here)
        pjdl__buffer_recycle_block(o->container);
    else
        pjdl__buffer_free_block(o->container);
}

/* The deleter of the tensor, taken before the step that may let the other
 * side free the owner. */
typedef struct deleter {
    DLManagedTensorVersioned *versioned;
    void (*versioned_deleter)(DLManagedTensorVersioned *);
    DLManagedTensor *legacy;
    void (*legacy_deleter)(DLManagedTensor *);
} deleter;

static deleter deleter_of(const import_owner *o) {
    return (deleter){o->versioned, o->versioned_deleter, o->legacy, o->legacy_deleter};
}

/* Calls the deleter read when the import started: the tensor itself is not
 * read again (see import_owner). */
static void call_deleter(deleter d) {
    if (d.versioned_deleter != NULL)
        d.versioned_deleter(d.versioned);
    else if (d.legacy_deleter != NULL)
        d.legacy_deleter(d.legacy);
}

static unsigned set_bits(import_owner *o, unsigned bits) {
    return atomic_fetch_or_explicit(&o->bits, bits, memory_order_acq_rel);
}

/* pjdl__import_owner_finish in every case but the common one (a view just
 * created, PJRT's release not seen). Out of line: the common import
 * inlines that case and keeps the rest out of its hot code. */
__attribute__((noinline)) static void finish_decided(import_owner *o, bool success) {
    unsigned held = success && o->container != NULL ? OWNER_HELD : 0;
    deleter d = deleter_of(o);
    unsigned old = set_bits(o, (success ? OWNER_LIVE : OWNER_FAILED) | held);
    if (!(old & OWNER_RELEASED))
        return; /* PJRT's release finishes */
    if (success)
        call_deleter(d);
    if (!held)
        owner_free(o, true);
}

void pjdl__import_owner_finish(import_owner *o, bool success) {
    if (success && o->container != NULL) {
        /* A view that was just created: nobody else has its PJRT handle,
         * so PJRT cannot release the memory now (a plugin that called back
         * during the creation shows OWNER_RELEASED here). A plain store is
         * enough; even against a plugin that calls back concurrently for a
         * live view, losing that bit only keeps the producer's memory. */
        unsigned old = atomic_load_explicit(&o->bits, memory_order_acquire);
        if (__builtin_expect(!(old & OWNER_RELEASED), 1)) {
            atomic_store_explicit(&o->bits, old | OWNER_LIVE | OWNER_HELD, memory_order_release);
            return;
        }
    }
    finish_decided(o, success);
}

void pjdl__import_owner_abandon(import_owner *o) {
    unsigned old = set_bits(o, OWNER_FAILED | OWNER_WAITER);
    if (!(old & OWNER_RELEASED)) {
        pthread_mutex_lock(&waiters_mu);
        while (!(atomic_load_explicit(&o->bits, memory_order_acquire) & OWNER_RELEASED))
            pthread_cond_wait(&waiters_cv, &waiters_mu);
        pthread_mutex_unlock(&waiters_mu);
    }
    owner_free(o, true);
}

void pjdl__import_owner_destroying(import_owner *o) {
    o->destroyer = pthread_self();
    atomic_store_explicit(&o->destroying, true, memory_order_release);
}

/* Whether the calling thread is between pjdl__import_owner_destroying and
 * unhold of `o`: a plugin's callback made inside PJRT_Buffer_Destroy. */
static bool destroying_here(const import_owner *o) {
    return atomic_load_explicit(&o->destroying, memory_order_acquire) &&
           pthread_equal(o->destroyer, pthread_self());
}

void pjdl__import_owner_unhold(import_owner *o) {
    atomic_store_explicit(&o->destroying, false, memory_order_relaxed);
    /* PJRT's release, once seen, is over: no atomic write needed. */
    unsigned old = atomic_load_explicit(&o->bits, memory_order_acquire);
    if (!(old & OWNER_RELEASED))
        old = atomic_fetch_and_explicit(&o->bits, ~(unsigned)OWNER_HELD, memory_order_acq_rel);
    if (old & OWNER_RELEASED)
        owner_free(o, true);
}

/* PJRT's side is over; calls the deleter when `with_deleter` and the
 * import succeeded. */
static void release(import_owner *o, bool with_deleter) {
    /* When the import call has decided and nothing else still uses the
     * owner (no waiting abandon, no live container), this is the last
     * step: no atomic write is needed to know it. The common case: a copy
     * whose source the plugin read after the import returned. The acquire
     * is also PJDL_RECEIVE's: it comes before the owner's fields are read. */
    unsigned old = atomic_load_explicit(&o->bits, memory_order_acquire);
    deleter d = deleter_of(o);
    if ((old & OWNER_HELD) && !(old & OWNER_RELEASED) && destroying_here(o)) {
        /* Called back inside the container's destroy, on its thread: the
         * import call has long finished, no abandon waits, and unhold,
         * which frees, reads the state after this returns on this very
         * thread. Nobody else writes it now: a store is enough. */
        atomic_store_explicit(&o->bits, old | OWNER_RELEASED, memory_order_release);
        if (with_deleter && (old & OWNER_LIVE))
            call_deleter(d);
        return;
    }
    if (!(old & (OWNER_LIVE | OWNER_FAILED)) || (old & (OWNER_WAITER | OWNER_HELD)))
        old = set_bits(o, OWNER_RELEASED);
    if (old & OWNER_RELEASED)
        return; /* the callback came before a cancel: already done */
    if (!(old & (OWNER_LIVE | OWNER_FAILED)))
        return; /* the import call finishes */
    if (old & OWNER_WAITER) {
        /* abandon() frees the owner once it sees OWNER_RELEASED: o must not
         * be touched any more, only the shared condition variable. */
        pthread_mutex_lock(&waiters_mu);
        pthread_cond_broadcast(&waiters_cv);
        pthread_mutex_unlock(&waiters_mu);
        return;
    }
    if (with_deleter && (old & OWNER_LIVE))
        call_deleter(d);
    if (!(old & OWNER_HELD))
        owner_free(o, false);
}

void pjdl__import_owner_release(import_owner *o) {
    release(o, true);
}

void pjdl__import_owner_cancel(import_owner *o) {
    release(o, false);
}
