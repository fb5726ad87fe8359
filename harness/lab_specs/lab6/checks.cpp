// Lab 6's checks: the 256-bin byte histogram, compared exactly with a CPU histogram.
//
// A table of cases, each an input size and a kind of bytes, and one function that runs a case.
// The kinds: uniform random bytes; every byte equal (32 lanes of every warp on one counter);
// hot bins (u^8 scaled to 256: half of the bytes are 0, nine in ten below 64); a ramp
// (i mod 256: every bin the same count, so a lost or doubled stretch of bytes changes many
// bins alike). d_hist is poisoned (0xFFFFFFFF), never cleared: clearing it is the lab's job.
// Cases above 2^24 bytes are `large`: the CPU backend skips them, a GPU runs them all.
#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "call.h"
#include "checker/calls/lab_call.h"
#include "checker/judging/guard_verdicts.h"
#include "checker/calls/runner_words.h"
#include "checker/types/suite.h"
#include "checker/judging/diagnose.h"
#include "checker/judging/histogram_reference.h"
#include "checker/judging/index_width.h"
#include "cudalab/lab6.h"

namespace cudalab {
namespace {

constexpr size_t kLargeAbove = size_t(1) << 24;

enum class Bytes { Uniform, Equal, Hot, Ramp };

struct Spec {
  const char* id;
  const char* title;
  size_t n;
  Bytes bytes;
};

const std::vector<Spec>& specs() {
  static const std::vector<Spec> s = {
      {"one_byte", "n = 1: one byte, one count", 1, Bytes::Uniform},
      {"seventeen_bytes", "n = 17: 16 bytes and one more (a loose byte after a 16-byte load)", 17, Bytes::Uniform},
      {"fewer_bytes_than_threads", "n = 100: most threads of a block have no byte at all", 100, Bytes::Ramp},
      {"block_minus_one", "n = 255: one byte short of a 256-thread block", 255, Bytes::Uniform},
      {"block_plus_one", "n = 257: one byte past a 256-thread block", 257, Bytes::Uniform},
      {"uint4_block_plus_one", "n = 4,097: 256 threads x 16 bytes, and one byte more", 4097, Bytes::Uniform},
      {"ramp_65536", "n = 65,536, byte i = i mod 256: every bin exactly 256", 65536, Bytes::Ramp},
      {"prime_uniform", "n = 1,000,003 uniform bytes (a prime: a multiple of nothing)", 1000003, Bytes::Uniform},
      {"all_bytes_equal", "n = 1,000,003 bytes, all equal: every atomic on one bin", 1000003, Bytes::Equal},
      {"hot_bins", "n = 999,983 skewed bytes: half in bin 0, nine in ten below 64", 999983, Bytes::Hot},
      {"million_plus_three", "n = 2^20 + 3: whole 16-byte vectors, and three bytes more", (size_t(1) << 20) + 3,
       Bytes::Uniform},
      {"odd_twelve_million", "n = 12,345,679 uniform bytes", 12345679, Bytes::Uniform},
      {"large_uniform", "n = 2^28 + 5 uniform bytes (256 MiB)", (size_t(1) << 28) + 5, Bytes::Uniform},
      {"large_equal", "n = 2^27 + 1 bytes, all equal", (size_t(1) << 27) + 1, Bytes::Equal},
      {"large_hot", "n = 2^27 + 11 skewed bytes", (size_t(1) << 27) + 11, Bytes::Hot},
      {"past_2_31", "n = 2^31 + 3 (2 GiB): indices past what an int holds", (size_t(1) << 31) + 3, Bytes::Uniform},
  };
  return s;
}

std::vector<CheckCase> cases() {
  std::vector<CheckCase> c;
  for (const Spec& s : specs()) c.push_back(CheckCase{s.id, s.title, Shape{{s.n}}, s.n > kLargeAbove});
  return c;
}

// The fill of each random kind (protocol.h: byte = floor(lo + (hi - lo) * u^power)).
wire::Fill byte_fill(Bytes kind, uint64_t seed) {
  wire::Fill f = wire::uniform_fill(seed, /*stream=*/6, 0.0f, 256.0f);
  if (kind == Bytes::Equal) f.lo = f.hi = 173.0f;  // one value, chosen to be no bin's index by accident
  if (kind == Bytes::Hot) f.power = 8;
  return f;
}

std::vector<uint8_t> ramp(size_t n) {
  std::vector<uint8_t> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = uint8_t(i);
  return v;
}

std::string bin_text(size_t b) { return "bin " + std::to_string(b); }

// "64-255", "3, 7-9": the bins whose flag is set, as ranges.
std::string bin_ranges(const std::vector<bool>& in) {
  std::string s;
  for (size_t b = 0; b < in.size(); ++b) {
    if (!in[b] || (b && in[b - 1])) continue;
    size_t end = b;
    while (end + 1 < in.size() && in[end + 1]) ++end;
    s += (s.empty() ? "" : ", ") + std::to_string(b) + (end > b ? "-" + std::to_string(end) : "");
  }
  return s;
}

// A bin that still held the harness's 0xFFFFFFFF when counting began ends exactly 1 short
// (0xFFFFFFFF + c wraps to c - 1). When every wrong bin is 1 short and some bins are right, part
// of d_hist was cleared: says which bins were not, and, when the cleared ones are the first k (a
// cudaMemset given a count of counters, not of bytes), that cudaMemset counts bytes.
bool explain_partial_clear(CheckResult& r, const ByteHistogram& expected, const std::vector<uint32_t>& got) {
  std::vector<bool> short_by_one(256);
  size_t wrong = 0, cleared = 0;
  for (size_t b = 0; b < 256; ++b) {
    const uint32_t e = uint32_t(expected[b]);
    if (got[b] == e) continue;
    if (got[b] != uint32_t(e - 1u)) return false;
    short_by_one[b] = true;
    ++wrong;
  }
  while (cleared < 256 && !short_by_one[cleared]) ++cleared;
  if (wrong == 0 || wrong == 256) return false;
  r.message = (wrong == 1 ? "bin " : "bins ") + bin_ranges(short_by_one) + (wrong == 1 ? " was" : " were") +
              " never set to 0: each is exactly 1 short, the 0xFFFFFFFF d_hist arrives with plus its count "
              "(0xFFFFFFFF + 1 wraps to 0)";
  if (cleared + wrong == 256)
    r.notes.push_back("only the first " + std::to_string(cleared) + " counters were cleared, " +
                      std::to_string(cleared * 4) +
                      " bytes: cudaMemset counts bytes, not elements. Clear all 256 "
                      "with cudaMemset(d_hist, 0, 256 * sizeof(unsigned))");
  else
    r.notes.push_back("every one of the 256 counters must be set to 0 before the blocks add into it (TODO 4)");
  return true;
}

}  // namespace

// Compares the 256 counts exactly and says what the pattern of wrong ones means. Also used by
// the timing (lab_specs/lab6/timing.cpp) to check every timed repetition.
CheckResult compare_histogram(const ByteHistogram& expected, const std::vector<uint32_t>& got, size_t n,
                              bool partial_clear) {
  CheckResult r;
  size_t wrong = 0, poison = 0, one_short = 0;
  uint64_t counted = 0;
  for (size_t b = 0; b < 256; ++b) {
    const uint32_t e = uint32_t(expected[b]);
    wrong += got[b] != e;
    poison += got[b] == kPoisonBits;
    one_short += got[b] == uint32_t(e - 1u);
    counted += got[b];
  }
  if (wrong == 0) {
    r.status = Status::Pass;
    r.message = "all 256 counts are right";
    return r;
  }
  r.status = Status::Fail;
  for (size_t b = 0; b < 256 && r.mismatches.size() < 5; ++b)
    if (got[b] != uint32_t(expected[b]))
      r.mismatches.push_back(Mismatch{b, bin_text(b), double(expected[b]), double(got[b]), "", true});

  r.cause = poison == 256 ? Cause::UnwrittenOutput : Cause::WrongValues;
  if (partial_clear && explain_partial_clear(r, expected, got)) {
    // (said there: the bins that kept the poison)
  } else if (poison == 256) {
    r.message = "d_hist was never written: all 256 bins still hold the 0xFFFFFFFF they started with";
    r.notes.push_back("clear d_hist first (TODO 4), then each block adds its counts into it (step 5)");
  } else if (one_short == 256) {
    r.message = "every bin is exactly 1 short: d_hist was never set to 0";
    r.notes.push_back(
        "d_hist arrives holding 0xFFFFFFFF in every bin (garbage, on purpose), and 0xFFFFFFFF + 1 wraps to 0: "
        "set it to 0 before the blocks add into it (TODO 4)");
  } else if (counted > n) {
    r.message = std::to_string(wrong) + " of 256 bins wrong: counted " + with_commas(counted) +
                " bytes, but there are only " + with_commas(n) + ": some bytes were counted more than once";
    r.notes.push_back(
        "every byte belongs to exactly one thread: is the grid-stride step blockDim.x * gridDim.x (the whole grid), "
        "and does each block add its shared histogram into d_hist exactly once?");
  } else if (counted < n) {
    r.message = std::to_string(wrong) + " of 256 bins wrong: counted " + with_commas(counted) + " of the " +
                with_commas(n) + " bytes: " + with_commas(n - counted) +
                (n - counted == 1 ? " was missed" : " were missed");
    r.notes.push_back(
        "counts got lost: is there a __syncthreads() after zeroing the shared histogram (before anyone counts) and "
        "another before adding it into d_hist? Does the loop reach the last byte (i < n), in every block?");
  } else {
    r.message =
        std::to_string(wrong) + " of 256 bins wrong, though the counts add up to n: bytes went to the wrong bins";
    r.notes.push_back("the bin of byte value v is v itself: s_hist[in[i]], and bin t goes to d_hist[t]");
  }
  return r;
}

namespace {

// past_2_31 names its cause when the file shows it: a 32-bit grid-stride index (index_width.h).
// On a GPU the check runs, and a failure is told the index first, the symptom after; an
// unsigned index that passes at 2^31 + 3 is warned about (it wraps near 2^32, which n may reach).
void name_narrow_index(const LabSource& source, CheckResult& r) {
  const std::optional<NarrowIndex> x = narrow_grid_stride_index(code_without_comments(source.text));
  if (!x) return;
  const std::string words = narrow_index_words(*x, source.shown);
  if (r.status == Status::Fail) {
    r.notes.insert(r.notes.begin(), r.message);
    r.message = words;
  } else if (!x->is_signed) {
    r.notes.push_back(words);
  }
}

// The CPU backend does not run past_2_31 (2 GiB: about 40 s of CPU and 2.1 GB for the solution
// on a 2-core machine). Its verdict comes from the file instead: an int index fails there on a
// GPU, so it fails here, said as what it is; anything else is skipped as before.
std::optional<CheckResult> judge_unemulated(const LabSource& source, const CheckCase& c) {
  if (c.id != "past_2_31") return std::nullopt;
  const std::optional<NarrowIndex> x = narrow_grid_stride_index(code_without_comments(source.text));
  if (!x) return std::nullopt;
  CheckResult r;
  r.status = x->is_signed ? Status::Fail : Status::Skipped;
  r.message = narrow_index_words(*x, source.shown);
  r.notes.push_back(std::string("the CPU backend does not run this 2 GiB check (about a minute here); the checker read "
                                "your code instead. ") +
                    (x->is_signed ? "On a GPU this check counts the bytes past 2^31 wrong"
                                  : "This check (2^31 + 3 bytes) passes on a GPU; a larger n would not"));
  return r;
}

// One call of the lab on the check's input, d_hist poisoned, or starting at `start` in every bin.
struct HistogramCall {
  LabCall call{lab6_call::kCall};
  size_t hist = 0;
};
HistogramCall make_call(Bytes kind, size_t n, uint64_t seed, ByteHistogram* expected, const uint32_t* start) {
  HistogramCall h;
  if (kind == Bytes::Ramp) {
    const std::vector<uint8_t> input = ramp(n);
    h.call.data_input(lab6_call::kIn, input);
    if (expected) *expected = histogram_reference(input);
  } else {
    const wire::Fill fill = byte_fill(kind, seed);
    h.call.random_input(lab6_call::kIn, n, fill);
    if (expected) *expected = histogram_of_fill(n, fill);
  }
  const std::vector<uint32_t> starts(lab6::kBins, start ? *start : 0u);
  h.hist = start ? h.call.output_from(lab6_call::kHist, starts.data(), lab6::kBins)
                 : h.call.output(lab6_call::kHist, lab6::kBins);  // poisoned: 0xFFFFFFFF
  h.call.scalar(lab6_call::kN, int64_t(n));
  return h;
}

// "Never cleared" and "one count lost" look alike where a bin expects 1 (0xFFFFFFFF + 1 = 0 =
// 1 - 1: a missing barrier after zeroing loses one). Run again with d_hist starting at
// 0x40000000: a bin that was never cleared then holds 0x40000000 + its count; a lost count does not.
bool uncleared_confirmed(CallContext& calls, Bytes kind, size_t n, uint64_t seed, const ByteHistogram& expected,
                         const std::vector<uint32_t>& got) {
  constexpr uint32_t kStart = 0x40000000u;
  HistogramCall again = make_call(kind, n, seed, nullptr, &kStart);
  const std::vector<uint32_t> second = again.call.run(calls).u32s(again.hist);
  for (size_t b = 0; b < 256; ++b) {
    const bool short_here = got[b] != uint32_t(expected[b]);
    if (short_here != (second[b] == kStart + uint32_t(expected[b]))) return false;
  }
  return true;
}

CheckResult run(CallContext& calls, const CheckCase& c, uint64_t seed) {
  const size_t n = c.shape.dims[0];
  Bytes kind = Bytes::Uniform;
  for (const Spec& s : specs())
    if (c.id == s.id) kind = s.bytes;

  ByteHistogram expected;
  HistogramCall h = make_call(kind, n, seed, &expected, nullptr);
  const LabCallResult res = h.call.run(calls);
  const std::vector<uint32_t> got = res.u32s(h.hist);
  CheckResult r = compare_histogram(expected, got, n);
  if (r.message.find(" never set to 0: each is exactly 1 short") != std::string::npos &&
      !uncleared_confirmed(calls, kind, n, seed, expected, got))
    r = compare_histogram(expected, got, n, /*partial_clear=*/false);
  if (c.id == "past_2_31") name_narrow_index(calls.runner.source(), r);
  add_guards_and_notes(r, h.call, res, {{h.hist, "d_hist (256 counters)"}, {lab6_call::kIn}});
  return r;
}

}  // namespace

const LabSuite& lab_suite() {
  static const LabSuite suite{
      6,
      "the shared-memory histogram",
      "N",
      1,
      cases(),
      run,
      [](const Shape& s) -> std::string {
        return s.dims[0] == 0 || s.dims[0] > 0xFFFFFFFFull
                   ? "lab 6 counts from 1 to 2^32 - 1 bytes (its contract's limit)"
                   : "";
      },
      judge_unemulated,
  };
  return suite;
}

}  // namespace cudalab
