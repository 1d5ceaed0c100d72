"""DLPack through ctypes, for the tests (both environments and modern/):
the structs as the DLPack 1.x ABI lays them out, capsule inspection
(names, validity, the tensor inside), a producer handing out a ready-made
capsule, a DLPack C exchange API table wrapper calling a producer's
functions as a C consumer would, and tensors made here whose deleter counts
its calls. The one home of these declarations in the tests."""
import ctypes

KDL_CPU = 1
KDL_METAL = 8
KDL_ONEAPI = 14
KDL_FLOAT = 2
READ_ONLY = 1 << 0
IS_COPIED = 1 << 1


class DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int), ("device_id", ctypes.c_int32)]


class DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", DLDevice), ("ndim", ctypes.c_int32),
                ("dtype", DLDataType), ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)), ("byte_offset", ctypes.c_uint64)]

    def dims(self):
        return tuple(self.shape[i] for i in range(self.ndim))

    def steps(self):
        return tuple(self.strides[i] for i in range(self.ndim))


class DLManagedTensorVersioned(ctypes.Structure):
    _fields_ = [("major", ctypes.c_uint32), ("minor", ctypes.c_uint32),
                ("manager_ctx", ctypes.c_void_p), ("deleter", ctypes.c_void_p),
                ("flags", ctypes.c_uint64), ("dl_tensor", DLTensor)]


class DLManagedTensor(ctypes.Structure):
    _fields_ = [("dl_tensor", DLTensor), ("manager_ctx", ctypes.c_void_p),
                ("deleter", ctypes.c_void_p)]


# ------------------------------------------------------ capsules via ctypes

_py = ctypes.pythonapi
_py.PyCapsule_GetName.restype = ctypes.c_char_p
_py.PyCapsule_GetName.argtypes = [ctypes.py_object]
_py.PyCapsule_IsValid.restype = ctypes.c_int
_py.PyCapsule_IsValid.argtypes = [ctypes.py_object, ctypes.c_char_p]
_py.PyCapsule_GetPointer.restype = ctypes.c_void_p
_py.PyCapsule_GetPointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
_py.PyCapsule_New.restype = ctypes.py_object
_py.PyCapsule_New.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
_py.Py_DecRef.argtypes = [ctypes.py_object]
_py.Py_DecRef.restype = None


def capsule_name(capsule):
    return _py.PyCapsule_GetName(capsule).decode()


def capsule_valid(capsule, name):
    return bool(_py.PyCapsule_IsValid(capsule, name.encode()))


def versioned(capsule):
    """The DLManagedTensorVersioned of an unconsumed versioned capsule: a
    view into the producer's struct, which keeps the capsule alive."""
    assert capsule_name(capsule) == "dltensor_versioned"
    t = DLManagedTensorVersioned.from_address(
        _py.PyCapsule_GetPointer(capsule, b"dltensor_versioned"))
    t.capsule = capsule  # the struct lives as long as its capsule
    return t


def legacy(capsule):
    """The DLManagedTensor of an unconsumed legacy capsule."""
    assert capsule_name(capsule) == "dltensor"
    t = DLManagedTensor.from_address(_py.PyCapsule_GetPointer(capsule, b"dltensor"))
    t.capsule = capsule
    return t


class _DlInfo(ctypes.Structure):
    _fields_ = [("fname", ctypes.c_char_p), ("fbase", ctypes.c_void_p),
                ("sname", ctypes.c_char_p), ("saddr", ctypes.c_void_p)]


_libc = ctypes.CDLL(None)
_libc.dladdr.argtypes = [ctypes.c_void_p, ctypes.POINTER(_DlInfo)]


def deleter_library(capsule):
    """The file of the shared object whose code is the deleter of an
    unconsumed capsule's tensor: who made the tensor (jaxlib's _jax, our
    _pjrt_dlpack, ...)."""
    t = versioned(capsule) if capsule_name(capsule) == "dltensor_versioned" else legacy(capsule)
    info = _DlInfo()
    if not _libc.dladdr(t.deleter, ctypes.byref(info)) or not info.fname:
        return None
    return info.fname.decode()


