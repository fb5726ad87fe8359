#!/usr/bin/env python3
"""Makes the mutants of one lab solution: one wrong version per match of each rule in
tools/mutants/rules.txt. Deterministic: the same solution and rules give the same mutants,
named rule-N (N counts that rule's matches from the top of the file, from 1).

  mutate.py SOLUTION.cu OUTDIR      writes OUTDIR/<rule>-<N>.cu and OUTDIR/index.tsv
  mutate.py --list SOLUTION.cu      prints the mutants' names, rules and lines
"""
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def read_rules(path=os.path.join(HERE, "rules.txt")):
    rules, rule = [], None
    for raw in open(path, encoding="utf-8"):
        line = raw.rstrip("\n")
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        if not line[0].isspace():
            name, kind = line.split()
            rule = {"name": name, "kind": kind}
            rules.append(rule)
            continue
        key, _, value = line.strip().partition(":")
        value = value.strip()
        # A value that must keep its spaces (" <= ") is written in double quotes.
        if len(value) >= 2 and value[0] == value[-1] == '"':
            value = value[1:-1]
        rule[key] = value
    for r in rules:
        r["regex"] = re.compile(r["find"], re.MULTILINE)
    return rules


def blank_comments(code):
    """The code with every comment replaced by spaces (newlines kept), so that no rule matches
    inside one and offsets stay those of the original."""
    out, i, n = [], 0, len(code)
    while i < n:
        if code.startswith("//", i):
            j = code.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif code.startswith("/*", i):
            j = code.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", code[i:j]))
            i = j
        elif code[i] == '"':
            j = i + 1
            while j < n and code[j] != '"':
                j += 2 if code[j] == "\\" else 1
            out.append(code[i:j + 1])
            i = j + 1
        else:
            out.append(code[i])
            i += 1
    return "".join(out)


def mutants(code, rules):
    """(name, rule, line, mutated code) for every match of every rule, in a fixed order."""
    plain = blank_comments(code)
    for rule in rules:
        for k, m in enumerate(rule["regex"].finditer(plain), start=1):
            # Replace on the comment-free text, splice into the original: a match that spans a
            # comment drops that comment's text, never leaves half of it as code.
            new = m.expand(rule["replace"])
            if new == m.group(0):
                continue
            line = code.count("\n", 0, m.start()) + 1
            yield f"{rule['name']}-{k}", rule, line, code[:m.start()] + new + code[m.end():]


def main(argv):
    if len(argv) == 3 and argv[1] == "--list":
        for name, rule, line, _ in mutants(open(argv[2], encoding="utf-8").read(), read_rules()):
            print(f"{name}\t{rule['kind']}\tline {line}\t{rule['what']}")
        return 0
    if len(argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    source, outdir = argv[1], argv[2]
    code = open(source, encoding="utf-8").read()
    os.makedirs(outdir, exist_ok=True)
    with open(os.path.join(outdir, "index.tsv"), "w", encoding="utf-8") as index:
        for name, rule, line, text in mutants(code, read_rules()):
            path = os.path.join(outdir, name + ".cu")
            # Rewritten only when it changed, so that make does not rebuild what is the same.
            old = open(path, encoding="utf-8").read() if os.path.exists(path) else None
            if old != text:
                with open(path, "w", encoding="utf-8") as f:
                    f.write(text)
            index.write(f"{name}\t{rule['kind']}\t{line}\t{rule['what']}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
