// The static rules against the tricks of issue 9, judged from what the compiler itself opened
// and expanded (real g++ -E -MD), and the reading of submissions without following links.
#include <doctest/doctest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <fstream>

#include "grader/static_rules.h"
#include "safe_io/files.h"
#include "safe_io/text.h"

using namespace grading;

namespace {

const fs::path kRepo = CUDALAB_REPO;
const fs::path kDir = "/tmp/cudalab-hostile-source";

// The grader's preprocessing of `text` as the lab file, then its compiler-view rules; the
// text rules first, as the grader runs them.
std::vector<Rejection> judge(const std::string& text) {
  auto text_rules = check_source(text, {});
  if (!text_rules.empty()) return text_rules;
  fs::create_directories(kDir);
  write_file_atomic(kDir / "lab1_naive_sum.cu", text);
  const std::string cmd =
      "g++ -std=c++20 -DCUDALAB_BACKEND_CPU=1 -I" + (kRepo / "harness/runner/emulator/include").string() + " -I" +
      (kRepo / "harness/include").string() + " -E -MD -MF " + (kDir / "deps.d").string() + " -o " +
      (kDir / "expanded.ii").string() + " -x c++ " + (kDir / "lab1_naive_sum.cu").string() + " 2>/dev/null";
  if (std::system(cmd.c_str()) != 0) return {{"does_not_preprocess", ""}};
  return check_compiler_view(*read_file(kDir / "expanded.ii"), *read_file(kDir / "deps.d"),
                             (kDir / "lab1_naive_sum.cu").string(),
                             {(kRepo / "harness/include").string() + "/",
                              (kRepo / "harness/runner/emulator/include").string() + "/", "/usr/"});
}

std::string rule_of(const std::string& text) {
  auto r = judge(text);
  return r.empty() ? "accepted" : r.front().rule;
}

}  // namespace

TEST_CASE("hostile source: #include tricks are judged from what the compiler opened") {
  fs::create_directories("/tmp/cudalab-hostile-secret");
  write_file_atomic("/tmp/cudalab-hostile-secret/answer.h", "int reference_answer = 42;\n");
  const std::string secret = "/tmp/cudalab-hostile-secret/answer.h";
  CHECK(rule_of("#include <cstdio>\nint f() { return 1; }\n") == "accepted");
  // A line splice inside the directive.
  CHECK(rule_of("#inc\\\nlude \"" + secret + "\"\n") == "include_path");
  // A block comment the old text rules ended too early ("/*" inside a string is no comment).
  CHECK(rule_of("const char* s = \"/*\";\n#include \"" + secret + "\"\n// */\n") == "include_path");
  // A raw string with an encoding prefix (u8R"(...)") the old text rules did not know.
  CHECK(rule_of("const char* s = u8R\"(\";\n#include \"" + secret + "\"\n)\";\n") == "include_path");
  // A name made by a macro.
  CHECK(rule_of("#define P \"" + secret + "\"\n#include P\n") == "include_path");
  // The compiler opened it, whatever the text looked like: the dependency list says so.
  auto r = check_compiler_view("", "x.o: /tmp/lab.cu /usr/include/stdio.h " + secret + "\n", "/tmp/lab.cu", {"/usr/"});
  REQUIRE(r.size() == 1);
  CHECK(r[0].rule == "include_path");
  CHECK(r[0].reason.find("answer.h") != std::string::npos);
  CHECK(r[0].reason.find("/tmp/cudalab-hostile-secret") == std::string::npos);  // no grader paths
}

TEST_CASE("hostile source: #line, .incbin through a macro, __has_include") {
  CHECK(rule_of("#line 10 \"/work/solutions/lab1_naive_sum.cu\"\nint x;\n") == "line_directive");
  CHECK(rule_of("#define L(n) _Pragma(\"\") \n# 7 \"elsewhere.cu\"\nint x;\n") == "line_directive");
  // Assembly is no text rule (inline PTX is honest): .incbin reads only what the build's view
  // holds (no solution, no grader's file), and host code's system calls are the OS's to refuse.
  CHECK(rule_of("#define EMBED(f) asm(\".incbin \\\"\" f \"\\\"\")\nEMBED(\"/etc/passwd\");\n") == "accepted");
  CHECK(rule_of("#define A __asm__\n#define B(x) A(x)\nvoid f() { B(\"nop\"); }\n") == "accepted");
  CHECK(rule_of("#if __has_include(\"/work/solutions/lab1_naive_sum.cu\")\nint x;\n#endif\n") == "include_probe");
  CHECK(rule_of("#if __has_incl\\\nude(<x>)\n#endif\n") == "include_probe");
  // An honest file that mentions these words in comments and strings is fine.
  CHECK(rule_of("// asm, #line and __has_include are not used here\nconst char* s = \"asm .incbin\";\n") == "accepted");
}

