/*
 * from_dlpack.c — the consumer side: Client.from_dlpack and the module-level
 * from_dlpack. Takes a tensor from the producer's DLPack C exchange API when
 * its type publishes one (no capsule, no Python call), else a capsule from
 * the producer's __dlpack__ (or a capsule given directly), hands the tensor
 * to pjdl_import, and marks the capsule used.
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
    void *orig;                      /* the producer's tensor, and its deleter: */
    void (*versioned_deleter)(DLManagedTensorVersioned *);
    void (*legacy_deleter)(DLManagedTensor *);
} import_guard;

/* A guard kept for the next import, saving a malloc and free pair per
 * import. Guarded by the GIL: guard_new, guard_recycle and guard_run run
 * with it (the module has one GIL in every interpreter that can import
 * it), guard_drop (without it) frees. */
static import_guard *spare_guard;

static void guard_recycle(import_guard *g) {
    if (spare_guard == NULL)
        spare_guard = g;
    else
        free(g);
}

/* Calls the producer's deleter, read when the import started (as the
 * library does: the producer's tensor is not read again). */
static void guard_run(void *arg) {
    import_guard *g = arg;
    if (g->versioned_deleter != NULL)
        g->versioned_deleter(g->orig);
    else if (g->legacy_deleter != NULL)
        g->legacy_deleter(g->orig);
    guard_recycle(g);
}

/* Python is gone or going: the producer's deleter may need it, so the
 * producer's tensor is leaked. */
static void guard_drop(void *arg) {
    free(arg);
}

static void guard_deleter(DLManagedTensorVersioned *self) {
    pjpy_call_with_gil(guard_run, guard_drop, self->manager_ctx);
}

/* A guard for the producer's tensor. One without a deleter gets a guard
 * without one: the library then completes a copy before returning, never
 * reads the tensor afterwards, and calls nothing back; the guard is the
 * importer's to recycle once the import call returns. */
static import_guard *guard_new(void *tensor, int versioned) {
    /* malloc, not calloc: every field is written below, and glibc's calloc
     * bypasses the thread cache. */
    import_guard *g = spare_guard;
    spare_guard = NULL;
    if (g == NULL && (g = malloc(sizeof *g)) == NULL) {
        PyErr_NoMemory();
        return NULL;
    }
    g->orig = tensor;
    if (versioned) {
        DLManagedTensorVersioned *v = tensor;
        g->versioned_deleter = v->deleter;
        g->legacy_deleter = NULL;
        g->tensor = *v;
    } else {
        DLManagedTensor *l = tensor;
        g->versioned_deleter = NULL;
        g->legacy_deleter = l->deleter;
        g->tensor.version.major = 1;
        g->tensor.version.minor = 0;
        g->tensor.flags = 0;
        g->tensor.dl_tensor = l->dl_tensor;
    }
    g->tensor.manager_ctx = g;
    g->tensor.deleter =
        g->versioned_deleter != NULL || g->legacy_deleter != NULL ? guard_deleter : NULL;
    return g;
}

/* Names used on every import, interned once so that attribute lookups and
 * keyword matching find them by address. */
enum {
    NAME_DLPACK,
    NAME_DLPACK_DEVICE,
    NAME_EXCHANGE_API,
    NAME_STREAM,
    NAME_MAX_VERSION,
    NAME_DL_DEVICE,
    NAME_COPY,
    NAME_TORCH,
    NAME_STRIDED,
    NAME_LAYOUT,
    NAME_REQUIRES_GRAD,
    NAME_IS_QUANTIZED,
    NAME_IS_CONJ,
    NAME_IS_NEG,
    NAME_COUNT
};
static const char *const name_text[NAME_COUNT] = {"__dlpack__",
                                                  "__dlpack_device__",
                                                  "__dlpack_c_exchange_api__",
                                                  "stream",
                                                  "max_version",
                                                  "dl_device",
                                                  "copy",
                                                  "torch",
                                                  "strided",
                                                  "layout",
                                                  "requires_grad",
                                                  "is_quantized",
                                                  "is_conj",
                                                  "is_neg"};
static PyObject *names[NAME_COUNT];
/* (DLPACK_MAJOR_VERSION, DLPACK_MINOR_VERSION), the max_version we ask for. */
static PyObject *our_version;

static int names_ready(void) {
    if (our_version != NULL)
        return 0;
    for (int i = 0; i < NAME_COUNT; i++) {
        if (names[i] == NULL) {
            names[i] = PyUnicode_InternFromString(name_text[i]);
            if (names[i] == NULL)
                return -1;
        }
    }
    our_version = Py_BuildValue("(ii)", DLPACK_MAJOR_VERSION, DLPACK_MINOR_VERSION);
    return our_version == NULL ? -1 : 0;
}

/* Whether x is exactly a NumPy array (not a subclass, which may override
 * __dlpack_device__): NumPy's static type, found by name once and then by
 * address (an extension's static type lives as long as the process). */
static int is_numpy_array(PyObject *x) {
    static PyTypeObject *ndarray;
    PyTypeObject *tp = Py_TYPE(x);
    if (tp == ndarray)
        return 1;
    if (ndarray != NULL || PyType_HasFeature(tp, Py_TPFLAGS_HEAPTYPE) ||
        strcmp(tp->tp_name, "numpy.ndarray") != 0)
        return 0;
    ndarray = tp;
    return 1;
}

/* NumPy's ndarray.__dlpack__ (a method descriptor) when x is exactly a
 * NumPy array, else NULL. Looked up once: ndarray is a static type, whose
 * attributes Python code cannot change, and an ndarray has no instance
 * dictionary to override it, so calling the descriptor is what
 * x.__dlpack__(...) does, without the method lookup. */
static PyObject *numpy_dlpack(PyObject *x, PyObject *name) {
    static PyObject *method;
    static int looked_up;
    if (!is_numpy_array(x))
        return NULL;
    if (!looked_up) {
        looked_up = 1;
        PyObject *m = PyObject_GetAttr((PyObject *)Py_TYPE(x), name);
        if (m != NULL && Py_IS_TYPE(m, &PyMethodDescr_Type))
            method = m; /* kept for the life of the process */
        else
            Py_XDECREF(m);
        PyErr_Clear();
    }
    return method;
}

/* Calls x.<name>(**kw) with keyword values at args[2...] named by `kwnames`
 * (NULL: none) as a vectorcall: no bound method, dict or argument tuple is
 * built. args[0] and args[1] are this function's (the vectorcall's spare
 * slot and x), so that the values are not copied. When x has no such
 * attribute (rather than the method raising AttributeError itself),
 * *missing is set and NULL returned with the error cleared. */
