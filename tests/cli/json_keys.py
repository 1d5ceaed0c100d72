#!/usr/bin/env python3
"""The keys of `pjrt-dlpack ... --json`, against their table in
docs/plugin-authors.md ("The `--json` reports"), both ways: every key the
command writes is in the table, and every key of the table is written by
one of the runs below (the reference plugin on both platforms, and broken
plugins whose client creation fails, hangs or crashes later, or whose views
are refused).

Usage: json_keys.py CLI REF_PLUGIN BROKEN_DIR DOC
"""
import json
import os
import re
import subprocess
import sys


def documented(doc):
    """{report: set of key paths} from the doc's table."""
    text = open(doc, encoding="utf-8").read()
    start = text.index("### The `--json` reports")
    keys = {}
    for line in text[start:].splitlines()[1:]:
        if line.startswith("#"):
            break
        m = re.match(r"^\| `([^`]+)` \| `([^`]+)` \|", line)
        if m:
            keys.setdefault(m.group(1), set()).add(m.group(2))
    return keys


def paths(value, prefix, out, free):
    """Adds the key paths of `value` below `prefix` to `out`; the objects at
    the paths in `free` have names of their own, written `*`."""
    if isinstance(value, dict):
        for k, v in value.items():
            p = f"{prefix}.{'*' if prefix in free else k}" if prefix else k
            out.add(p)
            paths(v, p, out, free)
    elif isinstance(value, list):
        for v in value:
            paths(v, prefix + "[]", out, free)


def run(cli, args, expect):
    r = subprocess.run([cli] + args, capture_output=True, text=True, timeout=120)
    if r.returncode != expect:
        sys.exit(f"{' '.join(args)}: exit {r.returncode}, expected {expect}\n{r.stderr}")
    return json.loads(r.stdout)


def main():
    cli, ref, broken, doc = sys.argv[1:5]
    b = lambda name: os.path.join(broken, f"libbroken_{name}.so")  # noqa: E731
    runs = [
        ("info", ["info", "--json", ref], 0),
        ("info", ["info", "--json", "-o", "platform=xpu", ref], 0),
        ("info", ["info", "--json", b("no_client")], 3),
        ("info", ["info", "--json", b("buffer_crash")], 1),
        ("check", ["check", "--json", ref], 0),
        ("check", ["check", "--json", b("no_client")], 3),
        ("check", ["check", "--json", "--timeout-ms", "1000", b("client_hang")], 3),
        ("check --list", ["check", "--list", "--json"], 0),
        ("bench", ["bench", "--json", "-n", "3", "--size", "4k", ref], 0),
        ("bench", ["bench", "--json", "-n", "3", "--size", "4k", b("no_views")], 0),
    ]
    table = documented(doc)
    seen = {}
    failed = False
    for report, args, expect in runs:
        out = set()
        data = run(cli, args, expect)
        top = "" if isinstance(data, dict) else "[]"
        if top:
            for v in data:
                paths(v, top, out, set())
            out = {p if p.startswith("[]") else "[]." + p for p in out}
            out = {p.replace("[][].", "[].") for p in out}
        else:
            paths(data, "", out, {"attributes"})
        extra = out - table.get(report, set())
        if extra:
            print(f"{' '.join(args)}: keys not in the table: {sorted(extra)}")
            failed = True
        seen.setdefault(report, set()).update(out)
    for report, keys in table.items():
        missing = keys - seen.get(report, set())
        if missing:
            print(f"{report}: keys of the table that no run wrote: {sorted(missing)}")
            failed = True
    if failed:
        sys.exit(1)
    print(f"{sum(len(k) for k in table.values())} keys of {len(table)} reports: as documented")


if __name__ == "__main__":
    main()
