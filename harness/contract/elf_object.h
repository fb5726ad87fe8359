// An ELF64 relocatable object (what `nvcc -c` or `g++ -c` wrote), read as data: its sections,
// its symbol table and its relocations. Nothing in it is run or linked; the link contract
// (contract_rules.h) judges it. Only what the contract needs is kept.
#pragma once
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace cudalab::contract {

struct ElfSection {
  std::string name;
  uint32_t type = 0;
  uint64_t flags = 0;
  uint64_t size = 0;
  uint32_t link = 0;
  uint32_t info = 0;
  bool in_comdat_group = false;  // a member of a SHT_GROUP with GRP_COMDAT (compiler-made)
};

struct ElfSymbol {
  std::string name;  // as written in the object (mangled)
  uint8_t binding = 0;
  uint8_t type = 0;
  uint8_t visibility = 0;
  uint16_t section = 0;  // SHN_UNDEF for a reference
  uint64_t value = 0;
  uint64_t size = 0;
  bool defined() const;
  bool global_or_weak() const;
};

struct ElfRelocation {
  uint64_t offset = 0;  // in the section the relocations apply to
  uint32_t symbol = 0;  // index into ElfObject::symbols
  uint32_t type = 0;
  int64_t addend = 0;
  // Where the reference points inside its symbol: for a PC-relative reference the addend
  // counts from the end of the 4-byte field, so the target is the addend plus 4.
  int64_t target_offset() const;
};

struct ElfError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class ElfObject {
 public:
  // Reads an x86-64 ELF64 relocatable object; throws ElfError naming what is wrong.
  static ElfObject read(const std::string& path);

  std::vector<ElfSection> sections;
  std::vector<ElfSymbol> symbols;
  // relocations[i]: the relocations that apply to section i (empty for most).
  std::vector<std::vector<ElfRelocation>> relocations;

  // The function symbol of section `section` that covers `offset`, if any.
  std::optional<uint32_t> function_at(uint16_t section, uint64_t offset) const;
  bool executable(uint16_t section) const;
};

// The demangled form of a symbol's name ("lab3::multilevel_sum(float const*, ...)"), or the
// name itself when it is not a C++ name.
std::string demangle(const std::string& name);

}  // namespace cudalab::contract
