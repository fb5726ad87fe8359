#!/usr/bin/env python3
"""The class report (grading/class_report/class_report.py), checked as the instructor sees it.

Writes a synthetic graded class into build/class_report/ (a summary.json of 9 students on the GPU
backend and their lab files: two near-identical copies with renamed variables, one student who
handed in the stub unchanged, one whose name carries a <script> tag and an escape byte), runs
the report script on it, renders report.html in headless Chromium and checks what the page
shows, from the DOM Chromium dumps: the counts, a check's pass rate, the leaderboard's order by
pseudonym with no real name in it, the flagged pair and no other, the hostile name as text.
A screenshot goes to build/class_report/report.png.

    python3 tests/class_report/class_report_test.py   (make test-class-report: installs Chromium and copydetect first)

Prints a PASS or FAIL line per check (make test counts them); exits 1 when any failed.
"""
import json
import os
import shutil
import subprocess
import sys
from collections import defaultdict
from html.parser import HTMLParser
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
OUT = REPO / "build" / "class_report"
GRADES = OUT / "grades" / "lab3"
SCRIPT = REPO / "grading" / "class_report" / "class_report.py"
HOSTILE = 'mallory<script>document.title="PWNED"</script>\x1b[31m'

# ---------------------------------------------------------------------------------------------
# The class: lab files (a shortened lab 3 stub and ways to fill it in).

STUB = r"""// cudalab · Lab 3 · The multi-level sum, with no size limit
// (the handed-out stub, shortened: its long explanation is comments, which copydetect ignores)
#include <cuda_runtime.h>

#include "cudalab/lab3.h"

constexpr unsigned kThreads = 256;        // threads per block (a power of two)
constexpr unsigned kItemsPerThread = 4;   // elements each thread adds before the tree
constexpr size_t kPerBlock = size_t(kThreads) * kItemsPerThread;  // elements per block: 1024

// How many blocks (and so partial sums) a level over m values has.
static size_t blocks_for(size_t m) { return (m + kPerBlock - 1) / kPerBlock; }

__global__ void reduce_level_kernel(const float* in, float* out, size_t n) {
  // TODO 1: each thread adds its kItemsPerThread elements into a float, starting from 0.
  // TODO 2: the block's tree, as in lab 2.
  // TODO 3: thread 0 writes the block's sum, s[0], to out[blockIdx.x].
}

void lab3::multilevel_sum(const float* d_in, float* d_scratch, float* d_sum, size_t n) {
  // Level 1, written for you. When one block is enough, it writes the answer itself.
  const size_t blocks = blocks_for(n);
  float* out = blocks == 1 ? d_sum : d_scratch;
  reduce_level_kernel<<<unsigned(blocks), kThreads>>>(d_in, out, n);
  CUDALAB_CHECK_LAUNCH("reduce_level_kernel");

  // TODO 4: while the level just launched had more than one block, launch another level.
}
"""

ALICE = STUB.replace(r"""  // TODO 1: each thread adds its kItemsPerThread elements into a float, starting from 0.
  // TODO 2: the block's tree, as in lab 2.
  // TODO 3: thread 0 writes the block's sum, s[0], to out[blockIdx.x].
""", r"""  const size_t first = size_t(blockIdx.x) * kPerBlock + threadIdx.x;
  float acc = 0.0f;
  for (unsigned k = 0; k < kItemsPerThread; ++k) {
    const size_t i = first + size_t(k) * kThreads;
    if (i < n) acc += in[i];
  }
  __shared__ float s[kThreads];
  s[threadIdx.x] = acc;
  __syncthreads();
  for (unsigned offset = kThreads / 2; offset > 0; offset /= 2) {
    if (threadIdx.x < offset) s[threadIdx.x] += s[threadIdx.x + offset];
    __syncthreads();
  }
  if (threadIdx.x == 0) out[blockIdx.x] = s[0];
""").replace(r"""  // TODO 4: while the level just launched had more than one block, launch another level.
""", r"""  size_t level_blocks = blocks;
  float* region_a = d_scratch;
  float* region_b = d_scratch + blocks_for(n);
  const float* level_in = region_a;
  bool use_b = true;
  while (level_blocks > 1) {
    const size_t next_blocks = blocks_for(level_blocks);
    float* level_out = next_blocks == 1 ? d_sum : (use_b ? region_b : region_a);
    reduce_level_kernel<<<unsigned(next_blocks), kThreads>>>(level_in, level_out, level_blocks);
    CUDALAB_CHECK_LAUNCH("reduce_level_kernel");
    level_in = level_out;
    level_blocks = next_blocks;
    use_b = !use_b;
  }
""")

