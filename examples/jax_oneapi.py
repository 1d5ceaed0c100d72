"""JAX computes on Intel's oneAPI PJRT plugin over ze_sim, the simulated
Level Zero GPU, and its result leaves JAX through DLPack, zero-copy.

A jitted function (elementwise work and a reduction) runs on the `oneapi`
device: XLA compiles it to SPIR-V, which ze_sim builds and runs on the
host's CPU (zesim/README.md). Its result, still being computed when the call
returns, is exported with pjrt_dlpack.jax.export as a kDLOneAPI tensor (the
export waits for it), imported into JAX's own PJRT client as a view of the
same memory, read back on the host, and used by the next JAX kernel. Exits
1 if a check fails.

    eval "$(scripts/plugins.sh env oneapi)"
    PJRT_NAMES_AND_LIBRARY_PATHS=oneapi:$(scripts/plugins.sh path oneapi) \\
        JAX_PLATFORMS=oneapi PYTHONPATH=build/python python examples/jax_oneapi.py

Matrix products need XLA_FLAGS=--xla_gpu_gemm_rewrite_size_threshold=1000000000000
on ze_sim (docs/plugins.md); this example has none.
"""
import sys

import numpy as np

import pjrt_dlpack
from example_checks import Checks


def main():
    import jax
    import jax.numpy as jnp
    import pjrt_dlpack.jax as pjax

    check = Checks("jax_oneapi.py")
    devices = jax.devices()
    print("JAX devices:", devices, f"({devices[0].device_kind})")
    check([d.platform for d in devices] == ["oneapi"], "JAX runs on Intel's plugin only")

    @jax.jit
    def f(x):
        return jnp.sin(x) * 2 + jnp.sum(x) / x.size

    a = np.linspace(0, 1, 1000, dtype=np.float32)
    want = np.sin(a) * 2 + a.sum() / a.size
    y = f(jnp.asarray(a))  # queued on the simulated GPU
    tensor = pjax.export(y)  # waits for y; describes its memory
    check(tensor.__dlpack_device__() == (pjrt_dlpack.kDLOneAPI, 0), "exported as kDLOneAPI:0")

    client = pjax.client("oneapi")  # JAX's own PJRT client, wrapped
    buf = client.from_dlpack(tensor, copy=False)
    check(buf.unsafe_buffer_pointer() == y.unsafe_buffer_pointer(),
          "imported as a view: same pointer")
    host = np.from_dlpack(buf, device="cpu")  # a copy to the host
    check(np.allclose(host, want, rtol=1e-5), "computed on the simulated GPU: right values")

    z = jnp.sum(pjax.from_dlpack(buf) * 2)  # back into JAX, into the next kernel
    check(np.isclose(float(z), 2 * want.sum(), rtol=1e-4), "the next JAX kernel reads it")
    return check.verdict()


if __name__ == "__main__":
    sys.exit(main())
