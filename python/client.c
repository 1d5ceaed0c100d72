/*
 * client.c — the Client type: platform, devices, host-buffer upload through
 * the buffer protocol, and DLPack import. Also the registry of live clients
 * used by the module-level from_dlpack.
 */
#include "pjdl_py.h"

#include <stdlib.h>
#include <string.h>

static pjpy_client *live_head, *live_tail; /* guarded by the GIL */

PyObject *pjpy_client_new(PyObject *plugin_obj, pjdl_client *client) {
    pjpy_client *self = PyObject_New(pjpy_client, &pjpy_client_type);
    if (self == NULL) {
        PJPY_NOGIL(pjdl_client_release(client));
        return NULL;
    }
    self->client = client;
    self->plugin = Py_NewRef(plugin_obj);
    self->sync_views = ((pjpy_plugin *)plugin_obj)->sync_views;
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

/* The view's shape into dims and its byte strides into strides; returns
 * strides, or NULL for an exporter that gives none (it ignored
 * PyBUF_STRIDES: compact row-major, which NULL means to the library, so that
 * no stride is multiplied out here). */
static const int64_t *fill_dims(const Py_buffer *view, int64_t *dims, int64_t *strides) {
    for (int i = 0; i < view->ndim; i++) {
        dims[i] = view->shape[i];
        if (view->strides != NULL)
            strides[i] = view->strides[i];
    }
    return view->strides != NULL ? strides : NULL;
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
    PJRT_Buffer_Type type = PJRT_Buffer_Type_INVALID;
    PyObject *ml_view = pjpy_ml_dtypes_view(source, &type); /* ml_dtypes: its bytes */
    if (ml_view == NULL && PyErr_Occurred())
        return NULL;
    Py_buffer view;
    if (PyObject_GetBuffer(ml_view ? ml_view : source, &view, PyBUF_RECORDS_RO) < 0) {
        Py_XDECREF(ml_view);
        return NULL;
    }
    PyObject *result = NULL;
    if (ml_view == NULL)
        type = pjpy_type_from_format(view.format, view.itemsize);
    if (type == PJRT_Buffer_Type_INVALID)
        goto done;
    int64_t dims[PyBUF_MAX_NDIM];
    int64_t strides[PyBUF_MAX_NDIM];
    if (view.ndim < 0 || view.ndim > PyBUF_MAX_NDIM) {
        PyErr_Format(PyExc_ValueError, "buffer has %d dimensions, at most %d supported", view.ndim,
                     PyBUF_MAX_NDIM);
        goto done;
    }
    const int64_t *byte_strides = fill_dims(&view, dims, strides);
    pjdl_buffer *buffer = NULL;
    pjdl_code rc;
    PJPY_NOGIL_RC(rc, pjdl_buffer_from_host(self->client, view.buf, type, dims, (size_t)view.ndim,
                                            byte_strides, memory, &buffer));
    if (rc != PJDL_OK) {
        pjpy_raise_error(rc);
        goto done;
    }
    result = pjpy_buffer_new(obj, buffer);
done:
    PyBuffer_Release(&view);
    Py_XDECREF(ml_view);
    return result;
}

static PyObject *client_from_dlpack(PyObject *obj, PyObject *const *args, Py_ssize_t nargs,
                                    PyObject *kwnames) {
    PyObject *x, *target, *copy;
    if (pjpy_from_dlpack_args(args, nargs, kwnames, &x, &target, &copy) < 0)
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
    int64_t ms;
    if (pjpy_int_arg(arg, "set_wait_timeout: ms", INT64_MIN, INT64_MAX, PyExc_OverflowError, &ms) <
        0)
        return NULL;
    pjdl_client_set_wait_timeout(((pjpy_client *)obj)->client, ms);
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

/* ------------------------------------------- frameworks' own clients */

/* Client.wrap(plugin, address) (a static method): a Client on a PJRT client
 * that a framework created (JAX: Client.unsafe_client_pointer), so that
 * buffers imported into it are that framework's buffers. The PJRT client is
 * never destroyed here; the caller keeps its owner alive for as long as this
 * Client and its buffers live (pjrt_dlpack.jax holds the JAX backend). */
static PyObject *client_wrap(PyObject *unused, PyObject *args) {
    (void)unused;
    PyObject *plugin_obj, *address;
    if (!PyArg_ParseTuple(args, "O!O!:wrap", &pjpy_plugin_type, &plugin_obj, &PyLong_Type,
                          &address))
        return NULL;
    void *pjrt = NULL;
    if (pjpy_address_arg(address, "Client.wrap: address", &pjrt) < 0)
        return NULL;
    if (pjrt == NULL) {
        PyErr_SetString(PyExc_ValueError,
                        "Client.wrap: the client address is 0 (JAX reports 0 for clients "
                        "that are not PJRT C API clients, such as its built-in cpu)");
        return NULL;
    }
    pjdl_client *client = NULL;
    pjdl_code rc;
    PJPY_NOGIL_RC(rc, pjdl_client_wrap(((pjpy_plugin *)plugin_obj)->plugin, pjrt, &client));
    if (rc != PJDL_OK)
        return pjpy_raise_error(rc);
    return pjpy_client_new(plugin_obj, client);
}

/* Client.platform_dl_device(platform, memory_kind, hardware_id) (a static
 * method): the DLDevice that data of a device of `platform` in a memory of
 * kind `memory_kind` (None: the device memory) has, by the library's
 * platform registry. The device id follows pjdl_device_dl: 0 for memory the
 * host reaches directly, the device's hardware id otherwise. For producers
 * whose devices the library does not drive itself (a JAX array). */
static PyObject *client_platform_dl_device(PyObject *unused, PyObject *args) {
    (void)unused;
    const char *platform, *memory_kind = NULL;
    PyObject *id_obj;
    int64_t hardware_id;
    if (!PyArg_ParseTuple(args, "szO:platform_dl_device", &platform, &memory_kind, &id_obj) ||
        pjpy_int_arg(id_obj, "platform_dl_device: hardware_id", INT32_MIN, INT32_MAX,
                     PyExc_OverflowError, &hardware_id) < 0)
        return NULL;
    DLDeviceType type;
    pjdl_code rc = pjdl_platform_dl_type(platform, memory_kind, &type);
    if (rc != PJDL_OK)
        return pjpy_raise_exchange(rc);
    DLDevice dl = {type, (int32_t)hardware_id};
    if (pjdl_dl_device_type_host_reachable(type))
        dl.device_id = 0; /* host memory: id 0, as pjdl_device_dl gives it */
    return pjpy_dl_device_tuple(dl);
}

/* A DLPack tensor describing memory that a Python object owns: the object is
 * kept alive until the consumer calls the deleter. Shape and strides live in
 * the same allocation. */
typedef struct external_tensor {
    union {
        DLManagedTensorVersioned versioned;
        DLManagedTensor legacy;
    } t;
    PyObject *owner;
    int64_t dims[]; /* ndim sizes, then ndim strides */
} external_tensor;

static const char external_versioned_name[] = "dltensor_versioned";
static const char external_legacy_name[] = "dltensor";

static void external_run(void *arg) {
    external_tensor *e = arg;
    Py_XDECREF(e->owner);
    free(e);
}

/* Python is gone or going: the owner cannot be released; it is leaked. */
static void external_drop(void *arg) {
    free(arg);
}

/* Consumers may call the deleter on any thread (a plugin worker, a thread of
 * another framework): releasing the owner needs the GIL (gil.c). */
static void external_deleter_versioned(DLManagedTensorVersioned *t) {
    pjpy_call_with_gil(external_run, external_drop, t->manager_ctx);
}

static void external_deleter_legacy(DLManagedTensor *t) {
    pjpy_call_with_gil(external_run, external_drop, t->manager_ctx);
}

/* An unconsumed capsule owns its tensor. The destructor runs with the GIL,
 * so the owner is released at once. */
static void external_capsule_versioned(PyObject *capsule) {
    if (!PyCapsule_IsValid(capsule, external_versioned_name))
        return;
    DLManagedTensorVersioned *t = PyCapsule_GetPointer(capsule, external_versioned_name);
    if (t != NULL && t->deleter != NULL)
        t->deleter(t);
}

static void external_capsule_legacy(PyObject *capsule) {
    if (!PyCapsule_IsValid(capsule, external_legacy_name))
        return;
    DLManagedTensor *t = PyCapsule_GetPointer(capsule, external_legacy_name);
    if (t != NULL && t->deleter != NULL)
        t->deleter(t);
}

/* Reads a sequence of at most `max` ints into out; the count or -1. */
static Py_ssize_t int64_sequence(PyObject *obj, const char *what, int64_t *out, Py_ssize_t max) {
    PyObject *seq = PySequence_Fast(obj, what);
    if (seq == NULL)
        return -1;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    if (n > max) {
        PyErr_Format(PyExc_ValueError, "%s has %zd entries, at most %zd supported", what, n, max);
        Py_DECREF(seq);
        return -1;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        char name[64];
        snprintf(name, sizeof name, "%s[%zd]", what, i);
        if (pjpy_int_arg(PySequence_Fast_GET_ITEM(seq, i), name, INT64_MIN, INT64_MAX,
                         PyExc_OverflowError, &out[i]) < 0) {
            Py_DECREF(seq);
            return -1;
        }
    }
    Py_DECREF(seq);
    return n;
}

#define EXTERNAL_MAX_NDIM 64

/* A capsule (versioned or legacy) of `tensor`, whose shape and strides are
 * copied into the allocation, that keeps `owner` alive until the
 * consumer's deleter runs. */
static PyObject *external_capsule(const DLTensor *tensor, PyObject *owner, int versioned,
                                  int read_only, int copied) {
    size_t ndim = (size_t)tensor->ndim;
    external_tensor *e = calloc(1, sizeof *e + 2 * ndim * sizeof(int64_t));
    if (e == NULL)
        return PyErr_NoMemory();
    if (ndim > 0)
        memcpy(e->dims, tensor->shape, ndim * sizeof(int64_t));
    if (ndim > 0 && tensor->strides != NULL)
        memcpy(e->dims + ndim, tensor->strides, ndim * sizeof(int64_t));
    DLTensor t = *tensor;
    t.shape = e->dims;
    t.strides = tensor->strides != NULL ? e->dims + ndim : NULL;
    e->owner = Py_NewRef(owner);
    PyObject *capsule;
    if (versioned) {
        DLManagedTensorVersioned *v = &e->t.versioned;
        v->version.major = DLPACK_MAJOR_VERSION;
        v->version.minor = DLPACK_MINOR_VERSION;
        v->manager_ctx = e;
        v->deleter = external_deleter_versioned;
        v->flags = (read_only ? DLPACK_FLAG_BITMASK_READ_ONLY : 0) |
                   (copied ? DLPACK_FLAG_BITMASK_IS_COPIED : 0);
        v->dl_tensor = t;
        capsule = PyCapsule_New(v, external_versioned_name, external_capsule_versioned);
    } else {
        DLManagedTensor *l = &e->t.legacy;
        l->manager_ctx = e;
        l->deleter = external_deleter_legacy;
        l->dl_tensor = t;
        capsule = PyCapsule_New(l, external_legacy_name, external_capsule_legacy);
    }
    if (capsule == NULL)
        external_run(e);
    return capsule;
}

/* Client.external_dlpack(data, shape, dtype, strides, dl_device, owner, *,
 * versioned=False, read_only=False, copied=False) (a static method): a
 * DLPack capsule for memory at address `data` that `owner` keeps alive. The library's dtype
 * mapping is used (dtype is NumPy's name: "float32", "bfloat16", "bool").
 * Nothing here can check that the memory is what the caller says: this is
 * for producers (pjrt_dlpack.jax) that read it from their framework. */
static PyObject *client_external_dlpack(PyObject *unused, PyObject *args, PyObject *kwargs) {
    (void)unused;
    static char *kwlist[] = {"data",  "shape",     "dtype",     "strides", "dl_device",
                             "owner", "versioned", "read_only", "copied",  NULL};
    PyObject *data_obj, *shape_obj, *strides_obj, *dl_obj, *owner;
    const char *dtype_name;
    int versioned = 0, read_only = 0, copied = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O!OsOOO|$ppp:external_dlpack", kwlist,
                                     &PyLong_Type, &data_obj, &shape_obj, &dtype_name, &strides_obj,
                                     &dl_obj, &owner, &versioned, &read_only, &copied))
        return NULL;
    void *data = NULL;
    int64_t dl[2];
    if (pjpy_address_arg(data_obj, "external_dlpack: data", &data) < 0 ||
        pjpy_int_pair(dl_obj, "external_dlpack: dl_device", pjpy_dl_device_range,
                      PyExc_OverflowError, dl) < 0)
        return NULL;
    int64_t shape[EXTERNAL_MAX_NDIM], strides[EXTERNAL_MAX_NDIM];
    Py_ssize_t ndim = int64_sequence(shape_obj, "shape", shape, EXTERNAL_MAX_NDIM);
    if (ndim < 0)
        return NULL;
    for (Py_ssize_t i = 0; i < ndim; i++)
        if (shape[i] < 0) {
            PyErr_Format(PyExc_ValueError, "shape[%zd] is negative (%lld)", i, (long long)shape[i]);
            return NULL;
        }
    int has_strides = strides_obj != Py_None;
    if (has_strides) {
        Py_ssize_t n = int64_sequence(strides_obj, "strides", strides, EXTERNAL_MAX_NDIM);
        if (n < 0)
            return NULL;
        if (n != ndim) {
            PyErr_Format(PyExc_ValueError, "strides has %zd entries for %zd dimensions", n, ndim);
            return NULL;
        }
    }
    DLDataType dtype;
    if (pjpy_dl_dtype_from_name(dtype_name, "external_dlpack", &dtype) < 0)
        return NULL;
    DLTensor tensor = {
        .data = data,
        .device = {(DLDeviceType)dl[0], (int32_t)dl[1]},
        .ndim = (int32_t)ndim,
        .dtype = dtype,
        .shape = shape,
        .strides = has_strides ? strides : NULL,
        .byte_offset = 0,
    };
    return external_capsule(&tensor, owner, versioned, read_only, copied);
}

