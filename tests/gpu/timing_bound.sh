#!/bin/sh
# Issue 16 on a GPU: the checker's clock against the runner's report, at every timed size.
# An honest runner (the reference solution) must be "measured" at each size; the same solution
# linked with tests/gpu/lying_events.cpp (build/cuda/tests/labN-lying-runner), which reports
# CUDALAB_TEST_REPORT_SCALE times what its events saw, must be "refused" at each size,
# sub-millisecond ones too. The production runner has no such hook.
# Then the feedback fixture as the grader runs it, with a hidden check.
#   tests/gpu/timing_bound.sh [LAB]     (default 3; run from the repository root on a GPU machine)
# Prints one PASS/FAIL line per run and the note of each timing; exit 1 when any failed.
lab=${1:-3}
make -s BACKEND=cuda build/cuda/check/lab$lab build/cuda/solutions/lab$lab-runner build/cuda/tests/lab$lab-lying-runner || exit 2
check=build/cuda/check/lab$lab
honest=build/cuda/solutions/lab$lab-runner
lying=build/cuda/tests/lab$lab-lying-runner
out=build/cuda/timing-bound
mkdir -p $out
fail=0
status_of() { python3 -c 'import json,sys; t=json.load(open(sys.argv[1]))["timing"]; print(t["status"]); print(t["note"], file=sys.stderr)' "$1"; }
case $lab in
  3|1|2|7) sizes="2^26 2^24 1000000 100000" ;;
  *) sizes="default" ;;
esac
for size in $sizes; do
  sz=""; [ "$size" = default ] || sz="--size $size"
  for scale in 1 0.95 0.9 0.5; do
    json=$out/lab$lab-$size-$scale.json
    runner=$lying; [ "$scale" = 1 ] && runner=$honest
    CUDALAB_TEST_REPORT_SCALE=$scale $check --runner $runner --timing-only --seed 16 $sz --json $json > $json.log 2>&1
    got=$(status_of $json 2> $json.note)
    want=refused; [ "$scale" = 1 ] && want=measured
    if [ "$got" = "$want" ]; then echo "PASS  lab $lab size $size, reported x$scale: $got"
    else echo "FAIL  lab $lab size $size, reported x$scale: $got, wanted $want"; fail=1; fi
    sed 's/^/        /' $json.note
  done
done
if [ "$lab" = 3 ]; then
  make -s BACKEND=cuda build/cuda/fixtures/lab3_words_leak || exit 2
  json=$out/words_leak.json
  $check --runner build/cuda/fixtures/lab3_words_leak --no-timing --seed 16 --hidden-checks b1024_squared_plus_one --json $json > $json.log 2>&1
  if grep -q 'SECRET\|cmdline\|cudalab-jail\|runner_words' $json; then echo "FAIL  lab3_words_leak: the runner's words reached the report"; fail=1
  else echo "PASS  lab3_words_leak: the report is in the checker's words"; fi
fi
exit $fail
