/*
 * exchange_api.c — the DLPack C exchange API (DLPack 1.2+) as a producer:
 * the table that the Buffer type publishes as its type attribute
 * __dlpack_c_exchange_api__ (a capsule named "dlpack_exchange_api"), so that
 * another library's C code can take a Buffer's tensor, view it, or wrap its
 * own tensor in a Buffer without a capsule or a Python call. The consumer
 * side is in from_dlpack.c.
 *
 * Every function but the allocator is called with the GIL held (they report
 * failure as a Python exception, which needs it), as the capsule protocol's
 * methods are; library calls that may wait release it as everywhere in this
 * module. "No sync" here means what the export without a stream already
 * does: the tensor handed out is ready to read when the call returns, so a
 * consumer may use it on any stream, the one current_work_stream reports
 * included.
 */
#include "pjdl_py.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static const char api_capsule_name[] = "dlpack_exchange_api";

/* The Buffer behind py_object, or NULL with an exception set: the header
 * asks for objects of the type the table was found on and for a place out
 * to write the result to; anything else is a consumer's bug, reported rather
 * than trusted. */
static pjpy_buffer *as_buffer(void *py_object, const void *out, const char *fname) {
    PyObject *obj = py_object;
    if (obj == NULL) {
        PyErr_Format(PyExc_ValueError, "%s: py_object is NULL", fname);
        return NULL;
    }
    if (!PyObject_TypeCheck(obj, &pjpy_buffer_type)) {
        PyErr_Format(PyExc_TypeError,
                     "%s: the exchange API of pjrt_dlpack.Buffer got a %.100s object", fname,
                     Py_TYPE(obj)->tp_name);
        return NULL;
    }
    if (out == NULL) {
        PyErr_Format(PyExc_ValueError, "%s: out is NULL", fname);
        return NULL;
    }
    return (pjpy_buffer *)obj;
}

/* managed_tensor_from_py_object_no_sync: Buffer.__dlpack__() without
 * arguments, versioned, minus the capsule. */
static int managed_tensor_from_py_object(void *py_object, DLManagedTensorVersioned **out) {
    static const char fname[] = "managed_tensor_from_py_object_no_sync";
    pjpy_buffer *self = as_buffer(py_object, out, fname);
    if (self == NULL)
        return -1;
    return pjpy_buffer_export_plain(self, out);
}

/* Makes self->view: one export (which waits until the buffer is ready and
 * proves the memory can be shared as it is), whose DLTensor, shape and
 * strides are copied, then deleted at once. Later views are that copy: the
 * buffer's memory, layout and readiness do not change while it is not
 * deleted, and the Buffer object the consumer holds keeps the PJRT buffer
 * alive. 0, or -1 with an exception set. */
static int make_view(pjpy_buffer *self) {
    DLManagedTensorVersioned *t = NULL;
    if (pjpy_buffer_export_plain(self, &t) < 0)
        return -1;
    const DLTensor *src = &t->dl_tensor;
    int shared = !(t->flags & DLPACK_FLAG_BITMASK_IS_COPIED);
    if (shared) {
        void *data = NULL;
        shared = pjdl_buffer_data_pointer(self->buffer, &data) == PJDL_OK && data == src->data;
    }
    /* A bare DLTensor has no flags: memory that a flag describes (sub-byte
     * elements one per byte, read-only data) would read as packed and
     * writable, wrong without a word. */
    uint64_t flags = t->flags & ~(uint64_t)DLPACK_FLAG_BITMASK_IS_COPIED;
    if (!shared || flags != 0) {
        PJPY_NOGIL(t->deleter(t));
        PyErr_SetString(pjpy_dlpack_error,
                        !shared ? "dltensor_from_py_object_no_sync: the buffer's layout cannot be "
                                  "described without a copy, and a borrowed DLTensor cannot own "
                                  "one; use managed_tensor_from_py_object_no_sync"
                        : (flags & DLPACK_FLAG_BITMASK_IS_SUBBYTE_TYPE_PADDED)
                            ? "dltensor_from_py_object_no_sync: the buffer's sub-byte elements "
                              "are one per byte, which a DLTensor, having no flags, cannot say "
                              "(it would read as packed); use "
                              "managed_tensor_from_py_object_no_sync"
                            : "dltensor_from_py_object_no_sync: the buffer's memory is flagged "
                              "(read-only), which a DLTensor, having no flags, cannot say; use "
                              "managed_tensor_from_py_object_no_sync");
        return -1;
    }
    size_t n = src->ndim > 0 ? (size_t)src->ndim : 0;
    DLTensor *view = PyMem_Malloc(sizeof *view + 2 * n * sizeof(int64_t) + 1);
    if (view == NULL) {
        PJPY_NOGIL(t->deleter(t));
        PyErr_NoMemory();
        return -1;
    }
    int64_t *shape = (int64_t *)(view + 1);
    int64_t *strides = shape + n;
    *view = *src;
    if (n > 0) {
        memcpy(shape, src->shape, n * sizeof *shape);
        if (src->strides != NULL) {
            memcpy(strides, src->strides, n * sizeof *strides);
        } else { /* compact row-major, written out as DLPack 1.2 asks */
            int64_t s = 1;
            for (size_t i = n; i-- > 0;) {
                strides[i] = s;
                s *= shape[i];
            }
        }
    }
    view->shape = n > 0 ? shape : NULL;
    view->strides = n > 0 ? strides : NULL;
    PJPY_NOGIL(t->deleter(t));
    self->view = view;
    return 0;
}

