"""Fixtures and helpers for the tests against today's DLPack consumers and
producers: NumPy 2, PyTorch 2, JAX, ml_dtypes and array-api-strict (the
environment of scripts/python-env.sh). The legacy run (Debian's NumPy 1.24
and PyTorch 1.13) ignores this folder; here a missing or too old package
fails every test instead of skipping it. The fixtures of ../conftest.py
(plugin, cpu, xpu, client, xla_plugin, xla) apply here too."""
import importlib

import numpy as np
import pytest


def _need(name, minimum):
    try:
        mod = importlib.import_module(name)
    except ImportError as e:
        pytest.fail(f"the modern tests need {name} >= {minimum}: {e}")
    version = getattr(mod, "__version__", "0")
    if np.lib.NumpyVersion(version.split("+")[0]) < minimum:
        pytest.fail(f"the modern tests need {name} >= {minimum}, found {version}")
    return mod


@pytest.fixture(scope="session", autouse=True)
def modern_stack():
    """Every test here needs the whole modern stack: check it once."""
    return {name: _need(name, minimum) for name, minimum in [
        ("numpy", "2.0.0"), ("torch", "2.4.0"), ("jax", "0.4.35"), ("ml_dtypes", "0.4.0"),
        ("array_api_strict", "2.0.0")]}
