"""Fixtures for the Python module on Intel's oneAPI PJRT plugin over ze_sim
(zesim/), run by ctest in both environments (python_pytest_oneapi and
python_pytest_oneapi_modern) with ze_sim and the plugin's runtime on
LD_LIBRARY_PATH (as `eval "$(scripts/plugins.sh env oneapi)"` sets it), the
plugin in PJRT_ONEAPI_PLUGIN and tests/python (the helpers) on PYTHONPATH.
A missing plugin fails, it never skips.

ze_sim reads its configuration once, when the plugin's client first calls
zeInit; it is set here before any client exists: each command of ze_sim's
workers waits ZE_SIM_DELAY_US before it runs, 2 ms here (200 us by
default), so that a dozen fresh buffers keep their host-to-device copies
pending for a while and a consumer that does not wait for them reads stale
memory. A test that needs another configuration (two GPUs) runs in a fresh
interpreter (fresh_python.run_python)."""
import os

import pytest

import oneapi_client  # tests/python, on PYTHONPATH

os.environ.setdefault("ZE_SIM_DELAY_US", "2000")


@pytest.fixture(scope="session")
def oneapi():
    """A client of Intel's plugin on ze_sim's one simulated GPU."""
    return oneapi_client.client()


@pytest.fixture(scope="session")
def pinned_host(oneapi):
    """The first device's pinned_host memory (kDLCPU:0)."""
    (memory,) = [m for m in oneapi.devices[0].memories if m.kind == "pinned_host"]
    return memory
