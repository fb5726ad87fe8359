#!/bin/sh
# The closing line of `make test`, over every part: doctest's test cases (each "[doctest] test
# cases:" line) plus the PASS/FAIL/SKIP lines of the scripts (fixtures, the nvcc compile).
#   tools/test/test_summary.sh LOG MAKE_STATUS [NAME]   (NAME: the closing line's first words, "make test")
# Exits 0 when nothing failed and the parts' make succeeded.
log=$1
status=${2:-0}
name=${3:-make test}
awk -v status="$status" -v name="$name" '
  /^\[doctest\] test cases:/ {
    for (i = 1; i <= NF; i++) {
      if ($(i) == "passed") p += $(i - 1)
      if ($(i) == "failed") f += $(i - 1)
      if ($(i) == "skipped") s += $(i - 1)
    }
  }
  /^PASS  / { p++ }
  /^FAIL  / { f++ }
  /^SKIP  / { s++ }
  /^make(\[[0-9]+\])?: \*\*\* / { errors++ }
  END {
    line = p " passed, " f " failed"
    if (s) line = line ", " s " skipped"
    # A part that failed without a test saying so: a build step (its error is above).
    if (status != 0 && f == 0) { line = line ", and a build step failed (see the error above)" }
    print ""
    print name ": " line
    exit (f > 0 || status != 0) ? 1 : 0
  }' "$log"
