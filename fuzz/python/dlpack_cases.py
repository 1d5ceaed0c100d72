"""The Python fuzzer's cases and oracle (fuzz/python/fuzz_dlpack.py runs
them under atheris). Each input picks one case:

  capsule   a DLManagedTensor(Versioned) built here with ctypes (any
            version, flags, ndim, shape, strides, dtype, device, byte
            offset, NULL deleter), as a capsule, into Client.from_dlpack
            (cpu or xpu client) or the module-level from_dlpack, with any
            device= and copy=
  producer  the same tensors behind an object whose __dlpack__ and
            __dlpack_device__ return anything or raise
  exchange  a producer type publishing __dlpack_c_exchange_api__ (a ctypes
            table whose functions succeed, fail or return NULL)
  export    Buffer.__dlpack__ / release_to_dlpack with any keywords
  external  Client.external_dlpack with any arguments

The oracle (a failure raises Failure, which atheris reports with the input):
  - the process survives (no crash, no fatal Python error);
  - every tensor's deleter runs exactly once, once nothing holds it: the
    consumer's after a successful import (when the buffer is released), the
    producer's otherwise (the capsule unconsumed, its name restored);
    external_dlpack's owner gets back exactly the reference it lent;
  - exceptions are of the documented classes (RAISES, see
    docs/conformance.md "Exceptions"), or one the harness's own objects
    raised, unchanged;
  - results are right: an imported buffer has the tensor's shape, dtype and
    contents; an export honours max_version, dl_device, copy and stream;
    integers out of the C range are refused, never truncated (a device id
    of 2**32 is not device 0); a tensor every rule allows is imported (an
    empty tensor with huge strides too).

Memory: a tensor whose bytes fit in HONEST_BYTES gets real memory holding a
known pattern, laid out so that every element its strides reach is inside
(data and byte_offset included); any other tensor (huge or overflowing
extents, negative dims, wild data pointers) is offered with copy=False
only, and its buffer is never read, so that no import may legitimately
read it. A producer's capsule is kept by the producer (this harness) and,
as a producer's capsule destructor would, its deleter is called here when
the consumer left the capsule unconsumed; the deleters are ctypes
callbacks that only record their argument.
"""
import collections
import ctypes
import itertools
import operator
import os
import sys
import time

import dlpack_ctypes as dl
import pjrt_dlpack as pj

HONEST_BYTES = 1 << 16  # memory span and copy size of a tensor given real memory
CHECK_ELEMENTS = 4096  # contents compared element by element up to this count
READ_ONLY, IS_COPIED, SUBBYTE_PADDED = 1, 2, 4
KDL_CPU, KDL_CUDA, KDL_CUDA_HOST, KDL_ONEAPI = 1, 2, 3, 14
# Capsule names. A capsule keeps the pointer it is given, not a copy: these
# live as long as the module.
VERSIONED, LEGACY = b"dltensor_versioned", b"dltensor"
USED = {VERSIONED: b"used_dltensor_versioned", LEGACY: b"used_dltensor"}
NOT_DLPACK = b"not_dltensor"
HOST_TYPES = (KDL_CPU, KDL_CUDA_HOST, 11)  # pjdl_dl_device_type_host_reachable
INT32 = range(-(2**31), 2**31)
INT64 = range(-(2**63), 2**63)

# The exception classes the module documents for bad input (docs/conformance.md,
# "Exceptions"): its own (Error and subclasses, NotDLPackError), BufferError
# (array API), TypeError, ValueError, OverflowError (an integer out of the
# C type's range) and MemoryError.
RAISES = (pj.Error, pj.NotDLPackError, BufferError, TypeError, ValueError, OverflowError,
          MemoryError)

# (code, bits) the library maps to a PJRT type, with NumPy's name.
DTYPES = {(0, 8): "int8", (0, 16): "int16", (0, 32): "int32", (0, 64): "int64",
          (1, 8): "uint8", (1, 16): "uint16", (1, 32): "uint32", (1, 64): "uint64",
          (2, 16): "float16", (2, 32): "float32", (2, 64): "float64", (4, 16): "bfloat16",
          (5, 64): "complex64", (5, 128): "complex128", (6, 8): "bool",
          (7, 8): "float8_e3m4", (8, 8): "float8_e4m3", (9, 8): "float8_e4m3b11fnuz",
          (10, 8): "float8_e4m3fn", (11, 8): "float8_e4m3fnuz", (12, 8): "float8_e5m2",
          (13, 8): "float8_e5m2fnuz", (14, 8): "float8_e8m0fnu"}
DTYPE_BY_NAME = {name: cb for cb, name in DTYPES.items()}
# The sub-byte ones (DLPack 1.1), with ml_dtypes' names: packed, `bits` to an
# element from bit 0 of the first byte on (element offsets count bits),
# unless a versioned tensor flags them padded (one per byte, in its low
# bits). float4_e2m1fn with 2 lanes is PyTorch's float4_e2m1fn_x2: a byte
# of two values, imported as float4_e2m1fn with the last dimension doubled.
SUB_BYTE = {(0, 1): "int1", (1, 1): "uint1", (0, 2): "int2", (1, 2): "uint2", (0, 4): "int4",
            (1, 4): "uint4", (15, 6): "float6_e2m3fn", (16, 6): "float6_e3m2fn",
            (17, 4): "float4_e2m1fn"}
