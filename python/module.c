/*
 * module.c — the pjrt_dlpack extension module: load_plugin, the module-level
 * from_dlpack, DLPack device-type constants and the module's types.
 */
#include "pjdl_py.h"

static PyObject *load_plugin(PyObject *module, PyObject *args, PyObject *kwargs) {
    (void)module;
    static char *kwlist[] = {"path", NULL};
    PyObject *path_obj = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|O:load_plugin", kwlist, &path_obj))
        return NULL;
    PyObject *encoded = NULL;
    const char *path = NULL;
    if (path_obj != Py_None) {
        if (!PyUnicode_FSConverter(path_obj, &encoded))
            return NULL;
        path = PyBytes_AS_STRING(encoded);
    }
    pjdl_plugin *plugin = NULL;
    pjdl_code rc;
    PJPY_NOGIL_RC(rc, pjdl_plugin_load(path, &plugin));
    Py_XDECREF(encoded);
    if (rc != PJDL_OK)
        return pjpy_raise_error(rc);
    return pjpy_plugin_new(plugin);
}

static PyObject *module_from_dlpack(PyObject *module, PyObject *const *args, Py_ssize_t nargs,
                                    PyObject *kwnames) {
    (void)module;
    PyObject *x, *target, *copy;
    if (pjpy_from_dlpack_args(args, nargs, kwnames, &x, &target, &copy) < 0)
        return NULL;
    size_t n = 0;
    pjpy_client **clients = pjpy_client_all(&n);
    if (clients == NULL && PyErr_Occurred())
        return NULL;
    /* Keep the clients alive while the GIL may be released. */
    for (size_t i = 0; i < n; i++)
        Py_INCREF(clients[i]);
    PyObject *result = pjpy_from_dlpack(clients, n, x, target, copy);
    for (size_t i = 0; i < n; i++)
        Py_DECREF(clients[i]);
    PyMem_Free(clients);
    return result;
}

static PyObject *register_platform(PyObject *module, PyObject *args, PyObject *kwargs) {
    (void)module;
    static char *kwlist[] = {"name", "device_type", "host_memory_type", NULL};
    const char *name;
    PyObject *type_obj, *host_obj = NULL;
    int64_t device_type, host_type = kDLCPU;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "sO|O:register_platform", kwlist, &name,
                                     &type_obj, &host_obj) ||
        pjpy_int_arg(type_obj, "register_platform: device_type", pjpy_dl_device_range[0],
                     pjpy_dl_device_range[1], PyExc_OverflowError, &device_type) < 0 ||
        (host_obj != NULL &&
         pjpy_int_arg(host_obj, "register_platform: host_memory_type", pjpy_dl_device_range[0],
                      pjpy_dl_device_range[1], PyExc_OverflowError, &host_type) < 0))
        return NULL;
    pjdl_code rc = pjdl_register_platform(name, (DLDeviceType)device_type, (DLDeviceType)host_type);
    if (rc != PJDL_OK)
        return pjpy_raise_error(rc);
    Py_RETURN_NONE;
}

/* How often the platform registry changed (pjdl_platform_generation): what
 * pjrt_dlpack.jax keys its per-sharding DLDevice cache on. */
static PyObject *registry_generation(PyObject *module, PyObject *unused) {
    (void)module;
    (void)unused;
    return PyLong_FromUnsignedLong(pjdl_platform_generation());
}

static PyObject *module_on_exit(PyObject *module, PyObject *unused) {
    (void)module;
    (void)unused;
    pjpy_set_exiting();
    Py_RETURN_NONE;
}

