"""One planted file's outcome held against its header: the list of what is wrong (empty: PASS).

The same keys mean the same thing in every folder. What differs is only what the folder ran
(tests/planted/ways/) and so what "the output" is: a program's or a compiler's text, the link
contract's refusal, or the checker's JSON report, whose checks are then judged as a whole.
"""

import dataclasses
import re


@dataclasses.dataclass
class Outcome:
    exit_status: int  # the process's status; 128 + N for a signal
    text: str = ""  # what it printed (for the checker: its report's words, see report_words)
    report: dict = None  # the checker's JSON report, when the folder runs the checker
    report_text: str = ""  # that report as written
    causes: set = dataclasses.field(default_factory=set)  # causes reported (checks', or the contract's rules)
    timed_out: bool = False
    shown: str = ""  # what the PASS line quotes (the profile's first sentence)
    log: str = ""  # what a FAIL line shows below it (default: text)
    grade: dict = None  # a graded student's: result.json's fields, with the gradebook's total and maximum


def report_words(report):
    """Every word a student could read about the checks: messages, notes, the runner's words, the timing note."""
    words = []
    for c in report.get("checks", []):
        words.append(c.get("message", ""))
        words.extend(c.get("notes", []))
        words.extend(c.get("runner_words", []))
    words.append((report.get("timing") or {}).get("note", ""))
    return "\n".join(words)


def judge(header, outcome, backend):
    problems = []
    if outcome.timed_out:
        return ["it ran past its time limit"]
    problems += _judge_exit(header, outcome)
    if outcome.report is not None:
        problems += _judge_checks(header, outcome.report)
    if outcome.grade is not None:
        problems += _judge_grade(header, outcome.grade)
    if header.words_asked_on(backend):
        for words in header.all("expect-message"):
            if words not in outcome.text:
                problems.append(f"nothing it printed holds '{words}'")
    problems += _judge_patterns(header, outcome.text)
    everything = outcome.report_text or outcome.text
    for words in header.all("expect-absent"):
        if words in everything:
            problems.append(f"its output holds '{words}', which it must not")
    cause = header.one("expect-cause")
    if cause and cause not in outcome.causes:
        problems.append(f"no cause '{cause}' reported (reported: {', '.join(sorted(outcome.causes)) or 'none'})")
    return problems


def _judge_exit(header, outcome):
    want = header.one("expect-exit")
    if want is None:
        return []
    got = outcome.exit_status
    if want == "nonzero":
        return [] if got != 0 else ["exit status 0, wanted non-zero"]
    return [] if got == int(want) else [f"exit status {got}, wanted {want}"]


def _judge_checks(header, report):
    """The checker's report as a whole: an honest file passes everything; a planted bug fails something."""
    if not isinstance(report, dict) or "checks" not in report:
        return ["the checker wrote no report"]
    problems = []
    checks = report["checks"]
    ran = [c for c in checks if c["status"] not in ("skipped", "not_run")]
    timing = header.one("expect-timing")
    if timing:  # a bug only the timed run shows: the checks pass, the timing refuses the time
        got = (report.get("timing") or {}).get("status")
        if got != timing:
            problems.append(f"timing status {got}, wanted {timing}")
    elif header.one("expect-exit") == "0":
        bad = [c for c in checks if c["status"] not in ("pass", "skipped")]
        if not ran:
            problems.append("no check ran")
        problems += [f"honest code failed {c['id']}: {c['status']} {c.get('message', '')[:200]}" for c in bad[:3]]
    elif not [c for c in checks if c["status"] != "pass" and c["status"] != "skipped"]:
        problems.append("every check passed")
    if header.one("expect-passed") == "none":
        passed = [c["id"] for c in ran if c["status"] == "pass"]
        if passed:
            problems.append(f"checks passed that must not: {', '.join(passed[:5])}")
    if header.one("expect-not-run") == "yes" and not any(c["status"] == "not_run" for c in checks):
        problems.append("no check was reported not run")
    hidden = _hidden_checks(header.one("args", ""))
    for words in header.all("expect-absent-visible"):
        for c in checks:
            if c["id"] not in hidden and words in c.get("message", "") + " ".join(c.get("notes", [])):
                problems.append(f"visible check {c['id']} says '{words}'")
    return problems


def _judge_grade(header, grade):
    """A student graded by the grader: the gradebook's verdict and points, the rule, each named check."""
    problems = []
    for key, field in (("expect-verdict", "verdict"), ("expect-rule", "rule")):
        want = header.one(key)
        if want and grade.get(field) != want:
            problems.append(f"{field} {grade.get(field) or 'none'}, wanted {want}")
    want = header.one("expect-points")
    if want:
        total, maximum = float(grade["total"]), float(grade["maximum"])
        fits = {"all": total == maximum and total > 0, "0": total == 0, "some": 0 < total < maximum}.get(want)
        if fits is None:  # all but N
            fits = total == maximum - float(want.split()[-1])
        if not fits:
            problems.append(f"{grade['total']} of {grade['maximum']} points, wanted {want}")
    statuses = {c["id"]: c["status"] for c in grade.get("checks", [])}
    for check in header.all("expect-check"):
        check_id, status = check.split()
        if statuses.get(check_id, "missing") != status:
            problems.append(f"check {check_id} {statuses.get(check_id, 'missing')}, wanted {status}")
    return problems


def _hidden_checks(args):
    """The ids after --hidden-checks in the checker's options."""
    m = re.search(r"--hidden-checks\s+(\S+)", args)
    return set(m.group(1).split(",")) if m else set()


def _judge_patterns(header, text):
    problems = []
    lines = text.splitlines()
    wanted = {}
    for pattern in header.all("expect-match"):
        wanted[pattern] = wanted.get(pattern, 0) + 1
    for pattern, count in wanted.items():
        got = sum(1 for line in lines if re.search(pattern, line))
        if got < count:
            problems.append(f"no match for /{pattern}/" + (f" ({got} lines, wanted {count})" if count > 1 else ""))
    for pattern in header.all("expect-no-match"):
        if any(re.search(pattern, line) for line in lines):
            problems.append(f"output matches /{pattern}/, which it must not")
    return problems
