/*
 * errors.c — the module's exception types and the conversion of library
 * failures (pjdl_code + pjdl_last_error()) into Python exceptions.
 */
#include "pjdl_py.h"

PyObject *pjpy_error;
PyObject *pjpy_dlpack_error;
PyObject *pjpy_dlpack_copy_error;
PyObject *pjpy_not_dlpack_error;

/* The names of the attributes every error carries, interned once and kept
 * for the life of the process. Setting an attribute interns its name; a
 * name nobody keeps is added to the interpreter's table of interned
 * strings and taken out again with each exception, and that churn of a
 * table of ~41,000 strings (NumPy's, PyTorch's) used up its free slots and
 * made it grow by 0.94 MiB in the soak's Python process
 * (docs/reliability.md, "Soak"). */
static PyObject *attr_code, *attr_code_name;

int pjpy_errors_init(PyObject *module) {
    if (attr_code == NULL && (attr_code = PyUnicode_InternFromString("code")) == NULL)
        return -1;
    if (attr_code_name == NULL &&
        (attr_code_name = PyUnicode_InternFromString("code_name")) == NULL)
        return -1;
    pjpy_error = PyErr_NewExceptionWithDoc(
        "pjrt_dlpack.Error",
        "A libpjrt_dlpack or PJRT plugin failure. `code` is the status code (an int, "
        "PJRT/absl numbering) and `code_name` its name, e.g. 'INVALID_ARGUMENT'.",
        PyExc_RuntimeError, NULL);
    if (pjpy_error == NULL)
        return -1;
    PyObject *bases = PyTuple_Pack(2, pjpy_error, PyExc_BufferError);
    if (bases == NULL)
        return -1;
    pjpy_dlpack_error = PyErr_NewExceptionWithDoc(
        "pjrt_dlpack.DLPackError",
        "Data that cannot be exchanged through DLPack as requested (a BufferError in the "
        "sense of the array API standard): unsupported device, stream, layout, dtype or copy "
        "request, a consumed capsule, or a deleted buffer.",
        bases, NULL);
    Py_DECREF(bases);
    if (pjpy_dlpack_error == NULL)
        return -1;
    /* The array API standard asks from_dlpack for a ValueError whenever
     * copy=False and a copy would be needed, while __dlpack__'s `copy`
     * asks for a BufferError in the same case: one type that is both
     * satisfies callers written against either sentence. Every such
     * refusal raises it: a device, a layout, an alignment, a read-only
     * tensor, a sub-byte form, a producer's copy. */
    bases = PyTuple_Pack(2, pjpy_dlpack_error, PyExc_ValueError);
    if (bases == NULL)
        return -1;
    pjpy_dlpack_copy_error = PyErr_NewExceptionWithDoc(
        "pjrt_dlpack.DLPackCopyError",
        "A DLPackError that is also a ValueError: copy=False, and no view is possible as "
        "asked (another device or memory, a layout, alignment, read-only flag or sub-byte form "
        "PJRT cannot view, or a copy the producer made).",
        bases, NULL);
    Py_DECREF(bases);
    if (pjpy_dlpack_copy_error == NULL)
        return -1;
    /* from_dlpack of an object without __dlpack__: the array API (2023.12)
     * says AttributeError; callers written before it catch TypeError. */
    bases = PyTuple_Pack(2, PyExc_AttributeError, PyExc_TypeError);
    if (bases == NULL)
        return -1;
    pjpy_not_dlpack_error = PyErr_NewExceptionWithDoc(
        "pjrt_dlpack.NotDLPackError",
        "from_dlpack was given an object that has no __dlpack__ method and is not a DLPack "
        "capsule: an AttributeError (as the array API standard asks) and a TypeError.",
        bases, NULL);
    Py_DECREF(bases);
    if (pjpy_not_dlpack_error == NULL)
        return -1;
    if (PyModule_AddObjectRef(module, "NotDLPackError", pjpy_not_dlpack_error) < 0)
        return -1;
    if (PyModule_AddObjectRef(module, "Error", pjpy_error) < 0 ||
        PyModule_AddObjectRef(module, "DLPackError", pjpy_dlpack_error) < 0 ||
        PyModule_AddObjectRef(module, "DLPackCopyError", pjpy_dlpack_copy_error) < 0)
        return -1;
    return 0;
}

PyObject *pjpy_raise(PyObject *type, pjdl_code code) {
    /* Read the message first: any later library call may replace it. */
    const char *msg = pjdl_last_error();
    const char *name = pjdl_code_name(code);
    PyObject *text = PyUnicode_FromFormat("%s: %s", name, (msg && *msg) ? msg : "(no message)");
    if (text == NULL)
        return NULL;
    PyObject *exc = PyObject_CallOneArg(type, text);
    Py_DECREF(text);
    if (exc == NULL)
        return NULL;
    PyObject *code_obj = PyLong_FromLong((long)code);
    PyObject *name_obj = PyUnicode_FromString(name);
    if (code_obj == NULL || name_obj == NULL || PyObject_SetAttr(exc, attr_code, code_obj) < 0 ||
        PyObject_SetAttr(exc, attr_code_name, name_obj) < 0) {
        Py_XDECREF(code_obj);
        Py_XDECREF(name_obj);
        Py_DECREF(exc);
        return NULL;
    }
    Py_DECREF(code_obj);
    Py_DECREF(name_obj);
    PyErr_SetObject(type, exc);
    Py_DECREF(exc);
    return NULL;
}

PyObject *pjpy_raise_error(pjdl_code code) {
    return pjpy_raise(pjpy_error, code);
}

PyObject *pjpy_raise_exchange(pjdl_code code) {
    if (pjdl_last_error_is_copy_refused())
        return pjpy_raise(pjpy_dlpack_copy_error, code);
    switch (code) {
    case PJDL_INVALID_ARGUMENT:
    case PJDL_NOT_FOUND:
    case PJDL_FAILED_PRECONDITION:
    case PJDL_UNIMPLEMENTED:
        return pjpy_raise(pjpy_dlpack_error, code);
    default:
        return pjpy_raise(pjpy_error, code);
    }
}
