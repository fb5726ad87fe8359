"""What every way of running a planted file shares: the keys each folder judges, the files'
headers, the item a runner schedules, a process run with a time limit, the checker's report."""

import dataclasses
import glob
import json
import os
import re
import signal
import subprocess

from header import read_header, Header
from judge import Outcome, report_words


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
# Students of a class the grader graded (tests/grading/end_to_end_test.cpp, isolation_class_test.cpp).
CLASS_FOLDERS = {"tests/grading/fixtures/lab1", "tests/grading/fixtures/lab1-isolation"}
CLASS_KEYS = {"expect-verdict", "expect-points", "expect-rule", "expect-check", "expect-cause", "expect-message",
              "expect-absent"}
FOLDER_KEYS.update({folder: CLASS_KEYS for folder in CLASS_FOLDERS})


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
    # The profile's verdict is its words, a graded student's the gradebook's; everywhere else the
    # exit status is stated first.
    required = ["expect-message"] if folder == "tests/profile" else \
        ["expect-verdict"] if folder in CLASS_FOLDERS else ["expect-exit"]
    files = glob.glob(f"{folder}/*.cu")
    if folder in CLASS_FOLDERS:  # a class's students are folders with their lab file inside, or flat files
        files += glob.glob(f"{folder}/*/*.cu")
    files.sort()
    return [read_header(path, FOLDER_KEYS[folder], required) for path in files]


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
    report, text = {}, ""
    try:
        with open(json_path) as f:
            text = f.read()
        report = json.loads(text)
    except (OSError, ValueError):
        pass  # judged as no report: the checker must always write one
    if not isinstance(report, dict) or "checks" not in report:
        return Outcome(status, printed, report={}, timed_out=timed_out)
    causes = {c.get("cause", "") for c in report["checks"]} - {""}
    return Outcome(status, report_words(report), report=report, report_text=text, causes=causes, timed_out=timed_out,
                   log=printed)
