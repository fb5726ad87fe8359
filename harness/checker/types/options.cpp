#include "options.h"

#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <sstream>
#include <string>

namespace cudalab {
namespace {

// What --size takes, said the same way for every wrong size ("abc", "0", "-5", "10x"): one rule.
const char* kSizeRule = "--size takes whole numbers of at least 1, such as 1025, 1000x1000 or 2^30";

uint64_t parse_unsigned(const std::string& text, const std::string& what) {
  if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos) {
    if (what == "--size") throw UsageError{std::string(kSizeRule) + ", not '" + text + "'"};
    throw UsageError{what + " must be a non-negative whole number, not '" + text + "'"};
  }
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
      throw UsageError{"--size '" + text + "' is too large: it does not fit in " + std::to_string(8 * sizeof(size_t)) +
                       " bits"};
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
    if (d == 0) throw UsageError{std::string(kSizeRule) + ", not '" + text + "'"};
    dims.push_back(d);
  }
  if (dims.empty() || text.back() == 'x')
    throw UsageError{std::string(kSizeRule) + ": --size needs a size, not '" + text + "'"};
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
    if (arg == "--seed")
      o.seed = parse_unsigned(need_value(), "--seed");
    else if (arg == "--size")
      o.size = parse_size(need_value());
    else if (arg == "--only")
      o.only = need_value();
    else if (arg == "--json")
      o.json_path = need_value();
    else if (arg == "--schedule")
      o.schedule = need_value();
    else if (arg == "--runner")
      o.runner = need_value();
    else if (arg == "--runner-wrap")
      o.runner_wrap.push_back(need_value());
    else if (arg == "--sanitizer-log")
      o.sanitizer_log = need_value();
    else if (arg == "--check-timeout")
      o.check_timeout = double(parse_unsigned(need_value(), "--check-timeout"));
    else if (arg == "--hidden-checks") {
      std::istringstream ids(need_value());
      for (std::string id; std::getline(ids, id, ',');)
        if (!id.empty()) o.hidden_checks.push_back(id);
    } else if (arg == "--source")
      o.source = need_value();
    else if (arg == "--no-timing")
      o.timing = false;
    else if (arg == "--timing-only")
      o.timing_only = true;
    else if (arg == "--no-baselines")
      o.no_baselines = true;
    else if (arg == "--gpu-gate")
      o.gpu_gate = need_value();
    else if (arg == "--timing-trace")
      o.timing_trace = true;
    else if (arg == "--largest")
      o.largest = parse_unsigned(need_value(), "--largest");
    else if (arg == "--all")
      o.all = true;
    else if (arg == "--profile-runner")
      o.profile_runner = need_value();
    else if (arg == "--profile-reference")
      o.profile_reference = need_value();
    else if (arg == "--profile-reference-unwrapped")
      o.profile_reference_unwrapped = true;
    else if (arg == "--profile-size")
      o.profile_size = parse_size(need_value());
    else if (arg == "--list")
      o.list = true;
    else if (arg == "--help" || arg == "-h")
      o.help = true;
    else
      throw UsageError{"unknown option '" + std::string(argv[i]) + "' (see --help)"};
  }
  if (o.timing_only && !o.timing) throw UsageError{"--timing-only and --no-timing together leave nothing to run"};
  if (o.no_baselines && !o.timing) throw UsageError{"--no-baselines and --no-timing together: nothing is timed"};
  if (o.timing_only && !o.only.empty())
    throw UsageError{"--timing-only runs no checks, so --only has nothing to choose"};
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
    << "  --timing-only  the timing alone, no checks (the grader checks first, then times\n"
    << "                 the correct ones with the GPU to themselves); the timed runs still\n"
    << "                 check their own answers; the table then has the rows speed points\n"
    << "                 use (yours and the harness's naive kernel)\n"
    << "  --no-baselines your row alone, with the copy ceiling and the floor: no kernel of the\n"
    << "                 harness's (the grader times the reference and the naive kernel in\n"
    << "                 runs of their own, before and after every few students)\n"
    << "  --largest N    only the checks of at most N elements (the grader's emulator run)\n"
    << "  --gpu-gate FILE  time only while holding FILE's lock, so that timing runs sharing a GPU\n"
    << "                 take turns (the grader starts the next one while this one measures)\n"
    << "  --timing-trace where the timing's time goes (waiting for the gate, each batch's steps),\n"
    << "                 a line per step on stderr\n"
    << "  --all          run every check even when the smaller ones fail (on a terminal the\n"
    << "                 expensive checks are left out then; elsewhere every check always runs).\n"
    << "                 The CPU backend skips the checks too large to emulate all the same\n"
    << "                 (--list marks them)\n"
    << "  --json PATH    also write every check and figure to PATH\n"
    << "  --list         list the checks and exit\n"
    << "  --schedule S   CPU backend: the order threads run between barriers: in-order, reverse,\n"
    << "                 random:SEED (order-dependent bugs show)\n"
    << "  --runner PATH  the kernel runner built from your lab file (make does this for you)\n"
    << "  --runner-wrap W  run the runner under a command, one word per option (a debugger:\n"
    << "                 --runner-wrap cuda-gdb --runner-wrap --args), checks not time-limited\n"
    << "  --check-timeout S  stop a check after S seconds (a fresh runner takes the next one)\n"
    << "  --sanitizer-log DIR  a runner built with AddressSanitizer (make CHECK=asan) writes its\n"
    << "                 reports there; each check shows them digested (make passes this)\n"
    << "  --hidden-checks IDS  the grader's hidden checks (comma-separated): they run last, and\n"
    << "                 the report carries nothing the runner wrote in its own words\n"
    << "  --source PATH  the lab file the runner was built from (the grader passes it)\n"
    << "  --profile-runner R --profile-reference S  after the checks, why it is slow: your\n"
    << "                 profile runner's counts beside the reference's (make labN PROFILE=1)\n"
    << "  --profile-size S  the size profiled (default: the lab's own, small enough to emulate)\n"
    << "  --profile-reference-unwrapped  the reference's profile runner without --runner-wrap (the grader's)\n"
    << "  --help         this text\n\n"
    << "exit status: 0 all checks passed, 1 a check failed, 2 bad usage,\n             3 the GPU context was lost, 4 "
       "no usable GPU\n";
  return s.str();
}

}  // namespace cudalab
