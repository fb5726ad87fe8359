#!/usr/bin/env python3
"""The instructor's class report: one self-contained HTML page for a graded lab.

    python3 grading/class_report/class_report.py GRADES/labN [--similarity-threshold 0.8] [--output FILE]

Reads GRADES/labN/summary.json (cudalab-grade writes it, then calls this script) and writes
GRADES/labN/report.html: the class at a glance, the score distribution, the pass rate of each
check, the most common failures, speed against the reference and the naive kernel, a
leaderboard by pseudonym, and pairs of near-identical submissions (found by the PyPI library
copydetect). grading/README.md, "The class report", says what each part means.

The page has inline CSS and inline SVG only: no script, no external resource, nothing fetched.
Everything taken from the data is escaped, with control and format characters (escape bytes,
bidi overrides) shown as '?': a submission is hostile, and its student's name or a reason it
caused must only ever be text. Older summary files lack some fields; the page shows what is there.
"""
import argparse
import datetime
import html
import json
import logging
import math
import os
import stat
import sys
import tempfile
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

# Similarity is copydetect's score: the share of one file's fingerprinted code (identifiers
# replaced by placeholders, so renaming variables changes nothing; the lab's stub removed as
# boilerplate) that also appears in the other file, from 0 to 1. copydetect's own display cut,
# 0.33, is for spotting any shared passage in large programs. A lab file, once the stub is taken
# out, is a few short kernels whose idioms (the global index, the bounds check, the tree loop)
# every honest solution shares, so independent solutions reach a third or more; 0.8 means that
# at least four fifths of one student's own code is in the other file: near-identical files.
DEFAULT_SIMILARITY_THRESHOLD = 0.8
# A lab file is a few hundred lines; one this large is not (the grader's own copy stops here too).
MAX_SOURCE_BYTES = 4 << 20


# ---------------------------------------------------------------------------------------------
# Reading the data: every value may be missing or of the wrong type (an older summary, a hand
# edit); these helpers turn it into something the page can show.

def as_list(value):
    return value if isinstance(value, list) else []


def as_dict(value):
    return value if isinstance(value, dict) else {}


def number(value):
    """A finite number, or None (missing, null, a string, a bool, NaN or infinity)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value) if math.isfinite(value) else None


def positive(value):
    """A time or a ratio: a number above zero, or None."""
    v = number(value)
    return v if v is not None and v > 0 else None


def clean(value):
    """Display text for any value: control, format and surrogate characters become '?'.

    Escape bytes could recolour or rewrite a terminal that is shown the page's source, bidi
    overrides reorder what the page shows, and lone surrogates would not even encode. The
    grader's own files replace them the same way."""
    text = "" if value is None else str(value)
    return "".join("?" if unicodedata.category(ch) in ("Cc", "Cf", "Cs") else ch for ch in text)


def esc(value):
    """Text from the data, safe in HTML element content and in quoted attributes."""
    return html.escape(clean(value), quote=True)


def percent(part, whole):
    return 100.0 * part / whole if whole else 0.0


def fmt_ms(ms):
    """A kernel time with about three significant digits, never in exponent notation."""
    if ms >= 100:
        return f"{ms:.0f}"
    if ms >= 10:
        return f"{ms:.1f}"
    if ms >= 1:
        return f"{ms:.2f}"
    return f"{ms:.3f}" if ms >= 0.01 else f"{ms:.4f}"


def fmt_ratio(x):
    return f"{x:.2f}×" if x < 10 else f"{x:.1f}×" if x < 100 else f"{x:.0f}×"


def fmt_points(x):
    return f"{x:g}" if x is not None else "–"


def load_summary(folder):
    path = folder / "summary.json"
    with open(path, encoding="utf-8", errors="replace") as f:
        data = json.load(f)
    if not isinstance(data, dict):
        raise ValueError(f"{path} is not a JSON object")
    return data


# ---------------------------------------------------------------------------------------------
# Similarity, through copydetect (https://pypi.org/project/copydetect/).

@dataclass
class Similarity:
    threshold: float
    compared: int = 0                            # files copydetect fingerprinted and compared
    skipped: list = field(default_factory=list)  # (student, why)
    pairs: list = field(default_factory=list)    # (student a, student b, share of a in b, of b in a)
    stub_used: bool = False
    error: str = ""                              # why nothing was compared


