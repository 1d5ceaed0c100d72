/*
 * buffer.c — the Buffer type: metadata, deletion, explicit host copies. The
 * DLPack protocol methods live in dlpack_protocol.c.
 */

#include "pjdl_py.h"

#include <string.h>

#define BUF(o) (((pjpy_buffer *)(o))->buffer)

/* The memory of the last Buffer freed, kept for the next one (guarded by
 * the GIL): an import makes a Buffer and its release drops one, and
 * PyObject_Malloc and PyObject_Free cost more than the rest of setting one
 * up. Buffer cannot be subclassed, so the block always has this size. */
static PyObject *spare_buffer;

pjpy_buffer *pjpy_buffer_alloc(void) {
    pjpy_buffer *self;
    if (spare_buffer != NULL) {
        self = (pjpy_buffer *)PyObject_Init(spare_buffer, &pjpy_buffer_type);
        spare_buffer = NULL;
    } else if ((self = PyObject_New(pjpy_buffer, &pjpy_buffer_type)) == NULL) {
        return NULL;
    }
    self->client = NULL;
    self->buffer = NULL;
    self->weakreflist = NULL;
    self->export_fast = 0;
    self->dl_device_tuple = NULL;
    self->dl_generation = pjdl_platform_generation();
    self->view = NULL;
    return self;
}

int pjpy_buffer_registry_sync(pjpy_buffer *self) {
    /* Read before anything is derived: a registration racing with this one
     * leaves a stale generation, and the next call derives again. */
    unsigned now = pjdl_platform_generation();
    if (self->dl_generation == now)
        return 0;
    Py_CLEAR(self->dl_device_tuple);
    if (self->view != NULL) {
        /* The view's memory, shape and strides stay true; only the device
         * is the registry's. Corrected in place: a consumer may still hold
         * the shape and strides it handed out. */
        DLDevice dl;
        pjdl_code rc = pjdl_buffer_dl_device(self->buffer, &dl);
        if (rc != PJDL_OK) {
            pjpy_raise_exchange(rc);
            return -1;
        }
        self->view->device = dl;
    }
    self->dl_generation = now;
    return 0;
}

void pjpy_buffer_set(pjpy_buffer *self, PyObject *client_obj, pjdl_buffer *buffer) {
    self->client = Py_NewRef(client_obj);
    self->buffer = buffer;
}

PyObject *pjpy_buffer_new(PyObject *client_obj, pjdl_buffer *buffer) {
    pjpy_buffer *self = pjpy_buffer_alloc();
    if (self == NULL) {
        PJPY_NOGIL(pjdl_buffer_release(buffer));
        return NULL;
    }
    pjpy_buffer_set(self, client_obj, buffer);
    return (PyObject *)self;
}

static void buffer_dealloc(PyObject *obj) {
    pjpy_buffer *self = (pjpy_buffer *)obj;
    if (self->weakreflist != NULL)
        PyObject_ClearWeakRefs(obj);
    /* Its client's plugin never blocks in a destroy (sync_views): nothing
     * else in a release waits. */
    if (self->buffer != NULL)
        PJPY_CALL(self->client != NULL && ((pjpy_client *)self->client)->sync_views,
                  pjdl_buffer_release(self->buffer));
    Py_XDECREF(self->dl_device_tuple);
    if (self->view != NULL)
        PyMem_Free(self->view);
    Py_XDECREF(self->client);
    if (spare_buffer == NULL)
        spare_buffer = obj;
    else
        Py_TYPE(obj)->tp_free(obj);
}

static PyObject *buffer_get_shape(PyObject *obj, void *closure) {
    (void)closure;
    size_t n = pjdl_buffer_ndim(BUF(obj));
    const int64_t *dims = pjdl_buffer_dims(BUF(obj));
    PyObject *t = PyTuple_New((Py_ssize_t)n);
    if (t == NULL)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        PyObject *d = PyLong_FromLongLong(dims[i]);
        if (d == NULL) {
            Py_DECREF(t);
            return NULL;
        }
        PyTuple_SET_ITEM(t, (Py_ssize_t)i, d);
    }
    return t;
}

static PyObject *buffer_get_ndim(PyObject *obj, void *closure) {
    (void)closure;
    return PyLong_FromSize_t(pjdl_buffer_ndim(BUF(obj)));
}

static PyObject *buffer_get_nbytes(PyObject *obj, void *closure) {
    (void)closure;
    return PyLong_FromSize_t(pjdl_buffer_size_bytes(BUF(obj)));
}

static PyObject *buffer_get_dtype(PyObject *obj, void *closure) {
    (void)closure;
    PJRT_Buffer_Type t = pjdl_buffer_type(BUF(obj));
    const char *name = pjpy_dtype_name(t);
    if (name == NULL)
        name = pjdl_pjrt_type_name(t);
    return PyUnicode_FromString(name);
}

static PyObject *buffer_get_device(PyObject *obj, void *closure) {
    (void)closure;
    return pjpy_device_new(((pjpy_buffer *)obj)->client, pjdl_buffer_device(BUF(obj)));
}

