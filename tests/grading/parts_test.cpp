// Unit tests of the grader's parts: discovery, source text, static rules, rubric, scoring,
// the verdict frame.
#include <doctest/doctest.h>

#include <fstream>

#include "grader/discover.h"
#include "grader/emulator_meeting.h"
#include "grader/build_submission.h"
#include "grader/grade_student.h"
#include "grader/run_report.h"
#include "grader/source_text.h"
#include "grader/static_rules.h"
#include "grader/verdict_frame.h"
#include "results/emulator_verdicts.h"
#include "results/lab_report.h"
#include "results/result.h"
#include "results/rubric.h"
#include "results/scoring.h"
#include "safe_io/files.h"
#include "results/writers.h"

using namespace grading;

namespace {
fs::path fresh_dir(const std::string& name) {
  fs::path d = fs::temp_directory_path() / ("cudalab-grading-unit-" + name);
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}
void touch(const fs::path& p, const std::string& text = "// lab\n") {
  fs::create_directories(p.parent_path());
  std::ofstream(p) << text;
}
const Submission& find(const Discovery& d, const std::string& student) {
  for (const auto& s : d.submissions)
    if (s.student == student) return s;
  FAIL("no student " << student);
  throw 0;
}
DiscoverOptions lab3() { return DiscoverOptions{3, "lab3_multilevel_sum.cu", "submission"}; }
}  // namespace

TEST_CASE("discovery: folders, flat files and every odd case gets a verdict") {
  fs::path root = fresh_dir("discover");
  touch(root / "alice" / "lab3_multilevel_sum.cu");
  touch(root / "alice" / "notes.txt");
  touch(root / "bob" / "src" / "Lab3.cu");  // any name with the lab's number, nested
  touch(root / "carol" / "lab3.cu");
  touch(root / "carol" / "lab3_v2.cu");  // two candidates
  fs::create_directories(root / "dave");  // empty
  touch(root / "erin" / "lab30.cu");  // lab 30 is not lab 3
  touch(root / "erin" / "readme.md");
  touch(root / "frank" / "reduce.cu");  // the only .cu file
  touch(root / "gina_lab3_final.cu");  // flat file
  touch(root / "syllabus.pdf");  // ignored at the top
  touch(root / "harry" / "lab3.cu.pdf");
  touch(root / "harry" / "lab3.cu");  // the .cu wins over other lab3 files
  fs::create_directory_symlink("/etc", root / "ivan");  // a link is no student's folder
  touch(root / "..." / "lab3.cu");  // a hidden name is still a student, with a note
  touch(root / "__MACOSX" / "lab3.cu");  // an archiver's leftovers are not
  fs::create_directories(root / "judy");
  fs::create_symlink("/etc/passwd", root / "judy" / "lab3.cu");  // chosen, then refused when read

  Discovery d = discover(root, lab3());
  CHECK(find(d, "alice").file->filename() == "lab3_multilevel_sum.cu");
  CHECK(find(d, "bob").file->filename() == "Lab3.cu");
  CHECK_FALSE(find(d, "carol").file);
  CHECK(find(d, "carol").problem.find("more than one file") != std::string::npos);
  CHECK(find(d, "dave").problem.find("empty") != std::string::npos);
  CHECK_FALSE(find(d, "erin").file);
  CHECK(find(d, "erin").problem.find("no lab 3 file") != std::string::npos);
  CHECK(find(d, "frank").file->filename() == "reduce.cu");
  CHECK(find(d, "frank").notes.size() == 1);
  CHECK(find(d, "gina").file->filename() == "gina_lab3_final.cu");
  CHECK(find(d, "harry").file->filename() == "lab3.cu");
  CHECK(find(d, "unnamed").file->filename() == "lab3.cu");
  CHECK(find(d, "unnamed").notes.at(0).find("`...`") != std::string::npos);
  REQUIRE(find(d, "judy").file);
  std::string why;
  CHECK_FALSE(read_submitted_file(*find(d, "judy").file, 1 << 20, &why));
  CHECK(why.find("symbolic link") != std::string::npos);
  CHECK(std::find(d.ignored.begin(), d.ignored.end(), "__MACOSX") != d.ignored.end());
  CHECK(d.submissions.size() == 10);
  CHECK(std::find(d.ignored.begin(), d.ignored.end(), "syllabus.pdf") != d.ignored.end());
  CHECK(std::find(d.ignored.begin(), d.ignored.end(), "ivan") != d.ignored.end());
}

TEST_CASE("discovery: a Gradescope-style submission/ folder is one student") {
  fs::path root = fresh_dir("gradescope");
  touch(root / "submission" / "lab3_multilevel_sum.cu");
  Discovery d = discover(root, lab3());
  REQUIRE(d.submissions.size() == 1);
  CHECK(d.submissions[0].student == "submission");
  CHECK(d.submissions[0].file);
  Discovery direct = discover(root / "submission", lab3());
  REQUIRE(direct.submissions.size() == 1);
  CHECK(direct.submissions[0].file);
}

