"""tests/fixtures: each planted bug's runner (built by make: fixtures-BACKEND) through its lab's checker."""

import threading
import time

from .common import Item, checker_outcome, headers_in, lab_of, name_of


class GraderLimit:
    """The per-check limit the grader sets from the reference's own run: 10 s plus 3 times its length
    (grading/grader/grader.cpp), measured once per lab and shared by the fixtures that ask for it."""

    def __init__(self, build):
        self.build, self.limits, self.lock = build, {}, threading.Lock()

    def seconds(self, lab):
        with self.lock:
            if lab not in self.limits:
                start = time.monotonic()
                checker_outcome(lab, self.build, ["--runner", f"{self.build}/solutions/lab{lab}-runner", "--no-timing",
                                                  "--seed", str(1000 + lab)], f"{self.build}/planted/reference{lab}.json")
                self.limits[lab] = int(10 + 3 * (time.monotonic() - start) + 0.5)
            return self.limits[lab]


def fixture_items(backend, build):
    limit = GraderLimit(build)
    items = []
    for h in headers_in("tests/fixtures"):
        if not h.runs_on(backend):
            continue

        def run(h=h):
            lab, name = lab_of(h.path), name_of(h.path)
            args = ["--runner", f"{build}/fixtures/{name}", "--seed", str(1000 + lab), *h.one("args", "").split()]
            if not h.has("expect-timing"):
                args.append("--no-timing")
            if h.one("check-limit") == "grader":
                args += ["--check-timeout", str(limit.seconds(lab))]
            return checker_outcome(lab, build, args, f"{build}/planted/fixtures/{name}.json")
        items.append(Item(f"fixture {backend} {name_of(h.path)}", h, run, backend))
    return items
