"""Exchanges against real asynchronous compute: results of JAX kernels
that nobody waited for, leaving JAX through pjrt_dlpack.jax.export, and
buffers whose data is still on its way, entering JAX through
pjrt_dlpack.jax.from_dlpack to be used by a JAX kernel. ze_sim's memory is
host memory, so a test can look at what a consumer would read; its command
delay (conftest.py) keeps every kernel pending well after JAX's call
returns. Each test counts the rounds in which the data was indeed not there
yet when it was handed over: zero would mean it tested nothing."""
import ctypes

import jax
import jax.numpy as jnp
import numpy as np

import pjrt_dlpack.jax as pjax
from dlpack_ctypes import KDL_ONEAPI, versioned

ROUNDS = 6
# Fresh buffers made back to back: ze_sim's worker runs their host-to-device
# copies one after another, so the last one's data arrives long after.
BACKLOG = 12


def holds(address, want):
    """Whether the memory at `address` holds `want`'s bytes right now."""
    return ctypes.string_at(address, want.nbytes) == want.tobytes()


@jax.jit
def compute(x):
    return x * 3 + 1


def test_unawaited_jax_result_exported_is_complete():
    """y = compute(x) is still queued when export(y) is called: the tensor's
    memory holds y once __dlpack__ returns (the export waits), and a host
    copy NumPy asks of a pjrt_dlpack view of it too."""
    client = pjax.client("oneapi")
    pending = 0
    for r in range(ROUNDS):
        x = jnp.asarray(np.arange(4096, dtype=np.float32) + r)
        x.block_until_ready()
        want = (np.arange(4096, dtype=np.float32) + r) * 3 + 1
        y = compute(x)
        pending += not holds(y.unsafe_buffer_pointer(), want)
        t = versioned(pjax.export(y).__dlpack__(max_version=(1, 0))).dl_tensor
        assert (t.device.device_type, t.data) == (KDL_ONEAPI, y.unsafe_buffer_pointer())
        assert holds(t.data, want), f"round {r}: the export handed over stale memory"
        z = compute(jnp.asarray(want))
        view = client.from_dlpack(pjax.export(z))
        assert view.unsafe_buffer_pointer() == z.unsafe_buffer_pointer()
        host = np.from_dlpack(view, device="cpu")
        np.testing.assert_array_equal(host, want * 3 + 1, err_msg=f"round {r}: stale host copy")
    assert pending > 0


def test_pending_buffer_used_by_a_jax_kernel():
    """A pjrt_dlpack buffer of JAX's own client whose host-to-device copy
    is still queued, imported with pjrt_dlpack.jax.from_dlpack and used by
    a JAX kernel at once: the kernel computes on its data."""
    client = pjax.client("oneapi")
    (device,) = client.devices
    pending = 0
    for r in range(ROUNDS):
        host = np.full(4096, r + 0.5, dtype=np.float32)
        bufs = [client.buffer(host + k, device=device) for k in range(BACKLOG)]
        last, want = bufs[-1], host + (BACKLOG - 1)
        pending += not holds(last.unsafe_buffer_pointer(), want)
        x = pjax.from_dlpack(last)
        assert isinstance(x, jax.Array) and x.unsafe_buffer_pointer() == last.unsafe_buffer_pointer()
        np.testing.assert_array_equal(np.asarray(compute(x)), want * 3 + 1,
                                      err_msg=f"round {r}: the kernel read stale memory")
    assert pending > 0


def test_results_chain_across_the_exchange():
    """JAX → pjrt_dlpack → JAX with nothing awaited in between: each kernel
    reads what the previous one wrote."""
    client = pjax.client("oneapi")
    x = jnp.asarray(np.arange(1024, dtype=np.float32))
    for _ in range(5):
        x = pjax.from_dlpack(client.from_dlpack(pjax.export(compute(x))))
    want = np.arange(1024, dtype=np.float64)
    for _ in range(5):
        want = want * 3 + 1
    np.testing.assert_allclose(np.asarray(x), want, rtol=1e-6)
