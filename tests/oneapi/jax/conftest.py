"""JAX itself on Intel's oneAPI PJRT plugin over ze_sim (python_pytest_oneapi_jax,
modern environment only): ctest sets PJRT_NAMES_AND_LIBRARY_PATHS=oneapi:<plugin>
and JAX_PLATFORMS=oneapi, so JAX's only backend is the plugin, whose XLA
compiles to SPIR-V that ze_sim runs on the host's CPU (zesim/README.md).
Missing settings or a JAX without the oneapi platform fail every test.

ze_sim reads its configuration once, when the plugin first calls zeInit: each
command waits ZE_SIM_DELAY_US before it runs, 5 ms here, so that a kernel
queued by JAX runs well after the call that queued it returns, and a reader
that does not wait for it sees the memory as it was."""
import os

import pytest

os.environ.setdefault("ZE_SIM_DELAY_US", "5000")


@pytest.fixture(scope="session", autouse=True)
def jax_on_oneapi():
    for name in ("PJRT_NAMES_AND_LIBRARY_PATHS", "JAX_PLATFORMS"):
        if not os.environ.get(name):
            pytest.fail(f"{name} is not set: these tests run JAX on Intel's plugin (ctest sets it)")
    import jax

    devices = jax.devices()
    if [d.platform for d in devices] != ["oneapi"]:
        pytest.fail(f"JAX's devices are {devices}, not Intel's plugin's one simulated GPU")
    return devices[0]
