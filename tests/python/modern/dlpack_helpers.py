"""Helpers shared by the modern tests, re-exported from the helpers of both
environments (tests/python/dlpack_ctypes.py: capsule inspection through
ctypes, a producer of a ready-made capsule, a recording producer wrapper)."""
import os
import sys

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
