#!/usr/bin/env bash
# One call on a GPU machine: build everything, run every solution (checks + timing) and
# every stub, the integration tests, the rebuild-and-run time of `make lab3`, and print a
# short table. Logs and JSON reports go to $OUT (one archive, for tools that fetch few files).
#
#   OUT=/tmp/cudalab-gpu tools/gpu/gpu_session.sh [quick|full|final]
# quick: labs and the lab tests; full: everything; final: labs, the lab tests and the grader
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
  python3 tools/measure/summarize_reports.py "$OUT/logs" > "$OUT/summary.txt" 2>&1
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
for n in 1 2 3 4 5 6 7 8 9; do
  ls solutions/lab${n}_*.cu >/dev/null 2>&1 && targets="$targets build/cuda/check/lab$n build/cuda/solutions/lab$n-runner build/cuda/labs/lab$n-runner"
done
make -j16 BACKEND=cuda $targets > "$OUT/logs/build.log" 2>&1 || { tail -40 "$OUT/logs/build.log"; echo "BUILD FAILED"; }
echo "build: $(( $(date +%s) - start )) s"

# A lab run is the checker, which starts the kernel runner built from the lab file.
checker() { local n=$1 runner=$2; shift 2; ./build/cuda/check/lab$n --runner "$runner" "$@"; }
for n in 1 2 3 4 5 6 7 8 9; do
  [ -x build/cuda/solutions/lab$n-runner ] || continue
  log "lab $n"
  s=$(date +%s%N)
  checker $n build/cuda/solutions/lab$n-runner --seed 2026 --json "$OUT/logs/solution$n.json" > "$OUT/logs/solution$n.log" 2>&1
  echo "solution$n exit $? ($(( ($(date +%s%N) - s) / 1000000 )) ms, checks and timing)"
  checker $n build/cuda/labs/lab$n-runner --seed 2026 --no-timing --json "$OUT/logs/stub$n.json" > "$OUT/logs/stub$n.log" 2>&1
  echo "stub$n exit $?"
done
s=$(date +%s%N)
checker 3 build/cuda/solutions/lab3-runner --seed 2026 --no-timing > /dev/null 2>&1
echo "lab 3 reference, every check, no timing: $(( ($(date +%s%N) - s) / 1000000 )) ms"

if [ "$mode" = quick ] || [ "$mode" = final ]; then
  log "lab integration tests (every solution and stub; every planted-bug fixture)"
  timeout 300 make -j16 BACKEND=cuda test-labs > "$OUT/logs/test_labs.log" 2>&1
  echo "make test-labs: exit $?"; grep -E "test cases|assertions|ERROR|CHECK\(|REQUIRE|^FAIL" "$OUT/logs/test_labs.log" | head -30
  echo "planted bugs (tests/planted/run.py fixtures): $(grep -c '^PASS  fixture' "$OUT/logs/test_labs.log") PASS, $(grep -c '^FAIL  fixture' "$OUT/logs/test_labs.log") FAIL"
fi

if [ "$mode" = full ]; then
  log "repeatability: solution 3 timed twice more"
  for k in a b; do
    [ -x build/cuda/solutions/lab3-runner ] && checker 3 build/cuda/solutions/lab3-runner --seed 7 --json "$OUT/logs/repeat3$k.json" > /dev/null 2>&1
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
  timeout 120 compute-sanitizer --tool memcheck --error-exitcode 10 build/cuda/check/lab5 --runner build/cuda/fixtures/lab5_unguarded --only classic_1000 --no-timing \
    > "$OUT/logs/check_memcheck.log" 2>&1
  echo "unguarded matmul under memcheck: exit $? ($(grep -c 'Invalid __global__ read' "$OUT/logs/check_memcheck.log") invalid reads reported)"
fi

if [ "$mode" = full ]; then
  log "tests"
  timeout 240 make BACKEND=cuda test-unit test-labs > "$OUT/logs/test.log" 2>&1
  echo "make test-unit test-labs: exit $?"; grep -E "test cases|assertions|passed, " "$OUT/logs/test.log" | tail -5
fi

if [ "$mode" = full ] || [ "$mode" = final ]; then
  log "grading on the GPU: the lab 1 fixture class (attacks included), as root"
  # The grader's libraries that this machine lacks travel in .carry/deps, as for
  # tools/gpu/gpu_grading.sh (Debian's toml++, CLI11, nlohmann-json and OpenSSL headers, a static
  # libcrypto, and Boost.Context's static library and the headers the emulator includes, for
  # the CPU build that judges barriers on a GPU too: apt-get download, then dpkg -x into
  # .carry/deps). The grader hands CPATH and LIBRARY_PATH on to every build, jailed or not.
  export CPATH="$PWD/.carry/deps/usr/include:$PWD/.carry/deps/usr/include/x86_64-linux-gnu"
  export LIBRARY_PATH="$PWD/.carry/deps/usr/lib/x86_64-linux-gnu"
  rm -rf /tmp/gpu-grades /tmp/gpu-grading-work
  # The CPU backend's side the grader needs on a GPU (the emulator judges barriers), built
  # here in parallel rather than by the grader's own serial make.
  make -j16 BACKEND=cpu lab-checker grading-runner-prereqs LAB=1 > "$OUT/logs/grade_cpu_build.log" 2>&1 ||
    { tail -20 "$OUT/logs/grade_cpu_build.log"; echo "the CPU backend does not build (Boost.Context in .carry/deps?)"; }
  s=$(date +%s)
  timeout 400 make -j16 grade LAB=1 BACKEND=cuda SUBMISSIONS=tests/grading/fixtures/lab1 GRADES=/tmp/gpu-grades \
    GRADE_ARGS="--work /tmp/gpu-grading-work" > "$OUT/logs/grade.log" 2>&1
  echo "grading: exit $? after $(( $(date +%s) - s )) s"
  cut -d, -f1-4 /tmp/gpu-grades/lab1/gradebook.csv 2>/dev/null | head -40
  # Issue 18: a barrier inside an `if` loses the barriers points here as on the CPU backend.
  python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print("barrier_in_if: barriers", *[(c["status"], c["cause"]) for c in r["checks"] if c["id"]=="barriers"])' \
    /tmp/gpu-grades/lab1/students/barrier_in_if/result.json 2>&1
  grep -iE "isolation|jail|level" "$OUT/logs/grade.log" | head -5
  tail -15 "$OUT/logs/grade.log"
fi