class Holder:
    """Presents one ready-made capsule through the protocol, for consumers
    that only call __dlpack__ (NumPy 1.24 and PyTorch 1.13 do not accept
    capsules)."""

    def __init__(self, capsule, device):
        self.capsule, self.device = capsule, device

    def __dlpack__(self, **kwargs):
        return self.capsule

    def __dlpack_device__(self):
        return self.device


class Recorder:
    """Wraps a producer and records the keywords each consumer passes."""

    def __init__(self, inner):
        self.inner, self.calls = inner, []

    def __dlpack__(self, **kwargs):
        self.calls.append(kwargs)
        return self.inner.__dlpack__(**kwargs)

    def __dlpack_device__(self):
        return self.inner.__dlpack_device__()


class Header(ctypes.Structure):
    _fields_ = [("major", ctypes.c_uint32), ("minor", ctypes.c_uint32),
                ("prev_api", ctypes.c_void_p)]


class ExchangeAPI(ctypes.Structure):
    _fields_ = [("header", Header), ("managed_tensor_allocator", ctypes.c_void_p),
                ("managed_tensor_from_py_object_no_sync", ctypes.c_void_p),
                ("managed_tensor_to_py_object_no_sync", ctypes.c_void_p),
                ("dltensor_from_py_object_no_sync", ctypes.c_void_p),
                ("current_work_stream", ctypes.c_void_p)]


DELETER = ctypes.CFUNCTYPE(None, ctypes.c_void_p)
SET_ERROR = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_char_p, ctypes.c_char_p)
# PYFUNCTYPE: called with the GIL held, and a Python exception the function
# sets is raised here; the functions report failure that way.
FROM_PY = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.py_object,
                            ctypes.POINTER(ctypes.c_void_p))
TO_PY = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.POINTER(ctypes.c_void_p))
DLTENSOR = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.py_object, ctypes.POINTER(DLTensor))
STREAM = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.c_int, ctypes.c_int32,
                           ctypes.POINTER(ctypes.c_void_p))
ALLOC_ARGS = (ctypes.c_int, ctypes.POINTER(DLTensor), ctypes.POINTER(ctypes.c_void_p),
              ctypes.c_void_p, SET_ERROR)
ALLOC_GIL = ctypes.PYFUNCTYPE(*ALLOC_ARGS)
ALLOC_NOGIL = ctypes.CFUNCTYPE(*ALLOC_ARGS)  # ctypes releases the GIL around it

CAPSULE_NAME = b"dlpack_exchange_api"


def capsule_of(table_struct):
    """A capsule named dlpack_exchange_api holding `table_struct` (kept
    alive by the caller)."""
    return _py.PyCapsule_New(ctypes.addressof(table_struct), CAPSULE_NAME, None)


def steal(address):
    """The object of a new reference handed out as a PyObject* address."""
    obj = ctypes.cast(ctypes.c_void_p(address), ctypes.py_object).value  # +1
    _py.Py_DecRef(obj)  # the reference the function gave us
    return obj