TEST_CASE("discovery: repeated names get a free suffix; the grader's own names are never a student's") {
  fs::path root = fresh_dir("names");
  touch(root / "alice" / "lab3.cu");
  touch(root / "alice_lab3.cu");  // a second "alice"
  touch(root / "alice-2" / "lab3.cu");  // a real student called alice-2
  touch(root / "_reference" / "lab3.cu");  // the reference's folder in the work folder
  Discovery d = discover(root, lab3());
  std::vector<std::string> names;
  for (const auto& s : d.submissions) names.push_back(s.student);
  CHECK(names == std::vector<std::string>{"_reference-2", "alice", "alice-2", "alice-3"});
  CHECK(find(d, "alice").origin == root / "alice");  // the folder keeps the plain name
  CHECK(find(d, "alice-2").origin == root / "alice-2");
  CHECK(find(d, "alice-3").origin == root / "alice_lab3.cu");

  fs::path gs = fresh_dir("names-gradescope");
  touch(gs / "submission" / "lab3.cu");
  Discovery one = discover(gs, DiscoverOptions{3, "lab3_multilevel_sum.cu", "_reference"});
  REQUIRE(one.submissions.size() == 1);
  CHECK(one.submissions[0].student == "_reference-2");
}

TEST_CASE("lab token: lab3, Lab_3, LAB-03, not lab30 nor collab3") {
  CHECK(names_lab("lab3.cu", 3));
  CHECK(names_lab("Lab_3_sum.cu", 3));
  CHECK(names_lab("x-LAB-03.cu", 3));
  CHECK_FALSE(names_lab("lab30.cu", 3));
  CHECK_FALSE(names_lab("collab3.cu", 3));
  CHECK_FALSE(names_lab("lab1.cu", 3));
}

TEST_CASE("source text: BOM, CRLF, UTF-16, Latin-1 converted with notes; binaries refused") {
  SourceText bom = normalize_source("\xEF\xBB\xBFint x;\r\nint y;\r\n");
  REQUIRE(bom.ok);
  CHECK(bom.text == "int x;\nint y;\n");
  CHECK(bom.notes.size() == 2);

  std::string utf16 = "\xFF\xFE";
  for (char c : std::string("int z;\n")) utf16 += std::string{c, '\0'};
  SourceText u = normalize_source(utf16);
  REQUIRE(u.ok);
  CHECK(u.text == "int z;\n");

  SourceText latin = normalize_source("// caf\xE9\nint w;\n");
  REQUIRE(latin.ok);
  CHECK(latin.text == "// caf\xC3\xA9\nint w;\n");

  SourceText elf =
      normalize_source(std::string("\x7F"
                                   "ELF\x02\x01\x01\0\0\0",
                                   10));
  CHECK_FALSE(elf.ok);
  CHECK(elf.problem.find("not text") != std::string::npos);
  CHECK_FALSE(normalize_source("").ok);
  CHECK_FALSE(normalize_source(std::string(3000, 'a'), 2000).ok);
}

TEST_CASE("static rules on source: what is rejected, and what only looks like it") {
  auto rule = [](const std::string& src, std::vector<std::string> forbid = {"cub", "thrust", "cublas"}) {
    auto r = check_source(src, forbid);
    return r.empty() ? std::string() : r.front().rule;
  };
  CHECK(rule("int main(int argc, char** argv) { return 0; }") == "defines_main");
  CHECK(rule("int\nmain () {}") == "defines_main");
  CHECK(rule("void f() { obj.main(); ns::main(); }") == "");
  CHECK(rule("// int main() {}\n/* main() */ const char* s = \"main()\";") == "");
  // The harness's names and the CUDA runtime's are no rule's business now: the lab file runs
  // in its own kernel runner, apart from the checker. Honest helpers named like them pass.
  CHECK(rule("void f() { CUDALAB_CHECK(cudaMalloc(&p, 4)); CUDALAB_CHECK_LAUNCH(\"k\"); }") == "");
  CHECK(rule("inline void cudaCheck(cudaError_t e, const char* f, int l) { if (e) abort(); }") == "");
  CHECK(rule("void f() { ::cudalab::check_call(cudaGetLastError(), \"x\", __FILE__, __LINE__); }") == "");
  CHECK(rule("void f() { if (cudaMalloc(&p, n)) { return; } while (cudaGetLastError() != cudaSuccess) {} }") == "");
  CHECK(rule("__attribute__((constructor(101))) static void early() {}") == "early_code");
  CHECK(rule("#include <cub/cub.cuh>\n") == "forbidden_library");
  CHECK(rule("#include \"thrust/reduce.h\"\n") == "forbidden_library");
  CHECK(rule("void f() { cublasSgemm(h); }") == "forbidden_library");
  CHECK(rule("#include <cub/cub.cuh>\n", {"cublas"}) == "");  // lab 4 and 5 allow CUB
  CHECK(rule("// we do not use cub:: here\n") == "");
}

