"""The seed's exchange: JAX on Intel's oneAPI PJRT plugin hands an array to
Intel's dpnp and takes one back, zero-copy both ways, each computed on the
GPU before it is handed over (on ze_sim, the host's CPU runs the kernels).

JAX runs Intel's plugin (its oneAPI 2025.1 runtime) as platform `oneapi`;
dpnp runs on its own SYCL runtime (2026). Both reach the same GPU, here
ze_sim's simulated one. pjrt_dlpack.jax exports the JAX array as a
kDLOneAPI tensor (JAX itself exports only cpu/cuda/rocm), dpnp views it, a
dpnp array comes back to JAX as a jax.Array on the same memory, and the
device ids agree across JAX, pjrt_dlpack and dpctl. Then a jitted JAX
function's result, still being computed, goes to dpnp, which sums it, and a
dpnp result, still being computed, into a JAX kernel. Exits 1 if a check
fails.

    eval "$(scripts/plugins.sh env oneapi)"   # ze_sim and the plugin's runtime
    PYTHONPATH=build/python "$(scripts/python-env.sh python dpnp-env)" \\
        examples/jax_dpnp.py "$(scripts/plugins.sh path oneapi)"

JAX's client is created before dpnp touches a device (docs/plugins.md says
why the order matters and how to start the other way round).
"""
import os
import sys

import numpy as np

from example_checks import Checks


def main():
    if len(sys.argv) < 2 and not os.environ.get("PJRT_ONEAPI_PLUGIN"):
        sys.exit("jax_dpnp.py: give Intel's oneAPI plugin (argv[1] or $PJRT_ONEAPI_PLUGIN)")
    plugin = sys.argv[1] if len(sys.argv) > 1 else os.environ["PJRT_ONEAPI_PLUGIN"]
    os.environ["PJRT_NAMES_AND_LIBRARY_PATHS"] = f"oneapi:{os.path.abspath(plugin)}"
    os.environ.setdefault("JAX_PLATFORMS", "oneapi")

    import jax

    devices = jax.devices("oneapi")  # JAX's client first, then dpnp
    import dpctl
    import dpnp

    import pjrt_dlpack
    import pjrt_dlpack.jax as pjax

    check = Checks("jax_dpnp.py")
    gpus = dpctl.get_devices()
    print("JAX devices:", devices, " dpctl devices:", [g.filter_string for g in gpus])
    dev, gpu = devices[-1], gpus[-1]

    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    x = jax.device_put(a, dev)
    tensor = pjax.export(x)
    print(f"JAX -> dpnp: pjrt_dlpack.jax.export(x) is on {tensor.__dlpack_device__()}")
    check(tensor.__dlpack_device__() == (pjrt_dlpack.kDLOneAPI, dev.id),
          "kDLOneAPI, with JAX's device id")
    d = dpnp.from_dlpack(tensor)
    pointer = d.__sycl_usm_array_interface__["data"][0]
    check(pointer == x.unsafe_buffer_pointer(), "dpnp views JAX's memory: same pointer")
    check(d.sycl_device.filter_string == gpu.filter_string,
          f"on the same GPU ({gpu.filter_string})")
    check(np.array_equal(dpnp.asnumpy(d), a), "dpnp reads the same values")

    z = dpnp.asarray(a * 10, device=gpu.filter_string)
    print(f"dpnp -> JAX: a dpnp array on {gpu.filter_string}")
    y = pjax.from_dlpack(z)  # a private jaxlib function: see pjrt_dlpack.jax
    z_pointer = z.__sycl_usm_array_interface__["data"][0]
    check(isinstance(y, jax.Array) and y.devices() == {dev}, f"a jax.Array on {dev}")
    check(y.unsafe_buffer_pointer() == z_pointer, "JAX views dpnp's memory: same pointer")
    check(np.array_equal(np.asarray(y), a * 10), "JAX reads the same values")

    w = dpnp.from_dlpack(pjax.export(y))
    check(w.__sycl_usm_array_interface__["data"][0] == z_pointer,
          "dpnp -> JAX -> dpnp: still the same memory")

    # Computed, and handed over before anyone waited for it: the export
    # waits for JAX's kernel, the import for dpnp's queue.
    f = jax.jit(lambda v: jax.numpy.sin(v) * 2 + 1)
    r = f(x)
    want = np.sin(a) * 2 + 1
    d = dpnp.from_dlpack(pjax.export(r))
    check(d.__sycl_usm_array_interface__["data"][0] == r.unsafe_buffer_pointer(),
          "a JAX result goes to dpnp: same pointer")
    check(np.isclose(float(dpnp.sum(d)), want.sum(), rtol=1e-5), "dpnp sums JAX's result")
    e = dpnp.cumsum(z, axis=1) * 2  # dpnp kernels, still queued
    g = jax.jit(lambda v: v - 1)(pjax.from_dlpack(e))
    check(np.allclose(np.asarray(g), np.cumsum(a * 10, axis=1) * 2 - 1),
          "a JAX kernel computes on dpnp's result")
    return check.verdict()


if __name__ == "__main__":
    sys.exit(main())
