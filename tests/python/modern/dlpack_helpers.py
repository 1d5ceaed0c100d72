"""Helpers shared by the modern tests: a producer wrapper, and (from
tests/python/dlpack_ctypes.py) capsule inspection through ctypes and a
producer of a ready-made capsule."""
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
    capsule_name,
    capsule_valid,
    legacy,
    versioned,
)


class Recorder:
    """Wraps a producer and records the keywords each consumer passes."""

    def __init__(self, inner):
        self.inner, self.calls = inner, []

    def __dlpack__(self, **kwargs):
        self.calls.append(kwargs)
        return self.inner.__dlpack__(**kwargs)

    def __dlpack_device__(self):
        return self.inner.__dlpack_device__()