static PyObject *call_method(PyObject *x, PyObject *name, PyObject **args, PyObject *kwnames,
                             int *missing) {
    args[1] = x;
    *missing = 0;
    PyObject *method = name == names[NAME_DLPACK] ? numpy_dlpack(x, name) : NULL;
    PyObject *r =
        method != NULL
            ? PyObject_Vectorcall(method, args + 1, 1 | PY_VECTORCALL_ARGUMENTS_OFFSET, kwnames)
            : PyObject_VectorcallMethod(name, args + 1, 1 | PY_VECTORCALL_ARGUMENTS_OFFSET,
                                        kwnames);
    if (r == NULL && PyErr_ExceptionMatches(PyExc_AttributeError)) {
        PyObject *type, *value, *tb;
        PyErr_Fetch(&type, &value, &tb);
        int has = PyObject_HasAttr(x, name);
        if (has) {
            PyErr_Restore(type, value, tb);
        } else {
            Py_XDECREF(type);
            Py_XDECREF(value);
            Py_XDECREF(tb);
            *missing = 1;
        }
    }
    return r;
}

/* Calls x.__dlpack__, first as an array API 2023.12 consumer (max_version;
 * copy=False for `copy` NEVER, copy=True for ALWAYS, nothing for IF_NEEDED;
 * and dl_device when the data should come to the host from a device only
 * the producer can read), then, for producers that do not know those
 * keywords (NumPy 1.24, PyTorch 1.13), without them: *plain is then set. */
static PyObject *request_capsule(PyObject *x, pjdl_copy copy, PyObject *stream_obj,
                                 const DLDevice *dl_device, int *plain) {
    *plain = 0;
    if (names_ready() < 0)
        return NULL;
    PyObject *args[2 + 4], **values = args + 2, *keys[4];
    Py_ssize_t n = 0;
    PyObject *dev = NULL, *kwnames = NULL, *capsule = NULL;
    int missing = 0, has_stream = stream_obj != NULL;
    if (has_stream) {
        keys[n] = names[NAME_STREAM];
        values[n++] = stream_obj;
    }
    keys[n] = names[NAME_MAX_VERSION];
    values[n++] = our_version;
    if (dl_device != NULL) {
        dev = Py_BuildValue("(ii)", (int)dl_device->device_type, (int)dl_device->device_id);
        if (dev == NULL)
            goto done;
        keys[n] = names[NAME_DL_DEVICE];
        values[n++] = dev;
    }
    if (copy != PJDL_COPY_IF_NEEDED) {
        keys[n] = names[NAME_COPY];
        values[n++] = copy == PJDL_COPY_NEVER ? Py_False : Py_True;
    }
    /* The common request names max_version alone: that tuple is made once. */
    static PyObject *max_version_only;
    if (n == 1 && keys[0] == names[NAME_MAX_VERSION]) {
        if (max_version_only == NULL && (max_version_only = PyTuple_Pack(1, keys[0])) == NULL)
            goto done;
        kwnames = Py_NewRef(max_version_only);
    } else {
        kwnames = PyTuple_New(n);
        if (kwnames == NULL)
            goto done;
        for (Py_ssize_t i = 0; i < n; i++)
            PyTuple_SET_ITEM(kwnames, i, Py_NewRef(keys[i]));
    }
    capsule = call_method(x, names[NAME_DLPACK], args, kwnames, &missing);
    if (capsule == NULL && !missing && PyErr_ExceptionMatches(PyExc_TypeError)) {
        PyErr_Clear();
        *plain = 1;
        PyObject *legacy_names = NULL;
        if (has_stream && (legacy_names = PyTuple_Pack(1, names[NAME_STREAM])) == NULL)
            goto done;
        capsule = call_method(x, names[NAME_DLPACK], args, legacy_names, &missing);
        Py_XDECREF(legacy_names);
    }
    if (missing)
        PyErr_Format(pjpy_not_dlpack_error,
                     "from_dlpack: %.100s object has no __dlpack__ method and is not a DLPack "
                     "capsule",
                     Py_TYPE(x)->tp_name);
done:
    Py_XDECREF(kwnames);
    Py_XDECREF(dev);
    return capsule;
}

/* The producer's x.__dlpack_device__(). Returns 1 with *dl set, 0 when x has
 * no such method, -1 on error. A NumPy array's is always (kDLCPU, 0): it is
 * not asked. */
static int producer_device(PyObject *x, DLDevice *dl) {
    if (is_numpy_array(x)) {
        *dl = (DLDevice){kDLCPU, 0};
        return 1;
    }
    if (names_ready() < 0)
        return -1;
    int missing = 0;
    PyObject *args[2];
    PyObject *dev = call_method(x, names[NAME_DLPACK_DEVICE], args, NULL, &missing);
    if (dev == NULL)
        return missing ? 0 : -1;
    int64_t pair[2];
    int rc =
        pjpy_int_pair(dev, "__dlpack_device__()", pjpy_dl_device_range, pjpy_dlpack_error, pair);
    Py_DECREF(dev);
    if (rc < 0)
        return -1;
    dl->device_type = (DLDeviceType)pair[0];
    dl->device_id = (int32_t)pair[1];
    return 1;
}

/* ------------------------------------------------- the C exchange API */

/* What is known of a producer type: the exchange table its instances may be
 * taken through (NULL: none, or none that answers as its __dlpack__ does),
 * and whether it is PyTorch's Tensor or a subclass that keeps its
 * __torch_function__, whose tensors get the checks of torch_tensor_kind (a
 * subclass with its own, such as ReadOnlyTensorWrapper, would run it on
 * every attribute read: it is taken through its __dlpack__ alone). */
typedef struct {
    const DLPackExchangeAPI *api;
    int torch;
} producer_info;

/* The producer facts of recently seen types, so that an import does not
 * look them up each time, as the DLPack header suggests. An entry is
 * trusted only while the type's version tag is the one it had: CPython
 * changes the tag whenever an attribute of the type (or of a base)
 * changes, and never gives a tag to two types of one tag space
 * (tag_space), so a freed type whose address is reused cannot match
 * either. */
typedef struct {
    PyTypeObject *type;
    unsigned int tag;
    int64_t space;
    producer_info info;
} api_cache_entry;
enum { API_CACHE_SIZE = 8 };
static api_cache_entry api_cache[API_CACHE_SIZE]; /* guarded by the GIL */
static unsigned int api_cache_next;

