// What lab9_search.cu knows of a candidate, whichever part of the build compiled it.
#pragma once
#include <cstddef>
#include <vector>

namespace lab9_search {

struct Candidate {
  int id;
  const char* rung;    // "" unless the candidate is a rung of the ladder
  const char* params;  // BM, BN, BK, WM, WN, TM, TN, STAGES, AMODE, BMODE, SWZ, MINB, FRAG, KSPLIT
  int threads;
  size_t smem_bytes;
  void (*run)(const float* A, const float* B, float* C, int M, int N, int K);
  const void* kernel;  // for cudaFuncGetAttributes / occupancy
};

// One per part (lab9_search_part.cu compiled with -DPART=p -DPARTS=P); the parts' count is fixed
// here so that main can call every one of them.
constexpr int kParts = 16;
void register_part(int part, std::vector<Candidate>& out);

}  // namespace lab9_search
