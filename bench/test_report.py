"""Test of report.py --check: the committed README's table of targets,
bench/results/results.md and the raw files they come from are one run's;
and the check fails, naming the part, when any of the three is changed.
Usage: test_report.py (paths from this file's place in the tree)"""
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
REPORT = os.path.join(HERE, "report.py")
RESULTS = os.path.join(HERE, "results")
sys.path.insert(0, HERE)
from report import TARGETS_HEADER  # noqa: E402  (the header the check looks for)


def run_check(readme, outdir):
    return subprocess.run([sys.executable, REPORT, "--check", readme, outdir],
                          capture_output=True, text=True)


def edit_first_row(path):
    """The first row of the table of targets in `path`: its last cell
    flipped (yes/no)."""
    with open(path) as f:
        lines = f.read().split("\n")
    k = lines.index(TARGETS_HEADER) + 2
    row = lines[k]
    lines[k] = row[:-len("yes |")] + "no |" if row.endswith("yes |") else row[:-4] + "yes |"
    with open(path, "w") as f:
        f.write("\n".join(lines))


def expect_failure(readme, outdir, what):
    r = run_check(readme, outdir)
    if r.returncode != 1 or what not in r.stderr:
        sys.exit(f"FAIL: a changed {what} passed the check (rc {r.returncode}): {r.stderr}")


def main():
    r = run_check(os.path.join(ROOT, "README.md"), RESULTS)
    if r.returncode != 0:
        sys.exit(f"FAIL: the committed tables differ:\n{r.stderr}")
    with tempfile.TemporaryDirectory() as tmp:
        def fresh():
            out = os.path.join(tmp, "results")
            shutil.rmtree(out, ignore_errors=True)
            shutil.copytree(RESULTS, out)
            readme = os.path.join(tmp, "README.md")
            shutil.copy(os.path.join(ROOT, "README.md"), readme)
            return readme, out

        readme, out = fresh()
        edit_first_row(readme)
        expect_failure(readme, out, "README.md")
        readme, out = fresh()
        edit_first_row(os.path.join(out, "results.md"))
        expect_failure(readme, out, "results.md")
        readme, out = fresh()
        raw = os.path.join(out, "raw-c.tsv")
        with open(raw) as f:
            lines = [line for line in f if not line.startswith("export.1k\t")]
        with open(raw, "w") as f:
            f.writelines(lines)
        expect_failure(readme, out, "README.md")
    print("ok: report.py --check")
    paired_ratios()
    print("ok: ratios paired round by round")


def paired_ratios():
    """A row whose value and baseline come with rounds of one group gets the
    median of the per-round ratios; without them, or from two groups, or
    with rounds that do not match, the ratio of the medians, marked."""
    import report
    # A slow phase (3 against 1) in rounds 3 and 4 that moves both, and in
    # round 5 the baseline's alone: the medians land in different phases
    # (3 / 1), while four rounds of five say 1.
    lines = ["rounds\ta\t7.1\t1 1 3 3 3", "a\t3\tns",
             "rounds\tb\t7.1\t1 1 3 3 1", "b\t1\tns",
             "rounds\tc\t7.2\t1 1 3 3 1", "c\t1\tns",
             "rounds\td\t7.1\t1 1 3 1", "d\t1\tns", "e\t1\tns"]
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "raw.tsv")
        with open(path, "w") as f:
            f.write("\n".join(lines) + "\n")
        report.ROUNDS.clear()
        r = report.load([path])
    cases = [("b", 1.0, ""), ("c", 3.0, " †"), ("d", 3.0, " †"), ("e", 3.0, " †")]
    for baseline, want, mark in cases:
        cells, ratio = report.row_cells(r, ("w", "a", baseline, "x", "ns", None))
        if abs(ratio - want) > 1e-9 or not cells.endswith(f"{want:.2f}×{mark} |"):
            sys.exit(f"FAIL: a against {baseline}: {ratio} in {cells!r}, expected {want}{mark}")


if __name__ == "__main__":
    main()
