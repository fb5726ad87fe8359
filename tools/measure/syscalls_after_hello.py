#!/usr/bin/env python3
"""Sums an `strace -f -o` log: the system calls of the processes running PROGRAM (and their
threads) made after each one's hello (its first sendmsg on the checker's socket, descriptor 3).
    tools/measure/syscalls_after_hello.py TRACE PROGRAM"""
import collections
import re
import sys

trace, program = sys.argv[1], sys.argv[2]
lines = open(trace, errors="replace").read().splitlines()
call = re.compile(r"(\d+)\s+(?:<\.\.\. )?(\w+)(?:\(| resumed)")
leader = {}  # pid -> the runner process it belongs to
for line in lines:
    m = re.match(r'(\d+)\s+execve\("([^"]*)"', line)
    if m and m.group(2).endswith(program):
        leader[m.group(1)] = m.group(1)
    m = re.match(r"(\d+)\s+(?:<\.\.\. )?clone3?(?:\(| resumed).*= (\d+)$", line)
    if m and m.group(1) in leader:
        leader[m.group(2)] = leader[m.group(1)]
said_hello = set()
counts, example = collections.Counter(), {}
for line in lines:
    m = call.match(line)
    if not m or m.group(1) not in leader:
        continue
    pid, name = m.groups()
    runner = leader[pid]
    if runner not in said_hello:
        if name == "sendmsg" and "sendmsg(3," in line:
            said_hello.add(runner)
        continue
    counts[name] += 1
    example.setdefault(name, line[:160])
for name, n in counts.most_common():
    print(f"{n:8d}  {name:20s} {example[name]}")