TEST_CASE("static rules: #include names the lab's header or a system header, nothing of the course") {
  auto rule = [](const std::string& src) {
    auto r = check_source(src, {});
    return r.empty() ? std::string() : r.front().rule;
  };
  // What lab files really include.
  CHECK(rule("#include <cstdio>\n#include <cuda_runtime.h>\n#include \"cudalab/lab3.h\"\n") == "");
  CHECK(rule("#include \"cuda_runtime.h\"  // quoted is fine\n#include <cuda/std/atomic>\n#include<vector>\n") == "");
  CHECK(rule("#include <cooperative_groups/reduce.h>\n#include \"cudalab/launch_check.h\"\n") == "");
  // The reference solution, however it is reached.
  CHECK(rule("#include \"../../solutions/lab3_multilevel_sum.cu\"\n") == "include_path");
  CHECK(rule("#include </work/main/solutions/lab3_multilevel_sum.cu>\n") == "include_path");
  CHECK(rule("#include \"cudalab/../../../solutions/lab3_multilevel_sum.cu\"\n") == "include_path");
  CHECK(rule("#include \"solutions/lab3.h\"\n") == "include_path");
  CHECK(rule("#include \"lab2_shared_sum.cu\"\n") == "include_path");  // another lab's file
  CHECK(rule("#include \"sum_baselines.cpp\"\n") == "include_path");  // a harness source, by name
  CHECK(rule("#include \"..\\..\\solutions\\x.h\"\n") == "include_path");  // backslashes
  CHECK(rule("  #  include_next <../x.h>\n") == "include_path");
  CHECK(rule("%:include \"../x.h\"\n") == "include_path");  // a digraph for #
  CHECK(rule("#inc\\\nlude \"../x.h\"\n") == "include_path");  // a line splice
  CHECK(rule("#define REF \"../../solutions/lab3_multilevel_sum.cu\"\n#include REF\n") == "include_path");
  CHECK(rule("/* note */ #include /* c */ \"/etc/passwd\"\n") == "include_path");
  // Comments and strings that only mention it.
  CHECK(rule("// #include \"../../solutions/lab3_multilevel_sum.cu\"\nconst char* s = \"#include <../x>\";\n") == "");

  auto r = check_source("int x;\n\n#include \"../../solutions/lab3_multilevel_sum.cu\"\n", {});
  REQUIRE(r.size() == 1);
  CHECK(r[0].reason.find("`\"../../solutions/lab3_multilevel_sum.cu\"` (line 3)") != std::string::npos);
  CHECK(r[0].reason.find("..") != std::string::npos);
  CHECK(r[0].reason.find("cudalab/") != std::string::npos);  // says what is allowed
}

TEST_CASE("static rules on the compiled object") {
  const std::string nm =
      "main T 0 10\n"
      "cudalab::report_channel_send(std::string const&) U\n"
      "cudalab::check_launch(char const*, char const*, int) U\n"
      "cudaMalloc T 20 30\n"
      "cudaError cudaMalloc<float>(float**, unsigned long) W 0 10\n"
      "cudaError cub::CUB_300001_SM_800::DeviceReduce::Sum<float*, float*, int>(void*) W 0 10a3\n";
  auto r = check_object(nm, "  [601] .init_array.00101 INIT_ARRAY 0 0 8 08 WA 0 0 8\n", {"cub"});
  std::vector<std::string> rules;
  for (const auto& x : r) rules.push_back(x.rule);
  CHECK(rules == std::vector<std::string>{"defines_main", "forbidden_library", "early_code"});
  CHECK(check_object("cudalab::check_launch(char const*, char const*, int) U\n"
                     "cudaError cudaMalloc<float>(float**, unsigned long) W 0 10\n"
                     "cudaCheck(cudaError, char const*, int) T 0 10\n",
                     "  [7] .init_array INIT_ARRAY\n", {"cub"})
            .empty());
}

TEST_CASE("rubrics: every shipped rubric parses; mistakes are named") {
  for (int lab = 1; lab <= 9; ++lab) {
    Rubric r = load_rubric(fs::path(CUDALAB_REPO) / "grading" / "rubrics" / ("lab" + std::to_string(lab) + ".toml"));
    CHECK(r.lab == lab);
    CHECK(r.speed_points > 0);
    CHECK(r.default_check_points > 0);
    // Races cost points everywhere; the emulator's run stays small (about a second of CPU).
    CHECK(r.points_for("races") > 0);
    CHECK(r.limits.emulator_largest >= 65536);
    CHECK(r.limits.emulator_largest <= (uint64_t(1) << 21));
  }
  // Lab 3's in-place level shows only past 1024^2 with the notebook's 1,024-element blocks.
  CHECK(load_rubric(fs::path(CUDALAB_REPO) / "grading/rubrics/lab3.toml").limits.emulator_largest >= 1048577);
  CHECK(parse_rubric("lab = 3\n", "x").limits.emulator_largest == uint64_t(1) << 20);
  CHECK_THROWS_AS(parse_rubric("lab = 3\n[limits]\nemulator_largest = 0\n", "x.toml"), RubricError);
  CHECK_THROWS_WITH_AS(parse_rubric("lab = 3\n[speed]\npoints = \"ten\"\n", "x.toml"),
                       "x.toml: speed.points must be a number", RubricError);
  CHECK_THROWS_AS(parse_rubric("lab = 3\n[rules]\nforbid = [\"numpy\"]\n", "x.toml"), RubricError);
  CHECK_THROWS_AS(parse_rubric("lab = \n", "x.toml"), RubricError);
  CHECK_THROWS_AS(parse_rubric("lab = 3\n[speed]\nfull_points_at = 5\nno_points_at = 2\n", "x.toml"), RubricError);
}

