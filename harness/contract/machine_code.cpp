#include "machine_code.h"

#include <cstdio>
#include <regex>
#include <set>
#include <stdexcept>

namespace cudalab::contract {
namespace {

// One function's code, as objdump lists it.
struct FunctionCode {
  std::string name;  // as the symbol table has it (mangled)
  std::vector<std::string> lines;  // "mnemonic operands [relocation]"
};

std::string shell_quoted(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// objdump -d -r: every executable section's functions, each with its instructions (and the
// relocations objdump prints on the instruction's line, -w).
std::vector<FunctionCode> disassemble(const std::string& object_path) {
  const std::string command = "objdump -drw --no-show-raw-insn " + shell_quoted(object_path) + " 2>&1";
  FILE* p = popen(command.c_str(), "r");
  if (!p) throw std::runtime_error("cannot run objdump");
  std::vector<FunctionCode> functions;
  static const std::regex header(R"(^[0-9a-f]+ <(.+)>:$)");
  static const std::regex instruction(R"(^\s*[0-9a-f]+:\s+(.*)$)");
  char buf[4096];
  std::string all;
  while (fgets(buf, sizeof buf, p)) {
    std::string line(buf);
    if (!line.empty() && line.back() == '\n') line.pop_back();
    all += line + "\n";
    std::smatch m;
    if (std::regex_match(line, m, header))
      functions.push_back({m[1].str(), {}});
    else if (!functions.empty() && std::regex_match(line, m, instruction))
      functions.back().lines.push_back(m[1].str());
  }
  const int status = pclose(p);
  if (status != 0) throw std::runtime_error("objdump could not read the object: " + all.substr(0, 300));
  return functions;
}

bool is_system_call(const std::string& insn) {
  static const std::regex call(R"(^(syscall|sysenter|int\s+\$0x80)\b)");
  return std::regex_search(insn, call);
}

// An instruction that reads or writes memory through an operand, where the race detector would
// have put a hook: not an address computation (lea), not a hint (nop, prefetch), not the stack
// (%rsp), not a constant of the compiler's (%rip with a .LC / .rodata relocation).
bool touches_memory(const std::string& insn) {
  static const std::regex no_access(R"(^(lea|nop|prefetch|endbr|bnd|notrack|cs nop|data16))");
  if (std::regex_search(insn, no_access)) return false;
  static const std::regex operand(R"(\((%[a-z0-9]+)?(,%[a-z0-9]+)?(,[1248])?\))");
  for (auto it = std::sregex_iterator(insn.begin(), insn.end(), operand); it != std::sregex_iterator(); ++it) {
    const std::string base = (*it)[1].str();
    if (base == "%rsp") continue;
    if (base == "%rip") {
      if (insn.find(".LC") != std::string::npos || insn.find(".rodata") != std::string::npos) continue;
      if (insn.find("R_X86_64") == std::string::npos) continue;  // a jump table's own entry, say
    }
    return true;
  }
  return false;
}

bool compiler_function(const std::string& name) {
  return name.rfind("_GLOBAL__", 0) == 0 || name.rfind("_sub_I_", 0) == 0 || name.rfind("_sub_D_", 0) == 0 ||
         name.find(".cold") != std::string::npos;
}

}  // namespace

void judge_machine_code(const std::string& object_path, Build build, std::vector<Breach>& out) {
  const std::vector<FunctionCode> functions = disassemble(object_path);
  bool race_build = false;
  for (const auto& f : functions)
    for (const auto& l : f.lines) race_build |= build == Build::sanitized && l.find("__tsan_") != std::string::npos;
  for (const auto& f : functions) {
    const std::string shown = qualified_name(demangle(f.name));
    bool system_call = false, hooked = false, touches = false;
    for (const auto& l : f.lines) {
      system_call |= is_system_call(l);
      hooked |= l.find("__tsan_") != std::string::npos;
      touches |= touches_memory(l);
    }
    if (system_call)
      out.push_back({BreachKind::system_call_instruction,
                     "a system-call instruction",
                     {shown},
                     "your host code makes a system call itself (a syscall, sysenter or int $0x80 instruction, from "
                     "inline assembly): a lab file computes and prints, and the kernel runner refuses any system call "
                     "of its code",
                     "remove the assembly; print with printf if you need to see a value"});
    if (race_build && !hooked && touches && !compiler_function(f.name))
      out.push_back({BreachKind::race_detector_opt_out,
                     shown,
                     {shown},
                     "this function touches memory but the race detector cannot see it: it opts out of "
                     "-fsanitize=thread (an attribute such as no_sanitize(\"thread\") or no_sanitize_thread, or "
                     "assembly). Every access of a lab's code is checked for races",
                     "remove the attribute (or the assembly)"});
  }
}

}  // namespace cudalab::contract
