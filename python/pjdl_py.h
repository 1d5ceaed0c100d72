/*
 * pjdl_py.h — internal declarations shared by the files of the pjrt_dlpack
 * Python extension module. Not installed; not a public interface.
 *
 * Object model (every Python object holds one library reference):
 *   Plugin  -> pjdl_plugin
 *   Client  -> pjdl_client, and a strong reference to its Plugin object
 *   Device  -> borrowed pjdl_device, kept valid by a strong ref to its Client
 *   Memory  -> borrowed pjdl_memory, kept valid by a strong ref to its Client
 *   Buffer  -> pjdl_buffer, and a strong reference to its Client object
 *   Executable -> pjdl_executable, and a strong reference to its Client
 * Device and Memory objects are made on demand (never cached by the client),
 * so none of these types can form a reference cycle and none needs the GC.
 */
#ifndef PJDL_PY_H_
#define PJDL_PY_H_

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "pjrt_dlpack.h"

/* ------------------------------------------------------------- objects */

typedef struct {
    PyObject_HEAD pjdl_plugin *plugin;
    int sync_views; /* see pjpy_client.sync_views */
} pjpy_plugin;

typedef struct pjpy_client {
    PyObject_HEAD pjdl_client *client;
    PyObject *plugin; /* pjpy_plugin */
    /* Whether the client's plugin is known never to block in the two calls
     * of a host import's life: viewing host memory
     * (PJRT_Client_CreateViewOfDeviceBuffer, no stream) and destroying a
     * buffer. Then from_dlpack tries the view, and a Buffer's release runs,
     * with the GIL kept: releasing and taking it back would cost more than
     * the calls. The plugin's promise (pjpy_plugin.sync_views, its int64
     * attribute pjrt_dlpack_sync_views = 1: plugin.c), copied here for the
     * hot paths; the reference plugin makes it, XLA's does not. */
    int sync_views;
    /* Intrusive list of live clients, for the module-level from_dlpack;
     * guarded by the GIL. */
    struct pjpy_client *prev, *next;
    PyObject *weakreflist;
} pjpy_client;

typedef struct {
    PyObject_HEAD PyObject *client; /* pjpy_client */
    pjdl_device *device;
} pjpy_device;

typedef struct {
    PyObject_HEAD PyObject *client; /* pjpy_client */
    pjdl_device *device;
    pjdl_memory *memory;
} pjpy_memory;

typedef struct {
    PyObject_HEAD PyObject *client; /* pjpy_client */
    pjdl_buffer *buffer;
    PyObject *weakreflist;
    /* Set (with the GIL) once a plain export was ready and zero-copy, so
     * that later plain exports cannot block and keep the GIL. */
    int export_fast;
    /* The __dlpack_device__ tuple, made on first use; NULL until then. */
    PyObject *dl_device_tuple;
    /* pjdl_platform_generation() when dl_device_tuple and view->device were
     * last known true: both derive from the platform registry
     * (pjpy_buffer_registry_sync). */
    unsigned dl_generation;
    /* What the exchange API's dltensor_from_py_object_no_sync hands out: a
     * DLTensor with its shape and strides in the same PyMem block, made on
     * first use (exchange_api.c). A buffer never changes its data pointer,
     * layout or shape while it is not deleted, so the copy stays true. */
    DLTensor *view;
} pjpy_buffer;

extern PyTypeObject pjpy_plugin_type;
extern PyTypeObject pjpy_client_type;
extern PyTypeObject pjpy_device_type;
extern PyTypeObject pjpy_memory_type;
extern PyTypeObject pjpy_buffer_type;
extern PyTypeObject pjpy_executable_type;

/* -------------------------------------------------------------- errors */

/* pjrt_dlpack.Error (a RuntimeError) and pjrt_dlpack.DLPackError (an Error
 * and a BufferError: what the array API standard raises when data cannot be
 * exchanged through DLPack). Both carry `code` and `code_name`. */
