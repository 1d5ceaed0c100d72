"""Seeds a new virtual environment with hard links to the installed
distributions of existing ones that are the same files on every
interpreter: a pinned distribution whose wheel is tagged py3-none (PyTorch's
CUDA libraries, 2.5 GB of the modern environment, are the same wheels on
Python 3.11, 3.13 and 3.14) and whose files all lie in site-packages (no
scripts, whose first line names their interpreter). pip then finds it
installed at the pinned version and installs only the rest; the files are
not written again, nor stored twice. scripts/python-env.sh runs it before
pip; the environments are never changed in place, so a shared file is safe.

    seed_env.py PINS TARGET_SITE SOURCE_SITE...

Prints how many distributions and MB it linked."""
import os
import re
import shutil
import sys


def normal(name):
    return re.sub(r"[-_.]+", "-", name).lower()


def read_pins(path):
    pins = {}
    with open(path) as f:
        for line in f:
            line = line.split("#")[0].strip()
            if "==" in line:
                name, version = line.split("==", 1)
                pins[normal(name)] = version.split(";")[0].strip()
    return pins


def fields(path, key):
    with open(path, encoding="utf-8") as f:
        return [line.split(":", 1)[1].strip() for line in f if line.startswith(key + ":")]


def portable_files(site, info):
    """The files of an installed distribution (dist-info folder `info`)
    when it is the same on every interpreter, else None."""
    tags = fields(os.path.join(site, info, "WHEEL"), "Tag")
    if not tags or not all(t.startswith(("py3-none-", "py2.py3-none-")) for t in tags):
        return None
    with open(os.path.join(site, info, "RECORD"), encoding="utf-8") as f:
        files = [line.rsplit(",", 2)[0] for line in f if line.strip()]
    if any(p.startswith("..") or os.path.isabs(p) for p in files):
        return None
    return files


def installed(site):
    """{(normal name, version): dist-info folder} of a site-packages."""
    found = {}
    for entry in os.listdir(site):
        if entry.endswith(".dist-info"):
            meta = os.path.join(site, entry, "METADATA")
            if os.path.exists(meta):
                name, version = fields(meta, "Name")[:1], fields(meta, "Version")[:1]
                if name and version:
                    found[(normal(name[0]), version[0])] = entry
    return found


def seed(pins, target, sources):
    count = size = 0
    for name, version in sorted(pins.items()):
        for source in sources:
            info = installed(source).get((name, version))
            files = info and portable_files(source, info)
            if not files:
                continue
            for rel in files:
                src, dst = os.path.join(source, rel), os.path.join(target, rel)
                if os.path.exists(dst) or not os.path.exists(src):
                    continue
                os.makedirs(os.path.dirname(dst), exist_ok=True)
                try:
                    os.link(src, dst)
                except OSError:  # another file system: a copy, still not a download
                    shutil.copy2(src, dst)
                size += os.path.getsize(src)
            count += 1
            break
    return count, size


def main(argv):
    if len(argv) < 2:
        sys.exit("usage: seed_env.py PINS TARGET_SITE SOURCE_SITE...")
    pins, target, sources = read_pins(argv[0]), argv[1], [s for s in argv[2:] if os.path.isdir(s)]
    count, size = seed(pins, target, sources)
    print(f"seed_env: linked {count} distributions ({size >> 20} MB) from "
          f"{len(sources)} environment(s)")


if __name__ == "__main__":
    main(sys.argv[1:])
