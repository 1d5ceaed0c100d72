/*
 * dtype.c — element types: NumPy's names for PJRT types, and PEP 3118
 * buffer-protocol formats to PJRT types.
 */

#include "pjdl_py.h"

#include <stdio.h>
#include <string.h>

const char *pjpy_dtype_name(PJRT_Buffer_Type type) {
    switch (type) {
    case PJRT_Buffer_Type_PRED:
        return "bool";
    case PJRT_Buffer_Type_S8:
        return "int8";
    case PJRT_Buffer_Type_S16:
        return "int16";
    case PJRT_Buffer_Type_S32:
        return "int32";
    case PJRT_Buffer_Type_S64:
        return "int64";
    case PJRT_Buffer_Type_U8:
        return "uint8";
    case PJRT_Buffer_Type_U16:
        return "uint16";
    case PJRT_Buffer_Type_U32:
        return "uint32";
    case PJRT_Buffer_Type_U64:
        return "uint64";
    case PJRT_Buffer_Type_F16:
        return "float16";
    case PJRT_Buffer_Type_F32:
        return "float32";
    case PJRT_Buffer_Type_F64:
        return "float64";
    case PJRT_Buffer_Type_BF16:
        return "bfloat16";
    case PJRT_Buffer_Type_C64:
        return "complex64";
    case PJRT_Buffer_Type_C128:
        return "complex128";
    case PJRT_Buffer_Type_F8E5M2:
        return "float8_e5m2";
    case PJRT_Buffer_Type_F8E4M3FN:
        return "float8_e4m3fn";
    case PJRT_Buffer_Type_F8E4M3B11FNUZ:
        return "float8_e4m3b11fnuz";
    case PJRT_Buffer_Type_F8E5M2FNUZ:
        return "float8_e5m2fnuz";
    case PJRT_Buffer_Type_F8E4M3FNUZ:
        return "float8_e4m3fnuz";
    case PJRT_Buffer_Type_S4:
        return "int4";
    case PJRT_Buffer_Type_U4:
        return "uint4";
    case PJRT_Buffer_Type_S2:
        return "int2";
    case PJRT_Buffer_Type_U2:
        return "uint2";
    case PJRT_Buffer_Type_F8E4M3:
        return "float8_e4m3";
    case PJRT_Buffer_Type_F8E3M4:
        return "float8_e3m4";
    case PJRT_Buffer_Type_F8E8M0FNU:
        return "float8_e8m0fnu";
    case PJRT_Buffer_Type_F4E2M1FN:
        return "float4_e2m1fn";
    case PJRT_Buffer_Type_S1:
        return "int1";
    case PJRT_Buffer_Type_U1:
        return "uint1";
    case PJRT_Buffer_Type_F6E2M3FN:
        return "float6_e2m3fn";
    case PJRT_Buffer_Type_F6E3M2FN:
        return "float6_e3m2fn";
    default:
        return NULL;
    }
}

static PJRT_Buffer_Type sized_int(int is_signed, Py_ssize_t itemsize) {
    switch (itemsize) {
    case 1:
        return is_signed ? PJRT_Buffer_Type_S8 : PJRT_Buffer_Type_U8;
    case 2:
        return is_signed ? PJRT_Buffer_Type_S16 : PJRT_Buffer_Type_U16;
    case 4:
        return is_signed ? PJRT_Buffer_Type_S32 : PJRT_Buffer_Type_U32;
    case 8:
        return is_signed ? PJRT_Buffer_Type_S64 : PJRT_Buffer_Type_U64;
    default:
        return PJRT_Buffer_Type_INVALID;
    }
}

static PJRT_Buffer_Type from_code(const char *f, Py_ssize_t itemsize) {
    if (f[0] == 'Z' && f[1] != '\0' && f[2] == '\0') {
        if (f[1] == 'f' && itemsize == 8)
            return PJRT_Buffer_Type_C64;
        if (f[1] == 'd' && itemsize == 16)
            return PJRT_Buffer_Type_C128;
        return PJRT_Buffer_Type_INVALID;
    }
    if (f[0] == '\0' || f[1] != '\0')
        return PJRT_Buffer_Type_INVALID;
    switch (f[0]) {
    case '?':
        return itemsize == 1 ? PJRT_Buffer_Type_PRED : PJRT_Buffer_Type_INVALID;
    case 'b':
    case 'h':
    case 'i':
    case 'l':
    case 'q':
    case 'n':
        return sized_int(1, itemsize);
    case 'B':
    case 'H':
    case 'I':
    case 'L':
    case 'Q':
    case 'N':
        return sized_int(0, itemsize);
    case 'e':
        return itemsize == 2 ? PJRT_Buffer_Type_F16 : PJRT_Buffer_Type_INVALID;
    case 'f':
        return itemsize == 4 ? PJRT_Buffer_Type_F32 : PJRT_Buffer_Type_INVALID;
    case 'd':
        return itemsize == 8 ? PJRT_Buffer_Type_F64 : PJRT_Buffer_Type_INVALID;
    default:
        return PJRT_Buffer_Type_INVALID;
    }
}