def unusable_source(path):
    """Why a submitted file is not compared, or "" when it can be.

    lstat, not stat: a submission may be a link to any file of the instructor's machine, and only
    its own regular file is the student's work."""
    try:
        st = os.lstat(path)
    except OSError:
        return "file missing"
    if not stat.S_ISREG(st.st_mode):
        return "not a regular file"
    if st.st_size > MAX_SOURCE_BYTES:
        return "file too large"
    return ""


def resolve_stub(stub):
    """The stub's path as given (relative to where the grader runs), else from the repository."""
    if not stub:
        return None
    for candidate in (Path(stub), REPO / stub):
        if not unusable_source(candidate):
            return candidate
    return None


def find_similar_pairs(results, stub, threshold):
    sim = Similarity(threshold=threshold)
    try:
        import copydetect
    except ImportError:
        sim.error = "copydetect is not installed here (python3 -m pip install copydetect, or tools/setup/deps.sh copydetect)"
        return sim

    owner = {}  # path -> student; the first student to name a path keeps it
    for r in results:
        name, source = clean(r.get("student")), r.get("source")
        if not isinstance(source, str) or not source:
            continue
        why = unusable_source(source)
        if why:
            sim.skipped.append((name, why))
        elif os.path.abspath(source) not in owner:
            owner[os.path.abspath(source)] = name
    if len(owner) < 2:
        sim.compared = len(owner)
        return sim

    # CUDA's lexer whatever the submitted file is called; silent: no progress bars on stderr.
    detector = copydetect.CopyDetector(display_t=threshold, force_language="cuda", silent=True, autoopen=False)
    paths = list(owner)
    for p in paths:
        detector.add_file(p, "testref")
    stub_path = resolve_stub(stub)
    if stub_path is not None:
        detector.add_file(str(stub_path), "boilerplate")
        sim.stub_used = True
    # copydetect logs a warning and skips a file that is not UTF-8; that is counted below instead.
    logging.disable(logging.WARNING)
    try:
        detector.run()
    except Exception as e:  # a library failure costs this section, never the whole report
        sim.error = f"copydetect failed: {type(e).__name__}: {e}"
        return sim
    finally:
        logging.disable(logging.NOTSET)

    fingerprinted = detector.file_data
    sim.compared = sum(1 for p in paths if p in fingerprinted)
    sim.skipped += [(owner[p], "not UTF-8 text") for p in paths if p not in fingerprinted]
    # add_file("testref") puts each file in both lists, in the same order: similarity_matrix[i, j]
    # holds (share of file i found in file j, share of file j found in file i); -1 if not compared.
    matrix = detector.similarity_matrix
    for i in range(len(paths)):
        for j in range(i + 1, len(paths)):
            a_in_b, b_in_a = (float(x) for x in matrix[i, j])
            # As copydetect's own report: a pair counts when either file is mostly in the other.
            if max(a_in_b, b_in_a) >= threshold:
                sim.pairs.append((owner[paths[i]], owner[paths[j]], a_in_b, b_in_a))
    sim.pairs.sort(key=lambda p: -max(p[2], p[3]))
    return sim


# ---------------------------------------------------------------------------------------------
# SVG charts. Coordinates are numbers we computed; every label from the data goes through esc().

def svg_open(width, height, label):
    return (f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" '
            f'width="{width}" height="{height}" role="img" aria-label="{esc(label)}">')