/* dltensor_from_py_object_no_sync: a DLTensor borrowing the buffer's data,
 * shape and strides, valid while the consumer holds the Buffer and until
 * control returns to Python. */
static int dltensor_from_py_object(void *py_object, DLTensor *out) {
    static const char fname[] = "dltensor_from_py_object_no_sync";
    pjpy_buffer *self = as_buffer(py_object, out, fname);
    if (self == NULL || pjpy_buffer_registry_sync(self) < 0)
        return -1;
    if (self->view == NULL) {
        if (make_view(self) < 0)
            return -1;
    } else {
        /* The cached view is of memory a delete() or release_to_dlpack()
         * may have given up since; the export in make_view checked the
         * first time. The check takes the buffer's lock: no wait. */
        if (pjdl_buffer_is_deleted(self->buffer)) {
            PyErr_Format(pjpy_dlpack_error, "%s: the buffer was deleted or transferred", fname);
            return -1;
        }
    }
    *out = *self->view;
    return 0;
}

/* managed_tensor_to_py_object_no_sync: a new Buffer viewing (or, where the
 * plugin cannot view it, copying) the tensor, in the live client whose
 * device matches, as the module-level from_dlpack(capsule) does. Ownership
 * moves to the Buffer on success only: on failure the caller keeps the
 * tensor, as PyTorch's table does and as pjdl_import does, so that a failed
 * call cannot free a tensor its caller still holds. */
static int managed_tensor_to_py_object(DLManagedTensorVersioned *tensor, void **out_py_object) {
    static const char fname[] = "managed_tensor_to_py_object_no_sync";
    if (tensor == NULL || out_py_object == NULL) {
        PyErr_Format(PyExc_ValueError, "%s: tensor and out_py_object must not be NULL", fname);
        return -1;
    }
    if (tensor->version.major != DLPACK_MAJOR_VERSION) {
        PyErr_Format(pjpy_dlpack_error,
                     "%s: unsupported DLPack version %u.%u (this module reads %d.x)", fname,
                     tensor->version.major, tensor->version.minor, DLPACK_MAJOR_VERSION);
        return -1;
    }
    size_t n = 0;
    pjpy_client **clients = pjpy_client_all(&n);
    if (clients == NULL) {
        if (!PyErr_Occurred())
            PyErr_Format(PyExc_ValueError,
                         "%s: no pjrt_dlpack client exists; create one with "
                         "pjrt_dlpack.load_plugin().client()",
                         fname);
        return -1;
    }
    /* Keep the clients alive while the import runs without the GIL. */
    for (size_t i = 0; i < n; i++)
        Py_INCREF(clients[i]);
    pjdl_import_options opts = PJDL_IMPORT_OPTIONS_INIT;
    PyObject *buffer = pjpy_import_owned(clients, n, tensor, &opts);
    for (size_t i = 0; i < n; i++)
        Py_DECREF(clients[i]);
    PyMem_Free(clients);
    if (buffer == NULL)
        return -1;
    *out_py_object = buffer;
    return 0;
}

/* current_work_stream: the stream on which the plugin places the device's
 * external ready events (the stream extension), the counterpart of a
 * framework's current stream. The call names a DLDevice, not a client, and
 * a stream belongs to one client: it is given only when every live client
 * that has the DLDevice has that same stream. NULL for host memory, for a
 * device no live client drives, for one that several clients with
 * different streams drive, and for plugins without streams. Exports made
 * through this table are ready when handed out, so NULL never loses an
 * ordering. */
