// Lab 9 on a GPU, in one run: cuBLAS SGEMM, the reference solution as it is in place
// (solutions/lab9_sgemm.cu's lab9::sgemm), the ladder's rungs and a search over tile shapes
// (lab9_family.cuh, lab9_candidates.h), each timed the same way and checked against cuBLAS.
//
//   tools/gpu/gpu_sgemm_search.sh           builds it (nvcc, sm_90, the candidates over 16 parts) and runs it
//   lab9_search [--from ID] [--results FILE] [--only ID]
//
// Timing: bench.cuh's rule (CUDA events around each call, 3 warm-ups, median of 20, the L2 flushed
// before each call), inputs random in [0.5, 1.5) (never zero), at 4096^3, 1024^3 and
// M 4096 x N 2048 x K 1000 (non-square, K not a multiple of 16: a partial last slice for BK 16).
// cuBLAS: cublasSgemm with CUBLAS_DEFAULT_MATH (FP32 on the CUDA cores, no TF32), as the harness
// times it (harness/checker/gpu/ceilings.cu). Check: every element of C against cuBLAS's, max
// |c - ref| / |ref| (all terms positive, so |ref| is about K), C poisoned with NaN before the call
// and a guard past its end that must stay NaN.
//
// A candidate that breaks the GPU context (an illegal address) ends the process; every result
// is appended to the results file as it is measured, so the script starts the program again
// after the candidate that broke (--from) and the last run prints the tables of all of them.
#include <cublas_v2.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <string>

#include "bench.cuh"
#include "lab9_search.h"

// ---- The reference solution, linked in as it is ----------------------------------------------
namespace lab9 {
void sgemm(const float* d_A, const float* d_B, float* d_C, int M, int N, int K);
}
// What solutions/lab9_sgemm.cu needs of the harness (cudalab/launch_check.h): an error stops the run.
namespace cudalab {
const char* note_source_file(const char* path) { return path; }
void check_call(cudaError_t status, const char* call, const char* file, int line) {
  if (status != cudaSuccess) {
    std::fprintf(stderr, "%s:%d: %s: %s\n", file, line, call, cudaGetErrorString(status));
    std::exit(1);
  }
}
void check_launch(const char* kernel, const char* file, int line) {
  check_call(cudaGetLastError(), kernel, file, line);
}
}  // namespace cudalab

namespace lab9_search {
// A list of macro uses, laid out by hand (the formatter cannot lay out a macro list).
// clang-format off
#define DECLARE_PART(p) void register_part_##p(std::vector<Candidate>&);
DECLARE_PART(0) DECLARE_PART(1) DECLARE_PART(2) DECLARE_PART(3) DECLARE_PART(4) DECLARE_PART(5) DECLARE_PART(6)
DECLARE_PART(7) DECLARE_PART(8) DECLARE_PART(9) DECLARE_PART(10) DECLARE_PART(11) DECLARE_PART(12) DECLARE_PART(13)
DECLARE_PART(14) DECLARE_PART(15)
static_assert(kParts == 16, "one DECLARE_PART per part");
// clang-format on
void register_part(int part, std::vector<Candidate>& out) {
  using F = void (*)(std::vector<Candidate>&);
  static const F parts[kParts] = {register_part_0,  register_part_1,  register_part_2,  register_part_3,
                                  register_part_4,  register_part_5,  register_part_6,  register_part_7,
                                  register_part_8,  register_part_9,  register_part_10, register_part_11,
                                  register_part_12, register_part_13, register_part_14, register_part_15};
  parts[part](out);
}
}  // namespace lab9_search

