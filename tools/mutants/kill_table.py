#!/usr/bin/env python3
"""The kill table of a lab from the audit's saved verdicts (audit.py --tsv): a full run, then
optionally a later run of some of its mutants (--only) whose verdicts replace the first's, with
equivalent.txt applied as it reads now. For the before/after tables of docs/mutation_audit.md.

  kill_table.py LAB FULL.tsv [LATER.tsv]
"""
import collections
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from audit import read_equivalents  # noqa: E402


def read(path):
    rows = collections.OrderedDict()
    for line in open(path, encoding="utf-8"):
        name, kind, line_no, verdict, check, detail = (line.rstrip("\n").split("\t") + [""] * 6)[:6]
        rows[name] = [kind, line_no, verdict, check, detail]
    return rows


def main(argv):
    if len(argv) not in (3, 4):
        print(__doc__, file=sys.stderr)
        return 2
    lab = int(argv[1])
    rows = read(argv[2])
    if len(argv) == 4:
        rows.update(read(argv[3]))
    equivalent = read_equivalents(lab)
    counts = collections.Counter()
    survivors = []
    for name, (kind, _, verdict, check, _) in rows.items():
        if name in equivalent and verdict in ("survived", "equivalent"):
            verdict = "equivalent"
        elif verdict == "equivalent":
            verdict = "survived"  # listed then, no longer
        elif verdict == "REFUSED-HONEST" and name not in equivalent:
            verdict = "killed"  # listed then, and found wrong since: a kill
        counts[verdict] += 1
        if verdict == "survived":
            survivors.append(f"{name} ({kind})")
    scored = counts["killed"] + counts["survived"]
    rate = 100 * counts["killed"] / scored if scored else 100.0
    refused = f" ({counts['REFUSED-HONEST']} equivalent but refused)" if counts["REFUSED-HONEST"] else ""
    print(f"| {lab} | {len(rows)} | {counts['stillborn']} | {counts['equivalent']} | {counts['killed']} | "
          f"{counts['survived']}{refused} | {rate:.1f}% | {', '.join(survivors) or '-'} |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
