"""The modern twin's own tests (python_pytest_oneapi_modern only): NumPy 2,
PyTorch 2 and JAX against Intel's plugin. A missing or too old package of
the modern environment fails every test (tests/python/modern_stack.py); the
fixtures of ../conftest.py apply here too."""
import pytest

import modern_stack  # tests/python, on PYTHONPATH


@pytest.fixture(scope="session", autouse=True)
def modern_stack_checked():
    return modern_stack.check()