static PyObject *buffer_get_memory(PyObject *obj, void *closure) {
    (void)closure;
    return pjpy_memory_new(((pjpy_buffer *)obj)->client, pjdl_buffer_device(BUF(obj)),
                           pjdl_buffer_memory(BUF(obj)));
}

static PyObject *buffer_get_client(PyObject *obj, void *closure) {
    (void)closure;
    return Py_NewRef(((pjpy_buffer *)obj)->client);
}

static PyObject *buffer_get_is_deleted(PyObject *obj, void *closure) {
    (void)closure;
    bool deleted;
    PJPY_NOGIL(deleted = pjdl_buffer_is_deleted(BUF(obj)));
    return PyBool_FromLong(deleted);
}

static PyObject *buffer_delete(PyObject *obj, PyObject *unused) {
    (void)unused;
    pjdl_code rc;
    PJPY_NOGIL_RC(rc, pjdl_buffer_delete(BUF(obj)));
    if (rc != PJDL_OK)
        return pjpy_raise_error(rc);
    Py_RETURN_NONE;
}

static PyObject *buffer_block_until_ready(PyObject *obj, PyObject *unused) {
    (void)unused;
    pjdl_code rc;
    PJPY_NOGIL_RC(rc, pjdl_buffer_await(BUF(obj)));
    if (rc != PJDL_OK)
        return pjpy_raise_error(rc);
    return Py_NewRef(obj);
}

static PyObject *buffer_unsafe_buffer_pointer(PyObject *obj, PyObject *unused) {
    (void)unused;
    void *ptr = NULL;
    pjdl_code rc;
    PJPY_NOGIL_RC(rc, pjdl_buffer_data_pointer(BUF(obj), &ptr));
    if (rc != PJDL_OK)
        return pjpy_raise_error(rc);
    return PyLong_FromVoidPtr(ptr);
}

static PyObject *buffer_to_bytes(PyObject *obj, PyObject *unused) {
    (void)unused;
    size_t size = pjdl_buffer_size_bytes(BUF(obj));
    if (size > (size_t)PY_SSIZE_T_MAX)
        return PyErr_NoMemory();
    PyObject *bytes = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)size);
    if (bytes == NULL)
        return NULL;
    char *dst = PyBytes_AS_STRING(bytes);
    pjdl_code rc;
    PJPY_NOGIL_RC(rc, pjdl_buffer_to_host(BUF(obj), dst, size));
    if (rc != PJDL_OK) {
        Py_DECREF(bytes);
        return pjpy_raise_error(rc);
    }
    return bytes;
}

/* __array__(dtype=None, copy=None): a new NumPy array holding a host copy.
 * copy=False is refused: the data is never shared this way (use
 * numpy.from_dlpack for that). */
static PyObject *buffer_array(PyObject *obj, PyObject *args, PyObject *kwargs) {
    static char *kwlist[] = {"dtype", "copy", NULL};
    PyObject *dtype = Py_None, *copy = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|OO:__array__", kwlist, &dtype, &copy))
        return NULL;
    if (copy == Py_False) {
        PyErr_SetString(PyExc_ValueError,
                        "Buffer.__array__ always copies to the host; use numpy.from_dlpack() to "
                        "share memory");
        return NULL;
    }
    const char *name = pjpy_dtype_name(pjdl_buffer_type(BUF(obj)));
    if (name == NULL) {
        PyErr_Format(PyExc_TypeError, "element type %s has no NumPy equivalent",
                     pjdl_pjrt_type_name(pjdl_buffer_type(BUF(obj))));
        return NULL;
    }
    PyObject *np = PyImport_ImportModule("numpy");
    if (np == NULL)
        return NULL;
    PyObject *result = NULL, *shape = NULL, *np_dtype = NULL, *array = NULL;
    shape = buffer_get_shape(obj, NULL);
    if (shape == NULL)
        goto done;
    np_dtype = PyObject_CallMethod(np, "dtype", "s", name);
    if (np_dtype == NULL) {
        /* bfloat16 and the float8 family are ml_dtypes' types, which NumPy
         * knows by name only once ml_dtypes is imported: import it here
         * rather than make the caller do it first. */
        PyErr_Clear();
        PyObject *ml = PyImport_ImportModule("ml_dtypes");
        PyObject *type = ml ? PyObject_GetAttrString(ml, name) : NULL;
        np_dtype = type ? PyObject_CallMethod(np, "dtype", "O", type) : NULL;
        Py_XDECREF(type);
        Py_XDECREF(ml);
        if (np_dtype == NULL) {
            PyErr_Clear();
            PyErr_Format(PyExc_TypeError, "NumPy has no dtype '%s' (install ml_dtypes)", name);
            goto done;
        }
    }
    array = PyObject_CallMethod(np, "empty", "OO", shape, np_dtype);
    if (array == NULL)
        goto done;
    Py_buffer view;
    if (PyObject_GetBuffer(array, &view, PyBUF_WRITABLE | PyBUF_C_CONTIGUOUS) < 0)
        goto done;
    pjdl_code rc;
    PJPY_NOGIL_RC(rc, pjdl_buffer_to_host(BUF(obj), view.buf, (size_t)view.len));
    PyBuffer_Release(&view);
    if (rc != PJDL_OK) {
        pjpy_raise_error(rc);
        goto done;
    }
    if (dtype != Py_None)
        result = PyObject_CallMethod(array, "astype", "O", dtype);
    else
        result = Py_NewRef(array);
done:
    Py_XDECREF(array);
    Py_XDECREF(np_dtype);
    Py_XDECREF(shape);
    Py_DECREF(np);
    return result;
}