def score_histogram(fractions, bins=10):
    """Bars of how many students scored 0-10%, 10-20%, ... 90-100% of the maximum."""
    counts = [0] * bins
    for f in fractions:
        counts[min(bins - 1, max(0, int(f * bins)))] += 1
    width, height, left, right, top, bottom = 960, 230, 40, 24, 20, 40
    plot_w, plot_h = width - left - right, height - top - bottom
    top_count = max(max(counts), 1)
    step = max(1, math.ceil(top_count / 5))
    out = [svg_open(width, height, "score distribution")]
    for tick in range(0, top_count + 1, step):
        y = top + plot_h - plot_h * tick / top_count
        out.append(f'<line x1="{left}" y1="{y:.1f}" x2="{width - right}" y2="{y:.1f}" class="grid"/>'
                   f'<text x="{left - 6}" y="{y + 4:.1f}" text-anchor="end" class="tick">{tick}</text>')
    slot = plot_w / bins
    for b, count in enumerate(counts):
        x, h = left + b * slot, plot_h * count / top_count
        lo, hi = 100 * b // bins, 100 * (b + 1) // bins
        out.append(f'<rect x="{x + 3:.1f}" y="{top + plot_h - h:.1f}" width="{slot - 6:.1f}" height="{h:.1f}" '
                   f'class="hbar"><title>{count} scored {lo}–{hi}%</title></rect>')
        if count:
            out.append(f'<text x="{x + slot / 2:.1f}" y="{top + plot_h - h - 4:.1f}" text-anchor="middle" '
                       f'class="count">{count}</text>')
    for b in range(bins + 1):
        out.append(f'<text x="{left + b * slot:.1f}" y="{top + plot_h + 16}" text-anchor="middle" '
                   f'class="tick">{100 * b // bins}%</text>')
    out.append(f'<text x="{left + plot_w / 2:.1f}" y="{height - 4}" text-anchor="middle" class="axis">'
               'score, as a share of the maximum (students per bar)</text></svg>')
    return "".join(out)


def log_ticks(lo, hi):
    ticks = []
    for decade in range(math.floor(math.log10(lo)), math.ceil(math.log10(hi)) + 1):
        for m in (1, 2, 5):
            v = m * 10.0 ** decade
            if lo <= v <= hi:
                ticks.append(v)
    return ticks


def speed_plot(rows):
    """One line per timed student: kernel time over the reference's time, on a log axis, with the
    harness's naive kernel on the same scale (where it was timed). Left is faster."""
    values = [r["vs_reference"] for r in rows] + [r["naive_vs_reference"] for r in rows if r["naive_vs_reference"]] + [1.0]
    lo, hi = min(values) / 1.6, max(values) * 1.6
    row_h = 22 if len(rows) <= 40 else 13
    width, left, right, top = 1000, 130, 290, 34
    plot_w = width - left - right
    height = top + row_h * len(rows) + 44

    def x_of(v):
        return left + plot_w * (math.log(v) - math.log(lo)) / (math.log(hi) - math.log(lo))

    out = [svg_open(width, height, "kernel time relative to the reference and the naive kernel")]
    bottom = top + row_h * len(rows)
    for t in log_ticks(lo, hi):
        x = x_of(t)
        out.append(f'<line x1="{x:.1f}" y1="{top - 6}" x2="{x:.1f}" y2="{bottom}" class="grid"/>'
                   f'<text x="{x:.1f}" y="{bottom + 16}" text-anchor="middle" class="tick">{t:g}×</text>')
    x1 = x_of(1.0)
    out.append(f'<line x1="{x1:.1f}" y1="{top - 10}" x2="{x1:.1f}" y2="{bottom}" class="refline"/>'
               f'<text x="{x1:.1f}" y="{top - 14}" text-anchor="middle" class="axis">reference</text>')
    naive = sorted(r["naive_vs_reference"] for r in rows if r["naive_vs_reference"])
    if naive:  # labelled at its median place: on several GPUs, each row's marker differs a little
        out.append(f'<text x="{x_of(naive[len(naive) // 2]):.1f}" y="{top - 14}" text-anchor="middle" '
                   'class="axis">naive kernel</text>')
    for k, r in enumerate(rows):
        y = top + row_h * k + row_h / 2
        out.append(f'<text x="{left - 10}" y="{y + 4:.1f}" text-anchor="end" class="label">{esc(r["label"])}</text>')
        if r["naive_vs_reference"]:
            xn = x_of(r["naive_vs_reference"])
            out.append(f'<line x1="{x_of(r["vs_reference"]):.1f}" y1="{y:.1f}" x2="{xn:.1f}" y2="{y:.1f}" class="link"/>'
                       f'<rect x="{xn - 2:.1f}" y="{y - 6:.1f}" width="4" height="12" class="naive">'
                       f'<title>naive kernel: {fmt_ratio(r["naive_vs_reference"])} the reference time</title></rect>')
        kind = "dot" if r["correct"] else "dot wrong"
        out.append(f'<circle cx="{x_of(r["vs_reference"]):.1f}" cy="{y:.1f}" r="5" class="{kind}">'
                   f'<title>{esc(r["label"])}: {fmt_ms(r["ms"])} ms</title></circle>')
        note = f'{fmt_ratio(r["vs_reference"])} the reference'
        if r["speedup"]:
            note += f' · {fmt_ratio(r["speedup"])} faster than naive'
        out.append(f'<text x="{width - right + 10}" y="{y + 4:.1f}" class="note">{esc(note)}</text>')
    out.append(f'<text x="{left + plot_w / 2:.1f}" y="{height - 6}" text-anchor="middle" class="axis">'
               'kernel time ÷ the reference solution\'s time (log scale; left is faster) · '
               '● student (red: a check failed)  ▮ the harness\'s naive kernel</text></svg>')
    return "".join(out)


