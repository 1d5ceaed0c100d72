"""Helpers shared by the modern tests, re-exported from the helpers of both
environments (tests/python/dlpack_ctypes.py: capsule inspection through
ctypes, a producer of a ready-made capsule, a recording producer wrapper),
and what the releases of the modern environments (NumPy 2.4 and JAX 0.10.2
on Python 3.11, NumPy 2.5 and JAX 0.12.1 on 3.13 and 3.14) do differently."""
import os
import sys

import jax
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from aligned_arrays import aligned  # noqa: E402,F401
from dtype_names import NUMERIC  # noqa: E402,F401
from dlpack_ctypes import (  # noqa: E402,F401  (re-exported for the modern tests)
    IS_COPIED,
    KDL_CPU,
    KDL_ONEAPI,
    READ_ONLY,
    DLManagedTensor,
    DLManagedTensorVersioned,
    DLTensor,
    Holder,
    Recorder,
    capsule_name,
    capsule_valid,
    legacy,
    versioned,
)

# What changed with the newer releases (each test says what it relies on):
# JAX 0.11 maps kDLOneAPI to its `oneapi` backend; JAX 0.12 exports
# versioned tensors (DLPack 1.3), each flagged read-only, and asks producers
# for one (max_version=(1, 3)), where before it made legacy capsules only,
# writable, and asked with stream= alone. A read-only tensor is copied into
# a PJRT buffer (or refused with copy=False): the zero-copy way in is then
# pjrt_dlpack.jax.export, writable. NumPy 2.5 exchanges ml_dtypes' types
# (bfloat16, float8) through DLPack both ways (2.4 refused them) and raises
# BufferError, not RuntimeError, for a device it cannot read.
JAX_0_11 = tuple(jax.__version_info__) >= (0, 11)
JAX_0_12 = tuple(jax.__version_info__) >= (0, 12)
NUMPY_2_5 = np.lib.NumpyVersion(np.__version__) >= "2.5.0"
