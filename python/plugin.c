/*
 * plugin.c — the Plugin type: a loaded PJRT plugin, and client creation
 * with Python keyword arguments as typed PJRT options.
 */

#include "pjdl_py.h"

#include <stdlib.h>
#include <string.h>

/* Whether the plugin promises, by its int64 attribute
 * pjrt_dlpack_sync_views (docs/plugin-authors.md), that its
 * PJRT_Client_CreateViewOfDeviceBuffer and PJRT_Buffer_Destroy never wait
 * on another thread and run no foreign code but the buffer's on-delete
 * callback (the library's release callback, which pjpy_call_with_gil never
 * lets wait for the GIL). The reference plugin (plugin/) makes it: a view
 * is a few allocations, and Destroy drops references (memory still used by
 * the xpu stream is freed by the stream thread when it is done). Any plugin
 * that does not publish it, XLA's included, is called without the GIL. See
 * sync_views. */
static int plugin_promises_sync_views(const pjdl_plugin *plugin) {
    static const char name[] = "pjrt_dlpack_sync_views";
    const PJRT_Api *api = pjdl_plugin_api(plugin);
    if (!pjdl_plugin_provides(plugin, "PJRT_Plugin_Attributes"))
        return 0;
    PJRT_Plugin_Attributes_Args args = {.struct_size = PJRT_Plugin_Attributes_Args_STRUCT_SIZE};
    PJRT_Error *error = api->PJRT_Plugin_Attributes(&args);
    if (error != NULL) {
        PJRT_Error_Destroy_Args d = {.struct_size = PJRT_Error_Destroy_Args_STRUCT_SIZE,
                                     .error = error};
        api->PJRT_Error_Destroy(&d);
        return 0;
    }
    for (size_t i = 0; args.attributes != NULL && i < args.num_attributes; i++) {
        const PJRT_NamedValue *v = &args.attributes[i];
        if (v->type == PJRT_NamedValue_kInt64 && v->name_size == sizeof name - 1 &&
            memcmp(v->name, name, sizeof name - 1) == 0)
            return v->int64_value == 1;
    }
    return 0;
}

PyObject *pjpy_plugin_new(pjdl_plugin *plugin) {
    pjpy_plugin *self = PyObject_New(pjpy_plugin, &pjpy_plugin_type);
    if (self == NULL) {
        PJPY_NOGIL(pjdl_plugin_release(plugin));
        return NULL;
    }
    self->plugin = plugin;
    self->sync_views = plugin_promises_sync_views(plugin);
    return (PyObject *)self;
}

static void plugin_dealloc(PyObject *self) {
    pjdl_plugin *p = ((pjpy_plugin *)self)->plugin;
    if (p != NULL)
        PJPY_NOGIL(pjdl_plugin_release(p));
    Py_TYPE(self)->tp_free(self);
}

/* Options of one client() call: the pjdl_option array plus the int64 lists
 * it points to. Strings point into the kwargs' str objects, which outlive
 * the call. */
typedef struct {
    pjdl_option *options;
    int64_t **lists;
    size_t count;
} option_set;

static void option_set_free(option_set *set) {
    for (size_t i = 0; i < set->count; i++)
        PyMem_Free(set->lists[i]);
    PyMem_Free(set->lists);
    PyMem_Free(set->options);
}

