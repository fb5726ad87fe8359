// One part of lab 9's candidates: those with id % PARTS == PART (lab9_candidates.h), compiled on
// their own so that the build of the whole search spreads over the GPU machine's cores.
#include <vector>

#include "lab9_family.cuh"
#include "lab9_search.h"

#ifndef PART
#error "compile with -DPART=p (0 <= p < lab9_search::kParts)"
#endif

namespace lab9_search {
namespace {

// Instantiates the kernel only where kOn: the discarded branch of a template is never compiled.
template <bool kOn, class Cfg>
void add(std::vector<Candidate>& out, int id, const char* rung, const char* params) {
  if constexpr (kOn)
    out.push_back({id, rung, params, Cfg::kThreads, Cfg::kSmemBytes, &lab9_family::launch<Cfg>,
                   reinterpret_cast<const void*>(&lab9_family::sgemm<Cfg>)});
}

}  // namespace

#define CAT2(a, b) a##b
#define CAT(a, b) CAT2(a, b)
void CAT(register_part_, PART)(std::vector<Candidate>& out) {
#define CAND(id, rung, ...) add<(id) % kParts == PART, lab9_family::Cfg<__VA_ARGS__>>(out, id, rung, #__VA_ARGS__);
#include "lab9_candidates.h"
#undef CAND
}

}  // namespace lab9_search
