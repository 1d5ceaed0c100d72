/*
 * device.c — the Device and Memory types: borrowed library handles kept
 * valid by a strong reference to their Client. Equal when they name the same
 * library object.
 */
#include "pjdl_py.h"

PyObject *pjpy_device_new(PyObject *client_obj, pjdl_device *device) {
    if (device == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "the client reported no such device");
        return NULL;
    }
    pjpy_device *self = PyObject_New(pjpy_device, &pjpy_device_type);
    if (self == NULL)
        return NULL;
    self->client = Py_NewRef(client_obj);
    self->device = device;
    return (PyObject *)self;
}

PyObject *pjpy_memory_new(PyObject *client_obj, pjdl_device *device, pjdl_memory *memory) {
    if (memory == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "the client reported no such memory");
        return NULL;
    }
    pjpy_memory *self = PyObject_New(pjpy_memory, &pjpy_memory_type);
    if (self == NULL)
        return NULL;
    self->client = Py_NewRef(client_obj);
    self->device = device;
    self->memory = memory;
    return (PyObject *)self;
}

static void handle_dealloc(PyObject *obj) {
    /* Device and Memory both start with PyObject_HEAD + client. */
    Py_XDECREF(((pjpy_device *)obj)->client);
    Py_TYPE(obj)->tp_free(obj);
}

static Py_hash_t hash_pointer(const void *p) {
    Py_hash_t h = (Py_hash_t)((uintptr_t)p >> 4);
    return h == -1 ? -2 : h;
}

static PyObject *compare_pointers(const void *a, const void *b, int op) {
    if (op != Py_EQ && op != Py_NE)
        Py_RETURN_NOTIMPLEMENTED;
    return PyBool_FromLong((a == b) == (op == Py_EQ));
}

static PyObject *dl_of(pjdl_device *device, pjdl_memory *memory) {
    DLDevice dl;
    pjdl_code rc = pjdl_device_dl(device, memory, &dl);
    if (rc != PJDL_OK)
        return pjpy_raise_exchange(rc);
    return pjpy_dl_device_tuple(dl);
}

/* -------------------------------------------------------------- Device */

#define DEV(o) (((pjpy_device *)(o))->device)

static PyObject *device_richcompare(PyObject *a, PyObject *b, int op) {
    if (!PyObject_TypeCheck(b, &pjpy_device_type))
        Py_RETURN_NOTIMPLEMENTED;
    return compare_pointers(DEV(a), DEV(b), op);
}

static Py_hash_t device_hash(PyObject *obj) {
    return hash_pointer(DEV(obj));
}

static PyObject *device_get_id(PyObject *obj, void *closure) {
    (void)closure;
    return PyLong_FromLong(pjdl_device_id(DEV(obj)));
}

static PyObject *device_get_local_hardware_id(PyObject *obj, void *closure) {
    (void)closure;
    return PyLong_FromLong(pjdl_device_local_hardware_id(DEV(obj)));
}

static PyObject *device_get_kind(PyObject *obj, void *closure) {
    (void)closure;
    return PyUnicode_FromString(pjdl_device_kind(DEV(obj)));
}

static PyObject *device_get_client(PyObject *obj, void *closure) {
    (void)closure;
    return Py_NewRef(((pjpy_device *)obj)->client);
}

static PyObject *device_get_memories(PyObject *obj, void *closure) {
    (void)closure;
    pjdl_device *d = DEV(obj);
    size_t n = pjdl_device_memory_count(d);
    PyObject *tuple = PyTuple_New((Py_ssize_t)n);
    if (tuple == NULL)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        PyObject *m = pjpy_memory_new(((pjpy_device *)obj)->client, d, pjdl_device_memory(d, i));
        if (m == NULL) {
            Py_DECREF(tuple);
            return NULL;
        }
        PyTuple_SET_ITEM(tuple, (Py_ssize_t)i, m);
    }
    return tuple;
}

static PyObject *device_get_default_memory(PyObject *obj, void *closure) {
    (void)closure;
    pjdl_memory *m = pjdl_device_default_memory(DEV(obj));
    if (m == NULL)
        Py_RETURN_NONE;
    return pjpy_memory_new(((pjpy_device *)obj)->client, DEV(obj), m);
}

static PyObject *device_get_dlpack_device(PyObject *obj, void *closure) {
    (void)closure;
    return dl_of(DEV(obj), NULL);
}

static PyObject *device_dlpack_device(PyObject *obj, PyObject *unused) {
    (void)unused;
    return dl_of(DEV(obj), NULL);
}

/* The stream a DLPack consumer on this device passes as __dlpack__(stream=),
 * or None on a platform without streams. */
static PyObject *device_get_stream(PyObject *obj, void *closure) {
    (void)closure;
    intptr_t stream = 0;
    pjdl_code rc = pjdl_device_stream(DEV(obj), &stream);
    if (rc == PJDL_UNIMPLEMENTED)
        Py_RETURN_NONE;
    if (rc != PJDL_OK)
        return pjpy_raise_error(rc);
    return PyLong_FromSsize_t((Py_ssize_t)stream);
}

