"""tests/profile: PROFILE=1 beside the lab's reference; the output judged is the first sentence
of the diagnosis. Every reference profiled against itself must be quiet."""

import re

from header import Header
from judge import Outcome
from .common import Item, headers_in, lab_of, name_of, run_process


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