TEST_CASE("rubrics: ids that name no real check are found") {
  Rubric r =
      parse_rubric("lab = 1\n[checks]\nhidden = [\"milion\"]\n[checks.points]\nodd_size = 3\nodd_sise = 2\n", "x");
  CHECK(r.unknown_checks({"odd_size", "million"}) == std::vector<std::string>{"milion", "odd_sise"});
  CHECK(r.unknown_checks({"odd_size", "odd_sise", "milion"}).empty());
}

TEST_CASE("speed points, reference anchor: full at or under full_points_at, none at no_points_at, log in between") {
  Rubric r = parse_rubric(
      "lab = 3\n[speed]\npoints = 10\nanchor = \"reference\"\nfull_points_at = 1.2\nno_points_at = 10\n", "x");
  auto points = [&](double ratio) { return r.speed_points_for(r.speed_fraction_vs_reference(ratio)); };
  CHECK(points(0.5) == 10);
  CHECK(points(1.2) == 10);
  CHECK(points(10) == 0);
  CHECK(points(50) == 0);
  CHECK(points(std::sqrt(12.0)) == doctest::Approx(5).epsilon(0.01));  // geometric middle
  r.curve = "linear";
  CHECK(points(5.6) == doctest::Approx(5).epsilon(0.01));
}

TEST_CASE("speed points, naive anchor: none at the naive kernel's speed, full near the reference's, log in between") {
  Rubric r = parse_rubric("lab = 3\n[speed]\npoints = 10\nfull_points_at = 1.0\n", "x");
  CHECK(r.anchor == "naive");
  auto points = [&](double speedup) { return r.speed_points_for(r.speed_fraction_vs_naive(speedup, 16.0)); };
  CHECK(points(0.5) == 0);  // slower than the naive kernel
  CHECK(points(1.0) == 0);  // the naive kernel itself
  CHECK(points(4.0) == doctest::Approx(5));  // half the doublings to the reference's 16x
  CHECK(points(16.0) == 10);
  CHECK(points(40.0) == 10);  // faster than the reference: still the full points, no more
  r.full_at = 1.05;  // slack for timing noise: 16/1.05 = 15.24x gets full points
  CHECK(points(15.3) == 10);
  CHECK(points(14.0) < 10);
  r.curve = "linear";
  r.full_at = 1.0;
  CHECK(points(8.5) == doctest::Approx(5));
  CHECK_THROWS_AS(parse_rubric("lab = 3\n[speed]\nanchor = \"cub\"\n", "x"), RubricError);
}

TEST_CASE("speed points come in steps coarser than timing noise: kernels 1% apart get the same points") {
  // Measured on the H100 (300 lab-3 students): one kernel's copies had speed-ups 6.41 to 6.48
  // over the naive kernel against the reference's 12.05, which gave 7.62 to 7.67 points.
  Rubric r = parse_rubric("lab = 3\n[speed]\npoints = 10\n", "x");
  CHECK(r.step == 0.5);
  auto points = [&](double speedup) { return r.speed_points_for(r.speed_fraction_vs_naive(speedup, 12.05)); };
  CHECK(points(6.41) == points(6.48));
  CHECK(points(6.41) == 7.5);
  CHECK(points(3.30) == points(3.33));
  CHECK(points(12.05) == 10);
  r = parse_rubric("lab = 3\n[speed]\npoints = 10\nstep = 2\n", "x");
  CHECK(points(6.41) == 8);
  CHECK_THROWS_AS(parse_rubric("lab = 3\n[speed]\nstep = 0\n", "x"), RubricError);
}

TEST_CASE("scoring: the naive anchor says both speed-ups; a lab whose naive kernel is its reference falls back") {
  Rubric rubric = parse_rubric("lab = 3\n[speed]\npoints = 10\nfull_points_at = 1.0\n", "x");
  StudentResult r;
  r.verdict = kGraded;
  r.backend = "cuda";
  r.checks = {{"a", "", "pass", "", {}}};
  r.student_ms = 0.25;  // 4x as fast as its run's naive kernel
  r.naive_ms = 1.0;
  r.reference_ms = 0.1;  // 16x as fast as its run's naive kernel
  r.reference_naive_ms = 1.6;
  Score s = score(r, rubric);
  CHECK(s.speed.speedup == doctest::Approx(4));
  CHECK(s.speed.reference_speedup == doctest::Approx(16));
  CHECK(s.speed.points == doctest::Approx(5));
  CHECK(s.speed.note.find("4.00x as fast as the harness's naive kernel; the reference solution is 16.00x") !=
        std::string::npos);
  CHECK(s.speed.rule.find("no points at the naive kernel's speed") != std::string::npos);

  r.reference_naive_ms = 0.11;  // the naive kernel is about as fast as the reference (lab 1)
  Score flat = score(r, rubric);
  CHECK(flat.speed.rule.find("the reference alone sets the scale") != std::string::npos);
  CHECK(flat.speed.points == doctest::Approx(rubric.speed_points_for(rubric.speed_fraction_vs_reference(2.5))));

  r.naive_ms.reset();  // a result saved before the naive kernel was timed
  r.reference_naive_ms.reset();
  CHECK(score(r, rubric).speed.rule.find("was not measured") != std::string::npos);
}