class Table:
    """A producer's table, called as a C consumer calls it."""

    def __init__(self, cls):
        capsule = cls.__dlpack_c_exchange_api__
        self.capsule = capsule
        self.address = _py.PyCapsule_GetPointer(capsule, CAPSULE_NAME)
        self.api = ExchangeAPI.from_address(self.address)

    @property
    def version(self):
        return (self.api.header.major, self.api.header.minor)

    def managed(self, obj):
        """managed_tensor_from_py_object_no_sync: the tensor's address."""
        out = ctypes.c_void_p()
        assert FROM_PY(self.api.managed_tensor_from_py_object_no_sync)(obj, ctypes.byref(out)) == 0
        assert out.value
        return out.value

    def to_object(self, tensor_address):
        """managed_tensor_to_py_object_no_sync."""
        out = ctypes.c_void_p()
        fn = TO_PY(self.api.managed_tensor_to_py_object_no_sync)
        assert fn(tensor_address, ctypes.byref(out)) == 0
        return steal(out.value)

    def dltensor(self, obj):
        out = DLTensor()
        assert DLTENSOR(self.api.dltensor_from_py_object_no_sync)(obj, ctypes.byref(out)) == 0
        return out

    def stream(self, device_type, device_id):
        out = ctypes.c_void_p(1)
        assert STREAM(self.api.current_work_stream)(device_type, device_id, ctypes.byref(out)) == 0
        return out.value

    def allocate(self, shape, device=(KDL_CPU, 0), dtype=(KDL_FLOAT, 32), with_gil=True):
        """managed_tensor_allocator: (tensor address or None, errors), where
        errors lists the (kind, message) pairs SetError received."""
        errors = []

        @SET_ERROR
        def set_error(ctx, kind, message):
            errors.append((kind.decode(), message.decode()))

        dims = (ctypes.c_int64 * max(1, len(shape)))(*shape)
        proto = DLTensor()
        proto.device.device_type, proto.device.device_id = device
        proto.ndim = len(shape)
        proto.dtype.code, proto.dtype.bits, proto.dtype.lanes = dtype[0], dtype[1], 1
        proto.shape = dims
        out = ctypes.c_void_p()
        fn = (ALLOC_GIL if with_gil else ALLOC_NOGIL)(self.api.managed_tensor_allocator)
        rc = fn(ctypes.byref(proto), ctypes.byref(out), None, set_error)
        assert (rc == 0) == (not errors), (rc, errors)
        return (out.value if rc == 0 else None), errors


def managed(address):
    return DLManagedTensorVersioned.from_address(address)


class CountingDeleter:
    """Replaces a managed tensor's deleter by one that counts its calls and
    then calls the original."""

    def __init__(self, address):
        self.calls = 0
        self.tensor = managed(address)
        original = self.tensor.deleter
        self._original = DELETER(original) if original else None

        def run(p):
            self.calls += 1
            if self._original is not None:
                self._original(p)

        self._callback = DELETER(run)
        self.tensor.deleter = ctypes.cast(self._callback, ctypes.c_void_p).value

    def delete(self):
        """Calls the tensor's deleter as its owner would."""
        DELETER(self.tensor.deleter)(ctypes.addressof(self.tensor))


class HostTensor:
    """A versioned tensor made here over a host array (anything with a
    buffer-protocol f32 C-contiguous memory), with a counting deleter. It
    holds the array and the structs until deleted."""

    def __init__(self, data_address, shape, device=(KDL_CPU, 0), dtype=(KDL_FLOAT, 32),
                 major=1):
        self.calls = 0
        n = len(shape)
        self.shape = (ctypes.c_int64 * max(1, n))(*shape)
        strides, s = [], 1
        for d in reversed(shape):
            strides.insert(0, s)
            s *= d
        self.strides = (ctypes.c_int64 * max(1, n))(*strides)
        t = self.struct = DLManagedTensorVersioned()
        t.major, t.minor = major, 3
        self._callback = DELETER(self._deleted)
        t.deleter = ctypes.cast(self._callback, ctypes.c_void_p).value
        t.dl_tensor.data = data_address
        t.dl_tensor.device.device_type, t.dl_tensor.device.device_id = device
        t.dl_tensor.ndim = n
        t.dl_tensor.dtype.code, t.dl_tensor.dtype.bits, t.dl_tensor.dtype.lanes = (
            dtype[0], dtype[1], 1)
        t.dl_tensor.shape = self.shape
        t.dl_tensor.strides = self.strides

    def _deleted(self, p):
        assert p == ctypes.addressof(self.struct)
        self.calls += 1

    @property
    def address(self):
        return ctypes.addressof(self.struct)