extern PyObject *pjpy_error;
extern PyObject *pjpy_dlpack_error;
/* pjrt_dlpack.DLPackCopyError: a DLPackError and a ValueError, for a
 * from_dlpack whose device= needs a copy that copy=False forbids. */
extern PyObject *pjpy_dlpack_copy_error;
extern PyObject *pjpy_not_dlpack_error; /* AttributeError and TypeError */

/* Creates the exception types; 0 on success, -1 with an exception set. */
int pjpy_errors_init(PyObject *module);

/* Raises `type` for a failed library call with code `code`, taking the
 * message from pjdl_last_error() of the calling thread. Returns NULL. */
PyObject *pjpy_raise(PyObject *type, pjdl_code code);

/* pjpy_raise with pjpy_error. */
PyObject *pjpy_raise_error(pjdl_code code);

/* pjpy_raise with pjpy_dlpack_error for the codes that mean "this cannot be
 * exchanged through DLPack" (INVALID_ARGUMENT, NOT_FOUND,
 * FAILED_PRECONDITION, UNIMPLEMENTED), pjpy_error otherwise. */
PyObject *pjpy_raise_exchange(pjdl_code code);

/* ------------------------------------------------------------ integers */

/* Every Python integer that becomes a C value goes through one of these
 * (ints.c). pjpy_int_arg: obj (an int or an object with __index__) as a
 * value in [min, max] in *out; not an integer: TypeError; out of range:
 * `error` (OverflowError for plain arguments, DLPackError for the DLPack
 * protocol's), both naming `what` (e.g. "dl_device[1]"). 0, or -1 with the
 * exception set. */
int pjpy_int_arg(PyObject *obj, const char *what, int64_t min, int64_t max, PyObject *error,
                 int64_t *out);

/* A tuple of two ints, checked as pjpy_int_arg does: the first in
 * [range[0], range[1]], the second in [range[2], range[3]], named
 * "<what>[0]" and "<what>[1]"; not such a tuple: TypeError. */
int pjpy_int_pair(PyObject *obj, const char *what, const int64_t range[4], PyObject *error,
                  int64_t out[2]);

/* The range of a DLDevice's (device_type, device_id), for pjpy_int_pair. */
extern const int64_t pjpy_dl_device_range[4];

/* A DLPack (major, minor) a caller reads up to (max_version): a tuple of two
 * non-negative ints, each above 2**32 - 1 read as that (a consumer of a
 * newer major gets our newest version); named as pjpy_int_pair does. */
int pjpy_version_pair(PyObject *obj, const char *what, PyObject *error, int64_t out[2]);

/* An address (a data pointer, a C handle): [0, 2**64 - 1] on a 64-bit
 * machine, OverflowError naming `what` otherwise. 0, or -1. */
int pjpy_address_arg(PyObject *obj, const char *what, void **out);

/* ----------------------------------------------------------- threading */

/* Whether this thread may run Python code of the module's interpreter (the
 * main one): it has an attached thread state (holds the GIL) of that
 * interpreter (PJPY_ATTACHED_HOME), of another one (PJPY_ATTACHED_OTHER),
 * or none.
 * Right with subinterpreters, on every supported Python (gil.c). */
typedef enum { PJPY_DETACHED, PJPY_ATTACHED_HOME, PJPY_ATTACHED_OTHER } pjpy_attach;
pjpy_attach pjpy_thread_attached(void);

/* Records the main interpreter as the module's (module init). */
void pjpy_set_home_interpreter(void);

/* Whether the GIL may be released around a library call: not once the
 * interpreter is exiting, so that callbacks triggered by the call on this
 * thread find the GIL held and run at once. */
int pjpy_may_release_gil(void);

/* Runs run(arg) (with the GIL) so that the exception being raised, if any,
 * is the one left after it, and none when there was none: what the callback
 * leaves is cleared. The one home of that rule for every callback the module
 * runs while an exception may be in flight (deleters, deferred callbacks). */
