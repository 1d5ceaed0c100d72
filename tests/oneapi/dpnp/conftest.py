"""Fixtures for the seed's exchange (tests/oneapi/dpnp): Intel's oneAPI PJRT
plugin (its oneAPI 2025.1 runtime), Intel's own dpctl and dpnp (their 2026
runtime, whose Unified Runtime adapters embed the Level Zero loader's static
front-end and look ze_sim's loader interface up at run time) and JAX 0.10.2
on the plugin, all on one ze_sim (zesim/), in the pinned environment of
`scripts/python-env.sh install dpnp-env`. ctest runs this folder with that
environment's interpreter, ze_sim and the plugin's runtime first on
LD_LIBRARY_PATH, the plugin in PJRT_ONEAPI_PLUGIN, and the built module and
tests/python (the helpers) on PYTHONPATH. A missing or different package
fails every test; nothing skips.

ze_sim reads its configuration once per process, when the first runtime
calls zeInit: ZE_SIM_DELAY_US is set here before anything starts (2 ms per
command, so that a dozen fresh copies stay pending for a while and a side
that does not wait reads stale memory). The in-process tests create the
PJRT client first and import dpnp afterwards; the other orders, two GPUs and
JAX run in fresh interpreters (fresh_python.run_python)."""
import importlib
import importlib.metadata
import os

import pytest

os.environ.setdefault("ZE_SIM_DELAY_US", "2000")

import oneapi_client  # noqa: E402 (tests/python; after ze_sim's configuration)

# The pins of scripts/dpnp-env.txt that these tests are about.
PINNED = {"dpctl": "0.22.1", "dpnp": "0.20.0", "jax": "0.10.2", "intel-sycl-rt": "2026.2.0"}


@pytest.fixture(scope="session", autouse=True)
def dpnp_env_checked():
    """The pinned stack, by distribution version; anything else fails."""
    for name, want in PINNED.items():
        try:
            have = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            pytest.fail(f"{name} is not installed: run scripts/python-env.sh install dpnp-env")
        if have != want:
            pytest.fail(f"{name} {have} found, the dpnp environment pins {want}")


@pytest.fixture(scope="session")
def oneapi():
    """A client of Intel's plugin on ze_sim's one GPU, created before dpctl
    or dpnp touch a device."""
    return oneapi_client.client()


@pytest.fixture(scope="session")
def dp(oneapi):
    """(dpctl, dpnp, dpnp.tensor), imported after the PJRT client exists."""
    return tuple(importlib.import_module(m) for m in ("dpctl", "dpnp", "dpnp.tensor"))
