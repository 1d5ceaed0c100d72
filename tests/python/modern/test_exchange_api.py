"""The DLPack C exchange API against today's libraries. Of the modern
environment, only PyTorch 2 publishes a table (torch.Tensor, and a
read-only one on torch.utils.dlpack.ReadOnlyTensorWrapper); NumPy 2.4 and
JAX 0.10.2 publish none, and none of the three consumes one in its
from_dlpack (they call __dlpack__). Both directions are tested with
PyTorch's table; NumPy and JAX go through the capsule protocol. The
exchange with our own table is tested in ../test_exchange_self.py."""
import gc
import os
import sys

import jax
import jax.dlpack
import numpy as np
import pytest
import torch
import torch.utils.dlpack

import pjrt_dlpack

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from dlpack_ctypes import IS_COPIED, READ_ONLY, CountingDeleter, HostTensor, Table, managed  # noqa: E402
from dlpack_helpers import JAX_0_12  # noqa: E402


@pytest.fixture(scope="module")
def ours():
    return Table(pjrt_dlpack.Buffer)


@pytest.fixture(scope="module")
def torch_table():
    return Table(torch.Tensor)


def test_who_publishes_a_table():
    assert Table(torch.Tensor).version >= (1, 2)
    assert Table(torch.utils.dlpack.ReadOnlyTensorWrapper).version >= (1, 2)
    assert not hasattr(np.ndarray, "__dlpack_c_exchange_api__")
    assert not hasattr(type(jax.numpy.zeros(2)), "__dlpack_c_exchange_api__")


@pytest.mark.parametrize("consumer", ["numpy", "torch", "jax"])
def test_who_consumes_a_table(cpu, consumer):
    """A producer that lends our table to a type it does not fit: a consumer
    using the table would get our TypeError; these call __dlpack__."""
    buf = cpu.buffer(np.arange(4, dtype=np.float32))

    class Lender:
        __dlpack_c_exchange_api__ = pjrt_dlpack.Buffer.__dlpack_c_exchange_api__
        calls = 0

        def __dlpack__(self, **kwargs):
            Lender.calls += 1
            return buf.__dlpack__(**kwargs)

        def __dlpack_device__(self):
            return buf.__dlpack_device__()

    fn = {"numpy": np.from_dlpack, "torch": torch.from_dlpack,
          "jax": jax.dlpack.from_dlpack}[consumer]
    out = fn(Lender())
    assert Lender.calls == 1
    assert np.asarray(out).tolist() == [0, 1, 2, 3]


def _torch_tensor_with_counter(torch_table, n=6):
    """A torch tensor whose storage is a tensor made here: its deleter runs
    when the last holder of the storage lets go."""
    host = np.arange(n, dtype=np.float32)
    made = HostTensor(host.ctypes.data, (n,))
    tensor = torch_table.to_object(made.address)
    return host, made, tensor


def test_from_torch_uses_its_table_and_releases_once(cpu, torch_table, monkeypatch):
    host, made, tensor = _torch_tensor_with_counter(torch_table)
    assert tensor.data_ptr() == host.ctypes.data

    def no_capsule(self, *args, **kwargs):
        raise AssertionError("__dlpack__ called")

    # Patched on torch.Tensor itself, the type that publishes the table: the
    # table still answers for it (a subclass that redefines __dlpack__ is
    # taken through its own, test_torch_subclass_dlpack_is_asked).
    monkeypatch.setattr(torch.Tensor, "__dlpack__", no_capsule)
    buf = cpu.from_dlpack(tensor)
    monkeypatch.undo()
    assert buf.unsafe_buffer_pointer() == host.ctypes.data
    del tensor
    gc.collect()
    assert made.calls == 0  # the buffer holds torch's export
    del buf
    gc.collect()
    assert made.calls == 1


def test_from_torch_errors_and_flags(cpu, xpu, torch_table):
    # A dtype the library cannot import (complex32): the tensor PyTorch's
    # table exported is deleted by us, once.
    host = np.zeros(4, dtype=np.float32)
    made = HostTensor(host.ctypes.data, (4,), dtype=(5, 32))  # kDLComplex 32
    chalf = torch_table.to_object(made.address)
    assert chalf.dtype == torch.complex32
    with pytest.raises(pjrt_dlpack.DLPackError):
        cpu.from_dlpack(chalf)
    del chalf
    gc.collect()
    assert made.calls == 1
    host, made, tensor = _torch_tensor_with_counter(torch_table)
    # A device move copy=False forbids: the exported tensor is given back.
    with pytest.raises(pjrt_dlpack.DLPackCopyError):
        xpu.from_dlpack(tensor, device=xpu.devices[0], copy=False)
    # The read-only table: never viewed writable, so copied or refused.
    ro = torch.utils.dlpack.ReadOnlyTensorWrapper(tensor)
    copied = cpu.from_dlpack(ro)
    assert copied.unsafe_buffer_pointer() != host.ctypes.data
    assert copied.to_bytes() == host.tobytes()
    with pytest.raises(BufferError):
        cpu.from_dlpack(ro, copy=False)
    assert cpu.from_dlpack(tensor, copy=True).unsafe_buffer_pointer() != host.ctypes.data
    del ro, copied, tensor
    gc.collect()
    assert made.calls == 1


def test_torch_table_to_our_buffer_by_hand(cpu, torch_table, ours):
    t = torch.arange(12, dtype=torch.float32).reshape(3, 4)
    address = torch_table.managed(t)
    assert managed(address).flags & READ_ONLY == 0
    counter = CountingDeleter(address)
    buf = ours.to_object(address)
    assert buf.unsafe_buffer_pointer() == t.data_ptr() and buf.shape == (3, 4)
    del buf
    gc.collect()
    assert counter.calls == 1


def test_our_buffer_to_torch_through_tables(cpu, xpu, torch_table, ours):
    host = np.arange(6, dtype=np.float32).reshape(2, 3)
    buf = cpu.buffer(host)
    address = ours.managed(buf)
    assert managed(address).flags & IS_COPIED == 0
    counter = CountingDeleter(address)
    t = torch_table.to_object(address)
    assert isinstance(t, torch.Tensor) and t.data_ptr() == buf.unsafe_buffer_pointer()
    assert t.tolist() == host.tolist()
    t[0, 0] = 42.0  # shared memory
    assert np.from_dlpack(buf)[0, 0] == 42.0
    del t
    gc.collect()
    assert counter.calls == 1
    # PyTorch's allocator, then our buffer over its tensor.
    address, errors = torch_table.allocate((4, 2))
    assert not errors
    counter = CountingDeleter(address)
    view = ours.to_object(address)
    assert view.shape == (4, 2)
    del view
    gc.collect()
    assert counter.calls == 1


def test_numpy_and_jax_use_capsules(cpu):
    a = np.arange(8, dtype=np.float32)
    assert cpu.from_dlpack(a).unsafe_buffer_pointer() == a.ctypes.data
    assert np.from_dlpack(cpu.from_dlpack(a)).ctypes.data == a.ctypes.data
    x = jax.numpy.arange(8, dtype=jax.numpy.float32)
    buf = cpu.from_dlpack(x)
    # JAX 0.12's tensors are read-only: copied (dlpack_helpers.JAX_0_12).
    assert (buf.unsafe_buffer_pointer() == x.unsafe_buffer_pointer()) != JAX_0_12
    assert np.asarray(jax.dlpack.from_dlpack(buf)).tolist() == list(range(8))
