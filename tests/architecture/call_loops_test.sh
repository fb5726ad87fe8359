#!/bin/sh
# make test-call-loops: the trusted programs' files call one another one way (call_loops.py),
# the checker's (the walk of a submission) and the grader's and jail's (the walk of the grader's
# configuration); and two planted cases: files that call each other must be refused, files that
# call one way accepted.
#   tests/architecture/call_loops_test.sh "CHECKER_OBJECTS" "GRADING_OBJECTS"   (make passes them:
#   exactly the objects the programs link, never an old one a moved source left in build/)
set -u
fail=0
# shellcheck disable=SC2086 # each argument is a list of paths
python3 tests/architecture/call_loops.py $1 || fail=1
# shellcheck disable=SC2086
python3 tests/architecture/call_loops.py $2 || fail=1
planted=$(mktemp -d)
trap 'rm -rf "$planted"' EXIT
printf 'int b(int);\nint a(int x) { return x ? b(x - 1) : 0; }\n' > "$planted/a.cpp"
printf 'int a(int);\nint b(int x) { return a(x); }\n' > "$planted/b.cpp"
printf 'int b(int x) { return x; }\n' > "$planted/b_alone.cpp"
for f in a b b_alone; do g++ -c "$planted/$f.cpp" -o "$planted/$f.o" || exit 1; done
if python3 tests/architecture/call_loops.py "$planted/a.o" "$planted/b.o" > "$planted/loop.txt"; then
  echo "FAIL  call loops: planted a.cpp <-> b.cpp not refused"; fail=1
elif grep -q "a.o calls b.o" "$planted/loop.txt" && grep -q "b.o calls a.o" "$planted/loop.txt"; then
  echo "PASS  call loops: planted a.cpp <-> b.cpp refused, both calls named"
else
  echo "FAIL  call loops: planted loop refused without naming both calls:"; cat "$planted/loop.txt"; fail=1
fi
if python3 tests/architecture/call_loops.py "$planted/a.o" "$planted/b_alone.o" > "$planted/one_way.txt"; then
  echo "PASS  call loops: planted a.cpp -> b.cpp (one way) accepted"
else
  echo "FAIL  call loops: planted one-way calls refused:"; cat "$planted/one_way.txt"; fail=1
fi
exit $fail
