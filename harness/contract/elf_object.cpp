#include "elf_object.h"

#include <cxxabi.h>
#include <elf.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <memory>

namespace cudalab::contract {

bool ElfSymbol::defined() const { return section != SHN_UNDEF; }
bool ElfSymbol::global_or_weak() const {
  return binding == STB_GLOBAL || binding == STB_WEAK || binding == STB_GNU_UNIQUE;
}

int64_t ElfRelocation::target_offset() const {
  bool pc_relative = type == R_X86_64_PC32 || type == R_X86_64_PLT32 || type == R_X86_64_GOTPCREL ||
                     type == R_X86_64_GOTPCRELX || type == R_X86_64_REX_GOTPCRELX;
  return pc_relative ? addend + 4 : addend;
}

namespace {

std::vector<char> read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ElfError("cannot open " + path);
  return std::vector<char>(std::istreambuf_iterator<char>(in), {});
}

// Every offset and count is checked against the file's size before use: a compiler wrote
// this file, but it sits in a folder the student's build could write to.
template <class T>
const T& at(const std::vector<char>& bytes, uint64_t offset) {
  if (offset > bytes.size() || bytes.size() - offset < sizeof(T)) throw ElfError("truncated object file");
  return *reinterpret_cast<const T*>(bytes.data() + offset);
}

std::string string_at(const std::vector<char>& bytes, const Elf64_Shdr& table, uint32_t index) {
  if (index >= table.sh_size || table.sh_offset + table.sh_size > bytes.size()) throw ElfError("bad string index");
  const char* begin = bytes.data() + table.sh_offset + index;
  return std::string(begin, strnlen(begin, table.sh_size - index));
}

void mark_comdat_members(const std::vector<char>& bytes, const Elf64_Shdr& group, std::vector<ElfSection>& sections) {
  uint64_t words = group.sh_size / 4;
  if (words == 0 || !(at<uint32_t>(bytes, group.sh_offset) & GRP_COMDAT)) return;
  for (uint64_t i = 1; i < words; ++i) {
    uint32_t member = at<uint32_t>(bytes, group.sh_offset + 4 * i);
    if (member < sections.size()) sections[member].in_comdat_group = true;
  }
}

}  // namespace

ElfObject ElfObject::read(const std::string& path) {
  std::vector<char> bytes = read_bytes(path);
  const auto& header = at<Elf64_Ehdr>(bytes, 0);
  if (std::memcmp(header.e_ident, ELFMAG, SELFMAG) != 0 || header.e_ident[EI_CLASS] != ELFCLASS64)
    throw ElfError(path + " is not a 64-bit ELF object");
  if (header.e_type != ET_REL || header.e_machine != EM_X86_64) throw ElfError(path + " is not an x86-64 object file");
  if (header.e_shentsize != sizeof(Elf64_Shdr) || header.e_shnum == 0) throw ElfError(path + ": no section table");

  std::vector<Elf64_Shdr> raw;
  for (unsigned i = 0; i < header.e_shnum; ++i)
    raw.push_back(at<Elf64_Shdr>(bytes, header.e_shoff + i * sizeof(Elf64_Shdr)));
  if (header.e_shstrndx >= raw.size()) throw ElfError(path + ": no section names");

  ElfObject object;
  object.relocations.resize(raw.size());
  for (const auto& s : raw)
    object.sections.push_back({string_at(bytes, raw[header.e_shstrndx], s.sh_name), s.sh_type, s.sh_flags, s.sh_size,
                               s.sh_link, s.sh_info, false});
  for (const auto& s : raw)
    if (s.sh_type == SHT_GROUP) mark_comdat_members(bytes, s, object.sections);

  for (const auto& s : raw) {
    if (s.sh_type != SHT_SYMTAB) continue;
    if (s.sh_link >= raw.size()) throw ElfError(path + ": bad symbol string table");
    for (uint64_t i = 0; i < s.sh_size / sizeof(Elf64_Sym); ++i) {
      const auto& sym = at<Elf64_Sym>(bytes, s.sh_offset + i * sizeof(Elf64_Sym));
      object.symbols.push_back({string_at(bytes, raw[s.sh_link], sym.st_name), uint8_t(ELF64_ST_BIND(sym.st_info)),
                                uint8_t(ELF64_ST_TYPE(sym.st_info)), uint8_t(ELF64_ST_VISIBILITY(sym.st_other)),
                                sym.st_shndx, sym.st_value, sym.st_size});
    }
  }
  for (const auto& s : raw) {
    if (s.sh_type == SHT_REL) throw ElfError(path + ": REL relocations (not an x86-64 compiler's output)");
    if (s.sh_type != SHT_RELA || s.sh_info >= raw.size()) continue;
    for (uint64_t i = 0; i < s.sh_size / sizeof(Elf64_Rela); ++i) {
      const auto& r = at<Elf64_Rela>(bytes, s.sh_offset + i * sizeof(Elf64_Rela));
      uint32_t symbol = uint32_t(ELF64_R_SYM(r.r_info));
      if (symbol >= object.symbols.size()) throw ElfError(path + ": a relocation names no symbol");
      object.relocations[s.sh_info].push_back({r.r_offset, symbol, uint32_t(ELF64_R_TYPE(r.r_info)), r.r_addend});
    }
  }
  return object;
}

std::optional<uint32_t> ElfObject::function_at(uint16_t section, uint64_t offset) const {
  for (uint32_t i = 0; i < symbols.size(); ++i) {
    const auto& s = symbols[i];
    if (s.type == STT_FUNC && s.section == section && offset >= s.value &&
        offset < s.value + std::max<uint64_t>(s.size, 1))
      return i;
  }
  return std::nullopt;
}

bool ElfObject::executable(uint16_t section) const {
  return section < sections.size() && (sections[section].flags & SHF_EXECINSTR);
}

std::string demangle(const std::string& name) {
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> out(abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status), std::free);
  return status == 0 && out ? std::string(out.get()) : name;
}

}  // namespace cudalab::contract
