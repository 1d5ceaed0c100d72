"""Client.compile and Executable on XLA's CPU plugin (PJRT_XLA_CPU_PLUGIN):
arguments from NumPy, PyTorch and Buffers, results to NumPy and PyTorch in
place, the plugin's errors, and results that outlive what made them."""
import gc
import os

import numpy as np
import pytest
import torch

import pjrt_dlpack
from aligned_arrays import aligned, aligned_copy

# a * b + 1 and the transpose of a: the program of the example xla_compute.
EXAMPLES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "examples")
with open(os.path.join(EXAMPLES, "xla_compute.mlir"), encoding="utf-8") as _f:
    PROGRAM = _f.read()

BIG = 1024
MATMUL = f"""
func.func @main(%a: tensor<{BIG}x{BIG}xf32>, %b: tensor<{BIG}x{BIG}xf32>)
    -> tensor<{BIG}x{BIG}xf32> {{
  %c = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0]
      : (tensor<{BIG}x{BIG}xf32>, tensor<{BIG}x{BIG}xf32>) -> tensor<{BIG}x{BIG}xf32>
  return %c : tensor<{BIG}x{BIG}xf32>
}}
"""


@pytest.fixture(scope="module")
def exe(xla):
    return xla.compile(PROGRAM)


A = np.arange(1, 7, dtype=np.float32).reshape(2, 3)
B = np.full((2, 3), 3.0, dtype=np.float32)


def test_compile(xla, exe):
    assert isinstance(exe, pjrt_dlpack.Executable)
    assert exe.output_count == 2
    assert exe.client is xla
    assert exe.device.id == xla.devices[0].id
    assert "outputs=2" in repr(exe)
    assert xla.compile(PROGRAM.encode()).output_count == 2  # bytes too


def test_numpy_and_torch_in_numpy_and_torch_out(exe):
    s, t = exe(aligned_copy(A), torch.tensor(B))  # PyTorch aligns its memory to 64 bytes
    assert isinstance(s, pjrt_dlpack.Buffer) and s.shape == (2, 3) and t.shape == (3, 2)
    s_np = np.from_dlpack(s)
    t_torch = torch.from_dlpack(t)
    assert s_np.ctypes.data == s.unsafe_buffer_pointer()
    assert t_torch.data_ptr() == t.unsafe_buffer_pointer()
    np.testing.assert_array_equal(s_np, A * B + 1)
    np.testing.assert_array_equal(t_torch.numpy(), A.T)


def test_execute_is_call(exe, xla):
    bufs = [xla.buffer(A), xla.buffer(B)]
    s, _ = exe.execute(*bufs)
    np.testing.assert_array_equal(np.from_dlpack(s), A * B + 1)


def test_arguments_are_views(exe, xla):
    """A Buffer imported zero-copy is what the program reads: a write through
    NumPy after the import shows in the result."""
    a = aligned_copy(A)
    b = torch.tensor(B)  # PyTorch aligns its memory to 64 bytes
    a_buf, b_buf = xla.from_dlpack(a, copy=False), xla.from_dlpack(b, copy=False)
    assert a_buf.unsafe_buffer_pointer() == a.ctypes.data
    assert b_buf.unsafe_buffer_pointer() == b.data_ptr()
    a[0, 0] = 100.0
    b[1, 2] = -1.0
    s, t = exe(a_buf, b_buf)
    want = a * b.numpy() + 1
    assert want[0, 0] == 301.0 and want[1, 2] == -5.0
    np.testing.assert_array_equal(np.from_dlpack(s), want)
    np.testing.assert_array_equal(np.from_dlpack(t), a.T)


def test_capsule_argument(exe):
    s, _ = exe(aligned_copy(A).__dlpack__(), aligned_copy(B))
    np.testing.assert_array_equal(np.from_dlpack(s), A * B + 1)


def test_unaligned_argument_is_copied(exe):
    """NumPy data below XLA's 64-byte alignment cannot be viewed: it is
    copied (copy=None), and the result is the same."""
    a = aligned(A.shape, A.dtype, offset=16)
    a[...] = A
    s, _ = exe(a, aligned_copy(B))
    np.testing.assert_array_equal(np.from_dlpack(s), A * B + 1)


def test_compile_error_has_the_plugins_message(xla):
    with pytest.raises(pjrt_dlpack.Error) as info:
        xla.compile("func.func @main( this is not MLIR")
    assert "PJRT_Client_Compile" in str(info.value)
    assert "error" in str(info.value)
    with pytest.raises(TypeError):
        xla.compile(42)


def test_wrong_argument_count(exe, xla):
    with pytest.raises(pjrt_dlpack.Error) as info:
        exe(xla.buffer(A))
    assert info.value.code_name == "INVALID_ARGUMENT"
    assert "expected 2" in str(info.value)
    with pytest.raises(TypeError):
        exe(xla.buffer(A), b=xla.buffer(B))


def test_deleted_argument(exe, xla):
    a, b = xla.buffer(A), xla.buffer(B)
    b.delete()
    with pytest.raises(pjrt_dlpack.Error) as info:
        exe(a, b)
    assert info.value.code_name == "FAILED_PRECONDITION"
    assert "input 1" in str(info.value)


def test_argument_that_is_not_dlpack(exe, xla):
    with pytest.raises(TypeError):
        exe(xla.buffer(A), "not an array")


def test_buffer_of_another_client(exe, xla, cpu):
    with pytest.raises(pjrt_dlpack.Error) as info:
        exe(xla.buffer(A), cpu.buffer(B))
    assert "another client" in str(info.value)


def test_reference_plugin_cannot_compile(cpu):
    with pytest.raises(pjrt_dlpack.Error) as info:
        cpu.compile(PROGRAM)
    assert info.value.code_name == "UNIMPLEMENTED"


def test_results_outlive_executable_and_arguments(xla):
    """The executable and the arguments go while the product is computed;
    the result is still whole when NumPy reads it (the export waits)."""
    exe = xla.compile(MATMUL)
    ones = aligned_copy(np.ones((BIG, BIG), dtype=np.float32))
    (c,) = exe(ones, ones)
    del exe, ones
    gc.collect()
    out = np.from_dlpack(c)
    assert out.ctypes.data == c.unsafe_buffer_pointer()
    assert (out == BIG).all()

