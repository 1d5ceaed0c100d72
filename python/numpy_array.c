/*
 * numpy_array.c — a NumPy array described as a DLPack tensor by this
 * module, without calling ndarray.__dlpack__.
 *
 * NumPy publishes no DLPack C exchange table, so every import of an array
 * through the protocol is a Python method call that parses its keywords,
 * allocates a tensor and a capsule, and a deleter call later: about 850 of
 * the 3,250 instructions of Client.from_dlpack(array) (bench/README.md).
 * For an exactly-ndarray whose tensor NumPy would make plainly, the module
 * reads what that tensor holds from the array itself, through NumPy's
 * public C ABI: the fields PyArray_DATA, PyArray_NDIM, PyArray_DIMS,
 * PyArray_STRIDES, PyArray_FLAGS and PyArray_DESCR(x)->type_num and
 * ->byteorder read, which every extension built against NumPy reads at
 * these offsets, NumPy 1.x and 2.x alike (declared here, not included).
 * The first array described is checked against what NumPy says of it in
 * Python first (__array_interface__, shape, strides); any difference turns the reader off for the
 * life of the process, and every array then goes through __dlpack__.
 *
 * Anything NumPy's __dlpack__ would answer differently or refuse (a
 * read-only, unaligned or byte-swapped array, strides that are not whole
 * elements, a dtype other than the integers, floats and complex numbers,
 * more than NP_MAX_DIMS dimensions) is declined, and the caller
 * asks __dlpack__: its answer, or its exception, is NumPy's own.
 */

#include "pjdl_py.h"

#include <stdio.h>
#include <stdlib.h>

/* NumPy's array object and dtype, as far as the fields read here (NumPy's
 * ndarraytypes.h: PyArrayObject_fields, PyArray_Descr; the same offsets in
 * NumPy 1.x and 2.x). */
typedef struct {
    PyObject ob_base;
    PyTypeObject *typeobj;
    char kind;
    char type;
    char byteorder;
    char former_flags;
    int type_num;
} np_descr;

typedef struct {
    PyObject ob_base;
    char *data;
    int nd;
    Py_ssize_t *dimensions;
    Py_ssize_t *strides;
    PyObject *base;
    np_descr *descr;
    int flags;
} np_array;

/* NumPy's flag bits and type numbers (public enums), and the most
 * dimensions read here (NumPy 1.x's own limit). */
enum { NP_MAX_DIMS = 32 };
enum {
    NP_WRITEABLE = 0x0400,
    NP_ALIGNED = 0x0100,
    NP_WRITEBACKIFCOPY = 0x2000,
};
enum {
    NP_BYTE = 1,
    NP_UBYTE,
    NP_SHORT,
    NP_USHORT,
    NP_INT,
    NP_UINT,
    NP_LONG,
    NP_ULONG,
    NP_LONGLONG,
    NP_ULONGLONG,
    NP_FLOAT,
    NP_DOUBLE,
    NP_LONGDOUBLE,
    NP_CFLOAT,
    NP_CDOUBLE,
    NP_HALF = 23,
};

/* The DLPack dtype of a NumPy type number this reader takes (1), else 0. */
static int dl_dtype_of(int type_num, DLDataType *out) {
    static const struct {
        uint8_t code;
        uint8_t bytes;
    } table[] = {
        [NP_BYTE] = {kDLInt, 1},
        [NP_UBYTE] = {kDLUInt, 1},
        [NP_SHORT] = {kDLInt, sizeof(short)},
        [NP_USHORT] = {kDLUInt, sizeof(short)},
        [NP_INT] = {kDLInt, sizeof(int)},
        [NP_UINT] = {kDLUInt, sizeof(int)},
        [NP_LONG] = {kDLInt, sizeof(long)},
        [NP_ULONG] = {kDLUInt, sizeof(long)},
        [NP_LONGLONG] = {kDLInt, sizeof(long long)},
        [NP_ULONGLONG] = {kDLUInt, sizeof(long long)},
        [NP_FLOAT] = {kDLFloat, 4},
        [NP_DOUBLE] = {kDLFloat, 8},
        [NP_CFLOAT] = {kDLComplex, 8},
        [NP_CDOUBLE] = {kDLComplex, 16},
        [NP_HALF] = {kDLFloat, 2},
    };
    if (type_num < 0 || (size_t)type_num >= sizeof table / sizeof table[0] ||
        table[type_num].bytes == 0)
        return 0;
    *out = (DLDataType){table[type_num].code, (uint8_t)(table[type_num].bytes * 8), 1};
    return 1;
}

/* The shape handed over is the array's own dimensions. */
_Static_assert(sizeof(Py_ssize_t) == sizeof(int64_t), "npy_intp is not int64_t here");

/* The tensor, with its strides in elements (NumPy's are in bytes) and the
 * array it holds a reference to; the shape is the array's own. */
typedef struct {
    DLManagedTensorVersioned tensor;
    PyObject *array;
    int64_t strides[NP_MAX_DIMS];
} np_tensor;

/* One tensor kept for the next import (guarded by the GIL, as the import
 * guard's spare). */
static np_tensor *spare;

static void np_tensor_delete(DLManagedTensorVersioned *self) {
    np_tensor *t = self->manager_ctx;
    Py_DECREF(t->array);
    if (spare == NULL)
        spare = t;
    else
        free(t);
}

