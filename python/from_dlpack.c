/*
 * from_dlpack.c — the consumer side: Client.from_dlpack and the module-level
 * from_dlpack. Takes a capsule from the producer (or a capsule given
 * directly), hands the tensor to pjdl_import, and marks the capsule used.
 *
 * The tensor given to the library is a guard around the producer's: its
 * deleter calls the producer's deleter with the GIL held (see gil.c),
 * because the library may drop the last reference on any thread (a plugin
 * worker, say) while producer deleters written for Python (NumPy's,
 * PyTorch's) touch Python objects.
 */

#include "pjdl_py.h"

#include <stdlib.h>
#include <string.h>

static const char versioned_name[] = "dltensor_versioned";
static const char legacy_name[] = "dltensor";
static const char used_versioned_name[] = "used_dltensor_versioned";
static const char used_legacy_name[] = "used_dltensor";

typedef struct import_guard {
    DLManagedTensorVersioned tensor; /* what the library sees */
    int versioned;
    DLManagedTensorVersioned *versioned_orig;
    DLManagedTensor *legacy_orig;
} import_guard;

static void call_producer_deleter(import_guard *g) {
    if (g->versioned) {
        if (g->versioned_orig->deleter != NULL)
            g->versioned_orig->deleter(g->versioned_orig);
    } else if (g->legacy_orig->deleter != NULL) {
        g->legacy_orig->deleter(g->legacy_orig);
    }
}

static void guard_run(void *arg) {
    import_guard *g = arg;
    call_producer_deleter(g);
    free(g);
}

/* Python is gone or going: the producer's deleter may need it, so the
 * producer's tensor is leaked. */
static void guard_drop(void *arg) {
    free(arg);
}

static void guard_deleter(DLManagedTensorVersioned *self) {
    pjpy_call_with_gil(guard_run, guard_drop, self->manager_ctx);
}

static import_guard *guard_new(void *tensor, int versioned) {
    import_guard *g = calloc(1, sizeof *g);
    if (g == NULL) {
        PyErr_NoMemory();
        return NULL;
    }
    g->versioned = versioned;
    if (versioned) {
        g->versioned_orig = tensor;
        g->tensor = *g->versioned_orig;
    } else {
        g->legacy_orig = tensor;
        g->tensor.version.major = 1;
        g->tensor.version.minor = 0;
        g->tensor.flags = 0;
        g->tensor.dl_tensor = g->legacy_orig->dl_tensor;
    }
    g->tensor.manager_ctx = g;
    g->tensor.deleter = guard_deleter;
    return g;
}

/* Calls x.__dlpack__, first as an array API 2023.12 consumer (max_version,
 * copy=False when no copy is allowed, and dl_device when the data should
 * come to the host from a device only the producer can read), then, for
 * producers that do not know those keywords (NumPy 1.24, PyTorch 1.13),
 * without them. */
static PyObject *request_capsule(PyObject *x, pjdl_copy copy, int has_stream, long long stream,
                                 const DLDevice *dl_device) {
    PyObject *method = PyObject_GetAttrString(x, "__dlpack__");
    if (method == NULL) {
        if (PyErr_ExceptionMatches(PyExc_AttributeError)) {
            PyErr_Clear();
            PyErr_Format(PyExc_TypeError,
                         "from_dlpack: %.100s object has no __dlpack__ method and is not a "
                         "DLPack capsule",
                         Py_TYPE(x)->tp_name);
        }
        return NULL;
    }
    PyObject *kwargs = PyDict_New();
    PyObject *capsule = NULL;
    if (kwargs == NULL)
        goto done;
    if (has_stream) {
        PyObject *s = PyLong_FromLongLong(stream);
        if (s == NULL || PyDict_SetItemString(kwargs, "stream", s) < 0) {
            Py_XDECREF(s);
            goto done;
        }
        Py_DECREF(s);
    }
    PyObject *modern = PyDict_Copy(kwargs);
    if (modern == NULL)
        goto done;
    PyObject *version = Py_BuildValue("(ii)", DLPACK_MAJOR_VERSION, DLPACK_MINOR_VERSION);
    PyObject *dev = dl_device == NULL ? NULL
                                      : Py_BuildValue("(ii)", (int)dl_device->device_type,
                                                      (int)dl_device->device_id);
    int bad = version == NULL || (dl_device != NULL && dev == NULL) ||
              PyDict_SetItemString(modern, "max_version", version) < 0 ||
              (dev != NULL && PyDict_SetItemString(modern, "dl_device", dev) < 0) ||
              (copy == PJDL_COPY_NEVER && PyDict_SetItemString(modern, "copy", Py_False) < 0);
    Py_XDECREF(version);
    Py_XDECREF(dev);
    if (bad) {
        Py_DECREF(modern);
        goto done;
    }
    PyObject *empty = PyTuple_New(0);
    if (empty == NULL) {
        Py_DECREF(modern);
        goto done;
    }
    capsule = PyObject_Call(method, empty, modern);
    Py_DECREF(modern);
    if (capsule == NULL && PyErr_ExceptionMatches(PyExc_TypeError)) {
        PyErr_Clear();
        capsule = PyObject_Call(method, empty, kwargs);
    }
    Py_DECREF(empty);
done:
    Py_XDECREF(kwargs);
    Py_DECREF(method);
    return capsule;
}