void pjpy_run_keeping_error(void (*run)(void *), void *arg);

/* Runs the callbacks queued by pjpy_call_with_gil. Needs the GIL. */
void pjpy_drain_deferred(void);

/* A library call bracketed by pjpy_call_begin and pjpy_call_end (PJPY_NOGIL,
 * PJPY_CALL_RC): pjpy_call_begin opens this thread's slot, where
 * pjpy_call_with_gil keeps one callback made on this thread meanwhile (no
 * queue, no pending call), and releases the GIL unless `keep_gil` (then it
 * returns NULL); pjpy_call_end takes the GIL back if it was released, then
 * runs the slot's callback and the queued ones when `drain` is set, else
 * leaves them to the queue. */
typedef struct pjpy_call {
    PyThreadState *save;     /* NULL: the GIL was kept */
    struct nogil_slot *slot; /* this thread's slot (gil.c), found once per call */
} pjpy_call;
pjpy_call pjpy_call_begin(int keep_gil);
void pjpy_call_end(pjpy_call call, int drain);

/* Runs `stmt` (a library call that may wait or take locks) without the GIL
 * when that is allowed, unless `keep_gil` is set (only for a call known
 * never to block: see pjpy_client.sync_views), then runs the callbacks it
 * made when `drain` is true. `stmt` must not touch Python objects. */
// clang-format off
#define PJPY_CALL_DRAIN(keep_gil, stmt, drain)                                                     \
    do {                                                                                           \
        if (pjpy_may_release_gil()) {                                                              \
            pjpy_call pjpy_call_ = pjpy_call_begin(keep_gil);                                      \
            stmt;                                                                                  \
            pjpy_call_end(pjpy_call_, (drain));                                                    \
        } else {                                                                                   \
            stmt;                                                                                  \
        }                                                                                          \
    } while (0)
// clang-format on
#define PJPY_CALL(keep_gil, stmt) PJPY_CALL_DRAIN(keep_gil, stmt, 1)
#define PJPY_NOGIL(stmt) PJPY_CALL(0, stmt)

/* The same for a library call returning a pjdl_code: `rc = (expr)`. The
 * callbacks run here only on success, so that the calling thread's
 * pjdl_last_error() still describes a failure when it is raised. */
#define PJPY_CALL_RC(keep_gil, rc, expr) PJPY_CALL_DRAIN(keep_gil, (rc) = (expr), (rc) == PJDL_OK)
#define PJPY_NOGIL_RC(rc, expr) PJPY_CALL_RC(0, rc, expr)

/* For callbacks that may run on any thread (DLPack deleters): calls
 * run(arg) now when this thread holds the GIL and is not inside its own
 * library call (pjpy_call_begin), else keeps it for the end of that call or
 * queues it to run with the GIL on a Python thread soon. When Python cannot
 * run it any more (interpreter exiting or gone, or no memory), calls
 * drop(arg) instead, which must not touch Python. */
void pjpy_call_with_gil(void (*run)(void *), void (*drop)(void *), void *arg);

/* Marks the interpreter as exiting (called from an atexit hook). */
void pjpy_set_exiting(void);

/* ------------------------------------------------------------- objects */

/* A Plugin object owning `plugin` (released if the object cannot be made). */
PyObject *pjpy_plugin_new(pjdl_plugin *plugin);

/* New Python objects wrapping library objects. pjpy_client_new takes over
 * the reference `client`; pjpy_buffer_new takes over `buffer`, and releases
 * it on failure. `client_obj` is a pjpy_client. */
PyObject *pjpy_client_new(PyObject *plugin_obj, pjdl_client *client);
PyObject *pjpy_buffer_new(PyObject *client_obj, pjdl_buffer *buffer);
/* An empty Buffer object (no client, no buffer) to be filled with
 * pjpy_buffer_set once an import succeeded: allocating it first means that
 * nothing can fail after the library took a producer's tensor. NULL with
 * MemoryError set. */
