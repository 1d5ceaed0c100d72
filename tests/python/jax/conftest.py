"""The JAX matrix suite (this folder): run by pytest in each pinned
environment of scripts/jax-env.sh (NumPy, jax, jaxlib, ml_dtypes; no
PyTorch), with the built module on PYTHONPATH and the reference plugin in
PJRT_REF_PLUGIN, as ctest sets them. Nothing skips: a missing plugin or
package fails. The other Python runs ignore this folder."""
import os

import pytest


@pytest.fixture(scope="session")
def ref_plugin_file():
    path = os.environ.get("PJRT_REF_PLUGIN")
    if not path or not os.path.exists(path):
        pytest.fail(f"PJRT_REF_PLUGIN does not name the reference plugin ({path!r})")
    return path


@pytest.fixture(scope="session")
def jax_release():
    import jax

    return tuple(jax.__version_info__)
