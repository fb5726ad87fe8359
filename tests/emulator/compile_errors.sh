#!/bin/sh
# A lab file that does not compile on the CPU backend is shown as nvcc would show it
# (harness/runner/emulator/nvcc_style.pl): named by its own path, never build/cpu/gen/...; g++'s guesses
# ("did you mean 'atomicAnd'?") left out; a launch's argument error placed on the launch line.
# Usage: tests/emulator/compile_errors.sh   (from the repository root; needs g++ and perl only)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
src=$tmp/lab7_typo.cu
# lab 7's solution with a typo of atomicAdd, and a launch that forgets an argument.
sed 's/atomicAdd(sum, v)/atomicAd(sum, v)/; s/(d_in, d_sum, n);/(d_in, n);/' solutions/lab7_atomic_sum.cu > "$src"
perl harness/runner/emulator/rewrite.pl "$src" "$tmp/gen.cpp" "$src"
out=$(perl harness/runner/emulator/nvcc_style.pl "$src" g++ -std=c++20 -DCUDALAB_BACKEND_CPU=1 -Iharness/runner/emulator/include \
        -Iharness/include -c "$tmp/gen.cpp" -o "$tmp/gen.o" 2>&1)
rc=$?
typo_line=$(grep -n 'atomicAd(sum' "$src" | cut -d: -f1)
launch_line=$(grep -n '(d_in, n);' "$src" | cut -d: -f1)
fail=0
expect() {  # expect WHAT GREP-ARGS...: one PASS or FAIL line
  what=$1; shift
  if printf '%s\n' "$out" | grep -q "$@"; then echo "PASS  compile errors: $what"; else echo "FAIL  compile errors: $what"; fail=1; fi
}
refuse() {
  what=$1; shift
  if printf '%s\n' "$out" | grep -q "$@"; then echo "FAIL  compile errors: $what"; fail=1; else echo "PASS  compile errors: $what"; fi
}
expect "the first line is nvcc's, at the typo" -x "$src($typo_line): error: identifier \"atomicAd\" is undefined"
expect "the launch's argument error is on the launch line" -F "$src($launch_line): error: too few arguments in function call"
expect "the count line closes it" -x "[0-9]* errors detected in the compilation of \"$src\"."
refuse "no guess from the emulator's names" -e 'did you mean'
refuse "no generated file named" -e 'gen\.cpp' -e '/gen/'
refuse "no emulator header named" -e 'harness/runner/emulator/include'
if [ $rc -eq 0 ]; then echo "FAIL  compile errors: g++'s failure is the exit status"; fail=1; else echo "PASS  compile errors: g++'s failure is the exit status"; fi
[ $fail -eq 0 ] || printf '%s\n' "--- what it printed:" "$out"
exit $fail
