#!/bin/sh
# The include walls (tests/architecture/include_walls.py), checked on this checkout, then shown to
# fail: each forbidden include below is planted in a copy of harness/ and grading/ (sources and
# READMEs only), and the check must fail naming the planted file and line. The checker's layers
# too: an include up a layer, and a loop between layers that a Walls row was edited to open.
# Usage: tests/architecture/include_walls_test.sh   (from the checkout's root)
walls=tests/architecture/include_walls.py
fail=0
pass() { echo "PASS  $1"; }
flunk() { echo "FAIL  $1"; fail=1; }

if out=$(python3 "$walls" .); then pass "include walls: $(echo "$out" | tail -n 1 | sed 's/^include walls: //')"
else echo "$out"; flunk "include walls: the checkout crosses a wall (above)"; fi

copy=$(mktemp -d)
trap 'rm -rf "$copy"' EXIT
find harness grading -name README.md -o -name '*.h' -o -name '*.cuh' -o -name '*.cpp' -o -name '*.cu' |
  tar -cf - -T - | tar -xf - -C "$copy" || { flunk "include walls: could not copy the tree"; exit 1; }

# planted FILE INCLUDE-LINE WHY [LINE]: adds the include to FILE (made when missing) in a fresh
# copy of the copy, and expects the check to fail naming FILE at that line (or at LINE).
planted() {
  file=$1 line=$2 why=$3
  case_dir=$(mktemp -d "${TMPDIR:-/tmp}/walls-case.XXXXXX")
  cp -r "$copy/harness" "$copy/grading" "$case_dir/"
  mkdir -p "$(dirname "$case_dir/$file")"
  printf '// planted by include_walls_test.sh\n' >> "$case_dir/$file"
  at=${4:-$(($(wc -l < "$case_dir/$file") + 1))}
  printf '%s\n' "$line" >> "$case_dir/$file"
  out=$(python3 "$walls" "$case_dir")
  rc=$?
  if [ $rc -eq 1 ] && echo "$out" | grep -q "^$file:$at: "; then pass "include walls refuse $why"
  else echo "$out" | sed 's/^/    /'; flunk "include walls refuse $why ($file:$at, exit status $rc)"; fi
  rm -rf "$case_dir"
}

planted harness/runner/planted.cpp '#include "checker/types/suite.h"' "the runner including the checker"
planted harness/runner/planted_relative.cpp '#include "../checker/calls/lab_call.h"' "a relative path into the checker"
planted harness/lab_specs/lab3/runner_entry.cpp '#include "checker/judging/sum_reference.h"' "a lab's runner entry including the checker"
planted harness/runner/emulator/planted.cpp '#include "runner/lab_entry.h"' "the emulator including the runner"
planted harness/checker/run/planted.cpp '#include "runner/launch_record.h"' "the checker including the runner's internals"
planted harness/lab_specs/lab3/checks.cpp '#include "runner/emulator/control.h"' "a lab's checks including the emulator"
planted harness/wire/planted.h '#include "checker/types/suite.h"' "the wire including a side"
planted harness/lab_specs/lab3/call.h '#include "runner/lab_entry.h"' "a lab's call including a side"
planted harness/checker/report/planted.cpp '#include "safe_io/text.h"' "the harness including grading"
planted grading/jail/planted.cpp '#include "grader/process.h"' "the jail including the grader"
planted grading/jail/sandbox.cpp '#include "results/store.h"' "the jail including the results"
planted grading/results/planted.cpp '#include "grader/grade_student.h"' "the results including the grader"
planted grading/jail/planted_io.cpp '#include "safe_io/files.h"' "the jail including the grader's file code"
planted grading/safe_io/planted.cpp '#include "results/store.h"' "the safe files and text including the results"
planted grading/grader/planted.cpp '#include "checker/calls/lab_call.h"' "the grader including the checker beyond its verdict frame"
planted harness/newfolder/planted.cpp '#include <vector>' "a folder no README's walls cover" 1
planted harness/checker/run/planted_missing.cpp '#include "no_such_header.h"' "an include found nowhere"
planted harness/checker/types/suite.h '#include "checker/judging/diagnose.h"' "the checker's types including a layer above them"
planted harness/checker/calls/planted.cpp '#include "checker/run/checker_session.h"' "a call including the run that makes it"

# planted_loop FILE INCLUDE-LINE ROW-GLOB OPENED WHY: as planted, but the Walls row ROW-GLOB of
# harness/checker/README.md is first edited to open OPENED too, so that only the one-way rule
# (no loop between the checker's layers) can refuse the include; the refusal must name the loop.
planted_loop() {
  file=$1 line=$2 row=$3 opened=$4 why=$5
  case_dir=$(mktemp -d "${TMPDIR:-/tmp}/walls-case.XXXXXX")
  cp -r "$copy/harness" "$copy/grading" "$case_dir/"
  readme=$case_dir/harness/checker/README.md
  python3 -c '
import sys
readme, row, opened = sys.argv[1:]
text = open(readme).read()
at = "| `%s` | " % row
if at not in text: sys.exit(1)
open(readme, "w").write(text.replace(at, at + "`%s`, " % opened, 1))' "$readme" "$row" "$opened" ||
    { flunk "include walls refuse $why (no row $row to open)"; return; }
  printf '// planted by include_walls_test.sh\n%s\n' "$line" >> "$case_dir/$file"
  at=$(wc -l < "$case_dir/$file")
  out=$(python3 "$walls" "$case_dir")
  rc=$?
  if [ $rc -eq 1 ] && echo "$out" | grep -q "^$file:$at: .* in a loop (" &&
     ! echo "$out" | grep -q "^$file:$at: .* do not open"; then pass "include walls refuse $why"
  else echo "$out" | sed 's/^/    /'; flunk "include walls refuse $why ($file:$at, exit status $rc)"; fi
  rm -rf "$case_dir"
}

planted_loop harness/checker/types/suite.h '#include "checker/calls/lab_call.h"' 'harness/checker/types/**' \
  'harness/checker/calls/**' "a loop between the checker's layers that a Walls row opens (types <-> calls)"
planted_loop harness/checker/calls/planted.cpp '#include "checker/timing/gpu_gate.h"' 'harness/checker/calls/**' \
  'harness/checker/timing/**' "a loop through two rows' openings (calls -> timing -> calls)"
exit $fail
