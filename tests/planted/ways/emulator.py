"""tests/emulator: programs run on the emulator in the build their header names (built by make
cpu-fixtures), and lab files that must not compile on the CPU backend."""

import os

from judge import Outcome
from .common import Item, headers_in, name_of, run_process


LAB_FLAGS = ["-std=c++20", "-pthread", "-DCUDALAB_BACKEND_CPU=1", "-Iharness/runner/emulator/include",
             "-Iharness/include"]


def emulator_items(build, scratch):
    items = []
    for h in headers_in("tests/emulator/fixtures"):
        def run(h=h):
            mode = h.build()
            program = f"{build}/tests/fixtures/{name_of(h.path)}" if mode == "plain" else \
                f"{build}/{mode}/tests/fixtures/{name_of(h.path)}"
            env = dict(os.environ)
            for pair in h.one("env", "").split():
                key, _, value = pair.partition("=")
                env[key] = value
            status, text, timed_out = run_process([program], 120, env=env)
            return Outcome(status, text, timed_out=timed_out)
        items.append(Item(f"emulator {h.build()} {name_of(h.path)}", h, run, "cpu"))
    for h in headers_in("tests/emulator/refused"):
        def run(h=h):
            # As `make labN BACKEND=cpu` compiles a lab file: the launch rewrite, then the lab-facing headers.
            generated = f"{scratch}/{name_of(h.path)}.cpp"
            status, text, _ = run_process(["perl", "harness/runner/emulator/rewrite.pl", h.path, generated, h.path], 60)
            if status == 0:
                status, text, _ = run_process(["g++", *LAB_FLAGS, f'-DCUDALAB_SOURCE_FILE="{h.path}"', "-fsyntax-only",
                                               generated], 120)
            return Outcome(status, text)
        items.append(Item(f"emulator refused {name_of(h.path)}", h, run, "cpu"))
    return items
