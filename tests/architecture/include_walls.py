#!/usr/bin/env python3
"""The include walls: no #include of harness/ or grading/ crosses a wall its folder's README does
not open.

Each top folder's README.md ends with a "Walls" table, `| files | may include |`, of globs from the
checkout's root (`*` one path segment, `**` any number). Every source file under harness/ and
grading/ takes the most specific row whose `files` glob matches it (a file no row covers is an
error: a new folder needs its README first). Each #include of it is resolved as the compiler
would: a quoted one from the file's own folder first, then from the include roots the makefiles
give (harness/, harness/include/, grading/); an angle include only from those roots (so
<cuda_runtime.h> stays the toolkit's, or the emulator's, and is not judged). An include that lands
in the checkout must match one of the row's `may include` globs; a quoted one that lands nowhere
is an error too (it would hide a crossing).

One way: the sub-folders of each folder in ONE_WAY (the checker's layers, harness/checker/README.md)
include one another one way. A cycle between them (two that include each other, or a longer loop)
is refused whatever the Walls tables open: one line per include that closes it, naming the loop.

Usage: include_walls.py [ROOT]   (ROOT: the checkout, default the current folder)
Prints one line per crossing, `file:line: ...`, and exits 1 when there is any; else prints a
summary and exits 0.
"""
import os
import re
import sys

SOURCE = re.compile(r"\.(h|hpp|cuh|c|cc|cpp|cu)$")
INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]')
ROW = re.compile(r"^\|\s*`([^`]+)`\s*\|(.*)\|\s*$")
INCLUDE_ROOTS = ["harness", "harness/include", "grading"]
TREES = ["harness", "grading"]
# Folders whose sub-folders are layers: includes between them go one way (no cycle).
ONE_WAY = ["harness/checker"]


def glob_regex(glob):
    """`*` is one path segment, `**` any number of them (none included)."""
    out, i = "", 0
    while i < len(glob):
        if glob.startswith("/**", i):
            out += "(/.*)?"
            i += 3
        elif glob.startswith("**", i):
            out += ".*"
            i += 2
        elif glob[i] == "*":
            out += "[^/]*"
            i += 1
        else:
            out += re.escape(glob[i])
            i += 1
    return re.compile(out + "$")


def specificity(glob):
    return len(glob.replace("*", ""))


def read_walls(root):
    """Every Walls row of every README.md under the trees: (files glob, [allowed globs], readme)."""
    rows = []
    for tree in TREES:
        for folder, _, names in os.walk(os.path.join(root, tree)):
            if "README.md" not in names:
                continue
            readme = os.path.relpath(os.path.join(folder, "README.md"), root)
            in_walls = False
            for line in open(os.path.join(root, readme), encoding="utf-8"):
                if line.startswith("#"):
                    in_walls = line.strip().lower() == "## walls"
                    continue
                m = ROW.match(line) if in_walls else None
                if m:
                    allowed = re.findall(r"`([^`]+)`", m.group(2))
                    rows.append((m.group(1), glob_regex(m.group(1)), [glob_regex(a) for a in allowed], readme))
    return rows


def sources(root):
    for tree in TREES:
        for folder, _, names in os.walk(os.path.join(root, tree)):
            for name in sorted(names):
                if SOURCE.search(name):
                    yield os.path.relpath(os.path.join(folder, name), root)


def resolve(root, path, quote, target):
    """Where the compiler would find the include, relative to root; None outside the checkout."""
    folders = ([os.path.dirname(path)] if quote == '"' else []) + INCLUDE_ROOTS
    for folder in folders:
        candidate = os.path.normpath(os.path.join(folder, target))
        if not candidate.startswith("..") and os.path.isfile(os.path.join(root, candidate)):
            return candidate
    return None


def layer_of(parent, path):
    """The sub-folder of `parent` that holds `path` ("calls" for harness/checker/calls/x.h); None
    for a file outside it or directly in it."""
    if not path.startswith(parent + "/"):
        return None
    rest = path[len(parent) + 1:]
    return rest.split("/", 1)[0] if "/" in rest else None


def strongly_connected(graph):
    """Tarjan's components of {node: {neighbour: ...}}, each a sorted list."""
    index, low, stack, on_stack, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, {})):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            out.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def shortest_loop(graph, start, members):
    """The shortest path start -> ... -> start inside `members`, as a list of nodes."""
    paths, seen = [[start]], {start}
    while paths:
        path = paths.pop(0)
        for w in sorted(graph.get(path[-1], {})):
            if w == start:
                return path + [start]
            if w in members and w not in seen:
                seen.add(w)
                paths.append(path + [w])
    return [start]


def one_way_problems(resolved):
    """A line per include that closes a loop between the layers of a ONE_WAY folder. `resolved`:
    every include that landed in the checkout, as (file, line, found)."""
    problems = []
    for parent in ONE_WAY:
        graph = {}  # layer -> {layer it includes: the first include that does}
        for path, number, found in resolved:
            a, b = layer_of(parent, path), layer_of(parent, found)
            if a and b and a != b:
                graph.setdefault(a, {}).setdefault(b, (path, number, found))
        for component in strongly_connected(graph):
            if len(component) < 2:
                continue
            loop = shortest_loop(graph, component[0], set(component))
            said = " -> ".join(loop)
            for a, b in zip(loop, loop[1:]):
                path, number, found = graph[a][b]
                problems.append(f"{path}:{number}: includes {found}: the layers of {parent} include each other "
                                f"in a loop ({said}); includes go one way ({parent}/README.md)")
    return problems


def check(root):
    rows = read_walls(root)
    problems, files, includes, resolved = [], 0, 0, []
    for path in sources(root):
        files += 1
        matching = [r for r in rows if r[1].match(path)]
        if not matching:
            problems.append(f"{path}:1: no README's Walls table covers this file (add a row for its folder)")
            continue
        glob, _, allowed, readme = max(matching, key=lambda r: specificity(r[0]))
        with open(os.path.join(root, path), encoding="utf-8", errors="replace") as f:
            for number, line in enumerate(f, 1):
                m = INCLUDE.match(line)
                if not m:
                    continue
                quote, target = m.groups()
                found = resolve(root, path, quote, target)
                if found is None:
                    if quote == '"':
                        problems.append(f'{path}:{number}: #include "{target}" is found nowhere in the checkout')
                    continue
                includes += 1
                resolved.append((path, number, found))
                if not any(a.match(found) for a in allowed):
                    problems.append(f"{path}:{number}: includes {found}, which the walls of {glob} "
                                    f"({readme}) do not open")
    return problems + one_way_problems(resolved), files, includes


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else "."
    problems, files, includes = check(root)
    for p in problems:
        print(p)
    if problems:
        print(f"include walls: {len(problems)} crossing(s) in {files} files")
        return 1
    print(f"include walls: {includes} includes of {files} files under harness/ and grading/ stay within their walls, "
          f"the layers of {', '.join(ONE_WAY)} one way")
    return 0


if __name__ == "__main__":
    sys.exit(main())
