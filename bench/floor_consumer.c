/*
 * _pjdl_floor: the least a Python consumer must do to import a NumPy array
 * into a PJRT plugin, as the baseline that separates the plugin's cost from
 * ours in the `client.from_dlpack(numpy_array)` row (issue 23; bench/README).
 *
 *   floor = _pjdl_floor.Floor(plugin_path)
 *   view = floor.from_dlpack(array)  # a PJRT view of the array's memory
 *   del view                          # PJRT_Buffer_Destroy; the array's
 *                                     # DLPack deleter runs from on_delete
 *   view = floor.from_dlpack_lib(array)  # the same through the library:
 *   del view                              # pjdl_import, pjdl_buffer_release
 *
 * from_dlpack calls x.__dlpack__(max_version=(1, 3)) as ours does, claims
 * the versioned capsule, and hands the data to the plugin's
 * PJRT_Client_CreateViewOfDeviceBuffer on the first device of a client of
 * its own (made once, through the library). It takes float32 host tensors
 * in compact C order only and refuses anything else with ValueError; it has
 * none of what the module does beyond that: no other dtypes or layouts, no
 * copies, one client, no device= or copy=, no GIL release, no safety for a
 * plugin that calls on_delete on another thread (the deleter is then not
 * run: the array leaks rather than being released without the GIL; asked of
 * PyGILState_Check, which is right while no subinterpreter has existed, as
 * in the benchmark).
 * from_dlpack_lib hands the same tensor to pjdl_import (copy=NEVER) instead,
 * wrapped so that its deleter runs only with the GIL, and releases the
 * pjdl_buffer: the two differ by the library alone. A benchmark baseline,
 * not part of the package.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "pjrt_dlpack.h"

typedef struct {
    PyObject_HEAD const PJRT_Api *api;
    PJRT_Client *client;
    PJRT_Device *device;
    PJRT_Memory *memory;
    pjdl_client *owner; /* keeps the PJRT client alive */
} floor_object;

typedef struct {
    PyObject_HEAD const PJRT_Api *api;
    PJRT_Buffer *buffer; /* from_dlpack's, or NULL */
    pjdl_buffer *lib;    /* from_dlpack_lib's, or NULL */
    PyObject *floor;     /* the client outlives its views */
} view_object;

static PyObject *kwnames, *max_version, *dlpack_name;

/* Raises RuntimeError with the plugin's message and destroys the error. */
static void raise_plugin_error(const PJRT_Api *api, PJRT_Error *err, const char *what) {
    PJRT_Error_Message_Args m = {.struct_size = PJRT_Error_Message_Args_STRUCT_SIZE, .error = err};
    api->PJRT_Error_Message(&m);
    PyErr_Format(PyExc_RuntimeError, "_pjdl_floor: %s failed: %.*s", what, (int)m.message_size,
                 m.message);
    PJRT_Error_Destroy_Args d = {.struct_size = PJRT_Error_Destroy_Args_STRUCT_SIZE, .error = err};
    api->PJRT_Error_Destroy(&d);
}

static void on_delete(void *data, void *arg) {
    (void)data;
    DLManagedTensorVersioned *t = arg;
    if (t->deleter != NULL && PyGILState_Check())
        t->deleter(t);
}

static void view_dealloc(PyObject *self) {
    view_object *v = (view_object *)self;
    PJRT_Buffer_Destroy_Args a = {.struct_size = PJRT_Buffer_Destroy_Args_STRUCT_SIZE,
                                  .buffer = v->buffer};
    PJRT_Error *err = NULL;
    if (v->lib != NULL)
        pjdl_buffer_release(v->lib);
    else
        err = v->api->PJRT_Buffer_Destroy(&a);
    if (err != NULL) {
        raise_plugin_error(v->api, err, "PJRT_Buffer_Destroy");
        PyErr_WriteUnraisable(self);
    }
    Py_DECREF(v->floor);
    PyObject_Free(self);
}

static PyTypeObject view_type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "_pjdl_floor.View",
    .tp_basicsize = sizeof(view_object),
    .tp_dealloc = view_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "A PJRT view of an imported array, destroyed with the object.",
};

/* Whether the floor takes the tensor: float32 in host memory, compact C
 * order (the strides of an empty tensor describe nothing). */
static int takes(const DLTensor *t) {
    if (t->device.device_type != kDLCPU || t->dtype.code != kDLFloat || t->dtype.bits != 32 ||
        t->dtype.lanes != 1 || t->ndim < 0 || (t->ndim > 0 && t->shape == NULL))
        return 0;
    int64_t count = 1;
    for (int32_t i = 0; i < t->ndim; i++)
        if (t->shape[i] < 0 || (count != 0 && __builtin_mul_overflow(count, t->shape[i], &count)))
            return 0;
    int64_t expect = 1; /* cannot overflow: at most count */
    for (int32_t i = t->ndim - 1; count != 0 && t->strides != NULL && i >= 0; i--) {
        if (t->shape[i] > 1 && t->strides[i] != expect)
            return 0;
        expect *= t->shape[i];
    }
    return 1;
}

