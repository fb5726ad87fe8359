"""Walk measure over a call trace (tracer.c): how often following the code returns to a file left.
usage: walk.py BINARY TRACE REPO_ROOT [--show]"""
import subprocess, sys, os, collections
binary, trace, root = sys.argv[1:4]
show = '--show' in sys.argv
events = [(l[0], int(l[2:], 16)) for l in open(trace)]
addrs = sorted({a for _, a in events})
out = subprocess.run(['addr2line', '-f', '-C', '-e', binary] + ['%x' % a for a in addrs], capture_output=True, text=True).stdout.splitlines()
where = {}
for i, a in enumerate(addrs):
    fn, loc = out[2 * i], out[2 * i + 1]
    path = loc.rsplit(':', 1)[0]
    path = os.path.normpath(os.path.join(root, path)) if not os.path.isabs(path) else os.path.normpath(path)
    rel = os.path.relpath(path, root) if path.startswith(os.path.abspath(root)) else None
    # the tree's files; a build's generated or third-party file is not part of the walk
    # An implicitly defined constructor, destructor or assignment is nobody's code to read (its line
    # is the first place that used it), so it is no step of the walk.
    short = fn.split('(')[0]
    parts = short.split('::')
    special = len(parts) >= 2 and (parts[-1] == parts[-2] or parts[-1] == '~' + parts[-2] or parts[-1].startswith('operator='))
    if rel and not special and (rel.startswith('harness/') or rel.startswith('grading/')):
        where[a] = (fn, rel)
stack = []          # (addr) of every frame
ret_edges = collections.Counter()   # (caller fn, callee fn) pairs that return to a file left
ret_files = collections.Counter()
callbacks = collections.Counter()
seen_fn = set(); walk = []
for kind, a in events:
    if kind == 'E':
        if a in where:
            fn, f = where[a]
            files = []
            for b in stack:
                if b in where:
                    g = where[b][1]
                    if not files or files[-1] != g: files.append(g)
            # A lambda is the caller's own code passed down (read where it is written): a call
            # back into it is counted apart, not as a return.
            if files and f != files[-1] and f in files[:-1] and '{lambda(' in fn:
                callbacks[(files[-1], f)] += 1
            elif files and f != files[-1] and f in files[:-1]:
                caller = next(where[b][0] for b in reversed(stack) if b in where)
                if (caller, fn) not in ret_edges: ret_files[(files[-1], f)] += 1
                ret_edges[(caller, fn)] += 1
            if a not in seen_fn:
                seen_fn.add(a); walk.append(f)
        stack.append(a)
    else:
        # unwind to this frame (an exception may skip exits)
        while stack and stack[-1] != a: stack.pop()
        if stack: stack.pop()
bounces = 0; seq = []
for f in walk:
    if seq and seq[-1] == f: continue
    if f in seq: bounces += 1
    seq.append(f)
print(f'functions {len(seen_fn)}  files {len(set(walk))}  file changes {len(seq) - 1}')
print(f'returns down the stack into a file already left: {len(ret_edges)} call sites (caller->callee), {sum(ret_edges.values())} calls')
print(f'calls back into a lambda of a file up the stack (not counted): {sum(callbacks.values())}')
print(f'reading walk (each function once, in the order first run): {bounces} returns to a file already left')
if show:
    for (a, b), k in ret_files.most_common(): print('   ', a, '->', b, k)
    for (c, d), k in ret_edges.most_common(40): print('      ', c[:70], '->', d[:70], k)
