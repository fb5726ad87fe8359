// The Gradescope autograder (`make gradescope LAB=N`), as it is uploaded: no solution in it,
// for any lab. (That the student's code runs there as an unprivileged uid of its own, and
// that nothing of it outlives its time limit, in a container without namespaces or cgroups:
// jail_test.cpp.)
#include <doctest/doctest.h>

#include <unistd.h>

#include <fstream>
#include <string>

#include "util.h"

using namespace grading;

namespace {

const fs::path kRepo = CUDALAB_REPO;

// Fails (exit 1, each problem on a line) when the zip holds a path with "solutions" in it, the
// header line every reference solution starts with, or three consecutive lines of any
// solution's own code (lines that are not in its lab's stub: single idioms are shared with
// the handed-out stubs and the harness, a copied kernel is not).
const char* kInspect = R"(
import glob, os, sys, zipfile
zip_path, repo = sys.argv[1:3]
z = zipfile.ZipFile(zip_path)
files = {n: z.read(n).decode("utf-8", "replace") for n in z.namelist() if not n.endswith("/")}
problems = [n + ": a solutions path" for n in files if "solutions" in n.lower()]
stripped = {n: "\n".join(l.strip() for l in t.splitlines()) for n, t in files.items()}
for n, text in files.items():
    if "REFERENCE SOLUTION" in text: problems.append(n + ": a reference solution's header")
for sol in sorted(glob.glob(os.path.join(repo, "solutions", "lab*_*.cu"))):
    stub = os.path.join(repo, "labs", os.path.basename(sol))
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

}  // namespace

TEST_CASE("gradescope: no autograder carries a solution (a path, a header, a copied kernel)") {
  const fs::path out = "/tmp/cudalab-gradescope-test-" + std::to_string(::getpid());
  write_file_atomic(out / "inspect.py", kInspect);
  // The inspection itself catches a copy: a solution with its header cut off, in the harness.
  {
    const fs::path planted = out / "planted" / "source" / "harness";
    fs::create_directories(planted);
    std::string sol = *read_file(kRepo / "solutions/lab3_multilevel_sum.cu", 1 << 20);
    std::ofstream(planted / "helpers.cu") << sol.substr(sol.find("\n\n") + 2);
    int status = 0;
    const std::string found = shell_output("cd " + (out / "planted").string() + " && python3 -m zipfile -c ../planted.zip source && " +
                                               "python3 " + (out / "inspect.py").string() + " ../planted.zip " + kRepo.string() +
                                               " 2>&1",
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
    const std::string made = shell_output("make -s --no-print-directory -C " + kRepo.string() + " gradescope LAB=" + lab +
                                              " GRADING_OUT=" + out.string() + " 2>&1",
                                          &status);
    REQUIRE_MESSAGE(status == 0, made);
    const fs::path zip = out / "gradescope" / (name + "-autograder.zip");
    REQUIRE(fs::exists(zip));
    const std::string found = shell_output("python3 " + (out / "inspect.py").string() + " " + zip.string() + " " + kRepo.string() + " 2>&1",
                                           &status);
    CHECK_MESSAGE(status == 0, name << ": " << found);
    // What runs there: the grader as root, which jails the student as a uid of its own, in a
    // container that may allow no namespaces (--allow-degraded keeps the uid and the limits).
    const std::string run = read_file(out / "gradescope" / name / "run_autograder", 1 << 20).value_or("");
    CHECK(run.find("cudalab-grade") != std::string::npos);
    CHECK(run.find("--allow-degraded") != std::string::npos);
    CHECK(read_file(out / "gradescope" / name / "setup.sh", 1 << 20).value_or("").find("test ! -e solutions") != std::string::npos);
    ++labs;
  }
  CHECK(labs >= 8);
  std::error_code ec;
  fs::remove_all(out, ec);
}
