"""Checks a built distribution as PyPI and a user would see it, before it is
installed (package_test.sh runs it with the release tools' Python, which
has auditwheel and pyelftools).

    check_dist.py wheel WHEEL SOURCE_DIR   the repaired manylinux wheel
    check_dist.py sdist SDIST SOURCE_DIR   the source distribution

Both: the metadata (name, the header's version, the README's description,
requires-python, extras that pull nothing the core needs, no invented
project URLs). The wheel: its manylinux tag, which `auditwheel show`
confirms, and ELF files that need only glibc and each other (no libpython,
no NumPy, nothing grafted). The sdist: the sources a build needs, no build
output, and a CHANGELOG.md whose newest entry is this version.
"""
import email.parser
import io
import os
import re
import subprocess
import sys
import tarfile
import zipfile

from elftools.elf.dynamic import DynamicSection
from elftools.elf.elffile import ELFFile

kind, dist, source_dir = sys.argv[1], sys.argv[2], sys.argv[3]
failures = []


def check(ok, what):
    print(("ok    " if ok else "FAIL  ") + what)
    if not ok:
        failures.append(what)


def header_version():
    with open(os.path.join(source_dir, "include", "pjrt_dlpack.h"), encoding="utf-8") as f:
        parts = dict(re.findall(r"^#define PJDL_VERSION_(MAJOR|MINOR|PATCH) (\d+)$", f.read(), re.M))
    return "{MAJOR}.{MINOR}.{PATCH}".format(**parts)


VERSION = header_version()


def check_metadata(text):
    meta = email.parser.Parser().parsestr(text)
    check(meta["Name"] == "pjrt-dlpack", f"name: {meta['Name']}")
    check(meta["Version"] == VERSION, f"version {meta['Version']} is the header's {VERSION}")
    with open(os.path.join(source_dir, "README.md"), encoding="utf-8") as f:
        tagline = f.read().splitlines()[2].rstrip(".")  # "DLPack for every PJRT plugin, in C"
    check(meta["Summary"].startswith(tagline.split(",")[0]), f"description from the README: {meta['Summary']}")
    with open(os.path.join(source_dir, "python", "README.md"), encoding="utf-8") as f:
        readme = f.read()
    check(meta.get_payload().strip() == readme.strip(), "the long description is python/README.md")
    check(meta["Description-Content-Type"] == "text/markdown", "markdown description")
    check(meta["Requires-Python"] == ">=3.10", f"requires-python: {meta['Requires-Python']}")
    check(sorted(meta.get_all("Provides-Extra") or []) == ["jax", "numpy"], "extras [jax] and [numpy]")
    requires = meta.get_all("Requires-Dist") or []
    core = [r for r in requires if "extra ==" not in r]
    check(requires and not core, f"every requirement belongs to an extra, the core needs none: {requires}")
    check(not meta.get_all("Project-URL") and not meta["Home-page"], "no project URLs")
    classifiers = meta.get_all("Classifier") or []
    for c in ("Operating System :: POSIX :: Linux", "Programming Language :: C", "Typing :: Typed"):
        check(c in classifiers, f"classifier {c}")


# glibc's libraries, which every manylinux policy allows and no wheel bundles.
GLIBC = {"libc.so.6", "libm.so.6", "libdl.so.2", "libpthread.so.0", "librt.so.1", "ld-linux-x86-64.so.2"}


def check_elf_needs(z, names):
    elves = {}
    for n in names:
        data = z.read(n)
        if data[:4] == b"\x7fELF":
            elf = ELFFile(io.BytesIO(data))
            dyn = next((s for s in elf.iter_sections() if isinstance(s, DynamicSection)), None)
            elves[n] = [t.needed for t in dyn.iter_tags() if t.entry.d_tag == "DT_NEEDED"] if dyn else []
    check(len(elves) == 4, f"four ELF files (module, plugin, library, command): {sorted(elves)}")
    inside = {os.path.basename(n) for n in elves}
    for n, needed in sorted(elves.items()):
        foreign = [lib for lib in needed if lib not in GLIBC and lib not in inside]
        check(not foreign, f"{n} needs only glibc and the wheel's own files: {needed}")


def check_wheel():
    name = os.path.basename(dist)
    m = re.fullmatch(r"pjrt_dlpack-(.+?)-(cp3\d+)-(cp3\d+)-(manylinux_2_\d+_x86_64)\.whl", name)
    check(m is not None and m.group(1) == VERSION, f"a manylinux wheel of version {VERSION}: {name}")
    tag = m.group(4) if m else "?"
    show = subprocess.run([sys.executable, "-m", "auditwheel", "show", dist], capture_output=True, text=True)
    said = " ".join(show.stdout.split())
    check(
        show.returncode == 0 and f'consistent with the following platform tag: "{tag}"' in said,
        f"auditwheel show: consistent with {tag}",
    )
    with zipfile.ZipFile(dist) as z:
        names = [n for n in z.namelist() if not n.endswith("/")]
        check(not [n for n in names if ".libs/" in n], "auditwheel grafted no library into the wheel")
        check(not [n for n in names if re.search(r"libpython|numpy", n, re.I)], "no libpython, no NumPy inside")
        check_elf_needs(z, names)
        metadata = next(n for n in names if n.endswith(".dist-info/METADATA"))
        check_metadata(z.read(metadata).decode("utf-8"))


def check_sdist():
    name = os.path.basename(dist)
    check(name == f"pjrt_dlpack-{VERSION}.tar.gz", f"the sdist of version {VERSION}: {name}")
    top = f"pjrt_dlpack-{VERSION}/"
    with tarfile.open(dist) as t:
        names = [n[len(top):] for n in t.getnames() if n.startswith(top)]
        for needed in ("pyproject.toml", "CMakeLists.txt", "include/pjrt_dlpack.h", "src/CMakeLists.txt",
                       "plugin/CMakeLists.txt", "python/CMakeLists.txt", "README.md", "CHANGELOG.md"):
            check(needed in names, f"the sdist holds {needed}")
        stray = [n for n in names if re.match(r"(build[^/]*|dist|\.git)(/|$)", n)]
        check(not stray, f"no build output, no .git: {stray[:5]}")
        check_metadata(t.extractfile(top + "PKG-INFO").read().decode("utf-8"))
        changelog = t.extractfile(top + "CHANGELOG.md").read().decode("utf-8")
    newest = re.search(r"^## \[?(\d+\.\d+\.\d+)", changelog, re.M)
    check(newest is not None and newest.group(1) == VERSION, f"CHANGELOG.md's newest entry is {VERSION}")


{"wheel": check_wheel, "sdist": check_sdist}[kind]()
if failures:
    print(f"{len(failures)} check(s) failed")
    sys.exit(1)
print(f"{kind} OK")
