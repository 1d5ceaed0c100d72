/*
 * executable.c — the Executable type and Client.compile: a program compiled
 * by the plugin, called with Buffers or any DLPack producers, returning a
 * tuple of Buffers.
 * Client.compile is defined here and listed in the Client type's methods
 * (client.c), so that everything about executables lives in one file.
 */
#include "pjdl_py.h"

typedef struct {
    PyObject_HEAD pjdl_executable *exe;
    PyObject *client; /* pjpy_client */
} pjpy_executable;

static void executable_dealloc(PyObject *obj) {
    pjpy_executable *self = (pjpy_executable *)obj;
    if (self->exe != NULL)
        PJPY_NOGIL(pjdl_executable_release(self->exe));
    Py_XDECREF(self->client);
    Py_TYPE(obj)->tp_free(obj);
}

/* Client.compile(program, format="mlir") */
PyObject *pjpy_client_compile(PyObject *client_obj, PyObject *args, PyObject *kwargs) {
    static char *kwlist[] = {"program", "format", NULL};
    PyObject *program;
    const char *format = "mlir";
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|s:compile", kwlist, &program, &format))
        return NULL;
    PyObject *bytes;
    if (PyUnicode_Check(program)) {
        bytes = PyUnicode_AsUTF8String(program);
    } else if (PyBytes_Check(program)) {
        bytes = Py_NewRef(program);
    } else {
        PyErr_Format(PyExc_TypeError, "compile: program must be str or bytes, not %.100s",
                     Py_TYPE(program)->tp_name);
        return NULL;
    }
    if (bytes == NULL)
        return NULL;
    pjpy_executable *self = PyObject_New(pjpy_executable, &pjpy_executable_type);
    if (self == NULL) {
        Py_DECREF(bytes);
        return NULL;
    }
    self->exe = NULL;
    self->client = Py_NewRef(client_obj);
    pjdl_client *client = ((pjpy_client *)client_obj)->client;
    const char *code = PyBytes_AS_STRING(bytes);
    size_t size = (size_t)PyBytes_GET_SIZE(bytes);
    pjdl_executable *exe = NULL;
    pjdl_code rc;
    /* Compiling takes a while: other threads run meanwhile. `bytes` is
     * immutable and held, so reading it without the GIL is safe. */
    PJPY_NOGIL_RC(rc, pjdl_executable_compile(client, code, size, format, &exe));
    Py_DECREF(bytes);
    if (rc != PJDL_OK) {
        Py_DECREF(self);
        return pjpy_raise_error(rc);
    }
    self->exe = exe;
    return (PyObject *)self;
}

/* The argument as a Buffer of the executable's client: a Buffer as it is,
 * anything else imported with from_dlpack (a view where possible). Returns
 * a new reference. */
static PyObject *as_buffer(pjpy_executable *self, PyObject *arg) {
    if (PyObject_TypeCheck(arg, &pjpy_buffer_type))
        return Py_NewRef(arg);
    pjpy_client *clients[1] = {(pjpy_client *)self->client};
    return pjpy_from_dlpack(clients, 1, arg, Py_None, Py_None);
}

static PyObject *wrap_results(pjpy_executable *self, pjdl_buffer **out, size_t n) {
    PyObject *tuple = PyTuple_New((Py_ssize_t)n);
    if (tuple == NULL) {
        for (size_t i = 0; i < n; i++)
            PJPY_NOGIL(pjdl_buffer_release(out[i]));
        return NULL;
    }
    for (size_t i = 0; i < n; i++) {
        /* pjpy_buffer_new releases the buffer when it fails. */
        PyObject *b = pjpy_buffer_new(self->client, out[i]);
        if (b == NULL) {
            for (size_t j = i + 1; j < n; j++)
                PJPY_NOGIL(pjdl_buffer_release(out[j]));
            Py_DECREF(tuple);
            return NULL;
        }
        PyTuple_SET_ITEM(tuple, (Py_ssize_t)i, b);
    }
    return tuple;
}