/* Where version tags are unique. Up to CPython 3.11 one counter numbers
 * every type of the process. From 3.12 each interpreter numbers its heap
 * types itself, so two subinterpreters can give one tag to two types, one
 * of which may take the address of the other once it is freed: the tags of
 * the calling interpreter, whose id CPython never reuses. */
static int64_t tag_space(void) {
#if PY_VERSION_HEX >= 0x030C0000
    return PyInterpreterState_GetID(PyInterpreterState_Get());
#else
    return 0;
#endif
}

static int type_tag_valid(PyTypeObject *tp) {
#ifdef Py_TPFLAGS_VALID_VERSION_TAG
    if (!PyType_HasFeature(tp, Py_TPFLAGS_VALID_VERSION_TAG))
        return 0;
#endif
    return tp->tp_version_tag != 0;
}

/* The usable table of a capsule: the first of the chain (newest first) of
 * our major version and of minor 2 or later (the API appeared in 1.2), with
 * the function we call; NULL if none. */
static const DLPackExchangeAPI *usable_api(PyObject *capsule) {
    if (!PyCapsule_IsValid(capsule, "dlpack_exchange_api"))
        return NULL;
    const DLPackExchangeAPIHeader *h = PyCapsule_GetPointer(capsule, "dlpack_exchange_api");
    /* The chain is the producer's; a bound keeps a malformed one finite. */
    for (int depth = 0; h != NULL && depth < 16; depth++, h = h->prev_api) {
        if (h->version.major != DLPACK_MAJOR_VERSION)
            continue;
        const DLPackExchangeAPI *api = (const DLPackExchangeAPI *)h;
        if (h->version.minor < 2 || api->managed_tensor_from_py_object_no_sync == NULL)
            return NULL;
        return api;
    }
    return NULL;
}

/* The type in tp's method resolution order whose own dictionary defines
 * `name` (a borrowed reference), or NULL. */
static PyTypeObject *defining_type(PyTypeObject *tp, const char *name) {
    PyObject *mro = tp->tp_mro;
    for (Py_ssize_t i = 0; mro != NULL && i < PyTuple_GET_SIZE(mro); i++) {
        PyTypeObject *base = (PyTypeObject *)PyTuple_GET_ITEM(mro, i);
        if (base->tp_dict != NULL && PyDict_GetItemString(base->tp_dict, name) != NULL)
            return base;
    }
    return NULL;
}

/* PyTorch's Tensor when `tp` is it or derives from it (by name: the module
 * never imports torch), else NULL. */
static PyTypeObject *torch_tensor_base(PyTypeObject *tp) {
    PyObject *mro = tp->tp_mro;
    for (Py_ssize_t i = 0; mro != NULL && i < PyTuple_GET_SIZE(mro); i++) {
        PyTypeObject *base = (PyTypeObject *)PyTuple_GET_ITEM(mro, i);
        PyObject *module = base->tp_dict ? PyDict_GetItemString(base->tp_dict, "__module__") : NULL;
        if (strcmp(base->tp_name, "Tensor") == 0 && module != NULL && PyUnicode_Check(module) &&
            PyUnicode_CompareWithASCIIString(module, "torch") == 0)
            return base;
    }
    return NULL;
}

/* Whether instances of tp answer the exchange table's calls as their own
 * __dlpack__ would: tp must not redefine what the type that published the
 * table defines for the protocol (a subclass's __dlpack__, or PyTorch's
 * __torch_function__ through which Tensor.__dlpack__ runs a subclass's
 * code); such a subclass is taken through its __dlpack__. */
static int table_is_faithful(PyTypeObject *tp) {
    PyTypeObject *publisher = defining_type(tp, "__dlpack_c_exchange_api__");
    static const char *const protocol[] = {"__dlpack__", "__dlpack_device__", "__torch_function__"};
    for (size_t i = 0; publisher != NULL && i < sizeof protocol / sizeof protocol[0]; i++)
        if (defining_type(tp, protocol[i]) != defining_type(publisher, protocol[i]))
            return 0;
    return publisher != NULL;
}

/* Looks up what producer_info says of tp (not cached). 0, or -1 with an
 * exception set. */
static int producer_info_of_type(PyTypeObject *tp, producer_info *info) {
    info->api = NULL;
    PyTypeObject *torch = torch_tensor_base(tp);
    info->torch = torch != NULL && defining_type(tp, "__torch_function__") ==
                                       defining_type(torch, "__torch_function__");
    /* On the type, not the instance: the attribute belongs to the type. */
    PyObject *capsule = PyObject_GetAttr((PyObject *)tp, names[NAME_EXCHANGE_API]);
    if (capsule == NULL) {
        if (!PyErr_ExceptionMatches(PyExc_AttributeError))
            return -1;
        PyErr_Clear();
        return 0;
    }
    const DLPackExchangeAPI *api = usable_api(capsule);
    Py_DECREF(capsule);
    if (api != NULL && (pjpy_exchange_api_is_ours(api) ||
                        (table_is_faithful(tp) && (torch == NULL || info->torch))))
        info->api = api;
    return 0;
}

/* Sets *info for x's type. 0, or -1 with an exception set. */
static int producer_info_of(PyObject *x, producer_info *info) {
    PyTypeObject *tp = Py_TYPE(x);
    /* NumPy's array type is static, its attributes fixed for the life of
     * the process: its facts are looked up once, not in the cache. */
    static producer_info numpy_info;
    static int numpy_known;
    if (numpy_known && is_numpy_array(x)) {
        *info = numpy_info;
        return 0;
    }
    if (!numpy_known && is_numpy_array(x)) {
        if (names_ready() < 0 || producer_info_of_type(tp, &numpy_info) < 0)
            return -1;
        numpy_known = 1;
        *info = numpy_info;
        return 0;
    }
    int64_t space = tag_space();
    if (type_tag_valid(tp)) {
        for (int i = 0; i < API_CACHE_SIZE; i++) {
            if (api_cache[i].type == tp && api_cache[i].tag == tp->tp_version_tag &&
                api_cache[i].space == space) {
                *info = api_cache[i].info;
                return 0;
            }
        }
    }
    if (names_ready() < 0 || producer_info_of_type(tp, info) < 0)
        return -1;
    /* The lookup gave the type a version tag if it can have one. */
    if (type_tag_valid(tp)) {
        api_cache_entry *e = &api_cache[api_cache_next++ % API_CACHE_SIZE];
        e->type = tp;
        e->tag = tp->tp_version_tag;
        e->space = space;
        e->info = *info;
    }
    return 0;
}

