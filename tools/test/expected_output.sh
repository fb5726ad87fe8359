#!/bin/sh
# Runs a test program whose stderr carries diagnostics the tests provoke on purpose (the CPU
# emulator's "threads wait at different __syncthreads()" and the like): they go to LOG, and one
# line says how many were expected and where they are. When the program fails, they are shown:
# then they may be the reason (a sanitizer's report is on stderr too).
#   tools/test/expected_output.sh LOG COMMAND [ARGS...]
log=$1; shift
mkdir -p "$(dirname "$log")"
"$@" 2>"$log"
rc=$?
n=$(grep -c '^cudalab:' "$log")
if [ $rc -eq 0 ]; then
  [ "$n" -gt 0 ] && echo "   expected: $n diagnostics provoked on purpose by these tests (in $log)"
else
  echo "   $* failed (exit status $rc); its stderr ($log):"
  sed 's/^/   | /' "$log"
fi
exit $rc
