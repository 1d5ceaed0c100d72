"""dpnp computes on ze_sim, and every exchange with it is tested against
real asynchronous compute. dpnp's own kernels (SPIR-V modules of one kernel
each), oneMKL's (its vector math is linked with SYCL's device libraries:
ZE_experimental_module_program; its BLAS offers GPU machine code first,
which ze_sim refuses, then SPIR-V) all run on the host's CPU
(zesim/README.md). The exchanges: a JAX result nobody waited for, exported
with pjrt_dlpack.jax.export and read and used by dpnp; a dpnp result nobody
waited for, imported with pjrt_dlpack.jax.from_dlpack and used by a JAX
kernel; and one taken by client.from_dlpack. Each is computed behind a
backlog of commands (ZE_SIM_DELAY_US each, conftest.py), so that a reader
that does not wait reads the memory as it was; each test counts the rounds
in which the data was indeed not there yet when it was handed over."""
import ctypes
import os

import numpy as np

from fresh_python import run_python

BACKLOG = 12
ROUNDS = 4
RNG = np.random.default_rng(39)
A = RNG.standard_normal((37, 1030)).astype(np.float32)


def pointer(x):
    return x.__sycl_usm_array_interface__["data"][0]


def holds(address, want):
    """Whether the memory at `address` (host memory: ze_sim's) holds `want`."""
    return ctypes.string_at(address, want.nbytes) == want.tobytes()


def test_dpnp_kernels(dp):
    _, dpnp, _ = dp
    a = dpnp.arange(100, dtype=dpnp.float32)
    np.testing.assert_array_equal(dpnp.asnumpy(a + 1), np.arange(100, dtype=np.float32) + 1)
    assert float(dpnp.sum(a)) == 4950.0
    x = dpnp.asarray(A)
    for axis in (None, 0, 1):
        np.testing.assert_allclose(dpnp.asnumpy(dpnp.sum(x, axis=axis)), A.sum(axis=axis),
                                   rtol=1e-4, atol=1e-3)
    np.testing.assert_array_equal(dpnp.asnumpy(dpnp.max(x, axis=1)), A.max(axis=1))


def test_onemkl_kernels(dp):
    """sin: oneMKL's vector math, a kernel linked with a device library;
    x @ x.T: oneMKL's BLAS, whose GPU machine code ze_sim refuses and whose
    SPIR-V kernels then run."""
    _, dpnp, _ = dp
    x = dpnp.asarray(A)
    np.testing.assert_allclose(dpnp.asnumpy(dpnp.sin(x)), np.sin(A), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(dpnp.asnumpy(x @ x.T), A @ A.T, rtol=1e-3, atol=1e-2)


def late_dpnp(dpnp, r):
    """A dpnp array that a dpnp kernel computes behind BACKLOG copies still
    queued on its in-order queue, its address (asked first: the SYCL array
    interface waits for the queue) and the values it will hold. (dpnp waits
    for each of its own kernels before it queues the next, so only copies
    of dpctl's, which it does not track, make a backlog.)"""
    src = dpnp.full(4096, float(r + 1), dtype=dpnp.float32)
    e, scratch = dpnp.empty_like(src), dpnp.empty_like(src)
    address = pointer(e)
    for _ in range(BACKLOG):
        src.sycl_queue.memcpy_async(scratch.get_array().usm_data, src.get_array().usm_data,
                                    4096 * 4)
    dpnp.multiply(src, 3, out=e)
    return e, address, np.full(4096, 3 * (r + 1), dtype=np.float32)


def test_unawaited_dpnp_result_into_a_pjrt_buffer(oneapi, dp):
    _, dpnp, _ = dp
    pending = 0
    for r in range(ROUNDS):
        e, address, want = late_dpnp(dpnp, r)
        pending += not holds(address, want)
        b = oneapi.from_dlpack(e)
        assert b.unsafe_buffer_pointer() == address
        assert b.to_bytes() == want.tobytes(), f"round {r}: stale memory"
    assert pending > 0


# JAX 0.10.2 on Intel's plugin and dpnp in one fresh process (JAX's client
# first): results of each, still being computed, handed to the other.
JAX_AND_DPNP = """
    import ctypes, numpy as np
    import jax, jax.numpy as jnp
    assert [d.platform for d in jax.devices()] == ["oneapi"]
    import dpnp
    import pjrt_dlpack.jax as pjax
    import test_dpnp_compute as T

    compute = jax.jit(lambda x: x * 3 + 1)
    pending_jax = pending_dpnp = 0
    for r in range(T.ROUNDS):
        # JAX -> dpnp: y's input arrives behind a backlog of copies.
        base = np.arange(4096, dtype=np.float32) + 10 * r
        xs = [jnp.asarray(base + k) for k in range(T.BACKLOG)]
        y = compute(xs[-1])
        want = (base + T.BACKLOG - 1) * 3 + 1
        pending_jax += not T.holds(y.unsafe_buffer_pointer(), want)
        d = dpnp.from_dlpack(pjax.export(y))
        assert T.pointer(d) == y.unsafe_buffer_pointer()  # waits for dpnp's queue only
        got = dpnp.asnumpy(d)
        assert np.array_equal(got, want), f"round {r}: dpnp read {got[:3]}, not {want[:3]}"
        assert float(dpnp.sum(d)) == float(want.sum(dtype=np.float64))
        # dpnp -> JAX: e is computed behind a backlog of dpnp's kernels.
        e, address, want_e = T.late_dpnp(dpnp, r)
        pending_dpnp += not T.holds(address, want_e)
        j = pjax.from_dlpack(e)
        assert j.unsafe_buffer_pointer() == address
        got = np.asarray(compute(j))
        assert np.array_equal(got, want_e * 3 + 1), f"round {r}: JAX read {got[:3]}"
    print("pending", pending_jax, pending_dpnp)
"""


def test_unawaited_results_between_jax_and_dpnp(monkeypatch):
    monkeypatch.setenv("PJRT_NAMES_AND_LIBRARY_PATHS", "oneapi:" + os.environ["PJRT_ONEAPI_PLUGIN"])
    monkeypatch.setenv("JAX_PLATFORMS", "oneapi")
    here = os.path.dirname(os.path.abspath(__file__))
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([here, os.environ["PYTHONPATH"]]))
    out = run_python(JAX_AND_DPNP, timeout=300)
    jax_rounds, dpnp_rounds = map(int, out.split("pending")[1].split())
    assert jax_rounds > 0 and dpnp_rounds > 0, out
