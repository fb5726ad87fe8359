// cudalab-contract: judges a lab file's compiled object against its lab's link contract.
//
//   cudalab-contract --lab 3 --backend cuda|cpu --header harness/include/cudalab/lab3.h
//                    --source labs/lab3_multilevel_sum.cu [--sanitized] [--breaches FILE]
//                    build/cuda/labs/lab3.o
//
// --sanitized: the object was built with -fsanitize (CHECK=asan/race on the CPU backend): the
// sanitizer's own calls, constructors and tables are the compiler's. The grader never passes it.
//
// Exit status: 0 the object keeps the contract (nothing is printed), 1 it does not (each
// broken rule printed for the student: the name, where the file uses it, why, what instead),
// 2 the tool could not judge (a missing file, an object it cannot read): the build's trouble,
// never the student's verdict. Built from harness/contract alone, with no lab file.
#include <cstdio>
#include <cstring>
#include <exception>
#include <fstream>
#include <string>

#include "contract_report.h"
#include "contract_rules.h"
#include "machine_code.h"

namespace {

struct Options {
  int lab = 0;
  std::string backend, header, source, object;
  std::string breaches_file;  // --breaches: one "kind<TAB>symbol" line per broken rule, for programs
  bool sanitized = false;
};

bool parse(int argc, char** argv, Options& o) {
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&](std::string& into) { return i + 1 < argc ? (into = argv[++i], true) : false; };
    std::string lab;
    if (a == "--lab") {
      if (!value(lab)) return false;
      o.lab = std::atoi(lab.c_str());
    } else if (a == "--backend") {
      if (!value(o.backend)) return false;
    } else if (a == "--header") {
      if (!value(o.header)) return false;
    } else if (a == "--breaches") {
      if (!value(o.breaches_file)) return false;
    } else if (a == "--sanitized") {
      o.sanitized = true;
    } else if (a == "--source") {
      if (!value(o.source)) return false;
    } else if (o.object.empty() && a.rfind("--", 0) != 0) {
      o.object = a;
    } else {
      return false;
    }
  }
  return o.lab > 0 && (o.backend == "cuda" || o.backend == "cpu") && !o.header.empty() && !o.object.empty();
}

// The verdict as data for the grader: the file exists only when a rule is broken.
void write_breaches(const std::vector<cudalab::contract::Breach>& breaches, const std::string& path) {
  std::remove(path.c_str());
  if (breaches.empty()) return;
  std::ofstream out(path);
  for (const auto& b : breaches) out << cudalab::contract::breach_kind_name(b.kind) << '\t' << b.symbol << '\n';
}

}  // namespace

int main(int argc, char** argv) {
  using namespace cudalab::contract;
  Options o;
  if (!parse(argc, argv, o)) {
    std::fprintf(stderr,
                 "usage: cudalab-contract --lab N --backend cuda|cpu --header labN.h [--source file.cu] [--sanitized] "
                 "object.o\n");
    return 2;
  }
  try {
    LabContract contract = read_lab_contract(o.lab, o.header);
    ElfObject object = ElfObject::read(o.object);
    const Build build = o.sanitized ? Build::sanitized : Build::plain;
    auto breaches = judge_object(object, o.backend == "cuda" ? Backend::cuda : Backend::cpu, contract, build);
    judge_machine_code(o.object, build, breaches);
    if (!o.breaches_file.empty()) write_breaches(breaches, o.breaches_file);
    if (breaches.empty()) return 0;
    std::fputs(format_breaches(breaches, contract, o.source).c_str(), stderr);
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "cudalab-contract: cannot judge %s: %s\n", o.object.c_str(), e.what());
    return 2;
  }
}
