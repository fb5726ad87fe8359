#!/usr/bin/env python3
"""Judges one lab file as make labN and the grader do on the CPU backend: builds its kernel runner
with the harness's own rule (make lab-runner LAB=N SRC=... OUT=...), then runs the lab's checker
on it with a fixed seed. The verdict is one of:

  killed     a check failed (the first one is named), or the run ended in a crash or a time limit
  survived   every check passed, and again in the race detector's build (the grader's emulator
             run: CHECK=race, blocks in order, its checks up to the rubric's emulator_largest)
  stillborn  the file does not build (a mutant that cannot compile is no test of the checks)

  judge.py LAB FILE.cu [--only CHECK] [--seed N]     prints: verdict<TAB>check<TAB>detail
"""
import json
import os
import pty
import re
import select
import signal
import subprocess
import sys
import time

# Why 1000 + lab: the seed the lab tests use (tests/integration/labs_test.cpp), so a survivor found
# here replays with make labN ARGS="--seed ..." and the same inputs.
def default_seed(lab):
    return 1000 + lab


def build(lab, source, runner, check=""):
    """The runner for `source`, or the build's last lines when it does not build."""
    cmd = ["make", "--no-print-directory", "-s", "BACKEND=cpu", f"CHECK={check}", "lab-runner",
           f"LAB={lab}", f"SRC={source}", f"OUT={runner}"]
    done = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                          env={**os.environ, "MAKEFLAGS": ""})
    return None if done.returncode == 0 else done.stdout.strip().splitlines()[-1:] or ["build failed"]


def kill_runners(runner):
    """Ends the kernel runners still running `runner` (by process id): the checker starts its
    runner in a session of its own, so killing the checker leaves a runner stuck in an endless
    loop spinning on a core for good."""
    target = os.path.realpath(runner)
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            if os.readlink(f"/proc/{pid}/exe") == target:
                os.kill(int(pid), signal.SIGKILL)
        except OSError:
            pass


def run_on_terminal(cmd, wall):
    """Runs cmd with a terminal as its output, its text read and dropped; its exit status, or
    None past `wall` seconds (its process group is then killed). On a terminal the checker leaves
    out the expensive checks once smaller ones have failed (run_checks.cpp, fail_fast): a mutant
    is killed or not all the same, and the audit takes minutes instead of most of an hour."""
    master, slave = pty.openpty()
    proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=slave, stderr=subprocess.DEVNULL,
                            start_new_session=True)
    os.close(slave)
    deadline = time.monotonic() + wall
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([master], [], [], 0.5)
            if ready:
                try:
                    if not os.read(master, 65536):
                        break
                except OSError:  # the terminal closed: the checker has ended
                    break
            elif proc.poll() is not None:
                break
        else:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
            kill_runners(cmd[cmd.index("--runner") + 1])
            return None
        return proc.wait()
    finally:
        os.close(master)


def first_failure(report):
    for check in report.get("checks", []):
        if check.get("status") not in ("pass", "skipped"):
            return check["id"], check.get("message", "")
    return None, ""


def emulator_largest(lab):
    """The largest check the grader's emulator run takes (grading/rubrics/labN.toml)."""
    try:
        text = open(f"grading/rubrics/lab{lab}.toml", encoding="utf-8").read()
    except OSError:
        return None
    found = re.search(r"^emulator_largest\s*=\s*(\d+)", text, re.MULTILINE)
    return int(found.group(1)) if found else None


def run_checks(lab, runner, only=None, seed=None, check_timeout=30, wall=90, extra=()):
    """(verdict, check, detail) of the lab's checker on `runner`."""
    report_path = runner + ".json"
    if os.path.exists(report_path):
        os.remove(report_path)
    cmd = [f"build/cpu/check/lab{lab}", "--runner", runner, "--no-timing",
           "--seed", str(seed or default_seed(lab)), "--json", report_path,
           "--check-timeout", str(check_timeout)]
    if only:
        cmd += ["--only", only]
    cmd += list(extra)
    status = run_on_terminal(cmd, wall)
    if status is None:
        # The checker's own per-check limit did not end it: the whole run is over the audit's.
        return "killed", "(time limit)", f"the checks ran past {wall} s"
    try:
        report = json.load(open(report_path, encoding="utf-8"))
    except (OSError, ValueError):
        return "killed", "(crash)", f"the checker ended with status {status} and no report"
    check, message = first_failure(report)
    if status == 0 and check is None:
        return "survived", "", ""
    return "killed", check or f"(exit {status})", message.splitlines()[0] if message else ""


def judge(lab, source, workdir, only=None, seed=None, race=True):
    runner = os.path.join(workdir, os.path.basename(source)[:-3] + "-runner")
    failed = build(lab, source, runner)
    if failed:
        return "stillborn", "", failed[0]
    verdict = run_checks(lab, runner, only, seed)
    if verdict[0] != "survived" or not race or only:
        return verdict
    # Passed every check: now as the grader's emulator run judges it, under the race detector
    # (a plain += where an atomic belongs loses nothing when a block's threads take turns).
    race_runner = runner[:-len("-runner")] + "-race-runner"
    if build(lab, source, race_runner, check="race"):
        return verdict
    largest = emulator_largest(lab)
    extra = ["--schedule", "in-order"] + (["--largest", str(largest)] if largest else [])
    verdict = run_checks(lab, race_runner, None, seed, extra=extra)
    return verdict if verdict[0] == "survived" else (verdict[0], verdict[1] + " (race build)", verdict[2])


if __name__ == "__main__":
    args = sys.argv[1:]
    opts = {}
    for key in ("--only", "--seed"):
        if key in args:
            at = args.index(key)
            opts[key[2:]] = args[at + 1]
            del args[at:at + 2]
    if len(args) != 2:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    lab, source = int(args[0]), args[1]
    workdir = f"build/mutants/lab{lab}/judged"  # never beside the file: it may be a solution
    os.makedirs(workdir, exist_ok=True)
    verdict = judge(lab, source, workdir, opts.get("only"),
                    int(opts["seed"]) if "seed" in opts else None)
    print("\t".join(verdict))
