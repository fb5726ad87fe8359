#!/usr/bin/env python3
"""Prints every lab's timing table from the JSON reports tools/gpu/gpu_timing.sh collected
(solutionN.json), each row as the checker measured it, the table's method above it, and where
each run's seconds went (the slowest checks and the timing), then the wall times it recorded.

    tools/measure/timing_tables.py LOGS_DIR
"""
import json
import pathlib
import sys

logs = pathlib.Path(sys.argv[1])


def load(name):
    p = logs / name
    return json.loads(p.read_text()) if p.exists() else None


def wrap(text, width=110, indent="      "):
    out, line = [], ""
    for word in text.split():
        if len(line) + len(word) + 1 > width:
            out.append(indent + line)
            line = word
        else:
            line = f"{line} {word}" if line else word
    if line:
        out.append(indent + line)
    return "\n".join(out)


def table(n, report):
    tm = report["timing"]
    print(f"lab {n}: {report['title']}: {tm['size']}")
    if tm["status"] != "measured":
        print(f"    timing {tm['status']}: {tm['note']}")
        return
    print(wrap("method: " + tm["note"]))
    for r in tm["rows"]:
        share = f"{100 * r['of_ceiling']:.1f}%" if r["of_ceiling"] else "-"
        print(f"    {r['name'][:58]:<58} {r['ms']:>10.4f} ms {r['rate']:>9.1f} {r['unit']:<7} {share:>7}  {r['note'][:40]}")
    c = tm["ceiling"]
    print(f"    ceiling: {c['name']} = {c['value']:.1f} {c['unit']}")
    mine = next((r for r in tm["rows"] if r["role"] == "student"), None)
    for v in (r for r in tm["rows"] if r["role"] == "vendor"):
        print(f"    solution vs {v['name']}: {v['ms'] / mine['ms']:.2f}x as fast")


def seconds(n, report):
    checks = sorted(report["checks"], key=lambda c: -c.get("seconds", 0))
    total = sum(c.get("seconds", 0) for c in checks)
    slow = ", ".join(f"{c['id']} {c.get('seconds', 0):.2f} s" for c in checks[:4])
    print(f"    seconds: checks {total:.2f} (slowest: {slow}); timing {report['timing'].get('seconds', 0):.2f}")


for n in range(1, 100):
    report = load(f"solution{n}.json")
    if report:
        table(n, report)
        seconds(n, report)
        print()
# Where the loop's runs spent their seconds (the checker's share: the rest is make and the build).
for n in range(1, 100):
    for kind in ("stub", "solved"):
        report = load(f"loop_{kind}{n}.json")
        if report:
            checks = sum(c.get("seconds", 0) for c in report["checks"])
            skipped = sum(c["status"] == "skipped" for c in report["checks"])
            print(f"make lab{n} ({kind}): checks {checks:.2f} s ({skipped} left out), timing {report['timing'].get('seconds', 0):.2f} s")
walls = logs / "walls.txt"
if walls.exists():
    print(walls.read_text())