static int option_from_python(const char *name, PyObject *value, pjdl_option *opt, int64_t **list) {
    opt->name = name;
    char what[160];
    snprintf(what, sizeof what, "client option '%s'", name);
    if (PyBool_Check(value)) {
        opt->type = PJDL_OPTION_BOOL;
        opt->value.bool_value = (value == Py_True);
    } else if (PyLong_Check(value)) {
        opt->type = PJDL_OPTION_INT64;
        if (pjpy_int_arg(value, what, INT64_MIN, INT64_MAX, PyExc_OverflowError,
                         &opt->value.int64_value) < 0)
            return -1;
    } else if (PyFloat_Check(value)) {
        opt->type = PJDL_OPTION_FLOAT;
        opt->value.float_value = (float)PyFloat_AS_DOUBLE(value);
    } else if (PyUnicode_Check(value)) {
        const char *s = PyUnicode_AsUTF8(value);
        if (s == NULL)
            return -1;
        opt->type = PJDL_OPTION_STRING;
        opt->value.string_value = s;
    } else if (PyList_Check(value) || PyTuple_Check(value)) {
        PyObject *seq = PySequence_Fast(value, "");
        if (seq == NULL)
            return -1;
        Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
        int64_t *vals = PyMem_Calloc(n > 0 ? (size_t)n : 1, sizeof(int64_t));
        if (vals == NULL) {
            Py_DECREF(seq);
            PyErr_NoMemory();
            return -1;
        }
        for (Py_ssize_t i = 0; i < n; i++) {
            PyObject *item = PySequence_Fast_GET_ITEM(seq, i);
            if (!PyLong_Check(item) || PyBool_Check(item)) {
                PyErr_Format(PyExc_TypeError,
                             "client option '%s': a list option must hold only ints, item %zd is "
                             "%.100s",
                             name, i, Py_TYPE(item)->tp_name);
                PyMem_Free(vals);
                Py_DECREF(seq);
                return -1;
            }
            if (pjpy_int_arg(item, what, INT64_MIN, INT64_MAX, PyExc_OverflowError, &vals[i]) < 0) {
                PyMem_Free(vals);
                Py_DECREF(seq);
                return -1;
            }
        }
        Py_DECREF(seq);
        *list = vals;
        opt->type = PJDL_OPTION_INT64_LIST;
        opt->value.int64_list.values = vals;
        opt->value.int64_list.count = (size_t)n;
    } else {
        PyErr_Format(PyExc_TypeError,
                     "client option '%s': unsupported value of type %.100s (expected bool, int, "
                     "float, str or a list of ints)",
                     name, Py_TYPE(value)->tp_name);
        return -1;
    }
    return 0;
}

static int option_set_build(PyObject *kwargs, option_set *set) {
    set->options = NULL;
    set->lists = NULL;
    set->count = 0;
    Py_ssize_t n = kwargs ? PyDict_GET_SIZE(kwargs) : 0;
    if (n == 0)
        return 0;
    set->options = PyMem_Calloc((size_t)n, sizeof(pjdl_option));
    set->lists = PyMem_Calloc((size_t)n, sizeof(int64_t *));
    if (set->options == NULL || set->lists == NULL) {
        option_set_free(set);
        PyErr_NoMemory();
        return -1;
    }
    Py_ssize_t pos = 0;
    PyObject *key, *value;
    while (PyDict_Next(kwargs, &pos, &key, &value)) {
        const char *name = PyUnicode_AsUTF8(key);
        size_t i = set->count++;
        if (name == NULL || option_from_python(name, value, &set->options[i], &set->lists[i]) < 0) {
            option_set_free(set);
            return -1;
        }
    }
    return 0;
}

static PyObject *plugin_client(PyObject *self, PyObject *args, PyObject *kwargs) {
    if (PyTuple_GET_SIZE(args) != 0) {
        PyErr_SetString(PyExc_TypeError,
                        "Plugin.client() takes client options as keyword arguments only");
        return NULL;
    }
    option_set set;
    if (option_set_build(kwargs, &set) < 0)
        return NULL;
    pjdl_plugin *p = ((pjpy_plugin *)self)->plugin;
    pjdl_client *client = NULL;
    pjdl_code rc;
    PJPY_NOGIL_RC(rc, pjdl_client_create(p, set.options, set.count, &client));
    if (rc != PJDL_OK) {
        pjpy_raise_error(rc);
        option_set_free(&set);
        return NULL;
    }
    option_set_free(&set);
    return pjpy_client_new(self, client);
}

static PyObject *plugin_provides(PyObject *self, PyObject *arg) {
    const char *slot = PyUnicode_AsUTF8(arg);
    if (slot == NULL)
        return NULL;
    return PyBool_FromLong(pjdl_plugin_provides(((pjpy_plugin *)self)->plugin, slot));
}

static PyObject *plugin_get_path(PyObject *self, void *closure) {
    (void)closure;
    const char *path = pjdl_plugin_path(((pjpy_plugin *)self)->plugin);
    if (path == NULL)
        Py_RETURN_NONE;
    return PyUnicode_DecodeFSDefault(path);
}

static PyObject *plugin_get_abi_version(PyObject *self, void *closure) {
    (void)closure;
    int major = 0, minor = 0;
    pjdl_plugin_abi_version(((pjpy_plugin *)self)->plugin, &major, &minor);
    return Py_BuildValue("(ii)", major, minor);
}

