// The Gradescope autograder (`make gradescope LAB=N`), as it is uploaded: no solution in it,
// for any lab. (That the student's code runs there as an unprivileged uid of its own, and
// that nothing of it outlives its time limit, in a container without namespaces or cgroups:
// jail_test.cpp.)
#include <doctest/doctest.h>

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <string>

#include "shipped_stub.h"
#include "safe_io/files.h"

using namespace grading;
using grading_test::committed_file;
using grading_test::shipped_stub;

namespace {

const fs::path kRepo = CUDALAB_REPO;

// Fails (exit 1, each problem on a line) when the zip holds a path with "solutions" in it, the
// header line every reference solution starts with, or three consecutive lines of any
// solution's own code (lines that are not in its lab's stub: single idioms are shared with
// the handed-out stubs and the harness, a copied kernel is not). KIT holds solutions/ and
// labs/, the stubs as shipped (kit_for_inspection): a lab filled in in the working copy would
// make every line of its solution a "stub" line, and the inspection blind to it.
const char* kInspect = R"(
import glob, os, sys, zipfile
zip_path, kit = sys.argv[1:3]
z = zipfile.ZipFile(zip_path)
files = {n: z.read(n).decode("utf-8", "replace") for n in z.namelist() if not n.endswith("/")}
problems = [n + ": a solutions path" for n in files if "solutions" in n.lower()]
stripped = {n: "\n".join(l.strip() for l in t.splitlines()) for n, t in files.items()}
for n, text in files.items():
    if "REFERENCE SOLUTION" in text: problems.append(n + ": a reference solution's header")
for sol in sorted(glob.glob(os.path.join(kit, "solutions", "lab*_*.cu"))):
    stub = os.path.join(kit, "labs", os.path.basename(sol))
    stub_lines = set(l.strip() for l in open(stub, encoding="utf-8", errors="replace")) if os.path.exists(stub) else set()
    own = [l.strip() for l in open(sol, encoding="utf-8", errors="replace")]
    own = [l if l and l not in stub_lines else None for l in own]
    runs = ["\n".join(own[i:i + 3]) for i in range(len(own) - 2) if all(own[i:i + 3])]
    for n, text in stripped.items():
        for r in runs:
            if r in text:
                problems.append(n + ": three lines of " + os.path.basename(sol) + ": " + r.splitlines()[0])
                break
print("\n".join(problems) if problems else "clean: %d files" % len(files))
sys.exit(1 if problems else 0)
)";

std::string shell_output(const std::string& cmd, int* status) {
  std::string out;
  if (FILE* p = ::popen(cmd.c_str(), "r")) {
    char buf[4096];
    size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
    *status = ::pclose(p);
  } else {
    *status = -1;
  }
  return out;
}

// The folder kInspect reads: the repository's solutions and its stubs as shipped.
fs::path kit_for_inspection(const fs::path& dir) {
  fs::create_directories(dir / "solutions");
  fs::create_directories(dir / "labs");
  for (const auto& e : fs::directory_iterator(kRepo / "solutions")) {
    const std::string name = e.path().filename().string();
    if (name.rfind("lab", 0) != 0 || e.path().extension() != ".cu") continue;
    fs::copy_file(e.path(), dir / "solutions" / name, fs::copy_options::overwrite_existing);
    if (fs::exists(kRepo / "labs" / name) || committed_file(kRepo, "labs/" + name))
      write_file_atomic(dir / "labs" / name, shipped_stub(kRepo, "labs/" + name));
  }
  return dir;
}

}  // namespace