/* The producer's x.__dlpack_device__(). Returns 1 with *dl set, 0 when x has
 * no such method, -1 on error. */
static int producer_device(PyObject *x, DLDevice *dl) {
    if (!PyObject_HasAttrString(x, "__dlpack_device__"))
        return 0;
    PyObject *dev = PyObject_CallMethod(x, "__dlpack_device__", NULL);
    if (dev == NULL)
        return -1;
    long type = 0, id = 0;
    int ok = PyTuple_Check(dev) && PyTuple_GET_SIZE(dev) == 2;
    if (ok) {
        type = PyLong_AsLong(PyTuple_GET_ITEM(dev, 0));
        id = PyLong_AsLong(PyTuple_GET_ITEM(dev, 1));
        ok = !PyErr_Occurred();
    }
    Py_DECREF(dev);
    if (!ok) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_TypeError, "__dlpack_device__() must return a tuple of two ints");
        return -1;
    }
    dl->device_type = (DLDeviceType)type;
    dl->device_id = (int32_t)id;
    return 1;
}

/* For a producer on a device with streams that one of `clients` drives: the
 * stream the producer should order its work before (the device's stream).
 * Returns 1 with *stream set, 0 for "no stream". */
static int consumer_stream(DLDevice dl, pjpy_client *const *clients, size_t n, long long *stream) {
    if (pjdl_dl_device_type_host_reachable(dl.device_type))
        return 0;
    for (size_t i = 0; i < n; i++) {
        pjdl_device *device = NULL;
        if (pjdl_client_find_dl(clients[i]->client, dl, &device, NULL) != PJDL_OK)
            continue;
        intptr_t s = 0;
        if (pjdl_device_stream(device, &s) == PJDL_OK) {
            *stream = (long long)s;
            return 1;
        }
        return 0;
    }
    return 0;
}

