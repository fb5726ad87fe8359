#!/usr/bin/env bash
# The boundary the operating system and the runner hold (docs/link_contract.md), tried with whole
# lab files: each attack in tests/boundary/attacks must be stopped at run time (the link contract
# sees nothing to refuse in them) with the cause and the words its "// expect: CAUSE words" line
# names, or, "// expect: pass (...)", left with nothing by the refusal and pass as honest code; each honest file (tests/boundary/honest, and the link contract's tests/contract/honest)
# must pass every check. Run on this machine's
# backend, the files' own runners built as a student's are (make lab-runner), through the checker.
#   tests/boundary/run_boundary_tests.sh [cpu|cuda]
# Prints one PASS/FAIL line per file; the reports go to build/tests/boundary/.
set -u
shopt -s nullglob
backend=${1:-cpu}
work=build/tests/boundary/$backend
mkdir -p "$work"
largest=${BOUNDARY_LARGEST:-5000000}  # the CPU backend's emulator: the small checks say it all
files=()
for src in tests/boundary/attacks/*.cu tests/boundary/honest/*.cu tests/contract/honest/*.cu; do
  only=$(sed -n 's|^// backends: \([a-z ]*\).*|\1|p' "$src" | head -n1)
  if [ -n "$only" ] && ! echo " $only " | grep -q " $backend "; then continue; fi
  grep -q '^// boundary: contract only' "$src" && continue  # an honest file that is no full solution
  files+=("$src")
done
# Every runner built first: the first alone (it builds what they all link), then the rest a few
# at a time (one compile each: make's own -j has nothing to share among them).
jobs=${BOUNDARY_JOBS:-$(nproc)}
first=1
for src in "${files[@]}"; do
  name=$(basename "$src" .cu)
  lab=$(echo "$name" | sed 's/^lab\([0-9]*\)_.*/\1/')
  rm -f "$work/$name"
  build=(make -s --no-print-directory BACKEND="$backend" lab-runner LAB="$lab" SRC="$src" OUT="$work/$name")
  if [ $first = 1 ]; then "${build[@]}" > "$work/$name.build.txt" 2>&1; first=0; continue; fi
  while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n; done
  "${build[@]}" -j1 > "$work/$name.build.txt" 2>&1 &
done
wait
for src in "${files[@]}"; do
  name=$(basename "$src" .cu)
  lab=$(echo "$name" | sed 's/^lab\([0-9]*\)_.*/\1/')
  runner=$work/$name
  if [ ! -x "$runner" ]; then
    echo "FAIL  boundary $backend $name: did not build:"; tail -5 "$work/$name.build.txt" | sed 's/^/        /'; continue
  fi
  args=(--no-timing --json "$work/$name.json" --runner "$runner" --source "$src")
  [ "$backend" = cpu ] && args+=(--largest "$largest")
  build/$backend/check/lab$lab "${args[@]}" > "$work/$name.txt" 2>&1
  expect=$(sed -n 's|^// expect: ||p' "$src" | head -n1)
  python3 - "$work/$name.json" "$name" "$backend" "$expect" <<'PY'
import json, sys
path, name, backend, expect = sys.argv[1:]
try:
    checks = json.load(open(path))["checks"]
except Exception as e:
    print(f"FAIL  boundary {backend} {name}: no report ({e})"); sys.exit()
ran = [c for c in checks if c["status"] not in ("skipped", "not_run")]
if not expect or expect.startswith("pass"):  # honest, or an attack the OS left nothing to (it runs as honest code)
    bad = [c for c in ran if c["status"] != "pass"]
    what = "honest" if not expect else "its attempt refused, " + expect[4:].strip(" ()")
    if ran and not bad: print(f"PASS  boundary {backend} {name}: {what}, {len(ran)} checks passed")
    else: print(f"FAIL  boundary {backend} {name}: honest code failed: " + "; ".join(f'{c["id"]}: {c["message"][:200]}' for c in bad[:3]))
    sys.exit()
cause, _, words = expect.partition(" ")
hit = [c for c in ran if c["cause"] == cause and words in c["message"] + " ".join(c.get("notes", []))]
passed = [c for c in ran if c["status"] == "pass"]
if hit and not passed: print(f"PASS  boundary {backend} {name}: stopped ({cause}: {hit[0]['message'][:120]})")
else: print(f"FAIL  boundary {backend} {name}: expected every check stopped with {cause} naming '{words}'; got " +
            "; ".join(f'{c["id"]}: {c["status"]} {c["cause"]} {c["message"][:160]}' for c in ran[:3]))
PY
done
