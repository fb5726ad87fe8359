#!/usr/bin/env bash
# One call on a GPU machine: build everything, run every solution (checks + timing) and
# every stub, the integration tests, the rebuild-and-run time of `make lab3`, and print a
# short table. Logs and JSON reports go to $OUT (one archive, for tools that fetch few files).
#
#   OUT=/tmp/cudalab-gpu tools/gpu_session.sh [quick]
set -u
OUT=${OUT:-/tmp/cudalab-gpu}
mode=${1:-full}
mkdir -p "$OUT/logs"
log() { echo "== $*"; }
# The lab 3 stub while the solution stands in for it (the `make lab3` timing below): put
# back by finish() too, so that a stage killed mid-way never leaves labs/ holding the solution.
lab3_file=""
lab3_stub=""
restore_lab3() {
  if [ -n "$lab3_stub" ] && [ -f "$lab3_stub" ]; then
    cp "$lab3_stub" "$lab3_file" && rm -f "$lab3_stub"
  fi
  lab3_stub=""
}
# Whatever happens (a stage overrunning the call's limit included), pack what exists so it
# comes back as one file, and keep a copy of everything printed.
finish() {
  restore_lab3
  python3 tools/summarize_reports.py "$OUT/logs" > "$OUT/summary.txt" 2>&1
  cat "$OUT/summary.txt"
  tar -czf "$OUT/logs.tar.gz" -C "$OUT" logs && rm -rf "$OUT/logs"
}
trap finish EXIT
exec > >(tee "$OUT/logs/session.txt") 2>&1

log "GPU"
nvidia-smi --query-gpu=name,compute_cap,driver_version,clocks.sm,clocks.max.sm,clocks.mem,temperature.gpu --format=csv \
  | tee "$OUT/logs/gpu.txt"

log "build"
start=$(date +%s)
targets=""
for n in 1 2 3 4 5; do
  ls solutions/lab${n}_*.cu >/dev/null 2>&1 && targets="$targets build/cuda/solutions/lab$n build/cuda/labs/lab$n"
done
make -j16 BACKEND=cuda $targets > "$OUT/logs/build.log" 2>&1 || { tail -40 "$OUT/logs/build.log"; echo "BUILD FAILED"; }
echo "build: $(( $(date +%s) - start )) s"

for n in 1 2 3 4 5; do
  [ -x build/cuda/solutions/lab$n ] || continue
  log "lab $n"
  ./build/cuda/solutions/lab$n --seed 2026 --json "$OUT/logs/solution$n.json" > "$OUT/logs/solution$n.log" 2>&1
  echo "solution$n exit $?"
  ./build/cuda/labs/lab$n --seed 2026 --no-timing --json "$OUT/logs/stub$n.json" > "$OUT/logs/stub$n.log" 2>&1
  echo "stub$n exit $?"
done

if [ "$mode" = full ]; then
  log "repeatability: solution 3 timed twice more"
  for k in a b; do
    [ -x build/cuda/solutions/lab3 ] && ./build/cuda/solutions/lab3 --seed 7 --json "$OUT/logs/repeat3$k.json" > /dev/null 2>&1
  done
  log "make lab3 after an edit (rebuild + full run)"
  if ls labs/lab3_*.cu >/dev/null 2>&1; then
    touch labs/lab3_*.cu
    s=$(date +%s%N)
    make BACKEND=cuda lab3 > "$OUT/logs/make_lab3.log" 2>&1
    echo "make lab3 (stub): $(( ($(date +%s%N) - s) / 1000000 )) ms"
    lab3_file=$(ls labs/lab3_*.cu | head -1)
    lab3_stub=$(mktemp /tmp/lab3_stub.XXXXXX)
    cp "$lab3_file" "$lab3_stub"
    cp solutions/lab3_*.cu labs/ && touch labs/lab3_*.cu
    s=$(date +%s%N)
    make BACKEND=cuda lab3 > "$OUT/logs/make_lab3_solved.log" 2>&1
    echo "make lab3 (solved, all checks + timing): $(( ($(date +%s%N) - s) / 1000000 )) ms"
    restore_lab3
  fi
  log "checkers (CHECK=) on the GPU"
  make BACKEND=cuda fixtures-cuda > "$OUT/logs/fixtures_build.log" 2>&1
  timeout 120 make BACKEND=cuda solution1 CHECK=race ARGS="--only partial_last_block --seed 3" > "$OUT/logs/check_race.log" 2>&1
  echo "solution1 under racecheck: exit $? ($(grep -c 'RACECHECK SUMMARY: 0 hazards' "$OUT/logs/check_race.log") clean summaries)"
  timeout 120 compute-sanitizer --tool memcheck --error-exitcode 10 build/cuda/fixtures/lab5_unguarded --only classic_1000 --no-timing \
    > "$OUT/logs/check_memcheck.log" 2>&1
  echo "unguarded matmul under memcheck: exit $? ($(grep -c 'Invalid __global__ read' "$OUT/logs/check_memcheck.log") invalid reads reported)"
  log "tests"
  timeout 240 make BACKEND=cuda test-unit test-labs > "$OUT/logs/test.log" 2>&1
  echo "make test-unit test-labs: exit $?"; tail -5 "$OUT/logs/test.log"
fi

