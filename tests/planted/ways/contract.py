"""tests/contract: the link contract judging each file's object, on each backend: nvcc's host
object, the CPU backend's, and the race build's when the header names it."""

import os

from judge import Outcome
from .common import Item, headers_in, lab_of, name_of, run_process


CPU_FLAGS = ["-std=c++20", "-O1", "-pthread", "-w", "-DCUDALAB_BACKEND_CPU=1", "-Iharness/runner/emulator/include",
             "-Iharness/include"]
# The race detector's build, as mk/cpu.mk's CPU_LAB_race compiles a lab; the contract judges it --sanitized.
RACE_FLAGS = ["-O1", "-g", "-fsanitize=thread", "-Wno-tsan", "-U__SANITIZE_THREAD__", "-fsanitize=bounds"]
# PTX only: the host object is what the contract reads, and skipping SASS halves the compile.
NVCC_FLAGS = ["-std=c++20", "-O1", "-gencode", "arch=compute_80,code=compute_80", "-Iharness/include", "-w"]


def contract_items(tool, nvcc, work):
    os.makedirs(work, exist_ok=True)
    backends = ["cuda", "cpu"] if nvcc else ["cpu"]
    items = []
    for h in headers_in("tests/contract/attacks") + headers_in("tests/contract/honest"):
        builds = (["cuda"] if "cuda" in backends and h.runs_on("cuda") else []) + \
            ([b if b != "plain" else "cpu" for b in h.builds()] if h.runs_on("cpu") else [])
        for build in builds:
            items.append(Item(f"contract {build} {name_of(h.path)}", h,
                              lambda h=h, build=build: contract_outcome(tool, nvcc, h.path, build, work),
                              "cpu" if build == "race" else build))
    return items


def contract_outcome(tool, nvcc, path, build, work):
    lab, name = lab_of(path), name_of(path)
    obj = f"{work}/{build}-{name}.o"
    source = [f'-DCUDALAB_SOURCE_FILE="{path}"']
    if build == "cuda":
        status, text, _ = run_process([nvcc, *NVCC_FLAGS, *source, "-c", path, "-o", obj], 300)
    else:
        status, text, _ = run_process(["perl", "harness/runner/emulator/rewrite.pl", path, obj + ".cpp", path], 60)
        if status == 0:
            flags = CPU_FLAGS + (RACE_FLAGS if build == "race" else [])
            status, text, _ = run_process(["g++", *flags, *source, "-c", obj + ".cpp", "-o", obj], 300)
    if status != 0:
        return Outcome(status, "it did not compile:\n" + text, causes={"did_not_compile"})
    breaches = f"{work}/{build}-{name}.breaches"
    judged = ["--backend", "cpu", "--sanitized"] if build == "race" else ["--backend", build]
    status, text, _ = run_process([tool, "--lab", str(lab), *judged, "--header", f"harness/include/cudalab/lab{lab}.h",
                                   "--source", path, "--breaches", breaches, obj], 120)
    causes = set()
    if os.path.exists(breaches):
        with open(breaches) as f:
            causes = {line.split("\t")[0] for line in f if line.strip()}
    return Outcome(status, text, causes=causes)