/* Whether `t`'s strides (NULL: C order) say where every element is, one
 * element after another in some order of the dimensions: each stride of a
 * dimension with more than one element, in increasing order, the product
 * of the extents before it. */
static int compact_strides(const DLTensor *t) {
    if (t->strides == NULL)
        return 1;
    int32_t order[EXTERNAL_MAX_NDIM], n = 0;
    for (int32_t i = 0; i < t->ndim; i++) {
        if (t->shape[i] == 0)
            return 1; /* no elements: nothing to find */
        if (t->shape[i] == 1)
            continue;
        int32_t k = n++;
        for (; k > 0 && t->strides[order[k - 1]] > t->strides[i]; k--)
            order[k] = order[k - 1];
        order[k] = i;
    }
    int64_t expect = 1;
    for (int32_t k = 0; k < n; k++) {
        if (t->strides[order[k]] != expect)
            return 0;
        expect *= t->shape[order[k]];
    }
    return 1;
}

/* Client.rewrap_dlpack(capsule, dl_device, versioned, read_only) (a static
 * method, positional: it is on pjrt_dlpack.jax's export path): another
 * producer's unconsumed legacy capsule as the tensor this module would hand
 * out: the capsule itself when a legacy one is asked for, else a versioned
 * capsule of ours describing the same memory, shape, strides and dtype,
 * which keeps `capsule` (unconsumed: its producer's hold on the memory)
 * alive until the consumer's deleter runs. None, the capsule untouched,
 * when the tensor is not one this module would describe so: on another
 * DLDevice than `dl_device`, of a sub-byte or multi-lane dtype, or with
 * strides that are not a compact layout. For pjrt_dlpack.jax, which hands
 * out JAX's own tensor where JAX exports the array itself. */