TEST_CASE("scoring: skipped checks leave the maximum; speed only for correct GPU results") {
  Rubric rubric = parse_rubric(
      "lab = 1\n[checks]\ndefault_points = 2\nhidden = [\"b\"]\n[checks.points]\na = 5\n[speed]\npoints = 10\n", "x");
  StudentResult r;
  r.verdict = kGraded;
  r.backend = "cuda";
  r.checks = {{"a", "", "pass", "", {}}, {"b", "", "pass", "", {}}, {"c", "", "skipped", "", {}}};
  r.student_ms = 2.4;
  r.reference_ms = 1.0;
  Score s = score(r, rubric);
  CHECK(s.correct);
  CHECK(s.maximum == 17);  // 5 + 2 + speed 10; the skipped check is out
  CHECK(s.speed.status == "graded");
  CHECK(s.total == doctest::Approx(7 + rubric.speed_points_for(rubric.speed_fraction_vs_reference(2.4))));
  CHECK(s.checks[1].hidden);

  r.checks[1].status = "fail";
  Score wrong = score(r, rubric);
  CHECK(wrong.speed.points == 0);
  CHECK(wrong.speed.status == "no points");
  CHECK(wrong.total == 5);

  r.backend = "cpu";
  Score cpu = score(r, rubric);
  CHECK(cpu.maximum == 7);
  CHECK(cpu.speed.status == "not graded");

  r.verdict = kRejected;
  CHECK(score(r, rubric).total == 0);
}

TEST_CASE("verdict frame: only one frame with the run's secret is believed") {
  const std::string secret(64, 'a'), other(64, 'b');
  auto frame = [](const std::string& s, const std::string& json) {
    return "CUDALAB-VERDICT-1 " + s + " " + std::to_string(json.size()) + "\n" + json + "\nCUDALAB-VERDICT-END " + s +
           "\n";
  };
  Verdict ok = find_verdict("noise" + frame(other, "{\"fake\":1}") + frame(secret, "{\"real\":1}") + "tail", secret);
  REQUIRE(ok.ok);
  CHECK(ok.json == "{\"real\":1}");
  CHECK_FALSE(find_verdict(frame(other, "{}"), secret).ok);
  CHECK_FALSE(find_verdict(frame(secret, "{}") + frame(secret, "{}"), secret).ok);
  std::string cut = frame(secret, "{\"real\":1}");
  CHECK_FALSE(find_verdict(cut.substr(0, cut.size() - 10), secret).ok);
  CHECK_FALSE(find_verdict("", secret).ok);
}

TEST_CASE("results survive a round trip through JSON") {
  StudentResult r;
  r.student = "alice";
  r.verdict = kGraded;
  r.checks = {{"a", "t", "error", "m", {"d1"}, "time_limit", "checker"}};
  r.student_ms = 1.5;
  StudentResult back = result_from_json(to_json(r));
  CHECK(back.student == "alice");
  CHECK(back.checks[0].details == std::vector<std::string>{"d1"});
  CHECK(back.checks[0].cause == "time_limit");
  CHECK(ended_its_runner(back.checks[0]));
  CHECK(*back.student_ms == 1.5);
  CHECK_FALSE(back.reference_ms);
  r.naive_ms = 3.0;
  r.reference_naive_ms = 2.0;
  StudentResult timed = result_from_json(to_json(r));
  CHECK(*timed.naive_ms == 3.0);
  CHECK(*timed.reference_naive_ms == 2.0);
  // A result saved before the naive kernel was timed still reads.
  nlohmann::json old = to_json(r);
  old.erase("naive_ms");
  old.erase("reference_naive_ms");
  CHECK_FALSE(result_from_json(old).naive_ms);
}

TEST_CASE("Gradescope leaderboard: a correct, timed kernel's time and speed-up; nothing for the rest") {
  Rubric rubric = parse_rubric("lab = 3\n[speed]\npoints = 10\n", "x");
  StudentResult r;
  r.verdict = kGraded;
  r.backend = "cuda";
  r.checks = {{"a", "", "pass", "", {}}};
  r.student_ms = 0.25;
  r.naive_ms = 1.0;
  r.reference_ms = 0.1;
  r.reference_naive_ms = 1.6;
  nlohmann::json j = gradescope_json(r, rubric, LabInfo{3, "sum"});
  REQUIRE(j.contains("leaderboard"));
  CHECK(j["leaderboard"][0]["name"] == "Kernel time (ms)");
  CHECK(j["leaderboard"][0]["value"] == doctest::Approx(0.25));
  CHECK(j["leaderboard"][0]["order"] == "asc");
  CHECK(j["leaderboard"][1]["value"] == doctest::Approx(4));
  r.checks[0].status = "fail";
  CHECK_FALSE(gradescope_json(r, rubric, LabInfo{3, "sum"}).contains("leaderboard"));
  r.checks[0].status = "pass";
  r.backend = "cpu";
  CHECK_FALSE(gradescope_json(r, rubric, LabInfo{3, "sum"}).contains("leaderboard"));
}

