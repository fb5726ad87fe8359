#!/usr/bin/env bash
# Which system calls a kernel runner makes once it has said hello (its runtime is up: the CUDA
# context, or the emulator), on this machine's backend: what the runner's seccomp allow-list
# (harness/runner/syscall_filter.cpp) must admit. Runs lab 3's reference solution through its
# checks and one timed batch under strace, with the filter off (CUDALAB_SYSCALL_FILTER=off).
#   tools/measure/runner_syscalls.sh [OUT_DIR]        (strace from PATH, or .carry/strace/ on a GPU machine)
# Prints, per system call, how often and one example.
set -eu
out=${1:-build/syscalls}
mkdir -p "$out"
backend=$( [ -n "$(nvidia-smi -L 2>/dev/null)" ] && echo cuda || echo cpu )
strace=$(command -v strace || echo .carry/strace/strace)
[ -x .carry/strace/strace ] && export LD_LIBRARY_PATH=$PWD/.carry/strace${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
make -s BACKEND=$backend solution3 ARGS="--list" > /dev/null
export CUDALAB_SYSCALL_FILTER=off
for what in checks timing; do
  args=(--no-timing --size 1000003)
  [ $what = timing ] && args=(--only odd_million --no-baselines)
  "$strace" -f -qq -o "$out/$what.trace" build/$backend/check/lab3 --runner build/$backend/solutions/lab3-runner "${args[@]}" \
    > "$out/$what.log" 2>&1 || true
  echo "== $backend, lab 3's $what: system calls of the runner after its hello"
  python3 tools/measure/syscalls_after_hello.py "$out/$what.trace" lab3-runner
done
