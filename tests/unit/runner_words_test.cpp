// The report in the checker's own words (checker/calls/runner_words.h): what the runner says is data the
// checker checks, never a sentence it repeats; and the protocol carries that data.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdio>
#include <fstream>

#include "checker/calls/runner_words.h"
#include "checker/judging/index_width.h"
#include "wire/protocol.h"

using namespace cudalab;

namespace {

// A lab file of 40 lines with a kernel and a checked call in it.
LabSource fake_source() {
  LabSource s;
  s.shown = "labs/lab3_multilevel_sum.cu";
  s.text = "__global__ void reduce_level(float* x) {}\n";
  s.text += "void f() { CUDALAB_CHECK(cudaMalloc(&p,  n * sizeof(float))); }\n";
  for (int i = 0; i < 38; ++i) s.text += "// line\n";
  s.lines = 40;
  return s;
}

wire::CallReply failed(wire::Cause cause, int32_t code, const std::string& message) {
  wire::CallReply r;
  r.outcome = cause == wire::Cause::Exception || cause == wire::Cause::OtherThrow ? wire::Outcome::Exception
                                                                                  : wire::Outcome::CudaError;
  r.message = message;
  r.failure.cause = cause;
  r.failure.cuda_code = code;
  return r;
}

const char* kSecret = "hidden size 1048583; /proc/1/cmdline: cudalab-jail --uid 20017";

}  // namespace

TEST_CASE("an exception's text never becomes the check's message") {
  const wire::CallReply r = failed(wire::Cause::Exception, 0, std::string("your code threw an exception: ") + kSecret);
  const std::string m = failure_message(r, "lab3::multilevel_sum", fake_source());
  CHECK(m == "your code threw an exception out of lab3::multilevel_sum");
  // The runner's words travel apart, printable and cut.
  const auto words = runner_words(r);
  REQUIRE(words.size() == 1);
  CHECK(words[0].find("1048583") != std::string::npos);
  CHECK(words[0].rfind("the exception's message: ", 0) == 0);
}

TEST_CASE("a CUDA error is named from the checker's table, and only checked places and names appear") {
  wire::CallReply r = failed(wire::Cause::Launch, 9, std::string("launching ") + kSecret + " failed");
  r.failure.kernel = "reduce_level";
  r.failure.file = "labs/lab3_multilevel_sum.cu";
  r.failure.line = 12;
  std::string m = failure_message(r, "lab3::multilevel_sum", fake_source());
  CHECK(m.rfind("launching reduce_level at labs/lab3_multilevel_sum.cu:12 failed: invalid configuration argument "
                "(cudaErrorInvalidConfiguration) (a block holds at most 1024 threads",
                0) == 0);
  // A name the file does not have, a line past its end, another file: left out.
  r.failure.kernel = "size_1048583";
  r.failure.line = 1048583;
  m = failure_message(r, "lab3::multilevel_sum", fake_source());
  CHECK(m.rfind("launching a kernel at labs/lab3_multilevel_sum.cu failed", 0) == 0);
  CHECK(m.find("1048583") == std::string::npos);
  r.failure.file = "/proc/1/cmdline";
  m = failure_message(r, "lab3::multilevel_sum", fake_source());
  CHECK(m.rfind("launching a kernel failed: invalid configuration", 0) == 0);
  // A kernel the launch record saw is named even when the file does not spell it so.
  wire::Launch l;
  l.kernel = "lab3::(anonymous namespace)::reduce<256>";
  r.launches.push_back(l);
  r.failure.kernel = l.kernel;
  CHECK(failure_message(r, "f", fake_source()).find("launching lab3::(anonymous namespace)::reduce<256>") == 0);
  // An unknown code is a number, not the runner's text.
  r.failure.cuda_code = 123456;
  CHECK(failure_message(r, "f", fake_source()).find("CUDA error 123456") != std::string::npos);
}

