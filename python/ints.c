/*
 * ints.c — every Python integer that crosses into C goes through here: read
 * exactly, compared with the range of the C value it becomes, and refused
 * naming the argument when it does not fit, never cast. A device id of
 * 2**32 is not device 0.
 */
#include "pjdl_py.h"

#include <limits.h>
#include <stdint.h>
#include <stdio.h>

/* DLDevice: an enum and an int32_t. */
const int64_t pjpy_dl_device_range[4] = {INT32_MIN, INT32_MAX, INT32_MIN, INT32_MAX};

/* The name of argument `what`, entry `index` (-1: the whole argument), for
 * a message; only made when one is raised. */
static const char *arg_name(char *buf, size_t size, const char *what, int index) {
    if (index < 0)
        return what;
    snprintf(buf, size, "%s[%d]", what, index);
    return buf;
}

/* obj, an int or an object with __index__, in [min, max]: see
 * pjpy_int_arg; the argument is named what[index] when index >= 0. With
 * clamp, a value above max is max (a version newer than any known). */
static int int_in_range(PyObject *obj, const char *what, int index, int64_t min, int64_t max,
                        int clamp, PyObject *error, int64_t *out) {
    char buf[128];
    PyObject *value = PyLong_Check(obj) ? Py_NewRef(obj) : PyNumber_Index(obj);
    if (value == NULL) {
        if (PyErr_ExceptionMatches(PyExc_TypeError)) {
            PyErr_Clear();
            PyErr_Format(PyExc_TypeError, "%s must be an int, not %.100s",
                         arg_name(buf, sizeof buf, what, index), Py_TYPE(obj)->tp_name);
        }
        return -1;
    }
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(value, &overflow);
    int failed = v == -1 && PyErr_Occurred();
    if (!failed && clamp && (overflow > 0 || v > max)) {
        overflow = 0;
        v = max;
    }
    if (!failed && (overflow != 0 || v < min || v > max)) {
        PyErr_Format(error, "%s is %S: out of range, it must be between %lld and %lld",
                     arg_name(buf, sizeof buf, what, index), value, (long long)min, (long long)max);
        failed = 1;
    }
    Py_DECREF(value);
    if (failed)
        return -1;
    *out = (int64_t)v;
    return 0;
}

int pjpy_int_arg(PyObject *obj, const char *what, int64_t min, int64_t max, PyObject *error,
                 int64_t *out) {
    return int_in_range(obj, what, -1, min, max, 0, error, out);
}

/* A (major, minor) version a caller reads up to: non-negative ints, each
 * above UINT32_MAX read as UINT32_MAX (newer than any DLPack version). */
int pjpy_version_pair(PyObject *obj, const char *what, PyObject *error, int64_t out[2]) {
    if (!PyTuple_Check(obj) || PyTuple_GET_SIZE(obj) != 2) {
        PyErr_Format(PyExc_TypeError, "%s must be a tuple of two ints, not %R", what, obj);
        return -1;
    }
    for (int i = 0; i < 2; i++)
        if (int_in_range(PyTuple_GET_ITEM(obj, i), what, i, 0, UINT32_MAX, 1, error, &out[i]) < 0)
            return -1;
    return 0;
}

int pjpy_int_pair(PyObject *obj, const char *what, const int64_t range[4], PyObject *error,
                  int64_t out[2]) {
    if (!PyTuple_Check(obj) || PyTuple_GET_SIZE(obj) != 2) {
        PyErr_Format(PyExc_TypeError, "%s must be a tuple of two ints, not %R", what, obj);
        return -1;
    }
    for (int i = 0; i < 2; i++)
        if (int_in_range(PyTuple_GET_ITEM(obj, i), what, i, range[2 * i], range[2 * i + 1], 0,
                         error, &out[i]) < 0)
            return -1;
    return 0;
}

int pjpy_address_arg(PyObject *obj, const char *what, void **out) {
    PyObject *value = PyNumber_Index(obj);
    if (value == NULL) {
        if (PyErr_ExceptionMatches(PyExc_TypeError)) {
            PyErr_Clear();
            PyErr_Format(PyExc_TypeError, "%s must be an int (an address), not %.100s", what,
                         Py_TYPE(obj)->tp_name);
        }
        return -1;
    }
    /* Unsigned: an address may have its top bit set (a tagged pointer). */
    unsigned long long u = PyLong_AsUnsignedLongLong(value);
    int failed = u == (unsigned long long)-1 && PyErr_Occurred();
#if UINTPTR_MAX < ULLONG_MAX
    failed = failed || u > UINTPTR_MAX;
#endif
    if (failed) {
        PyErr_Clear();
        PyErr_Format(PyExc_OverflowError,
                     "%s is %S: not an address (it must be between 0 and %llu)", what, value,
                     (unsigned long long)UINTPTR_MAX);
    }
    Py_DECREF(value);
    if (failed)
        return -1;
    *out = (void *)(uintptr_t)u;
    return 0;
}