namespace {

using lab9_search::Candidate;

#define CUBLAS_CHECK(call)                                                                \
  do {                                                                                    \
    const cublasStatus_t s_ = (call);                                                     \
    if (s_ != CUBLAS_STATUS_SUCCESS) {                                                    \
      std::fprintf(stderr, "%s:%d: %s: status %d\n", __FILE__, __LINE__, #call, int(s_)); \
      std::exit(1);                                                                       \
    }                                                                                     \
  } while (0)

struct Shape {
  int M, N, K;
  const char* name;
};
const Shape kShapes[] = {
    {4096, 4096, 4096, "4096^3"}, {1024, 1024, 1024, "1024^3"}, {4096, 2048, 1000, "4096x2048x1000"}};
constexpr int kNumShapes = 3;
constexpr int kCublas = -2, kSolution = -1;
constexpr size_t kMax = size_t(4096) * 4096;
constexpr size_t kGuard = 1 << 16;  // floats after C that must stay NaN
constexpr double kTolerance = 1e-4;  // relative; float rounding over K = 4096 positive terms is ~1e-6

double tflops(const Shape& s, double ms) { return 2.0 * s.M * s.N * double(s.K) / (ms * 1e-3) / 1e12; }

// The largest |c - ref| / |ref| over n elements; NaN (never written) counts as infinity.
__global__ void max_relative_error(const float* c, const float* ref, size_t n, unsigned* out) {
  float m = 0.f;
  for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += size_t(blockDim.x) * gridDim.x) {
    float e = fabsf(c[i] - ref[i]) / fabsf(ref[i]);
    if (isnan(e)) e = INFINITY;
    m = fmaxf(m, e);
  }
  atomicMax(out, __float_as_uint(m));  // non-negative floats order as their bits do
}
// How many of the guard's floats are no longer NaN (written past the end of C).
__global__ void count_written(const float* guard, size_t n, unsigned* out) {
  for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += size_t(blockDim.x) * gridDim.x)
    if (!isnan(guard[i])) atomicAdd(out, 1u);
}

struct Buffers {
  float *A = nullptr, *B = nullptr, *C = nullptr, *ref[kNumShapes] = {};
  unsigned* scratch = nullptr;
};

// Runs `run` once on a NaN-poisoned C and returns its max relative error against ref (infinite
// when it wrote past the end of C).
template <class Run>
double check(const Buffers& b, const Shape& s, const float* ref, Run run) {
  const size_t n = size_t(s.M) * s.N;
  BENCH_CHECK(cudaMemset(b.C, 0xff, (n + kGuard) * sizeof(float)));
  run();
  BENCH_CHECK(cudaGetLastError());
  BENCH_CHECK(cudaMemset(b.scratch, 0, 2 * sizeof(unsigned)));
  max_relative_error<<<1024, 256>>>(b.C, ref, n, b.scratch);
  count_written<<<64, 256>>>(b.C + n, kGuard, b.scratch + 1);
  unsigned h[2];
  BENCH_CHECK(cudaMemcpy(h, b.scratch, sizeof h, cudaMemcpyDeviceToHost));
  float e;
  std::memcpy(&e, &h[0], sizeof e);
  return h[1] ? INFINITY : double(e);
}

struct Result {
  double ms = 0, err = 0;
  bool have = false;
};
using Results = std::map<int, Result[kNumShapes]>;

void read_results(const char* path, Results& r) {
  FILE* f = std::fopen(path, "r");
  if (!f) return;
  char line[256];
  while (std::fgets(line, sizeof line, f)) {
    int id, shape;
    double ms, err;
    if (std::sscanf(line, "RESULT %d %d %lf %lf", &id, &shape, &ms, &err) == 4 && shape >= 0 && shape < kNumShapes)
      r[id][shape] = {ms, err, true};
  }
  std::fclose(f);
}

struct Info {
  int regs = 0, local = 0, blocks_per_sm = 0;
};
Info info_of(const Candidate& c) {
  Info i;
  cudaFuncAttributes a{};
  if (cudaFuncGetAttributes(&a, c.kernel) == cudaSuccess) i.regs = a.numRegs, i.local = int(a.localSizeBytes);
  // The launch sets the shared-memory limit the first time; occupancy needs it set already.
  cudaFuncSetAttribute(c.kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(c.smem_bytes));
  cudaOccupancyMaxActiveBlocksPerMultiprocessor(&i.blocks_per_sm, c.kernel, c.threads, c.smem_bytes);
  cudaGetLastError();
  return i;
}

std::string label(const Candidate* c, int id) {
  if (id == kCublas) return "cuBLAS SGEMM (CUBLAS_DEFAULT_MATH)";
  if (id == kSolution) return "solutions/lab9_sgemm.cu in place (lab9::sgemm)";
  std::string s = "#" + std::to_string(id) + " [" + c->params + "]";
  if (c->rung[0]) s += " " + std::string(c->rung);
  return s;
}

