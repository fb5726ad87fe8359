#!/usr/bin/env bash
# PROFILE=1 on a GPU (issue 31): Nsight Compute (ncu, from the CUDA Toolkit) over a lab file's
# kernels and the reference solution's, at the lab's timed size, digested by build/cpu/check/
# profile-ncu into the same sentences the CPU backend gives, marked "measured".
#
#   tools/gpu/gpu_profile.sh --lab N --runner R --reference S   one lab (make labN PROFILE=1 runs this)
#   tools/gpu/gpu_profile.sh --variants                         every known-slow variant in tests/profile/
#       and every reference, on the GPU and on the CPU backend: a table of variant x first sentence,
#       one diagnosis in full on both backends, and the wall time of `make lab3 PROFILE=1`.
#       Run from the repository's root on a GPU machine (root, or a user allowed the GPU's
#       performance counters); everything it needs is built by make. Logs go to $OUT (/tmp/cudalab-profile).
#
# ncu runs the checker with --size (a quarter of the timed size or less: profile_size) and
# --no-timing: one check, whose call's kernels it replays for every metric. Only kernels inside
# the runner's NVTX range "cudalab-lab" (the lab's own code, harness/runner/runner_gpu.cu) are
# profiled: not the runner's fills, guards and gathers, nor the checker's reference kernels. The
# reference solution's report is kept (build/cuda/profile/) for the next run on the same GPU, size
# and runner. The runner's system-call filter is off for it (CUDALAB_SYSCALL_FILTER=off): ncu's
# injected library talks to ncu over a socket.
set -u
cd "$(dirname "$0")/../.." || exit 1
OUT=${OUT:-/tmp/cudalab-profile}
mkdir -p "$OUT"
CACHE=build/cuda/profile
mkdir -p "$CACHE"
# Boost.Context (the CPU backend's emulator) from .carry/deps, Debian packages unpacked, where the
# machine lacks it (as tools/gpu/gpu_grading.sh).
deps=$PWD/.carry/deps
if [ -d "$deps" ]; then
  export CPATH="$deps/usr/include:$deps/usr/include/x86_64-linux-gnu${CPATH:+:$CPATH}"
  export LIBRARY_PATH="$deps/usr/lib/x86_64-linux-gnu${LIBRARY_PATH:+:$LIBRARY_PATH}"
  export LD_LIBRARY_PATH="$deps/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
fi
NCU=${NCU:-$(command -v ncu || ls /usr/local/cuda/bin/ncu /usr/local/cuda/nsight-compute-*/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -n1)}
DIGEST=build/cpu/check/profile-ncu

# The size profiled, per lab: a quarter of the timed size (harness/lab_specs/labN/timing.cpp) or less,
# still many waves of blocks on 132 SMs (ncu replays each kernel once per pass, saving and
# restoring the memory it writes), and its element count.
profile_size() {
  case $1 in
    2) echo 1048576 ;;
    4) echo 4096x4096 ;;
    5 | 9) echo 1024x1024x1024 ;;
    6) echo 67108864 ;;
    8) echo 16777216 ;;
    *) echo 16777216 ;;
  esac
}
elements() { echo "$1" | awk -Fx '{ e = 1; for (i = 1; i <= NF; i++) e *= $i; printf "%.0f\n", e }'; }
# The multiply-adds of a matrix product (labs 5 and 9: M N K, the size's product), for the
# data-reuse finding; none for the other labs.
multiply_adds() { case $1 in 5 | 9) elements "$(profile_size "$1")" ;; *) echo 0 ;; esac; }

