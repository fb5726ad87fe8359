#include "contract_rules.h"

#include <elf.h>

#include <algorithm>
#include <set>

namespace cudalab::contract {

const char* breach_kind_name(BreachKind kind) {
  switch (kind) {
    case BreachKind::defines_reserved_name: return "defines_reserved_name";
    case BreachKind::weak_definition: return "weak_definition";
    case BreachKind::calls_outside_contract: return "calls_outside_contract";
    case BreachKind::runs_before_main: return "runs_before_main";
    case BreachKind::foreign_section: return "foreign_section";
    case BreachKind::missing_lab_function: return "missing_lab_function";
    case BreachKind::system_call_instruction: return "system_call_instruction";
    case BreachKind::race_detector_opt_out: return "race_detector_opt_out";
  }
  return "unknown";
}

namespace {

bool starts_with(const std::string& s, const std::string& prefix) { return s.rfind(prefix, 0) == 0; }

std::string qualified(const ElfSymbol& s) { return qualified_name(demangle(s.name)); }

// The functions of the file whose code references symbol `index` (for "where you use it").
std::vector<std::string> users_of(const ElfObject& object, uint32_t index) {
  std::set<std::string> names;
  for (uint16_t section = 0; section < object.relocations.size(); ++section) {
    if (!object.executable(section)) continue;
    for (const auto& r : object.relocations[section]) {
      if (r.symbol != index) continue;
      if (auto f = object.function_at(section, r.offset)) names.insert(qualified(object.symbols[*f]));
    }
  }
  return {names.begin(), names.end()};
}

// ---- Sections ----------------------------------------------------------------------------

bool compiler_section(const ElfSection& s) {
  static const char* exact[] = {"",
                                ".text",
                                ".data",
                                ".bss",
                                ".rodata",
                                ".init_array",
                                ".nv_fatbin",
                                ".nvFatBinSegment",
                                "__nv_module_id",
                                ".eh_frame",
                                ".comment",
                                ".note.GNU-stack",
                                ".note.gnu.property",
                                ".group",
                                ".symtab",
                                ".strtab",
                                ".shstrtab",
                                ".symtab_shndx",
                                ".tbss",
                                ".tdata"};
  static const char* prefixes[] = {".text.",  ".data.", ".bss.", ".rodata.", ".tbss.", ".tdata.", ".gcc_except_table",
                                   ".debug_", ".rela",  ".nv.",  ".nvFatBin"};
  for (const char* e : exact)
    if (s.name == e) return true;
  for (const char* p : prefixes)
    if (starts_with(s.name, p)) return true;
  return false;
}

// A sanitizer's constructors run at a priority (.init_array.00099) and its tables live in
// sections of their own; both are judged as the compiler's only in an instrumented build.
bool sanitizer_section(const ElfSection& s) {
  return starts_with(s.name, ".init_array.") || starts_with(s.name, ".fini_array") || s.name == "asan_globals" ||
         starts_with(s.name, ".rela.init_array.") || starts_with(s.name, ".rela.fini_array") ||
         s.name == ".relaasan_globals" || s.name == ".rela.asan_globals" || starts_with(s.name, "__sancov");
}

void judge_sections(const ElfObject& object, Build build, std::vector<Breach>& out) {
  for (const auto& s : object.sections) {
    if (build == Build::sanitized && sanitizer_section(s)) continue;
    bool code = (s.flags & SHF_EXECINSTR) != 0;
    bool plain_code_home = s.name == ".text" || starts_with(s.name, ".text.");
    if (compiler_section(s) && (!code || plain_code_home) && !(code && (s.flags & SHF_WRITE))) continue;
    out.push_back({BreachKind::foreign_section,
                   "section " + s.name,
                   {},
                   "your file places code or data in a section of its own (" + s.name +
                       "), which the linker could run or merge beside the harness",
                   "remove the __attribute__((section(...))), #pragma or asm that made it"});
  }
}

// ---- Definitions -------------------------------------------------------------------------

bool reserved_global_name(const std::string& plain, const LabContract& contract, Backend backend) {
  if (plain.find("::") != std::string::npos) return false;
  if (starts_with(plain, "__device_stub__")) return false;  // nvcc's host side of a kernel
  if (starts_with(plain, "__") || starts_with(plain, "_Z")) return true;
  if (matches_any(always_allowed(backend), plain, plain) || matches_any(contract.may_call, plain, plain)) return true;
  for (const auto& group : forbidden_groups())
    if (matches_any(group.patterns, plain, plain)) return true;
  return false;
}

// Data the C and C++ libraries define, which a definition in the runner would replace.
bool reserved_data_name(const std::string& name) {
  static const char* names[] = {"environ",
                                "stdin",
                                "stdout",
                                "stderr",
                                "optarg",
                                "optind",
                                "opterr",
                                "optopt",
                                "errno",
                                "program_invocation_name",
                                "program_invocation_short_name",
                                "timezone",
                                "daylight",
                                "tzname",
                                "signgam",
                                "h_errno"};
  for (const char* n : names)
    if (name == n) return true;
  return false;
}

void judge_one_definition(const ElfObject& object, uint32_t index, Backend backend, const LabContract& contract,
                          std::vector<Breach>& out) {
  const ElfSymbol& s = object.symbols[index];
  std::string name = qualified(s);
  auto breach = [&](BreachKind kind, std::string why, std::string instead) {
    out.push_back({kind, demangle(s.name), users_of(object, index), std::move(why), std::move(instead)});
  };
  if (s.name.find('@') != std::string::npos || s.type == STT_GNU_IFUNC || s.section == SHN_ABS) {
    breach(BreachKind::weak_definition,
           "it is a versioned, ifunc or absolute symbol, which can stand in for a library's",
           "define plain functions only");
    return;
  }
  bool mangled = starts_with(s.name, "_Z");
  bool weak = s.binding == STB_WEAK || s.binding == STB_GNU_UNIQUE;
  bool compiler_copy = weak && s.section < object.sections.size() && object.sections[s.section].in_comdat_group;
  if (weak && !compiler_copy) {
    breach(BreachKind::weak_definition,
           "it is a weak definition, which lets your file stand in for a function of the "
           "harness or a library",
           "remove __attribute__((weak)) (or the #pragma weak)");
    return;
  }
  if (compiler_copy) {
    // The compiler's own copy of an inline function or template from a header; harmless unless
    // it claims a name of the harness, or a C name (an `extern "C" inline` function).
    bool harness_name = starts_with(name, "cudalab::") || starts_with(name, "cudalab_cpu::");
    if (harness_name || (!mangled && !starts_with(s.name, "DW.ref.")))
      breach(BreachKind::defines_reserved_name, "it defines " + name + ", a name the harness or the C library uses",
             "give it a name of your own, or make it static");
    return;
  }
  bool reserved_scope = std::any_of(reserved_scopes().begin(), reserved_scopes().end(),
                                    [&](const std::string& scope) { return starts_with(name, scope); });
  // A global variable's name is never mangled in C++, so a plain name is a C function only when
  // it names code; data keeps its name unless the C library or the harness has one like it.
  bool c_function = !mangled && s.type != STT_OBJECT && s.type != STT_TLS && s.type != STT_COMMON;
  bool library_data = !mangled && (starts_with(name, "_") || reserved_data_name(name));
  // A C++ function of the file's own in the global namespace has a mangled name of its own: an
  // overload `int ceil(int, int)` or a helper `write(float*, float)` replaces nothing of the C
  // library's (whose names are not mangled). What it could replace are the C++ functions of the
  // CPU backend's CUDA runtime (cudaMalloc(void**, size_t), ...) and reserved identifiers.
  bool runtime_overload =
      mangled && (starts_with(name, "cuda") || (starts_with(name, "__") && !starts_with(name, "__device_stub__")));
  if (c_function || library_data || reserved_scope || starts_with(name, "operator new") ||
      starts_with(name, "operator delete") || runtime_overload ||
      (!mangled && reserved_global_name(name, contract, backend)))
    breach(BreachKind::defines_reserved_name,
           "it defines " + name + (c_function ? " with C linkage" : "") +
               ", a name the C library, the CUDA runtime, the C++ library or the harness already uses; a lab file "
               "defines only its lab functions, its kernels and helpers of its own",
           "rename it (or make it static), and call the real one if that is what you need");
}

void judge_definitions(const ElfObject& object, Backend backend, const LabContract& contract, Build build,
                       std::vector<Breach>& out) {
  for (uint32_t i = 0; i < object.symbols.size(); ++i) {
    const ElfSymbol& s = object.symbols[i];
    if (build == Build::sanitized && matches_any(sanitizer_runtime(), s.name, s.name)) continue;
    if (s.defined() && s.global_or_weak() && s.type != STT_SECTION && s.type != STT_FILE)
      judge_one_definition(object, i, backend, contract, out);
  }
}

void judge_lab_functions(const ElfObject& object, const LabContract& contract, std::vector<Breach>& out) {
  for (const auto& wanted : contract.defines) {
    bool found = std::any_of(object.symbols.begin(), object.symbols.end(), [&](const ElfSymbol& s) {
      return s.defined() && s.binding == STB_GLOBAL && s.type == STT_FUNC && qualified(s) == wanted;
    });
    if (!found)
      out.push_back({BreachKind::missing_lab_function,
                     wanted,
                     {},
                     "your file does not define " + wanted + ", the function lab " + std::to_string(contract.lab) +
                         " calls (" + contract.header + ")",
                     "keep the function the stub declares, with the same name, namespace and parameters"});
  }
}

// ---- References --------------------------------------------------------------------------

const ForbiddenGroup* group_of(const std::string& raw, const std::string& name) {
  for (const auto& group : forbidden_groups())
    if (matches_any(group.patterns, raw, name)) return &group;
  return nullptr;
}

void judge_references(const ElfObject& object, Backend backend, const LabContract& contract, Build build,
                      std::vector<Breach>& out) {
  for (uint32_t i = 0; i < object.symbols.size(); ++i) {
    const ElfSymbol& s = object.symbols[i];
    if (s.defined() || s.name.empty() || !s.global_or_weak()) continue;
    std::string name = qualified(s);
    if (build == Build::sanitized && matches_any(sanitizer_runtime(), s.name, name)) continue;
    if (matches_any(always_allowed(backend), s.name, name) || matches_any(contract.may_call, s.name, name)) continue;
    const ForbiddenGroup* group = group_of(s.name, name);
    std::string lab = "lab " + std::to_string(contract.lab);
    out.push_back(
        {BreachKind::calls_outside_contract, demangle(s.name), users_of(object, i),
         group ? group->why : "it is not on " + lab + "'s list of what a lab file may call (" + contract.header + ")",
         group ? group->instead
               : "use the calls the header lists; if you need this one for an honest reason, ask your "
                 "instructor"});
  }
}

// ---- Code before main --------------------------------------------------------------------

// The function a relocation reaches in code, or none (a reference to data).
std::optional<uint32_t> code_target(const ElfObject& object, const ElfRelocation& r) {
  const ElfSymbol& t = object.symbols[r.symbol];
  if (!t.defined() || !object.executable(t.section)) return std::nullopt;
  if (t.type == STT_FUNC) return r.symbol;
  auto f = object.function_at(t.section, t.value + uint64_t(r.target_offset()));
  return f ? f : std::optional<uint32_t>(UINT32_MAX);  // code, but no function there
}

void judge_initializers(const ElfObject& object, Build build, std::vector<Breach>& out) {
  std::vector<uint32_t> work;
  std::set<uint32_t> seen;
  auto reach = [&](std::optional<uint32_t> f, const std::string& from) {
    if (!f) return;
    if (*f == UINT32_MAX) {
      out.push_back({BreachKind::runs_before_main,
                     "code at no function",
                     {from},
                     "code of your file runs before the harness starts",
                     "remove the constructor or initializer"});
    } else if (seen.insert(*f).second) {
      work.push_back(*f);
    }
  };
  for (uint16_t section = 0; section < object.sections.size(); ++section) {
    const std::string& name = object.sections[section].name;
    bool sanitizer_table = build == Build::sanitized && sanitizer_section(object.sections[section]);
    if (name == ".init_array" || sanitizer_table)
      for (const auto& r : object.relocations[section]) reach(code_target(object, r), "a static initializer");
    if (sanitizer_table) continue;
    if (starts_with(name, ".fini_array") || starts_with(name, ".preinit_array") || starts_with(name, ".init_array.") ||
        starts_with(name, ".ctors") || starts_with(name, ".dtors"))
      out.push_back({BreachKind::runs_before_main,
                     "section " + name,
                     {},
                     "your file registers code to run before main or after it (" + name + ")",
                     "do the work inside your lab function instead"});
  }
  while (!work.empty()) {
    uint32_t f = work.back();
    work.pop_back();
    const ElfSymbol& fn = object.symbols[f];
    for (const auto& r : object.relocations[fn.section]) {
      if (r.offset < fn.value || r.offset >= fn.value + std::max<uint64_t>(fn.size, 1)) continue;
      const ElfSymbol& t = object.symbols[r.symbol];
      bool sanitizer_call = build == Build::sanitized && matches_any(sanitizer_runtime(), t.name, t.name);
      if (!t.defined() && !sanitizer_call && !matches_any(allowed_before_main(), t.name, qualified(t)))
        out.push_back({BreachKind::runs_before_main,
                       demangle(t.name),
                       {qualified(fn)},
                       "a global of your file is initialised by code that runs before the harness starts, and that "
                       "code calls " +
                           qualified(t),
                       "initialise it inside your lab function instead"});
      reach(code_target(object, r), qualified(fn));
    }
  }
}

}  // namespace

std::vector<Breach> judge_object(const ElfObject& object, Backend backend, const LabContract& contract, Build build) {
  std::vector<Breach> out;
  judge_sections(object, build, out);
  judge_definitions(object, backend, contract, build, out);
  judge_references(object, backend, contract, build, out);
  judge_initializers(object, build, out);
  judge_lab_functions(object, contract, out);
  return out;
}

}  // namespace cudalab::contract