/* What a PyTorch tensor is to DLPack. */
enum { TORCH_PLAIN, TORCH_REFUSED_BY_DLPACK, TORCH_NEGATIVE, TORCH_ERROR = -1 };

/* The truth of x.<names[name]> (a method called when `call`). 1, 0, or -1. */
static int torch_flag(PyObject *x, int name, int call) {
    PyObject *v =
        call ? PyObject_CallMethodNoArgs(x, names[name]) : PyObject_GetAttr(x, names[name]);
    if (v == NULL)
        return -1;
    int truth = PyObject_IsTrue(v);
    Py_DECREF(v);
    return truth;
}

/* Tensor.__dlpack__ refuses a tensor that requires grad, one with the
 * conjugate bit, a layout other than strided and a quantized one with a
 * BufferError; PyTorch's exchange table checks none of them (it exported
 * torch.conj(x) un-conjugated). Such a tensor is taken through __dlpack__,
 * which raises the producer's own refusal (TORCH_REFUSED_BY_DLPACK). A
 * negative view (the negative bit) is exported by both as its memory,
 * which holds the values negated: refused here (TORCH_NEGATIVE). */
static int torch_tensor_kind(PyObject *x) {
    static const struct {
        int name, call;
    } refusals[] = {{NAME_REQUIRES_GRAD, 0}, {NAME_IS_QUANTIZED, 0}, {NAME_IS_CONJ, 1}};
    if (names_ready() < 0)
        return TORCH_ERROR;
    for (size_t i = 0; i < sizeof refusals / sizeof refusals[0]; i++) {
        int on = torch_flag(x, refusals[i].name, refusals[i].call);
        if (on != 0)
            return on < 0 ? TORCH_ERROR : TORCH_REFUSED_BY_DLPACK;
    }
    /* torch.strided, from the torch module the tensor's type comes from
     * (looked up each time: the module may run in several interpreters). */
    PyObject *torch = PyImport_GetModule(names[NAME_TORCH]);
    PyObject *strided = torch ? PyObject_GetAttr(torch, names[NAME_STRIDED]) : NULL;
    PyObject *layout = strided ? PyObject_GetAttr(x, names[NAME_LAYOUT]) : NULL;
    Py_XDECREF(torch);
    int kind = layout == NULL      ? TORCH_ERROR
               : layout != strided ? TORCH_REFUSED_BY_DLPACK
                                   : TORCH_PLAIN;
    Py_XDECREF(layout);
    Py_XDECREF(strided);
    if (kind == TORCH_ERROR && !PyErr_Occurred())
        PyErr_SetString(pjpy_dlpack_error, "from_dlpack: a torch.Tensor, but no torch module");
    if (kind != TORCH_PLAIN)
        return kind;
    int neg = torch_flag(x, NAME_IS_NEG, 1);
    return neg < 0 ? TORCH_ERROR : neg ? TORCH_NEGATIVE : TORCH_PLAIN;
}

static void call_deleter(void *tensor) {
    DLManagedTensorVersioned *t = tensor;
    t->deleter(t);
}

/* Calls the deleter of a tensor this module owns and will not use, keeping
 * any exception being raised. Needs the GIL (the producer's deleter may). */
static void delete_owned(DLManagedTensorVersioned *t) {
    if (t->deleter != NULL)
        pjpy_run_keeping_error(call_deleter, t);
}

/* What one from_dlpack call asks for: the clients that may take the data
 * (device='s alone when it is given), the import options, and where the data
 * should land. Lives on the caller's stack: its pointers may point into it. */
typedef struct {
    pjpy_client *const *clients;
    size_t num_clients;
    pjpy_client *owner; /* device='s client */
    pjdl_import_options opts;
    DLDevice target_dl;
    const DLDevice *target; /* &target_dl when device= is given, else NULL */
} import_request;

static void raise_move_needs_copy(const char *what, DLDevice src, DLDevice target) {
    PyErr_Format(pjpy_dlpack_copy_error,
                 "from_dlpack: the %s is on DLPack device (%d, %d) and device= is (%d, %d): "
                 "that needs a copy, but copy=False",
                 what, (int)src.device_type, (int)src.device_id, (int)target.device_type,
                 (int)target.device_id);
}

/* Whether data at src gets to *target (NULL: it stays) only through a copy
 * the producer makes: memory the host cannot read (another framework's
 * device) wanted on the host. Only __dlpack__(dl_device=) asks for that. */
static int needs_producer_copy(DLDevice src, const DLDevice *target) {
    return target != NULL && !pjdl_dl_device_same(src, *target) &&
           pjdl_dl_device_type_host_reachable(target->device_type) &&
           !pjdl_dl_device_type_host_reachable(src.device_type);
}

/* Whether a copy (copy=True) of data at src, staying on its device, can
 * only be the producer's: memory the host cannot read, which the library
 * views but cannot copy. __dlpack__(copy=True) asks for it. */
static int needs_producer_device_copy(DLDevice src, const import_request *req) {
    return req->opts.copy == PJDL_COPY_ALWAYS && !needs_producer_copy(src, req->target) &&
           !pjdl_dl_device_type_host_reachable(src.device_type);
}

/* The checks on a tensor before its import: a DLPack version this module
 * reads and, under copy=False, neither a move to device= nor a copy made by
 * the producer. `versioned` is the tensor when it is versioned, else NULL.
 * 0, or -1 with an exception set. */
static int check_tensor(const DLManagedTensorVersioned *versioned, const DLTensor *dlt,
                        const import_request *req) {
    if (versioned != NULL && versioned->version.major != DLPACK_MAJOR_VERSION) {
        PyErr_Format(pjpy_dlpack_error,
                     "from_dlpack: unsupported DLPack version %u.%u (this module reads %d.x)",
                     versioned->version.major, versioned->version.minor, DLPACK_MAJOR_VERSION);
        return -1;
    }
    if (req->opts.copy != PJDL_COPY_NEVER)
        return 0;
    if (req->target != NULL && !pjdl_dl_device_same(dlt->device, *req->target)) {
        raise_move_needs_copy("tensor", dlt->device, *req->target);
        return -1;
    }
    if (versioned != NULL && (versioned->flags & DLPACK_FLAG_BITMASK_IS_COPIED)) {
        PyErr_SetString(pjpy_dlpack_copy_error,
                        "from_dlpack: copy=False, but the producer exported a copy");
        return -1;
    }
    return 0;
}

