/* The stock of one block per thread (thread_stock.h). dladdr and Dl_info
 * are GNU extensions. */
#define _GNU_SOURCE
#include "thread_stock.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

typedef struct stock {
    void *block;
    size_t size;
    /* The key below was given a value on this thread, so that its
     * destructor frees the block when the thread exits. */
    bool keyed;
} stock;
static _Thread_local stock mine; /* one TLS lookup per use: my_stock() */

/* This thread's stock. The empty asm hands the address over as a plain
 * value: GCC would otherwise compute it again (another __tls_get_addr
 * call) after any call in between rather than keep it in a register. */
static inline stock *my_stock(void) {
    stock *s = &mine;
    __asm__("" : "+r"(s));
    return s;
}

static pthread_key_t key;
/* The key exists: set before any allocation can be offered, cleared by the
 * object's destructor while other threads may still give blocks. */
static atomic_bool key_ok;

/* The key's destructor: `arg` is the thread's stock (the key's value). */
static void stock_free(void *arg) {
    stock *s = arg;
    free(s->block);
    s->block = NULL;
}

__attribute__((constructor)) static void stock_create(void) {
    atomic_store_explicit(&key_ok, pthread_key_create(&key, stock_free) == 0, memory_order_relaxed);
}

/* The stock of the thread that ends the process (or unloads the object),
 * found through the key: reading the thread-local itself would have a
 * thread that never kept a block allocate its TLS here. */
__attribute__((destructor)) static void stock_destroy(void) {
    if (!atomic_exchange_explicit(&key_ok, false, memory_order_relaxed))
        return;
    stock *s = pthread_getspecific(key);
    if (s != NULL)
        stock_free(s);
}

void *pjdl__stock_take(size_t size) {
    stock *s = my_stock();
    void *b = s->block;
    if (b == NULL || s->size != size)
        return NULL;
    s->block = NULL;
    return b;
}

/* Gives the thread's stock its key's value, once per thread, so that the
 * key's destructor frees the kept block at the thread's exit. Out of line:
 * the common path then finds the stock with one TLS lookup, not one again
 * after a call (callgrind: ~14 instructions of every release). */
__attribute__((noinline)) static bool stock_keyed(stock *s) {
    pjdl__keep_loaded(); /* the key's destructor runs at the thread's exit */
    s->keyed = pthread_setspecific(key, s) == 0;
    return s->keyed;
}

bool pjdl__stock_keep(void *block, size_t size) {
    stock *s = my_stock();
    if (s->block != NULL || !atomic_load_explicit(&key_ok, memory_order_relaxed) ||
        !(s->keyed || stock_keyed(s)))
        return false;
    s->block = block;
    s->size = size;
    return true;
}

/* Pins the object this code is in (libpjrt_dlpack.so, the reference
 * plugin, or the shared object a static library was linked into):
 * RTLD_NODELETE on the loaded object by its own path, the handle closed
 * again (the flag stays). */
static void pin_self(void) {
    Dl_info info;
    if (dladdr((void *)&pin_self, &info) == 0 || info.dli_fname == NULL)
        return;
    void *h = dlopen(info.dli_fname, RTLD_LAZY | RTLD_NOLOAD | RTLD_NODELETE);
    if (h != NULL)
        dlclose(h);
}

void pjdl__keep_loaded(void) {
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, pin_self);
}