/* The view of a claimed tensor; NULL with an exception set. */
static PyObject *view_of(floor_object *f, DLManagedTensorVersioned *t) {
    view_object *v = PyObject_New(view_object, &view_type);
    if (v == NULL)
        return NULL;
    PJRT_Client_CreateViewOfDeviceBuffer_Args a = {
        .struct_size = PJRT_Client_CreateViewOfDeviceBuffer_Args_STRUCT_SIZE,
        .client = f->client,
        .device_buffer_ptr = (char *)t->dl_tensor.data + t->dl_tensor.byte_offset,
        .dims = t->dl_tensor.shape,
        .num_dims = (size_t)t->dl_tensor.ndim,
        .element_type = PJRT_Buffer_Type_F32,
        .device = f->device,
        .on_delete_callback = on_delete,
        .on_delete_callback_arg = t,
        .memory = f->memory};
    PJRT_Error *err = f->api->PJRT_Client_CreateViewOfDeviceBuffer(&a);
    if (err != NULL || a.buffer == NULL) {
        if (err != NULL)
            raise_plugin_error(f->api, err, "PJRT_Client_CreateViewOfDeviceBuffer");
        else
            PyErr_SetString(PyExc_RuntimeError, "_pjdl_floor: the plugin returned no view");
        PyObject_Free(v);
        return NULL;
    }
    v->api = f->api;
    v->buffer = a.buffer;
    v->lib = NULL;
    v->floor = Py_NewRef((PyObject *)f);
    return (PyObject *)v;
}

/* The producer's tensor under one the library owns, whose deleter runs the
 * producer's only with the GIL (as on_delete does). One is kept for the
 * next import, as the module keeps its guard. */
static DLManagedTensorVersioned *spare_wrapper;

static void wrapper_deleter(DLManagedTensorVersioned *w) {
    DLManagedTensorVersioned *t = w->manager_ctx;
    int gil = PyGILState_Check();
    if (t->deleter != NULL && gil)
        t->deleter(t);
    if (gil && spare_wrapper == NULL)
        spare_wrapper = w;
    else
        free(w);
}

/* A view of a claimed tensor through the library; NULL with an exception set. */
static PyObject *view_of_lib(floor_object *f, DLManagedTensorVersioned *t) {
    DLManagedTensorVersioned *w = spare_wrapper;
    spare_wrapper = NULL;
    if (w == NULL && (w = malloc(sizeof *w)) == NULL)
        return PyErr_NoMemory();
    *w = *t;
    w->manager_ctx = t;
    w->deleter = wrapper_deleter;
    view_object *v = PyObject_New(view_object, &view_type);
    pjdl_import_options opts = PJDL_IMPORT_OPTIONS_INIT;
    opts.copy = PJDL_COPY_NEVER;
    if (v == NULL || pjdl_import(&f->owner, 1, w, &opts, &v->lib) != PJDL_OK) {
        if (v != NULL)
            PyErr_Format(PyExc_RuntimeError, "_pjdl_floor: %s", pjdl_last_error());
        PyObject_Free(v);
        free(w);
        return NULL;
    }
    v->api = f->api;
    v->buffer = NULL;
    v->floor = Py_NewRef((PyObject *)f);
    return (PyObject *)v;
}

/* x.__dlpack__(max_version=(1, 3)), the capsule claimed and its tensor
 * given to `view` (view_of or view_of_lib); the capsule is the producer's
 * again when that fails. */
static PyObject *import_with(floor_object *f, PyObject *x,
                             PyObject *(*view)(floor_object *, DLManagedTensorVersioned *)) {
    if (f->owner == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "_pjdl_floor: Floor.__init__ was not called");
        return NULL;
    }
    PyObject *stack[2] = {x, max_version};
    PyObject *capsule =
        PyObject_VectorcallMethod(dlpack_name, stack, 1 | PY_VECTORCALL_ARGUMENTS_OFFSET, kwnames);
    if (capsule == NULL)
        return NULL;
    PyObject *result = NULL;
    DLManagedTensorVersioned *t = PyCapsule_GetPointer(capsule, "dltensor_versioned");
    if (t != NULL && (t->version.major != DLPACK_MAJOR_VERSION || !takes(&t->dl_tensor)))
        PyErr_SetString(PyExc_ValueError, "_pjdl_floor: takes DLPack 1.x float32 host tensors in "
                                          "compact C order only");
    else if (t != NULL && PyCapsule_SetName(capsule, "used_dltensor_versioned") == 0 &&
             (result = view(f, t)) == NULL)
        PyCapsule_SetName(capsule, "dltensor_versioned");
    Py_DECREF(capsule);
    return result;
}