/* What consumer_stream found. */
enum { STREAM_NONE, STREAM_ONE, STREAM_AMBIGUOUS };

/* For a producer on a device with streams that `clients` drive: the stream
 * the producer should order its work before (the device's stream), when
 * every client that has the DLDevice has that same stream: STREAM_ONE with
 * *stream set. STREAM_NONE: host memory, or no client's device has a
 * stream. STREAM_AMBIGUOUS: several clients have the DLDevice with
 * different streams (two clients of one plugin): which one holds the
 * memory, and so whose stream to name, only an import can tell
 * (from_each_client). */
static int consumer_stream(DLDevice dl, pjpy_client *const *clients, size_t n, long long *stream) {
    if (pjdl_dl_device_type_host_reachable(dl.device_type))
        return STREAM_NONE;
    int found = STREAM_NONE, seen = 0;
    for (size_t i = 0; i < n; i++) {
        pjdl_device *device = NULL;
        if (pjdl_client_find_dl(clients[i]->client, dl, &device, NULL) != PJDL_OK)
            continue;
        intptr_t s = 0;
        int has = pjdl_device_stream(device, &s) == PJDL_OK;
        if (seen && (has != (found == STREAM_ONE) || (has && (long long)s != *stream)))
            return STREAM_AMBIGUOUS;
        seen = 1;
        if (has) {
            found = STREAM_ONE;
            *stream = (long long)s;
        }
    }
    return found;
}

/* No-sync export: the data is ready on the producer's current stream, and
 * ordering the import after it is the consumer's job. The view can name
 * one stream (CreateViewOfDeviceBuffer's), but where the device has a
 * stream of its own the plugin takes no other there (XLA's CUDA plugin:
 * "Only GPU streams used for dlpack imports are supported"; the reference
 * plugin: only its own streams), and a NULL current stream (CUDA's legacy
 * default stream) orders nothing against the plugin's. Then the capsule
 * protocol orders it: __dlpack__(stream=) has the producer order its work
 * before the device's stream (capsule_from_producer). Host memory has no
 * stream, and neither has an export of our own table: it is ready when
 * handed out, and a stream of ours would be one client's, maybe not the
 * one the import targets. 0 (req->opts set), 1 (take the capsule protocol
 * instead), or -1 with an exception set. */
static int take_producer_stream(const DLPackExchangeAPI *api, DLDevice src, import_request *req) {
    if (pjdl_dl_device_type_host_reachable(src.device_type) || api == NULL ||
        api->current_work_stream == NULL || pjpy_exchange_api_is_ours(api))
        return 0;
    void *stream = NULL;
    if (api->current_work_stream(src.device_type, src.device_id, &stream) != 0) {
        if (!PyErr_Occurred())
            PyErr_SetString(pjpy_dlpack_error,
                            "from_dlpack: the producer's current_work_stream failed");
        return -1;
    }
    long long own = 0;
    int ours = consumer_stream(src, req->clients, req->num_clients, &own);
    if (ours == STREAM_AMBIGUOUS || (ours == STREAM_ONE && (intptr_t)own != (intptr_t)stream))
        return 1;
    if (stream != NULL) {
        req->opts.has_stream = true;
        req->opts.stream = (intptr_t)stream;
    }
    return 0;
}

/* The import of a tensor this module owns, from a producer's exchange table
 * `api` (NULL: read by the module itself, pjpy_numpy_tensor): every way out
 * deletes t or hands it to the import. Sets *fallback (and returns NULL
 * with no exception) when only the capsule protocol can do the job (see
 * needs_producer_copy and take_producer_stream). A move that needs the
 * producer's copy is refused by check_tensor under copy=False, so the order
 * of the two does not matter. */
static PyObject *import_exchanged(const DLPackExchangeAPI *api, DLManagedTensorVersioned *t,
                                  import_request *req, int *fallback) {
    *fallback = 0;
    PyObject *buffer = NULL;
    if (check_tensor(t, &t->dl_tensor, req) == 0) {
        DLDevice src = t->dl_tensor.device;
        int capsule = needs_producer_copy(src, req->target) || needs_producer_device_copy(src, req)
                          ? 1
                          : take_producer_stream(api, src, req);
        if (capsule == 1)
            *fallback = 1;
        else if (capsule == 0)
            buffer = pjpy_import_owned(req->clients, req->num_clients, t, &req->opts);
    }
    if (buffer == NULL)
        delete_owned(t);
    return buffer;
}

/* The import through a producer's exchange table (see import_exchanged). */
static PyObject *from_exchange_api(const DLPackExchangeAPI *api, PyObject *x, import_request *req,
                                   int *fallback) {
    *fallback = 0;
    DLManagedTensorVersioned *t = NULL;
    int rc = api->managed_tensor_from_py_object_no_sync(x, &t);
    if (rc != 0 || t == NULL) {
        /* A failed call hands nothing over, whatever it left in t: the
         * exchange API's out-parameter is the caller's only on success. */
        if (!PyErr_Occurred())
            PyErr_Format(pjpy_dlpack_error,
                         "from_dlpack: the exchange API of %.100s failed without saying why",
                         Py_TYPE(x)->tp_name);
        return NULL;
    }
    return import_exchanged(api, t, req, fallback);
}

/* ----------------------------------------------------------- imports */

/* Whether an import may try a view with the GIL kept: one candidate
 * client, whose plugin never blocks in a view or a destroy (sync_views),
 * memory of the host (kDLCPU: no stream, no device to wait for), and copies
 * allowed or not: the try itself never copies (copy=NEVER). Anything a copy
 * would do (a memcpy of any size, a transfer to a device) runs without the
 * GIL, after the try has failed. */
static int view_keeps_gil(pjpy_client *const *clients, size_t num_clients, const DLTensor *t,
                          const pjdl_import_options *opts) {
    return num_clients == 1 && clients[0]->sync_views && t->device.device_type == kDLCPU &&
           !opts->has_stream && opts->copy != PJDL_COPY_ALWAYS;
}

/* pjdl_import, with the GIL kept for a view that cannot block
 * (view_keeps_gil), released otherwise. A view tried and refused (the data
 * needs a copy) is imported again without the GIL under the caller's
 * options: the library did not take the tensor. */
