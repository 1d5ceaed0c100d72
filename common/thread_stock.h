/* A stock of one memory block per thread, for objects a thread makes and
 * frees at a high rate (an imported view's block in libpjrt_dlpack, a
 * small buffer's PJRT_Buffer in the reference plugin): the block a thread
 * frees is kept, and its next allocation of the same size takes it, so
 * that the pair costs no malloc and free. Each object file set that
 * compiles thread_stock.c in (the library, the plugin, a fuzz target) has
 * a stock of its own; each offers blocks of one size.
 *
 * A kept block is freed when its thread exits (a thread-specific key's
 * destructor) and, on the thread that ends the process or unloads the
 * object, by the object's destructor; once a thread keeps a block the
 * object is pinned (RTLD_NODELETE: the key's destructor is its code).
 * Blocks given on other threads after that destructor ran are not kept.
 * Memory from malloc only; safe from any thread. */
#ifndef PJDL_COMMON_THREAD_STOCK_H_
#define PJDL_COMMON_THREAD_STOCK_H_

#include <stdbool.h>
#include <stddef.h>

/* The calling thread's kept block if it has `size` bytes (it is then no
 * longer kept), else NULL: the caller allocates. */
void *pjdl__stock_take(size_t size);

/* Keeps `block` (from malloc, `size` bytes) for the calling thread's next
 * pjdl__stock_take(size) if the thread keeps none; false when it is not
 * kept (the caller frees it). */
bool pjdl__stock_keep(void *block, size_t size);

/* Pins the shared object this code is compiled into (RTLD_NODELETE), once:
 * for code that will run after the caller returns (a thread's exit
 * destructor, a thread of our own). */
void pjdl__keep_loaded(void);

#endif