void print_tables(const std::vector<Candidate>& cands, const Results& r) {
  std::map<int, const Candidate*> by_id;
  for (const auto& c : cands) by_id[c.id] = &c;
  std::printf(
      "\nparams: BM, BN, BK, WM, WN, TM, TN, STAGES, AMODE (0 registers, 1 cp.async 4 B), BMODE (0 registers, "
      "1 cp.async 16 B), SWZ, MINB, FRAG (1 double-buffered fragments), KSPLIT (split-K)\n");
  for (int s = 0; s < kNumShapes; ++s) {
    const auto cu = r.find(kCublas);
    const double cublas_tf = cu != r.end() && cu->second[s].have ? tflops(kShapes[s], cu->second[s].ms) : 0;
    std::vector<std::pair<double, int>> rows;
    for (const auto& [id, res] : r)
      if (res[s].have) rows.push_back({tflops(kShapes[s], res[s].ms), id});
    std::sort(rows.rbegin(), rows.rend());
    std::printf("\n== %s, sorted by TFLOP/s (cuBLAS %.2f TFLOP/s) ==\n", kShapes[s].name, cublas_tf);
    std::printf("  %-4s %-100s %4s %5s %3s %9s %8s %8s %9s\n", "rank", "kernel", "regs", "spill", "bps", "ms",
                "TFLOP/s", "cuBLAS%", "max rel");
    int rank = 0;
    for (const auto& [tf, id] : rows) {
      const Result& res = r.at(id)[s];
      const Candidate* c = by_id.count(id) ? by_id[id] : nullptr;
      Info in;
      if (c) in = info_of(*c);
      const bool ok = res.err <= kTolerance;
      std::printf("  %-4d %-100s %4d %5d %3d %9.4f %8.2f %7.1f%% %9.2e%s\n", ++rank, label(c, id).c_str(), in.regs,
                  in.local, in.blocks_per_sm, res.ms, tf, cublas_tf > 0 ? 100 * tf / cublas_tf : 0.0, res.err,
                  ok ? "" : "  WRONG: its time means nothing");
    }
  }
  std::printf("\n== the ladder, TFLOP/s and %% of cuBLAS at each shape ==\n");
  for (const auto& c : cands) {
    if (!c.rung[0] || !r.count(c.id)) continue;
    std::printf("  %-70s", c.rung);
    for (int s = 0; s < kNumShapes; ++s) {
      const auto& res = r.at(c.id)[s];
      const auto cu = r.find(kCublas);
      if (!res.have || cu == r.end() || !cu->second[s].have) {
        std::printf("  %22s", "-");
        continue;
      }
      const double tf = tflops(kShapes[s], res.ms), ctf = tflops(kShapes[s], cu->second[s].ms);
      std::printf("  %s %6.2f %5.1f%%%s", kShapes[s].name, tf, 100 * tf / ctf, res.err <= kTolerance ? "" : " WRONG");
    }
    std::printf("\n");
  }
}

}  // namespace

