#!/usr/bin/env python3
"""Prints one table from the JSON reports that tools/gpu/gpu_session.sh collected."""
import json
import pathlib
import sys

logs = pathlib.Path(sys.argv[1])


def load(name):
    p = logs / name
    return json.loads(p.read_text()) if p.exists() else None


print(f"{'lab':<5}{'solution checks':<18}{'stub checks':<14}{'timed size':<40}{'yours':>11}{'rate':>14}{'of ceiling':>12}{'vs vendor':>11}")
# Every lab whose report is there (labs/ holds the list: a new lab needs no edit here).
for n in range(1, 100):
    sol, stub = load(f"solution{n}.json"), load(f"stub{n}.json")
    if not sol:
        continue
    s = sol["summary"]
    sol_txt = f"{s['passed']}/{s['total']} pass"
    stub_txt = "-"
    if stub:
        t = stub["summary"]
        stub_txt = f"{t['failed']}/{t['total']} fail"
    tm = sol["timing"]
    mine = next((r for r in tm["rows"] if r["role"] == "student"), None)
    vendor = next((r for r in tm["rows"] if r["role"] == "vendor"), None)
    if mine:
        vs = f"{vendor['ms'] / mine['ms']:.2f}x" if vendor else "-"
        print(f"{n:<5}{sol_txt:<18}{stub_txt:<14}{tm['size'][:39]:<40}{mine['ms']:>9.4f}ms{mine['rate']:>9.1f} {mine['unit']:<4}{100 * mine['of_ceiling']:>11.1f}%{vs:>11}")
    else:
        print(f"{n:<5}{sol_txt:<18}{stub_txt:<14}timing: {tm['status']} {tm['note'][:60]}")
    for c in sol["checks"]:
        if c["status"] != "pass":
            print(f"      solution {c['id']}: {c['status']}: {c['message'][:110]}")
    if stub:
        for c in stub["checks"]:
            if c["status"] not in ("fail",):
                print(f"      stub {c['id']}: {c['status']}: {c['message'][:110]}")
    if tm["status"] == "measured":
        print(f"      ceiling {tm['ceiling']['name']} = {tm['ceiling']['value']:.1f} {tm['ceiling']['unit']}; rows: " +
              "; ".join(f"{r['name']} {r['ms']:.4g} ms" for r in tm["rows"] if r["role"] != "student"))

reps = [load(f"repeat3{k}.json") for k in "ab"]
if all(reps):
    ms = [next(r for r in x["timing"]["rows"] if r["role"] == "student")["ms"] for x in reps]
    print(f"repeatability, solution 3 run twice: {ms[0]:.4f} ms vs {ms[1]:.4f} ms: {100 * abs(ms[0] - ms[1]) / min(ms):.2f}% apart")