static PyObject *buffer_repr(PyObject *obj) {
    PyObject *shape = buffer_get_shape(obj, NULL);
    if (shape == NULL)
        return NULL;
    PJRT_Buffer_Type t = pjdl_buffer_type(BUF(obj));
    const char *name = pjpy_dtype_name(t);
    bool deleted;
    PJPY_NOGIL(deleted = pjdl_buffer_is_deleted(BUF(obj)));
    PyObject *r = PyUnicode_FromFormat("<pjrt_dlpack.Buffer shape=%R dtype=%s device=%s:%d%s>",
                                       shape, name ? name : pjdl_pjrt_type_name(t),
                                       pjdl_client_platform_name(pjdl_buffer_client(BUF(obj))),
                                       pjdl_device_id(pjdl_buffer_device(BUF(obj))),
                                       deleted ? " deleted" : "");
    Py_DECREF(shape);
    return r;
}

static PyMethodDef buffer_methods[] = {
    {"delete", buffer_delete, METH_NOARGS,
     "delete()\n\nFrees the device memory once no export pins it. Later uses fail; "
     "deleting twice is fine."},
    {"block_until_ready", buffer_block_until_ready, METH_NOARGS,
     "block_until_ready() -> self\n\nWaits until the buffer's data is ready."},
    {"unsafe_buffer_pointer", buffer_unsafe_buffer_pointer, METH_NOARGS,
     "unsafe_buffer_pointer() -> int\n\nThe address of the data on its device."},
    {"to_bytes", buffer_to_bytes, METH_NOARGS,
     "to_bytes() -> bytes\n\nA host copy of the contents, compact row-major."},
    {"__array__", (PyCFunction)(void (*)(void))buffer_array, METH_VARARGS | METH_KEYWORDS,
     "__array__(dtype=None, copy=None) -> numpy.ndarray\n\nAn explicit host copy as a NumPy "
     "array. To share memory instead, use numpy.from_dlpack(buffer)."},
    {"__dlpack__", (PyCFunction)(void (*)(void))pjpy_buffer_dlpack, METH_FASTCALL | METH_KEYWORDS,
     "__dlpack__(*, stream=None, max_version=None, dl_device=None, copy=None) -> capsule\n\n"
     "Exports the buffer as a DLPack capsule (array API standard 2023.12). The buffer stays "
     "usable. A 'dltensor_versioned' capsule when max_version >= (1, 0), else a legacy "
     "'dltensor' capsule."},
    {"__dlpack_device__", pjpy_buffer_dlpack_device, METH_NOARGS,
     "__dlpack_device__() -> (device_type, device_id)"},
    {"release_to_dlpack", (PyCFunction)(void (*)(void))pjpy_buffer_release_to_dlpack,
     METH_FASTCALL | METH_KEYWORDS,
     "release_to_dlpack(*, stream=None, max_version=None, dl_device=None, copy=None) -> "
     "capsule\n\nLike __dlpack__, but ownership moves to the consumer: the buffer counts as "
     "deleted afterwards."},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef buffer_getset[] = {
    {"shape", buffer_get_shape, NULL, "The dimensions, a tuple of int.", NULL},
    {"ndim", buffer_get_ndim, NULL, "The number of dimensions.", NULL},
    {"nbytes", buffer_get_nbytes, NULL, "Bytes of the compact logical array.", NULL},
    {"dtype", buffer_get_dtype, NULL, "NumPy's name of the element type, e.g. 'float32'.", NULL},
    {"device", buffer_get_device, NULL, "The Device holding the buffer.", NULL},
    {"memory", buffer_get_memory, NULL, "The Memory holding the buffer.", NULL},
    {"client", buffer_get_client, NULL, "The Client the buffer belongs to.", NULL},
    {"is_deleted", buffer_get_is_deleted, NULL, "True after delete() or release_to_dlpack().",
     NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

PyTypeObject pjpy_buffer_type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "pjrt_dlpack.Buffer",
    .tp_basicsize = sizeof(pjpy_buffer),
    .tp_dealloc = buffer_dealloc,
    .tp_repr = buffer_repr,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "A PJRT device buffer; made by Client.buffer() or from_dlpack().",
    .tp_weaklistoffset = offsetof(pjpy_buffer, weakreflist),
    .tp_methods = buffer_methods,
    .tp_getset = buffer_getset,
};
