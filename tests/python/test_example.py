"""The quick example shown in the README runs and proves zero-copy."""
import os
import subprocess
import sys


def test_example_quick_runs():
    here = os.path.dirname(os.path.abspath(__file__))
    proc = subprocess.run(
        [sys.executable, os.path.join(here, "example_quick.py")],
        env=dict(os.environ),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert "same memory: True" in proc.stdout
    assert "write seen everywhere: True" in proc.stdout
