"""How each folder of planted files is run: one module per folder, each giving Items whose run
yields an Outcome.

    fixtures  tests/fixtures: a lab file's runner (built by make) through its lab's checker
    emulator  tests/emulator/fixtures: a program on the emulator, in the build its header names;
              tests/emulator/refused: a lab file that must not compile on the CPU backend
    contract  tests/contract/{attacks,honest}: the link contract judging the file's object, on each
              backend (nvcc's host object, the CPU backend's, and the race build's when asked)
    boundary  tests/boundary/attacks and tests/contract/honest: the runner built as a
              student's is and run through the checker, where the operating system holds the line
    profile   tests/profile: PROFILE=1 beside the lab's reference; the output judged is the first
              sentence of the diagnosis
    class     tests/grading/fixtures/lab1: students of a class the grader has graded (its end-to-end
              test grades them, as root); the output judged is each student's feedback.md, beside
              the gradebook's row and result.json

Every function here only runs things and collects what they said; judging is judge.py's.
"""

from .boundary import boundary_items
from .common import FOLDER_KEYS, headers_in
from .contract import contract_items
from .emulator import emulator_items
from .fixtures import fixture_items
from .graded_class import class_items
from .profile import profile_items

__all__ = ["FOLDER_KEYS", "headers_in", "boundary_items", "contract_items", "emulator_items", "fixture_items",
           "class_items", "profile_items"]
