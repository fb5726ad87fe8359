"""How each folder of planted files is run: one function per folder, each giving an Outcome.

    fixtures  tests/fixtures: a lab file's runner (built by make) through its lab's checker
    emulator  tests/emulator/fixtures: a program on the emulator, in the build its header names;
              tests/emulator/refused: a lab file that must not compile on the CPU backend
    contract  tests/contract/{attacks,honest}: the link contract judging the file's object, on each
              backend (nvcc's host object, the CPU backend's, and the race build's when asked)
    boundary  tests/boundary/attacks and tests/contract/honest: the runner built as a
              student's is and run through the checker, where the operating system holds the line
    profile   tests/profile: PROFILE=1 beside the lab's reference; the output judged is the first
              sentence of the diagnosis

Every function here only runs things and collects what they said; judging is judge.py's.
"""

import dataclasses
import glob
import json
import os
import re
import signal
import subprocess
import threading

from header import read_header, Header
from judge import Outcome, report_words

# The keys each folder judges (a key outside its folder's set is refused: it would assert nothing).
CHECKER_KEYS = {"expect-exit", "expect-message", "expect-message-backends", "expect-cause", "expect-absent", "backends"}
FOLDER_KEYS = {
    "tests/fixtures": CHECKER_KEYS | {"expect-not-run", "expect-timing", "expect-absent-visible", "build", "args",
                                      "check-limit"},
    "tests/emulator/fixtures": {"expect-exit", "expect-match", "expect-no-match", "build", "env"},
    "tests/emulator/refused": {"expect-exit", "expect-match"},
    # read by both the contract's run and the boundary's
    "tests/contract/attacks": {"expect-exit", "expect-cause", "expect-message", "backends", "build"},
    "tests/contract/honest": {"expect-exit", "backends", "build", "boundary"},
    "tests/boundary/attacks": CHECKER_KEYS | {"expect-passed"},
    "tests/profile": {"expect-message"},
}


@dataclasses.dataclass
class Item:
    """One run to judge: a planted file on one backend (or a reference the profile must find quiet)."""
    label: str  # "contract cpu lab3_dlsym_copy"
    header: Header
    run: object  # () -> Outcome
    backend: str
    build: object = None  # () -> None, or the Outcome of a failed build: made before any run, side by side
    alone_first: bool = False  # built before the others start (it builds what they all share)


def headers_in(folder):
    # The profile's verdict is its words; everywhere else the exit status is stated first.
    required = ["expect-message"] if folder == "tests/profile" else ["expect-exit"]
    return [read_header(path, FOLDER_KEYS[folder], required) for path in sorted(glob.glob(f"{folder}/*.cu"))]


def name_of(path):
    return os.path.basename(path)[:-3]


def lab_of(path):
    m = re.match(r"lab(\d+)_", name_of(path))
    if not m:
        raise ValueError(f"{path}: a planted lab file's name starts with labN_ (the lab it is for)")
    return int(m.group(1))


def run_process(argv, timeout, env=None):
    """(exit status, stdout and stderr together, timed out). A run past `timeout` is stopped with
    everything it started (its own process group): a checker's runners must not outlive it."""
    with subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env,
                          start_new_session=True) as p:
        try:
            out, _ = p.communicate(timeout=timeout)
            timed_out = False
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            out, _ = p.communicate()
            timed_out = True
    status = 124 if timed_out else (p.returncode if p.returncode >= 0 else 128 - p.returncode)
    return status, out.decode("utf-8", "replace"), timed_out


def checker_outcome(lab, build, args, json_path, timeout=300):
    """Lab `lab`'s checker run with `args`; its report read back."""
    os.makedirs(os.path.dirname(json_path), exist_ok=True)
    if os.path.exists(json_path):
        os.remove(json_path)
    status, printed, timed_out = run_process([f"{build}/check/lab{lab}", *args, "--json", json_path], timeout)
    report, text = None, ""
    try:
        with open(json_path) as f:
            text = f.read()
        report = json.loads(text)
    except (OSError, ValueError):
        pass
    words = report_words(report) if isinstance(report, dict) else printed
    causes = {c.get("cause", "") for c in report.get("checks", [])} if isinstance(report, dict) else set()
    return Outcome(status, words, report, text, causes - {""}, timed_out, log=printed)


# ---- tests/fixtures ------------------------------------------------------------------------------

class GraderLimit:
    """The per-check limit the grader sets from the reference's own run: 10 s plus 3 times its length
    (grading/grader/grader.cpp), measured once per lab and shared by the fixtures that ask for it."""

    def __init__(self, build):
        self.build, self.limits, self.lock = build, {}, threading.Lock()

    def seconds(self, lab):
        import time
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


# ---- tests/emulator ------------------------------------------------------------------------------

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


# ---- tests/contract ------------------------------------------------------------------------------

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


# ---- tests/boundary ------------------------------------------------------------------------------

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


# ---- tests/profile -------------------------------------------------------------------------------

def profile_items(build):
    headers = headers_in("tests/profile")
    items = []
    for h in headers:
        lab = lab_of(h.path)
        items.append(Item(f"profile {name_of(h.path)}", h,
                          lambda h=h, lab=lab: profile_outcome(build, lab, f"{build}/profile/variants/{name_of(h.path)}"),
                          "cpu"))
    for lab in sorted({lab_of(h.path) for h in headers}):
        quiet = Header(f"solution {lab} (the reference)", {"expect-message": ["nothing stands out"]})
        items.append(Item(f"profile solution {lab} (reference)", quiet,
                          lambda lab=lab: profile_outcome(build, lab, f"{build}/profile/solutions/lab{lab}-runner"), "cpu"))
    return items


def profile_outcome(build, lab, runner):
    """The first sentence of the profile section (its later lines are indented two spaces further).
    Only the checks of one element run: the profile needs a correct call, not the whole suite."""
    reference = f"{build}/profile/solutions/lab{lab}-runner"
    status, text, timed_out = run_process([f"{build}/check/lab{lab}", "--runner", runner, "--largest", "1", "--no-timing",
                                           "--profile-runner", runner, "--profile-reference", reference], 300)
    sentence = first_profile_sentence(text)
    return Outcome(status, sentence, timed_out=timed_out, shown=f'"{sentence}"', log=text)


def first_profile_sentence(text):
    lines, sentence, on = text.splitlines(), None, False
    for line in lines:
        if "why it is slow (PROFILE=1" in line:
            on = True
        elif on and sentence is None and re.match(r"^    [^ ]", line):
            sentence = line[4:]
        elif on and sentence is not None and line.startswith("      "):
            sentence += " " + line.strip()
        elif on and sentence is not None:
            break
    return sentence or ""
