#include <doctest/doctest.h>

#include "checker/types/options.h"

using namespace cudalab;

static Options parse(std::vector<const char*> args) {
  args.insert(args.begin(), "lab");
  return parse_options(int(args.size()), args.data());
}

TEST_CASE("every option parses, in both --opt value and --opt=value forms") {
  Options o = parse({"--seed", "7", "--size=1000x200", "--only", "odd_size", "--no-timing", "--json", "r.json"});
  CHECK(*o.seed == 7);
  CHECK(*o.size == std::vector<size_t>{1000, 200});
  CHECK(o.only == "odd_size");
  CHECK_FALSE(o.timing);
  CHECK(o.json_path == "r.json");
  CHECK(parse({"--list"}).list);
  CHECK(parse({"--schedule=random:5"}).schedule == "random:5");
  CHECK(parse({"--help"}).help);
}

TEST_CASE("sizes: plain, powers of two, shifts, three dimensions") {
  CHECK(parse_size("1025") == std::vector<size_t>{1025});
  CHECK(parse_size("2^30") == std::vector<size_t>{size_t(1) << 30});
  CHECK(parse_size("3<<4") == std::vector<size_t>{48});
  CHECK(parse_size("1000x1000x7") == std::vector<size_t>{1000, 1000, 7});
}

TEST_CASE("bad input is refused with a message naming it") {
  auto message = [](auto f) {
    try {
      f();
    } catch (const UsageError& e) {
      return e.message;
    }
    return std::string("no error");
  };
  CHECK(message([] { parse({"--seed"}); }).find("--seed needs a value") != std::string::npos);
  CHECK(message([] { parse({"--seed", "x1"}); }).find("whole number") != std::string::npos);
  CHECK(message([] { parse({"--frobnicate"}); }).find("unknown option '--frobnicate'") != std::string::npos);
  CHECK(message([] { parse_size("0"); }).find("at least 1") != std::string::npos);
  CHECK(message([] { parse_size("3^4"); }).find("powers of two") != std::string::npos);
  CHECK(message([] { parse_size("10x"); }).find("needs a size") != std::string::npos);
  // One rule, said the same way, whatever is wrong with the size.
  const std::string zero = message([] { parse_size("0"); }), word = message([] { parse_size("abc"); });
  CHECK(zero.substr(0, zero.find(", not")) == word.substr(0, word.find(", not")));
  CHECK(parse({"--all"}).all);
}

TEST_CASE("a shift that would overflow is refused, not wrapped") {
  // (2^24 - 1) << 40 is the largest that fits 64 bits; (2^24 + 1) << 40 would quietly be 2^40.
  CHECK(parse_size("16777215<<40") == std::vector<size_t>{size_t(16777215) << 40});
  std::string said = "no error";
  try {
    parse_size("16777217<<40");
  } catch (const UsageError& e) {
    said = e.message;
  }
  CHECK(said == "--size '16777217<<40' is too large: it does not fit in 64 bits");
  CHECK_THROWS_AS(parse_size("1000x16777217<<40"), UsageError);
}

TEST_CASE("--timing-only and --sanitizer-log") {
  CHECK(parse({"--timing-only"}).timing_only);
  CHECK(parse({"--sanitizer-log", "build/cpu/race/reports"}).sanitizer_log == "build/cpu/race/reports");
  CHECK_THROWS_AS(parse({"--timing-only", "--no-timing"}), UsageError);
  CHECK_THROWS_AS(parse({"--timing-only", "--only", "odd_size"}), UsageError);
}

TEST_CASE("--hidden-checks takes ids, comma-separated or repeated; --source a path") {
  Options o = parse({"--hidden-checks", "million,b1024_cubed", "--hidden-checks=odd_size", "--source", "s/lab1.cu"});
  CHECK(o.hidden_checks == std::vector<std::string>{"million", "b1024_cubed", "odd_size"});
  CHECK(o.source == "s/lab1.cu");
  CHECK(parse({}).hidden_checks.empty());
}

TEST_CASE("--largest keeps a number, and refuses what is not one") {
  CHECK(parse({"--largest", "1048576"}).largest == 1048576);
  CHECK(parse({}).largest == 0);
  CHECK_THROWS(parse({"--largest", "many"}));
}