static PyObject *executable_execute(PyObject *obj, PyObject *args, PyObject *kwargs) {
    pjpy_executable *self = (pjpy_executable *)obj;
    if (kwargs != NULL && PyDict_GET_SIZE(kwargs) > 0) {
        PyErr_SetString(PyExc_TypeError, "an Executable takes positional arguments only");
        return NULL;
    }
    Py_ssize_t n_args = PyTuple_GET_SIZE(args);
    size_t n_out = pjdl_executable_output_count(self->exe);
    /* Buffer objects are held until the call returns; the library borrows
     * their pjdl_buffers only for the call. */
    PyObject *held = PyTuple_New(n_args);
    pjdl_buffer **inputs = PyMem_Calloc((size_t)n_args + 1, sizeof *inputs);
    pjdl_buffer **out = PyMem_Calloc(n_out + 1, sizeof *out);
    PyObject *result = NULL;
    if (held == NULL || inputs == NULL || out == NULL) {
        if (!PyErr_Occurred())
            PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t i = 0; i < n_args; i++) {
        PyObject *b = as_buffer(self, PyTuple_GET_ITEM(args, i));
        if (b == NULL)
            goto done;
        PyTuple_SET_ITEM(held, i, b);
        inputs[i] = ((pjpy_buffer *)b)->buffer;
    }
    size_t n = 0;
    pjdl_code rc;
    PJPY_NOGIL_RC(rc, pjdl_executable_execute(self->exe, inputs, (size_t)n_args, out, n_out, &n));
    if (rc != PJDL_OK) {
        pjpy_raise_error(rc);
        goto done;
    }
    result = wrap_results(self, out, n);
done:
    PyMem_Free(out);
    PyMem_Free(inputs);
    Py_XDECREF(held);
    return result;
}

static PyObject *executable_get_output_count(PyObject *obj, void *closure) {
    (void)closure;
    return PyLong_FromSize_t(pjdl_executable_output_count(((pjpy_executable *)obj)->exe));
}

static PyObject *executable_get_client(PyObject *obj, void *closure) {
    (void)closure;
    return Py_NewRef(((pjpy_executable *)obj)->client);
}

static PyObject *executable_get_device(PyObject *obj, void *closure) {
    (void)closure;
    pjpy_executable *self = (pjpy_executable *)obj;
    return pjpy_device_new(self->client, pjdl_executable_device(self->exe));
}

static PyObject *executable_repr(PyObject *obj) {
    pjpy_executable *self = (pjpy_executable *)obj;
    pjdl_device *d = pjdl_executable_device(self->exe);
    return PyUnicode_FromFormat("<pjrt_dlpack.Executable outputs=%zu device=%s:%d>",
                                pjdl_executable_output_count(self->exe),
                                pjdl_client_platform_name(pjdl_executable_client(self->exe)),
                                pjdl_device_id(d));
}

static PyMethodDef executable_methods[] = {
    {"execute", (PyCFunction)(void (*)(void))executable_execute, METH_VARARGS | METH_KEYWORDS,
     "execute(*args) -> tuple of Buffer\n\nRuns the program once on its device. Each argument "
     "is a Buffer of this executable's client or any DLPack producer (a NumPy array, a PyTorch "
     "tensor, a capsule), imported as Client.from_dlpack does: a view of its memory where the "
     "plugin allows one. Returns one Buffer per result; they may still be computing, and "
     "every reader (__dlpack__, to_bytes, block_until_ready) waits for them."},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef executable_getset[] = {
    {"output_count", executable_get_output_count, NULL, "How many Buffers a call returns.", NULL},
    {"client", executable_get_client, NULL, "The Client that compiled it.", NULL},
    {"device", executable_get_device, NULL, "The Device it runs on.", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

PyTypeObject pjpy_executable_type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "pjrt_dlpack.Executable",
    .tp_basicsize = sizeof(pjpy_executable),
    .tp_dealloc = executable_dealloc,
    .tp_repr = executable_repr,
    .tp_call = executable_execute,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "A compiled program; made by Client.compile(). Calling it is execute(*args).",
    .tp_methods = executable_methods,
    .tp_getset = executable_getset,
};

int pjpy_executable_init(PyObject *module) {
    if (PyType_Ready(&pjpy_executable_type) < 0)
        return -1;
    return PyModule_AddObjectRef(module, "Executable", (PyObject *)&pjpy_executable_type);
}
