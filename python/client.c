/*
 * client.c — the Client type: platform, devices, host-buffer upload through
 * the buffer protocol, and DLPack import. Also the registry of live clients
 * used by the module-level from_dlpack.
 */
#include "pjdl_py.h"

static pjpy_client *live_head, *live_tail; /* guarded by the GIL */

PyObject *pjpy_client_new(PyObject *plugin_obj, pjdl_client *client) {
    pjpy_client *self = PyObject_New(pjpy_client, &pjpy_client_type);
    if (self == NULL) {
        PJPY_NOGIL(pjdl_client_release(client));
        return NULL;
    }
    self->client = client;
    self->plugin = Py_NewRef(plugin_obj);
    self->weakreflist = NULL;
    self->next = NULL;
    self->prev = live_tail;
    if (live_tail)
        live_tail->next = self;
    else
        live_head = self;
    live_tail = self;
    return (PyObject *)self;
}

static void client_dealloc(PyObject *obj) {
    pjpy_client *self = (pjpy_client *)obj;
    if (self->weakreflist != NULL)
        PyObject_ClearWeakRefs(obj);
    if (self->prev)
        self->prev->next = self->next;
    else
        live_head = self->next;
    if (self->next)
        self->next->prev = self->prev;
    else
        live_tail = self->prev;
    if (self->client != NULL)
        PJPY_NOGIL(pjdl_client_release(self->client));
    Py_XDECREF(self->plugin);
    Py_TYPE(obj)->tp_free(obj);
}

pjpy_client *pjpy_client_lookup(const pjdl_client *client) {
    for (pjpy_client *c = live_head; c != NULL; c = c->next)
        if (c->client == client)
            return c;
    return NULL;
}

pjpy_client **pjpy_client_all(size_t *count) {
    size_t n = 0;
    for (pjpy_client *c = live_head; c != NULL; c = c->next)
        n++;
    *count = 0;
    if (n == 0)
        return NULL;
    pjpy_client **all = PyMem_Calloc(n, sizeof(*all));
    if (all == NULL) {
        PyErr_NoMemory();
        return NULL;
    }
    for (pjpy_client *c = live_head; c != NULL; c = c->next)
        all[(*count)++] = c;
    return all;
}

int pjpy_resolve_target(PyObject *target, pjpy_client *client_obj, pjdl_device **device,
                        pjdl_memory **memory, pjpy_client **owner) {
    *device = NULL;
    *memory = NULL;
    *owner = NULL;
    if (target == NULL || target == Py_None)
        return 0;
    PyObject *target_client;
    if (PyObject_TypeCheck(target, &pjpy_device_type)) {
        *device = ((pjpy_device *)target)->device;
        target_client = ((pjpy_device *)target)->client;
    } else if (PyObject_TypeCheck(target, &pjpy_memory_type)) {
        *device = ((pjpy_memory *)target)->device;
        *memory = ((pjpy_memory *)target)->memory;
        target_client = ((pjpy_memory *)target)->client;
    } else {
        PyErr_Format(PyExc_TypeError,
                     "device must be None, a pjrt_dlpack.Device or a pjrt_dlpack.Memory, not "
                     "%.100s",
                     Py_TYPE(target)->tp_name);
        return -1;
    }
    if (client_obj != NULL && ((pjpy_client *)target_client)->client != client_obj->client) {
        PyErr_SetString(PyExc_ValueError, "device belongs to a different client");
        return -1;
    }
    *owner = (pjpy_client *)target_client;
    return 0;
}

int pjpy_parse_copy(PyObject *obj, pjdl_copy *out) {
    if (obj == NULL || obj == Py_None)
        *out = PJDL_COPY_IF_NEEDED;
    else if (obj == Py_True)
        *out = PJDL_COPY_ALWAYS;
    else if (obj == Py_False)
        *out = PJDL_COPY_NEVER;
    else {
        PyErr_Format(PyExc_TypeError, "copy must be None, True or False, not %.100s",
                     Py_TYPE(obj)->tp_name);
        return -1;
    }
    return 0;
}