static PyObject *client_rewrap_dlpack(PyObject *unused, PyObject *const *args, Py_ssize_t nargs) {
    (void)unused;
    if (nargs != 4) {
        PyErr_Format(PyExc_TypeError,
                     "rewrap_dlpack(capsule, dl_device, versioned, read_only) takes 4 arguments "
                     "(%zd given)",
                     nargs);
        return NULL;
    }
    PyObject *capsule = args[0], *dl_obj = args[1];
    int versioned = PyObject_IsTrue(args[2]), read_only = PyObject_IsTrue(args[3]);
    if (versioned < 0 || read_only < 0)
        return NULL;
    if (!PyCapsule_CheckExact(capsule)) {
        PyErr_Format(PyExc_TypeError, "rewrap_dlpack: capsule must be a capsule, not %.100s",
                     Py_TYPE(capsule)->tp_name);
        return NULL;
    }
    int64_t dl[2];
    if (pjpy_int_pair(dl_obj, "rewrap_dlpack: dl_device", pjpy_dl_device_range, PyExc_OverflowError,
                      dl) < 0)
        return NULL;
    if (!PyCapsule_IsValid(capsule, external_legacy_name)) {
        PyErr_Format(PyExc_ValueError,
                     "rewrap_dlpack: not an unconsumed legacy DLPack capsule (name '%s')",
                     PyCapsule_GetName(capsule) ? PyCapsule_GetName(capsule) : "NULL");
        return NULL;
    }
    const DLTensor *t =
        &((DLManagedTensor *)PyCapsule_GetPointer(capsule, external_legacy_name))->dl_tensor;
    if ((int64_t)t->device.device_type != dl[0] || (int64_t)t->device.device_id != dl[1] ||
        t->ndim < 0 || t->ndim > EXTERNAL_MAX_NDIM || (t->ndim > 0 && t->shape == NULL) ||
        t->dtype.lanes != 1 || t->dtype.bits == 0 || t->dtype.bits % 8 != 0 || !compact_strides(t))
        Py_RETURN_NONE;
    if (!versioned)
        return Py_NewRef(capsule);
    return external_capsule(t, capsule, 1, read_only, 0);
}