static pjdl_code import_call(pjpy_client *const *clients, pjdl_client *const *lib_clients,
                             size_t num_clients, DLManagedTensorVersioned *tensor,
                             const pjdl_import_options *opts, pjdl_buffer **out) {
    pjdl_code rc;
    if (view_keeps_gil(clients, num_clients, &tensor->dl_tensor, opts)) {
        pjdl_import_options view = *opts;
        view.copy = PJDL_COPY_NEVER;
        PJPY_CALL_RC(1, rc, pjdl_import(lib_clients, num_clients, tensor, &view, out));
        if (rc == PJDL_OK || opts->copy == PJDL_COPY_NEVER)
            return rc;
    }
    PJPY_NOGIL_RC(rc, pjdl_import(lib_clients, num_clients, tensor, opts, out));
    return rc;
}

enum { LIB_CLIENTS_ON_STACK = 8 };

/* The library's clients of `clients`: for one, its own field (the common
 * call), else copied into `stack` (LIB_CLIENTS_ON_STACK entries) or, for
 * more (the module-level from_dlpack may pass any number), into a PyMem
 * array the caller frees. NULL: no memory. */
static pjdl_client **lib_clients_of(pjpy_client *const *clients, size_t n, pjdl_client **stack) {
    if (n == 1)
        return &clients[0]->client;
    pjdl_client **out = n > LIB_CLIENTS_ON_STACK ? PyMem_Malloc(n * sizeof *out) : stack;
    for (size_t i = 0; out != NULL && i < n; i++)
        out[i] = clients[i]->client;
    return out;
}

/* The import proper, of a versioned or legacy tensor the caller owns; see
 * pjpy_import_owned. */
static PyObject *import_tensor(pjpy_client *const *clients, size_t num_clients, void *tensor,
                               int versioned, const pjdl_import_options *opts) {
    import_guard *guard = guard_new(tensor, versioned);
    if (guard == NULL)
        return NULL;
    pjpy_buffer *obj = pjpy_buffer_alloc();
    if (obj == NULL) {
        free(guard);
        return NULL;
    }
    pjdl_client *stack_clients[LIB_CLIENTS_ON_STACK];
    pjdl_client **lib_clients = lib_clients_of(clients, num_clients, stack_clients);
    if (lib_clients == NULL) {
        free(guard);
        Py_DECREF(obj);
        return PyErr_NoMemory();
    }
    pjdl_buffer *buffer = NULL;
    /* Read before the call: once the library has the tensor, its deleter
     * may run (and recycle the guard) before the call returns, by the time
     * this thread takes the GIL back and runs the callbacks queued for it
     * (pjpy_call_end), as a copy that completes at once does. */
    bool has_deleter = guard->tensor.deleter != NULL;
    pjdl_code rc = import_call(clients, lib_clients, num_clients, &guard->tensor, opts, &buffer);
    if (num_clients > LIB_CLIENTS_ON_STACK)
        PyMem_Free(lib_clients);
    /* Without a deleter the library is done with the guard (guard_new);
     * after a failure it never took it: the caller keeps the tensor. With
     * one, after a success, the guard is the deleter's: not touched here. */
    if (rc != PJDL_OK || !has_deleter)
        guard_recycle(guard);
    if (rc != PJDL_OK) {
        pjpy_raise_exchange(rc);
        Py_DECREF(obj);
        return NULL;
    }
    /* The buffer is one of the given clients'; they are alive. */
    const pjdl_client *owner = num_clients == 1 ? clients[0]->client : pjdl_buffer_client(buffer);
    PyObject *client_obj = NULL;
    for (size_t i = 0; i < num_clients && client_obj == NULL; i++)
        if (clients[i]->client == owner)
            client_obj = (PyObject *)clients[i];
    if (client_obj == NULL)
        client_obj = (PyObject *)pjpy_client_lookup(owner);
    pjpy_buffer_set(obj, client_obj, buffer);
    return (PyObject *)obj;
}

PyObject *pjpy_import_owned(pjpy_client *const *clients, size_t num_clients,
                            DLManagedTensorVersioned *tensor, const pjdl_import_options *opts) {
    return import_tensor(clients, num_clients, tensor, 1, opts);
}

/* Parses copy= and device= into *req, with the clients the caller gave.
 * 0, or -1 with an exception set. */
static int resolve_request(pjpy_client *const *clients, size_t num_clients, PyObject *target,
                           PyObject *copy_obj, import_request *req) {
    req->clients = clients;
    req->num_clients = num_clients;
    req->owner = NULL;
    req->opts = (pjdl_import_options)PJDL_IMPORT_OPTIONS_INIT;
    req->target = NULL;
    if (pjpy_parse_copy(copy_obj, &req->opts.copy) < 0)
        return -1;
    if (pjpy_resolve_target(target, NULL, &req->opts.device, &req->opts.memory, &req->owner) < 0)
        return -1;
    if (req->owner != NULL) {
        req->clients = &req->owner;
        req->num_clients = 1;
    }
    if (req->num_clients == 0) {
        PyErr_SetString(PyExc_ValueError,
                        "from_dlpack: no pjrt_dlpack client exists; create one with "
                        "pjrt_dlpack.load_plugin().client() or pass device=");
        return -1;
    }
    if (req->opts.device != NULL) {
        if (pjdl_device_dl(req->opts.device, req->opts.memory, &req->target_dl) != PJDL_OK) {
            pjpy_raise_exchange(PJDL_UNIMPLEMENTED);
            return -1;
        }
        req->target = &req->target_dl;
    }
    return 0;
}

/* A capsule from x.__dlpack__, negotiated from x.__dlpack_device__: a host
 * copy when only the producer can make one (to the host, or on its device
 * under copy=True), and the stream of the device the data is on when the
 * clients drive it. NULL with no exception and *ambiguous set when several
 * clients drive that device with different streams (from_each_client). */