# A few metrics per question; a name this ncu or GPU does not list is left out (ncu refuses a
# whole run for one unknown metric). The launch figures (launch__*, device__*) are not asked for:
# the LaunchStats and Occupancy sections give them as columns, and `ncu --query-metrics` never
# lists them. SourceCounters adds the ideal sectors and the sampled stall reasons.
WANTED="dram__throughput.avg.pct_of_peak_sustained_elapsed
l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum
l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum l1tex__t_requests_pipe_lsu_mem_global_op_st.sum
l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum
smsp__inst_executed_op_shared_ld.sum smsp__inst_executed_op_shared_st.sum
l1tex__t_requests_pipe_lsu_mem_global_op_red.sum l1tex__t_requests_pipe_lsu_mem_global_op_atom.sum
smsp__thread_inst_executed_per_inst_executed.ratio smsp__thread_inst_executed_pred_on_per_inst_executed.ratio
sm__warps_active.avg.pct_of_peak_sustained_active smsp__inst_executed_op_barrier.sum
sm__sass_data_bytes_mem_global_op_ld.sum sm__sass_data_bytes_mem_global_op_ldgsts.sum
sm__sass_data_bytes_mem_shared_op_ld.sum smsp__sass_thread_inst_executed_op_ffma_pred_on.sum"
# The list, once per ncu and WANTED (its --query-metrics takes seconds).
metrics_known() {
  local list="$CACHE/metrics-$("$NCU" --version 2>/dev/null | tail -n1 | tr -c 'A-Za-z0-9.\n' _)-$(echo "$WANTED" | cksum | cut -d' ' -f1).txt"
  if [ ! -s "$list" ]; then
    local known kept=()
    known=$("$NCU" --query-metrics 2>/dev/null | awk '{ print $1 }')
    for m in $WANTED; do
      if printf '%s\n' "$known" | grep -qx -- "${m%%.*}"; then kept+=("$m"); else echo "  (ncu here lists no metric ${m%%.*}: left out)" >&2; fi
    done
    (IFS=,; echo "${kept[*]}") >"$list"
  fi
  cat "$list"
}

# ncu over one runner: $1 lab, $2 runner, $3 output base. Leaves $3.csv (raw page) and $3.log.
profile_runner() {
  local extra=()
  [ -n "$METRICS" ] && extra=(--metrics "$METRICS")
  # NVTX=0: every kernel of both processes profiled (slower; the digest still leaves the harness's out).
  [ "${NVTX:-1}" = 0 ] || extra+=(--nvtx --nvtx-include "cudalab-lab/")
  CUDALAB_SYSCALL_FILTER=off "$NCU" --target-processes all -f -o "$3" \
    --section LaunchStats --section Occupancy --section SourceCounters \
    "${extra[@]}" "build/cuda/check/lab$1" --runner "$2" --size "$(profile_size "$1")" --no-timing --seed 1 >"$3.log" 2>&1
  "$NCU" --import "$3.ncu-rep" --csv --page raw --print-units base >"$3.csv" 2>>"$3.log"
}

# The reference's report, kept while its runner, the size, the metrics and the GPU are the same.
reference_csv() {  # LAB RUNNER
  local key
  key=$(printf '%s %s %s %s %s' "$(stat -c %Y "$2" 2>/dev/null)" "$(profile_size "$1")" "$METRICS" "$GPU" "$NCU" | cksum | cut -d' ' -f1)
  local base="$CACHE/ref$1-$key"
  [ -s "$base.csv" ] && grep -q '"ID"' "$base.csv" && { echo "$base.csv"; return 0; }
  profile_runner "$1" "$2" "$base" || return 1
  echo "$base.csv"
}

# The digest of a runner against the reference: $1 lab, $2 runner, $3 reference, $4 name; extra
# arguments go to profile-ncu (--first-sentence).
digest() {
  local lab=$1 runner=$2 reference=$3 name=$4 ref
  shift 4
  profile_runner "$lab" "$runner" "$OUT/$name" || { echo "not profiled: ncu failed ($OUT/$name.log)"; return 1; }
  ref=$(reference_csv "$lab" "$reference") || { echo "not profiled: ncu failed on the reference ($CACHE/ref$lab-*.log)"; return 1; }
  "$DIGEST" --elements "$(elements "$(profile_size "$lab")")" --multiply-adds "$(multiply_adds "$lab")" --yours "$OUT/$name.csv" --reference "$ref" "$@"
}

GPU=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n1)

need_ncu() {
  [ -n "$NCU" ] && [ -x "$NCU" ] && return 0
  echo "  why it is slow: not profiled: Nsight Compute (ncu) is not here; it comes with the CUDA Toolkit (or set NCU=/path/to/ncu)"
  return 1
}

one_lab() {
  local lab=$1 runner=$2 reference=$3
  echo
  echo "  why it is slow (PROFILE=1, measured with Nsight Compute at size $(profile_size "$lab"))"
  need_ncu || return 0
  make --no-print-directory -s BACKEND=cpu "$DIGEST" || return 1
  METRICS=$(metrics_known)
  local start
  start=$(date +%s.%N)
  digest "$lab" "$runner" "$reference" "lab$lab"
  echo "    (profiled in $(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }') s)"
}