pjpy_buffer *pjpy_buffer_alloc(void);
/* Drops or corrects what the Buffer cached from the platform registry (the
 * __dlpack_device__ tuple, the exchange API view's device) when a
 * registration changed it since. Call before using either; needs the GIL.
 * 0, or -1 with an exception set. */
int pjpy_buffer_registry_sync(pjpy_buffer *self);
/* Fills an object of pjpy_buffer_alloc; takes over `buffer`. */
void pjpy_buffer_set(pjpy_buffer *self, PyObject *client_obj, pjdl_buffer *buffer);
PyObject *pjpy_device_new(PyObject *client_obj, pjdl_device *device);
PyObject *pjpy_memory_new(PyObject *client_obj, pjdl_device *device, pjdl_memory *memory);

/* The live Client object wrapping `client`, borrowed, or NULL. */
pjpy_client *pjpy_client_lookup(const pjdl_client *client);
/* The live clients, newest last; *count set. Borrowed pointers in a
 * PyMem-allocated array the caller frees; NULL with *count 0 if none (or on
 * allocation failure, with MemoryError set). */
pjpy_client **pjpy_client_all(size_t *count);

/* Resolves a `device=` argument: None (both NULL), a Device or a Memory.
 * When `client_obj` is not NULL the target must belong to it. 0 on success,
 * -1 with TypeError/ValueError set. *owner receives the target's Client
 * object (borrowed; NULL for None). */
int pjpy_resolve_target(PyObject *target, pjpy_client *client_obj, pjdl_device **device,
                        pjdl_memory **memory, pjpy_client **owner);

/* `copy=` of the array API: None, True or False. 0 or -1 with TypeError. */
int pjpy_parse_copy(PyObject *obj, pjdl_copy *out);

/* A (device_type, device_id) tuple. */
PyObject *pjpy_dl_device_tuple(DLDevice dl);

/* -------------------------------------------------------------- dtypes */

/* NumPy's name of a PJRT element type ("float32", "bfloat16", "bool"), or
 * NULL for a type without one. */
const char *pjpy_dtype_name(PJRT_Buffer_Type type);

/* The DLPack dtype of the element type NumPy calls `name` ("float32",
 * "bfloat16": the inverse of pjpy_dtype_name). 0, or -1 with DLPackError
 * set, its message starting with `what`. */
int pjpy_dl_dtype_from_name(const char *name, const char *what, DLDataType *out);

/* The PJRT type of a PEP 3118 format string with the given item size, or
 * PJRT_Buffer_Type_INVALID with a TypeError set naming the format. */
PJRT_Buffer_Type pjpy_type_from_format(const char *format, Py_ssize_t itemsize);
/* For a NumPy array of an ml_dtypes type (bfloat16, float8_*, int4, uint4,
 * int2, uint2, float4_e2m1fn: NumPy kind 'V' under a name pjpy_dtype_name
 * gives), which the buffer protocol cannot describe: a new reference to a
 * view of its memory as unsigned integers of the same item size, and its
 * PJRT type in *type. Sub-byte types are one element per byte there, PJRT's
 * host form. NULL without an exception for any other object. */
PyObject *pjpy_ml_dtypes_view(PyObject *obj, PJRT_Buffer_Type *type);

/* ---------------------------------------------------------- executables */

/* Readies the Executable type and adds it to `module` (executable.c). 0, or
 * -1 with an exception set. */
int pjpy_executable_init(PyObject *module);

/* Client.compile(program, format="mlir") -> Executable (executable.c). */
PyObject *pjpy_client_compile(PyObject *client, PyObject *args, PyObject *kwargs);

/* --------------------------------------------------------------- DLPack */

