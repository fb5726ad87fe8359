// The rules a submission must follow before it is run, checked on its source (before the
// build) and on its compiled object (after): no #include beyond the lab's header and system
// headers, no main, none of the harness's own symbols, no CUDA runtime functions of its own,
// nothing placed to run before main (prioritized constructors, init sections; a plain static
// initializer is allowed), and no library doing the lab's work (CUB, Thrust, cuBLAS) where
// the rubric forbids it.
#pragma once
#include <filesystem>
#include <string>
#include <vector>

namespace grading {

struct Rejection {
  std::string rule;    // "include_path", "defines_main", "harness_symbol", "cuda_runtime_definition", "early_code",
                       // "forbidden_library"
  std::string reason;  // student-facing, names what was found and where
};

// forbidden: library names from the rubric, each of "cub", "thrust", "cublas".
std::vector<Rejection> check_source(const std::string& text, const std::vector<std::string>& forbidden);

// `nm_output` is `nm -P -C -g` of the student's object, `sections` is `readelf -SW` of it.
std::vector<Rejection> check_object(const std::string& nm_output, const std::string& sections,
                                    const std::vector<std::string>& forbidden);

// Comments removed (and, with strings too, string and character literals emptied), line
// ends kept so that line numbers still match the student's file.
std::string strip_comments(const std::string& text, bool strings_too);

}  // namespace grading