# Bob's is Alice's with every name of hers renamed, other comments and other spacing.
BOB = ALICE
for old, new in (("level_blocks", "remaining"), ("region_a", "bufA"), ("region_b", "bufB"), ("level_in", "src"),
                 ("level_out", "dst"), ("use_b", "flip"), ("next_blocks", "nb"), ("acc", "total"),
                 ("first", "base"), ("offset", "stride"), ("s[", "smem["), ("float s", "float smem")):
    BOB = BOB.replace(old, new)
BOB = BOB.replace("  __syncthreads();\n  for", "  __syncthreads();  // wait for every thread\n\n  for") \
         .replace("// cudalab · Lab 3", "// Bob's lab 3, all my own work\n// cudalab · Lab 3")

CAROL = STUB.replace(r"""  // TODO 1: each thread adds its kItemsPerThread elements into a float, starting from 0.
  // TODO 2: the block's tree, as in lab 2.
  // TODO 3: thread 0 writes the block's sum, s[0], to out[blockIdx.x].
""", r"""  float v = 0.0f;
#pragma unroll
  for (unsigned k = 0; k < kItemsPerThread; ++k) {
    size_t j = blockIdx.x * kPerBlock + k * kThreads + threadIdx.x;
    v += j < n ? in[j] : 0.0f;
  }
  for (int d = 16; d > 0; d >>= 1) v += __shfl_down_sync(0xffffffffu, v, d);
  __shared__ float warp_totals[kThreads / 32];
  if ((threadIdx.x & 31) == 0) warp_totals[threadIdx.x >> 5] = v;
  __syncthreads();
  if (threadIdx.x < 32) {
    v = threadIdx.x < kThreads / 32 ? warp_totals[threadIdx.x] : 0.0f;
    for (int d = 16; d > 0; d >>= 1) v += __shfl_down_sync(0xffffffffu, v, d);
    if (threadIdx.x == 0) out[blockIdx.x] = v;
  }
""").replace(r"""  // TODO 4: while the level just launched had more than one block, launch another level.
""", r"""  float* ping[2] = {d_scratch, d_scratch + blocks};
  int turn = 0;
  for (size_t m = blocks; m > 1; m = blocks_for(m), turn ^= 1) {
    float* target = blocks_for(m) > 1 ? ping[turn ^ 1] : d_sum;
    reduce_level_kernel<<<unsigned(blocks_for(m)), kThreads>>>(ping[turn], target, m);
    CUDALAB_CHECK_LAUNCH("reduce_level_kernel (next level)");
  }
""")