variants() {
  need_ncu || exit 1
  echo "== building (GPU runners of the references and variants, the CPU backend's profile runners)"
  local labs
  labs=$(ls tests/profile/lab*_*.cu | sed 's|.*/lab\([0-9]*\)_.*|\1|' | sort -u)
  for lab in $labs; do
    make --no-print-directory -s BACKEND=cuda "build/cuda/check/lab$lab" "build/cuda/solutions/lab$lab-runner" || exit 1
  done
  for src in tests/profile/lab*_*.cu; do
    local name lab
    name=$(basename "$src" .cu)
    lab=${name#lab}; lab=${lab%%_*}
    make --no-print-directory -s BACKEND=cuda lab-runner LAB="$lab" SRC="$src" OUT="build/cuda/profile-variants/$name" || exit 1
  done
  make --no-print-directory -s BACKEND=cpu test-profile >"$OUT/cpu-variants.txt" 2>&1
  make --no-print-directory -s BACKEND=cpu "$DIGEST" || exit 1
  METRICS=$(metrics_known)
  rm -f "$CACHE"/ref*

  echo
  echo "== variant x first sentence, measured on this GPU ($GPU)"
  rm -f "$OUT/0-gpu-variants.txt"  # the table alone, kept: a long run's output may be cut
  local fail=0
  for src in tests/profile/lab*_*.cu; do
    local name lab want got
    name=$(basename "$src" .cu)
    lab=${name#lab}; lab=${lab%%_*}
    want=$(python3 tests/planted/header.py "$src" expect-message)
    got=$(digest "$lab" "build/cuda/profile-variants/$name" "build/cuda/solutions/lab$lab-runner" "$name" --first-sentence)
    case "$got" in *"$want"*) verdict=PASS ;; *) verdict=FAIL; fail=1 ;; esac
    printf '%s %-28s %s\n' "$verdict" "$name" "$got" | tee -a "$OUT/0-gpu-variants.txt"
  done
  for lab in $labs; do
    got=$(digest "$lab" "build/cuda/solutions/lab$lab-runner" "build/cuda/solutions/lab$lab-runner" "solution$lab" --first-sentence)
    case "$got" in *"nothing stands out"*) verdict=PASS ;; *) verdict=FAIL; fail=1 ;; esac
    printf '%s %-28s %s\n' "$verdict" "solution $lab (reference)" "$got" | tee -a "$OUT/0-gpu-variants.txt"
  done

  echo
  echo "== the same variants on the CPU backend (make test-profile)"
  grep -v '^  build\|^==' "$OUT/cpu-variants.txt"
  grep -c '^PASS' "$OUT/cpu-variants.txt" | sed 's/$/ passed on the CPU backend/'

  echo
  echo "== lab 4's unpadded tile in full, GPU then CPU backend"
  digest 4 build/cuda/profile-variants/lab4_unpadded_tile build/cuda/solutions/lab4-runner lab4_unpadded_tile
  build/cpu/check/lab4 --runner build/cpu/profile/variants/lab4_unpadded_tile --largest 1 --no-timing \
    --profile-runner build/cpu/profile/variants/lab4_unpadded_tile --profile-reference build/cpu/profile/solutions/lab4-runner |
    sed -n '/why it is slow/,$p'

  echo
  echo "== make lab3 PROFILE=1 on the GPU, wall time (built beforehand; the lab 3 file is the reference"
  echo "   solution's, so that every check passes and the profile runs: make solution3 PROFILE=1)"
  make --no-print-directory -s BACKEND=cuda build/cuda/check/lab3 build/cuda/solutions/lab3-runner >/dev/null
  local start end run
  for run in cold warm; do
    [ $run = cold ] && rm -f "$CACHE"/ref3-*
    start=$(date +%s.%N)
    make --no-print-directory BACKEND=cuda solution3 PROFILE=1 >"$OUT/solution3-profile-$run.txt" 2>&1
    end=$(date +%s.%N)
    [ $run = cold ] && sed -n '/why it is slow/,$p' "$OUT/solution3-profile-$run.txt"
    echo "make solution3 PROFILE=1, $run (reference's report $([ $run = cold ] && echo "made: two ncu runs" || echo "kept: one ncu run")):" \
      "$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.1f", b - a }') s on the $GPU (the checks, the timing and the profile)"
  done
  return $fail
}

case "${1:-}" in
  --variants) variants ;;
  --lab)
    lab=$2 runner="" reference=""
    shift 2
    while [ $# -gt 0 ]; do
      case $1 in
        --runner) runner=$2; shift 2 ;;
        --reference) reference=$2; shift 2 ;;
        *) echo "unknown option $1"; exit 2 ;;
      esac
    done
    one_lab "$lab" "$runner" "$reference"
    ;;
  *) sed -n '2,12p' "$0"; exit 2 ;;
esac
