"""pjrt_dlpack.jax on JAX's built-in cpu, a platform JAX exports itself: the
tensor handed out is JAX's own (jaxlib's export: ready, the PJRT buffer
pinned), as it is for a legacy ask and wrapped in a versioned tensor of
ours (Client.rewrap_dlpack) for a versioned one, and it describes the array
exactly as this module's own export does (which copy=True still takes).
Client.rewrap_dlpack hands back None for a tensor it would not describe so,
and refuses what is not an unconsumed legacy capsule."""
import ctypes
import gc
import os

os.environ.setdefault("JAX_PLATFORMS", "cpu")

import jax  # noqa: E402
import ml_dtypes  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
import torch  # noqa: E402

import dlpack_ctypes as dl  # noqa: E402
import pjrt_dlpack as pd  # noqa: E402
import pjrt_dlpack.jax as pjax  # noqa: E402
from pjrt_dlpack import _pjrt_dlpack as core  # noqa: E402

READ_ONLY, IS_COPIED = 1, 2
CPU = (int(pd.kDLCPU), 0)

_capsule_new = ctypes.pythonapi.PyCapsule_New
_capsule_new.restype = ctypes.py_object
_capsule_new.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]


def legacy_capsule(tensor):
    """An unconsumed legacy capsule of a DLManagedTensor made here, with no
    destructor (the caller keeps the struct)."""
    return _capsule_new(ctypes.addressof(tensor), b"dltensor", None)
DTYPES = [np.bool_, np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.float16,
          ml_dtypes.bfloat16, np.float32, np.complex64]


def described(capsule):
    """What a consumer reads of an unconsumed capsule."""
    t = dl.versioned(capsule) if dl.capsule_name(capsule) == "dltensor_versioned" \
        else dl.legacy(capsule)
    d = t.dl_tensor
    return {"data": d.data, "device": (d.device.device_type, d.device.device_id),
            "dtype": (d.dtype.code, d.dtype.bits, d.dtype.lanes), "shape": list(d.dims()),
            "strides": list(d.steps()), "byte_offset": d.byte_offset}


def flags(capsule):
    return dl.versioned(capsule).flags


@pytest.fixture
def x():
    return jax.device_put(np.arange(12, dtype=np.float32).reshape(3, 4), jax.devices("cpu")[0])


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda t: np.dtype(t).name)
def test_jaxs_tensor_is_described_as_ours(dtype, cpu):
    a = (np.arange(24) % 3).reshape(2, 3, 4).astype(dtype)
    x = jax.device_put(a, jax.devices("cpu")[0])
    theirs = pjax.to_dlpack(x, max_version=(1, 3))
    ours = pjax.to_dlpack(x, max_version=(1, 3), copy=True)  # this module's own export
    t, o = described(theirs), described(ours)
    assert dl.capsule_name(theirs) == "dltensor_versioned"
    assert t["data"] == x.unsafe_buffer_pointer() != o["data"]
    assert {k: v for k, v in t.items() if k != "data"} == \
        {k: v for k, v in o.items() if k != "data"}
    assert flags(theirs) == 0 and flags(ours) == IS_COPIED
    # The same values through a consumer, zero-copy for JAX's.
    b = cpu.from_dlpack(theirs)
    assert b.unsafe_buffer_pointer() == x.unsafe_buffer_pointer()
    assert np.array_equal(np.asarray(b), a)


def test_read_only_and_legacy_asks(x):
    ro = pjax.to_dlpack(x, max_version=(1, 3), read_only=True)
    assert flags(ro) == READ_ONLY
    assert described(ro)["data"] == x.unsafe_buffer_pointer()
    assert not np.from_dlpack(pjax.export(x, read_only=True)).flags.writeable
    # A legacy ask gets JAX's capsule itself.
    legacy = pjax.to_dlpack(x)
    assert dl.capsule_name(legacy) == "dltensor"
    assert described(legacy)["data"] == x.unsafe_buffer_pointer()


def test_consumers_read_the_array_zero_copy(x):
    n = np.from_dlpack(pjax.export(x))
    t = torch.from_dlpack(pjax.export(x))
    assert n.ctypes.data == t.data_ptr() == x.unsafe_buffer_pointer()
    assert n.tolist() == t.tolist() == np.asarray(x).tolist()


def test_tensor_outlives_the_array_and_its_capsule(x, cpu):
    """The versioned tensor keeps JAX's capsule, which keeps the array and
    its buffer: nothing of it needs the caller's references."""
    expected = np.asarray(x).tolist()
    capsule = pjax.to_dlpack(x, max_version=(1, 3))
    del x
    gc.collect()
    b = cpu.from_dlpack(capsule)
    del capsule
    gc.collect()
    assert np.asarray(b).tolist() == expected


def test_rewrap_hands_back_none_for_what_it_would_not_describe(x):
    capsule = x.__dlpack__()
    wrong_device = (int(pd.kDLCUDA), 0)
    assert core.Client.rewrap_dlpack(capsule, wrong_device, True, False) is None
    assert dl.capsule_name(capsule) == "dltensor"  # untouched, still usable
    assert core.Client.rewrap_dlpack(capsule, CPU, False, False) is capsule
    # A sub-byte dtype and strides that are not compact: this module says
    # neither through another producer's tensor.
    data = (ctypes.c_uint8 * 64)()
    for dtype, strides in [((0, 4), None), ((2, 32), (8, 1))]:
        h = dl.HostTensor(ctypes.addressof(data), [2, 4], dtype=dtype)
        if strides is not None:
            h.strides[0], h.strides[1] = strides
        m = dl.DLManagedTensor()
        m.dl_tensor = h.struct.dl_tensor
        legacy = legacy_capsule(m)
        assert core.Client.rewrap_dlpack(legacy, CPU, True, False) is None
        assert dl.capsule_name(legacy) == "dltensor"


def test_rewrap_refuses_what_is_not_an_unconsumed_legacy_capsule(x, cpu):
    with pytest.raises(TypeError, match="4 arguments"):
        core.Client.rewrap_dlpack(x.__dlpack__(), (1, 0))
    with pytest.raises(TypeError, match="capsule must be a capsule"):
        core.Client.rewrap_dlpack(b"no", (1, 0), True, False)
    versioned = pjax.to_dlpack(x, max_version=(1, 3))
    with pytest.raises(ValueError, match="not an unconsumed legacy"):
        core.Client.rewrap_dlpack(versioned, (1, 0), True, False)
    used = x.__dlpack__()
    cpu.from_dlpack(used)
    with pytest.raises(ValueError, match="used_dltensor"):
        core.Client.rewrap_dlpack(used, (1, 0), True, False)
    with pytest.raises(OverflowError):
        core.Client.rewrap_dlpack(x.__dlpack__(), (1, 2 ** 40), True, False)