ALL_DTYPES = {**DTYPES, **SUB_BYTE}
# Integers around every C range the module converts to.
EDGE_INTS = [0, 1, -1, 2, 3, 14, 255, 256, 2**31 - 1, 2**31, -(2**31), -(2**31) - 1, 2**32,
             2**32 + 1, 2**32 + 14, 2**62, 2**63 - 1, 2**63, -(2**63), 2**64 - 1, 2**64, 2**100,
             -(2**100)]


class Failure(AssertionError):
    """The oracle's verdict: a bug of the module (or of the harness)."""


class ProducerError(Exception):
    """Raised by the harness's own objects; must reach the caller unchanged."""

    raised = []  # every one raised in the current case

    def __init__(self, what):
        super().__init__(what)
        ProducerError.raised.append(self)


# Defects of issue 20 the oracle finds (fixed; tags kept so that a
# regression is named):
#   defect4  an integer out of its C range truncated instead of refused
#   defect6  a valid tensor refused for stride arithmetic no element needs:
#            an empty one, or one with a huge stride on a dimension of size 1
# A tolerated defect's first failure is reported ("pyfuzz: tolerating ...")
# and fuzzing goes on for other bugs; any other failure stops the run.
# PJDL_PYFUZZ_TOLERATE (comma-separated) overrides the default; empty: strict.
# The default is strict: both are fixed.
TOLERATE_DEFAULT = ""
TOLERATE = set(filter(None, os.environ.get("PJDL_PYFUZZ_TOLERATE", TOLERATE_DEFAULT).split(",")))
tolerated = collections.Counter()


def check(cond, *what, defect=None):
    if not cond:
        if defect in TOLERATE:
            if not tolerated[defect]:  # libFuzzer's exit skips atexit: say it now
                print(f"pyfuzz: tolerating open issue-20 {defect}:", *what, file=sys.stderr)
            tolerated[defect] += 1
            return False
        raise Failure(" ".join(str(w) for w in what) + (f" [issue 20 {defect}]" if defect else ""))
    return True



# ------------------------------------------------------------ environment

class World:
    """What every case uses: the reference plugin's cpu and xpu clients."""

    def __init__(self, plugin_path):
        self.plugin = pj.load_plugin(plugin_path)
        self.cpu = self.plugin.client(platform="cpu")
        self.xpu = self.plugin.client(platform="xpu")
        self.clients = [self.cpu, self.xpu]


# ------------------------------------------------------ deleter accounting

_calls = []  # tensor addresses the deleters were called with, in order


@dl.DELETER
def _record_deleter(address):
    _calls.append(address)  # cannot fail; checked by settle()


RECORD = ctypes.cast(_record_deleter, ctypes.c_void_p).value

_GetName = ctypes.PYFUNCTYPE(ctypes.c_char_p, ctypes.py_object)(("PyCapsule_GetName",
                                                                 ctypes.pythonapi))
_SetName = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.py_object, ctypes.c_char_p)(
    ("PyCapsule_SetName", ctypes.pythonapi))
_GetPointer = ctypes.PYFUNCTYPE(ctypes.c_void_p, ctypes.py_object, ctypes.c_char_p)(
    ("PyCapsule_GetPointer", ctypes.pythonapi))
_New = ctypes.PYFUNCTYPE(ctypes.py_object, ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p)(
    ("PyCapsule_New", ctypes.pythonapi))


def capsule_name(capsule):
    return _GetName(capsule)


def drain(until, seconds=5.0):
    """Waits (running pending calls) until until() holds or time is up: a
    deleter fired on a plugin thread is queued to the next Python thread."""
    end = time.monotonic() + seconds
    while not until() and time.monotonic() < end:
        time.sleep(0.001)
    return until()


class Ledger:
    """The tensors of one case and the deleter calls they are owed."""

    def __init__(self):
        self.owed = {}  # address -> expected calls (1, or 0 for a NULL deleter)
        self.seen = {}

    def add(self, address, calls):
        self.owed[address] = calls
        self.seen[address] = 0

    def take(self):
        while _calls:
            a = _calls.pop(0)
            check(a in self.seen, f"a deleter was called with {a:#x}, no live tensor of this case")
            self.seen[a] += 1
            check(self.seen[a] <= max(1, self.owed[a]), f"deleter of {a:#x} called twice")

    def now(self, address):
        self.take()
        return self.seen[address]

    def settle(self):
        """Everything released: each deleter ran exactly as owed."""
        drain(lambda: (self.take(), self.seen == self.owed)[1])
        self.take()
        for a, n in self.owed.items():
            check(self.seen[a] == n, f"deleter of {a:#x} ran {self.seen[a]} times, expected {n}")


# --------------------------------------------------------------- tensors

def pick(fdp, choices):
    return choices[fdp.ConsumeIntInRange(0, len(choices) - 1)]


def edge_or_small(fdp, small_lo, small_hi, weight=3):
    """Mostly a small integer, sometimes one at a C range's edge or random."""
    k = fdp.ConsumeIntInRange(0, weight + 1)
    if k < weight:
        return fdp.ConsumeIntInRange(small_lo, small_hi)
    if k == weight:
        return pick(fdp, EDGE_INTS)
    return fdp.ConsumeInt(8)


def wrap(v, bits):
    """v as a signed C integer of `bits` bits stores it (two's complement)."""
    v %= 2**bits
    return v - 2**bits if v >= 2 ** (bits - 1) else v


def compact_strides(dims):
    out, s = [], 1
    for d in reversed(dims):
        out.insert(0, s)
        s *= d
    return out


