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

import pjrt_dlpack

os.environ.setdefault("ZE_SIM_DELAY_US", "2000")


def oneapi_plugin_path():
    """Intel's plugin file; not set or missing: the test fails."""
    path = os.environ.get("PJRT_ONEAPI_PLUGIN")
    if not path or not os.path.exists(path):
        pytest.fail("PJRT_ONEAPI_PLUGIN is not set to Intel's oneAPI plugin (run scripts/setup.sh)")
    return path


@pytest.fixture(scope="session")
def oneapi():
    """A client of Intel's plugin on ze_sim's one simulated GPU."""
    client = pjrt_dlpack.load_plugin(oneapi_plugin_path()).client()
    assert client.platform == "oneapi"
    return client


@pytest.fixture(scope="session")
def pinned_host(oneapi):
    """The first device's pinned_host memory (kDLCPU:0)."""
    (memory,) = [m for m in oneapi.devices[0].memories if m.kind == "pinned_host"]
    return memory
