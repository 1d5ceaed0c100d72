"""The module reads a NumPy array it imports itself (python/numpy_array.c)
instead of calling ndarray.__dlpack__: every import it takes must come out
exactly as the import of NumPy's own tensor of the same array, and every
array it declines must still reach NumPy (whose answer or exception is then
the import's). Runs on NumPy 1.24 (Debian) and NumPy 2 (the modern
environments): the reader must be on in both."""
import sys

import numpy as np
import pytest

import pjrt_dlpack
from pjrt_dlpack import _pjrt_dlpack as core

NUMPY2 = int(np.__version__.split(".")[0]) >= 2


def numpy_capsule(a):
    """NumPy's own tensor of `a`, as the protocol asks for it."""
    return a.__dlpack__(max_version=(1, 3)) if NUMPY2 else a.__dlpack__()


def reads():
    return core._numpy_reads()[1]


def outcome(client, x, copy, a):
    """What importing x (a or NumPy's tensor of it) gives: ("ok", whether
    it is a view of a's memory (None when a is empty), shape, dtype,
    values) or ("error", the exception's type)."""
    try:
        buf = client.from_dlpack(x, copy=copy)
    except Exception as e:  # compared by type, whatever it is
        return ("error", type(e))
    # An empty array's address may lie past its memory (a reversed view of
    # a 0-byte block), where a copy's fresh block can land: no view to see.
    view = buf.unsafe_buffer_pointer() == a.__array_interface__["data"][0] if a.size else None
    return ("ok", view, buf.shape, str(buf.dtype), np.asarray(buf).tolist())


def same_as_numpys_own(client, a, copy=None):
    """Imports a through the reader and NumPy's own tensor through the
    capsule; asserts the same outcome. Returns whether the reader took it."""
    before = reads()
    ours = outcome(client, a, copy, a)
    took = reads() - before
    try:
        capsule = numpy_capsule(a)
    except Exception as e:
        theirs = ("error", type(e))
    else:
        theirs = outcome(client, capsule, copy, a)
    assert ours == theirs
    return took == 1


def base_cases():
    x = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    return {
        "c_order": x,
        "0d": np.array(2.5, dtype=np.float64),
        "empty": np.zeros((3, 0, 2), dtype=np.int32),
        "transposed": x.T,
        "reversed": x[::-1, :, ::-1],
        "every_other": x[:, :, ::2],
        "five_dims": np.arange(720, dtype=np.int16).reshape(2, 3, 4, 5, 6),
        "one_dims": np.arange(6, dtype=np.uint8).reshape(1, 6, 1),
    }


TAKEN_DTYPES = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
                "float16", "float32", "float64", "complex64", "complex128", "intc", "uintc",
                "long", "ulong", "longlong", "ulonglong"] if NUMPY2 else \
    ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float16",
     "float32", "float64", "complex64", "complex128", "intc", "uintc", "int_", "uint",
     "longlong", "ulonglong"]


@pytest.mark.parametrize("copy", [None, False, True])
@pytest.mark.parametrize("name", list(base_cases()))
def test_layouts_come_out_as_numpys_own(cpu, name, copy):
    assert same_as_numpys_own(cpu, base_cases()[name], copy)


@pytest.fixture(params=["cpu", "xpu", "xla"])
def target(request):
    """A client of the reference plugin (cpu, xpu) or of XLA's CPU plugin,
    whose views have rules of their own (64-byte alignment)."""
    return request.getfixturevalue(request.param)


@pytest.mark.parametrize("dtype", TAKEN_DTYPES)
def test_dtypes_come_out_as_numpys_own(target, dtype):
    client = target
    a = (np.arange(12) % 7).astype(dtype).reshape(3, 4)
    assert same_as_numpys_own(client, a)
    assert same_as_numpys_own(client, a.T)


def unaligned():
    raw = np.zeros(17, dtype=np.uint8)
    a = raw[1:].view(np.float32)
    assert not a.flags.aligned
    return a


def read_only():
    a = np.arange(6, dtype=np.float32)
    a.flags.writeable = False
    return a


class Sub(np.ndarray):
    pass