def element_bytes(bits, lanes):
    return max(1, (bits * lanes + 7) // 8)


def layout(dims, steps, size):
    """(lowest element offset, element count, span in bytes) of a layout,
    or None when it cannot have real memory here."""
    count = 1
    for d in dims:
        count *= d
    if count == 0:
        return 0, 0, 0
    lo = sum(min(0, (d - 1) * s) for d, s in zip(dims, steps))
    hi = sum(max(0, (d - 1) * s) for d, s in zip(dims, steps))
    span = (hi - lo + 1) * size
    if span > HONEST_BYTES or count * size > HONEST_BYTES:
        return None
    return lo, count, span


class Memory:
    """Real memory for a layout: element offset 0 lands at `address`,
    misaligned from 256 by `misalign`; filled with a known pattern."""

    def __init__(self, lo_bytes, span, misalign, seed):
        self.buf = ctypes.create_string_buffer(span + 768)
        base = ctypes.addressof(self.buf)
        self.address = ((base - lo_bytes + 255) & ~255) + misalign
        pattern = bytes((i * 131 + seed) & 0xFF for i in range(len(self.buf)))
        ctypes.memmove(self.buf, pattern, len(self.buf))

    def expected(self, dims, steps, size):
        """The elements in row-major order, as to_bytes() gives them."""
        out = bytearray()
        if 0 in dims:  # product() would materialize the other, maybe huge, ranges
            return b""
        for index in itertools.product(*(range(d) for d in dims)):
            off = sum(i * s for i, s in zip(index, steps)) * size
            out += ctypes.string_at(self.address + off, size)
        return bytes(out)


    def expected_sub_byte(self, dims, steps, stride_bits, bits):
        """The elements of `bits` bits in row-major order, each in the low
        bits of a byte; an element offset is `stride_bits` bits (8: one
        element per byte, padded)."""
        out = bytearray()
        if 0 in dims:
            return b""
        for index in itertools.product(*(range(d) for d in dims)):
            bit = sum(i * s for i, s in zip(index, steps)) * stride_bits
            word = int.from_bytes(ctypes.string_at(self.address + bit // 8, 2), "little")
            out.append((word >> (bit % 8)) & ((1 << bits) - 1))
        return bytes(out)


class Tensor:
    """One DLManagedTensor(Versioned) made from the fuzzer's bytes."""

    def __init__(self, fdp, ledger, versioned=None):
        self.versioned = fdp.ConsumeBool() if versioned is None else versioned
        self.major = pick(fdp, [1, 1, 1, 1, 0, 2, fdp.ConsumeUInt(4)])
        self.minor = pick(fdp, [0, 3, fdp.ConsumeUInt(4)])
        self.flags = pick(fdp, [0, 0, 0, READ_ONLY, IS_COPIED, READ_ONLY | IS_COPIED,
                                SUBBYTE_PADDED, 8, fdp.ConsumeUInt(8)])
        self.ndim = pick(fdp, [fdp.ConsumeIntInRange(0, 4)] * 6 +
                         [5, 8, 64, 65, 100, -1, 2**31 - 1, -(2**31)])
        n = self.ndim if 0 < self.ndim <= 128 else 1  # what the memory holds
        self.dims = [wrap(edge_or_small(fdp, 0, 4, 6), 64) for _ in range(n)]
        self.null_shape = fdp.ConsumeIntInRange(0, 15) == 0
        self.null_strides = fdp.ConsumeBool()
        self.steps = [wrap(edge_or_small(fdp, -4, 6, 6), 64) for _ in range(n)]
        if fdp.ConsumeIntInRange(0, 3) == 0:
            self.dtype = (fdp.ConsumeUInt(1), fdp.ConsumeUInt(1), fdp.ConsumeUInt(2))
        else:
            code, bits = pick(fdp, sorted(ALL_DTYPES))
            self.dtype = (code, bits, pick(fdp, [1, 1, 1, 1, 1, 2, 0]))
        self.device = pick(fdp, [(KDL_CPU, 0)] * 5 + [(KDL_ONEAPI, 0), (KDL_CPU, 1),
                                                      (KDL_CUDA_HOST, 0), (KDL_CUDA, 0),
                                                      (fdp.ConsumeInt(4), fdp.ConsumeInt(4))])
        self.device = (wrap(self.device[0], 32), wrap(self.device[1], 32))
        size = element_bytes(self.dtype[1], self.dtype[2])
        self.byte_offset = pick(fdp, [0, 0, 0, size * fdp.ConsumeIntInRange(0, 64),
                                      fdp.ConsumeIntInRange(0, 255), 2**63, 2**64 - 1,
                                      fdp.ConsumeUInt(8)])
        misalign = pick(fdp, [0, 0, 0, fdp.ConsumeIntInRange(0, 255)])
        self.null_deleter = fdp.ConsumeIntInRange(0, 15) == 0
        if fdp.ConsumeBool():
            size = self._tame()
        self._place(size, misalign, fdp.ConsumeUInt(1))
        self._build()
        ledger.add(self.address, 0 if self.null_deleter else 1)

    def _tame(self):
        """Half the tensors keep only small, mostly valid values, so that
        imports succeed often enough for their results to be checked."""
        self.major, self.flags = 1, self.flags & (READ_ONLY | IS_COPIED)
        self.ndim = min(self.ndim % 5, len(self.dims))
        self.dims = [d % 5 for d in self.dims]
        self.steps = [s % 13 - 4 for s in self.steps]
        code_bits = self.dtype[:2] if self.dtype[:2] in ALL_DTYPES else (2, 32)
        self.dtype = code_bits + (1,)
        if self.device[0] not in (KDL_CPU, KDL_ONEAPI):
            self.device = (KDL_CPU, 0)
        size = element_bytes(self.dtype[1], 1)
        self.byte_offset = self.byte_offset % 8 * size
        return size

    def _place(self, size, misalign, seed):
        self.memory = None
        if 0 <= self.ndim <= 64 and not (self.null_shape and self.ndim > 0) and \
                min(self.dims[:self.ndim], default=0) >= 0 and self.byte_offset <= HONEST_BYTES:
            dims = self.dims[:self.ndim]
            steps = compact_strides(dims) if self.null_strides else self.steps[:self.ndim]
            placed = layout(dims, steps, size)
            if placed is not None:
                self.memory = Memory(placed[0] * size, placed[2], misalign, seed)
                self.count, self.logical = placed[1], (dims, steps, size)
                self.lowest = placed[0]
                self.data = (self.memory.address - self.byte_offset) % 2**64
                return
        # No real memory: a wild or NULL pointer, only ever offered for a view.
        self.data = pick_wild(self.byte_offset, misalign)

    def _build(self):
        n = max(1, len(self.dims))
        self.shape_arr = (ctypes.c_int64 * n)(*self.dims)
        self.strides_arr = (ctypes.c_int64 * n)(*self.steps)
        s = self.struct = dl.DLManagedTensorVersioned() if self.versioned else dl.DLManagedTensor()
        if self.versioned:
            s.major, s.minor, s.flags = self.major, self.minor, self.flags
        t = s.dl_tensor
        t.data = self.data or None
        t.device.device_type, t.device.device_id = self.device
        t.ndim = self.ndim
        t.dtype.code, t.dtype.bits, t.dtype.lanes = self.dtype
        t.shape = None if self.null_shape else self.shape_arr
        t.strides = None if self.null_strides else self.strides_arr
        t.byte_offset = self.byte_offset % 2**64
        s.deleter = None if self.null_deleter else RECORD
        self.address = ctypes.addressof(s)

    @property
    def name(self):
        return VERSIONED if self.versioned else LEGACY

    def capsule(self):
        return _New(self.address, self.name, None)

    def release_unconsumed(self, capsule):
        """What the producer's capsule destructor does: the deleter, when no
        consumer took the tensor."""
        if capsule_name(capsule) == self.name and not self.null_deleter:
            dl.DELETER(RECORD)(self.address)

    def valid(self):
        """Whether every rule allows the tensor into the cpu client with
        copy None or True: real memory, a mapped dtype of one lane, host
        device 0, version 1, no flag but READ_ONLY and IS_COPIED, no more
        than 64 dimensions; packed sub-byte elements reached with no
        negative offset; an empty one whose extents before the first 0
        fit (empty_extents_fit)."""
        return (self.memory is not None and self.dtype[:2] in ALL_DTYPES and
                self.empty_extents_fit() and
                self.dtype[2] == 1 and self.device == (KDL_CPU, 0) and (not self.versioned or (
                    self.major == 1 and self.flags & ~(READ_ONLY | IS_COPIED) == 0)) and
                (self.dtype[:2] not in SUB_BYTE or self.lowest == 0))

    def empty_extents_fit(self):
        """False for an empty tensor whose dimensions before the first 0,
        times the element size, overflow int64: the library refuses it, as
        XLA's plugins abort the process on such a shape (issue 38)."""
        if self.count != 0:
            return True
        product = element_bytes(self.dtype[1], 1)
        for d in self.dims[:self.ndim]:
            if product == 0:
                break
            product *= d
            if d < 0 or product not in INT64:
                return False
        return True

    def idle_stride_overflows(self):
        """Whether a stride no element uses (of a dimension of size 1)
        overflows in bytes: defect 6's class (stride arithmetic that cannot
        matter), which NumPy's relaxed strides produce."""
        size = element_bytes(self.dtype[1], self.dtype[2])
        return not self.null_strides and any(
            d == 1 and s * size not in INT64 for d, s in zip(self.dims[:self.ndim], self.steps))

    def check_buffer(self, buf):
        """An imported buffer's shape, dtype and contents are the tensor's."""
        dims, steps, size = self.logical
        code, bits, lanes = self.dtype
        if (code, bits) not in SUB_BYTE:
            check(buf.shape == tuple(dims), "shape", buf.shape, "!=", dims)
            check(buf.dtype == DTYPES.get((code, bits)), "dtype", buf.dtype, "for", self.dtype)
            if self.count <= CHECK_ELEMENTS:
                got = buf.to_bytes()
                check(got == self.memory.expected(dims, steps, size),
                      "contents differ from the tensor's", dims, steps, size)
            return
        padded = self.versioned and self.flags & SUBBYTE_PADDED and lanes == 1
        if lanes == 2:  # float4_e2m1fn_x2: pairs of values, the last dimension doubled
            dims, steps = dims[:-1] + [2 * dims[-1]], [2 * s for s in steps[:-1]] + [1]
        check(buf.shape == tuple(dims), "shape", buf.shape, "!=", dims, "for", self.dtype)
        check(buf.dtype == SUB_BYTE[code, bits], "dtype", buf.dtype, "for", self.dtype)
        if self.count <= CHECK_ELEMENTS:
            # The host form: one element per byte, in its low bits (a padded
            # byte's other bits are the producer's, and not compared).
            mask = (1 << bits) - 1
            got = bytes(b & mask for b in buf.to_bytes())
            check(got == self.memory.expected_sub_byte(dims, steps, 8 if padded else bits, bits),
                  "sub-byte contents differ from the tensor's", dims, steps, self.dtype, padded)


_wild = ctypes.create_string_buffer(64)


def pick_wild(byte_offset, misalign):
    base = (ctypes.addressof(_wild) + misalign % 32) if misalign % 3 else 0
    return (base - byte_offset) % 2**64


# ------------------------------------------------------------- the cases

def in_c_range(value, rng):
    """Whether value, an int or anything with __index__ (as the module reads
    integers), lies in rng."""
    value = as_index(value)
    return value is not None and value in rng


def fuzz_value(fdp, depth=0):
    """Any keyword or argument value: edge integers, bools, None, floats,
    strings, sequences of those, objects whose __index__ or __bool__ raise."""
    k = fdp.ConsumeIntInRange(0, 11)
    if k <= 3:
        return pick(fdp, EDGE_INTS)
    if k == 4:
        return pick(fdp, [None, True, False])
    if k == 5 and depth == 0:
        return tuple(fuzz_value(fdp, 1) for _ in range(fdp.ConsumeIntInRange(0, 3)))
    if k == 6 and depth == 0:
        return [fuzz_value(fdp, 1) for _ in range(fdp.ConsumeIntInRange(0, 3))]
    if k == 7:
        return pick(fdp, [1.0, float("nan"), "1", b"\x00", "", object(), Raising(), IndexInt()])
    return fdp.ConsumeIntInRange(-3, 20)


class Raising:
    """__index__, __bool__ and __len__ raise ProducerError."""

    def __index__(self):
        raise ProducerError("__index__")

    def __bool__(self):
        raise ProducerError("__bool__")

    def __len__(self):
        raise ProducerError("__len__")


class IndexInt:
    """Not an int, but with __index__ (operator.index works)."""

    def __index__(self):
        return 3


def expect_raises(exc, own=()):
    """A failure of the module: one of RAISES, or an exception the harness's
    own objects raised, unchanged; when `own` (the last producer call's
    exception) is given, that one."""
    if isinstance(exc, Failure):
        raise exc
    if own:
        check(exc is own[-1], f"the producer's {own[-1]!r} became {exc!r}")
    elif isinstance(exc, ProducerError):
        check(any(exc is r for r in ProducerError.raised), f"a ProducerError not raised: {exc!r}")
    else:
        check(isinstance(exc, RAISES), f"undocumented exception {type(exc).__name__}: {exc}")


def import_target(fdp, world, client):
    """device= for an import: None, a device or memory of the client or the
    other, or something that is neither."""
    other = world.xpu if client is world.cpu else world.cpu
    return pick(fdp, [None, None, None, client.devices[0], client.devices[0].default_memory,
                      other.devices[0], 0, "cpu"])


def case_capsule(fdp, world, ledger):
    t = Tensor(fdp, ledger)
    capsule = t.capsule()
    if fdp.ConsumeIntInRange(0, 15) == 0:  # consumed before, by someone else
        _SetName(capsule, USED[t.name])
        ledger.owed[t.address] = 0
    before = capsule_name(capsule)
    use = fdp.ConsumeIntInRange(0, 2)
    client = world.clients[use % 2]
    device = import_target(fdp, world, client)
    copy = pick(fdp, [None, True, False, None, 0, "no"]) if t.memory else False
    call = (lambda: client.from_dlpack(capsule, device=device, copy=copy)) if use < 2 else (
        lambda: pj.from_dlpack(capsule, device=device, copy=copy))
    try:
        buf = call()
    except BaseException as e:  # noqa: B902 (the oracle judges every exception)
        expect_raises(e)
        check(capsule_name(capsule) == before, "failed import left the capsule named",
              capsule_name(capsule), "not", before)
        check(ledger.now(t.address) == 0, "failed import called the deleter")
        if before == t.name:
            must_import(t, use, device, copy, e)
    else:
        check(before in (VERSIONED, LEGACY), "a consumed capsule was imported again")
        check(capsule_name(capsule) == USED[t.name], "imported capsule not renamed")
        check(ledger.now(t.address) <= 1, "deleter over-called")
        if t.memory is not None:
            t.check_buffer(buf)
        del buf
    t.release_unconsumed(capsule)
    del capsule
    ledger.settle()


def must_import(t, use, device, copy, exc):
    """A valid tensor into the cpu client (or the module's pick) with
    copy None/True and no device= is never refused (defect 6 included)."""
    if use == 1 or device is not None or copy not in (None, True) or not t.valid():
        return
    check(False, f"a valid tensor was refused: dims {t.dims[:t.ndim]} strides "
          f"{None if t.null_strides else t.steps[:t.ndim]} dtype {t.dtype} "
          f"byte_offset {t.byte_offset} flags {t.flags}: {type(exc).__name__}: {exc}",
          defect="defect6" if t.count == 0 or t.idle_stride_overflows() else None)


class Producer:
    """A DLPack producer that behaves as the fuzzer says."""

    def __init__(self, fdp, tensor, device_mode, dlpack_mode):
        self.t, self.fdp = tensor, fdp
        self.device_mode, self.dlpack_mode = device_mode, dlpack_mode
        self.capsules, self.raised, self.kwargs, self.made = [], [], [], 0
        self.device_value = None

    def _raise(self, exc):
        self.raised.append(exc)
        raise exc

    def __dlpack_device__(self):
        self.raised.append(None)
        mode = self.device_mode
        if mode == 0:
            self.device_value = self.t.device
        elif mode == 1:
            self._raise(ProducerError("__dlpack_device__"))
        elif mode == 2:
            self._raise(pick(self.fdp, [TypeError, AttributeError, ValueError])("device"))
        else:
            self.device_value = fuzz_value(self.fdp)
            if mode == 3:
                self.device_value = (fuzz_value(self.fdp, 1), fuzz_value(self.fdp, 1))
        return self.device_value

    def __dlpack__(self, **kwargs):
        self.raised.append(None)
        self.kwargs.append(kwargs)
        mode = self.dlpack_mode
        if mode == 1:
            self._raise(ProducerError("__dlpack__"))
        if mode == 2 or (mode == 3 and set(kwargs) - {"stream"}):
            self._raise(TypeError("unexpected keyword"))  # a pre-2023.12 producer
        if mode == 4:
            return fuzz_value(self.fdp)
        if mode == 5:
            return _New(self.t.address, NOT_DLPACK, None)
        c = self.t.capsule()
        self.capsules.append(c)
        self.made += 1
        return c


class NoDeviceProducer(Producer):
    __dlpack_device__ = None  # the attribute exists but is not callable


class NotProducer:
    pass


def case_producer(fdp, world, ledger):
    t = Tensor(fdp, ledger)
    kind = fdp.ConsumeIntInRange(0, 7)
    p = (NoDeviceProducer if kind == 6 else Producer)(
        fdp, t, fdp.ConsumeIntInRange(0, 5) if fdp.ConsumeBool() else 0,
        fdp.ConsumeIntInRange(0, 5) if fdp.ConsumeBool() else 0)
    x = NotProducer() if kind == 7 else p
    use = fdp.ConsumeIntInRange(0, 2)
    client = world.clients[use % 2]
    device = import_target(fdp, world, client)
    copy = pick(fdp, [None, True, False, None]) if t.memory else False
    try:
        buf = (client.from_dlpack(x, device=device, copy=copy) if use < 2 else
               pj.from_dlpack(x, device=device, copy=copy))
    except BaseException as e:  # noqa: B902
        expect_raises(e, p.raised[-1:] if p.raised and p.raised[-1] is not None else ())
        for c in p.capsules:
            check(capsule_name(c) == t.name, "failed import left the capsule consumed")
        check(ledger.now(t.address) == 0, "failed import called the deleter")
        if p.device_mode == 0 and p.dlpack_mode == 0 and kind < 6:
            must_import(t, use, device, copy, e)
    else:
        check(kind < 7, "an object without __dlpack__ was imported")
        check(p.dlpack_mode in (0, 2, 3) or len(p.capsules) > 0, "imported what was no capsule")
        dv = p.device_value
        if isinstance(dv, tuple) and len(dv) == 2:
            check(all(in_c_range(v, INT32) for v in dv if isinstance(v, int)),
                  f"__dlpack_device__ {dv} out of the C range was accepted (truncated)",
                  defect="defect4")
        if t.memory is not None:
            t.check_buffer(buf)
        del buf
    check_consumer_keywords(p, copy)
    for c in p.capsules:
        t.release_unconsumed(c)
    if not p.made and not t.null_deleter:  # never handed out: the producer's own
        dl.DELETER(RECORD)(t.address)
    p.capsules.clear()
    ledger.settle()


def check_consumer_keywords(p, copy):
    """What the consumer passed: known keywords; our max_version; copy=False
    when no copy is allowed; no stream for host memory."""
    for kw in p.kwargs:
        check(set(kw) <= {"stream", "max_version", "dl_device", "copy"}, "keywords", kw)
        if "max_version" in kw:
            check(kw["max_version"] == pj.DLPACK_VERSION, "max_version", kw["max_version"])
            check((copy is False) == (kw.get("copy") is False), "copy keyword", kw, copy)
        if p.device_value == (KDL_CPU, 0):
            check("stream" not in kw, "a stream was asked of host memory", kw)


def export_kwargs(fdp):
    kw = {}
    for name in ("stream", "max_version", "dl_device", "copy"):
        if fdp.ConsumeBool():
            kw[name] = fuzz_value(fdp)
            if name in ("max_version", "dl_device") and fdp.ConsumeBool():
                kw[name] = (fuzz_value(fdp, 1), fuzz_value(fdp, 1))
    if fdp.ConsumeIntInRange(0, 15) == 0:
        kw["strem"] = 1
    return kw


def as_index(v):
    try:
        return operator.index(v)
    except Exception:  # noqa: B902 (whatever __index__ raises)
        return None


def case_export(fdp, world, ledger):
    client = pick(fdp, world.clients)
    raw = bytes(range(24))
    src = client.buffer(memoryview(bytearray(raw)).cast("B", (2, 3, 4)))
    kw = export_kwargs(fdp)
    release = fdp.ConsumeIntInRange(0, 3) == 0
    args = (fuzz_value(fdp),) if fdp.ConsumeIntInRange(0, 15) == 0 else ()
    own_dev, ptr = src.__dlpack_device__(), src.unsafe_buffer_pointer()
    try:
        capsule = (src.release_to_dlpack if release else src.__dlpack__)(*args, **kw)
    except BaseException as e:  # noqa: B902
        expect_raises(e)
        check(not src.is_deleted, "a failed release_to_dlpack deleted the buffer")
        return
    check(not args and "strem" not in kw, "bad arguments accepted", args, kw)
    check(src.is_deleted == release, "is_deleted after export", src.is_deleted, release)
    check_export(capsule, kw, own_dev, ptr, (2, 3, 4), release)
    counter = Counter(capsule)
    ledger.add(counter.address, 1)
    if fdp.ConsumeBool():  # consume it again (the module picks the client): a round trip
        back = pj.from_dlpack(capsule)
        check(back.to_bytes() == raw, "round trip changed the contents")
        del back
    del capsule
    ledger.settle()


def check_export(capsule, kw, own_dev, ptr, shape, release):
    """An export honours the keywords."""
    mv = kw.get("max_version")
    name = capsule_name(capsule)
    if mv is not None:
        major = as_index(mv[0]) if isinstance(mv, (tuple, list)) and mv else None
        check(major is not None, "max_version", mv, "was accepted")
        check(name == (VERSIONED if major >= 1 else LEGACY), "max_version", mv, "gave", name)
    else:
        check(name == LEGACY, "no max_version gave", name)
    s = dl.versioned(capsule) if name == VERSIONED else dl.legacy(capsule)
    t = s.dl_tensor
    got = (t.device.device_type, t.device.device_id)
    dev = kw.get("dl_device")
    # Row 42: with no dl_device, copy=True stays on the buffer's own device,
    # for __dlpack__ and release_to_dlpack alike.
    want = own_dev if dev is None else (
        tuple(as_index(v) for v in dev) if isinstance(dev, (tuple, list)) else dev)
    # Host memory has one id: the library calls every id of a host type the
    # same (pjdl_dl_device_same); the type itself must be the one asked for.
    truncated = dev is not None and not all(in_c_range(v, INT32) for v in want)
    check(got[0] == want[0] and (got[1] == want[1] or want[0] in HOST_TYPES),
          "dl_device", dev, "gave a tensor on", got, "not", want,
          defect="defect4" if truncated else None)
    check(t.dims() == shape, "exported shape", t.dims())
    stream = kw.get("stream")
    copied = (t.data or 0) + t.byte_offset != ptr
    if stream is not None:
        check(in_c_range(stream, INT64), "stream", stream, "out of range was accepted",
              defect="defect4")
        # Row 39: on the CPU only None and -1, except for a host copy (made
        # once the data is ready, it needs no stream).
        check(own_dev[0] != KDL_CPU or stream == -1 or copied,
              "stream", stream, "accepted on the CPU for a view")
    copy = kw.get("copy")
    if copy is True and name == VERSIONED:
        check(s.flags & IS_COPIED, "copy=True not flagged IS_COPIED")
    if copy is False:
        check(not copied, "copy=False exported a copy")


class Counter:
    """Replaces the deleter of a capsule's tensor by one that records the
    call (for the Ledger) and then runs the original."""

    def __init__(self, capsule):
        name = capsule_name(capsule)
        self.address = _GetPointer(capsule, name)
        s = (dl.DLManagedTensorVersioned if name == VERSIONED else dl.DLManagedTensor
             ).from_address(self.address)
        self.original = dl.DELETER(s.deleter)

        def run(p):
            _calls.append(p)
            self.original(p)

        self.callback = dl.DELETER(run)
        _keep.append(self)
        s.deleter = ctypes.cast(self.callback, ctypes.c_void_p).value


_keep = []  # Counters live as long as the process: a deleter may run late


class Owner:
    pass


def case_external(fdp, world, ledger):
    dtype = pick(fdp, sorted(DTYPE_BY_NAME) + ["int4", "", "nope", "float32\n", 5])
    code_bits = DTYPE_BY_NAME.get(dtype, (1, 8))
    size = code_bits[1] // 8
    dims = [edge_or_small(fdp, 0, 4, 8) for _ in range(fdp.ConsumeIntInRange(0, 4))]
    steps = None if fdp.ConsumeBool() else [edge_or_small(fdp, -3, 6, 8) for _ in dims]
    placed = None
    if dtype in DTYPE_BY_NAME and min(dims, default=0) >= 0:
        placed = layout(dims, compact_strides(dims) if steps is None else steps, size)
    memory = Memory(placed[0] * size, placed[2], 0, 7) if placed else None
    owner = Owner()
    args = [memory.address if memory else fuzz_value(fdp), dims, dtype, steps,
            (KDL_CPU, 0), owner]
    for i in range(6):  # sometimes any value in any place
        if fdp.ConsumeIntInRange(0, 11) == 0:
            args[i] = fuzz_value(fdp)
    if fdp.ConsumeIntInRange(0, 3) == 0:
        args[4] = (fuzz_value(fdp, 1), fuzz_value(fdp, 1))
    flags = {k: fuzz_value(fdp) if fdp.ConsumeIntInRange(0, 5) == 0 else fdp.ConsumeBool()
             for k in ("versioned", "read_only", "copied") if fdp.ConsumeBool()}
    base_refs = sys.getrefcount(owner)
    try:
        capsule = pj.Client.external_dlpack(*args, **flags)
    except BaseException as e:  # noqa: B902
        expect_raises(e)
        check(sys.getrefcount(owner) == base_refs, "a failed external_dlpack kept the owner")
        return
    check_external(capsule, args, flags)
    check(args[5] is not owner or sys.getrefcount(owner) == base_refs + 1,
          "the capsule does not hold exactly one reference to its owner")
    honest = memory is not None and args[:4] == [memory.address, dims, dtype, steps]
    if honest and args[4] == (KDL_CPU, 0) and fdp.ConsumeBool():
        copy = pick(fdp, [None, True, False])
        try:
            buf = world.cpu.from_dlpack(capsule, copy=copy)
        except BaseException as e:  # noqa: B902
            expect_raises(e)
        else:
            if placed[1] <= CHECK_ELEMENTS:
                got = buf.to_bytes()
                real = compact_strides(dims) if steps is None else steps
                check(got == memory.expected(dims, real, size), "external contents differ")
            del buf
    del capsule
    check(drain(lambda: sys.getrefcount(owner) == base_refs),
          "the owner's reference was not given back exactly once:",
          sys.getrefcount(owner) - base_refs)


def check_external(capsule, args, flags):
    """The capsule holds exactly what was asked (no integer truncated)."""
    versioned = bool(flags.get("versioned", False))
    check(capsule_name(capsule) == (VERSIONED if versioned else LEGACY), "external name")
    s = dl.versioned(capsule) if versioned else dl.legacy(capsule)
    t = s.dl_tensor
    data = args[0]
    check(in_c_range(data, range(-(2**63), 2**64)), "data", data, "out of range accepted",
          defect="defect4")
    check((t.data or 0) == data % 2**64, "data", data, "became", t.data)
    check(list(t.dims()) == [operator.index(d) for d in args[1]], "shape", args[1], t.dims())
    if args[3] is None:
        check(not t.strides, "strides None gave strides")
    else:
        check(list(t.steps()) == [operator.index(v) for v in args[3]], "strides", args[3])
    check((t.device.device_type, t.device.device_id) == tuple(operator.index(v) for v in args[4]),
          "dl_device", args[4], "became", (t.device.device_type, t.device.device_id))
    if versioned:
        want = (READ_ONLY if flags.get("read_only") else 0) | (
            IS_COPIED if flags.get("copied") else 0)
        check(s.flags == want, "flags", s.flags, "for", flags)


# ------------------------------------------- the C exchange API (1.2+)

FROM_PY = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.py_object, ctypes.POINTER(ctypes.c_void_p))
STREAM = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_int, ctypes.c_int32,
                          ctypes.POINTER(ctypes.c_void_p))


class Exchange:
    """A producer type's DLPackExchangeAPI table, built with ctypes: its
    managed_tensor_from_py_object_no_sync hands out a tensor (0), fails with
    no exception (1), succeeds with NULL (2), or fails after writing the
    tensor (3, which the producer then keeps); current_work_stream reports
    no stream, any pointer, or fails."""

    current = None  # the case's table: the callbacks are C functions

    def __init__(self, fdp, tensor):
        self.t, self.mode = tensor, fdp.ConsumeIntInRange(0, 3)
        self.stream_mode, self.stream = fdp.ConsumeIntInRange(0, 2), fdp.ConsumeUInt(8)
        self.handed = False
        api = self.api = dl.ExchangeAPI()
        api.header.major = pick(fdp, [1, 1, 1, 0, 2])
        api.header.minor = pick(fdp, [3, 3, 2, 1])
        api.managed_tensor_from_py_object_no_sync = ctypes.cast(_from_py, ctypes.c_void_p)
        if fdp.ConsumeBool():
            api.current_work_stream = ctypes.cast(_work_stream, ctypes.c_void_p)
        kind = fdp.ConsumeIntInRange(0, 5)
        self.attribute = (dl.capsule_of(api) if kind < 4 else
                          _New(ctypes.addressof(api), NOT_DLPACK, None) if kind == 4 else 7)
        Exchange.current = self


@FROM_PY
def _from_py(obj, out):
    ex = Exchange.current
    if ex.mode in (0, 3):
        out[0] = ex.t.address
        ex.handed = ex.mode == 0
    elif ex.mode == 2:
        out[0] = None
    return -1 if ex.mode in (1, 3) else 0


@STREAM
def _work_stream(device_type, device_id, out):
    ex = Exchange.current
    out[0] = None if ex.stream_mode == 0 else ex.stream or None
    return -1 if ex.stream_mode == 2 else 0


def case_exchange(fdp, world, ledger):
    """A producer whose type publishes __dlpack_c_exchange_api__ (and a
    __dlpack__ of another tensor, for when the table is unusable or the
    import needs the producer's host copy)."""
    t = Tensor(fdp, ledger, versioned=True)
    ex = Exchange(fdp, t)
    backup = Tensor(fdp, ledger)
    cls = type("ExchangeProducer", (Producer,), {"__dlpack_c_exchange_api__": ex.attribute})
    p = cls(fdp, backup, 0, fdp.ConsumeIntInRange(0, 5) if fdp.ConsumeBool() else 0)
    use = fdp.ConsumeIntInRange(0, 2)
    client = world.clients[use % 2]
    device = import_target(fdp, world, client)
    copy = pick(fdp, [None, True, False, None]) if t.memory and backup.memory else False
    try:
        buf = (client.from_dlpack(p, device=device, copy=copy) if use < 2 else
               pj.from_dlpack(p, device=device, copy=copy))
    except BaseException as e:  # noqa: B902
        expect_raises(e, p.raised[-1:] if p.raised and p.raised[-1] is not None else ())
    else:
        source = backup if p.capsules else t
        if source.memory is not None:
            source.check_buffer(buf)
        del buf
    for c in p.capsules:
        backup.release_unconsumed(c)
    if not p.made and not backup.null_deleter:
        dl.DELETER(RECORD)(backup.address)
    if not ex.handed and not t.null_deleter:  # never the module's: the producer's own
        dl.DELETER(RECORD)(t.address)
    p.capsules.clear()
    ledger.settle()


CASES = [case_capsule, case_capsule, case_producer, case_producer, case_export, case_external,
         case_exchange]


def one_input(world, fdp):
    ProducerError.raised.clear()
    ledger = Ledger()
    case = pick(fdp, CASES)
    case(fdp, world, ledger)
    check(not _calls, "deleter calls left over", _calls)
