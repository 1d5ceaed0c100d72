"""The packages of the modern environment (scripts/python-env.sh) that the
modern tests need, with their minimum versions: checked once per run by the
conftest of each modern/ folder (tests/python/modern, tests/oneapi/python/
modern). A missing or too old package fails every test instead of skipping
it."""
import importlib

import numpy as np
import pytest

MINIMUM = [("numpy", "2.0.0"), ("torch", "2.4.0"), ("jax", "0.4.35"), ("ml_dtypes", "0.4.0"),
           ("array_api_strict", "2.0.0"), ("tvm_ffi", "0.1.0")]


def need(name, minimum):
    """The module `name`, at least version `minimum`; otherwise the test fails."""
    try:
        mod = importlib.import_module(name)
    except ImportError as e:
        pytest.fail(f"the modern tests need {name} >= {minimum}: {e}")
    version = getattr(mod, "__version__", "0")
    if np.lib.NumpyVersion(version.split("+")[0]) < minimum:
        pytest.fail(f"the modern tests need {name} >= {minimum}, found {version}")
    return mod


def check():
    """Every package of MINIMUM, by name."""
    return {name: need(name, minimum) for name, minimum in MINIMUM}