TEST_CASE("a visible check's message never names a hidden check, not even as a pointer back to it") {
  const std::set<std::string> hidden = {"million", "b512_cubed_plus_one"};
  CHECK(without_hidden_check_ids("the same error as check million", hidden) == "the same error as a hidden check");
  CHECK(without_hidden_check_ids("the same kind of race as check b512_cubed_plus_one (see there)", hidden) ==
        "the same kind of race as a hidden check (see there)");
  // Whole ids only.
  CHECK(without_hidden_check_ids("the same error as check million_and_change", hidden) ==
        "the same error as check million_and_change");
  CHECK(without_hidden_check_ids("1,000,000 elements", hidden) == "1,000,000 elements");
}

// A check of a checker's report (schema 2), as the checker writes it.
static nlohmann::json report_check(const std::string& id, const std::string& status, const std::string& cause,
                                   const std::string& judged_by = "checker") {
  return {{"id", id},
          {"title", id},
          {"status", status},
          {"cause", cause},
          {"judged_by", judged_by},
          {"message", "words for people"},
          {"notes", nlohmann::json::array()}};
}

TEST_CASE("the checker's report: each check's cause and judge are read as fields; another schema is refused") {
  nlohmann::json report = {{"cudalab", kReportSchema},
                           {"lab", 1},
                           {"backend", "cuda"},
                           {"checks",
                            {report_check("one", "error", "time_limit"),
                             report_check("barriers", "skipped", "needs_emulator", "emulator")}}};
  LabReport r = parse_lab_report(report.dump());
  REQUIRE(r.checks.size() == 2);
  CHECK(r.checks[0].cause == "time_limit");
  CHECK(ended_its_runner(r.checks[0]));
  CHECK(r.checks[1].judged_by == "emulator");
  // A report of schema 1 (no causes) is the instructor's to fix, never read as a verdict.
  report["cudalab"] = 1;
  CHECK_THROWS_AS(parse_lab_report(report.dump()), ReportSchemaError);
}

TEST_CASE("--profile: the report's section is read; feedback and Gradescope show it, or why not, and no point moves") {
  nlohmann::json report = {{"cudalab", kReportSchema},
                           {"lab", 1},
                           {"backend", "cpu"},
                           {"checks", {report_check("one", "pass", "none")}},
                           {"profile",
                            {{"ran", true},
                             {"size", "262144"},
                             {"problem", ""},
                             {"limiter", "none"},
                             {"first_sentence", "Nothing stands out."},
                             {"text", "Nothing stands out.\n\nfigure   yours   reference\n"}}}};
  LabReport lr = parse_lab_report(report.dump());
  REQUIRE(lr.profile);
  CHECK(lr.profile->ran);
  CHECK(lr.profile->first_sentence == "Nothing stands out.");
  report.erase("profile");
  CHECK_FALSE(parse_lab_report(report.dump()).profile);

  Rubric rubric = parse_rubric("lab = 1\n[speed]\npoints = 10\n", "x");
  StudentResult r;
  r.verdict = kGraded;
  r.backend = "cpu";
  r.checks = {{"one", "", "pass", "", {}}};
  const std::string plain_feedback = feedback_markdown(r, rubric, LabInfo{1, "sum"});
  const double plain_score = gradescope_json(r, rubric, LabInfo{1, "sum"})["score"].get<double>();
  CHECK(plain_feedback.find(kProfileHeading) == std::string::npos);
  // Made: the checker's text in a code block of its own (a fence inside it is defused), in both files.
  r.profile_status = "made";
  r.profile_size = "262144";
  r.profile_text = "Nothing stands out.\n```\nfigure   yours   reference\n\x1b[31mred\n";
  std::string fb = feedback_markdown(r, rubric, LabInfo{1, "sum"});
  CHECK(fb.find(std::string("## ") + kProfileHeading) != std::string::npos);
  CHECK(fb.find("Nothing stands out.") != std::string::npos);
  CHECK(fb.find("'''") != std::string::npos);
  CHECK(fb.find('\x1b') == std::string::npos);
  CHECK(fb.find("**Score: 10 / 10**") == plain_feedback.find("**Score: 10 / 10**"));
  nlohmann::json gs = gradescope_json(r, rubric, LabInfo{1, "sum"});
  CHECK(gs["output"].get<std::string>().find(kProfileHeading) != std::string::npos);
  CHECK(gs["score"].get<double>() == plain_score);
  CHECK(gs["tests"].size() == gradescope_json(StudentResult(r), rubric, LabInfo{1, "sum"})["tests"].size());
  // Not made: says so, costs nothing.
  r.profile_status = "not_made";
  r.profile_text = "your file did not build as a profile runner for the CPU backend (exited with status 2)";
  fb = feedback_markdown(r, rubric, LabInfo{1, "sum"});
  CHECK(fb.find("could not be made") != std::string::npos);
  CHECK(fb.find("costs you nothing") != std::string::npos);
  CHECK(gradescope_json(r, rubric, LabInfo{1, "sum"})["score"].get<double>() == plain_score);
  // Kept through result.json (resumption and rescoring keep the section).
  StudentResult back = result_from_json(to_json(r));
  CHECK(back.profile_status == "not_made");
  CHECK(back.profile_text == r.profile_text);
}