TEST_CASE("a checked call is quoted only as the file writes it") {
  const LabSource src = fake_source();
  CHECK(checked_call("cudaMalloc(&p, n * sizeof(float))", src) == "cudaMalloc(&p, n * sizeof(float))");
  CHECK(checked_call("cudaMalloc(&p, 1048583)", src) == "cudaMalloc");
  CHECK(checked_call("system(\"id\")", src) == "");
  CHECK(checked_call("cudaMalloc(&p, n * sizeof(float))", LabSource{}) == "cudaMalloc");
  wire::CallReply r = failed(wire::Cause::CudaCall, 2, kSecret);
  r.failure.call = "cudaMalloc(&p, 1048583)";
  r.failure.file = "lab3_multilevel_sum.cu";
  r.failure.line = 2;
  CHECK(failure_message(r, "f", src) ==
        "cudaMalloc at labs/lab3_multilevel_sum.cu:2 failed: out of memory (cudaErrorMemoryAllocation)");
}

TEST_CASE("places: the lab file and one of its lines") {
  const LabSource src = fake_source();
  CHECK(checked_place("labs/lab3_multilevel_sum.cu", 40, src) == "labs/lab3_multilevel_sum.cu:40");
  CHECK(checked_place("/home/me/lab3_multilevel_sum.cu", 41, src) == "labs/lab3_multilevel_sum.cu");
  CHECK(checked_place("labs/lab3_multilevel_sum.cu", 0, src) == "labs/lab3_multilevel_sum.cu");
  CHECK(checked_place("solutions/other.cu", 3, src) == "");
  CHECK(checked_place("labs/lab3_multilevel_sum.cu", 3, LabSource{}) == "");  // a file the checker did not read
}

TEST_CASE("the CPU backend's diagnoses are recognized and said in the checker's words") {
  wire::CallReply r =
      failed(wire::Cause::KernelRun, 719,
             "kernel k (launched at x.cu:3) failed while running: block (1048583,0,0) of kernel k can never "
             "finish: ... Every lane named in the mask must call the same warp operation; on a GPU ...");
  r.failure.kernel = "reduce_level";
  const std::string m = failure_message(r, "f", fake_source());
  CHECK(
      m.find(
          "kernel reduce_level failed while running: unspecified launch failure (cudaErrorLaunchFailure): the lanes of "
          "a warp") == 0);
  CHECK(m.find("must call the same warp operation") != std::string::npos);
  CHECK(m.find("1048583") == std::string::npos);

  r = failed(wire::Cause::KernelRun, 700,
             "kernel wild (launched at x.cu:3) failed while running: thread 5 wrote d[1048583]");
  r.failure.kernel = "reduce_level";
  CHECK(failure_message(r, "f", fake_source()) ==
        "kernel reduce_level failed while running: an illegal memory access was encountered (cudaErrorIllegalAddress): "
        "some thread read or wrote outside its arrays. Check each index against its array's size");
}

TEST_CASE("the race build's memory checks: an array indexed past its end, a read past an array's end") {
  wire::CallReply r = failed(wire::Cause::KernelRun, 700,
                             "kernel k (launched at x.cu:3): thread 1023 of block 0 used index 1023 of an array of "
                             "1023 elements (float [1023]) at x.cu:15 (column 8): one past its last element, [1022]. "
                             "On a GPU a plain run reads or overwrites another variable there without any error "
                             "(compute-sanitizer's memcheck names it): make the array large enough, or stop the index "
                             "at its size");
  r.failure.kernel = "reduce_level";
  CHECK(failure_message(r, "f", fake_source()) ==
        "kernel reduce_level failed while running: an illegal memory access was encountered (cudaErrorIllegalAddress): "
        "a thread indexed an array past its end: on a GPU that reads or overwrites another variable without any "
        "error. Check the index against the array's size");
  r.message =
      "kernel k (launched at x.cu:3): thread 1 of block 0 read memory at x.cu:24, 0 bytes past the end of B. What "
      "lies there is not the array's: on a GPU a plain run reads it without any error (compute-sanitizer's memcheck "
      "names it). Test the index against the array's size before the load";
  CHECK(failure_message(r, "f", fake_source()).find("a thread read past the end of an array") != std::string::npos);
}

