"""No two of the tree's files call each other, even round a longer loop (issue 32's walks).

A loop of calls between files (A calls into B, and B, or something B calls, calls back into A)
is the place where following the code sends a reader back into a file already left. Read from
compiled objects, so that only real calls count: an object's undefined symbols are its calls
into other files, matched with the file that defines each (nm's T, D, B and R symbols; an inline
function or a template, defined in a header and in every object that uses it, is the header's
own business and is left out).

usage: call_loops.py OBJECT... ; prints each loop and exits 1 when there is one, else one PASS
line naming what it read."""
import os
import subprocess
import sys

from include_walls import strongly_connected


def symbols(obj):
    out = subprocess.run(["nm", obj], capture_output=True, text=True, check=True).stdout
    defined, used = set(), set()
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1] in "TDBR":
            defined.add(parts[2])
        elif len(parts) == 2 and parts[0] == "U":
            used.add(parts[1])
    return defined, used


def call_graph(objects):
    owner, uses = {}, {}
    for obj in objects:
        defined, used = symbols(obj)
        uses[obj] = used
        for s in defined:
            owner[s] = obj
    return {o: {owner[s] for s in used if s in owner and owner[s] != o} for o, used in uses.items()}


def loops(graph):
    """The graph's strongly connected parts of two files or more (the include walls' own finder)."""
    return [part for part in strongly_connected(graph) if len(part) > 1]


def main(objects):
    if not objects:
        print("FAIL  call loops: no object files given (build first)")
        return 1
    graph = call_graph(objects)
    found = loops(graph)
    for part in found:
        inside = set(part)
        print(f"FAIL  call loop between {len(part)} files (a reader following the calls comes back to each):")
        for obj in part:
            print(f"    {obj} calls {', '.join(sorted(os.path.basename(o) for o in graph[obj] & inside))}")
    if found:
        return 1
    edges = sum(len(v) for v in graph.values())
    print(f"PASS  call loops: {len(objects)} objects, {edges} calls between files, none leading back")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
