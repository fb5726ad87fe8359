#!/bin/sh
# Runs each planted-bug fixture in the mode that should catch it (its "// mode:" line) and
# checks the exit status, every "// expect:" pattern (an extended regex) in its output, and that
# no "// reject:" pattern matches it.
# Then compiles each lab file in tests/emulator/refused/ as `make labN BACKEND=cpu` would (the launch
# rewrite, the lab-facing headers) and checks that it does not compile, with every "// expect:"
# pattern in the compiler's messages: what lab code must not be able to reach, and what the CPU
# backend refuses to run (a grid-wide sync) with a message saying why.
# Usage: tests/emulator/run_fixtures.sh BUILD_DIR   (build/cpu; fixtures built by make cpu-fixtures)
build=${1:-build/cpu}
fail=0
for src in tests/emulator/fixtures/*.cu; do
  name=$(basename "$src" .cu)
  mode=$(sed -n 's|^// mode: *||p' "$src")
  case "$mode" in plain) dir=$build ;; *) dir=$build/$mode ;; esac
  envs=$(sed -n 's|^// env: *||p' "$src")
  want=$(sed -n 's|^// status: *||p' "$src")
  out=$(env $envs timeout 120 "$dir/tests/fixtures/$name" 2>&1)
  rc=$?
  problems=""
  [ $rc -eq 124 ] && problems="$problems timed out;"
  if [ "$want" = zero ] && [ $rc -ne 0 ]; then problems="$problems exit status $rc, wanted 0;"; fi
  if [ "$want" = nonzero ] && [ $rc -eq 0 ]; then problems="$problems exit status 0, wanted non-zero;"; fi
  # Each expect line must match; the same pattern twice must match twice (both lines of a race).
  for pattern in $(sed -n 's|^// expect: *||p' "$src" | sort | uniq -c | sed 's/^ *\([0-9]*\) \(.*\)/\1:\2/' | tr ' ' '\001'); do
    count=${pattern%%:*}
    re=$(printf '%s' "${pattern#*:}" | tr '\001' ' ')
    got=$(printf '%s\n' "$out" | grep -E -c -- "$re")
    [ "$got" -ge "$count" ] || problems="$problems no match for /$re/ (x$count);"
  done
  # A "// reject:" pattern must match nothing: what a correct program must not be told.
  for re in $(sed -n 's|^// reject: *||p' "$src" | tr ' ' '\001'); do
    re=$(printf '%s' "$re" | tr '\001' ' ')
    printf '%s\n' "$out" | grep -E -q -- "$re" && problems="$problems output matches /$re/, which it must not;"
  done
  if [ -z "$problems" ]; then
    echo "PASS  $name ($mode)"
  else
    echo "FAIL  $name ($mode):$problems"
    printf '%s\n' "$out" | head -40 | sed 's/^/      | /'
    fail=1
  fi
done

lab_flags="-std=c++20 -pthread -DCUDALAB_BACKEND_CPU=1 -Iharness/runner/emulator/include -Iharness/include"
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
for src in tests/emulator/refused/*.cu; do
  [ -f "$src" ] || continue
  name=$(basename "$src" .cu)
  problems=""
  if out=$(perl harness/runner/emulator/rewrite.pl "$src" "$scratch/$name.cpp" "$src" 2>&1 &&
           g++ $lab_flags -DCUDALAB_SOURCE_FILE="\"$src\"" -fsyntax-only "$scratch/$name.cpp" 2>&1); then
    problems=" it compiled;"
  fi
  for re in $(sed -n 's|^// expect: *||p' "$src" | tr ' ' '\001'); do
    re=$(printf '%s' "$re" | tr '\001' ' ')
    printf '%s\n' "$out" | grep -E -q -- "$re" || problems="$problems no match for /$re/;"
  done
  if [ -z "$problems" ]; then
    echo "PASS  $name (refused at compile time)"
  else
    echo "FAIL  $name (should not compile):$problems"
    printf '%s\n' "$out" | head -20 | sed 's/^/      | /'
    fail=1
  fi
done
exit $fail