def bar(pct, kind=""):
    """A horizontal bar for a table cell; the width is a number we computed."""
    pct = max(0.0, min(100.0, pct))
    return f'<span class="bar {kind}"><span style="width:{pct:.1f}%"></span></span>'


# ---------------------------------------------------------------------------------------------
# The page's sections, each a function of the summary.

def section(ident, title, body):
    return f'<section id="{ident}"><h2>{esc(title)}</h2>{body}</section>\n'


def header(s, results):
    lab, title = number(s.get("lab")), s.get("title")
    heading = f"Lab {lab:g}" if lab is not None else "Lab"
    if title:
        heading += f": {clean(title)}"
    backend = clean(s.get("backend") or "unknown")
    gpus = [clean(g) for g in as_list(s.get("gpus")) if g]
    backend_text = "GPU (cuda)" if backend == "cuda" else "CPU backend (no GPU)" if backend == "cpu" else backend
    if gpus:  # the grader's GPU indices
        backend_text += (", GPU " if len(gpus) == 1 else ", GPUs ") + ", ".join(gpus)
    students = number(s.get("students"))
    students = int(students) if students is not None else len(results)
    passed, failed = number(s.get("passed")), number(s.get("failed"))
    if passed is None:
        passed = sum(1 for r in results if r.get("correct") is True)
    if failed is None:
        failed = students - passed
    average, maximum = number(s.get("average")), number(s.get("maximum"))
    avg_text = "–"
    if average is not None:
        avg_text = f"{average:.1f}" + (f" / {maximum:g} ({percent(average, maximum):.0f}%)" if maximum else "")
    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    refs = [f"{fmt_ms(ms)} ms ({clean(where)})" for where, ms in as_dict(s.get("reference_ms")).items()
            if positive(ms)]
    facts = [("backend", backend_text), ("reference solution", ", ".join(refs) or "–"),
             ("graded", s.get("generated_at") or "–"), ("this page", now), ("rubric", s.get("rubric") or "–")]
    cards = [("students", f"{students}", "students"), ("passed every check", f"{passed:g}", "passed"),
             ("did not", f"{failed:g}", "failed"), ("average score", avg_text, "average")]
    return (f'<header><h1>{esc(heading)}</h1><p class="sub">class report for the instructor: it names students</p>'
            '<dl class="facts">' + "".join(f"<dt>{esc(k)}</dt><dd>{esc(v)}</dd>" for k, v in facts) + "</dl>"
            '<div class="cards">' + "".join(f'<div class="card" id="{i}"><div class="big">{esc(v)}</div>'
                                            f'<div>{esc(k)}</div></div>' for k, v, i in cards) + "</div></header>\n")


def distribution_section(results):
    fractions, unscored = [], 0
    for r in results:
        total, maximum = number(r.get("total")), number(r.get("maximum"))
        if total is None or not maximum:
            unscored += 1
        else:
            fractions.append(total / maximum)
    if not fractions:
        return section("distribution", "Score distribution", "<p>No scores in summary.json.</p>")
    note = f"<p class=note>{unscored} without a score are left out.</p>" if unscored else ""
    return section("distribution", "Score distribution", score_histogram(fractions) + note)


def check_rows(s, results):
    """(id, title, hidden, points, passed, counted) per check, in the lab's order. A student with no
    outcome for a check (no build, no submission) did not pass it; a skipped check (too large for
    the CPU backend) does not count for that student."""
    checks = [as_dict(c) for c in as_list(s.get("checks")) if isinstance(c, dict) and c.get("id")]
    rows = []
    for c in checks:
        passed = counted = 0
        for r in results:
            status = as_dict(r.get("checks")).get(c["id"])
            if status == "skipped":
                continue
            counted += 1
            passed += status == "pass"
        rows.append((c["id"], c.get("title") or "", c.get("hidden") is True, number(c.get("points")), passed, counted))
    return rows


