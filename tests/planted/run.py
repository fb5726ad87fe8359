#!/usr/bin/env python3
"""The one runner of planted files: each file run the way its folder is run (ways/), its outcome
held against its header (header.py, judge.py), one PASS or FAIL line per run.

    tests/planted/run.py fixtures --backend cpu|cuda [--build build/cpu] [-j N]
    tests/planted/run.py emulator [--build build/cpu]
    tests/planted/run.py contract --tool build/contract/cudalab-contract [--nvcc nvcc]
    tests/planted/run.py boundary --backend cpu|cuda [--largest N]
    tests/planted/run.py profile [--build build/cpu]
    tests/planted/run.py class --students tests/grading/fixtures/lab1 --grades DIR   (a class graded)

Run from the repository's root, after make has built what the folder's runs need (the make target
of each folder does: test-labs, test-cpu, test-contract, test-boundary, test-profile). Exits 1
when a run failed, 2 when a header cannot be read (the message says where and why).
"""

import argparse
import concurrent.futures
import os
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from header import HeaderError  # noqa: E402
from judge import Outcome, judge  # noqa: E402
import ways  # noqa: E402


def items_for(args, scratch):
    build = args.build or f"build/{args.backend}"
    if args.folder == "fixtures":
        return ways.fixture_items(args.backend, build)
    if args.folder == "emulator":
        return ways.emulator_items(args.build or "build/cpu", scratch)
    if args.folder == "contract":
        nvcc = args.nvcc if args.nvcc and shutil.which(args.nvcc) else None
        if not nvcc:
            print("SKIP  contract cuda: no nvcc here")
        return ways.contract_items(args.tool, nvcc, "build/tests/planted/contract")
    if args.folder == "boundary":
        return ways.boundary_items(args.backend, build, f"build/tests/planted/boundary/{args.backend}", args.largest)
    if args.folder == "class":
        return ways.class_items(args.grades, args.students)
    return ways.profile_items(args.build or "build/cpu")


def report(item, outcome, problems):
    if not problems:
        print(f"PASS  {item.label}" + (f": {outcome.shown}" if outcome.shown else ""), flush=True)
        return True
    print(f"FAIL  {item.label} ({item.header.path}): " + "; ".join(problems))
    for line in (outcome.log or outcome.text).splitlines()[:40]:
        print(f"      | {line}")
    sys.stdout.flush()
    return False


def guarded(step):
    """A step's Outcome, or one that names the runner's own failure: a FAIL of that file, never a lost line."""
    try:
        return step()
    except Exception as e:
        return Outcome(-1, f"the planted-file runner failed on it: {type(e).__name__}: {e}")


def run_all(items, jobs, build_jobs):
    """Every item's build made (`build_jobs` side by side, the one marked alone first), then every
    item run and judged, `jobs` at a time; the lines printed in the items' order."""
    built = {}
    for item in items:
        if item.build and item.alone_first:
            built[id(item)] = guarded(item.build)
    rest = [i for i in items if i.build and not i.alone_first]
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, build_jobs)) as pool:
        for item, failed in zip(rest, pool.map(lambda i: guarded(i.build), rest)):
            built[id(item)] = failed

    def one(item):
        failed = built.get(id(item))
        if failed is not None:
            return item, failed, [failed.text.splitlines()[0]]
        outcome = guarded(item.run)
        return item, outcome, judge(item.header, outcome, item.backend) if outcome.exit_status != -1 else [outcome.text]

    ok = True
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        for result in pool.map(one, items):
            ok &= report(*result)
    return ok


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folder", choices=["fixtures", "emulator", "contract", "boundary", "profile", "class"])
    parser.add_argument("--backend", choices=["cpu", "cuda"], default="cpu")
    parser.add_argument("--build", help="the build folder (default build/BACKEND)")
    parser.add_argument("-j", "--jobs", type=int,
                        help="runs side by side (default: one per core on the CPU backend, one on a GPU, where "
                             "runs side by side would share it and timed runs would time each other)")
    parser.add_argument("--tool", default="build/contract/cudalab-contract", help="the link contract's tool")
    parser.add_argument("--nvcc", help="nvcc, for the contract's GPU objects (skipped when absent)")
    parser.add_argument("--grades", help="class: the grades folder the grader wrote")
    parser.add_argument("--students", default="tests/grading/fixtures/lab1", help="class: the fixture class graded")
    parser.add_argument("--largest", type=int, default=5000000, help="the boundary's largest check on the CPU backend")
    args = parser.parse_args()
    scratch = tempfile.mkdtemp(prefix="cudalab-planted.")
    try:
        items = items_for(args, scratch)
        if not items:
            print(f"FAIL  {args.folder}: no planted files found (run from the repository's root)")
            return 1
        cores = os.cpu_count() or 1
        jobs = args.jobs or (1 if args.backend == "cuda" else cores)
        return 0 if run_all(items, jobs, build_jobs=cores) else 1
    except (HeaderError, ValueError, OSError) as e:  # a header, a name or a folder it cannot read
        print(f"FAIL  {args.folder}: {e}")
        return 2
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