static PyObject *floor_from_dlpack(PyObject *self, PyObject *x) {
    return import_with((floor_object *)self, x, view_of);
}

static PyObject *floor_from_dlpack_lib(PyObject *self, PyObject *x) {
    return import_with((floor_object *)self, x, view_of_lib);
}

/* Whether the table holds the two functions a view needs. */
static int has_view_functions(const PJRT_Api *api) {
    size_t need = offsetof(PJRT_Api, PJRT_Client_CreateViewOfDeviceBuffer) + sizeof(void *);
    size_t need_destroy = offsetof(PJRT_Api, PJRT_Buffer_Destroy) + sizeof(void *);
    return api->struct_size >= need && api->struct_size >= need_destroy &&
           api->PJRT_Client_CreateViewOfDeviceBuffer != NULL && api->PJRT_Buffer_Destroy != NULL;
}

static int floor_init(PyObject *self, PyObject *args, PyObject *kw) {
    floor_object *f = (floor_object *)self;
    static char *kwlist[] = {"plugin", NULL};
    const char *path;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "s:Floor", kwlist, &path))
        return -1;
    if (f->owner != NULL) {
        PyErr_SetString(PyExc_RuntimeError, "_pjdl_floor: a Floor is initialized once");
        return -1;
    }
    pjdl_plugin *plugin = NULL;
    if (pjdl_plugin_load(path, &plugin) != PJDL_OK ||
        pjdl_client_create(plugin, NULL, 0, &f->owner) != PJDL_OK) {
        PyErr_Format(PyExc_RuntimeError, "_pjdl_floor: %s", pjdl_last_error());
        pjdl_plugin_release(plugin);
        return -1;
    }
    f->api = pjdl_plugin_api(plugin);
    pjdl_plugin_release(plugin); /* the client holds it */
    pjdl_device *device = pjdl_client_device(f->owner, 0);
    if (device == NULL || !has_view_functions(f->api)) {
        PyErr_SetString(PyExc_RuntimeError, "_pjdl_floor: the plugin's client has no device, or "
                                            "the plugin no view functions");
        pjdl_client_release(f->owner);
        f->owner = NULL;
        return -1;
    }
    f->client = pjdl_client_pjrt(f->owner);
    f->device = pjdl_device_pjrt(device);
    pjdl_memory *memory = pjdl_device_default_memory(device);
    f->memory = memory != NULL ? pjdl_memory_pjrt(memory) : NULL;
    return 0;
}

static void floor_dealloc(PyObject *self) {
    pjdl_client_release(((floor_object *)self)->owner);
    Py_TYPE(self)->tp_free(self);
}

static PyMethodDef floor_methods[] = {
    {"from_dlpack", floor_from_dlpack, METH_O,
     "A PJRT view of x (float32, host, C order), through x.__dlpack__."},
    {"from_dlpack_lib", floor_from_dlpack_lib, METH_O,
     "The same view made and released through the library (pjdl_import)."},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject floor_type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "_pjdl_floor.Floor",
    .tp_basicsize = sizeof(floor_object),
    .tp_dealloc = floor_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Floor(plugin): a minimal DLPack consumer into the plugin's first device.",
    .tp_methods = floor_methods,
    .tp_init = floor_init,
    .tp_new = PyType_GenericNew,
};

static struct PyModuleDef floor_module = {
    PyModuleDef_HEAD_INIT, .m_name = "_pjdl_floor",
    .m_doc = "A minimal DLPack consumer into a PJRT plugin: a benchmark baseline.", .m_size = -1};

PyMODINIT_FUNC PyInit__pjdl_floor(void);
PyMODINIT_FUNC PyInit__pjdl_floor(void) {
    if (PyType_Ready(&view_type) < 0 || PyType_Ready(&floor_type) < 0)
        return NULL;
    /* Interned and made once, as the module's own call is. */
    if (dlpack_name == NULL) {
        dlpack_name = PyUnicode_InternFromString("__dlpack__");
        kwnames = Py_BuildValue("(N)", PyUnicode_InternFromString("max_version"));
        max_version = Py_BuildValue("(ii)", 1, 3);
        if (dlpack_name == NULL || kwnames == NULL || max_version == NULL)
            return NULL;
    }
    PyObject *m = PyModule_Create(&floor_module);
    if (m != NULL && PyModule_AddObjectRef(m, "Floor", (PyObject *)&floor_type) < 0)
        Py_CLEAR(m);
    return m;
}