/* Client.dlpack_strides(capsule) (a static method): (address of the first
 * element, element strides) of an unconsumed legacy DLPack capsule's
 * tensor, or None when the strides are compact row-major, or the tensor has
 * no elements, or the capsule is no such capsule (its consumer then says
 * what is wrong). pjrt_dlpack.jax checks JAX's import of a tensor against
 * them: JAX 0.6.1 to 0.7.1 lay a strided tensor out row-major over its
 * memory, wrong values without a word. */
static PyObject *client_dlpack_strides(PyObject *unused, PyObject *capsule) {
    (void)unused;
    if (!PyCapsule_IsValid(capsule, external_legacy_name))
        Py_RETURN_NONE;
    const DLTensor *t =
        &((DLManagedTensor *)PyCapsule_GetPointer(capsule, external_legacy_name))->dl_tensor;
    if (t->strides == NULL || t->ndim <= 0 || t->ndim > EXTERNAL_MAX_NDIM || t->shape == NULL)
        Py_RETURN_NONE;
    int64_t expect = 1;
    int row_major = 1;
    for (int32_t i = t->ndim - 1; i >= 0; i--) {
        if (t->shape[i] == 0)
            Py_RETURN_NONE;
        if (t->shape[i] != 1 && t->strides[i] != expect)
            row_major = 0;
        if (__builtin_mul_overflow(expect, t->shape[i], &expect))
            row_major = 0;
    }
    if (row_major)
        Py_RETURN_NONE;
    PyObject *strides = PyTuple_New(t->ndim);
    for (int32_t i = 0; strides != NULL && i < t->ndim; i++) {
        PyObject *v = PyLong_FromLongLong(t->strides[i]);
        if (v == NULL)
            Py_CLEAR(strides);
        else
            PyTuple_SET_ITEM(strides, i, v);
    }
    if (strides == NULL)
        return NULL;
    uintptr_t first =
        (uintptr_t)t->data + (uintptr_t)t->byte_offset; /* an address, not a pointer */
    return Py_BuildValue("(KN)", (unsigned long long)first, strides);
}

