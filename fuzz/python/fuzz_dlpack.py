"""The Python fuzzer: atheris over the pjrt_dlpack module's DLPack surface
(the cases and the oracle are in dlpack_cases.py; docs/reliability.md,
"Fuzzing"). Run by fuzz/python/run.sh (make fuzz, make test), or alone:

    PYTHONPATH=build/python PJRT_REF_PLUGIN=build/lib/libpjrt_ref.so \\
        $(scripts/python-env.sh python fuzz-env) fuzz/python/fuzz_dlpack.py \\
        -max_total_time=60 WORKDIR fuzz/python/corpus

Arguments are libFuzzer's. The module is the one on PYTHONPATH (a build's
python/ folder); the reference plugin is $PJRT_REF_PLUGIN.
"""
import os
import sys

import atheris

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "..", "tests", "python"))  # dlpack_ctypes
sys.path.insert(0, here)

with atheris.instrument_imports(include=["dlpack_cases", "dlpack_ctypes", "pjrt_dlpack"]):
    import dlpack_cases

_world = None


def test_one_input(data):
    dlpack_cases.one_input(_world, atheris.FuzzedDataProvider(data))


def main():
    global _world
    plugin = os.environ.get("PJRT_REF_PLUGIN")
    if not plugin or not os.path.exists(plugin):
        sys.exit("fuzz_dlpack.py: set PJRT_REF_PLUGIN to the built reference plugin")
    _world = dlpack_cases.World(plugin)
    atheris.Setup(sys.argv, test_one_input)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