DAVE = STUB.replace(r"""  // TODO 1: each thread adds its kItemsPerThread elements into a float, starting from 0.
  // TODO 2: the block's tree, as in lab 2.
  // TODO 3: thread 0 writes the block's sum, s[0], to out[blockIdx.x].
""", r"""  // One level only: a grid-stride loop, then one atomicAdd per block.
  float mine = 0.0f;
  for (size_t idx = blockIdx.x * blockDim.x + threadIdx.x; idx < n; idx += size_t(gridDim.x) * blockDim.x)
    mine += in[idx];
  __shared__ float partial[kThreads];
  partial[threadIdx.x] = mine;
  __syncthreads();
  for (unsigned half = blockDim.x >> 1; half; half >>= 1) {
    if (threadIdx.x < half) partial[threadIdx.x] = partial[threadIdx.x] + partial[threadIdx.x + half];
    __syncthreads();
  }
  if (!threadIdx.x) atomicAdd(out, partial[0]);
""").replace(r"""  const size_t blocks = blocks_for(n);
  float* out = blocks == 1 ? d_sum : d_scratch;
  reduce_level_kernel<<<unsigned(blocks), kThreads>>>(d_in, out, n);
""", r"""  cudaMemset(d_sum, 0, sizeof(float));
  const size_t blocks = 264;  // about what the GPU runs at once
  float* out = d_sum;
  reduce_level_kernel<<<unsigned(blocks), kThreads>>>(d_in, out, n);
""")

FRANK = STUB.replace(r"""  // TODO 1: each thread adds its kItemsPerThread elements into a float, starting from 0.
""", r"""  float x = 0
  for (int q = 0; q < 4; q++) x += in[blockIdx.x * 1024 + q * 256 + threadIdx.x]
""")

MALLORY = STUB.replace(r"""  // TODO 2: the block's tree, as in lab 2.
""", r"""  __shared__ float sh[1024];
  unsigned t = threadIdx.x;
  sh[t] = t < n ? in[t] : 0.0f;
  for (unsigned stride = 1; stride < blockDim.x; stride *= 2) {
    __syncthreads();
    if (t % (2 * stride) == 0) sh[t] += sh[t + stride];
  }
  asm volatile("membar.gl;");
""")

# (name, pseudonym, verdict, correct, total, source, check outcomes, speed ms or None, reasons)
PASS_ALL = dict.fromkeys(["one_element", "b1024_plus_one", "b1024_squared_plus_one", "two_pow_30", "hidden_odd"], "pass")
STUDENTS = [
    ("alice", "anon-a11ce0", "graded", True, 100, ALICE, PASS_ALL, 0.61, []),
    ("bob", "anon-b0b0b0", "graded", True, 98, BOB, PASS_ALL, 0.64, []),
    ("carol", "anon-ca7011", "graded", True, 100, CAROL, PASS_ALL, 0.35, []),
    # Timed, but a hidden check failed: on the speed plot, never on the leaderboard.
    ("dave", "anon-da5e00", "graded", False, 70, DAVE, dict(PASS_ALL, hidden_odd="fail"), 0.48, ["wrong answers"]),
    ("erin", "anon-e1e1e1", "graded", False, 0, STUB,
     dict.fromkeys(PASS_ALL, "fail"), None, ["wrong answers"]),
    ("frank", "anon-f4a4c0", "build_failed", False, 0, FRANK, {}, None, ["does not compile"]),
    (HOSTILE, "anon-3a11e7", "rejected", False, 0, MALLORY, {}, None,
     ["rejected: asm <b>is</b> not allowed \x1b]0;owned\x07"]),
    ("grace", "anon-9ace00", "no_submission", False, 0, None, {}, None,
     ["no usable lab file (empty, missing or more than one)"]),
    ("heidi", "anon-4e1d10", "unreadable", False, 0, "missing", {}, None, ["the file is not readable source text"]),
]
REFERENCE_MS, NAIVE_MS = 0.30, 2.40
CHECKS = [  # the lab's order
    {"id": "one_element", "title": "n = 1", "hidden": False, "points": 10},
    {"id": "b1024_plus_one", "title": "one block & <one> more", "hidden": False, "points": 20},
    {"id": "b1024_squared_plus_one", "title": "a third level", "hidden": False, "points": 20},
    {"id": "two_pow_30", "title": "2^30 elements", "hidden": False, "points": 20},
    {"id": "hidden_odd", "title": "an odd size", "hidden": True, "points": 10},
]