static PyObject *capsule_from_producer(PyObject *x, import_request *req, int *ambiguous,
                                       DLDevice *src) {
    DLDevice src_dl;
    *ambiguous = 0;
    int has_src = producer_device(x, &src_dl);
    if (has_src < 0)
        return NULL;
    *src = src_dl;
    if (has_src && req->target != NULL && req->opts.copy == PJDL_COPY_NEVER &&
        !pjdl_dl_device_same(src_dl, *req->target)) {
        raise_move_needs_copy("data", src_dl, *req->target);
        return NULL;
    }
    static const DLDevice host = {kDLCPU, 0};
    const DLDevice *ask_dl = has_src && needs_producer_copy(src_dl, req->target) ? &host : NULL;
    /* A SYCL producer (dpctl, dpnp) takes its own dpctl.SyclQueue, never a
     * stream of the plugin's runtime: it is asked with that queue, which is
     * then waited for on the host, and the import names no stream (sycl.c). */
    PyObject *stream_obj = NULL;
    int on_device =
        has_src && ask_dl == NULL && !pjdl_dl_device_type_host_reachable(src_dl.device_type);
    if (on_device && pjpy_sycl_queue_of(x, &stream_obj) < 0)
        return NULL;
    PyObject *queue = stream_obj;
    long long stream = 0;
    int streams = on_device && queue == NULL
                      ? consumer_stream(src_dl, req->clients, req->num_clients, &stream)
                      : STREAM_NONE;
    if (streams == STREAM_AMBIGUOUS) {
        *ambiguous = 1;
        return NULL;
    }
    int has_stream = streams == STREAM_ONE;
    req->opts.has_stream = has_stream;
    req->opts.stream = (intptr_t)stream;
    if (has_stream == 1 && (stream_obj = PyLong_FromLongLong(stream)) == NULL)
        return NULL;
    /* copy=False is passed on, and copy=True where only the producer can
     * copy; otherwise the copy is the library's, and nothing is asked. */
    int ask_copy = has_src && needs_producer_device_copy(src_dl, req), plain;
    pjdl_copy ask =
        ask_copy ? PJDL_COPY_ALWAYS
                 : (req->opts.copy == PJDL_COPY_NEVER ? PJDL_COPY_NEVER : PJDL_COPY_IF_NEEDED);
    PyObject *capsule = request_capsule(x, ask, stream_obj, ask_dl, &plain);
    if (capsule != NULL && queue != NULL && pjpy_sycl_wait(queue) < 0)
        Py_CLEAR(capsule);
    Py_XDECREF(stream_obj);
    /* The producer made the copy: the import views it. A producer that
     * took no keywords made none, and the import still asks for one. */
    if (capsule != NULL && ask_copy && !plain)
        req->opts.copy = PJDL_COPY_IF_NEEDED;
    if (capsule != NULL && !PyCapsule_CheckExact(capsule)) {
        PyErr_Format(PyExc_TypeError, "__dlpack__() returned %.100s, not a capsule",
                     Py_TYPE(capsule)->tp_name);
        Py_CLEAR(capsule);
    }
    return capsule;
}

/* Whether the capsule holds an unconsumed tensor: 1 a versioned one, 0 a
 * legacy one, with *name and *used_name set to its name now and once
 * consumed; -1 with an exception set for anything else. */
static int capsule_kind(PyObject *capsule, const char **name, const char **used_name) {
    const char *have = PyCapsule_GetName(capsule);
    if (have != NULL && strcmp(have, versioned_name) == 0) {
        *name = versioned_name;
        *used_name = used_versioned_name;
        return 1;
    }
    if (have != NULL && strcmp(have, legacy_name) == 0) {
        *name = legacy_name;
        *used_name = used_legacy_name;
        return 0;
    }
    if (have != NULL && strncmp(have, "used_", 5) == 0)
        PyErr_Format(pjpy_dlpack_error,
                     "from_dlpack: the DLPack capsule was already consumed (name '%s')", have);
    else
        PyErr_Format(PyExc_ValueError,
                     "from_dlpack: not a DLPack capsule (name '%s'; expected "
                     "'dltensor_versioned' or 'dltensor')",
                     have ? have : "NULL");
    return -1;
}

/* Claims the capsule's tensor: checks it, then marks the capsule used before
 * the GIL is released, so that no other thread can consume it meanwhile.
 * Returns the tensor with *versioned and *name (the name to put back if the
 * import fails) set, or NULL with an exception set. */
static void *claim_capsule(PyObject *capsule, const import_request *req, int *versioned,
                           const char **name) {
    const char *used_name;
    /* The common capsule first: its name is then compared once, by
     * PyCapsule_GetPointer itself. */
    void *tensor = PyCapsule_GetPointer(capsule, versioned_name);
    if (tensor != NULL) {
        *versioned = 1;
        *name = versioned_name;
        used_name = used_versioned_name;
    } else {
        PyErr_Clear();
        *versioned = capsule_kind(capsule, name, &used_name);
        if (*versioned < 0 || (tensor = PyCapsule_GetPointer(capsule, *name)) == NULL)
            return NULL;
    }
    DLManagedTensorVersioned *vt = *versioned ? tensor : NULL;
    const DLTensor *dlt = vt != NULL ? &vt->dl_tensor : &((DLManagedTensor *)tensor)->dl_tensor;
    if (check_tensor(vt, dlt, req) < 0 || PyCapsule_SetName(capsule, used_name) < 0)
        return NULL;
    return tensor;
}

/* Imports the tensor of a capsule, whose reference this steals. */
static PyObject *import_capsule(PyObject *capsule, const import_request *req) {
    int versioned;
    const char *name;
    PyObject *buffer = NULL;
    void *tensor = claim_capsule(capsule, req, &versioned, &name);
    if (tensor != NULL) {
        buffer = import_tensor(req->clients, req->num_clients, tensor, versioned, &req->opts);
        if (buffer == NULL) /* the producer keeps the tensor: unconsumed again */
            PyCapsule_SetName(capsule, name);
    }
    Py_DECREF(capsule);
    return buffer;
}

/* When x is one of our Buffers and its client is a candidate but not the
 * first, *order is set to the candidates with that client first (a PyMem
 * array the caller frees), and req->clients to it: the memory is that
 * client's, whichever other client has the same DLDevice (the library then
 * tries the others in turn). 0, or -1 with MemoryError set. */