def checks_section(s, results):
    rows = check_rows(s, results)
    if rows:
        body = ['<table class="checks"><thead><tr><th>check</th><th>title</th><th class=num>points</th>'
                '<th class=num>passed</th><th class=num>rate</th><th></th></tr></thead><tbody>']
        for ident, title, hidden, points, passed, counted in rows:
            rate = percent(passed, counted)
            tag = ' <span class="tag">hidden</span>' if hidden else ""
            # No student had it counted: the backend skips it (too large for the CPU emulator).
            shown = (f'<td class=num>{rate:.0f}%</td><td class=barcell>{bar(rate, "good")}</td>' if counted
                     else '<td class=num>–</td><td class=barcell>not run on this backend</td>')
            body.append(f'<tr id="check-{esc(ident)}"><td><code>{esc(ident)}</code>{tag}</td><td>{esc(title)}</td>'
                        f'<td class=num>{fmt_points(points)}</td><td class=num>{passed} / {counted}</td>{shown}</tr>')
        body.append("</tbody></table>")
        return section("checks", "Pass rate per check", "".join(body))
    # An older summary: only how many graded students failed each check.
    failed = as_dict(s.get("failed_checks"))
    if not failed:
        return section("checks", "Pass rate per check", "<p>No per-check results in summary.json.</p>")
    items = "".join(f"<li><code>{esc(k)}</code>: {esc(v)} students</li>" for k, v in failed.items())
    return section("checks", "Pass rate per check",
                   f"<p>This summary.json predates per-check results; students who failed each check:</p><ul>{items}</ul>")


def failures_section(s, students):
    rows = [as_dict(f) for f in as_list(s.get("most_common_failures"))]
    if not rows:
        return section("failures", "Most common failure causes", "<p>None: every student passed every check.</p>")
    body = ['<table class="failures"><thead><tr><th>cause</th><th class=num>students</th><th></th></tr></thead><tbody>']
    for f in rows:
        count = number(f.get("students")) or 0
        body.append(f'<tr><td>{esc(f.get("reason"))}</td><td class=num>{count:g}</td>'
                    f'<td class=barcell>{bar(percent(count, students), "bad")}</td></tr>')
    body.append("</tbody></table>")
    return section("failures", "Most common failure causes", "".join(body))


def speed_of(r):
    """The speed facts of one result, with the ratios derived where only the times are there."""
    sp = as_dict(r.get("speed"))
    ms, ref, naive = positive(sp.get("student_ms")), positive(sp.get("reference_ms")), positive(sp.get("naive_ms"))
    if ms is None:
        return None
    vs_ref = positive(sp.get("vs_reference")) or (ms / ref if ref else None)
    speedup = positive(sp.get("speedup_over_naive")) or (naive / ms if naive else None)
    naive_vs_ref = naive / ref if naive and ref else (speedup and vs_ref and vs_ref * speedup)
    return {"ms": ms, "vs_reference": vs_ref, "speedup": speedup, "naive_vs_reference": naive_vs_ref or None,
            "points": number(sp.get("points")), "max_points": number(sp.get("max_points")),
            "status": clean(sp.get("status") or ""), "correct": r.get("correct") is True,
            "label": pseudonym(r)}


def pseudonym(r):
    # Never the name: where the grader gave no pseudonym (an older summary) the row is anonymous.
    p = r.get("pseudonym")
    return clean(p) if isinstance(p, str) and p else "(no pseudonym)"


def speed_section(s, results):
    if s.get("backend") == "cpu":
        return section("speed", "Speed",
                       "<p>Speed is not graded on the CPU backend: kernel times there say nothing about a GPU.</p>")
    rule = f'<p>{esc(s.get("speed_rule"))}</p>' if s.get("speed_rule") else ""
    rows = [sp for sp in map(speed_of, results) if sp and sp["vs_reference"]]
    if not rows:
        return section("speed", "Speed", rule + "<p>No student was timed (timing runs only when every check passes).</p>")
    rows.sort(key=lambda sp: (sp["vs_reference"], sp["label"]))
    return section("speed", f"Speed: {len(rows)} timed students", rule + speed_plot(rows))


