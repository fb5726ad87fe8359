"""tests/grading/fixtures/lab1 and lab1-isolation: students of a class the grader has graded (the
end-to-end and the isolation tests grade them, as root, on the CPU backend); the output judged is
each student's feedback.md, beside the gradebook's row and result.json."""

import csv
import json
import os
import re

from judge import Outcome
from .common import CLASS_FOLDERS, Item, headers_in


def class_items(grades, folder):
    """Each student of the fixture class in `folder` judged from what the grader wrote under `grades`.
    A student is a folder (its lab file inside) or a flat file, named as the grader names them."""
    folder = folder.rstrip("/")
    if folder not in CLASS_FOLDERS:
        raise ValueError(f"{folder}: not a fixture class (the classes: {', '.join(sorted(CLASS_FOLDERS))})")
    lab = int(re.match(r"lab(\d+)", os.path.basename(folder)).group(1))
    items = []
    for h in headers_in(folder):
        rel = os.path.relpath(h.path, folder)
        student = rel.split(os.sep)[0] if os.sep in rel else flat_student_name(rel, lab)
        items.append(Item(f"graded {os.path.basename(folder)} {student}", h,
                          lambda student=student: graded_outcome(grades, lab, student), "cpu"))
    return items


def flat_student_name(file_name, lab):
    """flat_student_lab1_final.cu -> flat_student: the name before the lab's, as the grader reads it."""
    return file_name.split(f"_lab{lab}")[0]


def graded_outcome(grades, lab, student):
    base = f"{grades}/lab{lab}"
    with open(f"{base}/gradebook.csv", newline="") as f:
        rows = {row["student"]: row for row in csv.DictReader(f)}
    if student not in rows:
        return Outcome(1, f"{student} is not in the gradebook ({base}/gradebook.csv)", grade={"verdict": "absent",
                                                                                          "total": 0, "maximum": 0})
    with open(f"{base}/students/{student}/result.json") as f:
        result = json.load(f)
    with open(f"{base}/students/{student}/feedback.md") as f:
        feedback = f.read()
    grade = dict(result, total=rows[student]["total"], maximum=rows[student]["maximum"])
    causes = {c.get("cause", "") for c in result.get("checks", [])} - {"", "none"}
    return Outcome(0, feedback, causes=causes, grade=grade)
