#include "topk_reference.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <iterator>
#include <mutex>
#include <string>

#include "diagnose.h"
#include "fill_reference.h"
#include "wire/fill.h"
#include "wire/parallel.h"

namespace cudalab {
namespace {

bool before(const TopKEntry& a, const TopKEntry& b) { return comes_before(a.value, a.index, b.value, b.index); }

// The first k of elements [begin, end) (value_at(i) is element i's value), in order: a heap of
// the best k seen, whose top is the worst of them (so a new element is compared with one value,
// and usually rejected).
template <class ValueAt>
std::vector<TopKEntry> top_k_range(const ValueAt& value_at, size_t begin, size_t end, size_t k) {
  std::vector<TopKEntry> heap;
  heap.reserve(k + 1);
  for (size_t i = begin; i < end; ++i) {
    const TopKEntry e{value_at(i), int32_t(i)};
    if (heap.size() < k) {
      heap.push_back(e);
      std::push_heap(heap.begin(), heap.end(), before);
    } else if (before(e, heap.front())) {
      std::pop_heap(heap.begin(), heap.end(), before);
      heap.back() = e;
      std::push_heap(heap.begin(), heap.end(), before);
    }
  }
  std::sort(heap.begin(), heap.end(), before);
  return heap;
}

// The first k of n elements, each core taking a share of them: the first k of the whole are
// among each share's first k.
template <class ValueAt>
std::vector<TopKEntry> top_k_parallel(const ValueAt& value_at, size_t n, size_t k) {
  k = std::min(k, n);
  std::vector<TopKEntry> candidates;
  std::mutex m;
  parallel_for(n, [&](size_t begin, size_t end) {
    std::vector<TopKEntry> part = top_k_range(value_at, begin, end, k);
    std::lock_guard<std::mutex> lock(m);
    candidates.insert(candidates.end(), part.begin(), part.end());
  });
  std::sort(candidates.begin(), candidates.end(), before);
  candidates.resize(k);
  return candidates;
}

}  // namespace

std::vector<TopKEntry> top_k_serial(const std::vector<float>& values, size_t k) {
  return top_k_range([&](size_t i) { return values[i]; }, 0, values.size(), std::min(k, values.size()));
}

std::vector<TopKEntry> top_k_reference(const std::vector<float>& values, size_t k) {
  return top_k_parallel([&](size_t i) { return values[i]; }, values.size(), k);
}

std::vector<TopKEntry> top_k_of_fill(size_t n, const wire::Fill& fill, size_t k) {
#ifdef CUDALAB_GPU_CHECKER
  // 2^26 values make each of lab 8's timed checks: about 0.2 s on 16 host cores (0.6 s on 2), a few
  // milliseconds on the GPU.
  std::vector<TopKEntry> first_k;
  if (n >= kDeviceReferenceFrom && device_top_k_of_fill(n, fill, k, first_k)) return first_k;
#endif
  const uint64_t key = wire::fill_key(fill);
  return top_k_parallel([&](size_t i) { return wire::random_value(fill, key, i, n); }, n, k);
}

bool top_k_matches(const std::vector<TopKEntry>& expected, const std::vector<float>& got_values,
                   const std::vector<int32_t>& got_indices) {
  if (got_values.size() < expected.size() || got_indices.size() < expected.size()) return false;
  for (size_t p = 0; p < expected.size(); ++p)
    if (got_indices[p] != expected[p].index || std::memcmp(&got_values[p], &expected[p].value, sizeof(float)) != 0)
      return false;
  return true;
}

size_t place_of(const std::vector<float>& values, int32_t index) {
  const float v = values[size_t(index)];
  size_t place = 0;
  for (size_t i = 0; i < values.size(); ++i) place += comes_before(values[i], int32_t(i), v, index);
  return place;
}

}  // namespace cudalab

