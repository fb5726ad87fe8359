#!/usr/bin/env bash
# The boundary on a GPU (docs/link_contract.md), in one call from a fresh copy: the system calls a
# runner makes after its hello (the filter off), the reference solution's whole run with the
# filter on (checks and timing, the documented `make solution3`), the student loop's time (the
# lab file touched, `make solution3` again), and the boundary's attacks and honest files
# (tests/planted/run.py boundary --backend cuda). With BASE=DIR (an older checkout), the same loop
# is timed there too, on the same machine, for the before and after.
#   OUT=/tmp/out [BASE=.carry/base] [STAGES="loop syscalls boundary"] tools/gpu/gpu_boundary.sh
set -u
OUT=${OUT:-/tmp/cudalab-boundary}
mkdir -p "$OUT"
log() { echo "== $*"; }
exec > >(tee "$OUT/boundary.txt") 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader

student_loop() {  # DIR -> the reference's first run, then the loop's: touch, make solution3
  local dir=$1 name=$2
  ( cd "$dir" && { time make solution3 > "$OUT/$name-first.txt" 2>&1; } 2>&1 | grep real | sed "s/^/$name first make solution3 (build and run): /" )
  for i in 1 2 3; do
    ( cd "$dir" && touch solutions/lab3_multilevel_sum.cu && { time make solution3 > "$OUT/$name-loop$i.txt" 2>&1; } 2>&1 | grep real | sed "s/^/$name loop $i (touch, make solution3): /" )
  done
  tail -4 "$OUT/$name-loop3.txt"
}

stages=" ${STAGES:-loop syscalls boundary} "
if [[ $stages == *" loop "* ]]; then
  log "the student loop, this checkout"
  student_loop . now
  grep -E "PASS|FAIL|ERROR|passed" "$OUT/now-first.txt" | tail -40
  if [ -n "${BASE:-}" ] && [ -d "$BASE" ]; then
    log "the student loop, $BASE (before)"
    student_loop "$BASE" base
  fi
fi
if [[ $stages == *" syscalls "* ]]; then
  log "system calls after hello (filter off)"
  tools/measure/runner_syscalls.sh "$OUT/sys" 2>&1 | tail -40
fi
if [[ $stages == *" boundary "* ]]; then
  log "the boundary's attacks and honest files"
  time tests/planted/run.py boundary --backend cuda -j 1
fi