PyObject *pjpy_dl_device_tuple(DLDevice dl) {
    return Py_BuildValue("(ii)", (int)dl.device_type, (int)dl.device_id);
}

/* ------------------------------------------------------------ methods */

static int fill_dims(const Py_buffer *view, int64_t *dims, int64_t *strides) {
    for (int i = 0; i < view->ndim; i++) {
        dims[i] = view->shape[i];
        strides[i] = view->strides ? view->strides[i] : 0;
    }
    if (view->strides == NULL && view->ndim > 0) {
        /* Only possible for exporters that ignore PyBUF_STRIDES: compact. */
        int64_t s = view->itemsize;
        for (int i = view->ndim - 1; i >= 0; i--) {
            strides[i] = s;
            s *= dims[i];
        }
    }
    return 0;
}

static PyObject *client_buffer(PyObject *obj, PyObject *args, PyObject *kwargs) {
    pjpy_client *self = (pjpy_client *)obj;
    static char *kwlist[] = {"obj", "device", NULL};
    PyObject *source, *target = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|O:buffer", kwlist, &source, &target))
        return NULL;
    pjdl_device *device;
    pjdl_memory *memory;
    pjpy_client *owner;
    if (pjpy_resolve_target(target, self, &device, &memory, &owner) < 0)
        return NULL;
    if (device != NULL && memory == NULL) {
        memory = pjdl_device_default_memory(device);
        if (memory == NULL && pjdl_device_memory_count(device) > 0)
            memory = pjdl_device_memory(device, 0);
        if (memory == NULL) {
            PyErr_SetString(PyExc_ValueError, "the device has no memory to place a buffer in");
            return NULL;
        }
    }
    Py_buffer view;
    if (PyObject_GetBuffer(source, &view, PyBUF_RECORDS_RO) < 0)
        return NULL;
    PyObject *result = NULL;
    PJRT_Buffer_Type type = pjpy_type_from_format(view.format, view.itemsize);
    if (type == PJRT_Buffer_Type_INVALID)
        goto done;
    int64_t dims[PyBUF_MAX_NDIM];
    int64_t strides[PyBUF_MAX_NDIM];
    if (view.ndim < 0 || view.ndim > PyBUF_MAX_NDIM) {
        PyErr_Format(PyExc_ValueError, "buffer has %d dimensions, at most %d supported", view.ndim,
                     PyBUF_MAX_NDIM);
        goto done;
    }
    fill_dims(&view, dims, strides);
    pjdl_buffer *buffer = NULL;
    pjdl_code rc;
    PJPY_NOGIL_RC(rc, pjdl_buffer_from_host(self->client, view.buf, type, dims, (size_t)view.ndim,
                                            strides, memory, &buffer));
    if (rc != PJDL_OK) {
        pjpy_raise_error(rc);
        goto done;
    }
    result = pjpy_buffer_new(obj, buffer);
done:
    PyBuffer_Release(&view);
    return result;
}

static PyObject *client_from_dlpack(PyObject *obj, PyObject *args, PyObject *kwargs) {
    static char *kwlist[] = {"x", "device", "copy", NULL};
    PyObject *x, *target = Py_None, *copy = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|$OO:from_dlpack", kwlist, &x, &target, &copy))
        return NULL;
    pjpy_client *self = (pjpy_client *)obj;
    pjdl_device *device;
    pjdl_memory *memory;
    pjpy_client *owner;
    if (pjpy_resolve_target(target, self, &device, &memory, &owner) < 0)
        return NULL;
    pjpy_client *clients[1] = {self};
    return pjpy_from_dlpack(clients, 1, x, target, copy);
}

static PyObject *client_set_wait_timeout(PyObject *obj, PyObject *arg) {
    long long ms = PyLong_AsLongLong(arg);
    if (ms == -1 && PyErr_Occurred())
        return NULL;
    pjdl_client_set_wait_timeout(((pjpy_client *)obj)->client, (int64_t)ms);
    Py_RETURN_NONE;
}

static PyObject *client_get_platform(PyObject *obj, void *closure) {
    (void)closure;
    return PyUnicode_FromString(pjdl_client_platform_name(((pjpy_client *)obj)->client));
}