/* Buffer methods: __dlpack__, __dlpack_device__, release_to_dlpack. */
PyObject *pjpy_buffer_dlpack(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                             PyObject *kwnames);
PyObject *pjpy_buffer_dlpack_device(PyObject *self, PyObject *unused);
PyObject *pjpy_buffer_release_to_dlpack(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                                        PyObject *kwnames);

/* Imports `x` (an object with __dlpack__ or a DLPack capsule) as a Buffer of
 * one of `clients` (or of the client of `target` when it is a Device or
 * Memory). A producer whose type publishes the DLPack C exchange API
 * (__dlpack_c_exchange_api__) is asked through its table, without a
 * capsule. */
PyObject *pjpy_from_dlpack(pjpy_client *const *clients, size_t num_clients, PyObject *x,
                           PyObject *target, PyObject *copy);

/* The arguments of from_dlpack(x, /, *, device=None, copy=None) (Client's
 * and the module's) from a vectorcall: *x, and *target and *copy (Py_None
 * when not given), all borrowed. 0, or -1 with TypeError set. */
int pjpy_from_dlpack_args(PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames, PyObject **x,
                          PyObject **target, PyObject **copy);

/* Imports a versioned tensor the caller owns as a new Buffer of one of
 * `clients` (borrowed; the caller keeps them alive). On success the Buffer
 * owns the tensor (its deleter runs, with the GIL, when the view is gone);
 * on failure NULL with an exception set, and the caller still owns the
 * tensor. Needs the GIL (from_dlpack.c). */
PyObject *pjpy_import_owned(pjpy_client *const *clients, size_t num_clients,
                            DLManagedTensorVersioned *tensor, const pjdl_import_options *opts);

/* An exactly-numpy.ndarray x as the DLPack tensor its __dlpack__ would
 * make, read from the array (numpy_array.c): 1 with *out the caller's (its
 * deleter needs the GIL; it holds a reference to x), 0 when x must be
 * asked through __dlpack__ instead (the array is not one this reads, or
 * NumPy's layout was found to differ), -1 with an exception set. */
int pjpy_numpy_tensor(PyObject *x, DLManagedTensorVersioned **out);
/* The module's private _numpy_reads(): (state, arrays described). */
PyObject *pjpy_numpy_reads_py(PyObject *module, PyObject *unused);

/* The plain shared export of Buffer.__dlpack__ (no stream, no dl_device,
 * copy=None), versioned: 0 with *out owned by the caller, or -1 with an
 * exception set (DLPackError, a BufferError, when DLPack cannot carry it).
 * Needs the GIL (dlpack_protocol.c). */
int pjpy_buffer_export_plain(pjpy_buffer *self, DLManagedTensorVersioned **out);

/* The DLPack C exchange API (exchange_api.c): sets the type attribute
 * __dlpack_c_exchange_api__ of the Buffer type, which must be ready. 0, or
 * -1 with an exception set. */
int pjpy_exchange_api_init(PyTypeObject *buffer_type);

/* Whether `api` is this module's table: its exports are ready when handed
 * out, so an import of them needs no stream. */
int pjpy_exchange_api_is_ours(const DLPackExchangeAPI *api);

/* SYCL streams (sycl.c): whether obj is a dpctl.SyclQueue (1, 0, -1 with an
 * exception set); the queue a SYCL array names (1 with a new reference in
 * *queue, 0 for none, -1 with an exception set); queue.wait() (0 or -1).
 * With dpctl not imported nothing is a queue. The _py forms are the
 * module's private _is_sycl_queue and _sycl_queue_of (pjrt_dlpack.jax). */
int pjpy_is_sycl_queue(PyObject *obj);
int pjpy_sycl_queue_of(PyObject *x, PyObject **queue);
int pjpy_sycl_wait(PyObject *queue);
PyObject *pjpy_is_sycl_queue_py(PyObject *module, PyObject *obj);
PyObject *pjpy_sycl_queue_of_py(PyObject *module, PyObject *x);

#endif /* PJDL_PY_H_ */
