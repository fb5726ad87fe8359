#!/usr/bin/env python3
"""The mutation audit of one lab (make mutants LAB=N): every mutant of solutions/labN_*.cu
(mutate.py) judged by the lab's checks on the CPU backend (judge.py), two at a time, and the kill
table printed. Mutants listed in equivalent.txt are really correct: they are reported as such, and
one of them killed means a check refuses honest code.

  audit.py LAB [--jobs N] [--per-rule N] [--only NAME,...] [--tsv PATH] [--plain]

--per-rule N (default 3) judges at most N matches of each rule, spread evenly over the file
(the first, the last, and between): the CPU backend takes 10 to 40 s a mutant on 2 cores, and a
rule's 20th `<` in one file teaches little its first three did not. 0 judges every one.
--plain judges with the plain build alone, without the race detector's pass (judge.py).

Exit status: 0 when the lab kills at least 95% of its non-equivalent mutants and refuses no
equivalent one, 1 otherwise.
"""
import collections
import concurrent.futures
import glob
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import judge  # noqa: E402
import mutate  # noqa: E402

TARGET = 0.95


def read_equivalents(lab, path=os.path.join(HERE, "equivalent.txt")):
    """{mutant name: reason} for this lab, from lines "labN name reason"."""
    found = {}
    for line in open(path, encoding="utf-8"):
        if line.strip() and not line.startswith("#"):
            which, name, reason = line.split(None, 2)
            if which == f"lab{lab}":
                found[name] = reason.strip()
    return found


def spread(made, per_rule):
    """At most per_rule mutants of each rule, evenly spaced over its matches (all when 0)."""
    if per_rule <= 0:
        return made
    by_rule = collections.defaultdict(list)
    for m in made:
        by_rule[m[1]["name"]].append(m)
    keep = set()
    for group in by_rule.values():
        if len(group) <= per_rule:
            keep.update(m[0] for m in group)
        elif per_rule == 1:
            keep.add(group[0][0])
        else:
            keep.update(group[round(i * (len(group) - 1) / (per_rule - 1))][0] for i in range(per_rule))
    return [m for m in made if m[0] in keep]


def solution_of(lab):
    files = sorted(glob.glob(f"solutions/lab{lab}_*.cu"))
    if not files:
        sys.exit(f"no solutions/lab{lab}_*.cu")
    return files[0]


def main(argv):
    args = argv[1:]
    jobs, only, tsv, per_rule, race = os.cpu_count() or 2, None, None, 3, True
    while len(args) > 1:
        if args[1] == "--plain":
            race = False
            del args[1]
            continue
        if args[1] == "--jobs":
            jobs = int(args[2])
        elif args[1] == "--only":
            only = set(args[2].split(","))
        elif args[1] == "--per-rule":
            per_rule = int(args[2])
        elif args[1] == "--tsv":
            tsv = args[2]
        else:
            break
        del args[1:3]
    if len(args) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    lab = int(args[0])
    source = solution_of(lab)
    outdir = f"build/mutants/lab{lab}"
    os.makedirs(outdir, exist_ok=True)

    # The solution first: a check it fails is the checker's fault, and every kill would mean nothing.
    verdict, check, detail = judge.judge(lab, source, outdir, race=False)
    if verdict != "survived":
        print(f"lab {lab}: the reference solution itself is {verdict} ({check} {detail}): no audit")
        return 1

    code = open(source, encoding="utf-8").read()
    made = [m for m in spread(list(mutate.mutants(code, mutate.read_rules())), per_rule) if not only or m[0] in only]
    equivalent = read_equivalents(lab)
    paths = {}
    for name, _, _, text in made:
        paths[name] = os.path.join(outdir, name + ".cu")
        old = open(paths[name], encoding="utf-8").read() if os.path.exists(paths[name]) else None
        if old != text:
            with open(paths[name], "w", encoding="utf-8") as f:
                f.write(text)

    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        futures = {name: pool.submit(judge.judge, lab, paths[name], outdir, race=race) for name, *_ in made}
        results = {name: f.result() for name, f in futures.items()}

    rows, counts, by_kind = [], collections.Counter(), collections.defaultdict(collections.Counter)
    for name, rule, line, _ in made:
        verdict, check, detail = results[name]
        if name in equivalent:
            # A correct program: surviving is right; killed, a check refuses honest code.
            verdict, detail = ("equivalent", equivalent[name]) if verdict == "survived" else \
                              ("REFUSED-HONEST", f"listed equivalent ({equivalent[name]}) but {check}: {detail}")
        counts[verdict] += 1
        by_kind[rule["kind"]][verdict] += 1
        rows.append((name, rule["kind"], line, verdict, check, detail))

    print(f"lab {lab}: mutation audit of {source} (seed {judge.default_seed(lab)}, CPU backend)")
    print(f"  {'mutant':22} {'kind':8} {'line':>4}  {'verdict':10} {'check':26} detail")
    for name, kind, line, verdict, check, detail in rows:
        print(f"  {name:22} {kind:8} {line:>4}  {verdict:10} {check:26} {detail[:90]}")
    for name in sorted(set(equivalent) - set(results)):
        if not only:
            print(f"  note: equivalent.txt names lab{lab} {name}, which the rules no longer make")
    scored = counts["killed"] + counts["survived"]
    rate = counts["killed"] / scored if scored else 1.0
    print(f"  kinds: " + ", ".join(f"{k} {c['killed']}/{c['killed'] + c['survived']}" for k, c in sorted(by_kind.items())))
    print(f"lab {lab}: {len(made)} mutants: {counts['killed']} killed, {counts['survived']} survived, "
          f"{counts['equivalent']} equivalent, {counts['stillborn']} do not build"
          + (f", {counts['REFUSED-HONEST']} equivalent but refused" if counts["REFUSED-HONEST"] else "")
          + f"; kill rate {100 * rate:.1f}% of {scored}")
    if tsv:
        with open(tsv, "w", encoding="utf-8") as f:
            for row in rows:
                f.write("\t".join(map(str, row)) + "\n")
    return 0 if rate >= TARGET and not counts["REFUSED-HONEST"] else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