def leaderboard_section(s, results):
    title = "Leaderboard"
    if s.get("backend") == "cpu":
        return section("leaderboard", title, "<p>No leaderboard on the CPU backend (speed is not graded there).</p>")
    rows = [sp for sp in map(speed_of, results) if sp and sp["correct"]]
    if not rows:
        return section("leaderboard", title, "<p>No correct, timed submission.</p>")
    rows.sort(key=lambda sp: (sp["ms"], sp["label"]))
    gpus = as_list(s.get("gpus"))
    note = (f"<p class=note>Students were timed on {len(gpus)} GPUs: compare times with that in mind.</p>"
            if len(gpus) > 1 else "")
    body = ['<p>Correct and timed submissions, fastest first, by pseudonym: safe to show the class.</p>', note,
            '<table class="leaderboard"><thead><tr><th class=num>#</th><th>pseudonym</th><th class=num>time (ms)</th>'
            '<th class=num>speed-up over naive</th><th class=num>vs reference</th><th class=num>speed points</th>'
            '</tr></thead><tbody>']
    for rank, sp in enumerate(rows, 1):
        pts = f'{fmt_points(sp["points"])} / {fmt_points(sp["max_points"])}' if sp["max_points"] else esc(sp["status"]) or "–"
        body.append(f'<tr><td class=num>{rank}</td><td class="pseudonym">{esc(sp["label"])}</td>'
                    f'<td class=num>{fmt_ms(sp["ms"])}</td>'
                    f'<td class=num>{fmt_ratio(sp["speedup"]) if sp["speedup"] else "–"}</td>'
                    f'<td class=num>{fmt_ratio(sp["vs_reference"]) if sp["vs_reference"] else "–"}</td>'
                    f'<td class=num>{pts}</td></tr>')
    body.append("</tbody></table>")
    return section("leaderboard", title, "".join(body))


def similarity_section(sim):
    title = "Similarity"
    if sim.error:
        return section("similarity", title, f"<p>Not computed: {esc(sim.error)}.</p>")
    stub = "the lab's stub left out as boilerplate" if sim.stub_used else "no stub found: handed-out code counts too"
    head = (f'<p id="compared">{sim.compared} files compared by copydetect ({stub}); pairs shown where at least '
            f'{100 * sim.threshold:.0f}% of one file\'s own code is also in the other, identifiers renamed or not. '
            'A flagged pair is a reason to read both files, not proof of copying.</p>')
    skipped = ""
    if sim.skipped:
        skipped = ("<p class=note>Not compared: " +
                   "; ".join(f"{esc(name)} ({esc(why)})" for name, why in sim.skipped) + ".</p>")
    if not sim.pairs:
        return section("similarity", title, head + "<p>No pair above the threshold.</p>" + skipped)
    # Files alike in a chain (a near b, b near c) form one group: a class where many hand in
    # the same file reads as one row of names, not hundreds of pairs. Pairs alone stay pairs.
    groups = similar_groups(sim.pairs)
    body = [head]
    large = [g for g in groups if len(g) > 2]
    if large:
        body.append('<table class="groups"><thead><tr><th class=num>files</th><th>students</th></tr></thead><tbody>')
        for g in large:
            body.append(f'<tr class="group"><td class=num>{len(g)}</td><td>{esc(", ".join(g))}</td></tr>')
        body.append("</tbody></table>")
    in_pairs = {name for g in groups if len(g) == 2 for name in g}
    pairs = [p for p in sim.pairs if p[0] in in_pairs]
    if pairs:
        body.append('<table class="pairs"><thead><tr><th>student</th><th>student</th><th class=num>of the first in the second</th>'
                    '<th class=num>of the second in the first</th></tr></thead><tbody>')
        for a, b, a_in_b, b_in_a in pairs:
            body.append(f'<tr class="pair"><td>{esc(a)}</td><td>{esc(b)}</td><td class=num>{100 * a_in_b:.0f}%</td>'
                        f'<td class=num>{100 * b_in_a:.0f}%</td></tr>')
        body.append("</tbody></table>")
    body.append(skipped)
    return section("similarity", title, "".join(body))


