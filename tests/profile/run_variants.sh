#!/bin/sh
# make test-profile: each known-slow variant in tests/profile/ profiled against its lab's
# reference solution on the CPU backend must get a first sentence containing its "// expect-first:"
# words, and each reference solution profiled against itself must get "nothing stands out".
# Prints a table (variant, first sentence) and PASS/FAIL lines; exit status 1 when one failed.
# Usage: tests/profile/run_variants.sh [BUILD_DIR]   (build/cpu; runners built by make test-profile)
build=${1:-build/cpu}
fail=0
# The first sentence of the profile section of a checker run (its lines after the first are
# indented two spaces further). Only the checks of one element run
# (--largest 1): the profile needs a correct call, not the whole suite.
first_sentence() {  # LAB RUNNER REFERENCE
  "$build/check/lab$1" --runner "$2" --largest 1 --no-timing --profile-runner "$2" --profile-reference "$3" 2>&1 |
    awk '/why it is slow \(PROFILE=1/ { on = 1; next }
         on && /^    [^ ]/ { if (got) exit; got = 1; s = substr($0, 5); next }
         on && got && /^      / { sub(/^ +/, ""); s = s " " $0; next }
         on && got { exit }
         END { print s }'
}
judge() {  # NAME EXPECTED SENTENCE
  printf '%-30s %s\n' "$1" "$3"
  case "$3" in
    *"$2"*) echo "PASS profile $1: \"$2\"" ;;
    *) echo "FAIL profile $1: wanted \"$2\" in the first sentence"; fail=1 ;;
  esac
}
for src in tests/profile/lab*_*.cu; do
  name=$(basename "$src" .cu)
  lab=$(echo "$name" | sed 's/^lab\([0-9]*\)_.*/\1/')
  want=$(sed -n 's|^// expect-first: *||p' "$src")
  judge "$name" "$want" "$(first_sentence "$lab" "$build/profile/variants/$name" "$build/profile/solutions/lab$lab-runner")"
done
for lab in $(ls tests/profile/lab*_*.cu | sed 's|.*/lab\([0-9]*\)_.*|\1|' | sort -u); do
  ref=$build/profile/solutions/lab$lab-runner
  judge "solution $lab (reference)" "nothing stands out" "$(first_sentence "$lab" "$ref" "$ref")"
done
exit $fail
