"""Helpers shared by the modern tests: producer wrappers, and (from
tests/python/dlpack_ctypes.py) capsule inspection through ctypes."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from aligned_arrays import aligned  # noqa: E402,F401
from dlpack_ctypes import (  # noqa: E402,F401  (re-exported for the modern tests)
    IS_COPIED,
    KDL_CPU,
    KDL_ONEAPI,
    READ_ONLY,
    DLManagedTensor,
    DLManagedTensorVersioned,
    DLTensor,
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


class Holder:
    """Presents one ready-made capsule through the protocol."""

    def __init__(self, capsule, device):
        self.capsule, self.device = capsule, device

    def __dlpack__(self, **kwargs):
        return self.capsule

    def __dlpack_device__(self):
        return self.device


