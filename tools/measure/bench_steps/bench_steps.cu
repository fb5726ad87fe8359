// What each step of labs 6, 7 and 8 buys on a GPU: the task's kernel, then the reference's
// changes one at a time, each timed the same way (bench.cuh: CUDA events, 3 warm-ups, median of
// 20, the L2 flushed before each call, random non-zero inputs) and checked against the CPU.
// The notebooks quote these figures (labs/lab6_histogram.cu, lab7_atomic_sum.cu, lab8_top_k.cu).
//
//   make bench-steps                    builds build/bench/bench_steps (nvcc)
//   build/bench/bench_steps [6] [7] [8] runs the labs named (all three by default)
//
// Sizes as the labs' own timing has them, each several times the H100's 50 MB L2: lab 6 2^28
// bytes, lab 7 2^26 floats, lab 8 2^26 floats with k = 64.
#include <cstring>

#include "lab6_steps.cuh"
#include "lab7_steps.cuh"
#include "lab8_steps.cuh"

int main(int argc, char** argv) {
  bool want[9] = {};
  for (int a = 1; a < argc; ++a) {
    const int lab = std::atoi(argv[a]);
    if (lab < 6 || lab > 8) {
      std::fprintf(stderr, "usage: %s [6] [7] [8]\n", argv[0]);
      return 2;
    }
    want[lab] = true;
  }
  if (argc == 1) want[6] = want[7] = want[8] = true;

  cudaDeviceProp prop{};
  BENCH_CHECK(cudaGetDeviceProperties(&prop, 0));
  std::printf("%s (sm_%d%d, %d SMs, %d MB L2); median of %d after %d warm-ups, L2 flushed before each\n", prop.name,
              prop.major, prop.minor, prop.multiProcessorCount, prop.l2CacheSize >> 20, bench::kRepeats,
              bench::kWarmups);
  const bench::L2Flush flush;
  if (want[6]) lab6_steps::run(flush, size_t(1) << 28);
  if (want[7]) lab7_steps::run(flush, size_t(1) << 26);
  if (want[8]) lab8_steps::run(flush, size_t(1) << 26, 64);
  return 0;
}
