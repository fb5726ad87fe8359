#!/usr/bin/env python3
"""The figures a grading run at scale is judged by, from GRADES/labN/summary.json.

    tools/measure/class_figures.py GRADES/lab3

Prints the class's size and wall time, the score spread, and for every group of students
whose kernels are identical (the same source once the comment lines are dropped, as
tools/measure/make_class.sh makes them), the spread of their speed ratios: identical files must
get the same speed points, so the spread is the timing's own noise.
"""
import hashlib
import json
import statistics
import sys
from pathlib import Path


def kernel_key(path):
    """The source without comment-only lines: make_class.sh's copies differ only there."""
    try:
        text = Path(path).read_text(errors="replace")
    except OSError:
        return None
    lines = [l for l in text.splitlines() if not l.strip().startswith("//")]
    return hashlib.sha256("\n".join(lines).encode()).hexdigest()[:12]


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    grades = Path(sys.argv[1])
    summary = json.loads((grades / "summary.json").read_text())
    results = summary.get("results", [])
    print(f"lab {summary.get('lab')}: {summary.get('students')} students, {summary.get('passed')} correct, "
          f"{summary.get('seconds', 0):.0f} s on the {summary.get('backend')} backend "
          f"({summary.get('graded_this_run')} graded now, {summary.get('resumed')} kept)")
    totals = [r["total"] for r in results if isinstance(r.get("total"), (int, float))]
    if totals:
        print(f"scores: min {min(totals):g}, median {statistics.median(totals):g}, max {max(totals):g} "
              f"of {summary.get('maximum')}")
    groups = {}
    for r in results:
        speed = r.get("speed") or {}
        if speed.get("status") != "graded" or not r.get("source"):
            continue
        groups.setdefault(kernel_key(r["source"]), []).append(r)
    if not groups:
        print("no timed students (speed is graded on a GPU only)")
        return
    print(f"{'kernel':>12}  {'n':>3}  {'vs reference':>21}  {'speed-up over naive':>21}  {'points':>13}  spread")
    for key, members in sorted(groups.items(), key=lambda kv: -len(kv[1])):
        ratios = [m["speed"]["vs_reference"] for m in members]
        ups = [m["speed"].get("speedup_over_naive") or 0 for m in members]
        pts = [m["speed"]["points"] for m in members]
        spread = (max(ratios) / min(ratios) - 1) * 100
        print(f"{key:>12}  {len(members):>3}  {min(ratios):9.3f} .. {max(ratios):<9.3f}  "
              f"{min(ups):9.2f} .. {max(ups):<9.2f}  {min(pts):5g} .. {max(pts):<5g}  {spread:.2f}%")


if __name__ == "__main__":
    main()