static PyMethodDef client_methods[] = {
    {"buffer", (PyCFunction)(void (*)(void))client_buffer, METH_VARARGS | METH_KEYWORDS,
     "buffer(obj, device=None) -> Buffer\n\nCopies an object with the buffer protocol (a "
     "NumPy array, bytes, memoryview, array.array, ...) to a new device buffer, honouring its "
     "strides. `device` is a Device or Memory of this client; None means the first device."},
    {"from_dlpack", (PyCFunction)(void (*)(void))client_from_dlpack, METH_FASTCALL | METH_KEYWORDS,
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
    {"wrap", client_wrap, METH_VARARGS | METH_STATIC,
     "wrap(plugin, address) -> Client\n\nA Client on a PJRT client that a framework created "
     "with `plugin` (JAX: Client.unsafe_client_pointer). It is never destroyed here: keep its "
     "owner alive while this Client and its buffers live."},
    {"platform_dl_device", client_platform_dl_device, METH_VARARGS | METH_STATIC,
     "platform_dl_device(platform, memory_kind, hardware_id) -> (device_type, device_id)\n\n"
     "The DLDevice of data on a device of `platform` in memory of kind `memory_kind` (None: "
     "device memory), by the library's platform registry."},
    {"external_dlpack", (PyCFunction)(void (*)(void))client_external_dlpack,
     METH_VARARGS | METH_KEYWORDS | METH_STATIC,
     "external_dlpack(data, shape, dtype, strides, dl_device, owner, *, versioned=False, "
     "read_only=False, copied=False) -> capsule\n\nA DLPack capsule for memory at address "
     "`data` that `owner` keeps alive until the consumer's deleter runs (from any thread). "
     "`dtype` is NumPy's name, `strides` in elements or None. Unchecked: for producers that "
     "know their memory."},
    {"dlpack_strides", client_dlpack_strides, METH_O | METH_STATIC,
     "dlpack_strides(capsule) -> (address, strides) | None\n\nThe first element's address "
     "and the element strides of an unconsumed legacy DLPack capsule's tensor; None when the "
     "strides are compact row-major, the tensor is empty, or the capsule is not one."},
    {"rewrap_dlpack", (PyCFunction)(void (*)(void))client_rewrap_dlpack,
     METH_FASTCALL | METH_STATIC,
     "rewrap_dlpack(capsule, dl_device, versioned, read_only) -> capsule or "
     "None\n\nAnother producer's unconsumed legacy capsule as this module hands tensors out: "
     "itself, or (versioned) a versioned capsule of the same tensor that keeps it alive. None "
     "when the tensor is on another DLDevice than `dl_device`, of a sub-byte or multi-lane "
     "dtype, or not compact."},
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