TEST_CASE("gradescope: no autograder carries a solution (a path, a header, a copied kernel)") {
  const fs::path out = "/tmp/cudalab-gradescope-test-" + std::to_string(::getpid());
  write_file_atomic(out / "inspect.py", kInspect);
  const fs::path kit = kit_for_inspection(out / "kit");
  // The inspection itself catches a copy: a solution with its header cut off, in the harness.
  {
    const fs::path planted = out / "planted" / "source" / "harness";
    fs::create_directories(planted);
    std::string sol = *read_file(kRepo / "solutions/lab3_multilevel_sum.cu", 1 << 20);
    std::ofstream(planted / "helpers.cu") << sol.substr(sol.find("\n\n") + 2);
    int status = 0;
    const std::string found =
        shell_output("cd " + (out / "planted").string() + " && python3 -m zipfile -c ../planted.zip source && " +
                         "python3 " + (out / "inspect.py").string() + " ../planted.zip " + kit.string() + " 2>&1",
                     &status);
    CHECK_MESSAGE(status != 0, found);
    CHECK_MESSAGE(found.find("three lines of lab3_multilevel_sum.cu") != std::string::npos, found);
  }
  int labs = 0;
  for (const auto& e : fs::directory_iterator(kRepo / "grading/rubrics")) {
    const std::string name = e.path().stem().string();  // lab3
    if (name.rfind("lab", 0) != 0) continue;
    const std::string lab = name.substr(3);
    int status = 0;
    const std::string made = shell_output("make -s --no-print-directory -C " + kRepo.string() +
                                              " gradescope LAB=" + lab + " GRADING_OUT=" + out.string() + " 2>&1",
                                          &status);
    REQUIRE_MESSAGE(status == 0, made);
    const fs::path zip = out / "gradescope" / (name + "-autograder.zip");
    REQUIRE(fs::exists(zip));
    const std::string found = shell_output(
        "python3 " + (out / "inspect.py").string() + " " + zip.string() + " " + kit.string() + " 2>&1", &status);
    CHECK_MESSAGE(status == 0, name << ": " << found);
    // What runs there: the grader as root, which jails the student as a uid of its own, in a
    // container that may allow no namespaces (--allow-degraded keeps the uid and the limits).
    const std::string run = read_file(out / "gradescope" / name / "run_autograder", 1 << 20).value_or("");
    CHECK(run.find("cudalab-grade") != std::string::npos);
    CHECK(run.find("--allow-degraded") != std::string::npos);
    CHECK(read_file(out / "gradescope" / name / "setup.sh", 1 << 20).value_or("").find("test ! -e solutions") !=
          std::string::npos);
    ++labs;
  }
  CHECK(labs >= 8);
  std::error_code ec;
  fs::remove_all(out, ec);
}

namespace {

std::string zipped(const fs::path& zip, const std::string& name) {
  int status = 0;
  return shell_output(
      "python3 -c 'import sys, zipfile; sys.stdout.write(zipfile.ZipFile(sys.argv[1]).read(sys.argv[2]).decode())' " +
          zip.string() + " " + name + " 2>/dev/null",
      &status);
}

}  // namespace

