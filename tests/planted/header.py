"""The one format every planted file states its verdict in (tests/README.md, "Planted files").

A planted file is a lab file, or a small program, kept in tests/ with the verdict it must get.
The verdict is written in the file's opening comment block, one `// key: value` line per fact:

    // Planted bug: the barrier moved inside `if (tid < offset)`.   <- prose, any number of lines
    // expect-exit: 1
    // expect-message: barrier divergence

The header ends at the first line that is not a `//` comment. A header line whose first word is
followed by a colon must be a key of KEYS: a misspelt key would otherwise assert nothing, so it
is refused, with the keys there are. (Prose that must start with "word:" can put a word before it.)

Run as a program, it prints one key's values for a shell script (one per line):
    python3 tests/planted/header.py FILE KEY
"""

import dataclasses
import re
import sys

# key -> what it says. Keys marked "repeat" may appear more than once (each must hold).
KEYS = {
    "expect-exit": "the exit status of what the folder runs: a number, or `nonzero`",
    "expect-message": "words (plain text) the output or the checker's report must hold (repeat)",
    "expect-message-backends": "the backends the words are asked on (default: both; a GPU shows some bugs only by chance)",
    "expect-match": "an extended regular expression a line of the output must match; the same line twice: two lines (repeat)",
    "expect-no-match": "an extended regular expression no line of the output may match (repeat)",
    "expect-absent": "words that must appear nowhere in the output or the report (repeat)",
    "expect-absent-visible": "words no visible check's message or notes may hold (repeat)",
    "expect-cause": "the cause a failed check must report, or the rule the link contract must name",
    "expect-passed": "`none`: no check may pass (an attack stopped at every check)",
    "expect-not-run": "`yes`: some check must be reported not run",
    "expect-timing": "the timing status expected (the file then runs with timing)",
    "expect-verdict": "a graded student's verdict in the gradebook: graded, rejected, build_failed, ...",
    "expect-points": "a graded student's points: `all`, `0`, `some` (more than 0, less than all) or `all but N`",
    "expect-rule": "the rule a rejected student broke (result.json's rule: defines_main, link_contract, ...)",
    "expect-check": "a check's id and the status it must end with, `races fail` (repeat)",
    "backends": "the backends the file runs on: `cpu`, `cuda` or both (default: both), then a reason",
    "build": "the CPU backend's builds it runs in: `plain` (default), `asan`, `race` (the contract judges each one named)",
    "env": "environment variables for the program, NAME=value ...",
    "args": "more options for the checker, as the grader gives them",
    "check-limit": "`grader`: each check gets the grader's time limit, set from the reference's run",
    "boundary": "`contract only`, then a reason: an honest file the boundary's run leaves out",
}
REPEATED = {"expect-message", "expect-match", "expect-no-match", "expect-absent", "expect-absent-visible", "expect-check"}
BACKENDS = ("cpu", "cuda")
_KEY_LINE = re.compile(r"^//\s?([a-z][a-z-]*):(?:\s+(.*))?$")


class HeaderError(Exception):
    """A header that cannot be read: the message names the file, the line and what to do."""


@dataclasses.dataclass
class Header:
    path: str
    values: dict  # key -> list of values, in the file's order

    def one(self, key, default=None):
        got = self.values.get(key)
        return got[-1] if got else default

    def all(self, key):
        return list(self.values.get(key, []))

    def has(self, key):
        return key in self.values

    def runs_on(self, backend):
        return backend in words_before_reason(self.one("backends", " ".join(BACKENDS)))

    def words_asked_on(self, backend):
        return backend in words_before_reason(self.one("expect-message-backends", " ".join(BACKENDS)))

    def builds(self):
        return words_before_reason(self.one("build", "plain"))

    def build(self):
        """The one build a program or a lab's runner is made in."""
        if len(self.builds()) != 1:
            raise HeaderError(f"{self.path}: `build: {self.one('build')}`: name one build here")
        return self.builds()[0]


def words_before_reason(value):
    """`cuda (the CPU backend ...)` -> ["cuda"]: the words before a parenthesised reason."""
    return value.split("(", 1)[0].split()


def read_header(path, allowed=None, required=()):
    """The file's header; `allowed` (a set of keys) refuses keys its folder does not judge, and each
    key of `required` must be there (a file that states no verdict would pass whatever it did)."""
    values = {}
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line.startswith("//"):
                break
            m = _KEY_LINE.match(line)
            if not m:
                continue
            key, value = m.group(1), (m.group(2) or "").strip()
            if key not in KEYS:
                raise HeaderError(f"{path}:{number}: `{key}:` is not a key of the planted files' format "
                                  f"(tests/README.md); the keys are: {', '.join(KEYS)}. Prose that starts "
                                  f"with a word and a colon: put another word before it.")
            if allowed is not None and key not in allowed:
                raise HeaderError(f"{path}:{number}: `{key}:` is not judged in this folder (it would assert "
                                  f"nothing here); the keys judged here are: {', '.join(sorted(allowed))}")
            if key in values and key not in REPEATED:
                raise HeaderError(f"{path}:{number}: `{key}:` twice; only these keys repeat: {', '.join(sorted(REPEATED))}")
            values.setdefault(key, []).append(value)
    for key in required:
        if key not in values:
            raise HeaderError(f"{path}: no `// {key}:` line: every planted file of its folder states it (tests/README.md)")
    check_values(path, values)
    return Header(path, values)


def check_values(path, values):
    """Values a key cannot take, refused with what it takes."""
    def bad(key, what):
        raise HeaderError(f"{path}: `{key}: {values[key][0]}`: {what}")
    if "expect-exit" in values:
        v = values["expect-exit"][0]
        if v != "nonzero" and not v.isdigit():
            bad("expect-exit", "a number, or `nonzero`")
    for key in ("backends", "expect-message-backends"):
        if key in values and not set(words_before_reason(values[key][0])) <= set(BACKENDS) | {""}:
            bad(key, "the backends are `cpu` and `cuda` (a reason goes in parentheses after them)")
    if "expect-points" in values and not re.fullmatch(r"all|0|some|all but \d+(\.\d+)?", values["expect-points"][0]):
        bad("expect-points", "`all`, `0`, `some` or `all but N`")
    for check in values.get("expect-check", []):
        if len(check.split()) != 2:
            raise HeaderError(f"{path}: `expect-check: {check}`: a check's id and its status, `races fail`")
    builds = set(words_before_reason(values["build"][0])) if "build" in values else {"plain"}
    if not builds or not builds <= {"plain", "asan", "race"}:
        bad("build", "`plain`, `asan` or `race` (a reason goes in parentheses after them)")
    for key in ("expect-match", "expect-no-match"):
        for pattern in values.get(key, []):
            try:
                re.compile(pattern)
            except re.error as e:
                raise HeaderError(f"{path}: `{key}: {pattern}` is not a regular expression: {e}")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: python3 tests/planted/header.py FILE KEY   (prints the key's values, one per line)")
    try:
        for value in read_header(sys.argv[1]).all(sys.argv[2]):
            print(value)
    except (HeaderError, OSError) as e:
        sys.exit(str(e))