TEST_CASE("a stub is told from a wrong answer by the causes, whatever the messages say") {
  auto outcome = [](const std::string& status, const std::string& cause) {
    CheckOutcome c;
    c.status = status;
    c.cause = cause;
    c.message = "the output was never written";  // the words play no part
    return c;
  };
  CHECK(looks_handed_in_as_stub({outcome("fail", "unwritten_output"), outcome("not_run", "not_judged")}));
  CHECK_FALSE(looks_handed_in_as_stub({outcome("fail", "unwritten_output"), outcome("fail", "wrong_values")}));
  CHECK_FALSE(looks_handed_in_as_stub({outcome("fail", "unwritten_output"), outcome("pass", "none")}));
  CHECK_FALSE(looks_handed_in_as_stub({outcome("error", "crash")}));
}

TEST_CASE("lost points' reasons: a race and a skipped barrier are reasons of their own, not wrong answers") {
  auto graded = [](std::vector<std::pair<std::string, std::string>> checks) {
    StudentResult r;
    r.verdict = kGraded;
    for (const auto& [status, cause] : checks) {
      CheckOutcome c;
      c.status = status;
      c.cause = cause;
      r.checks.push_back(c);
    }
    return r;
  };
  CHECK(failure_reasons(graded({{"pass", "none"}, {"fail", "race"}})) == std::vector<std::string>{"races"});
  CHECK(failure_reasons(graded({{"fail", "barrier_divergence"}})) == std::vector<std::string>{"barrier divergence"});
  CHECK(failure_reasons(graded({{"fail", "wrong_values"}, {"fail", "race"}})) ==
        std::vector<std::string>{"races", "wrong answers"});
}

TEST_CASE("the emulator's build is the CPU backend under its race detector") {
  CHECK(build_settings(kEmulatorBuild) == std::vector<std::string>{"BACKEND=cpu", "CHECK=race"});
  CHECK(build_settings("cuda") == std::vector<std::string>{"BACKEND=cuda"});
}

TEST_CASE("emulator verdicts: the emulator-judged checks take the emulator run's verdict, the rest stay") {
  CheckOutcome gpu_barriers;
  gpu_barriers.id = "barriers";
  gpu_barriers.status = "skipped";
  gpu_barriers.cause = "needs_emulator";
  gpu_barriers.judged_by = "emulator";
  CheckOutcome gpu_sum;
  gpu_sum.id = "one";
  gpu_sum.status = "pass";
  CheckOutcome cpu_barriers = gpu_barriers;
  cpu_barriers.status = "fail";
  cpu_barriers.cause = "barrier_divergence";
  CheckOutcome cpu_sum = gpu_sum;
  cpu_sum.status = "fail";  // the emulator's word on a check the GPU judges is not taken
  std::vector<CheckOutcome> checks = {gpu_sum, gpu_barriers};
  CHECK(has_emulator_checks(checks));
  take_emulator_verdicts(checks, {cpu_sum, cpu_barriers});
  CHECK(checks[0].status == "pass");
  CHECK(checks[1].status == "fail");
  CHECK(checks[1].cause == "barrier_divergence");
  // Without an emulator run, the checker's own verdict stays, with the reason.
  std::vector<CheckOutcome> kept = {gpu_sum, gpu_barriers};
  keep_checker_verdicts(kept, "your file did not build for the CPU backend");
  CHECK(kept[1].status == "skipped");
  CHECK(kept[1].details.back().find("did not build") != std::string::npos);
  CHECK_FALSE(has_emulator_checks({gpu_sum}));
}

TEST_CASE("emulator verdicts: an array indexed or read past its end takes the emulator's verdict over a GPU's pass") {
  CheckOutcome gpu;
  gpu.id = "block_plus_one";
  gpu.status = "pass";  // the element past the end was another variable's: no error on a GPU
  CheckOutcome other = gpu;
  other.id = "one_element";
  CheckOutcome cpu = gpu;
  cpu.status = "error";
  cpu.cause = "past_array_end";
  cpu.message =
      "kernel k failed while running: an illegal memory access was encountered (cudaErrorIllegalAddress): a thread "
      "indexed an array past its end: on a GPU that reads or overwrites another variable without any error. Check "
      "the index against the array's size";
  CheckOutcome cpu_other = other;
  cpu_other.status = "error";  // an emulator failure of another kind: the GPU's verdict stays
  cpu_other.cause = "context_lost";
  cpu_other.message = "kernel k failed while running: an illegal memory access was encountered";
  std::vector<CheckOutcome> checks = {other, gpu};
  take_emulator_verdicts(checks, {cpu_other, cpu});
  CHECK(checks[0].status == "pass");
  CHECK(checks[1].status == "error");
  CHECK(checks[1].message == cpu.message);
  CHECK(checks[1].details.back().find("every index") != std::string::npos);
  // The grader acts on the cause, never on the words: the same words with another cause change nothing.
  CheckOutcome words_only = cpu;
  words_only.cause = "context_lost";
  checks = {other, gpu};
  take_emulator_verdicts(checks, {cpu_other, words_only});
  CHECK(checks[1].status == "pass");
}

