#!/usr/bin/env python3
"""make test's share of the mutation audit: a fixed few mutants per lab (ci_sample.txt), each
made from today's solution by today's rules and judged by the one check that must kill it (the
audit found it so). A sampled mutant that survives, or that the rules no longer make, fails.
Prints a PASS or FAIL line per mutant (tools/test/test_summary.sh counts them).

  ci_sample.py [SAMPLE_FILE]
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import judge  # noqa: E402
import mutate  # noqa: E402
from audit import solution_of  # noqa: E402


def main(argv):
    sample = argv[1] if len(argv) > 1 else os.path.join(HERE, "ci_sample.txt")
    rules = mutate.read_rules()
    made = {}  # lab -> {name: (rule, code)}
    failed = 0
    for line in open(sample, encoding="utf-8"):
        if not line.strip() or line.startswith("#"):
            continue
        which, name, check = line.split()
        lab = int(which[3:])
        if lab not in made:
            code = open(solution_of(lab), encoding="utf-8").read()
            made[lab] = {n: (r, text) for n, r, _, text in mutate.mutants(code, rules)}
        label = f"mutant lab{lab} {name}"
        if name not in made[lab]:
            print(f"FAIL  {label}: the rules no longer make it from {solution_of(lab)} (update {sample})")
            failed += 1
            continue
        rule, text = made[lab][name]
        outdir = f"build/mutants/lab{lab}/sample"
        os.makedirs(outdir, exist_ok=True)
        path = os.path.join(outdir, name + ".cu")
        if not os.path.exists(path) or open(path, encoding="utf-8").read() != text:
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)
        verdict, killer, detail = judge.judge(lab, path, outdir, only=check)
        if verdict == "killed" and killer == check:
            print(f"PASS  {label} ({rule['what']}) is killed by {check}")
        else:
            print(f"FAIL  {label} ({rule['what']}): expected {check} to kill it, got {verdict} {killer} {detail}")
            failed += 1
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