// An instructor clones the kit, fills in lab 1 to try it (and keeps a note beside it), and makes
// the autograder: the zip holds the committed stub, byte for byte, and nothing of the edit.
TEST_CASE("gradescope: an instructor's filled-in lab never reaches the zip (the last commit is packed)") {
  const std::string rel = "labs/lab1_naive_sum.cu";
  const std::optional<std::string> committed = committed_file(kRepo, rel);
  if (!committed) {
    MESSAGE("skipped: " << kRepo << " is not a git checkout with " << rel
                        << " committed, so there is no last commit to pack");
    return;
  }
  const fs::path root = "/tmp/cudalab-gradescope-shipped-" + std::to_string(::getpid());
  fs::remove_all(root);
  fs::create_directories(root);
  const fs::path repo = root / "repo";
  int status = 0;
  std::string out = shell_output("git clone -q " + kRepo.string() + " " + repo.string() + " 2>&1", &status);
  REQUIRE_MESSAGE(status == 0, out);
  // The zip target under test is the working copy's (the same as the clone's in CI; while it is
  // being changed, the clone's may be older). Copied over, it is a change the zip leaves out.
  fs::copy(kRepo / "Makefile", repo / "Makefile", fs::copy_options::overwrite_existing);
  fs::copy(kRepo / "mk", repo / "mk", fs::copy_options::recursive | fs::copy_options::overwrite_existing);
  // The dependency checks' stamps: the clone needs no compiler run to know its libraries.
  if (fs::exists(kRepo / "build/deps")) {
    fs::create_directories(repo / "build/deps");
    for (const auto& e : fs::directory_iterator(kRepo / "build/deps"))
      if (e.path().extension() == ".ok") fs::copy_file(e.path(), repo / "build/deps" / e.path().filename());
  }
  const std::string solution = *read_file(kRepo / "solutions/lab1_naive_sum.cu");
  REQUIRE(*committed != solution);
  // The instructor tries lab 1 in their clone, and leaves a note of their own beside it.
  std::ofstream(repo / rel) << solution;
  std::ofstream(repo / "labs/lab1_my_notes.cu") << solution;
  REQUIRE(read_file(repo / rel) == solution);
  std::string made =
      shell_output("make -s --no-print-directory -C " + repo.string() + " gradescope LAB=1 2>&1", &status);
  INFO(made);
  REQUIRE(status == 0);
  CHECK(made.find("packed from the last commit") != std::string::npos);
  CHECK(made.find(rel) != std::string::npos);  // named as left out
  const fs::path zip = repo / "build/grading/gradescope/lab1-autograder.zip";
  const std::string shipped = zipped(zip, "source/" + rel);
  CHECK(shipped == *committed);  // byte for byte: `git show HEAD:labs/lab1_naive_sum.cu`
  CHECK(shipped != solution);
  CHECK(zipped(zip, "source/labs/lab1_my_notes.cu").empty());
  // No line of the solution tried in labs/ either (the inspection against lab 1 alone).
  write_file_atomic(root / "inspect.py", kInspect);
  write_file_atomic(root / "lab1/solutions/lab1_naive_sum.cu", solution);
  write_file_atomic(root / "lab1" / rel, *committed);
  const std::string found = shell_output(
      "python3 " + (root / "inspect.py").string() + " " + zip.string() + " " + (root / "lab1").string() + " 2>&1",
      &status);
  CHECK_MESSAGE(status == 0, found);

  // Without git there is nothing else to pack: the working copy goes, with a warning.
  fs::remove_all(repo / ".git");
  made = shell_output("make -s --no-print-directory -C " + repo.string() + " gradescope LAB=1 2>&1", &status);
  CHECK_MESSAGE(status == 0, made);
  CHECK_MESSAGE(made.find("warning: no git repository here") != std::string::npos, made);
  CHECK(zipped(zip, "source/" + rel) == solution);  // so the test above would see an edit packed
  fs::remove_all(root);
}

TEST_CASE("gradescope: run_autograder posts the grader's results, and no score at all when the grader fails") {
  const fs::path root = "/tmp/cudalab-gradescope-run-" + std::to_string(::getpid());
  fs::remove_all(root);
  for (const char* d : {"source/build/grading", "submission", "results"}) fs::create_directories(root / d);
  // The script as shipped, pointed at this folder instead of /autograder, with a stand-in grader.
  std::string script = *read_file(kRepo / "grading/gradescope/run_autograder");
  for (size_t at; (at = script.find("/autograder")) != std::string::npos;) script.replace(at, 11, root.string());
  for (size_t at; (at = script.find("@LAB@")) != std::string::npos;) script.replace(at, 5, "1");
  write_file_atomic(root / "run_autograder", script);
  const fs::path fake = root / "source/build/grading/cudalab-grade";
  auto run = [&](const std::string& grader_body, int* status) {
    write_file_atomic(fake, "#!/bin/sh\n" + grader_body + "\n");
    ::chmod(fake.c_str(), 0755);
    fs::remove(root / "results/results.json");
    return shell_output("bash " + (root / "run_autograder").string() + " 2>&1", status);
  };
  const std::string out = (root / "grades/lab1/students/submission").string();
  int status = 0;
  std::string log = run("mkdir -p " + out + " && echo '{\"score\": 7}' > " + out + "/results.json", &status);
  CHECK_MESSAGE(status == 0, log);
  CHECK(read_file(root / "results/results.json").value_or("") == "{\"score\": 7}\n");
  // The grader stopped before grading (its setup does not work here): no score, a failed run.
  fs::remove_all(root / "grades");
  log = run("echo 'grader: stopped before grading anyone' >&2; exit 2", &status);
  CHECK(WEXITSTATUS(status) != 0);
  CHECK_FALSE(fs::exists(root / "results/results.json"));
  CHECK_MESSAGE(log.find("No score was written") != std::string::npos, log);
  // A results.json left by an earlier run is not posted when the grader fails now.
  log = run("mkdir -p " + out + " && echo '{\"score\": 0}' > " + out + "/results.json; exit 1", &status);
  CHECK(WEXITSTATUS(status) != 0);
  CHECK_FALSE(fs::exists(root / "results/results.json"));
  fs::remove_all(root);
}