def similar_groups(pairs):
    """The connected groups of students that flagged pairs join, largest first, names sorted."""
    parent = {}

    def root(x):
        parent.setdefault(x, x)
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for a, b, _, _ in pairs:
        parent[root(a)] = root(b)
    members = {}
    for name in parent:
        members.setdefault(root(name), []).append(name)
    return sorted((sorted(g) for g in members.values()), key=lambda g: (-len(g), g))


def time_section(s):
    """Where the grading's time went, step by step (summary.json's time_by_step: the grader's
    PhaseClock). A step on a GPU is named with it ("checks (GPU 0)"), so the table shows whether
    the GPUs shared the work. "busy" adds every run's seconds (runs overlap across students);
    "wall" runs from the step's first start to its last end."""
    steps = as_dict(s.get("time_by_step"))
    rows = []
    for name, step in steps.items():
        step = as_dict(step)
        runs, busy, wall = number(step.get("runs")), number(step.get("busy_seconds")), number(step.get("wall_seconds"))
        if runs is None or busy is None or wall is None or runs <= 0:
            continue
        rows.append((str(name), runs, busy, wall))
    total = number(s.get("seconds"))
    title = "Where the grading's time went" + (f": {total:.0f} s" if total is not None else "")
    if not rows:
        return section("time", title, "<p>No step times in summary.json.</p>")
    rows.sort(key=lambda r: -r[3])
    longest = rows[0][3] or 1
    body = ['<p>Each step of every student\'s grading, in the grader\'s own clock: <em>busy</em> adds the '
            'runs\' seconds (they overlap across students), <em>wall</em> is from the first run\'s start to '
            'the last one\'s end. Steps on a GPU carry its name.</p>',
            '<table class="time"><thead><tr><th>step</th><th class=num>runs</th><th class=num>each (s)</th>'
            '<th class=num>busy (s)</th><th class=num>wall (s)</th><th></th></tr></thead><tbody>']
    for name, runs, busy, wall in rows:
        body.append(f'<tr><td>{esc(name)}</td><td class=num>{runs:g}</td><td class=num>{busy / runs:.2f}</td>'
                    f'<td class=num>{busy:.1f}</td><td class=num>{wall:.1f}</td>'
                    f'<td class=barcell>{bar(100 * wall / longest)}</td></tr>')
    body.append("</tbody></table>")
    return section("time", title, "".join(body))


def students_section(results):
    """Every student, by name: where a score, a verdict or a reason can be looked up."""
    body = ['<table class="students"><thead><tr><th>student</th><th>pseudonym</th><th class=num>score</th>'
            '<th>verdict</th><th>reasons</th></tr></thead><tbody>']
    for r in sorted(results, key=lambda r: clean(r.get("student")).lower()):
        total, maximum = number(r.get("total")), number(r.get("maximum"))
        score = f"{fmt_points(total)} / {fmt_points(maximum)}" if total is not None else "–"
        reasons = "; ".join(clean(x) for x in as_list(r.get("reasons")))
        body.append(f'<tr><td>{esc(r.get("student"))}</td><td class="pseudonym nowrap">{esc(r.get("pseudonym") or "")}</td>'
                    f'<td class=num>{score}</td><td class=nowrap>{esc(r.get("verdict") or "")}</td><td>{esc(reasons)}</td></tr>')
    body.append("</tbody></table>")
    return section("students", f"Students ({len(results)})", "".join(body))


