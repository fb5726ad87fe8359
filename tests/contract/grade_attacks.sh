#!/usr/bin/env bash
# Attacks and honest files graded as a class, as root, the way an instructor grades: each attack
# (tests/contract/attacks: the link contract's; tests/boundary/attacks: stopped at run time) must
# get 0 points and feedback that says why (a rule broken, or its checks failed); each honest file
# (tests/contract/honest) and a copy of the reference solution must get every point; an attack the
# operating system leaves with nothing (its header says "// expect-exit: 0": every check passes
# once its attempt is refused) is graded as the honest code it then is: every check passed.
#   tests/contract/grade_attacks.sh GRADER BACKEND [names...]   (default: every contract attack)
# Prints one PASS/FAIL line per student.
set -u
grader=$1
backend=$2
shift 2
work=$(mktemp -d /tmp/cudalab-attack-class.XXXXXX)
trap 'rm -rf "$work"' EXIT
chmod 755 "$work"
class=$work/class
mkdir -p "$class/reference"
cp solutions/lab3_multilevel_sum.cu "$class/reference/lab3_multilevel_sum.cu"
names=("$@")
if [ ${#names[@]} -eq 0 ]; then
  for f in tests/contract/attacks/lab3_*.cu; do names+=("$(basename "$f" .cu)"); done
fi
source_of() {  # name -> its file
  for dir in tests/contract/attacks tests/boundary/attacks tests/contract/honest; do
    [ -f "$dir/$1.cu" ] && { echo "$dir/$1.cu"; return; }
  done
}
honest=" "
left_nothing=" "  # attacks the OS left with nothing to work with ("// expect-exit: 0"): they run as honest code
header() { python3 tests/planted/header.py "$1" "$2" || exit 2; }  # the planted files' one reader
for name in "${names[@]}"; do
  src=$(source_of "$name")
  case $src in */honest/*) honest="$honest$name ";; esac
  case $src in */attacks/*) [ "$(header "$src" expect-exit)" = 0 ] && left_nothing="$left_nothing$name ";; esac
  only=$(header "$src" backends | sed 's/(.*//')
  if [ -n "$only" ] && ! echo " $only " | grep -q " $backend "; then continue; fi
  mkdir -p "$class/$name" && cp "$src" "$class/$name/lab3_multilevel_sum.cu"
done
"$grader" --lab 3 --submissions "$class" --grades "$work/grades" --backend "$backend" --no-report \
  > "$work/grader.log" 2>&1
rc=$?
book=$work/grades/lab3/gradebook.csv
if [ ! -f "$book" ]; then
  echo "FAIL  attack class ($backend): the grader wrote no gradebook (exit $rc):"; tail -20 "$work/grader.log"; exit 0
fi
# gradebook.csv: student,total,maximum,verdict,...
while IFS=, read -r student total maximum verdict rest; do
  [ "$student" = student ] && continue
  feedback=$work/grades/lab3/students/$student/feedback.md
  if [ "$student" = reference ] || [[ "$honest" == *" $student "* ]]; then
    if [ "$total" = "$maximum" ]; then echo "PASS  attack class ($backend): $student (honest) gets $total/$maximum"
    else echo "FAIL  attack class ($backend): $student (honest) gets $total/$maximum ($verdict)"; head -c 1500 "$feedback" 2>/dev/null | sed 's/^/        /'; fi
  elif [[ "$left_nothing" == *" $student "* ]]; then
    # Its attempt refused with nothing to show for it, so its honest part is graded: every check
    # passes (its speed is its own: a one-thread kernel earns no speed points).
    if [ "$verdict" = graded ] && grep -q "Every check passed" "$feedback" 2>/dev/null; then
      echo "PASS  attack class ($backend): $student gets $total/$maximum, its attempt refused and its honest part graded"
    else echo "FAIL  attack class ($backend): $student gets $total/$maximum ($verdict): expected graded, every check passed"; fi
  elif [ "$total" = 0 ] && [ "$verdict" = rejected ] && grep -qE "link contract|breaks a rule of the lab" "$feedback" 2>/dev/null; then
    # Refused by the link contract, before it by the grader's rules on the source text, or at run
    # time by the runner's system-call filter (rule system_call).
    echo "PASS  attack class ($backend): $student gets 0/$maximum ($verdict), told which rule it breaks"
  elif [ "$total" = 0 ] && [ "$verdict" = graded ] && grep -q "was refused and did not happen" "$feedback" 2>/dev/null; then
    echo "PASS  attack class ($backend): $student gets 0/$maximum, its copy to the host refused and said so"
  else
    echo "FAIL  attack class ($backend): $student gets $total/$maximum ($verdict); feedback:"
    head -c 1500 "$feedback" 2>/dev/null | sed 's/^/        /'
  fi
done < "$book"
