#!/usr/bin/env bash
# Issue 30 on a GPU: the grader takes the emulator's verdict, by its cause, over a GPU's pass.
# Each planted bug below runs cleanly on a GPU (its answers are right, or right by chance) and is
# refused by the CPU backend's race build, which the grader runs beside the GPU's checks:
#   lab 2  lab2_shared_one_short   a __shared__ array one short: cause past_array_end
#   lab 5  lab5_reads_past_row     a load one element past the end of B: cause past_array_end
#   lab 6  lab6_plain_add          a plain += on a shared bin: cause race (a lost update)
# Each lab's class is that fixture beside the reference solution, graded with --backend cuda as
# root (each student jailed). Prints one PASS/FAIL line per student; exit 1 when any failed.
#   tests/gpu/emulator_verdicts.sh        (from the repository root on a GPU machine, as root)
# Boost.Context and the grader's libraries travel in .carry/deps where the machine lacks them.
set -u
cd "$(dirname "$0")/../.." || exit 2
deps=$PWD/.carry/deps
if [ -d "$deps" ]; then
  export CPATH="$deps/usr/include:$deps/usr/include/x86_64-linux-gnu${CPATH:+:$CPATH}"
  export LIBRARY_PATH="$deps/usr/lib/x86_64-linux-gnu${LIBRARY_PATH:+:$LIBRARY_PATH}"
fi
work=${WORK:-/tmp/emulator-verdicts}
rm -rf "$work"
fail=0
# lab fixture (the cause a failed check must report is the fixture's own "// expect-cause:")
cases="2 lab2_shared_one_short
5 lab5_reads_past_row
6 lab6_plain_add"
make -s -j"$(nproc)" build/contract/cudalab-contract grader >/dev/null || exit 2
while read -r lab fixture; do
  cause=$(python3 tests/planted/header.py "tests/fixtures/$fixture.cu" expect-cause) || exit 2
  class=$work/class$lab
  stub=$(basename labs/lab${lab}_*.cu)
  mkdir -p "$class/$fixture" "$class/reference"
  cp "tests/fixtures/$fixture.cu" "$class/$fixture/$stub"
  cp "solutions/$stub" "$class/reference/$stub"
  make -s -j"$(nproc)" BACKEND=cpu lab-checker grading-runner-prereqs LAB="$lab" >/dev/null &&
    make -s -j"$(nproc)" BACKEND=cuda lab-checker grading-runner-prereqs LAB="$lab" >/dev/null || exit 2
  start=$(date +%s)
  make -s grade LAB="$lab" BACKEND=cuda SUBMISSIONS="$class" GRADES="$work/grades$lab" \
    GRADE_ARGS="--work $work/work$lab" > "$work/grade$lab.log" 2>&1
  echo "lab $lab graded on the GPU: exit $? after $(( $(date +%s) - start )) s"
  python3 - "$work/grades$lab/lab$lab/students" "$fixture" "$cause" <<'EOF' || fail=1
import json, sys, os
root, fixture, cause = sys.argv[1:]
bad = 0
for student in ("reference", fixture):
    r = json.load(open(os.path.join(root, student, "result.json")))
    failed = [(c["id"], c.get("cause"), c.get("judged_by", "")) for c in r["checks"] if c["status"] != "pass"]
    ok = (not failed) if student == "reference" else any(c[1] == cause for c in failed)
    bad += not ok
    print("PASS" if ok else "FAIL", student, "failed checks:", failed or "none")
    for c in r["checks"]:
        if c["status"] != "pass":
            print("     ", c["id"], ":", (c.get("message") or "")[:300].replace("\n", " "))
sys.exit(1 if bad else 0)
EOF
done <<< "$cases"
exit $fail
