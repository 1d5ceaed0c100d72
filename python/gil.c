/*
 * gil.c — running Python-touching callbacks from threads the interpreter
 * does not control.
 *
 * DLPack deleters run on whatever thread drops the last reference: a plugin
 * worker thread, a thread of another framework, or a Python thread inside a
 * library call with the GIL released. Producer deleters written for Python
 * (NumPy's, PyTorch's) need the GIL. Taking it with PyGILState_Ensure from a
 * foreign thread is unsafe: if the interpreter starts finalizing while that
 * thread waits for the GIL, CPython ends the thread, and a plugin worker that
 * disappears mid-operation hangs the process at exit. So a callback that
 * finds the GIL not held on its thread is queued instead; the queue is
 * drained with the GIL held by the next Python thread that returns from a
 * library call (PJPY_NOGIL), and by a pending call (Py_AddPendingCall, which
 * never blocks) otherwise. Once the interpreter is exiting, callbacks that
 * cannot run at once are dropped: the producer's memory is leaked rather than
 * the process crashed or hung. A callback made on a Python thread inside its
 * own library call (PJPY_NOGIL: a buffer's release running the deleter of the
 * tensor it viewed) waits in that thread's slot instead, and runs when the
 * call returns: no allocation, lock or pending call. So does one made inside
 * a library call that keeps the GIL (PJPY_CALL with keep_gil, for calls
 * known never to block): the callback never runs in the middle of the
 * library's work, whether or not the thread holds the GIL meanwhile.
 *
 * "Holds the GIL" is asked of CPython's thread state (pjpy_thread_attached),
 * never of PyGILState_Check: CPython 3.10 and 3.11 make that answer 1 for
 * good once any subinterpreter has been created, and 3.12 and later answer
 * for the main interpreter only.
 */
#include "pjdl_py.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

typedef struct deferred {
    struct deferred *next;
    void (*run)(void *);
    void *arg;
} deferred;

static pthread_mutex_t queue_mu = PTHREAD_MUTEX_INITIALIZER;
static deferred *queue_head, *queue_tail;
static atomic_int queued;    /* number of entries in the queue */
static atomic_int scheduled; /* a pending call is registered */
static atomic_int exiting;
/* The main interpreter, where callbacks that need the GIL run: a foreign
 * thread's PyGILState_Ensure (the exchange API's allocator) attaches there,
 * and CPython runs the pending call there. Not the interpreter that first
 * imported the module: the module is initialized once per process, so
 * that may be a subinterpreter, since destroyed, whose threads would then
 * be the only ones to run the main interpreter's deleters at once. Set
 * once, with the GIL, before any callback. */
static PyInterpreterState *home;

void pjpy_set_home_interpreter(void) {
    if (home == NULL)
        home = PyInterpreterState_Main();
}

/* The thread state attached to this thread, or NULL. CPython 3.12 keeps the
 * current thread state per thread; 3.10 and 3.11 keep one per process (the
 * thread holding the GIL, whichever it is), so there it counts only when it
 * was made for this thread. Reading another thread's state races with its
 * deletion exactly as CPython's own Py_AddPendingCall does on those
 * versions, which reads it the same way from any thread. */
static PyThreadState *attached_state(void) {
#if PY_VERSION_HEX >= 0x030D0000
    return PyThreadState_GetUnchecked();
#elif PY_VERSION_HEX >= 0x030C0000
    return _PyThreadState_UncheckedGet();
#else
    PyThreadState *ts = _PyThreadState_UncheckedGet();
    return ts != NULL && ts->thread_id == PyThread_get_thread_ident() ? ts : NULL;
#endif
}

pjpy_attach pjpy_thread_attached(void) {
    PyThreadState *ts = attached_state();
    if (ts == NULL)
        return PJPY_DETACHED;
    return PyThreadState_GetInterpreter(ts) == home ? PJPY_ATTACHED_HOME : PJPY_ATTACHED_OTHER;
}

void pjpy_set_exiting(void) {
    atomic_store(&exiting, 1);
}

static int finalizing(void) {
#if PY_VERSION_HEX >= 0x030D0000
    return Py_IsFinalizing();
#else
    return _Py_IsFinalizing();
#endif
}

int pjpy_may_release_gil(void) {
    return !atomic_load(&exiting) && !finalizing();
}

void pjpy_run_keeping_error(void (*run)(void *), void *arg) {
    if (!PyErr_Occurred()) { /* the common case, without the fetch and restore */
        run(arg);
        if (PyErr_Occurred())
            PyErr_Clear();
        return;
    }
    PyObject *type, *value, *tb;
    PyErr_Fetch(&type, &value, &tb);
    run(arg);
    PyErr_Restore(type, value, tb);
}

