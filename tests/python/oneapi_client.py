"""Intel's oneAPI plugin for the tests that run it on ze_sim (tests/oneapi/
python, tests/oneapi/dpnp): its file from PJRT_ONEAPI_PLUGIN, which ctest
sets; not set or missing, the test fails (it never skips)."""
import os

import pytest

import pjrt_dlpack


def plugin_path():
    path = os.environ.get("PJRT_ONEAPI_PLUGIN")
    if not path or not os.path.exists(path):
        pytest.fail("PJRT_ONEAPI_PLUGIN is not set to Intel's oneAPI plugin (run scripts/setup.sh)")
    return path


def client():
    """A client of Intel's plugin, checked to be platform oneapi."""
    c = pjrt_dlpack.load_plugin(plugin_path()).client()
    assert c.platform == "oneapi"
    return c
