#!/usr/bin/env python3
"""Where a grading's timing runs spent their time: the grader's --timing-trace log
(<work>/timing-trace.log) summed up, step by step, for the students' runs and the anchors'.

    python3 tools/measure/timing_trace_summary.py build/grading/lab3/timing-trace.log
"""
import re
import statistics
import sys

LINE = re.compile(r"timing trace:\s+([0-9.]+) s  (.*)")
BATCH = re.compile(r"batch of (\d+): prepared in ([0-9.]+) ms, waited ([0-9.]+) ms, ran ([0-9.]+) ms .*outputs back "
                   r"([0-9.]+) ms, checked ([0-9.]+) ms")


def runs(path):
    """Yields (name, [(seconds, message), ...]) per timing run."""
    name, steps = None, []
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            if line.startswith("== "):
                if name is not None:
                    yield name, steps
                name, steps = line[3:].strip(), []
            elif (m := LINE.match(line)) is not None:
                steps.append((float(m.group(1)), m.group(2)))
    if name is not None:
        yield name, steps


def at(steps, prefix):
    return next((t for t, msg in steps if msg.startswith(prefix)), None)


def summarize(steps):
    """One run's step times, in seconds (None where the run did not get that far)."""
    started, up, waiting, ours, timed, passed = (at(steps, p) for p in (
        "the checker started", "the runner and the CUDA", "waiting for the GPU", "the gate is ours", "timed (",
        "the runner has ended"))
    out = {"starting up": up - started if up is not None and started is not None else None,
           "start to gate asked": waiting - started if waiting is not None and started is not None else None,
           "waiting for the gate": ours - waiting if ours is not None and waiting is not None else None,
           "gate held": passed - ours if passed is not None and ours is not None else None,
           "ending the runner (gate held)": passed - timed if passed is not None and timed is not None else None}
    sums = {"batches": 0, "calls": 0, "prepared": 0.0, "waited for a start-up": 0.0, "ran": 0.0, "outputs back": 0.0,
            "checked": 0.0}
    for _, msg in steps:
        if (m := BATCH.match(msg)) is not None:
            sums["batches"] += 1
            sums["calls"] += int(m.group(1))
            for key, group in (("prepared", 2), ("waited for a start-up", 3), ("ran", 4), ("outputs back", 5),
                               ("checked", 6)):
                sums[key] += float(m.group(group)) / 1000
    out.update({k: v for k, v in sums.items()})
    out["out of memory"] = sum(1 for _, msg in steps if "out of GPU memory" in msg)
    return out


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    groups = {"students": [], "anchors": []}
    for name, steps in runs(sys.argv[1]):
        groups["anchors" if "anchor" in name else "students"].append(summarize(steps))
    for group, rows in groups.items():
        if not rows:
            continue
        print(f"{group}: {len(rows)} timing runs; median (and total) per run")
        for key in rows[0]:
            values = [r[key] for r in rows if r[key] is not None]
            if values:
                print(f"  {key:32s} {statistics.median(values):9.3f}   ({sum(values):9.1f})")


if __name__ == "__main__":
    main()