namespace cudalab {
namespace {

std::string entry_text(const std::vector<float>& values, int32_t index) {
  char v[32];
  std::snprintf(v, sizeof v, "%.9g", double(values[size_t(index)]));
  return "index " + std::to_string(index) + " (value " + v + ")";
}

std::string place_text(size_t r) { return "place " + std::to_string(r); }

bool same_bits(float a, float b) { return std::memcmp(&a, &b, sizeof a) == 0; }

// Elements of the answer missing from the student's: a tie given to the higher index (every
// missing one has an extra one of the same value), or elements lost on the way.
void explain_missing(CheckResult& r, const std::vector<float>& values, size_t k, const std::vector<int32_t>& missing,
                     const std::vector<int32_t>& extra, const std::string& count) {
  std::vector<float> mv, ev;
  for (int32_t i : missing) mv.push_back(values[size_t(i)]);
  for (int32_t i : extra) ev.push_back(values[size_t(i)]);
  std::sort(mv.begin(), mv.end());
  std::sort(ev.begin(), ev.end());
  const int32_t m = missing.front();
  if (mv == ev) {
    r.message = count + "a tie went to the higher index: " + entry_text(values, extra.front()) + " took the place of " +
                entry_text(values, m);
    r.notes.push_back("equal values: the lower index wins (lab8.h), at every level and in every comparison");
    return;
  }
  const std::string which = k == 1 ? "the first element is missing from your answer: "
                            : missing.size() == 1
                                ? "1 of the " + std::to_string(k) + " first elements is missing from your answer: "
                                : std::to_string(missing.size()) + " of the " + std::to_string(k) +
                                      " first elements are missing from your answer, such as ";
  r.message = count + which + entry_text(values, m) + ", place " + std::to_string(place_of(values, m));
  r.notes.push_back(
      "the k first of the input are among the k first of every tile that holds them: does each block "
      "keep its own k best (not only its largest), and does every level keep every list it is given?");
}

// A place whose value is not its index's. Two causes, told apart by the input: a value that some
// other element holds was moved without its index (a swap of one array alone); a value no
// element holds was never an input, so it was read from a shared-memory slot before any thread
// wrote it (issue 22: a missing barrier after loading the tile was sent to the swap).
void explain_unpaired_value(CheckResult& r, const std::vector<float>& values, size_t p, float got, int32_t i,
                            const std::string& count) {
  char g[32];
  std::snprintf(g, sizeof g, "%.9g", double(got));
  const bool an_input =
      got == -INFINITY || std::any_of(values.begin(), values.end(), [&](float v) { return same_bits(v, got); });
  if (an_input) {
    r.message = count + place_text(p) + " says value " + g + " but " + entry_text(values, i) + " holds another";
    r.notes.push_back("a value and its index must travel together: swap both arrays' entries, never one alone");
    return;
  }
  r.message = count + place_text(p) + " holds value " + g +
              ", which no element of d_values holds: a "
              "__syncthreads() is missing after loading the tile (a slot was read before any thread wrote it)";
  r.notes.push_back(
      "every slot must be loaded before any thread compares; if that barrier is there, check that every "
      "slot of the tile is loaded, padding included");
}

}  // namespace

CheckResult judge_top_k(const std::vector<float>& values, const std::vector<TopKEntry>& expected,
                        const std::vector<float>& got_values, const std::vector<int32_t>& got_indices) {
  const size_t k = expected.size(), n = values.size();
  CheckResult r;
  std::vector<size_t> wrong;  // places whose value or index is not the answer's
  size_t unwritten = 0;
  for (size_t p = 0; p < k; ++p) {
    if (got_indices[p] != expected[p].index || !same_bits(got_values[p], expected[p].value)) wrong.push_back(p);
    unwritten += got_indices[p] == -1 && is_poison(got_values[p]);
  }
  if (wrong.empty()) {
    r.status = Status::Pass;
    r.message = "all " + std::to_string(k) + (k == 1 ? " place is" : " places are") + " right, values and indices";
    return r;
  }
  r.status = Status::Fail;
  for (size_t p : wrong) {
    if (r.mismatches.size() == 5) break;  // the first five are shown
    r.mismatches.push_back(
        Mismatch{p, place_text(p), double(expected[p].value), double(got_values[p]),
                 "index " + std::to_string(got_indices[p]) + ", expected " + std::to_string(expected[p].index)});
  }
  const std::string of_k = " of " + std::to_string(k) + (k == 1 ? " place wrong: " : " places wrong: ");
  r.cause = unwritten == wrong.size() ? Cause::UnwrittenOutput : Cause::WrongValues;  // every wrong place unwritten
  if (unwritten == k) {
    r.message = "d_top_values and d_top_indices were never written: they still hold the harness's poison";
    r.notes.push_back("the level that runs as a single block writes them: is every TODO done?");
    return r;
  }
  for (size_t p = 0; p < k; ++p) {
    const int32_t i = got_indices[p];
    if (i == -1 && is_poison(got_values[p])) {
      r.message = std::to_string(wrong.size()) + of_k + place_text(p) + " was never written";
      r.notes.push_back("every place from 0 to k - 1 needs a value and an index; a level's last k?");
      return r;
    }
    if (i < 0 || size_t(i) >= n) {
      r.message = std::to_string(wrong.size()) + of_k + place_text(p) + " holds index " + std::to_string(i) +
                  ", outside [0, " + std::to_string(n) + ")";
      r.notes.push_back(
          "an index is where the value sits in d_values: at level 1 the element's position, later the "
          "index the candidate carried with it (padding's index must never win a place)");
      return r;
    }
    if (!same_bits(got_values[p], values[size_t(i)])) {
      explain_unpaired_value(r, values, p, got_values[p], i, std::to_string(wrong.size()) + of_k);
      return r;
    }
  }
  std::vector<int32_t> sorted_got(got_indices.begin(), got_indices.begin() + long(k));
  std::sort(sorted_got.begin(), sorted_got.end());
  for (size_t p = 1; p < k; ++p)
    if (sorted_got[p] == sorted_got[p - 1]) {
      r.message = std::to_string(wrong.size()) + of_k + "index " + std::to_string(sorted_got[p]) +
                  " appears twice in your answer";
      r.notes.push_back(
          "each element may win one place only: was a candidate list read twice, or padded with a "
          "real element?");
      return r;
    }
  std::vector<int32_t> sorted_expected(k);
  std::transform(expected.begin(), expected.end(), sorted_expected.begin(), [](const TopKEntry& e) { return e.index; });
  std::sort(sorted_expected.begin(), sorted_expected.end());
  std::vector<int32_t> missing, extra;
  std::set_difference(sorted_expected.begin(), sorted_expected.end(), sorted_got.begin(), sorted_got.end(),
                      std::back_inserter(missing));
  std::set_difference(sorted_got.begin(), sorted_got.end(), sorted_expected.begin(), sorted_expected.end(),
                      std::back_inserter(extra));
  if (!missing.empty()) {
    explain_missing(r, values, k, missing, extra, std::to_string(wrong.size()) + of_k);
    return r;
  }
  // The right elements, in the wrong places.
  const size_t p = wrong.front();
  const bool tie = values[size_t(got_indices[p])] == expected[p].value;
  r.message = std::to_string(wrong.size()) + of_k + "the right " + std::to_string(k) +
              " elements in the wrong order: " + place_text(p) + " holds " + entry_text(values, got_indices[p]) +
              ", not " + entry_text(values, expected[p].index);
  r.notes.push_back(tie ? "equal values come by ascending index: the lower index wins the earlier place"
                        : "the values come out descending: place 0 holds the largest");
  return r;
}

}  // namespace cudalab