void pjpy_drain_deferred(void) {
    /* The common case, an empty queue, costs one relaxed load; an entry
     * queued concurrently is seen by a later drain or by the pending call. */
    if (atomic_load_explicit(&queued, memory_order_relaxed) <= 0)
        return;
    while (atomic_load(&queued) > 0) {
        pthread_mutex_lock(&queue_mu);
        deferred *d = queue_head;
        if (d != NULL) {
            queue_head = d->next;
            if (queue_head == NULL)
                queue_tail = NULL;
            atomic_fetch_sub(&queued, 1);
        }
        pthread_mutex_unlock(&queue_mu);
        if (d == NULL)
            break;
        pjpy_run_keeping_error(d->run, d->arg);
        free(d);
    }
}

static int drain_pending(void *unused) {
    (void)unused;
    atomic_store(&scheduled, 0);
    /* CPython 3.10 and 3.11 may run a pending call in a subinterpreter; the
     * queue then waits for the next library call or pending call here. */
    if (pjpy_thread_attached() == PJPY_ATTACHED_HOME)
        pjpy_drain_deferred();
    return 0;
}

/* One callback made on this thread during its own library call (PJPY_NOGIL,
 * or PJPY_CALL with the GIL kept): the thread runs it when the call returns,
 * with the GIL, so it needs neither the queue nor a pending call, and it
 * never runs in the middle of the library call. */
typedef struct nogil_slot {
    bool open;
    void (*run)(void *);
    void (*drop)(void *);
    void *arg;
} nogil_slot;
static _Thread_local nogil_slot slot;

/* The slot of a call that keeps the GIL, and the thread making it (0: none).
 * Holding the GIL throughout, at most one thread is in such a call at a
 * time (the module is single-phase: every interpreter that imports it
 * shares the main GIL), so one slot serves them all, found without the
 * thread-local lookup (a call of __tls_get_addr from a loaded module) that
 * each of the common import's three brackets cost (bench/README.md).
 * Another thread reads kept_thread only to compare it with itself, which
 * it can never equal. */
static nogil_slot kept_slot;
static _Atomic uintptr_t kept_thread;

static uintptr_t this_thread(void) {
    return (uintptr_t)pthread_self();
}

static void enqueue(void (*run)(void *), void (*drop)(void *), void *arg);

pjpy_call pjpy_call_begin(int keep_gil) {
    /* The caller holds the GIL: its thread state is attached. The slot is
     * found once and handed to pjpy_call_end (a TLS lookup less). A call
     * inside a kept one (none is made today) takes the thread's own. */
    bool home_here = PyInterpreterState_Get() == home;
    uintptr_t me = this_thread();
    if (keep_gil && atomic_load_explicit(&kept_thread, memory_order_relaxed) != me) {
        kept_slot.open = home_here;
        atomic_store_explicit(&kept_thread, me, memory_order_relaxed);
        return (pjpy_call){NULL, &kept_slot};
    }
    nogil_slot *s = &slot;
    s->open = home_here;
    return (pjpy_call){keep_gil ? NULL : PyEval_SaveThread(), s};
}

void pjpy_call_end(pjpy_call call, int drain) {
    if (call.save != NULL)
        PyEval_RestoreThread(call.save);
    if (call.slot == &kept_slot)
        atomic_store_explicit(&kept_thread, 0, memory_order_relaxed);
    nogil_slot kept = *call.slot;
    *call.slot = (nogil_slot){0};
    if (kept.run != NULL && drain) {
        pjpy_run_keeping_error(kept.run, kept.arg);
    } else if (kept.run != NULL) {
        enqueue(kept.run, kept.drop, kept.arg);
    }
    if (drain)
        pjpy_drain_deferred();
}

void pjpy_call_with_gil(void (*run)(void *), void (*drop)(void *), void *arg) {
    if (!Py_IsInitialized()) {
        drop(arg);
        return;
    }
    /* Inside this thread's own library call: after the call, even when the
     * call kept the GIL (the library may be in the middle of something). */
    nogil_slot *s = atomic_load_explicit(&kept_thread, memory_order_relaxed) == this_thread()
                        ? &kept_slot
                        : &slot;
    if (s->open) {
        if (s->run == NULL)
            *s = (nogil_slot){.open = true, .run = run, .drop = drop, .arg = arg};
        else
            enqueue(run, drop, arg);
        return;
    }
    if (pjpy_thread_attached() == PJPY_ATTACHED_HOME) {
        run(arg);
        return;
    }
    enqueue(run, drop, arg);
}

/* Queues run(arg) for a thread holding the GIL (drop(arg) instead once the
 * interpreter is exiting). */
static void enqueue(void (*run)(void *), void (*drop)(void *), void *arg) {
    deferred *d = NULL;
    if (!atomic_load(&exiting) && !finalizing())
        d = malloc(sizeof *d);
    if (d == NULL) {
        drop(arg);
        return;
    }
    d->next = NULL;
    d->run = run;
    d->arg = arg;
    pthread_mutex_lock(&queue_mu);
    if (queue_tail)
        queue_tail->next = d;
    else
        queue_head = d;
    queue_tail = d;
    atomic_fetch_add(&queued, 1);
    pthread_mutex_unlock(&queue_mu);
    if (!atomic_exchange(&scheduled, 1) && Py_AddPendingCall(drain_pending, NULL) != 0)
        atomic_store(&scheduled, 0); /* full: the next library call drains */
}
