/*
 * dlpack_protocol.c — the producer side of the Python DLPack protocol:
 * Buffer.__dlpack__, __dlpack_device__ and release_to_dlpack, and the capsule
 * destructors.
 *
 * A capsule named "dltensor_versioned" (or legacy "dltensor") owns its
 * tensor until a consumer renames it to "used_dltensor_versioned" ("used_
 * dltensor"); only an unconsumed capsule calls the tensor's deleter when it
 * dies. The library's deleters do not touch Python, so they run without the
 * GIL.
 */
#include "pjdl_py.h"

static const char versioned_name[] = "dltensor_versioned";
static const char legacy_name[] = "dltensor";

static void capsule_versioned_destructor(PyObject *capsule) {
    if (!PyCapsule_IsValid(capsule, versioned_name))
        return; /* consumed: the consumer owns the tensor */
    PyObject *type, *value, *tb;
    PyErr_Fetch(&type, &value, &tb);
    DLManagedTensorVersioned *t = PyCapsule_GetPointer(capsule, versioned_name);
    if (t != NULL && t->deleter != NULL)
        PJPY_NOGIL(t->deleter(t));
    PyErr_Restore(type, value, tb);
}

static void capsule_legacy_destructor(PyObject *capsule) {
    if (!PyCapsule_IsValid(capsule, legacy_name))
        return;
    PyObject *type, *value, *tb;
    PyErr_Fetch(&type, &value, &tb);
    DLManagedTensor *t = PyCapsule_GetPointer(capsule, legacy_name);
    if (t != NULL && t->deleter != NULL)
        PJPY_NOGIL(t->deleter(t));
    PyErr_Restore(type, value, tb);
}

/* Parses (int, int); 0 on success, -1 with TypeError/ValueError set. */
static int parse_pair(PyObject *obj, const char *what, long *a, long *b) {
    if (!PyTuple_Check(obj) || PyTuple_GET_SIZE(obj) != 2) {
        PyErr_Format(PyExc_TypeError, "%s must be None or a tuple of two ints, not %.100s", what,
                     Py_TYPE(obj)->tp_name);
        return -1;
    }
    *a = PyLong_AsLong(PyTuple_GET_ITEM(obj, 0));
    if (*a == -1 && PyErr_Occurred())
        return -1;
    *b = PyLong_AsLong(PyTuple_GET_ITEM(obj, 1));
    if (*b == -1 && PyErr_Occurred())
        return -1;
    return 0;
}

static PyObject *export_buffer(PyObject *obj, PyObject *args, PyObject *kwargs,
                               pjdl_export_mode mode, const char *fname) {
    static char *kwlist[] = {"stream", "max_version", "dl_device", "copy", NULL};
    PyObject *stream = Py_None, *max_version = Py_None, *dl_device = Py_None, *copy = Py_None;
    char format[64];
    PyOS_snprintf(format, sizeof format, "|$OOOO:%s", fname);
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, format, kwlist, &stream, &max_version,
                                     &dl_device, &copy))
        return NULL;

    pjdl_export_options opts = PJDL_EXPORT_OPTIONS_INIT;
    opts.mode = mode;
    if (pjpy_parse_copy(copy, &opts.copy) < 0)
        return NULL;

    int versioned = 0;
    if (max_version != Py_None) {
        long major, minor;
        if (parse_pair(max_version, "max_version", &major, &minor) < 0)
            return NULL;
        versioned = major >= 1;
    }
    if (dl_device != Py_None) {
        long type, id;
        if (parse_pair(dl_device, "dl_device", &type, &id) < 0)
            return NULL;
        opts.has_dl_device = true;
        opts.dl_device.device_type = (DLDeviceType)type;
        opts.dl_device.device_id = (int32_t)id;
    }
    if (stream != Py_None) {
        if (!PyLong_Check(stream)) {
            PyErr_Format(PyExc_TypeError, "stream must be None or an int, not %.100s",
                         Py_TYPE(stream)->tp_name);
            return NULL;
        }
        long long s = PyLong_AsLongLong(stream);
        if (s == -1 && PyErr_Occurred())
            return NULL;
        /* -1: the consumer asks for no synchronization. Waiting for the ready
         * event instead is always correct, so that is what happens. */
        if (s != -1) {
            opts.has_stream = true;
            opts.stream = (intptr_t)s;
        }
    }

    pjdl_buffer *buffer = ((pjpy_buffer *)obj)->buffer;
    pjdl_code rc;
    PyObject *capsule;
    if (versioned) {
        DLManagedTensorVersioned *t = NULL;
        PJPY_NOGIL_RC(rc, pjdl_buffer_export(buffer, &opts, &t));
        if (rc != PJDL_OK)
            return pjpy_raise_exchange(rc);
        capsule = PyCapsule_New(t, versioned_name, capsule_versioned_destructor);
        if (capsule == NULL)
            PJPY_NOGIL(t->deleter(t));
    } else {
        DLManagedTensor *t = NULL;
        PJPY_NOGIL_RC(rc, pjdl_buffer_export_legacy(buffer, &opts, &t));
        if (rc != PJDL_OK)
            return pjpy_raise_exchange(rc);
        capsule = PyCapsule_New(t, legacy_name, capsule_legacy_destructor);
        if (capsule == NULL)
            PJPY_NOGIL(t->deleter(t));
    }
    return capsule;
}

PyObject *pjpy_buffer_dlpack(PyObject *self, PyObject *args, PyObject *kwargs) {
    return export_buffer(self, args, kwargs, PJDL_EXPORT_SHARE, "__dlpack__");
}

PyObject *pjpy_buffer_release_to_dlpack(PyObject *self, PyObject *args, PyObject *kwargs) {
    return export_buffer(self, args, kwargs, PJDL_EXPORT_TRANSFER, "release_to_dlpack");
}

PyObject *pjpy_buffer_dlpack_device(PyObject *self, PyObject *unused) {
    (void)unused;
    DLDevice dl;
    pjdl_code rc = pjdl_buffer_dl_device(((pjpy_buffer *)self)->buffer, &dl);
    if (rc != PJDL_OK)
        return pjpy_raise_exchange(rc);
    return pjpy_dl_device_tuple(dl);
}