static PyMethodDef module_methods[] = {
    {"load_plugin", (PyCFunction)(void (*)(void))load_plugin, METH_VARARGS | METH_KEYWORDS,
     "load_plugin(path=None) -> Plugin\n\nLoads a PJRT plugin: a file path, a name from "
     "PJRT_NAMES_AND_LIBRARY_PATHS, or (None) $PJRT_DLPACK_PLUGIN, else the reference plugin "
     "bundled with the package (libpjrt_ref.so next to the extension module)."},
    {"from_dlpack", (PyCFunction)(void (*)(void))module_from_dlpack, METH_FASTCALL | METH_KEYWORDS,
     "from_dlpack(x, /, *, device=None, copy=None) -> Buffer\n\nImports an object with "
     "__dlpack__ (or a DLPack capsule) into the live client whose devices match its device "
     "(or into `device`, a Device or Memory)."},
    {"register_platform", (PyCFunction)(void (*)(void))register_platform,
     METH_VARARGS | METH_KEYWORDS,
     "register_platform(name, device_type, host_memory_type=kDLCPU)\n\nTeaches the library "
     "the DLPack device types of a PJRT platform."},
    {"_on_exit", module_on_exit, METH_NOARGS, "Internal: called at interpreter exit."},
    {"_registry_generation", registry_generation, METH_NOARGS,
     "Internal: a number that changes whenever the platform registry does."},
    {"_is_sycl_queue", pjpy_is_sycl_queue_py, METH_O,
     "Internal: whether the object is a dpctl.SyclQueue."},
    {"_sycl_queue_of", pjpy_sycl_queue_of_py, METH_O,
     "Internal: the dpctl.SyclQueue a SYCL array names, or None."},
    {"_numpy_reads", pjpy_numpy_reads_py, METH_NOARGS,
     "Internal: (state, count) of the NumPy array reader: 1 on, 0 not yet used, -1 off; the "
     "arrays it has described."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT,
    .m_name = "pjrt_dlpack._pjrt_dlpack",
    .m_doc = "DLPack for every PJRT plugin: exchange PJRT device buffers with NumPy, PyTorch "
             "and any DLPack producer or consumer, zero-copy where possible.",
    .m_size = -1,
    .m_methods = module_methods,
};

static const struct {
    const char *name;
    int value;
} dl_constants[] = {
    {"kDLCPU", kDLCPU},
    {"kDLCUDA", kDLCUDA},
    {"kDLCUDAHost", kDLCUDAHost},
    {"kDLOpenCL", kDLOpenCL},
    {"kDLVulkan", kDLVulkan},
    {"kDLMetal", kDLMetal},
    {"kDLVPI", kDLVPI},
    {"kDLROCM", kDLROCM},
    {"kDLROCMHost", kDLROCMHost},
    {"kDLExtDev", kDLExtDev},
    {"kDLCUDAManaged", kDLCUDAManaged},
    {"kDLOneAPI", kDLOneAPI},
    {"kDLWebGPU", kDLWebGPU},
    {"kDLHexagon", kDLHexagon},
    {"kDLMAIA", kDLMAIA},
    {"kDLTrn", kDLTrn},
    {"kDLTPU", kDLTPU},
    {"kDLTPUHost", kDLTPUHost},
    {"kDLAscend", kDLAscend},
};

static int register_atexit(PyObject *module) {
    PyObject *atexit = PyImport_ImportModule("atexit");
    if (atexit == NULL)
        return -1;
    PyObject *hook = PyObject_GetAttrString(module, "_on_exit");
    PyObject *r = hook ? PyObject_CallMethod(atexit, "register", "O", hook) : NULL;
    Py_XDECREF(hook);
    Py_DECREF(atexit);
    if (r == NULL)
        return -1;
    Py_DECREF(r);
    return 0;
}

PyMODINIT_FUNC PyInit__pjrt_dlpack(void); /* found by the import system */

PyMODINIT_FUNC PyInit__pjrt_dlpack(void) {
    pjpy_set_home_interpreter();
    PyTypeObject *types[] = {&pjpy_plugin_type, &pjpy_client_type, &pjpy_device_type,
                             &pjpy_memory_type, &pjpy_buffer_type};
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
        if (PyType_Ready(types[i]) < 0)
            return NULL;
    if (pjpy_exchange_api_init(&pjpy_buffer_type) < 0)
        return NULL;
    PyObject *m = PyModule_Create(&module_def);
    if (m == NULL)
        return NULL;
    if (pjpy_errors_init(m) < 0)
        goto fail;
    if (PyModule_AddObjectRef(m, "Plugin", (PyObject *)&pjpy_plugin_type) < 0 ||
        PyModule_AddObjectRef(m, "Client", (PyObject *)&pjpy_client_type) < 0 ||
        PyModule_AddObjectRef(m, "Device", (PyObject *)&pjpy_device_type) < 0 ||
        PyModule_AddObjectRef(m, "Memory", (PyObject *)&pjpy_memory_type) < 0 ||
        PyModule_AddObjectRef(m, "Buffer", (PyObject *)&pjpy_buffer_type) < 0)
        goto fail;
    if (pjpy_executable_init(m) < 0)
        goto fail;
    for (size_t i = 0; i < sizeof dl_constants / sizeof dl_constants[0]; i++)
        if (PyModule_AddIntConstant(m, dl_constants[i].name, dl_constants[i].value) < 0)
            goto fail;
    if (PyModule_AddStringConstant(m, "__version__", pjdl_version()) < 0)
        goto fail;
    PyObject *dlpack_version = Py_BuildValue("(ii)", DLPACK_MAJOR_VERSION, DLPACK_MINOR_VERSION);
    if (dlpack_version == NULL)
        goto fail;
    int added = PyModule_AddObjectRef(m, "DLPACK_VERSION", dlpack_version);
    Py_DECREF(dlpack_version);
    if (added < 0)
        goto fail;
    if (register_atexit(m) < 0)
        goto fail;
    return m;
fail:
    Py_DECREF(m);
    return NULL;
}