STYLE = """
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: #1d2430; margin: 0; background: #f4f6f9; }
main { max-width: 1060px; margin: 0 auto; padding: 20px 24px 40px; }
header h1 { margin: 0; font-size: 26px; }
.sub { margin: 2px 0 10px; color: #8a5a00; }
.facts { display: grid; grid-template-columns: max-content 1fr; gap: 2px 14px; margin: 0 0 14px; color: #4a5566; }
.facts dt { font-weight: 600; } .facts dd { margin: 0; }
.cards { display: flex; gap: 12px; }
.card { flex: 1; background: #fff; border: 1px solid #dde3ea; border-radius: 8px; padding: 10px 14px; }
.card .big { font-size: 24px; font-weight: 700; }
#passed .big { color: #1d7a3a; } #failed .big { color: #b42318; }
section { background: #fff; border: 1px solid #dde3ea; border-radius: 8px; padding: 6px 18px 14px; margin-top: 16px; }
h2 { font-size: 18px; margin: 10px 0 8px; }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; padding: 3px 8px; border-bottom: 1px solid #edf0f4; vertical-align: top; }
th { color: #4a5566; font-weight: 600; } .num { text-align: right; white-space: nowrap; } td.nowrap { white-space: nowrap; overflow-wrap: normal; }
td { overflow-wrap: anywhere; }
.barcell { width: 30%; }
.bar { display: inline-block; width: 100%; height: 10px; background: #edf0f4; border-radius: 5px; overflow: hidden; }
.bar > span { display: block; height: 100%; background: #5b7fb8; }
.bar.good > span { background: #2f9e55; } .bar.bad > span { background: #d9534f; }
.tag { font-size: 11px; background: #6b7280; color: #fff; border-radius: 4px; padding: 0 5px; margin-left: 4px; }
.note { color: #5d6877; }
svg { max-width: 100%; height: auto; display: block; margin: 6px 0; }
svg text { font: 12px system-ui, sans-serif; fill: #1d2430; }
svg .tick { fill: #6b7280; font-size: 11px; } svg .axis { fill: #4a5566; } svg .count { font-weight: 600; }
svg .grid { stroke: #e6eaf0; } svg .hbar { fill: #5b7fb8; }
svg .refline { stroke: #1d2430; stroke-dasharray: 4 3; } svg .link { stroke: #c9d1dc; }
svg .naive { fill: #9aa4b2; } svg .dot { fill: #2f9e55; } svg .dot.wrong { fill: #d9534f; }
svg .note { fill: #4a5566; font-size: 11px; } svg .label { font-family: ui-monospace, monospace; }
.pseudonym, code { font-family: ui-monospace, "SFMono-Regular", Menlo, monospace; }
tr.pair td { background: #fff4e5; }
footer { color: #6b7280; font-size: 12px; margin-top: 16px; }
"""


def render(s, sim):
    results = [as_dict(r) for r in as_list(s.get("results"))]
    students = number(s.get("students")) or len(results)
    title = f"Lab {clean(s.get('lab'))} class report"
    parts = [header(s, results), distribution_section(results), checks_section(s, results),
             failures_section(s, students), speed_section(s, results), leaderboard_section(s, results),
             similarity_section(sim), time_section(s), students_section(results)]
    return ('<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
            '<meta name="viewport" content="width=device-width, initial-scale=1">'
            f"<title>{esc(title)}</title><style>{STYLE}</style></head>\n<body><main>\n" + "".join(parts) +
            "<footer>Written by grading/class_report/class_report.py from summary.json. "
            "It names students: keep it to yourself; the leaderboard alone uses pseudonyms.</footer>"
            "</main></body></html>\n")


def write_atomically(path, text):
    """Written beside the target and renamed over it, readable by its owner only, as the grader
    writes every file of the grades folder (this one names students)."""
    fd, tmp = tempfile.mkstemp(prefix=".report.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", errors="replace") as f:
            f.write(text)
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise


def threshold_arg(text):
    value = float(text)
    if not 0 < value <= 1:
        raise argparse.ArgumentTypeError("a share between 0 and 1 (0.8: 80% of a file's own code)")
    return value


def main(argv):
    ap = argparse.ArgumentParser(description="Write the instructor's class report (report.html) for a graded lab.")
    ap.add_argument("folder", type=Path, help="the lab's grades folder, e.g. grades/lab3 (holds summary.json)")
    ap.add_argument("--similarity-threshold", type=threshold_arg, default=DEFAULT_SIMILARITY_THRESHOLD,
                    metavar="SHARE", help="flag pairs where this share of one file's own code is in the other "
                    f"(copydetect's score, 0-1; default {DEFAULT_SIMILARITY_THRESHOLD})")
    ap.add_argument("--output", type=Path, help="where to write the page (default FOLDER/report.html)")
    args = ap.parse_args(argv)
    try:
        summary = load_summary(args.folder)
    except (OSError, ValueError) as e:
        print(f"class_report: cannot read {args.folder / 'summary.json'}: {e}", file=sys.stderr)
        return 1
    results = [as_dict(r) for r in as_list(summary.get("results"))]
    stub = summary.get("stub") if isinstance(summary.get("stub"), str) else ""
    sim = find_similar_pairs(results, stub, args.similarity_threshold)
    out = args.output or args.folder / "report.html"
    write_atomically(out, render(summary, sim))
    print(f"class report: {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
