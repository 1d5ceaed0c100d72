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


def test_readme_shows_the_example():
    """README.md's Python example is example_quick.py's code, word for word."""
    here = os.path.dirname(os.path.abspath(__file__))
    readme = open(os.path.join(here, "..", "..", "README.md"), encoding="utf-8").read()
    marker = "<!-- pjdl:python-example -->"
    assert marker in readme, "README.md lost its Python example"
    block = readme.split(marker, 1)[1].split("```python\n", 1)[1].split("```", 1)[0]
    source = open(os.path.join(here, "example_quick.py"), encoding="utf-8").read()
    code = source.split('"""', 2)[2].lstrip("\n")
    assert block == code