int pjpy_dl_dtype_from_name(const char *name, const char *what, DLDataType *out) {
    for (int t = PJRT_Buffer_Type_PRED; t <= PJRT_Buffer_Type_F6E3M2FN; t++) {
        const char *n = pjpy_dtype_name((PJRT_Buffer_Type)t);
        if (n == NULL || strcmp(n, name) != 0)
            continue;
        pjdl_code rc = pjdl_dtype_from_pjrt((PJRT_Buffer_Type)t, out);
        if (rc != PJDL_OK) {
            pjpy_raise_exchange(rc);
            return -1;
        }
        return 0;
    }
    PyErr_Format(pjpy_dlpack_error, "%s: dtype '%s' has no DLPack type", what, name);
    return -1;
}

PJRT_Buffer_Type pjpy_type_from_format(const char *format, Py_ssize_t itemsize) {
    const char *f = format ? format : "B";
    int foreign = 0;
    switch (f[0]) {
    case '@':
    case '=':
        f++;
        break;
    case '<':
        foreign = (PY_BIG_ENDIAN != 0);
        f++;
        break;
    case '>':
    case '!':
        foreign = (PY_BIG_ENDIAN == 0);
        f++;
        break;
    }
    PJRT_Buffer_Type t = PJRT_Buffer_Type_INVALID;
    /* A byte order is irrelevant for one-byte items. */
    if (!foreign || itemsize == 1)
        t = from_code(f, itemsize);
    if (t == PJRT_Buffer_Type_INVALID)
        PyErr_Format(PyExc_TypeError,
                     "unsupported buffer format '%s' (item size %zd): expected a native-endian "
                     "bool, integer, float16/32/64 or complex64/128 format",
                     format ? format : "B", itemsize);
    return t;
}

PyObject *pjpy_ml_dtypes_view(PyObject *obj, PJRT_Buffer_Type *type) {
    PyObject *dtype = PyObject_GetAttrString(obj, "dtype");
    /* NumPy's isbuiltin: 2 for a user-defined dtype such as ml_dtypes'
     * (whose kind is 'V', or 'f' for float8_e5m2), 0 or 1 for NumPy's own. */
    PyObject *kind = dtype ? PyObject_GetAttrString(dtype, "isbuiltin") : NULL;
    PyObject *name = kind ? PyObject_GetAttrString(dtype, "name") : NULL;
    PyObject *size = name ? PyObject_GetAttrString(dtype, "itemsize") : NULL;
    PyObject *view = NULL;
    int user = size && PyLong_Check(kind) && PyLong_AsLong(kind) == 2;
    const char *n = user && PyUnicode_Check(name) ? PyUnicode_AsUTF8(name) : NULL;
    long itemsize = n ? PyLong_AsLong(size) : -1;
    for (int t = PJRT_Buffer_Type_PRED; n && t <= PJRT_Buffer_Type_F6E3M2FN; t++) {
        const char *known = pjpy_dtype_name((PJRT_Buffer_Type)t);
        if (known == NULL || strcmp(known, n) != 0 || itemsize < 1 || itemsize > 8)
            continue;
        char unsigned_of_size[8];
        snprintf(unsigned_of_size, sizeof unsigned_of_size, "u%ld", itemsize);
        view = PyObject_CallMethod(obj, "view", "s", unsigned_of_size);
        *type = (PJRT_Buffer_Type)t;
        break;
    }
    if (view == NULL && PyErr_ExceptionMatches(PyExc_AttributeError))
        PyErr_Clear(); /* not an array with a dtype: not ours to judge */
    Py_XDECREF(size);
    Py_XDECREF(name);
    Py_XDECREF(kind);
    Py_XDECREF(dtype);
    return view;
}
