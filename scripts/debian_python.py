"""The CPython interpreters the project is built and tested for: Debian 12's
own /usr/bin/python3 (3.11), and 3.13 and 3.14 from Debian's newer
releases. Each newer one is the
release's Python packages and the libraries they need (glibc included)
unpacked from Debian's .debs into the cache outside the clone, with no
chroot and no root. The interpreter's ELF interpreter is set to the
unpacked glibc's loader and its RPATH to the unpacked library folders
(patchelf), so it runs with this machine's paths like any program, and so
do the virtual environments made from it and the processes it starts with
sys.executable; an extension module built here (glibc 2.36) loads into it.

Every .deb is pinned by version and sha256 in scripts/debian-python.txt
(one line each: INTERPRETER SUITE PACKAGE VERSION SHA256 POOL_PATH); an
interpreter's folder, <cache>/debian-python<X.Y>-<hash of its lines>, is
made anew when its lines change.

    debian_python.py install [X.Y...]   unpack them unless present (default: all)
    debian_python.py python X.Y         print the interpreter's path (installed or not)
    debian_python.py versions           print every interpreter, Debian 12's first
    debian_python.py host               print Debian 12's (X.Y of /usr/bin/python3)
    debian_python.py venv X.Y DIR       make a virtual environment of X.Y in DIR,
                                        with pip (the Debian release's own)
    debian_python.py resolve X.Y SUITE  print the pin lines of X.Y from SUITE's
                                        package index (signature checked with gpgv
                                        against Debian's keyring)

The cache is $PJDL_CACHE_DIR, default ${XDG_CACHE_HOME:-$HOME/.cache}/pjrt-dlpack.
Needs dpkg-deb and patchelf (scripts/setup.sh installs them)."""
import glob
import hashlib
import lzma
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
# Debian 12's interpreter: the machine's own, installed by apt (python3-dev,
# python3-venv), not by this script.
HOST = "/usr/bin/python3"
PINS = os.path.join(HERE, "debian-python.txt")
MIRROR = "http://deb.debian.org/debian"
KEYRING = "/usr/share/keyrings/debian-archive-keyring.gpg"
MULTIARCH = "x86_64-linux-gnu"
# What the interpreter needs beyond its packages' dependencies: the C++
# runtime that manylinux wheels (PyTorch, jaxlib) take from the system, and
# the release's pip wheel, which `venv` installs into each environment
# (Debian's ensurepip looks for it at the host's /usr/share/python-wheels).
EXTRA_ROOTS = ["libstdc++6", "libgcc-s1", "python3-pip-whl"]
# Dependencies a process outside a chroot does not need: data the host has
# (MIME types, services, time zones), the shared libpython (Debian's
# interpreter is linked statically), the headers of expat and zlib
# (libpython-dev asks for them; the module includes neither), the GCC base
# package (documentation only) and glibc's gconv modules (glibc looks for
# them at the host's path, compiled in), the CA certificates and the openssl
# command (the unpacked OpenSSL reads the host's /etc/ssl).
SKIPPED = re.compile(r"^(media-types|mime-support|netbase|tzdata|libpython3\.\d+(t64)?|"
                     r"libexpat1-dev|zlib1g-dev|gcc-\d+-base|readline-common|debconf|"
                     r"libc-gconv-modules-extra|ca-certificates|openssl)$")
# Unpacked but unused, removed to keep the cache small: documentation, the
# static libpython (the module does not link libpython), glibc's gconv
# modules (glibc looks for them at the host's path, compiled in) and
# locales, and the compiled byte code (made again on first import).
PRUNED = ["usr/share/doc", "usr/share/man", "usr/share/locale", "usr/share/lintian",
          f"usr/lib/{MULTIARCH}/gconv"]


def host_version():
    """X.Y of Debian 12's interpreter (this script runs on it)."""
    if os.path.realpath(sys.executable) == os.path.realpath(HOST):
        return f"{sys.version_info[0]}.{sys.version_info[1]}"
    out = subprocess.run([HOST, "-c", "import sys; print('%d.%d' % sys.version_info[:2])"],
                         capture_output=True, text=True, check=True)
    return out.stdout.strip()


def die(message):
    print(f"debian_python.py: {message}", file=sys.stderr)
    sys.exit(2)


def cache_dir():
    base = os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache")
    return os.environ.get("PJDL_CACHE_DIR") or os.path.join(base, "pjrt-dlpack")


def pin_lines():
    """{X.Y: [line, ...]} of the pin file, in file order."""
    pins = {}
    with open(PINS) as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            fields = line.split()
            if len(fields) != 6:
                die(f"{PINS}: a line is INTERPRETER SUITE PACKAGE VERSION SHA256 POOL_PATH: {line}")
            pins.setdefault(fields[0], []).append(line)
    return pins


def folder_of(version, lines):
    digest = hashlib.sha256("\n".join(lines).encode()).hexdigest()[:12]
    return os.path.join(cache_dir(), f"debian-python{version}-{digest}")


