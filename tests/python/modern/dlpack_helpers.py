"""Helpers shared by the modern tests: capsule inspection through ctypes
(the DLPack structs as the DLPack 1.x ABI lays them out) and producer
wrappers."""
import ctypes

import numpy as np

KDL_CPU = 1
KDL_ONEAPI = 14

READ_ONLY = 1 << 0
IS_COPIED = 1 << 1

# ------------------------------------------------------ capsules via ctypes

_api = ctypes.pythonapi
_api.PyCapsule_GetName.restype = ctypes.c_char_p
_api.PyCapsule_GetName.argtypes = [ctypes.py_object]
_api.PyCapsule_IsValid.restype = ctypes.c_int
_api.PyCapsule_IsValid.argtypes = [ctypes.py_object, ctypes.c_char_p]
_api.PyCapsule_GetPointer.restype = ctypes.c_void_p
_api.PyCapsule_GetPointer.argtypes = [ctypes.py_object, ctypes.c_char_p]


def capsule_name(capsule):
    return _api.PyCapsule_GetName(capsule).decode()


def capsule_valid(capsule, name):
    return bool(_api.PyCapsule_IsValid(capsule, name.encode()))


class DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int), ("device_id", ctypes.c_int32)]


class DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", DLDevice), ("ndim", ctypes.c_int32),
                ("dtype", DLDataType), ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)), ("byte_offset", ctypes.c_uint64)]


class DLManagedTensorVersioned(ctypes.Structure):
    _fields_ = [("major", ctypes.c_uint32), ("minor", ctypes.c_uint32),
                ("manager_ctx", ctypes.c_void_p), ("deleter", ctypes.c_void_p),
                ("flags", ctypes.c_uint64), ("dl_tensor", DLTensor)]


class DLManagedTensor(ctypes.Structure):
    _fields_ = [("dl_tensor", DLTensor), ("manager_ctx", ctypes.c_void_p),
                ("deleter", ctypes.c_void_p)]


def versioned(capsule):
    """The DLManagedTensorVersioned of an unconsumed versioned capsule: a
    view into the producer's struct, which keeps the capsule alive."""
    assert capsule_name(capsule) == "dltensor_versioned"
    t = DLManagedTensorVersioned.from_address(
        _api.PyCapsule_GetPointer(capsule, b"dltensor_versioned"))
    t.capsule = capsule  # the struct lives as long as its capsule
    return t


def legacy(capsule):
    assert capsule_name(capsule) == "dltensor"
    t = DLManagedTensor.from_address(_api.PyCapsule_GetPointer(capsule, b"dltensor"))
    t.capsule = capsule
    return t


class Recorder:
    """Wraps a producer and records the keywords each consumer passes."""

    def __init__(self, inner):
        self.inner, self.calls = inner, []

    def __dlpack__(self, **kwargs):
        self.calls.append(kwargs)
        return self.inner.__dlpack__(**kwargs)

    def __dlpack_device__(self):
        return self.inner.__dlpack_device__()


class Holder:
    """Presents one ready-made capsule through the protocol."""

    def __init__(self, capsule, device):
        self.capsule, self.device = capsule, device

    def __dlpack__(self, **kwargs):
        return self.capsule

    def __dlpack_device__(self):
        return self.device


def aligned(shape, dtype, align=64, offset=0):
    """A NumPy array starting `offset` bytes past an `align`-byte boundary."""
    dtype = np.dtype(dtype)
    n = int(np.prod(shape)) * dtype.itemsize
    raw = np.empty(n + align + offset, dtype=np.uint8)
    start = (-raw.ctypes.data) % align + offset
    return raw[start:start + n].view(dtype).reshape(shape)
