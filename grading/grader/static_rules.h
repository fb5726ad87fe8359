// The rules a submission must follow before it is built, checked on its source (before the
// build) and on its compiled object (after): no #include beyond the lab's header and system
// headers (nothing of the course reaches the build), no assembly, no main (the runner has
// one), nothing placed to run before main (prioritized constructors, init sections; a plain
// static initializer is allowed), and no library doing the lab's work (CUB, Thrust, cuBLAS)
// where the rubric forbids it. The lab file runs in a kernel runner of its own, apart from the
// checker, so its symbols cannot replace the harness's or the CUDA runtime's as they once
// could: those rules are gone (they refused honest helpers such as `cudaCheck(...) {`).
#pragma once
#include <filesystem>
#include <string>
#include <vector>

namespace grading {

struct Rejection {
  std::string rule;  // "include_path", "line_directive", "include_probe", "inline_asm", "defines_main",
      // "early_code", "forbidden_library"
  std::string reason;  // student-facing, names what was found and where
};

// forbidden: library names from the rubric, each of "cub", "thrust", "cublas".
std::vector<Rejection> check_source(const std::string& text, const std::vector<std::string>& forbidden);

// What the compiler itself saw, for what text rules cannot be sure of: `deps` is the
// preprocessor's -MD list (every file it opened), `expanded` its -E output (macros applied,
// line markers naming each line's file). Rejected: opening any file but `source` outside
// `allowed_roots` (folder prefixes ending in '/'), a line marker naming a file that was never
// opened (`#line` pointing elsewhere), and assembly in the lab file's lines: `asm` (`.incbin`
// in it), or an attribute whose string reaches the assembler as it is (`section`, `symver`, ...).
std::vector<Rejection> check_compiler_view(const std::string& expanded, const std::string& deps,
                                           const std::string& source, const std::vector<std::string>& allowed_roots);

// The files of a make-style dependency list ("out: a.h b\ c.h \\\n d.h").
std::vector<std::string> parse_dependencies(const std::string& deps);

// `nm_output` is `nm -P -C -g` of the student's object, `sections` is `readelf -SW` of it.
std::vector<Rejection> check_object(const std::string& nm_output, const std::string& sections,
                                    const std::vector<std::string>& forbidden);

// Comments removed (and, with strings too, string and character literals emptied), line
// ends kept so that line numbers still match the student's file.
std::string strip_comments(const std::string& text, bool strings_too);

}  // namespace grading
