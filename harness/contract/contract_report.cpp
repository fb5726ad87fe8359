#include "contract_report.h"

#include <cctype>
#include <fstream>
#include <sstream>

namespace cudalab::contract {

namespace {

bool word_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// "lab3::multilevel_sum(float const*, ...)" -> "multilevel_sum"; "section .evil" -> "section".
std::string identifier_of(const std::string& symbol) {
  std::string name = qualified_name(symbol);
  if (name.rfind("section ", 0) == 0) return "section";
  size_t angle = name.find('<');
  if (angle != std::string::npos && name.rfind("operator", 0) != 0) name = name.substr(0, angle);
  size_t colons = name.rfind("::");
  return colons == std::string::npos ? name : name.substr(colons + 2);
}

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

int line_naming(const std::string& source_text, const std::string& identifier) {
  if (identifier.empty()) return 0;
  std::istringstream lines(source_text);
  std::string line;
  bool in_block_comment = false;
  for (int number = 1; std::getline(lines, line); ++number) {
    std::string code;
    for (size_t i = 0; i < line.size(); ++i) {
      if (in_block_comment) {
        if (line.compare(i, 2, "*/") == 0) in_block_comment = false, ++i;
      } else if (line.compare(i, 2, "/*") == 0) {
        in_block_comment = true, ++i;
      } else if (line.compare(i, 2, "//") == 0) {
        break;
      } else {
        code += line[i];
      }
    }
    for (size_t at = code.find(identifier); at != std::string::npos; at = code.find(identifier, at + 1)) {
      bool starts = at == 0 || !word_char(code[at - 1]);
      bool ends = at + identifier.size() >= code.size() || !word_char(code[at + identifier.size()]);
      if (starts && ends) return number;
    }
  }
  return 0;
}

std::string format_breaches(const std::vector<Breach>& breaches, const LabContract& contract,
                            const std::string& source_path) {
  std::string text = source_path.empty() ? std::string() : read_text(source_path);
  std::string file = source_path.empty() ? "your file" : source_path;
  std::ostringstream out;
  out << file << ": this file breaks lab " << contract.lab << "'s link contract, so it is not linked into the kernel "
      << "runner (what a lab file may define and call: " << contract.header << ", docs/link_contract.md)\n";
  for (const auto& b : breaches) {
    int line = line_naming(text, identifier_of(b.symbol));
    out << "  " << file;
    if (line > 0) out << ":" << line;
    out << ": " << b.symbol;
    if (!b.used_in.empty()) {
      out << " (in ";
      for (size_t i = 0; i < b.used_in.size(); ++i) out << (i ? ", " : "") << b.used_in[i];
      out << ")";
    }
    if (line == 0 && !b.used_in.empty() && b.kind == BreachKind::calls_outside_contract)
      out << " [the name does not appear in the file as written: a macro made it]";
    out << "\n      why: " << b.why << "\n      instead: " << b.instead << "\n";
  }
  return out.str();
}

}  // namespace cudalab::contract