TEST_CASE("notes: barrier divergence and warp-synchronous code, with checked places only") {
  const LabSource src = fake_source();
  std::vector<wire::Launch> launches(1);
  launches[0].kernel = "reduce_level";
  const auto notes = notes_in_checker_words(
      {"cudalab: note: barrier divergence at labs/lab3_multilevel_sum.cu:7: 3 threads of block (5,0,0) left by ...",
       "cudalab: note: barrier divergence at labs/lab3_multilevel_sum.cu:1048583: 3 threads ...",
       "cudalab: note: warp-synchronous code: in kernel reduce_level (launched at x.cu:1), lane 3 of warp 1048583 ...",
       "cudalab: note: " + std::string(kSecret)},
      launches, src);
  REQUIRE(notes.size() == 3);
  CHECK(notes[0].rfind("barrier divergence at labs/lab3_multilevel_sum.cu:7: ", 0) == 0);
  CHECK(notes[1].rfind("barrier divergence at labs/lab3_multilevel_sum.cu: ", 0) == 0);
  CHECK(notes[2].rfind("warp-synchronous code in kernel reduce_level: ", 0) == 0);
  for (const auto& n : notes) CHECK(n.find("1048583") == std::string::npos);
}

TEST_CASE("notes: the race detector's finding, its lines in order, its words checked") {
  const LabSource src = fake_source();
  const auto notes = notes_in_checker_words(
      {"cudalab: note: data race on shared memory at labs/lab3_multilevel_sum.cu:17 (atomic) and "
       "labs/lab3_multilevel_sum.cu:14 (write): in kernel k (launched at x.cu:3), thread 2 of block 0 updated it "
       "atomically (byte 8 of the __shared__ array reduce_level) at labs/lab3_multilevel_sum.cu:17, and thread 3 of "
       "block 0 "
       "wrote it at labs/lab3_multilevel_sum.cu:14, with no __syncthreads() between the two.",
       // A place outside the lab file, a thread that is not a number, a kind the checker does not know:
       "cudalab: note: data race between blocks on global memory at /etc/passwd:3 (read) and "
       "labs/lab3_multilevel_sum.cu:9 (write): in kernel k (launched at x.cu:3), thread SECRET of block 0 read it",
       "cudalab: note: data race on shared memory at labs/lab3_multilevel_sum.cu:1 (SECRET) and "
       "labs/lab3_multilevel_sum.cu:2 (write): ..."},
      {}, src);
  REQUIRE(notes.size() == 2);
  // The earlier line first, with its own kind and thread, whichever access came first.
  CHECK(notes[0].rfind(
            "a data race on shared memory (reduce_level): a write at labs/lab3_multilevel_sum.cu:14 and an atomic "
            "update at labs/lab3_multilevel_sum.cu:17 touch the same memory from two threads (thread 3 of "
            "block 0, thread 2 of block 0) with no __syncthreads() between them",
            0) == 0);
  CHECK(is_race_note(notes[0]));
  CHECK(notes[1].rfind("a data race on global memory, between blocks: a read at a line of yours and a write at "
                       "labs/lab3_multilevel_sum.cu:9 touch the same memory from two threads, and blocks run in no "
                       "order CUDA promises",
                       0) == 0);
  for (const auto& n : notes) CHECK(n.find("SECRET") == std::string::npos);
  for (const auto& n : notes) CHECK(n.find("passwd") == std::string::npos);
}