def interpreter(folder, version):
    return os.path.join(folder, "root", "usr", "bin", f"python{version}")


def lines_of(version):
    pins = pin_lines()
    if version not in pins:
        die(f"no Python {version} in {PINS} (it has {', '.join(sorted(pins))})")
    return pins[version]


# ------------------------------------------------------------------ install


def fetch(url, path, sha256):
    """Downloads url to path, checking its sha256 against the pin."""
    digest = hashlib.sha256()
    try:
        with urllib.request.urlopen(url, timeout=120) as r, open(path, "wb") as out:
            while chunk := r.read(1 << 20):
                digest.update(chunk)
                out.write(chunk)
    except OSError as e:
        die(f"cannot download {url}: {e} (a pin Debian has since replaced? "
            "re-pin with 'debian_python.py resolve')")
    if digest.hexdigest() != sha256:
        die(f"{url}: sha256 {digest.hexdigest()}, pinned {sha256}")
    return os.path.getsize(path)


def patch(root, version):
    """The interpreter runs on the unpacked glibc: its ELF interpreter is the
    unpacked loader, its RPATH (DT_RPATH, not RUNPATH: it also serves the
    extension modules it loads and their libraries) the unpacked folders."""
    loader = os.path.join(root, "usr", "lib", MULTIARCH, "ld-linux-x86-64.so.2")
    if not os.path.exists(loader):
        die(f"the unpacked glibc has no loader at {loader}")
    libs = ":".join(os.path.join(root, d, MULTIARCH) for d in ("usr/lib", "lib"))
    python = os.path.join(root, "usr", "bin", f"python{version}")
    subprocess.run(["patchelf", "--set-interpreter", loader, "--force-rpath", "--set-rpath", libs,
                    python], check=True)


def check(python):
    """The interpreter starts and has the standard library's C modules."""
    probe = ("import sys, ssl, sqlite3, ctypes, lzma, bz2, zlib, decimal, uuid, venv, sysconfig;"
             "print(sys.version.split()[0], sysconfig.get_paths()['include'])")
    proc = subprocess.run([python, "-I", "-c", probe], capture_output=True, text=True)
    if proc.returncode != 0:
        die(f"{python} does not run: {proc.stderr.strip()[-2000:]}")
    return proc.stdout.split()


def install(version):
    if version == host_version():
        return  # Debian 12's own, installed by apt
    lines = lines_of(version)
    folder = folder_of(version, lines)
    if os.path.exists(os.path.join(folder, ".complete")):
        return
    if not shutil.which("patchelf") or not shutil.which("dpkg-deb"):
        die("needs patchelf and dpkg-deb (apt-get install patchelf)")
    print(f"debian-python: creating {folder} (Python {version}: {len(lines)} Debian packages)")
    start = time.time()
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(os.path.dirname(folder), exist_ok=True)
    tmp = tempfile.mkdtemp(prefix=f"debian-python{version}.", dir=os.path.dirname(folder))
    os.chmod(tmp, 0o755)
    try:
        root = os.path.join(tmp, "root")
        downloaded = 0
        for line in lines:
            _, _, package, _, sha256, pool = line.split()
            deb = os.path.join(tmp, os.path.basename(pool))
            downloaded += fetch(f"{MIRROR}/{pool}", deb, sha256)
            subprocess.run(["dpkg-deb", "-x", deb, root], check=True)
            os.unlink(deb)
        for rel in PRUNED:
            shutil.rmtree(os.path.join(root, rel), ignore_errors=True)
        config = os.path.join(root, "usr", "lib", f"python{version}")
        for dirpath, _, files in os.walk(config):
            for name in files:
                if name.startswith("libpython") and name.endswith(".a"):
                    os.unlink(os.path.join(dirpath, name))
        os.rename(tmp, folder)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    root = os.path.join(folder, "root")
    patch(root, version)
    # Debian's pyconfig.h includes <x86_64-linux-gnu/python3.X/pyconfig.h>,
    # which the host's /usr/include lacks; the headers' own folder, which
    # sysconfig names, is made whole with the real one.
    include = os.path.join(root, "usr", "include")
    shutil.copyfile(os.path.join(include, MULTIARCH, f"python{version}", "pyconfig.h"),
                    os.path.join(include, f"python{version}", "pyconfig.h"))
    release, include = check(interpreter(folder, version))
    if not os.path.exists(os.path.join(include, "Python.h")):
        die(f"Python {release} has no Python.h in {include}")
    open(os.path.join(folder, ".complete"), "w").close()
    size = sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(folder) for f in fs
               if not os.path.islink(os.path.join(d, f)))
    print(f"debian-python: Python {release} ready: {downloaded >> 20} MiB downloaded, "
          f"{size >> 20} MiB unpacked, {time.time() - start:.0f} s")


# ------------------------------------------------------------------ resolve


def read_url(url):
    try:
        with urllib.request.urlopen(url, timeout=300) as r:
            return r.read()
    except OSError as e:
        die(f"cannot download {url}: {e}")


