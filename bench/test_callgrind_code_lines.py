"""Test of callgrind_code_lines.py on a profile written here: callgrind's
compressed positions (absolute, relative, "*"), the cost line after calls=
(not the caller's own), the 0.9 N threshold, and the per-function listing
against the real symbols of an object file (argv[1], the reference plugin).
Usage: test_callgrind_code_lines.py LIBPJRT_REF_SO"""
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
TOOL = os.path.join(HERE, "callgrind_code_lines.py")


def symbol(path, name):
    out = subprocess.run(["nm", "--defined-only", path], capture_output=True, text=True,
                         check=True).stdout
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[2] == name:
            return int(parts[0], 16)
    sys.exit(f"FAIL: no symbol {name} in {path}")


def main():
    plugin = sys.argv[1]
    api = symbol(plugin, "GetPjrtApi")
    n = 1000
    profile = "\n".join([
        "version: 1", "creator: test", "positions: instr", "events: Ir", "",
        f"ob=(1) {plugin}", "fn=(1) GetPjrtApi",
        f"{api:#x} {n}",          # line A
        f"+1 {n}",                 # same line A
        f"+64 {n // 2}",           # below 0.9 N: not counted
        "cob=(2) /nonexistent/libother.so", "cfn=(2) other", "calls=1 0x10",
        f"* {50 * n}",             # the call's cost line: not the caller's
        f"+128 {n}",               # line A + 3 (relative to the call line)
        "ob=(2)", "fn=(2)",
        f"0x40 {n}", f"+4 {2 * n}", f"0x80 {n}",  # two lines of libother
        "",
    ])
    with tempfile.NamedTemporaryFile("w", suffix=".cg", delete=False) as f:
        f.write(profile)
    try:
        out = subprocess.run([sys.executable, TOOL, f.name, str(n), "--object", "libpjrt_ref"],
                             capture_output=True, text=True)
    finally:
        os.unlink(f.name)
    if out.returncode != 0:
        sys.exit(f"FAIL: exit {out.returncode}: {out.stderr}")
    rows = [line.split(None, 1) for line in out.stdout.splitlines()]
    got = {name.strip(): int(count) for count, name in rows}
    # The plugin's lines: api's and api + 193's (another line, whatever
    # api's offset in its own); GetPjrtApi, a few bytes long, has the first.
    want = {plugin: 2, "/nonexistent/libother.so": 2, "lines in all (256 bytes)": 4,
            "GetPjrtApi": 1}
    for key, value in want.items():
        if got.get(key) != value:
            sys.exit(f"FAIL: {key!r}: {got.get(key)} (want {value})\n{out.stdout}")
    print("ok")


if __name__ == "__main__":
    main()