static int current_work_stream(DLDeviceType device_type, int32_t device_id,
                               void **out_current_stream) {
    if (out_current_stream == NULL) {
        PyErr_SetString(PyExc_ValueError, "current_work_stream: out_current_stream is NULL");
        return -1;
    }
    *out_current_stream = NULL;
    if (pjdl_dl_device_type_host_reachable(device_type))
        return 0;
    size_t n = 0;
    pjpy_client **clients = pjpy_client_all(&n);
    if (clients == NULL)
        return PyErr_Occurred() ? -1 : 0;
    DLDevice dl = {device_type, device_id};
    intptr_t found = 0;
    for (size_t i = 0; i < n; i++) {
        pjdl_device *device = NULL;
        if (pjdl_client_find_dl(clients[i]->client, dl, &device, NULL) != PJDL_OK)
            continue;
        intptr_t stream = 0;
        if (pjdl_device_stream(device, &stream) != PJDL_OK || stream == 0 ||
            (found != 0 && stream != found)) {
            found = 0;
            break;
        }
        found = stream;
    }
    PyMem_Free(clients);
    *out_current_stream = (void *)found;
    return 0;
}

/* ------------------------------------------ managed_tensor_allocator */

/* How the allocator reports a failure: the exception kind and message that
 * it hands to the consumer's SetError. */
typedef struct {
    const char *kind;
    char msg[512];
} alloc_error;

