#!/usr/bin/env bash
# The link contract against its attackers (tests/contract/attacks: each must be refused, for the
# reason its "// expect:" line names, on both backends) and honest code (tests/contract/honest:
# each must be accepted). The same file must get the same verdict on the GPU build (nvcc's host
# object) and on the CPU backend (the rewritten file, g++): the contract judges objects, not text.
#   tests/contract/run_contract_tests.sh CONTRACT_TOOL [NVCC]
# Prints one PASS/FAIL line per file and backend; the refusals' full text goes to build/tests/logs.
set -u
tool=$1
nvcc=${2:-}
work=build/tests/contract
logs=build/tests/logs/contract
mkdir -p "$work" "$logs"
cpu_flags="-std=c++20 -O1 -pthread -w -DCUDALAB_BACKEND_CPU=1 -Iharness/runner/emulator/include -Iharness/include"
# PTX only: the host object is what the contract reads, and skipping SASS halves the compile.
nvcc_flags="-std=c++20 -O1 -gencode arch=compute_80,code=compute_80 -Iharness/include -w"

# "// build: race": the CPU backend's race-detector build (mk/cpu.mk's CPU_LAB_race), judged --sanitized.
race_flags="-O1 -g -fsanitize=thread -Wno-tsan -U__SANITIZE_THREAD__ -fsanitize=bounds"
compile() {  # backend source object -> 0 when it compiled
  case $1 in
    race) perl harness/runner/emulator/rewrite.pl "$2" "$3.cpp" "$2" && g++ $cpu_flags $race_flags -DCUDALAB_SOURCE_FILE="\"$2\"" -c "$3.cpp" -o "$3" ;;
    cuda) "$nvcc" $nvcc_flags -DCUDALAB_SOURCE_FILE="\"$2\"" -c "$2" -o "$3" ;;
    cpu) perl harness/runner/emulator/rewrite.pl "$2" "$3.cpp" "$2" && g++ $cpu_flags -DCUDALAB_SOURCE_FILE="\"$2\"" -c "$3.cpp" -o "$3" ;;
  esac
}

judge() {  # backend source -> prints PASS/FAIL
  local backend=$1 src=$2 name lab expect obj log rc
  name=$(basename "$src" .cu)
  lab=$(echo "$name" | sed 's/^lab\([0-9]*\)_.*/\1/')
  expect=$(sed -n 's|^// expect: ||p' "$src" | head -n1)
  obj=$work/$backend-$name.o
  log=$logs/$backend-$name.txt
  if ! compile "$backend" "$src" "$obj" > "$log" 2>&1; then
    echo "FAIL  contract $backend $name: did not compile (see $log)"
    return
  fi
  local judged=$backend sanitized=
  [ "$backend" = race ] && judged=cpu sanitized=--sanitized
  "$tool" --lab "$lab" --backend "$judged" $sanitized --header "harness/include/cudalab/lab$lab.h" --source "$src" "$obj" > "$log" 2>&1
  rc=$?
  if [ -z "$expect" ]; then
    if [ $rc -eq 0 ]; then echo "PASS  contract $backend $name: accepted"
    else echo "FAIL  contract $backend $name: honest code refused:"; sed 's/^/        /' "$log"; fi
    return
  fi
  local what=${expect#* }
  if [ $rc -eq 1 ] && grep -qF -- "$what" "$log"; then
    echo "PASS  contract $backend $name: refused ($expect)"
  else
    echo "FAIL  contract $backend $name: expected a refusal naming '$what' (exit $rc):"
    sed 's/^/        /' "$log"
  fi
}

backends="cpu"
if [ -n "$nvcc" ] && command -v "$nvcc" > /dev/null 2>&1; then backends="cuda cpu"
else echo "SKIP  contract cuda: no nvcc here"; fi
for src in tests/contract/attacks/*.cu tests/contract/honest/*.cu; do
  only=$(sed -n 's|^// backends: \([a-z ]*\).*|\1|p' "$src" | head -n1)
  for backend in $backends; do
    if [ -n "$only" ] && ! echo " $only " | grep -q " $backend "; then continue; fi
    judge "$backend" "$src"
  done
  if grep -q '^// build: race' "$src"; then judge race "$src"; fi
done
