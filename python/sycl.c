/* The stream of SYCL producers and consumers (dpctl, dpnp): a dpctl.SyclQueue.
 * The array API leaves the stream of kDLOneAPI open; dpctl's convention is
 * a dpctl.SyclQueue or None (no synchronization), and it refuses anything
 * else. A PJRT plugin's SYCL queue belongs to its own runtime (Intel's
 * plugin's is a queue of its oneAPI 2025.1 runtime, dpctl's of 2026), so
 * none is ever handed across: from a SYCL producer the import asks with the
 * producer's own queue and waits for it on the host, and our export takes a
 * dpctl.SyclQueue as it takes no stream, waiting for the buffer's ready
 * event (docs/conformance.md). Nothing here imports dpctl: when it is not
 * imported, no object is one of its queues. */
#include "pjdl_py.h"

/* dpctl.SyclQueue (borrowed from the imported module), or NULL. */
static PyObject *sycl_queue_type(void) {
    PyObject *modules = PyImport_GetModuleDict();
    PyObject *dpctl = PyDict_GetItemString(modules, "dpctl");
    if (dpctl == NULL || !PyModule_Check(dpctl))
        return NULL;
    PyObject *type = PyDict_GetItemString(PyModule_GetDict(dpctl), "SyclQueue");
    return type != NULL && PyType_Check(type) ? type : NULL;
}

int pjpy_is_sycl_queue(PyObject *obj) {
    PyObject *type = sycl_queue_type();
    return type == NULL ? 0 : PyObject_IsInstance(obj, type);
}

/* x.<name>, a new reference, or NULL with no exception when x has none. */
static PyObject *optional_attr(PyObject *x, const char *name) {
    PyObject *value = PyObject_GetAttrString(x, name);
    if (value == NULL && PyErr_ExceptionMatches(PyExc_AttributeError))
        PyErr_Clear();
    return value;
}

/* The queue a SYCL array names: its sycl_queue (dpctl, dpnp), else the
 * "syclobj" of its __sycl_usm_array_interface__ (the protocol dpctl keeps
 * for every SYCL array), when that is a dpctl.SyclQueue. */
int pjpy_sycl_queue_of(PyObject *x, PyObject **queue) {
    *queue = NULL;
    if (sycl_queue_type() == NULL)
        return 0;
    PyObject *q = optional_attr(x, "sycl_queue");
    if (q == NULL && !PyErr_Occurred()) {
        PyObject *suai = optional_attr(x, "__sycl_usm_array_interface__");
        if (suai != NULL && PyDict_Check(suai))
            q = Py_XNewRef(PyDict_GetItemString(suai, "syclobj"));
        Py_XDECREF(suai);
    }
    if (q == NULL)
        return PyErr_Occurred() ? -1 : 0;
    int is = pjpy_is_sycl_queue(q);
    if (is == 1)
        *queue = q;
    else
        Py_DECREF(q);
    return is;
}

int pjpy_sycl_wait(PyObject *queue) {
    PyObject *r = PyObject_CallMethod(queue, "wait", NULL);
    Py_XDECREF(r);
    return r == NULL ? -1 : 0;
}

PyObject *pjpy_sycl_queue_of_py(PyObject *module, PyObject *x) {
    (void)module;
    PyObject *queue;
    if (pjpy_sycl_queue_of(x, &queue) < 0)
        return NULL;
    return queue != NULL ? queue : Py_NewRef(Py_None);
}

PyObject *pjpy_is_sycl_queue_py(PyObject *module, PyObject *obj) {
    (void)module;
    int is = pjpy_is_sycl_queue(obj);
    return is < 0 ? NULL : PyBool_FromLong(is);
}
