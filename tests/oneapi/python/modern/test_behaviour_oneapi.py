"""The conformance suite by behaviour (tests/python/modern/test_behaviour.py)
on Intel's oneAPI plugin over ze_sim: the same tests, with `target` the
plugin's client (kDLOneAPI device memory, a pinned_host memory)."""
import os
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..",
                                "python", "modern"))
from test_behaviour import *  # noqa: E402,F401,F403  (the tests, collected here again)

# Two tests are about the reference plugin's two xpu clients and XLA's
# abort; they run in the main suite only.
del test_module_level_from_dlpack_takes_the_stream_of_the_client_that_holds_it  # noqa: F821
del test_plugin_never_sees_a_shape_it_aborts_on  # noqa: F821


@pytest.fixture
def target(oneapi):
    return oneapi