TEST_CASE("notes: a race on global memory names the buffer only when the checker knows it") {
  const LabSource src = fake_source();
  auto note = [](const std::string& memory) {
    return "cudalab: note: data race between blocks on global memory at labs/lab3_multilevel_sum.cu:9 (read) and "
           "labs/lab3_multilevel_sum.cu:14 (write): in kernel level (launched at labs/lab3_multilevel_sum.cu:20), "
           "thread 1 of block 0 read it (" +
           memory +
           ") at labs/lab3_multilevel_sum.cu:9, and thread 0 of block 1 "
           "wrote it at labs/lab3_multilevel_sum.cu:14. Blocks run in no order CUDA promises.";
  };
  const auto notes = notes_in_checker_words({note("d_scratch, at byte 4"), note("SECRET, at byte 4"),
                                             note("a 4096-byte cudaMalloc allocation of yours, at byte 0")},
                                            {}, src, {"d_in", "d_scratch", "d_sum"});
  REQUIRE(notes.size() == 3);
  CHECK(notes[0].rfind(
            "a data race on global memory (d_scratch), between blocks: a read at labs/lab3_multilevel_sum.cu:9 "
            "and a write at labs/lab3_multilevel_sum.cu:14",
            0) == 0);
  CHECK(notes[1].rfind("a data race on global memory, between blocks: a read at", 0) == 0);
  CHECK(notes[2].rfind("a data race on global memory (a cudaMalloc allocation of yours), between blocks: ", 0) == 0);
  for (const auto& n : notes) CHECK(is_race_note(n));
  for (const auto& n : notes) CHECK(n.find("SECRET") == std::string::npos);
}

TEST_CASE("notes: every thread writing one word is told to let one thread write it") {
  const auto notes = notes_in_checker_words(
      {"cudalab: note: data race on global memory at labs/lab3_multilevel_sum.cu:9 (write) and "
       "labs/lab3_multilevel_sum.cu:9 (write): in kernel k (launched at x.cu:3), thread 0 of block 2 wrote it "
       "(d_sum, at byte 0) at labs/lab3_multilevel_sum.cu:9, and thread 1 of block 2 wrote it at "
       "labs/lab3_multilevel_sum.cu:9, with no __syncthreads() between the two."},
      {}, fake_source(), {"d_sum"});
  REQUIRE(notes.size() == 1);
  CHECK(notes[0] ==
        "a data race on global memory (d_sum): writes at labs/lab3_multilevel_sum.cu:9 touch the same memory "
        "from two threads (thread 0 of block 2, thread 1 of block 2): let one thread write it "
        "(`if (threadIdx.x == 0)`)");
  CHECK(is_race_note(notes[0]));
}

TEST_CASE("the runner's words are printable and cut") {
  wire::CallReply r = failed(wire::Cause::Exception, 0, std::string(5000, 'x') + "\x1b[31m");
  r.notes = std::vector<std::string>(20, "cudalab: note: \x01\x02 again");
  const auto words = runner_words(r);
  CHECK(words.size() == kRunnerWordsLines);
  CHECK(words[0].size() == kRunnerWordsChars);
  CHECK(words[1] == "note: ?? again");
  for (const auto& w : words)
    for (char c : w) CHECK((c >= 0x20 && c < 0x7f));
}

TEST_CASE("the lab file is read only when it is a regular file") {
  const std::string path = "/tmp/cudalab-runner-words-test.cu";
  std::ofstream(path) << "a\nb\nc";
  const LabSource s = read_lab_source(path);
  CHECK(s.lines == 3);
  CHECK(s.shown == path);
  CHECK(read_lab_source("/proc/self").text.empty());
  CHECK(read_lab_source("").lines == 0);
  std::remove(path.c_str());
}

