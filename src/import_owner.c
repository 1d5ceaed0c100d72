/* The exactly-once deleter of an imported tensor (see import.h).
 *
 * The import call and PJRT's release each set their bit in one atomic word;
 * whoever comes second sees the other's bit and finishes (calls the deleter
 * if the import succeeded, frees the owner). No lock on the common path.
 * Only a failed import whose memory PJRT still holds waits, on one
 * process-wide condition variable (rare: a plugin that fails after taking
 * the memory). */
#include <stdlib.h>

#include "import.h"

enum {
    OWNER_LIVE = 1u,     /* the import succeeded */
    OWNER_FAILED = 2u,   /* the import failed; the caller keeps the tensor */
    OWNER_RELEASED = 4u, /* PJRT no longer needs the memory (or never will call) */
    OWNER_WAITER = 8u,   /* abandon() waits for OWNER_RELEASED */
};

static pthread_mutex_t waiters_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t waiters_cv = PTHREAD_COND_INITIALIZER;

pjdl_code pjdl_import_owner_new(DLManagedTensorVersioned *v, DLManagedTensor *l,
                                import_owner **out) {
    import_owner *o = NULL;
    pjdl_code code = pjdl_alloc(sizeof *o, "an imported tensor", &o);
    if (code != PJDL_OK)
        return code;
    atomic_init(&o->bits, 0u);
    o->versioned = v;
    o->legacy = l;
    *out = o;
    return PJDL_OK;
}

static void call_deleter(const import_owner *o) {
    if (o->versioned != NULL && o->versioned->deleter != NULL)
        o->versioned->deleter(o->versioned);
    else if (o->legacy != NULL && o->legacy->deleter != NULL)
        o->legacy->deleter(o->legacy);
}

static unsigned set_bits(import_owner *o, unsigned bits) {
    return atomic_fetch_or_explicit(&o->bits, bits, memory_order_acq_rel);
}

void pjdl_import_owner_finish(import_owner *o, bool success) {
    unsigned old = set_bits(o, success ? OWNER_LIVE : OWNER_FAILED);
    if (!(old & OWNER_RELEASED))
        return; /* PJRT's release finishes */
    if (success)
        call_deleter(o);
    free(o);
}

void pjdl_import_owner_abandon(import_owner *o) {
    unsigned old = set_bits(o, OWNER_FAILED | OWNER_WAITER);
    if (!(old & OWNER_RELEASED)) {
        pthread_mutex_lock(&waiters_mu);
        while (!(atomic_load_explicit(&o->bits, memory_order_acquire) & OWNER_RELEASED))
            pthread_cond_wait(&waiters_cv, &waiters_mu);
        pthread_mutex_unlock(&waiters_mu);
    }
    free(o);
}

/* PJRT's side is over; calls the deleter when `deleter` and the import
 * succeeded. */
static void release(import_owner *o, bool deleter) {
    /* An import call that has decided is done with the owner (finish is its
     * last step; abandon shows OWNER_WAITER): then no atomic write is
     * needed to know who is last. The common case: a view released by
     * pjdl_buffer_release long after its import succeeded. */
    unsigned old = atomic_load_explicit(&o->bits, memory_order_acquire);
    if (!(old & (OWNER_LIVE | OWNER_FAILED)) || (old & OWNER_WAITER))
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
    if (deleter && (old & OWNER_LIVE))
        call_deleter(o);
    free(o);
}

void pjdl_import_owner_release(import_owner *o) {
    release(o, true);
}

void pjdl_import_owner_cancel(import_owner *o) {
    release(o, false);
}