/* Reads x (an exact ndarray) into *t: 1, or 0 when NumPy's own __dlpack__
 * must answer (see the top of the file). Reads only. */
static int read_array(PyObject *x, DLManagedTensorVersioned *t, int64_t *strides) {
    const np_array *a = (const np_array *)x;
    const np_descr *d = a->descr;
    int nd = a->nd;
    if ((a->flags & (NP_WRITEABLE | NP_ALIGNED | NP_WRITEBACKIFCOPY)) !=
            (NP_WRITEABLE | NP_ALIGNED) ||
        nd < 0 || nd > NP_MAX_DIMS || d == NULL ||
        !(d->byteorder == '=' || d->byteorder == '|' ||
          d->byteorder == (PY_LITTLE_ENDIAN ? '<' : '>')) ||
        !dl_dtype_of(d->type_num, &t->dl_tensor.dtype))
        return 0;
    int64_t es = t->dl_tensor.dtype.bits / 8;
    for (int i = 0; i < nd; i++) {
        if (a->strides[i] % es != 0)
            return 0;
        strides[i] = a->strides[i] / es;
    }
    t->version.major = DLPACK_MAJOR_VERSION;
    t->version.minor = DLPACK_MINOR_VERSION;
    t->flags = 0;
    t->dl_tensor.data = a->data;
    t->dl_tensor.device = (DLDevice){kDLCPU, 0};
    t->dl_tensor.ndim = nd;
    t->dl_tensor.shape = nd > 0 ? (int64_t *)a->dimensions : NULL;
    t->dl_tensor.strides = nd > 0 ? strides : NULL;
    t->dl_tensor.byte_offset = 0;
    return 1;
}

/* Whether what read_array read of x is what NumPy says of x in Python: the
 * data address and writability (x.__array_interface__'s data), x.shape,
 * x.strides (bytes) and the typestr (byte order, kind, size). 1, or 0 (any
 * difference, or an error, cleared). */
static int python_agrees(PyObject *x, const DLTensor *dl) {
    int64_t es = dl->dtype.bits / 8;
    static const char kinds[] = {
        [kDLInt] = 'i', [kDLUInt] = 'u', [kDLFloat] = 'f', [kDLComplex] = 'c'};
    char typestr[8];
    snprintf(typestr, sizeof typestr, "%c%c%d",
             es == 1            ? '|'
             : PY_LITTLE_ENDIAN ? '<'
                                : '>',
             kinds[dl->dtype.code], (int)es);
    PyObject *shape = PyTuple_New(dl->ndim), *strides = PyTuple_New(dl->ndim);
    int built = shape != NULL && strides != NULL;
    for (int i = 0; built && i < dl->ndim; i++) {
        PyObject *n = PyLong_FromLongLong(dl->shape[i]);
        PyObject *s = PyLong_FromLongLong(dl->strides[i] * es);
        if (n != NULL) /* a tuple left with an empty slot is freed safely */
            PyTuple_SET_ITEM(shape, i, n);
        if (s != NULL)
            PyTuple_SET_ITEM(strides, i, s);
        built = n != NULL && s != NULL;
    }
    PyObject *iface = PyObject_GetAttrString(x, "__array_interface__");
    PyObject *x_shape = PyObject_GetAttrString(x, "shape");
    PyObject *x_strides = PyObject_GetAttrString(x, "strides");
    PyObject *have = NULL, *want = NULL;
    if (built && iface != NULL && PyDict_Check(iface)) {
        /* A NULL argument (a missing key, a failed read) makes NULL. */
        have = Py_BuildValue("(OOOO)", PyDict_GetItemString(iface, "data"), x_shape, x_strides,
                             PyDict_GetItemString(iface, "typestr"));
        want = Py_BuildValue("((NO)OOs)", PyLong_FromVoidPtr(dl->data), Py_False, shape, strides,
                             typestr);
    }
    int ok = have != NULL && want != NULL && PyObject_RichCompareBool(have, want, Py_EQ) == 1;
    PyErr_Clear();
    Py_XDECREF(shape);
    Py_XDECREF(strides);
    Py_XDECREF(iface);
    Py_XDECREF(x_shape);
    Py_XDECREF(x_strides);
    Py_XDECREF(have);
    Py_XDECREF(want);
    return ok;
}

/* 0 not yet checked, 1 checked and agreeing, -1 off; the arrays read.
 * Guarded by the GIL. */
static int checked;
static unsigned long long reads;

PyObject *pjpy_numpy_reads_py(PyObject *module, PyObject *unused) {
    (void)module;
    (void)unused;
    return Py_BuildValue("(iK)", checked, reads);
}

int pjpy_numpy_tensor(PyObject *x, DLManagedTensorVersioned **out) {
    if (checked < 0)
        return 0;
    np_tensor *t = spare;
    spare = NULL;
    if (t == NULL && (t = malloc(sizeof *t)) == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    if (!read_array(x, &t->tensor, t->strides) ||
        (checked == 0 && (checked = python_agrees(x, &t->tensor.dl_tensor) ? 1 : -1) < 0)) {
        spare = t;
        return 0;
    }
    reads++;
    t->array = Py_NewRef(x);
    t->tensor.manager_ctx = t;
    t->tensor.deleter = np_tensor_delete;
    *out = &t->tensor;
    return 1;
}