PyObject *pjpy_from_dlpack(pjpy_client *const *clients, size_t num_clients, PyObject *x,
                           PyObject *target, PyObject *copy_obj) {
    pjdl_import_options opts = PJDL_IMPORT_OPTIONS_INIT;
    pjpy_client *owner = NULL;
    if (pjpy_parse_copy(copy_obj, &opts.copy) < 0)
        return NULL;
    if (pjpy_resolve_target(target, NULL, &opts.device, &opts.memory, &owner) < 0)
        return NULL;
    if (owner != NULL) {
        clients = &owner;
        num_clients = 1;
    }
    if (num_clients == 0) {
        PyErr_SetString(PyExc_ValueError,
                        "from_dlpack: no pjrt_dlpack client exists; create one with "
                        "pjrt_dlpack.load_plugin().client() or pass device=");
        return NULL;
    }

    /* Where the data should land, when device= names it. */
    DLDevice target_dl = {kDLCPU, 0};
    int has_target = 0;
    if (opts.device != NULL) {
        if (pjdl_device_dl(opts.device, opts.memory, &target_dl) != PJDL_OK)
            return pjpy_raise_exchange(PJDL_UNIMPLEMENTED);
        has_target = 1;
    }

    PyObject *capsule;
    if (PyCapsule_CheckExact(x)) {
        capsule = Py_NewRef(x);
    } else {
        DLDevice src_dl;
        int has_src = producer_device(x, &src_dl);
        if (has_src < 0)
            return NULL;
        int moves = has_src && has_target && !pjdl_dl_device_same(src_dl, target_dl);
        if (moves && opts.copy == PJDL_COPY_NEVER) {
            PyErr_Format(pjpy_dlpack_copy_error,
                         "from_dlpack: the data is on DLPack device (%d, %d) and device= is (%d, "
                         "%d): that needs a copy, but copy=False",
                         (int)src_dl.device_type, (int)src_dl.device_id, (int)target_dl.device_type,
                         (int)target_dl.device_id);
            return NULL;
        }
        /* Memory the host cannot read (another framework's device) reaches a
         * host target only through the producer: ask it for a host copy. */
        const DLDevice *ask_dl = NULL;
        if (moves && pjdl_dl_device_type_host_reachable(target_dl.device_type) &&
            !pjdl_dl_device_type_host_reachable(src_dl.device_type)) {
            static const DLDevice host = {kDLCPU, 0};
            ask_dl = &host;
        }
        long long stream = 0;
        int has_stream =
            has_src && ask_dl == NULL ? consumer_stream(src_dl, clients, num_clients, &stream) : 0;
        opts.has_stream = has_stream == 1;
        opts.stream = (intptr_t)stream;
        capsule = request_capsule(x, opts.copy, has_stream, stream, ask_dl);
        if (capsule == NULL)
            return NULL;
        if (!PyCapsule_CheckExact(capsule)) {
            PyErr_Format(PyExc_TypeError, "__dlpack__() returned %.100s, not a capsule",
                         Py_TYPE(capsule)->tp_name);
            Py_DECREF(capsule);
            return NULL;
        }
    }

    /* Claim the capsule before the GIL is released, so that no other thread
     * can consume it meanwhile; put the name back on failure. */
    const char *name = PyCapsule_GetName(capsule);
    const char *used_name;
    int versioned;
    if (name != NULL && strcmp(name, versioned_name) == 0) {
        versioned = 1;
        used_name = used_versioned_name;
        name = versioned_name;
    } else if (name != NULL && strcmp(name, legacy_name) == 0) {
        versioned = 0;
        used_name = used_legacy_name;
        name = legacy_name;
    } else {
        if (name != NULL && strncmp(name, "used_", 5) == 0)
            PyErr_Format(pjpy_dlpack_error,
                         "from_dlpack: the DLPack capsule was already consumed (name '%s')", name);
        else
            PyErr_Format(PyExc_ValueError,
                         "from_dlpack: not a DLPack capsule (name '%s'; expected "
                         "'dltensor_versioned' or 'dltensor')",
                         name ? name : "NULL");
        Py_DECREF(capsule);
        return NULL;
    }
    void *tensor = PyCapsule_GetPointer(capsule, name);
    if (tensor == NULL) {
        Py_DECREF(capsule);
        return NULL;
    }
    if (versioned && ((DLManagedTensorVersioned *)tensor)->version.major != DLPACK_MAJOR_VERSION) {
        PyErr_Format(pjpy_dlpack_error,
                     "from_dlpack: unsupported DLPack version %u.%u (this module reads %d.x)",
                     ((DLManagedTensorVersioned *)tensor)->version.major,
                     ((DLManagedTensorVersioned *)tensor)->version.minor, DLPACK_MAJOR_VERSION);
        Py_DECREF(capsule);
        return NULL;
    }
    const DLTensor *dlt = versioned ? &((DLManagedTensorVersioned *)tensor)->dl_tensor
                                    : &((DLManagedTensor *)tensor)->dl_tensor;
    if (has_target && opts.copy == PJDL_COPY_NEVER &&
        !pjdl_dl_device_same(dlt->device, target_dl)) {
        PyErr_Format(pjpy_dlpack_copy_error,
                     "from_dlpack: the tensor is on DLPack device (%d, %d) and device= is (%d, "
                     "%d): that needs a copy, but copy=False",
                     (int)dlt->device.device_type, (int)dlt->device.device_id,
                     (int)target_dl.device_type, (int)target_dl.device_id);
        Py_DECREF(capsule);
        return NULL;
    }
    if (versioned && opts.copy == PJDL_COPY_NEVER &&
        (((DLManagedTensorVersioned *)tensor)->flags & DLPACK_FLAG_BITMASK_IS_COPIED)) {
        PyErr_SetString(pjpy_dlpack_error,
                        "from_dlpack: copy=False, but the producer exported a copy");
        Py_DECREF(capsule);
        return NULL;
    }
    import_guard *guard = guard_new(tensor, versioned);
    if (guard == NULL) {
        Py_DECREF(capsule);
        return NULL;
    }
    if (PyCapsule_SetName(capsule, used_name) < 0) {
        free(guard);
        Py_DECREF(capsule);
        return NULL;
    }

    pjdl_client **lib_clients = PyMem_Calloc(num_clients, sizeof(*lib_clients));
    if (lib_clients == NULL) {
        PyCapsule_SetName(capsule, name);
        free(guard);
        Py_DECREF(capsule);
        return PyErr_NoMemory();
    }
    for (size_t i = 0; i < num_clients; i++)
        lib_clients[i] = clients[i]->client;
    pjdl_buffer *buffer = NULL;
    pjdl_code rc;
    PJPY_NOGIL_RC(rc, pjdl_import(lib_clients, num_clients, &guard->tensor, &opts, &buffer));
    PyMem_Free(lib_clients);
    if (rc != PJDL_OK) {
        /* The caller keeps the tensor: the capsule is unconsumed again. */
        pjpy_raise_exchange(rc);
        PyCapsule_SetName(capsule, name);
        free(guard);
        Py_DECREF(capsule);
        return NULL;
    }
    Py_DECREF(capsule);
    pjpy_client *client_obj = pjpy_client_lookup(pjdl_buffer_client(buffer));
    if (client_obj == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "from_dlpack: the buffer's client is not alive");
        PJPY_NOGIL(pjdl_buffer_release(buffer));
        return NULL;
    }
    return pjpy_buffer_new((PyObject *)client_obj, buffer);
}
