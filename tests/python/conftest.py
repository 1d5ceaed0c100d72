"""Fixtures for the pjrt_dlpack Python tests.

The module is imported from PYTHONPATH (the build's python/ directory) and the
reference plugin is found through the PJRT_REF_PLUGIN environment variable and
XLA's CPU plugin through PJRT_XLA_CPU_PLUGIN, as ctest sets them. The fixtures
serve tests/python/modern/ too.
"""
import os

import pytest

import pjrt_dlpack  # noqa: E402  (PYTHONPATH: the build's python/ directory)


def plugin_path(var, what):
    """The plugin file that environment variable `var` names; not set or
    missing: the test fails."""
    path = os.environ.get(var)
    if not path or not os.path.exists(path):
        pytest.fail(f"{var} is not set to {what}")
    return path


@pytest.fixture(scope="session")
def ref_plugin_file():
    """The built reference plugin's file."""
    return plugin_path("PJRT_REF_PLUGIN", "the built reference plugin")


@pytest.fixture(scope="session")
def xla_plugin():
    """XLA's own CPU plugin (installed by the set-up); missing: the test fails."""
    return pjrt_dlpack.load_plugin(
        plugin_path("PJRT_XLA_CPU_PLUGIN", "XLA's CPU plugin (run scripts/setup.sh)"))


@pytest.fixture(scope="session")
def xla(xla_plugin):
    """A client of XLA's CPU plugin with its default options."""
    client = xla_plugin.client()
    assert client.platform == "cpu"
    return client


@pytest.fixture(scope="session")
def plugin(ref_plugin_file):
    return pjrt_dlpack.load_plugin(ref_plugin_file)


@pytest.fixture(scope="session")
def cpu(plugin):
    return plugin.client(platform="cpu")


@pytest.fixture(scope="session")
def xpu(plugin):
    try:
        return plugin.client(platform="xpu")
    except pjrt_dlpack.Error as e:
        pytest.fail(f"reference plugin cannot create an xpu client: {e}")


@pytest.fixture(params=["cpu", "xpu"])
def client(request):
    return request.getfixturevalue(request.param)
