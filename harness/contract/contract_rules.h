// The link contract's rules, judged on a lab file's compiled object (docs/link_contract.md).
//
// Each broken rule is a Breach: its kind (data a program can count), the symbol, where the file
// uses it, why the lab forbids it and what to write instead. The rules:
//   * definitions: the lab's functions, kernels and helpers of the file's own; no name of the C
//     library, the CUDA runtime, the C++ library or the harness; no weak (but the compiler's
//     own inline copies), ifunc, versioned or absolute symbol;
//   * references: only names on the lab's list (its header's `cudalab-may-call:`) or always
//     allowed (launch machinery, printing, math, language support);
//   * code before main: only the compiler's own kernel registration, the harness header's note
//     of the file name and iostream's set-up, recognised by everything they call;
//   * sections: only the ones compilers write.
#pragma once
#include <string>
#include <vector>

#include "contract_policy.h"
#include "elf_object.h"

namespace cudalab::contract {

enum class BreachKind {
  defines_reserved_name,  // a name of libc, the CUDA runtime, the C++ library or the harness
  weak_definition,  // __attribute__((weak)), ifunc, .symver, an absolute symbol
  calls_outside_contract,  // a reference the lab's list does not allow
  runs_before_main,  // a static initializer doing more than the compiler's own
  foreign_section,  // a section no compiler writes for plain code
  missing_lab_function,  // the lab's function is not defined
  system_call_instruction,  // host code with a syscall / sysenter / int $0x80 instruction (machine_code.h)
  race_detector_opt_out,  // race build: a function touching memory without the detector's hooks
};

const char* breach_kind_name(BreachKind kind);  // "calls_outside_contract"

struct Breach {
  BreachKind kind;
  std::string symbol;  // demangled, for people
  std::vector<std::string> used_in;  // the file's functions that reference it
  std::string why;
  std::string instead;
};

std::vector<Breach> judge_object(const ElfObject& object, Backend backend, const LabContract& contract,
                                 Build build = Build::plain);

}  // namespace cudalab::contract
