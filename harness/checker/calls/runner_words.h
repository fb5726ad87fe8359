// What the kernel runner says is the student's code talking: a lab file can throw an exception
// with any text, hand CUDALAB_CHECK any file name and line, name a kernel anything, and it runs
// in the process that writes the reply. So the checker never repeats those words as its own.
// Every message and note of the report is written here, by the checker, from what it can check:
//   * a cause (protocol.h: wire::Cause) and a CUDA error code, which it names from its own table;
//   * a kernel's name, a checked call as written, only when that text is in the lab file itself
//     (or, for a kernel, among the launches the record saw): it says nothing the student did not
//     write before the run;
//   * a file and line only when the file is the lab file and the line one of its lines;
//   * the CPU backend's diagnoses (barrier divergence, a warp operation not every lane reached,
//     an illegal address) recognized by kind, and said in the checker's own sentences.
// The runner's own text (the exception's message, the emulator's account with its threads and
// blocks) travels beside the report: printable, cut, and only where no check of the run is
// hidden (checker/run/run_checks.cpp): a student's own `make labN`, a grading without hidden checks.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "wire/protocol.h"

namespace cudalab {

// The lab file, as the checker read it (the runner's Hello names it; the checker reads it only
// if it is a regular file of at most 4 MiB).
struct LabSource {
  std::string shown;  // the path as the report shows it (printable, at most 200 characters)
  std::string text;  // the file's text ("" when it could not be read)
  size_t lines = 0;  // its number of lines (0 when it could not be read)
};
LabSource read_lab_source(const std::string& path);
// The file's code with its comments blanked (line breaks kept, so line numbers still hold): what
// the checker reads for a cause must be code, never a comment's "TODO: atomicAdd".
std::string code_without_comments(const std::string& text);
// "an illegal memory access was encountered (cudaErrorIllegalAddress)"; "CUDA error 1234" for a
// code the checker does not know.
std::string cuda_error_words(int32_t code);

// The kernel's name when it is the name of a launch the record saw or an identifier of the lab
// file; "" otherwise.
std::string checked_kernel(const std::string& name, const std::vector<wire::Launch>& launches, const LabSource& src);
// The checked call as written when the lab file has it (spaces aside); else its function's name
// ("cudaMalloc") when that is a CUDA runtime name; else "".
std::string checked_call(const std::string& call, const LabSource& src);
// "labs/lab3.cu:42" when file is the lab file and line one of its lines; "labs/lab3.cu" when only
// the file is; "" otherwise.
std::string checked_place(const std::string& file, uint32_t line, const LabSource& src);

// "64 x 16", or "64 x 16 x 2" when the third dimension is not 1: a grid or a block as written.
std::string dims_text(const uint32_t d[3]);

// The report's sentence for a reply that failed (outcome != Ok), for the lab function `function`.
std::string failure_message(const wire::CallReply& reply, const std::string& function, const LabSource& src);

// Whether the runner's account is the race build's stop at an array's end (an index or a read
// past it, harness/runner/emulator/bounds.cpp and race.cpp): the report's cause past_array_end.
bool past_array_end(const wire::CallReply& reply);

// The runner's notes (the CPU backend's emulator) in the checker's words: barrier divergence,
// warp-synchronous code and races, each with its place when that checks out (a race's memory
// when it is one of `buffers`, the call's buffers as the checker named them). Other notes are
// left to the runner's words.
std::vector<std::string> notes_in_checker_words(const std::vector<std::string>& notes,
                                                const std::vector<wire::Launch>& launches, const LabSource& src,
                                                const std::vector<std::string>& buffers = {});
// Whether a note in the checker's words is a race the CPU backend's detector found (CHECK=race):
// the check it came from fails with it when the race changes its answers (fail_on_race).
bool is_race_note(const std::string& note);
// One of them whose two accesses are a read and a write at one line (a plain += where an atomic
// belongs): a GPU's threads can lose an update there that no order of the emulator's shows.
bool is_lost_update_race(const std::string& note);

// The runner's own words of a reply (its message, its notes): each printable and at most
// kRunnerWordsChars long, at most kRunnerWordsLines of them.
constexpr size_t kRunnerWordsChars = 600;
constexpr size_t kRunnerWordsLines = 6;
std::vector<std::string> runner_words(const wire::CallReply& reply);
std::string cut_runner_words(const std::string& text);

}  // namespace cudalab