TEST_CASE("hostile submissions: hard links, special files and sizes get a clear reason") {
  if (geteuid() != 0) {
    MESSAGE("skipped: needs root to link a root-only file");
    return;
  }
  fs::create_directories(kDir / "sub");
  const fs::path shadow_copy = kDir / "rootonly";
  write_file_atomic(shadow_copy, "root:secret\n");  // 0600, root's
  fs::remove(kDir / "sub" / "lab1.cu");
  fs::create_hard_link(shadow_copy, kDir / "sub" / "lab1.cu");
  std::string why;
  CHECK_FALSE(read_submitted_file(kDir / "sub" / "lab1.cu", 1 << 20, &why));
  CHECK(why.find("hard link") != std::string::npos);
  fs::remove(kDir / "sub" / "link.cu");
  fs::create_symlink(shadow_copy, kDir / "sub" / "link.cu");
  CHECK_FALSE(read_submitted_file(kDir / "sub" / "link.cu", 1 << 20, &why));
  CHECK(why.find("symbolic link") != std::string::npos);
  CHECK_FALSE(read_submitted_file("/dev/zero", 1 << 20, &why));
  CHECK(why.find("a device") != std::string::npos);
  std::ofstream(kDir / "big.cu") << std::string(3u << 20, 'x');
  CHECK_FALSE(read_submitted_file(kDir / "big.cu", 2u << 20, &why));
  CHECK(why.find("3.0 MB") != std::string::npos);  // the real size, not the limit
}

TEST_CASE("hostile text: escape bytes never reach a screen, a spreadsheet or feedback") {
  const std::string name =
      "evil\x1b[2K\r\x1b[32m23/23 (graded)\x1b[0m\xc2\x9b"
      "1A\xe2\x80\xae"
      "fdp.cu";
  const std::string cleaned = clean_line(name);
  CHECK(cleaned.find('\x1b') == std::string::npos);
  CHECK(cleaned.find('\r') == std::string::npos);
  CHECK(cleaned.find("\xc2\x9b") == std::string::npos);
  CHECK(cleaned.find("\xe2\x80\xae") == std::string::npos);
  CHECK(clean_text("line 1\nline 2\ttab\n") == "line 1\nline 2\ttab\n");
  CHECK(clean_text("caf\xc3\xa9") == "caf\xc3\xa9");  // accents stay
}

TEST_CASE("hostile source: .incbin with no asm keyword, through a string the assembler takes as it is") {
  // The attack is real with this compiler: a section name with a newline starts a directive of
  // its own, and .incbin embeds any file the compiler can read into the object.
  fs::create_directories(kDir);
  const std::string secret = (kDir / "embedded.txt").string();
  write_file_atomic(secret, "CUDALAB-EMBEDDED-SECRET\n");
  const std::string hide =
      "#define HIDE(f) __attribute__((section(\".rodata\\n.incbin \\\"\" f \"\\\"\\n.section .rodata\")))\n"
      "HIDE(\"" +
      secret + "\") const char blob[1] = {0};\n";
  write_file_atomic(kDir / "embed.cpp", hide);
  const std::string compile =
      "g++ -std=c++20 -c -o " + (kDir / "embed.o").string() + " " + (kDir / "embed.cpp").string() + " 2>/dev/null";
  if (std::system(compile.c_str()) == 0)
    CHECK_MESSAGE(read_file(kDir / "embed.o")->find("CUDALAB-EMBEDDED-SECRET") != std::string::npos,
                  "the section-name trick no longer embeds files with this compiler (the rule below still stands)");
  else
    MESSAGE("this compiler refuses the section-name trick");
  CHECK(rule_of(hide) == "inline_asm");
  CHECK(judge(hide).front().reason.find("line 2") != std::string::npos);
  // Its cousins: `;` as a separator, a C++11 attribute, a symbol version, a weakref across lines.
  CHECK(rule_of("[[gnu::section(\".data;.incbin \\\"/etc/passwd\\\";.section .d2\")]] int x = 1;\n") == "inline_asm");
  CHECK(
      rule_of(
          "extern \"C\" __attribute__((symver(\"f@V1\\n.incbin \\\"/etc/passwd\\\"\\n\"))) int f() { return 1; }\n") ==
      "inline_asm");
  CHECK(rule_of("extern \"C\" { int y2 = 1; }\nstatic int w __attribute__((__weakref__\n(\n\"y2\\n.incbin "
                "\\\"/etc/passwd\\\"\\n\")));\n"
                "int* pw = &w;\n") == "inline_asm");
  // Honest code: a function named section, the word in a string; an ifunc, whose string must
  // name a symbol the compiler knows (a newline in it is an error, not a directive).
  CHECK(rule_of("void section(int n);\nvoid f() { section(3); }\nconst char* s = \"section(\\\".x\\\")\";\n") ==
        "accepted");
  CHECK(rule_of("extern \"C\" int impl() { return 1; }\nextern \"C\" int (*pick())() { return impl; }\n"
                "extern \"C\" int helper() __attribute__((ifunc(\"pick\")));\n") == "accepted");
}

TEST_CASE("hostile source: #pragma GCC dependency asks whether a file exists, like __has_include") {
  // The preprocessor stops with "No such file" when it is missing, and says nothing otherwise,
  // and the file is in no dependency list: a probe the compiler view would never see.
  CHECK(rule_of("#pragma GCC dependency \"/work/solutions/lab1_naive_sum.cu\"\nint x;\n") == "include_probe");
  CHECK(rule_of("_Pragma(\"GCC dependency \\\"/etc/passwd\\\"\")\nint x;\n") == "include_probe");
  CHECK(rule_of("#pragma GCC \\\ndependency \"/etc/passwd\"\nint x;\n") == "include_probe");
  CHECK(rule_of("#pragma GCC diagnostic ignored \"-Wunused\"\n// a dependency of this file: none\nint x;\n") ==
        "accepted");
}