static int prefer_own_client(PyObject *x, import_request *req, pjpy_client ***order) {
    *order = NULL;
    if (req->num_clients < 2 || !PyObject_TypeCheck(x, &pjpy_buffer_type) ||
        ((pjpy_buffer *)x)->client == NULL)
        return 0;
    pjpy_client *own = (pjpy_client *)((pjpy_buffer *)x)->client;
    size_t at = 0;
    while (at < req->num_clients && req->clients[at] != own)
        at++;
    if (at == 0 || at == req->num_clients)
        return 0;
    *order = PyMem_Malloc(req->num_clients * sizeof **order);
    if (*order == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    (*order)[0] = own;
    memcpy(*order + 1, req->clients, at * sizeof **order);
    memcpy(*order + 1 + at, req->clients + at + 1, (req->num_clients - at - 1) * sizeof **order);
    req->clients = *order;
    return 0;
}

/* device= a Device (not a Memory) and x one of our Buffers on that device:
 * the target is the memory x is in, so that placing an array on the device
 * it is on never copies (a Buffer in the device's pinned_host memory
 * stays there; the device's default memory is for data from elsewhere).
 * 0, or -1 with an exception set. */
static int keep_own_memory(PyObject *x, import_request *req) {
    if (req->opts.device == NULL || req->opts.memory != NULL ||
        !PyObject_TypeCheck(x, &pjpy_buffer_type) || ((pjpy_buffer *)x)->buffer == NULL)
        return 0;
    pjdl_buffer *b = ((pjpy_buffer *)x)->buffer;
    if (pjdl_buffer_device(b) != req->opts.device)
        return 0;
    req->opts.memory = pjdl_buffer_memory(b);
    if (pjdl_device_dl(req->opts.device, req->opts.memory, &req->target_dl) != PJDL_OK) {
        pjpy_raise_exchange(PJDL_UNIMPLEMENTED);
        return -1;
    }
    return 0;
}

/* Several clients drive the producer's device with different streams (two
 * clients of one plugin): each in turn is asked for its stream and offered
 * the tensor alone, so that the producer orders its work before the stream
 * of the client that takes the memory, never another's. A producer or a
 * client that refuses (the memory is not that client's, the stream not the
 * producer's) passes to the next; when all refuse, the first one's
 * exception is raised. */
static PyObject *from_each_client(PyObject *x, const import_request *req, DLDevice src) {
    PyObject *buffer = NULL, *type = NULL, *value = NULL, *tb = NULL;
    for (size_t i = 0; i < req->num_clients && buffer == NULL; i++) {
        if (pjdl_client_find_dl(req->clients[i]->client, src, NULL, NULL) != PJDL_OK)
            continue;
        import_request one = *req;
        one.clients = &req->clients[i];
        one.num_clients = 1;
        int ambiguous;
        DLDevice again;
        PyObject *capsule = capsule_from_producer(x, &one, &ambiguous, &again);
        if (capsule != NULL)
            buffer = import_capsule(capsule, &one);
        if (buffer != NULL || !PyErr_Occurred())
            continue;
        if (type == NULL) {
            PyErr_Fetch(&type, &value, &tb);
        } else {
            PyErr_Clear();
        }
    }
    if (buffer != NULL) {
        Py_XDECREF(type);
        Py_XDECREF(value);
        Py_XDECREF(tb);
    } else if (type != NULL) {
        PyErr_Restore(type, value, tb);
    } else if (!PyErr_Occurred()) {
        PyErr_SetString(pjpy_dlpack_error, "from_dlpack: no client took the tensor");
    }
    return buffer;
}

/* pjpy_from_dlpack with the request resolved. */
static PyObject *from_dlpack_request(PyObject *x, import_request *req) {
    if (PyCapsule_CheckExact(x))
        return import_capsule(Py_NewRef(x), req);
    /* A NumPy array NumPy would export plainly: read by the module. */
    DLManagedTensorVersioned *own = NULL;
    int read = is_numpy_array(x) ? pjpy_numpy_tensor(x, &own) : 0;
    if (read < 0)
        return NULL;
    if (read == 1) {
        int host_only; /* stays 0: the data is on the host */
        return import_exchanged(NULL, own, req, &host_only);
    }
    producer_info info;
    if (producer_info_of(x, &info) < 0)
        return NULL;
    const DLPackExchangeAPI *api = info.api;
    if (info.torch) {
        int kind = torch_tensor_kind(x);
        if (kind == TORCH_ERROR)
            return NULL;
        if (kind == TORCH_NEGATIVE) {
            PyErr_SetString(pjpy_dlpack_error,
                            "from_dlpack: a torch.Tensor with the negative bit set (a lazy neg "
                            "view): its memory holds the values negated, which DLPack cannot "
                            "say; call x.resolve_neg() first");
            return NULL;
        }
        if (kind == TORCH_REFUSED_BY_DLPACK)
            api = NULL; /* its __dlpack__ answers, with its own refusal */
    }
    if (api != NULL) {
        int fallback;
        PyObject *buffer = from_exchange_api(api, x, req, &fallback);
        if (!fallback)
            return buffer;
        req->opts.has_stream = false;
        req->opts.stream = 0;
    }
    int ambiguous;
    DLDevice src;
    PyObject *capsule = capsule_from_producer(x, req, &ambiguous, &src);
    if (ambiguous)
        return from_each_client(x, req, src);
    return capsule == NULL ? NULL : import_capsule(capsule, req);
}

int pjpy_from_dlpack_args(PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames, PyObject **x,
                          PyObject **target, PyObject **copy) {
    *target = *copy = Py_None;
    /* The common call, one argument and no keywords, without the parser. */
    if (nargs == 1 && kwnames == NULL) {
        *x = args[0];
        return 0;
    }
    /* Anything else through CPython's parser (its messages), which takes a
     * tuple and a dict: borrowed from the caller, the arguments outlive
     * both. */
    static char *kwlist[] = {"x", "device", "copy", NULL};
    Py_ssize_t nkw = kwnames == NULL ? 0 : PyTuple_GET_SIZE(kwnames);
    PyObject *tuple = PyTuple_New(nargs), *dict = nkw > 0 ? PyDict_New() : NULL;
    int rc = tuple == NULL || (nkw > 0 && dict == NULL) ? -1 : 0;
    for (Py_ssize_t i = 0; rc == 0 && i < nargs; i++)
        PyTuple_SET_ITEM(tuple, i, Py_NewRef(args[i]));
    for (Py_ssize_t i = 0; rc == 0 && i < nkw; i++)
        rc = PyDict_SetItem(dict, PyTuple_GET_ITEM(kwnames, i), args[nargs + i]);
    if (rc == 0 &&
        !PyArg_ParseTupleAndKeywords(tuple, dict, "O|$OO:from_dlpack", kwlist, x, target, copy))
        rc = -1;
    Py_XDECREF(tuple);
    Py_XDECREF(dict);
    return rc;
}

PyObject *pjpy_from_dlpack(pjpy_client *const *clients, size_t num_clients, PyObject *x,
                           PyObject *target, PyObject *copy_obj) {
    import_request req;
    pjpy_client **order;
    if (resolve_request(clients, num_clients, target, copy_obj, &req) < 0 ||
        keep_own_memory(x, &req) < 0 || prefer_own_client(x, &req, &order) < 0)
        return NULL;
    PyObject *buffer = from_dlpack_request(x, &req);
    if (order != NULL)
        PyMem_Free(order);
    return buffer;
}
