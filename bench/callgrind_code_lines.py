"""The code a loop touches on every iteration, in 64-byte cache lines: per
object file, and per function of one object (issue 23's instruction-cache
question). Reads a callgrind profile written with per-instruction costs:

  OPENBLAS_NUM_THREADS=1 PYTHONHASHSEED=0 PYTHONPATH=build-bench/python \\
      valgrind --tool=callgrind --dump-instr=yes --dump-line=no \\
      --callgrind-out-file=cg.out $(bash scripts/python-env.sh python) \\
      bench/callgrind_from_dlpack.py client 20000
  python3 bench/callgrind_code_lines.py cg.out 20000 [--object _pjrt_dlpack]

An instruction counts when it ran at least 0.9 N times (N: the loop's
iterations), i.e. on (nearly) every iteration; a line counts when one of its
instructions does. The lines of one iteration that exceed the L1
instruction cache (32 KiB, 512 lines, on this machine's CPU) are refetched
on every iteration."""
import argparse
import bisect
import collections
import re
import subprocess
import sys

POSITION = re.compile(r"^(0x[0-9a-f]+|[+-]\d+|\*)\s+(\d+)")
NAMED = re.compile(r"^c?ob=\((\d+)\)(?: (.*))?$")


def instruction_counts(path):
    """{(object id, address): self count} and {object id: file name}."""
    counts, objects = collections.Counter(), {}
    current, address, call_line = None, 0, False
    with open(path) as f:
        for raw in f:
            line = raw.rstrip("\n")
            if line.startswith(("ob=", "cob=")):
                m = NAMED.match(line)
                if m and m.group(2):
                    objects[m.group(1)] = m.group(2)
                if m and line.startswith("ob="):
                    current = m.group(1)
                continue
            if line.startswith("calls="):
                call_line = True  # the next position line is the call's cost
                continue
            m = POSITION.match(line)
            if not m:
                continue
            pos = m.group(1)
            if pos.startswith("0x"):
                address = int(pos, 16)
            elif pos != "*":
                address += int(pos)
            if call_line:
                call_line = False
                continue
            counts[(current, address)] += int(m.group(2))
    return counts, objects


def functions_of(path):
    """Sorted (start, size, name) of the text symbols of an object file."""
    out = subprocess.run(["nm", "-S", "--defined-only", path], capture_output=True, text=True)
    syms = []
    for line in out.stdout.splitlines():
        parts = line.split()
        if len(parts) == 4 and parts[2] in "tTwW":
            syms.append((int(parts[0], 16), int(parts[1], 16), parts[3]))
    return sorted(syms)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("profile")
    parser.add_argument("iterations", type=int)
    parser.add_argument("--object", help="also list the functions of the object whose path "
                        "contains this")
    args = parser.parse_args()
    counts, objects = instruction_counts(args.profile)
    hot = collections.defaultdict(set)
    for (obj, address), n in counts.items():
        if n >= 0.9 * args.iterations:
            hot[obj].add(address)
    total = 0
    for obj, addresses in sorted(hot.items(), key=lambda kv: -len(kv[1])):
        lines = {a // 64 for a in addresses}
        total += len(lines)
        print(f"{len(lines):5d}  {objects.get(obj, obj)}")
    print(f"{total:5d}  lines in all ({total * 64} bytes)")
    if args.object:
        matches = [o for o, name in objects.items() if args.object in name and o in hot]
        if not matches:
            sys.exit(f"no object matching {args.object!r} ran on every iteration")
        syms = functions_of(objects[matches[0]])
        starts = [s[0] for s in syms]
        per = collections.defaultdict(set)
        for a in hot[matches[0]]:
            i = bisect.bisect_right(starts, a) - 1
            name = syms[i][2] if i >= 0 and a < syms[i][0] + syms[i][1] else "?"
            per[name].add(a // 64)
        for name, lines in sorted(per.items(), key=lambda kv: -len(kv[1])):
            print(f"{len(lines):5d}    {name}")


if __name__ == "__main__":
    main()
