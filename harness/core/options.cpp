#include "options.h"

#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <sstream>
#include <string>

namespace cudalab {
namespace {

uint64_t parse_unsigned(const std::string& text, const std::string& what) {
  if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos)
    throw UsageError{what + " must be a non-negative whole number, not '" + text + "'"};
  errno = 0;
  unsigned long long v = std::strtoull(text.c_str(), nullptr, 10);
  if (errno == ERANGE) throw UsageError{what + " '" + text + "' is too large"};
  return v;
}

// One dimension: "1025", "2^30" or "1<<30".
size_t parse_dimension(const std::string& text) {
  for (const char* op : {"^", "<<"}) {
    auto at = text.find(op);
    if (at == std::string::npos) continue;
    uint64_t base = parse_unsigned(text.substr(0, at), "--size");
    uint64_t exp = parse_unsigned(text.substr(at + std::string(op).size()), "--size");
    if (std::string(op) == "^" && base != 2)
      throw UsageError{"--size: only powers of two can be written with ^ (as in 2^30)"};
    if (exp > 40) throw UsageError{"--size '" + text + "' is too large"};
    // A shift drops the bits it pushes out without a word: refuse instead of running a
    // size nobody asked for.
    if (base > (SIZE_MAX >> exp))
      throw UsageError{"--size '" + text + "' is too large: it does not fit in " +
                       std::to_string(8 * sizeof(size_t)) + " bits"};
    return std::string(op) == "^" ? size_t(1) << exp : size_t(base) << exp;
  }
  uint64_t v = parse_unsigned(text, "--size");
  return v;
}

}  // namespace

std::vector<size_t> parse_size(const std::string& text) {
  std::vector<size_t> dims;
  std::string part;
  std::istringstream in(text);
  while (std::getline(in, part, 'x')) {
    size_t d = parse_dimension(part);
    if (d == 0) throw UsageError{"--size '" + text + "': every dimension must be at least 1"};
    dims.push_back(d);
  }
  if (dims.empty() || text.back() == 'x') throw UsageError{"--size needs a size, such as 1025 or 1000x1000"};
  return dims;
}

Options parse_options(int argc, const char* const* argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    std::string value;
    bool has_inline = false;
    if (auto eq = arg.find('='); arg.rfind("--", 0) == 0 && eq != std::string::npos) {
      value = arg.substr(eq + 1);
      arg = arg.substr(0, eq);
      has_inline = true;
    }
    auto need_value = [&]() -> std::string {
      if (has_inline) return value;
      if (i + 1 >= argc) throw UsageError{arg + " needs a value (see --help)"};
      return argv[++i];
    };
    if (arg == "--seed") o.seed = parse_unsigned(need_value(), "--seed");
    else if (arg == "--size") o.size = parse_size(need_value());
    else if (arg == "--only") o.only = need_value();
    else if (arg == "--json") o.json_path = need_value();
    else if (arg == "--schedule") o.schedule = need_value();
    else if (arg == "--no-timing") o.timing = false;
    else if (arg == "--list") o.list = true;
    else if (arg == "--help" || arg == "-h") o.help = true;
    else throw UsageError{"unknown option '" + std::string(argv[i]) + "' (see --help)"};
  }
  return o;
}

std::string usage_text(const std::string& program, int lab, const std::string& size_syntax) {
  std::ostringstream s;
  s << "Runs lab " << lab << "'s checks on your code, then times it.\n\n"
    << "usage: " << program << " [options]\n\n"
    << "  --seed N       replay a run: the inputs are drawn from this seed (printed on every run)\n"
    << "  --size " << size_syntax << (size_syntax.size() < 7 ? std::string(7 - size_syntax.size(), ' ') : " ")
    << " run one size only (checks and timing); 2^30 and 1<<30 are understood\n"
    << "  --only ID      run one check (IDs: --list)\n"
    << "  --no-timing    correctness checks only\n"
    << "  --json PATH    also write every check and figure to PATH\n"
    << "  --list         list the checks and exit\n"
    << "  --schedule S   CPU backend: the order threads run between barriers: in-order, reverse,\n"
    << "                 random:SEED (order-dependent bugs show)\n"
    << "  --help         this text\n\n"
    << "exit status: 0 all checks passed, 1 a check failed, 2 bad usage,\n             3 the GPU context was lost, 4 no usable GPU\n";
  return s.str();
}

}  // namespace cudalab