int main(int argc, char** argv) {
  int from = 0, only = -1000;
  const char* results_path = "lab9_search_results.txt";
  for (int a = 1; a < argc; ++a) {
    if (!std::strcmp(argv[a], "--from") && a + 1 < argc)
      from = std::atoi(argv[++a]);
    else if (!std::strcmp(argv[a], "--only") && a + 1 < argc)
      only = std::atoi(argv[++a]);
    else if (!std::strcmp(argv[a], "--results") && a + 1 < argc)
      results_path = argv[++a];
    else {
      std::fprintf(stderr, "usage: %s [--from ID] [--only ID] [--results FILE]\n", argv[0]);
      return 2;
    }
  }
  std::vector<Candidate> cands;
  for (int p = 0; p < lab9_search::kParts; ++p) lab9_search::register_part(p, cands);
  std::sort(cands.begin(), cands.end(), [](const Candidate& x, const Candidate& y) { return x.id < y.id; });

  cudaDeviceProp prop{};
  BENCH_CHECK(cudaGetDeviceProperties(&prop, 0));
  std::printf(
      "%s (sm_%d%d, %d SMs, %d MB L2); %zu candidates; median of %d after %d warm-ups, L2 flushed before each\n",
      prop.name, prop.major, prop.minor, prop.multiProcessorCount, prop.l2CacheSize >> 20, cands.size(),
      bench::kRepeats, bench::kWarmups);
  std::fflush(stdout);

  Buffers b;
  BENCH_CHECK(cudaMalloc(&b.A, kMax * sizeof(float)));
  BENCH_CHECK(cudaMalloc(&b.B, kMax * sizeof(float)));
  BENCH_CHECK(cudaMalloc(&b.C, (kMax + kGuard) * sizeof(float)));
  BENCH_CHECK(cudaMalloc(&b.scratch, 2 * sizeof(unsigned)));
  for (int s = 0; s < kNumShapes; ++s)
    BENCH_CHECK(cudaMalloc(&b.ref[s], size_t(kShapes[s].M) * kShapes[s].N * sizeof(float)));
  bench::fill_floats<<<1024, 256>>>(b.A, kMax, 1);
  bench::fill_floats<<<1024, 256>>>(b.B, kMax, 2);
  const bench::L2Flush flush;

  cublasHandle_t h;
  CUBLAS_CHECK(cublasCreate(&h));
  CUBLAS_CHECK(cublasSetMathMode(h, CUBLAS_DEFAULT_MATH));
  const float one = 1.f, zero = 0.f;
  // Row-major C = A B is column-major C^T = B^T A^T: cuBLAS sees B (N x K, ld N) times A (K x M, ld K).
  auto cublas = [&](const Shape& s, float* C) {
    CUBLAS_CHECK(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, s.N, s.M, s.K, &one, b.B, s.N, b.A, s.K, &zero, C, s.N));
  };

  FILE* out = std::fopen(results_path, "a");
  if (!out) {
    std::perror(results_path);
    return 1;
  }
  auto record = [&](int id, int s, double ms, double err) {
    std::fprintf(out, "RESULT %d %d %.6f %.3e\n", id, s, ms, err);
    std::fflush(out);
  };

  // cuBLAS: the references for the checks, and the yardstick, measured in every run.
  for (int s = 0; s < kNumShapes; ++s) {
    const Shape& sh = kShapes[s];
    cublas(sh, b.ref[s]);
    BENCH_CHECK(cudaDeviceSynchronize());
    const double ms = bench::median_ms(flush, [&] { cublas(sh, b.C); });
    record(kCublas, s, ms, 0.0);
    std::printf("  cuBLAS %-16s %9.4f ms %8.2f TFLOP/s\n", sh.name, ms, tflops(sh, ms));
  }
  std::fflush(stdout);

  // The solution in place, and at shapes that take its unaligned and edge paths (checked only).
  if (from <= kSolution && (only == -1000 || only == kSolution)) {
    std::fprintf(stderr, "START %d\n", kSolution);
    for (int s = 0; s < kNumShapes; ++s) {
      const Shape& sh = kShapes[s];
      const double err = check(b, sh, b.ref[s], [&] { lab9::sgemm(b.A, b.B, b.C, sh.M, sh.N, sh.K); });
      const double ms = bench::median_ms(flush, [&] { lab9::sgemm(b.A, b.B, b.C, sh.M, sh.N, sh.K); });
      record(kSolution, s, ms, err);
      std::printf("  solution %-16s %9.4f ms %8.2f TFLOP/s  max rel %.2e\n", sh.name, ms, tflops(sh, ms), err);
    }
    const Shape odd[] = {{1023, 1001, 999, "1023x1001x999"},
                         {4097, 129, 130, "4097x129x130"},
                         {127, 254, 4096, "127x254x4096"},
                         {1, 1, 1, "1x1x1"}};
    for (const Shape& sh : odd) {
      float* ref = b.ref[0];  // 4096^2 floats: room for any of these
      cublas(sh, ref);
      const double err = check(b, sh, ref, [&] { lab9::sgemm(b.A, b.B, b.C, sh.M, sh.N, sh.K); });
      std::printf("  solution %-16s check only: max rel %.2e %s\n", sh.name, err, err <= kTolerance ? "ok" : "WRONG");
    }
    cublas(kShapes[0], b.ref[0]);  // the 4096^3 reference back
    BENCH_CHECK(cudaDeviceSynchronize());
    std::fflush(stdout);
  }

  for (const auto& c : cands) {
    if (c.id < from || (only != -1000 && c.id != only)) continue;
    std::fprintf(stderr, "START %d\n", c.id);
    for (int s = 0; s < kNumShapes; ++s) {
      const Shape& sh = kShapes[s];
      const double err = check(b, sh, b.ref[s], [&] { c.run(b.A, b.B, b.C, sh.M, sh.N, sh.K); });
      const double ms = bench::median_ms(flush, [&] { c.run(b.A, b.B, b.C, sh.M, sh.N, sh.K); });
      record(c.id, s, ms, err);
    }
    std::printf("  done #%d\n", c.id);
    std::fflush(stdout);
  }
  std::fclose(out);

  Results r;
  read_results(results_path, r);
  print_tables(cands, r);
  cublasDestroy(h);
  return 0;
}
