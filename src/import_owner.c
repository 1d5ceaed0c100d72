/* The exactly-once deleter of an imported tensor (see import.h). */
#include <stdlib.h>

#include "import.h"

pjdl_code pjdl_import_owner_new(DLManagedTensorVersioned *v, DLManagedTensor *l,
                                import_owner **out) {
    import_owner *o = NULL;
    pjdl_code code = pjdl_alloc(sizeof *o, "an imported tensor", &o);
    if (code != PJDL_OK)
        return code;
    pthread_mutex_init(&o->mu, NULL);
    pthread_cond_init(&o->released_cv, NULL);
    o->state = IMPORT_PENDING;
    o->refs = 2;
    o->versioned = v;
    o->legacy = l;
    *out = o;
    return PJDL_OK;
}

static void call_deleter(DLManagedTensorVersioned *v, DLManagedTensor *l) {
    if (v != NULL && v->deleter != NULL)
        v->deleter(v);
    else if (l != NULL && l->deleter != NULL)
        l->deleter(l);
}

/* Drops one reference (with o->mu held; unlocks). */
static void unref_unlock(import_owner *o) {
    bool last = --o->refs == 0;
    pthread_mutex_unlock(&o->mu);
    if (last) {
        pthread_cond_destroy(&o->released_cv);
        pthread_mutex_destroy(&o->mu);
        free(o);
    }
}

void pjdl_import_owner_finish(import_owner *o, bool success) {
    pthread_mutex_lock(&o->mu);
    o->state = success ? IMPORT_LIVE : IMPORT_FAILED;
    bool call = success && o->released;
    DLManagedTensorVersioned *v = o->versioned;
    DLManagedTensor *l = o->legacy;
    unref_unlock(o);
    if (call)
        call_deleter(v, l);
}

void pjdl_import_owner_abandon(import_owner *o) {
    pthread_mutex_lock(&o->mu);
    o->state = IMPORT_FAILED;
    while (!o->released)
        pthread_cond_wait(&o->released_cv, &o->mu);
    unref_unlock(o);
}

void pjdl_import_owner_release(import_owner *o) {
    pthread_mutex_lock(&o->mu);
    o->released = true;
    pthread_cond_broadcast(&o->released_cv);
    bool call = o->state == IMPORT_LIVE;
    DLManagedTensorVersioned *v = o->versioned;
    DLManagedTensor *l = o->legacy;
    unref_unlock(o);
    if (call)
        call_deleter(v, l);
}

void pjdl_import_owner_cancel(import_owner *o) {
    pthread_mutex_lock(&o->mu);
    if (o->released) { /* the callback came anyway and dropped its reference */
        pthread_mutex_unlock(&o->mu);
        return;
    }
    o->released = true;
    unref_unlock(o);
}