DECLINED = {
    "bool": lambda: np.array([True, False]),
    "longdouble": lambda: np.arange(3, dtype=np.longdouble),
    "datetime": lambda: np.array([0, 1, 2], dtype="datetime64[s]"),
    "object": lambda: np.array([1, "a"], dtype=object),
    "structured": lambda: np.zeros(3, dtype=[("a", "i1"), ("b", "<f4")]),
    "field_strides": lambda: np.zeros(3, dtype=[("a", "i1"), ("b", "<f4")])["b"],
    "byte_swapped": lambda: np.arange(4, dtype=">f4" if sys.byteorder == "little" else "<f4"),
    "read_only": read_only,
    "unaligned": unaligned,
    "subclass": lambda: np.arange(4.0).view(Sub),
    "recarray": lambda: np.arange(4.0).view(np.recarray),
}


@pytest.mark.parametrize("name", list(DECLINED))
def test_declined_arrays_are_numpys_to_answer(cpu, name):
    assert not same_as_numpys_own(cpu, DECLINED[name]())


def test_more_dimensions_than_read_are_numpys_to_answer(cpu):
    if not NUMPY2:  # NumPy 1.x makes none: 32, the reader's limit, is its own
        with pytest.raises(ValueError):
            np.zeros((1,) * 33, dtype=np.float32)
        return
    a = np.zeros((1,) * 33, dtype=np.float32)
    assert not same_as_numpys_own(cpu, a)


def test_thirty_two_dimensions_are_read(cpu):
    assert same_as_numpys_own(cpu, np.zeros((1,) * 31 + (3,), dtype=np.float32))


def test_reader_is_on(cpu):
    """The first array read agreed with what NumPy says of it in Python: NumPy's
    layout is the one the reader declares (state 1), on this NumPy."""
    cpu.from_dlpack(np.zeros(3, dtype=np.float32))
    assert core._numpy_reads()[0] == 1


def test_the_buffer_keeps_the_array_and_lets_it_go(cpu):
    a = np.arange(16, dtype=np.float64)
    refs = sys.getrefcount(a)
    before = reads()
    buf = cpu.from_dlpack(a)
    assert reads() == before + 1
    assert sys.getrefcount(a) == refs + 1
    a[3] = 99.0  # a view: the buffer sees the write
    assert np.asarray(buf)[3] == 99.0
    del buf
    assert sys.getrefcount(a) == refs


def test_an_import_that_fails_after_the_read_lets_the_array_go(xpu):
    a = np.arange(16, dtype=np.float64)
    refs = sys.getrefcount(a)
    before = reads()
    with pytest.raises(pjrt_dlpack.DLPackCopyError):
        pjrt_dlpack.from_dlpack(a, device=xpu.devices[0], copy=False)
    assert reads() == before + 1
    assert sys.getrefcount(a) == refs


def random_array(rng):
    """An array of a random dtype (taken or not), shape, slicing (steps of
    either sign), axis order and writability."""
    dtype = rng.choice(TAKEN_DTYPES + ["bool", "longdouble", ">i4", "<u2", ">c8"])
    ndim = int(rng.integers(0, 5))
    shape = tuple(int(n) for n in rng.integers(0, 5, size=ndim))
    base = (np.arange(int(np.prod(shape, dtype=np.int64)) * 4) % 97).astype(dtype)
    a = base[: int(np.prod(shape, dtype=np.int64))].reshape(shape)
    if ndim and rng.integers(0, 2):
        a = a[tuple(slice(None, None, int(rng.choice([1, 2, -1, -2]))) for _ in range(ndim))]
    if ndim > 1 and rng.integers(0, 2):
        a = a.transpose(tuple(int(i) for i in rng.permutation(ndim)))
    if rng.integers(0, 8) == 0:
        a.flags.writeable = False
    return a


def test_random_arrays_come_out_as_numpys_own(target):
    """300 arrays drawn with a fixed seed: each import through the reader
    is the import of NumPy's own tensor; the reader takes exactly the
    arrays its rules say."""
    rng = np.random.default_rng(20261207)
    taken = 0
    for _ in range(300):
        a = random_array(rng)
        readable = (a.flags.writeable and a.dtype.isnative and a.dtype.kind in "iufc" and
                    a.dtype.itemsize <= 16 and a.dtype != np.longdouble)
        took = same_as_numpys_own(target, a, rng.choice([None, False, True]))
        assert took == readable, (a.dtype, a.shape, a.strides, a.flags.writeable)
        taken += took
    assert taken > 150