def signed_index(suite):
    """The suite's amd64 package index, its InRelease signature checked with
    gpgv and the index's sha256 against the one InRelease names."""
    with tempfile.TemporaryDirectory() as tmp:
        release = os.path.join(tmp, "InRelease")
        with open(release, "wb") as f:
            f.write(read_url(f"{MIRROR}/dists/{suite}/InRelease"))
        text = os.path.join(tmp, "Release")
        proc = subprocess.run(["gpgv", "--keyring", KEYRING, "--output", text, release],
                              capture_output=True, text=True)
        if proc.returncode != 0:
            die(f"the InRelease of {suite} does not verify against {KEYRING}:\n{proc.stderr}")
        with open(text) as f:
            signed = f.read()
    name = "main/binary-amd64/Packages.xz"
    sha = signed.split("SHA256:", 1)[1]
    found = re.search(r"^ ([0-9a-f]{64}) +\d+ " + re.escape(name) + "$", sha, re.M)
    if not found:
        die(f"the InRelease of {suite} names no {name}")
    data = read_url(f"{MIRROR}/dists/{suite}/{name}")
    if hashlib.sha256(data).hexdigest() != found.group(1):
        die(f"{suite}'s {name} does not match its InRelease")
    return lzma.decompress(data).decode()


def parse_index(text):
    """{package: fields} and {virtual: [providers]} of a Packages file."""
    packages, provides = {}, {}
    for stanza in text.split("\n\n"):
        fields, key = {}, None
        for line in stanza.splitlines():
            if line.startswith(" ") and key:
                fields[key] += "\n" + line
            elif ":" in line:
                key, value = line.split(":", 1)
                fields[key] = value.strip()
        name = fields.get("Package")
        if not name:
            continue
        packages[name] = fields
        for p in fields.get("Provides", "").split(","):
            if p.strip():
                provides.setdefault(p.split("(")[0].strip(), []).append(name)
    return packages, provides


def depends(fields):
    """The first installable alternative of each dependency: names only."""
    for key in ("Pre-Depends", "Depends"):
        for group in fields.get(key, "").split(","):
            if group.strip():
                yield [a.split("(")[0].split(":")[0].strip() for a in group.split("|")]


def closure(packages, provides, roots):
    chosen, todo = [], list(roots)
    while todo:
        name = todo.pop(0)
        if name in chosen or SKIPPED.match(name):
            continue
        if name not in packages:
            if name in provides:
                todo.insert(0, provides[name][0])
                continue
            die(f"no package {name} in the index")
        chosen.append(name)
        for alternatives in depends(packages[name]):
            if any(a in chosen for a in alternatives):
                continue
            real = [a for a in alternatives if a in packages or a in provides]
            if real:
                todo.append(real[0])
    return chosen


def resolve(version, suite):
    packages, provides = parse_index(signed_index(suite))
    roots = [f"python{version}-minimal", f"libpython{version}-stdlib", f"libpython{version}-dev"]
    for name in sorted(closure(packages, provides, roots + EXTRA_ROOTS)):
        f = packages[name]
        print(version, suite, name, f["Version"], f["SHA256"], f["Filename"])


def make_venv(version, target):
    """A virtual environment of interpreter X.Y in target, with the Debian
    release's own pip (its wheel, unpacked with the interpreter)."""
    if version == host_version():
        subprocess.run([HOST, "-m", "venv", target], check=True)
        return
    folder = folder_of(version, lines_of(version))
    if not os.path.exists(os.path.join(folder, ".complete")):
        die(f"Python {version} is not installed: run debian_python.py install {version}")
    subprocess.run([interpreter(folder, version), "-m", "venv", "--without-pip", target], check=True)
    wheels = glob.glob(os.path.join(folder, "root", "usr", "share", "python-wheels", "pip-*.whl"))
    if len(wheels) != 1:
        die(f"expected one pip wheel in {folder}, found {wheels}")
    subprocess.run([os.path.join(target, "bin", "python"), os.path.join(wheels[0], "pip"), "install",
                    "--quiet", "--no-index", "--disable-pip-version-check", wheels[0]], check=True)


def main(argv):
    command = argv[0] if argv else ""
    if command == "install":
        for version in argv[1:] or sorted(pin_lines()):
            install(version)
    elif command == "python" and len(argv) == 2:
        if argv[1] == host_version():
            print(HOST)
        else:
            print(interpreter(folder_of(argv[1], lines_of(argv[1])), argv[1]))
    elif command == "host" and len(argv) == 1:
        print(host_version())
    elif command == "versions" and len(argv) == 1:
        print("\n".join([host_version()] + sorted(pin_lines())))
    elif command == "venv" and len(argv) == 3:
        make_venv(argv[1], argv[2])
    elif command == "resolve" and len(argv) == 3:
        resolve(argv[1], argv[2])
    else:
        die("usage: debian_python.py install [X.Y...] | python X.Y | versions | host | "
            "venv X.Y DIR | resolve X.Y SUITE")


if __name__ == "__main__":
    main(sys.argv[1:])
