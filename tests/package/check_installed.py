"""Checks an installed pjrt_dlpack from inside the virtual environment it
was installed into (package_test.sh), from the wheel or from the sdist. No
NumPy here: data goes in as bytes and array.array and comes back with
Buffer.to_bytes().

    check_installed.py wheel WHEEL SOURCE_DIR BUILD_DIR
    check_installed.py sdist SDIST SOURCE_DIR BUILD_DIR

For a wheel, its files too: the package and nothing else, no path into the
build folder BUILD_DIR.
"""
import array
import importlib.metadata
import importlib.util
import os
import re
import stat
import subprocess
import sys
import sysconfig
import zipfile

kind, dist, source_dir, build_dir = sys.argv[1:5]
failures = []


def check(ok, what):
    print(("ok    " if ok else "FAIL  ") + what)
    if not ok:
        failures.append(what)


def run(args, **env):
    child_env = {k: v for k, v in os.environ.items() if k != "PJRT_DLPACK_PLUGIN"}
    child_env.update(env)
    return subprocess.run(args, env=child_env, capture_output=True, text=True, timeout=300)


# ---------------------------------------------------------- the wheel itself
def check_wheel_files():
    ext_suffix = sysconfig.get_config_var("EXT_SUFFIX")
    source_files = {
        f
        for f in os.listdir(os.path.join(source_dir, "python", "pjrt_dlpack"))
        if os.path.isfile(os.path.join(source_dir, "python", "pjrt_dlpack", f))
    }
    expected = {f"pjrt_dlpack/{f}" for f in source_files} | {
        f"pjrt_dlpack/_pjrt_dlpack{ext_suffix}",
        "pjrt_dlpack/libpjrt_ref.so",
        "pjrt_dlpack/libpjrt_dlpack.so.0",
        "pjrt_dlpack/bin/pjrt-dlpack",
    }
    with zipfile.ZipFile(dist) as z:
        infos = {i.filename: i for i in z.infolist()}
    # auditwheel's rewrite adds folder entries; the files are what counts.
    package_files = {n for n in infos if not n.startswith("pjrt_dlpack-") and not n.endswith("/")}
    check(package_files == expected, f"the wheel holds the package and nothing else: {sorted(package_files ^ expected)}")
    for name in ("pjrt_dlpack/py.typed", "pjrt_dlpack/__init__.pyi", "pjrt_dlpack/_pjrt_dlpack.pyi"):
        check(name in infos, f"{name} ships")
    cli = infos.get("pjrt_dlpack/bin/pjrt-dlpack")
    check(cli is not None and (cli.external_attr >> 16) & stat.S_IXUSR, "bin/pjrt-dlpack is executable in the wheel")
    # An absolute RUNPATH into the build folder would work here and nowhere else.
    with zipfile.ZipFile(dist) as z:
        tied = [n for n in package_files if os.fsencode(build_dir) in z.read(n)]
    check(not tied, f"no file names the build folder {build_dir}: {tied}")


if kind == "wheel":
    check_wheel_files()

# ----------------------------------------------------- the installed package
import pjrt_dlpack  # noqa: E402

# Installed, not built here: the venv has no pip, no setuptools, no backend.
tools = [m for m in ("pip", "setuptools", "wheel", "scikit_build_core") if importlib.util.find_spec(m)]
check(not tools, f"no build tools in the venv: {tools}")

package_dir = os.path.dirname(os.path.abspath(pjrt_dlpack.__file__))
check(package_dir.startswith(os.path.abspath(sys.prefix)), f"imported from the venv: {package_dir}")
with open(os.path.join(source_dir, "include", "pjrt_dlpack.h"), encoding="utf-8") as f:
    parts = dict(re.findall(r"^#define PJDL_VERSION_(MAJOR|MINOR|PATCH) (\d+)$", f.read(), re.M))
header_version = "{MAJOR}.{MINOR}.{PATCH}".format(**parts)
dist_version = importlib.metadata.version("pjrt-dlpack")
check(
    dist_version == header_version == pjrt_dlpack.__version__,
    f"one version: wheel {dist_version}, header {header_version}, module {pjrt_dlpack.__version__}",
)

plugin = pjrt_dlpack.load_plugin()
check(plugin.path == os.path.join(package_dir, "libpjrt_ref.so"), f"load_plugin() is the bundled plugin: {plugin.path}")
for platform in ("cpu", "xpu"):
    client = plugin.client(platform=platform)
    check(client.platform == platform, f"a {platform} client")
    data = bytes(range(256)) * 3
    check(client.buffer(data).to_bytes() == data, f"{platform}: bytes round trip")
    values = array.array("d", [0.5, -1.25, 3e300, 7.0])
    buf = client.buffer(values)
    check(
        buf.shape == (4,) and buf.dtype == "float64" and array.array("d", buf.to_bytes()) == values,
        f"{platform}: array.array round trip",
    )

missing = os.path.join(os.getcwd(), "no-such-plugin.so")
# The child the Python tests run too: the default plugin's path, or its error.
load_default = os.path.join(source_dir, "tests", "python", "load_default_plugin.py")
r = run([sys.executable, load_default], PJRT_DLPACK_PLUGIN=missing)
check(r.stdout.startswith("NOT_FOUND") and missing in r.stdout, f"$PJRT_DLPACK_PLUGIN overrides: {r.stdout.strip()}{r.stderr.strip()}")

# ------------------------------------------------------------- the command
r = run([sys.executable, "-m", "pjrt_dlpack", "--help"])
check(r.returncode == 0 and "Usage: pjrt-dlpack" in r.stdout, "python -m pjrt_dlpack --help")
r = run([sys.executable, "-m", "pjrt_dlpack", "info"])
line = next((l for l in r.stdout.splitlines() if l.startswith("plugin:")), "")
used = line.split(":", 1)[1].strip() if line else ""
check(
    r.returncode == 0 and used and os.path.realpath(used) == os.path.join(package_dir, "libpjrt_ref.so"),
    f"python -m pjrt_dlpack info uses the bundled plugin: {line or r.stderr.strip()}",
)
r = run([sys.executable, "-m", "pjrt_dlpack", "info", "/nonexistent/libnothing.so"])
check(r.returncode == 3, f"the command's exit status passes through (3 expected): {r.returncode}")
script = os.path.join(os.path.dirname(sys.executable), "pjrt-dlpack")
r = run([script, "info"])
check(r.returncode == 0, f"the pjrt-dlpack console script: {r.returncode} {r.stderr.strip()}")

if failures:
    print(f"{len(failures)} check(s) failed")
    sys.exit(1)
print("installed package OK")