static PyObject *client_get_platform_version(PyObject *obj, void *closure) {
    (void)closure;
    return PyUnicode_FromString(pjdl_client_platform_version(((pjpy_client *)obj)->client));
}

static PyObject *client_get_platform_id(PyObject *obj, void *closure) {
    (void)closure;
    return PyLong_FromUnsignedLongLong(pjdl_client_platform_id(((pjpy_client *)obj)->client));
}

static PyObject *client_get_devices(PyObject *obj, void *closure) {
    (void)closure;
    pjdl_client *c = ((pjpy_client *)obj)->client;
    size_t n = pjdl_client_device_count(c);
    PyObject *tuple = PyTuple_New((Py_ssize_t)n);
    if (tuple == NULL)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        PyObject *d = pjpy_device_new(obj, pjdl_client_device(c, i));
        if (d == NULL) {
            Py_DECREF(tuple);
            return NULL;
        }
        PyTuple_SET_ITEM(tuple, (Py_ssize_t)i, d);
    }
    return tuple;
}

static PyObject *client_get_plugin(PyObject *obj, void *closure) {
    (void)closure;
    return Py_NewRef(((pjpy_client *)obj)->plugin);
}

static PyObject *client_repr(PyObject *obj) {
    pjdl_client *c = ((pjpy_client *)obj)->client;
    return PyUnicode_FromFormat("<pjrt_dlpack.Client platform=%s devices=%zu>",
                                pjdl_client_platform_name(c), pjdl_client_device_count(c));
}

static PyMethodDef client_methods[] = {
    {"buffer", (PyCFunction)(void (*)(void))client_buffer, METH_VARARGS | METH_KEYWORDS,
     "buffer(obj, device=None) -> Buffer\n\nCopies an object with the buffer protocol (a "
     "NumPy array, bytes, memoryview, array.array, ...) to a new device buffer, honouring its "
     "strides. `device` is a Device or Memory of this client; None means the first device."},
    {"from_dlpack", (PyCFunction)(void (*)(void))client_from_dlpack, METH_VARARGS | METH_KEYWORDS,
     "from_dlpack(x, /, *, device=None, copy=None) -> Buffer\n\nImports an object with "
     "__dlpack__ (or a DLPack capsule) as a buffer of this client: a zero-copy view when "
     "possible. copy=True always copies, copy=False never does (BufferError instead)."},
    {"compile", (PyCFunction)(void (*)(void))pjpy_client_compile, METH_VARARGS | METH_KEYWORDS,
     "compile(program, format='mlir') -> Executable\n\nCompiles a program with the plugin, "
     "for one device (the client's first). `program` is StableHLO as MLIR text (str) or bytes "
     "in `format` ('mlir', or 'hlo' for a serialized HloModuleProto). Raises pjrt_dlpack.Error "
     "with the plugin's message when it rejects the program, UNIMPLEMENTED for plugins that "
     "cannot compile (the reference plugin)."},
    {"set_wait_timeout", client_set_wait_timeout, METH_O,
     "set_wait_timeout(ms)\n\nLimits every wait of this client to `ms` milliseconds "
     "(0 or negative: forever)."},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef client_getset[] = {
    {"platform", client_get_platform, NULL, "The platform name, e.g. 'cpu'.", NULL},
    {"platform_version", client_get_platform_version, NULL, "The platform version string.", NULL},
    {"platform_id", client_get_platform_id, NULL, "XLA's platform id (Fingerprint64 of the name).",
     NULL},
    {"devices", client_get_devices, NULL, "The addressable devices, a tuple of Device.", NULL},
    {"plugin", client_get_plugin, NULL, "The Plugin this client was made by.", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

PyTypeObject pjpy_client_type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "pjrt_dlpack.Client",
    .tp_basicsize = sizeof(pjpy_client),
    .tp_dealloc = client_dealloc,
    .tp_repr = client_repr,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "A PJRT client; made by Plugin.client().",
    .tp_weaklistoffset = offsetof(pjpy_client, weakreflist),
    .tp_methods = client_methods,
    .tp_getset = client_getset,
};