def write_class():
    """The grades folder as the grader leaves it: summary.json and each student's source copy."""
    shutil.rmtree(OUT, ignore_errors=True)
    GRADES.mkdir(parents=True)
    stub_path = OUT / "stub" / "lab3_multilevel_sum.cu"
    stub_path.parent.mkdir()
    stub_path.write_text(STUB)
    results = []
    for name, pseud, verdict, correct, total, text, checks, ms, reasons in STUDENTS:
        source = ""
        if text == "missing":
            source = str(GRADES / "students" / "heidi" / "source.cu")  # named, but not there
        elif text is not None:
            folder = GRADES / "students" / pseud  # the grader's folder names are safe; these too
            folder.mkdir(parents=True)
            (folder / "source.cu").write_text(text)
            source = str(folder / "source.cu")
        speed = {"status": "not graded", "points": 0, "max_points": 20, "student_ms": None,
                 "reference_ms": REFERENCE_MS, "naive_ms": NAIVE_MS, "vs_reference": None, "speedup_over_naive": None}
        if ms is not None:
            speed.update(status="graded", points=round(20 * min(1, REFERENCE_MS / ms)), student_ms=ms,
                         vs_reference=ms / REFERENCE_MS, speedup_over_naive=NAIVE_MS / ms)
        results.append({"student": name, "pseudonym": pseud, "total": total, "maximum": 100, "verdict": verdict,
                        "correct": correct, "backend": "cuda", "reasons": reasons, "checks": checks,
                        "speed": speed, "source": source})
    passed = sum(r["correct"] for r in results)
    summary = {
        "lab": 3, "title": "The multi-level sum, with no size limit", "rubric": "grading/rubrics/lab3.toml",
        "backend": "cuda", "gpus": ["0"], "generated_at": "2026-11-23T18:00:00Z",
        "students": len(results), "passed": passed, "failed": len(results) - passed, "graded_this_run": len(results),
        "resumed": 0, "average": sum(r["total"] for r in results) / len(results), "maximum": 100,
        "verdicts": {"graded": 5, "build_failed": 1, "rejected": 1, "no_submission": 1, "unreadable": 1},
        "backends": {"cuda": len(results)},
        "most_common_failures": [{"reason": "wrong answers", "students": 2}, {"reason": "does not compile", "students": 1},
                                 {"reason": "rejected: asm <b>is</b> not allowed \x1b]0;owned\x07", "students": 1}],
        "failed_checks": {"hidden_odd": 2, "one_element": 1}, "reference_ms": {"gpu 0": REFERENCE_MS},
        "seconds": 123.4, "ignored_entries": [], "checks": CHECKS,
        "time_by_step": {"checks (GPU 0)": {"runs": 4, "busy_seconds": 10.0, "wall_seconds": 6.5},
                         "checks (GPU 1)": {"runs": 3, "busy_seconds": 7.5, "wall_seconds": 6.0},
                         "build: compile": {"runs": 9, "busy_seconds": 18.0, "wall_seconds": 9.0},
                         "timing (GPU 0)": {"runs": "<b>2</b>", "busy_seconds": 3.0, "wall_seconds": 3.1}},
        "speed_rule": "Full speed points at the reference's time or faster, fewer the slower, none past the naive kernel.",
        "stub": str(stub_path), "results": results,
    }
    (GRADES / "summary.json").write_text(json.dumps(summary, indent=2))


# ---------------------------------------------------------------------------------------------
# Rendering, and reading the rendered DOM.

def chromium(*args):
    cmd = ["chromium", "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
           f"--user-data-dir={OUT / 'chromium-profile'}", *args, (GRADES / "report.html").as_uri()]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=180)
    if done.returncode != 0:
        sys.exit(f"FAIL  report: chromium exited {done.returncode}:\n{done.stderr[-2000:]}")
    return done.stdout


