"""tests/boundary (and tests/contract/honest): each file's runner built as a student's is (make
lab-runner), then run through the checker, where the operating system holds the line."""

import os

from judge import Outcome
from .common import Item, checker_outcome, headers_in, lab_of, name_of, run_process


def boundary_items(backend, build, work, largest):
    os.makedirs(work, exist_ok=True)
    headers = headers_in("tests/boundary/attacks") + \
        [h for h in headers_in("tests/contract/honest") if not h.one("boundary", "").startswith("contract only")]
    items = []
    for h in headers:
        if not h.runs_on(backend):
            continue
        items.append(Item(f"boundary {backend} {name_of(h.path)}", h,
                          lambda h=h: boundary_outcome(h.path, build, work, largest if backend == "cpu" else None),
                          backend, build=lambda h=h: build_boundary_runner(h.path, backend, work), alone_first=not items))
    return items


def build_boundary_runner(path, backend, work):
    """The file's runner built as a student's is (make lab-runner); None, or the failed build's Outcome."""
    runner = f"{work}/{name_of(path)}"
    if os.path.exists(runner):
        os.remove(runner)
    status, text, _ = run_process(["make", "-s", "--no-print-directory", "-j1", f"BACKEND={backend}", "lab-runner",
                                   f"LAB={lab_of(path)}", f"SRC={path}", f"OUT={runner}"], 600)
    if status != 0 or not os.access(runner, os.X_OK):
        return Outcome(status or 1, "its runner did not build:\n" + text[-2000:], causes={"did_not_build"})
    return None


def boundary_outcome(path, build, work, largest):
    """The file's runner run through the checker, where the operating system holds the line."""
    lab, name = lab_of(path), name_of(path)
    runner = f"{work}/{name}"
    args = ["--no-timing", "--runner", runner, "--source", path]
    if largest:
        args += ["--largest", str(largest)]  # the emulator: the small checks say it all
    return checker_outcome(lab, build, args, f"{work}/{name}.json")
