#!/usr/bin/env python3
"""Atomic read-modify-writes executed in the collected part of a callgrind run.

Usage: callgrind_atomics.py CALLGRIND_OUT

The run must be made with `--dump-instr=yes --compress-pos=no
--compress-strings=no` (and usually `--toggle-collect=` on a benchmark's
loop functions). Prints, per executed instruction: how many times it ran, its
object, its function, and the instruction, for every lock-prefixed
instruction, every `xchg` with a memory operand (implicitly locked) and every
call of `__tls_get_addr`. Divide by the loop's iterations for a count per
operation (bench/README.md, issue 23).
"""
import collections
import re
import subprocess
import sys


def executed(path):
    """{object: {address: count}} of the instructions that ran."""
    counts = collections.defaultdict(dict)
    obj, after_call = None, False
    with open(path) as f:
        for line in f:
            if line.startswith("ob="):
                obj = line[3:].strip()
            elif line.startswith("calls="):
                after_call = True  # the next line is the call's inclusive cost
            else:
                m = re.match(r"^(0x[0-9a-f]+)\s+\d+\s+(\d+)", line)
                if m and obj:
                    if after_call:
                        after_call = False
                        continue
                    addr, n = int(m.group(1), 16), int(m.group(2))
                    # a call's own cost is split around the call: count once
                    counts[obj][addr] = max(counts[obj].get(addr, 0), n)
    return counts


def clusters(addresses):
    """Address ranges to disassemble, merging neighbours."""
    out = []
    for a in sorted(addresses):
        if out and a - out[-1][1] < 4096:
            out[-1][1] = a
        else:
            out.append([a, a])
    return out


def is_atomic(ins):
    return re.match(r"lock\b", ins) or (re.match(r"xchg\b", ins) and "(" in ins) or (
        re.match(r"call\b", ins) and "__tls_get_addr" in ins)


def main():
    for obj, addrs in executed(sys.argv[1]).items():
        for lo, hi in clusters(a for a, n in addrs.items() if n > 0):
            dis = subprocess.run(["objdump", "-d", "--no-show-raw-insn", f"--start-address={lo}",
                                  f"--stop-address={hi + 16}", obj],
                                 capture_output=True, text=True).stdout
            fn = None
            for line in dis.splitlines():
                head = re.match(r"^[0-9a-f]+ <(.*)>:$", line)
                if head:
                    fn = head.group(1)
                    continue
                m = re.match(r"^\s*([0-9a-f]+):\s+(.*)$", line)
                if m and addrs.get(int(m.group(1), 16)) and is_atomic(m.group(2)):
                    n = addrs[int(m.group(1), 16)]
                    print(f"{n:>10}  {obj.split('/')[-1]}  {fn}  {m.group(2)}")


if __name__ == "__main__":
    main()