TEST_CASE(
    "emulator verdicts: a race that changed the answers there fails the check on every run; a harmless one does not") {
  // The GPU's verdict of a racy check is chance: pass on one run, fail on the next.
  CheckOutcome gpu_pass;
  gpu_pass.id = "block_plus_one";
  gpu_pass.status = "pass";
  CheckOutcome gpu_fail = gpu_pass;
  gpu_fail.status = "fail";
  gpu_fail.cause = "wrong_values";
  gpu_fail.message = "bin 7 is 3, expected 4";
  // The emulator's: the checker fails a check on a named race only when it changed the answers
  // (wrong in either order it ran, or a read and a write at one line: a lost update).
  CheckOutcome cpu = gpu_pass;
  cpu.status = "fail";
  cpu.cause = "race";
  cpu.message =
      "a data race on shared memory (s_hist): a read and a write at lab6_histogram.cu:21 touch the same memory from "
      "two threads (thread 3 of block 0, thread 6 of block 0): two threads can both read the old value before either "
      "writes, and one update is lost (a plain += or ++): use atomicAdd";
  for (const CheckOutcome& gpu : {gpu_pass, gpu_fail}) {
    std::vector<CheckOutcome> checks = {gpu};
    take_emulator_verdicts(checks, {cpu});
    CHECK(checks[0].status == "fail");
    CHECK(checks[0].cause == "race");
    CHECK(checks[0].message == cpu.message);
    CHECK(checks[0].details.back().find("the same verdict on every run") != std::string::npos);
  }
  // A race whose answers came out right in both orders (every thread writing the same sum): the
  // emulator's check passed, with the race as a note, and the GPU's verdict stays, pass or fail.
  CheckOutcome harmless = gpu_pass;
  harmless.details = {
      "a data race on global memory (d_block_sums): writes at lab1_naive_sum.cu:17 touch the same "
      "memory from two threads",
      "your answers came out right with the threads and blocks in either order, so this check keeps "
      "its points; the race is still there, and the races check fails on it"};
  for (const CheckOutcome& gpu : {gpu_pass, gpu_fail}) {
    std::vector<CheckOutcome> checks = {gpu};
    take_emulator_verdicts(checks, {harmless});
    CHECK(checks[0].status == gpu.status);
    CHECK(checks[0].message == gpu.message);
  }
}

TEST_CASE("emulator meeting: a student is finished once, when both halves are in, whichever comes first") {
  GradingContext ctx;
  ctx.work = std::filesystem::temp_directory_path();
  std::vector<StudentResult> finished;
  EmulatorMeeting meeting(ctx, [&](const StudentResult& r) { finished.push_back(r); });
  auto built = [](const std::string& student, const std::string& emulator_status) {
    Built b;
    b.result.student = student;
    b.emulator_later = true;
    CheckOutcome barriers;
    barriers.id = "barriers";
    barriers.status = emulator_status;
    barriers.cause = emulator_status == "fail" ? "barrier_divergence" : "none";
    barriers.judged_by = "emulator";
    b.emulator_run = EmulatorRun{std::vector<CheckOutcome>{barriers}, "", 1.5};
    return b;
  };
  auto gpu_result = [](const std::string& student) {
    StudentResult r;
    r.student = student;
    r.verdict = kGraded;
    CheckOutcome barriers;
    barriers.id = "barriers";
    barriers.status = "skipped";
    barriers.cause = "needs_emulator";
    barriers.judged_by = "emulator";
    r.checks = {barriers};
    return r;
  };

  // The GPU's half first: nothing is finished until the emulator's comes.
  meeting.gpu_done(built("a", "fail"), gpu_result("a"), true);
  CHECK(finished.empty());
  meeting.emulator_done(built("a", "fail"));
  REQUIRE(finished.size() == 1);
  CHECK(finished[0].checks[0].status == "fail");
  CHECK(finished[0].checks[0].cause == "barrier_divergence");

  // The emulator's half first.
  meeting.emulator_done(built("b", "pass"));
  CHECK(finished.size() == 1);
  meeting.gpu_done(built("b", "pass"), gpu_result("b"), true);
  REQUIRE(finished.size() == 2);
  CHECK(finished[1].checks[0].status == "pass");

  // A run that ended in trouble takes no emulator verdict: finished at once, and the emulator's
  // half, coming later, finishes no one a second time.
  meeting.gpu_done(built("c", "pass"), gpu_result("c"), false);
  REQUIRE(finished.size() == 3);
  CHECK(finished[2].checks[0].status == "skipped");
  meeting.emulator_done(built("c", "pass"));
  CHECK(finished.size() == 3);

  // The grader's own trouble on one half: the student is not finished in this run at all.
  meeting.abandon("d");
  meeting.gpu_done(built("d", "pass"), gpu_result("d"), true);
  meeting.finish_the_rest();
  CHECK(finished.size() == 3);

  // A GPU half whose emulator half never came: finished at the end, keeping the GPU's verdict.
  meeting.gpu_done(built("e", "fail"), gpu_result("e"), true);
  CHECK(finished.size() == 3);
  meeting.finish_the_rest();
  REQUIRE(finished.size() == 4);
  CHECK(finished[3].checks[0].status == "skipped");
  CHECK(finished[3].checks[0].details.back().find("emulator") != std::string::npos);
}