class Dom(HTMLParser):
    """Per section id: its text, its table rows (cells' text) and the classes of those rows; the
    page's element names and its <title>."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.tags = defaultdict(int)
        self.text = defaultdict(str)
        self.rows = defaultdict(list)
        self.section = None
        self.in_title = False
        self.title = ""
        self.urls = []
        self.cards = {}  # the header's figures, by id: "students" -> "9 students"
        self.card, self.card_depth = None, 0

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        self.tags[tag] += 1
        self.urls += [v for k, v in attrs.items() if k in ("src", "href") and v]
        if tag == "div" and self.card:
            self.card_depth += 1
        elif tag == "div" and "card" in (attrs.get("class") or "").split():
            self.card, self.card_depth = attrs.get("id"), 1
            self.cards[self.card] = ""
        if tag == "section":
            self.section = attrs.get("id")
        elif tag == "tr" and self.section:
            self.rows[self.section].append({"class": attrs.get("class") or "", "cells": []})
        elif tag in ("td", "th") and self.section and self.rows[self.section]:
            self.rows[self.section][-1]["cells"].append("")
        self.in_title = tag == "title" and self.title == ""

    def handle_endtag(self, tag):
        if tag == "div" and self.card:
            self.card_depth -= 1
            self.card = self.card if self.card_depth else None
        if tag == "section":
            self.section = None
        if tag == "title":
            self.in_title = False

    def handle_data(self, data):
        if self.in_title:
            self.title += data
        if self.card:
            self.cards[self.card] = " ".join((self.cards[self.card] + " " + data).split())
        where = self.section or "page"
        self.text[where] += data + " "
        if self.section and self.rows[self.section] and self.rows[self.section][-1]["cells"]:
            self.rows[self.section][-1]["cells"][-1] += data

    def body_rows(self, section):
        return [r["cells"] for r in self.rows[section] if r["cells"] and r["cells"][0] not in ("#", "check", "student", "cause", "step")]


# ---------------------------------------------------------------------------------------------

failures = 0


def check(ok, what, detail=""):
    global failures
    print(f"{'PASS' if ok else 'FAIL'}  report: {what}" + ("" if ok else f"\n      {detail}"))
    failures += not ok


def main():
    os.chdir(REPO)
    write_class()
    made = subprocess.run([sys.executable, str(SCRIPT), str(GRADES)], capture_output=True, text=True, timeout=300)
    check(made.returncode == 0 and (GRADES / "report.html").is_file(), "class_report.py writes report.html",
          f"exit {made.returncode}: {made.stderr[-2000:]}")
    if made.returncode != 0:
        return 1
    dom_text = chromium("--dump-dom")
    (OUT / "report.dom.html").write_text(dom_text)
    chromium(f"--screenshot={OUT / 'report.png'}", "--window-size=1200,3000", "--hide-scrollbars")
    dom = Dom()
    dom.feed(dom_text)

    cards = dom.cards
    check(cards.get("students") == "9 students", "the header counts 9 students", f"header figures: {cards}")
    check(cards.get("passed") == "3 passed every check" and cards.get("failed") == "6 did not",
          "the header says 3 passed and 6 did not", f"header figures: {cards}")
    check(cards.get("average", "").startswith("40.9 / 100"), "the header shows the average score",
          f"header figures: {cards}")
    header = " ".join(dom.text["page"].split())
    check("Lab 3: The multi-level sum" in header and "GPU (cuda)" in header,
          "the header names the lab and the backend", f"header text: {header[:400]!r}")

    rows = {r[0].split()[0]: r for r in dom.body_rows("checks")}
    order = [r[0].split()[0] for r in dom.body_rows("checks")]
    check(order == [c["id"] for c in CHECKS], "the checks are listed in the lab's order", f"order: {order}")
    third = rows.get("b1024_squared_plus_one", [])
    # Alice, Bob, Carol and Dave passed it; Erin failed it; four have no outcome: 4 of 9.
    check(len(third) > 4 and third[3].strip() == "4 / 9" and third[4].strip() == "44%",
          "one check's pass rate: b1024_squared_plus_one 4 / 9, 44%", f"row: {third}")
    check("hidden" in " ".join(rows.get("hidden_odd", [""])[:1]), "a hidden check is marked hidden",
          f"row: {rows.get('hidden_odd')}")
    check("one block & <one> more" in " ".join(rows.get("b1024_plus_one", [])),
          "a check title with markup is shown as text", f"row: {rows.get('b1024_plus_one')}")

    board = [r[1].strip() for r in dom.body_rows("leaderboard")]
    check(board == ["anon-ca7011", "anon-a11ce0", "anon-b0b0b0"],
          "the leaderboard ranks the correct, timed students by time, by pseudonym", f"leaderboard: {board}")
    names = [s[0] for s in STUDENTS] + ["mallory"]
    shown = [n for n in names if n in dom.text["leaderboard"]]
    check(not shown, "no real name appears in the leaderboard", f"names found there: {shown}")
    check("anon-da5e00" not in dom.text["leaderboard"] and "anon-da5e00" in dom.text["speed"],
          "a timed but wrong student is on the speed plot, not on the leaderboard",
          f"speed text: {dom.text['speed'][:300]!r}")
    check("6.86×" in " ".join(dom.body_rows("leaderboard")[0]), "the leaderboard shows the speed-up over naive",
          f"first row: {dom.body_rows('leaderboard')[:1]}")

    pairs = {frozenset((r["cells"][0], r["cells"][1])) for r in dom.rows["similarity"] if "pair" in r["class"]}
    check(pairs == {frozenset(("alice", "bob"))}, "similarity flags the renamed copy (alice, bob) and no other pair",
          f"flagged: {[sorted(p) for p in pairs]}")
    compared = " ".join(dom.text["similarity"].split())
    check("7 files compared" in compared, "similarity says how many files were compared (7: one is missing)",
          f"similarity text: {compared[:400]!r}")

    students_text = dom.text["students"]
    check('mallory<script>document.title="PWNED"</script>?[31m' in students_text,
          "the <script> name is shown as text, its escape byte as '?'", f"students text: {students_text[:600]!r}")
    check(dom.tags["script"] == 0 and "PWNED" not in dom.title, "no script element is in the page, none ran",
          f"script elements: {dom.tags['script']}, title: {dom.title!r}")
    check("\x1b" not in dom_text and "<b>" not in dom_text.replace("&lt;b&gt;", ""),
          "no escape byte and no injected markup in the page", "found in the dumped DOM")
    steps = [r[0].strip() for r in dom.body_rows("time")]
    check(steps == ["build: compile", "checks (GPU 0)", "checks (GPU 1)"],
          "where the time went: one row per step, per GPU, longest wall first; a step with a bad count left out",
          f"steps: {steps}")
    compile_row = dom.body_rows("time")[0] if steps else []
    check(len(compile_row) > 4 and compile_row[2].strip() == "2.00" and compile_row[4].strip() == "9.0",
          "a step's row: 2.00 s each, 9.0 s of wall time", f"row: {compile_row}")
    bad = [t for t in ("link", "img", "iframe", "object", "embed") if dom.tags[t]] + dom.urls
    check(not bad, "the page is self-contained: no external resource", f"found: {bad}")
    check(dom.tags["svg"] >= 2, "the score distribution and the speed plot are inline SVG", f"svg: {dom.tags['svg']}")
    check((OUT / "report.png").is_file() and (OUT / "report.png").stat().st_size > 10000,
          "Chromium took a screenshot (build/class_report/report.png)", "no screenshot")

    # Chains of near-identical files read as one group (a class handing in the same file is one
    # row of names, not hundreds of pairs); a pair alone stays a pair.
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "grading" / "class_report"))
    import class_report
    groups = class_report.similar_groups([("c", "a", 1, 1), ("a", "b", 0.9, 0.9), ("x", "y", 0.8, 0.8), ("d", "b", 1, 1)])
    check(groups == [["a", "b", "c", "d"], ["x", "y"]], "similar files group: a chain of pairs is one group, a pair stays a pair",
          f"groups: {groups}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