static PyObject *plugin_repr(PyObject *self) {
    const char *path = pjdl_plugin_path(((pjpy_plugin *)self)->plugin);
    return PyUnicode_FromFormat("<pjrt_dlpack.Plugin %s>", path ? path : "(from api)");
}

/* Plugin.from_api(api) (a static method): a Plugin for a PJRT_Api table that
 * a framework already loaded and initialized, given as the capsule JAX makes
 * when it loads a plugin (name "pjrt_c_api") or as the table's address. The
 * table is not initialized again. Frameworks never unload a plugin library
 * (XLA's plugins cannot survive it), so the table outlives the Plugin. */
static PyObject *plugin_from_api(PyObject *unused, PyObject *arg) {
    (void)unused;
    const PJRT_Api *api = NULL;
    if (PyCapsule_CheckExact(arg)) {
        const char *name = PyCapsule_GetName(arg);
        if (name == NULL && PyErr_Occurred())
            return NULL;
        if (name == NULL || strcmp(name, "pjrt_c_api") != 0) {
            PyErr_Format(PyExc_ValueError,
                         "Plugin.from_api: expected a 'pjrt_c_api' capsule (JAX's handle of a "
                         "loaded plugin), got a capsule named '%s'",
                         name ? name : "NULL");
            return NULL;
        }
        api = PyCapsule_GetPointer(arg, name);
        if (api == NULL)
            return NULL;
    } else if (PyLong_Check(arg)) {
        void *address = NULL;
        if (pjpy_address_arg(arg, "Plugin.from_api: address", &address) < 0)
            return NULL;
        if (address == NULL) {
            PyErr_SetString(PyExc_ValueError, "Plugin.from_api: the address is 0");
            return NULL;
        }
        api = address;
    } else {
        PyErr_Format(PyExc_TypeError,
                     "Plugin.from_api: expected a 'pjrt_c_api' capsule or an int address, not "
                     "%.100s",
                     Py_TYPE(arg)->tp_name);
        return NULL;
    }
    pjdl_plugin *plugin = NULL;
    pjdl_code rc = pjdl_plugin_from_api(api, &plugin);
    if (rc != PJDL_OK)
        return pjpy_raise_error(rc);
    return pjpy_plugin_new(plugin);
}

static PyMethodDef plugin_methods[] = {
    {"client", (PyCFunction)(void (*)(void))plugin_client, METH_VARARGS | METH_KEYWORDS,
     "client(**options) -> Client\n\nCreates a PJRT client. Keyword arguments are the "
     "plugin's create options: bool, int, float, str or a list of ints (e.g. "
     "platform='xpu')."},
    {"provides", plugin_provides, METH_O,
     "provides(slot) -> bool\n\nWhether the plugin's PJRT_Api has the entry point named "
     "`slot` (e.g. 'PJRT_Client_CreateViewOfDeviceBuffer')."},
    {"from_api", plugin_from_api, METH_O | METH_STATIC,
     "from_api(api) -> Plugin\n\nWraps a PJRT_Api that a framework already loaded and "
     "initialized: the 'pjrt_c_api' capsule JAX keeps for each plugin, or the table's address "
     "as an int. The plugin is not initialized again."},
    {NULL, NULL, 0, NULL},
};

static PyObject *plugin_get_sync_views(PyObject *self, void *closure) {
    (void)closure;
    return PyBool_FromLong(((pjpy_plugin *)self)->sync_views);
}

static PyGetSetDef plugin_getset[] = {
    {"path", plugin_get_path, NULL, "The file the plugin was loaded from.", NULL},
    {"abi_version", plugin_get_abi_version, NULL,
     "(major, minor) of the plugin's PJRT C API version.", NULL},
    {"_sync_views", plugin_get_sync_views, NULL,
     "Whether the plugin promises never to block in a view or a destroy (its attribute "
     "pjrt_dlpack_sync_views), so that the module keeps the GIL across them.",
     NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

PyTypeObject pjpy_plugin_type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "pjrt_dlpack.Plugin",
    .tp_basicsize = sizeof(pjpy_plugin),
    .tp_dealloc = plugin_dealloc,
    .tp_repr = plugin_repr,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "A loaded PJRT plugin; made by pjrt_dlpack.load_plugin().",
    .tp_methods = plugin_methods,
    .tp_getset = plugin_getset,
};
