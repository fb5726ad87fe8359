#!/usr/bin/env bash
# The link contract's attackers graded as a class, as root, the way an instructor grades: each
# attack must get 0 points and feedback that names the broken rule; a copy of the reference
# solution in the same class must get every point (the contract refuses attackers, not students).
#   tests/contract/grade_attacks.sh GRADER BACKEND [attack names...]   (default: every attack)
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
for name in "${names[@]}"; do
  src=tests/contract/attacks/$name.cu
  only=$(sed -n 's|^// backends: \([a-z ]*\).*|\1|p' "$src" | head -n1)
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
  if [ "$student" = reference ]; then
    if [ "$total" = "$maximum" ]; then echo "PASS  attack class ($backend): the reference copy gets $total/$maximum"
    else echo "FAIL  attack class ($backend): the reference copy gets $total/$maximum ($verdict)"; fi
  elif [ "$total" = 0 ] && [ "$verdict" = rejected ] && grep -qE "link contract|breaks a rule of the lab" "$feedback" 2>/dev/null; then
    # Refused by the link contract, or before it by the grader's rules on the source text.
    echo "PASS  attack class ($backend): $student gets 0/$maximum ($verdict), told which rule it breaks"
  else
    echo "FAIL  attack class ($backend): $student gets $total/$maximum ($verdict); feedback:"
    head -c 1500 "$feedback" 2>/dev/null | sed 's/^/        /'
  fi
done < "$book"