TEST_CASE("the protocol carries a failure as data, and a batch of requests") {
  wire::CallReply r = failed(wire::Cause::KernelRun, 700, "m");
  r.failure.kernel = "k";
  r.failure.file = "f.cu";
  r.failure.line = 12;
  r.failure.call = "c";
  wire::Writer w;
  wire::encode(w, r);
  wire::Reader rd(w.bytes());
  const wire::CallReply back = wire::decode_reply(rd);
  CHECK(back.failure.cause == wire::Cause::KernelRun);
  CHECK(back.failure.cuda_code == 700);
  CHECK(back.failure.kernel == "k");
  CHECK(back.failure.file == "f.cu");
  CHECK(back.failure.line == 12);
  CHECK(back.failure.call == "c");

  std::vector<wire::CallRequest> reps(3);
  for (size_t i = 0; i < reps.size(); ++i) {
    reps[i].lab = 3;
    reps[i].scalars = {int64_t(i)};
    reps[i].shm_bytes = 1 << 20;
  }
  wire::Writer wb;
  wire::encode_batch(wb, reps);
  wire::Reader rb(wb.bytes());
  const auto got = wire::decode_batch(rb);
  REQUIRE(got.size() == 3);
  CHECK(got[2].scalars == std::vector<int64_t>{2});
  // An unknown cause, or an empty batch, is refused.
  std::string bad = w.bytes();
  bad[1 + 4 + 1] = char(99);  // outcome, message "m" (u32 length + 1 byte), then the cause
  wire::Reader rbad(bad);
  CHECK_THROWS_AS(wire::decode_reply(rbad), wire::ProtocolError);
  wire::Writer empty;
  wire::encode_batch(empty, {});
  wire::Reader re(empty.bytes());
  CHECK_THROWS_AS(wire::decode_batch(re), wire::ProtocolError);
}

TEST_CASE("comments are blanked, line breaks and strings kept") {
  const std::string code = "int a; // atomicAdd\n/* atomicAdd\n */ const char* s = \"//x\";\n";
  const std::string out = cudalab::code_without_comments(code);
  CHECK(out.find("atomicAdd") == std::string::npos);
  CHECK(std::count(out.begin(), out.end(), '\n') == 3);
  CHECK(out.find("\"//x\"") != std::string::npos);
}

TEST_CASE("a 32-bit grid-stride index compared with a size_t is found, others are not") {
  const std::string with_int =
      "__global__ void k(const unsigned char* in, unsigned* h, size_t n) {\n"
      "  for (int j = threadIdx.x; j < 256; j += blockDim.x) h[j] = 0;\n"
      "  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) h[in[i]]++;\n"
      "}\n";
  auto x = cudalab::narrow_grid_stride_index(with_int);
  REQUIRE(x);
  CHECK(x->name == "i");
  CHECK(x->line == 3);
  CHECK(x->is_signed);
  CHECK(cudalab::narrow_index_words(*x, "lab6.cu").find("wraps past 2^31") != std::string::npos);
  // size_t index, or an int counting uint4s up to a bound of its own: nothing to say.
  CHECK_FALSE(
      cudalab::narrow_grid_stride_index("void k(size_t n) { for (size_t i = blockIdx.x * 256; i < n; i += 256) ; }"));
  CHECK_FALSE(cudalab::narrow_grid_stride_index(
      "void k(size_t n) { const int n16 = n / 16; for (int i = blockIdx.x * 256; i < n16; i += 256) ; }"));
  auto u = cudalab::narrow_grid_stride_index(
      "void k(size_t n) { unsigned i = blockIdx.x * 256u;\n while (i < n) { i += 7; } }");
  REQUIRE(u);
  CHECK_FALSE(u->is_signed);
  // The start reached through a name of its own, and a bound spelled as another 64-bit type: the
  // same int index (issue 30: real kernels written so passed on the CPU backend, failed on a GPU).
  auto via = cudalab::narrow_grid_stride_index(
      "__global__ void k(const unsigned char* in, unsigned* h, unsigned long long n) {\n"
      "  const int tid = blockIdx.x * blockDim.x + threadIdx.x;\n"
      "  const int stride = blockDim.x * gridDim.x;\n"
      "  for (int i = tid; i < n; i += stride) atomicAdd(&h[in[i]], 1u);\n"
      "}\n");
  REQUIRE(via);
  CHECK(via->name == "i");
  CHECK(via->line == 4);
  CHECK(via->is_signed);
  // A thread number that is never stepped is not an index that wraps.
  CHECK_FALSE(cudalab::narrow_grid_stride_index(
      "void k(size_t n) { int tid = blockIdx.x * 256 + threadIdx.x; for (size_t i = tid; i < n; i += 256) ; }"));
}
