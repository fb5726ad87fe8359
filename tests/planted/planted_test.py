#!/usr/bin/env python3
"""The planted files' runner tested on itself: each key must fail a run that breaks it (a key that
cannot fail asserts nothing), and a header the format does not know must be refused.
    tests/planted/planted_test.py     (make test-planted; one PASS or FAIL line per case)
"""

import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from header import Header, HeaderError, read_header  # noqa: E402
from judge import Outcome, judge  # noqa: E402

failed = False


def case(name, ok):
    global failed
    print(("PASS  " if ok else "FAIL  ") + "planted runner: " + name)
    failed |= not ok


def header(**keys):
    return Header("planted.cu", {k.replace("_", "-"): v if isinstance(v, list) else [v] for k, v in keys.items()})


def check(status, cause="", message="", notes=(), id="one"):
    return {"id": id, "status": status, "cause": cause, "message": message, "notes": list(notes)}


def report_of(*checks, timing=None):
    return {"checks": list(checks), "timing": timing or {}}


def checker(exit_status, *checks, timing=None):
    from judge import report_words
    r = report_of(*checks, timing=timing)
    return Outcome(exit_status, report_words(r), report=r, report_text=str(r), causes={c["cause"] for c in checks} - {""})


def judged(h, outcome, backend="cpu"):
    return judge(h, outcome, backend)


# Each key: one run that keeps it (no problem) and one that breaks it (a problem).
bug = header(expect_exit="1", expect_message="barrier divergence", expect_cause="barrier_divergence")
caught = checker(1, check("fail", "barrier_divergence", "a barrier divergence at line 9"))
case("a planted bug caught as stated passes", judged(bug, caught) == [])
case("expect-exit: another status fails", judged(bug, checker(0, check("pass"))) != [])
case("expect-message: words missing fail",
     judged(bug, checker(1, check("fail", "barrier_divergence", "wrong sum"))) != [])
case("expect-cause: another cause fails", judged(bug, checker(1, check("fail", "race", "a barrier divergence"))) != [])
case("expect-message-backends: words not asked elsewhere",
     judged(header(expect_exit="1", expect_message="missing", expect_message_backends="cpu"),
            checker(1, check("fail", "", "wrong")), "cuda") == [])
case("a checker run that wrote no report fails, whatever it printed",
     judged(header(expect_exit="1", expect_message="barrier"), Outcome(1, "barrier divergence", report={})) != [])
case("a planted bug whose every check passes fails",
     judged(header(expect_exit="1"), Outcome(1, "", report_of(check("pass")), "", set())) != [])
honest = header(expect_exit="0")
case("honest code passing every check passes", judged(honest, checker(0, check("pass"), check("skipped", id="two"))) == [])
case("honest code failing a check fails", judged(honest, checker(0, check("pass"), check("fail", id="two"))) != [])
case("honest code with no check run fails", judged(honest, checker(0, check("skipped"))) != [])
case("expect-passed: none fails when a check passed",
     judged(header(expect_exit="1", expect_passed="none"), checker(1, check("pass"), check("error", id="two"))) != [])
case("expect-not-run: yes fails when every check ran",
     judged(header(expect_exit="1", expect_not_run="yes"), checker(1, check("fail"))) != [])
case("expect-timing: another timing status fails",
     judged(header(expect_exit="1", expect_timing="refused"), checker(1, check("pass"), timing={"status": "ok"})) != [])
case("expect-absent: words present fail", judged(header(expect_absent="secret"), Outcome(0, "a secret here")) != [])
case("expect-absent-visible: a visible check's words fail",
     judged(header(expect_exit="1", expect_absent_visible="65536"), checker(1, check("fail", "", "size 65536"))) != [])
case("expect-absent-visible: a hidden check's words are allowed",
     judged(header(expect_exit="1", expect_absent_visible="65536", args="--hidden-checks one"),
            checker(1, check("fail", "", "size 65536"))) == [])
case("expect-match: a pattern twice needs two lines",
     judged(header(expect_match=["race at .*:1[0-9]", "race at .*:1[0-9]"]), Outcome(0, "race at a.cu:12\n")) != [])
case("expect-match: two matching lines pass",
     judged(header(expect_match=["race at .*:1[0-9]", "race at .*:1[0-9]"]), Outcome(0, "race at a.cu:12\nrace at a.cu:14")) == [])
case("expect-no-match: a matching line fails", judged(header(expect_no_match="data race"), Outcome(0, "data race")) != [])
case("expect-exit: nonzero fails on 0", judged(header(expect_exit="nonzero"), Outcome(0, "")) != [])
case("a run past its time fails", judged(header(), Outcome(124, "", timed_out=True)) != [])
graded = Outcome(0, "feedback", grade={"verdict": "graded", "rule": "", "total": "25", "maximum": "29",
                                      "checks": [{"id": "races", "status": "fail"}, {"id": "one", "status": "pass"}]})
case("a graded student as stated passes",
     judged(header(expect_verdict="graded", expect_points="all but 4", expect_check=["races fail", "one pass"]), graded) == [])
case("expect-verdict: another verdict fails", judged(header(expect_verdict="rejected"), graded) != [])
case("expect-rule: another rule fails", judged(header(expect_verdict="graded", expect_rule="link_contract"), graded) != [])
case("expect-points: all fails on 25 of 29", judged(header(expect_verdict="graded", expect_points="all"), graded) != [])
case("expect-points: 0 fails on 25 of 29", judged(header(expect_verdict="graded", expect_points="0"), graded) != [])
case("expect-points: all but 3 fails on 25 of 29", judged(header(expect_verdict="graded", expect_points="all but 3"), graded) != [])
case("expect-points: some passes on 25 of 29", judged(header(expect_verdict="graded", expect_points="some"), graded) == [])
case("expect-check: another status fails", judged(header(expect_verdict="graded", expect_check="races pass"), graded) != [])
case("expect-check: a check not there fails", judged(header(expect_verdict="graded", expect_check="barriers fail"), graded) != [])
case("backends: a reason after the names", header(backends="cuda (no assembly on the CPU backend)").runs_on("cpu") is False)


def refused_required(text):
    return refused(text, None, ["expect-exit"])


def refused(text, allowed=None, required=()):
    with tempfile.NamedTemporaryFile("w", suffix=".cu", delete=False) as f:
        f.write(text)
    try:
        read_header(f.name, allowed, required)
        return False
    except HeaderError:
        return True
    finally:
        os.unlink(f.name)


case("a misspelt key is refused", refused("// expect-mesage: words\nint x;\n"))
case("a key its folder does not judge is refused", refused("// expect-timing: ok\nint x;\n", {"expect-exit"}))
case("a key twice that does not repeat is refused", refused("// expect-exit: 1\n// expect-exit: 0\nint x;\n"))
case("an exit status that is no number is refused", refused("// expect-exit: one\nint x;\n"))
case("a build the CPU backend has not is refused", refused("// build: tsan\nint x;\n"))
case("points that are no points are refused", refused("// expect-points: most\nint x;\n"))
case("a pattern that is no regular expression is refused", refused("// expect-match: race (at\nint x;\n"))
case("a file that states no verdict is refused", refused("// Planted bug: no verdict\nint x;\n", None) is False and
     refused_required("// Planted bug: no verdict\nint x;\n"))
case("prose after the header is not read", not refused("// expect-exit: 1\nint x;\n// nonsense: here\n"))
case("std::max in prose is no key", not refused("// std::max on the host\nint x;\n"))
sys.exit(1 if failed else 0)
