"""Runs a snippet in a fresh interpreter with the test environment, so that a
crash (an abort, a fatal Python error) fails the test that ran it instead of
ending pytest."""
import os
import subprocess
import sys
import textwrap


def run_python(code, timeout=120):
    """Runs `code` in a fresh interpreter; its stdout, after asserting that it
    exited with status 0. The tests' helper modules (dlpack_ctypes, ...)
    are importable there."""
    env = dict(os.environ)
    here = os.path.dirname(os.path.abspath(__file__))
    env["PYTHONPATH"] = os.pathsep.join(p for p in (here, env.get("PYTHONPATH")) if p)
    proc = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    assert proc.returncode == 0, (
        f"exit status {proc.returncode}\nstdout:\n{proc.stdout}\nstderr:\n{proc.stderr}"
    )
    return proc.stdout


PRELUDE = """
    import os, numpy as np, torch, pjrt_dlpack
    plugin = pjrt_dlpack.load_plugin(os.environ["PJRT_REF_PLUGIN"])
"""