static int alloc_fail(alloc_error *e, const char *kind, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Records a failure in *e; returns -1. */
static int alloc_fail(alloc_error *e, const char *kind, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    e->kind = kind;
    vsnprintf(e->msg, sizeof e->msg, fmt, ap);
    va_end(ap);
    return -1;
}

/* Checks the allocator's arguments and sets *type and *count (elements) of
 * the prototype. 0, or -1 with *e set. */
static int prototype_size(const DLTensor *prototype, DLManagedTensorVersioned **out,
                          PJRT_Buffer_Type *type, size_t *count, alloc_error *e) {
    if (prototype == NULL || out == NULL)
        return alloc_fail(e, "ValueError", "prototype and out must not be NULL");
    if (prototype->ndim < 0 || prototype->ndim > 64 ||
        (prototype->ndim > 0 && prototype->shape == NULL))
        return alloc_fail(e, "ValueError", "prototype has %d dimensions and %s shape",
                          (int)prototype->ndim, prototype->shape ? "a" : "no");
    if (pjdl_dtype_to_pjrt(prototype->dtype, type) != PJDL_OK)
        return alloc_fail(e, "BufferError", "%s", pjdl_last_error());
    /* The host form pjdl_buffer_from_host takes: a sub-byte type's elements
     * one byte each (pjdl_pjrt_type_size says 0 for them). */
    size_t elem = pjdl_pjrt_type_size(*type);
    elem = elem == 0 ? 1 : elem;
    *count = 1;
    for (int32_t i = 0; i < prototype->ndim; i++) {
        int64_t d = prototype->shape[i];
        if (d < 0 || (d > 0 && *count > SIZE_MAX / (size_t)d))
            return alloc_fail(e, "ValueError", "prototype shape[%d] = %lld is invalid or too large",
                              (int)i, (long long)d);
        *count *= (size_t)d;
    }
    if (elem == 0 || *count > SIZE_MAX / elem)
        return alloc_fail(e, "ValueError", "prototype is too large");
    return 0;
}

/* The live client that has DLPack device dl, and its memory there. 0, or
 * -1 with *e set. */
static int allocator_client(DLDevice dl, pjpy_client **client, pjdl_memory **memory,
                            alloc_error *e) {
    size_t n = 0;
    pjpy_client **clients = pjpy_client_all(&n);
    if (clients == NULL && PyErr_Occurred()) {
        PyErr_Clear();
        return alloc_fail(e, "MemoryError", "out of memory");
    }
    *client = NULL;
    pjdl_device *device = NULL;
    for (size_t i = 0; i < n && *client == NULL; i++)
        if (pjdl_client_find_dl(clients[i]->client, dl, &device, memory) == PJDL_OK)
            *client = clients[i];
    PyMem_Free(clients);
    if (*client == NULL)
        return alloc_fail(e, "ValueError", "no live pjrt_dlpack client has DLPack device (%d, %d)",
                          (int)dl.device_type, (int)dl.device_id);
    return 0;
}

/* A zero-filled buffer of `count` elements shaped like the prototype in
 * `memory` of the client, exported to *out. 0, or -1 with *e set. */
static int export_zeros(pjdl_client *lib_client, const DLTensor *prototype, PJRT_Buffer_Type type,
                        size_t count, pjdl_memory *memory, DLManagedTensorVersioned **out,
                        alloc_error *e) {
    size_t elem = pjdl_pjrt_type_size(type) > 0 ? pjdl_pjrt_type_size(type) : 1;
    void *zeros = calloc(count > 0 ? count : 1, elem);
    if (zeros == NULL)
        return alloc_fail(e, "MemoryError", "out of memory for %zu bytes", count * elem);
    /* The library objects hold their own references. */
    pjdl_client_retain(lib_client);
    pjdl_buffer *buffer = NULL;
    pjdl_code rc;
    PJPY_NOGIL_RC(rc, pjdl_buffer_from_host(lib_client, zeros, type, prototype->shape,
                                            (size_t)prototype->ndim, NULL, memory, &buffer));
    free(zeros);
    if (rc == PJDL_OK) {
        /* The export pins the buffer; the handle is not needed after it. */
        PJPY_NOGIL_RC(rc, pjdl_buffer_export(buffer, NULL, out));
        PJPY_NOGIL(pjdl_buffer_release(buffer));
    }
    if (rc != PJDL_OK)
        alloc_fail(e, "RuntimeError", "%s: %s", pjdl_code_name(rc), pjdl_last_error());
    PJPY_NOGIL(pjdl_client_release(lib_client));
    return rc == PJDL_OK ? 0 : -1;
}

/* managed_tensor_allocator: a new zero-filled buffer shaped like the
 * prototype on the live client's device of its DLDevice, exported. It may be
 * called without the GIL (it reports errors through SetError, not Python),
 * so it takes the GIL to read the client registry, except once the
 * interpreter is exiting. */
static int allocator_locked(DLTensor *prototype, DLManagedTensorVersioned **out, alloc_error *e) {
    PJRT_Buffer_Type type = PJRT_Buffer_Type_INVALID;
    size_t count = 0;
    if (prototype_size(prototype, out, &type, &count, e) < 0)
        return -1;
    pjpy_client *client = NULL;
    pjdl_memory *memory = NULL;
    if (allocator_client(prototype->device, &client, &memory, e) < 0)
        return -1;
    /* The client object stays alive: it is registered and we hold the GIL
     * again before anything could drop it. */
    return export_zeros(client->client, prototype, type, count, memory, out, e);
}

static int
managed_tensor_allocator(DLTensor *prototype, DLManagedTensorVersioned **out, void *error_ctx,
                         void (*SetError)(void *error_ctx, const char *kind, const char *message)) {
    alloc_error e;
    int rc;
    pjpy_attach here = Py_IsInitialized() ? pjpy_thread_attached() : PJPY_DETACHED;
    if (!Py_IsInitialized() || !pjpy_may_release_gil()) {
        rc = alloc_fail(&e, "RuntimeError", "the interpreter is exiting");
    } else if (here == PJPY_ATTACHED_HOME) {
        rc = allocator_locked(prototype, out, &e);
    } else if (here == PJPY_ATTACHED_OTHER) {
        /* Taking the module's GIL here would wait for this very thread. */
        rc = alloc_fail(&e, "RuntimeError",
                        "called from a thread attached to another Python interpreter");
    } else {
        PyGILState_STATE state = PyGILState_Ensure();
        rc = allocator_locked(prototype, out, &e);
        PyGILState_Release(state);
    }
    if (rc != 0 && SetError != NULL)
        SetError(error_ctx, e.kind, e.msg);
    return rc;
}

/* The table: process-lifetime, as the header requires. */
static DLPackExchangeAPI exchange_api = {
    .header = {.version = {DLPACK_MAJOR_VERSION, DLPACK_MINOR_VERSION}, .prev_api = NULL},
    .managed_tensor_allocator = managed_tensor_allocator,
    .managed_tensor_from_py_object_no_sync = managed_tensor_from_py_object,
    .managed_tensor_to_py_object_no_sync = managed_tensor_to_py_object,
    .dltensor_from_py_object_no_sync = dltensor_from_py_object,
    .current_work_stream = current_work_stream,
};

int pjpy_exchange_api_is_ours(const DLPackExchangeAPI *api) {
    return api == &exchange_api;
}

int pjpy_exchange_api_init(PyTypeObject *buffer_type) {
    PyObject *capsule = PyCapsule_New(&exchange_api, api_capsule_name, NULL);
    if (capsule == NULL)
        return -1;
    /* On the type, where consumers look (type(x).__dlpack_c_exchange_api__);
     * a static type's dict may be written once it is ready, and
     * PyType_Modified drops any attribute lookup cached before. */
    int rc = PyDict_SetItemString(buffer_type->tp_dict, "__dlpack_c_exchange_api__", capsule);
    Py_DECREF(capsule);
    if (rc == 0)
        PyType_Modified(buffer_type);
    return rc;
}