static PyObject *device_repr(PyObject *obj) {
    return PyUnicode_FromFormat("<pjrt_dlpack.Device id=%d kind=%s>", pjdl_device_id(DEV(obj)),
                                pjdl_device_kind(DEV(obj)));
}

static PyObject *device_str(PyObject *obj) {
    return PyUnicode_FromString(pjdl_device_debug_string(DEV(obj)));
}

static PyMethodDef device_methods[] = {
    {"__dlpack_device__", device_dlpack_device, METH_NOARGS,
     "(device_type, device_id) of data in the device's default memory."},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef device_getset[] = {
    {"id", device_get_id, NULL, "The PJRT device id.", NULL},
    {"local_hardware_id", device_get_local_hardware_id, NULL, "The local hardware id.", NULL},
    {"kind", device_get_kind, NULL, "The device kind string.", NULL},
    {"client", device_get_client, NULL, "The Client this device belongs to.", NULL},
    {"memories", device_get_memories, NULL, "The memories the device addresses (Memory).", NULL},
    {"default_memory", device_get_default_memory, NULL, "The default Memory, or None.", NULL},
    {"dlpack_device", device_get_dlpack_device, NULL,
     "(device_type, device_id) of data in the default memory.", NULL},
    {"stream", device_get_stream, NULL,
     "The stream (an int) a DLPack consumer on this device passes to __dlpack__(stream=), or "
     "None when the platform has no streams.",
     NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

PyTypeObject pjpy_device_type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "pjrt_dlpack.Device",
    .tp_basicsize = sizeof(pjpy_device),
    .tp_dealloc = handle_dealloc,
    .tp_repr = device_repr,
    .tp_str = device_str,
    .tp_hash = device_hash,
    .tp_richcompare = device_richcompare,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "A device of a Client.",
    .tp_methods = device_methods,
    .tp_getset = device_getset,
};

/* -------------------------------------------------------------- Memory */

#define MEM(o) (((pjpy_memory *)(o))->memory)

static PyObject *memory_richcompare(PyObject *a, PyObject *b, int op) {
    if (!PyObject_TypeCheck(b, &pjpy_memory_type))
        Py_RETURN_NOTIMPLEMENTED;
    if (op != Py_EQ && op != Py_NE)
        Py_RETURN_NOTIMPLEMENTED;
    int eq = MEM(a) == MEM(b) && ((pjpy_memory *)a)->device == ((pjpy_memory *)b)->device;
    return PyBool_FromLong(eq == (op == Py_EQ));
}

static Py_hash_t memory_hash(PyObject *obj) {
    return hash_pointer(MEM(obj));
}

static PyObject *memory_get_id(PyObject *obj, void *closure) {
    (void)closure;
    return PyLong_FromLong(pjdl_memory_id(MEM(obj)));
}

static PyObject *memory_get_kind(PyObject *obj, void *closure) {
    (void)closure;
    return PyUnicode_FromString(pjdl_memory_kind(MEM(obj)));
}

static PyObject *memory_get_device(PyObject *obj, void *closure) {
    (void)closure;
    pjpy_memory *m = (pjpy_memory *)obj;
    return pjpy_device_new(m->client, m->device);
}

static PyObject *memory_get_dlpack_device(PyObject *obj, void *closure) {
    (void)closure;
    return dl_of(((pjpy_memory *)obj)->device, MEM(obj));
}

static PyObject *memory_dlpack_device(PyObject *obj, PyObject *unused) {
    (void)unused;
    return dl_of(((pjpy_memory *)obj)->device, MEM(obj));
}

static PyObject *memory_repr(PyObject *obj) {
    return PyUnicode_FromFormat("<pjrt_dlpack.Memory id=%d kind=%s>", pjdl_memory_id(MEM(obj)),
                                pjdl_memory_kind(MEM(obj)));
}

static PyMethodDef memory_methods[] = {
    {"__dlpack_device__", memory_dlpack_device, METH_NOARGS,
     "(device_type, device_id) of data in this memory."},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef memory_getset[] = {
    {"id", memory_get_id, NULL, "The PJRT memory id.", NULL},
    {"kind", memory_get_kind, NULL, "The memory kind, e.g. 'device' or 'pinned_host'.", NULL},
    {"device", memory_get_device, NULL, "The Device this Memory was listed for.", NULL},
    {"dlpack_device", memory_get_dlpack_device, NULL,
     "(device_type, device_id) of data in this memory.", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

PyTypeObject pjpy_memory_type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "pjrt_dlpack.Memory",
    .tp_basicsize = sizeof(pjpy_memory),
    .tp_dealloc = handle_dealloc,
    .tp_repr = memory_repr,
    .tp_hash = memory_hash,
    .tp_richcompare = memory_richcompare,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "A memory space of a Device.",
    .tp_methods = memory_methods,
    .tp_getset = memory_getset,
};
