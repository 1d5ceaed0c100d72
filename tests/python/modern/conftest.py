"""Fixtures and helpers for the tests against today's DLPack consumers and
producers: NumPy 2, PyTorch 2, JAX, ml_dtypes and array-api-strict (the
environment of scripts/python-env.sh). The legacy run (Debian's NumPy 1.24
and PyTorch 1.13) ignores this folder; here a missing or too old package
fails every test instead of skipping it (../modern_stack.py). The fixtures
of ../conftest.py (plugin, cpu, xpu, client, xla_plugin, xla) apply here
too."""
import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import modern_stack  # noqa: E402


@pytest.fixture(scope="session", autouse=True)
def modern_stack_checked():
    """Every test here needs the whole modern stack: check it once."""
    return modern_stack.check()
