// How long the CPU backend takes for a lab-3 sum, to set the CPU backend's size limits by
// measurement (issue 10). Not a test: it prints figures. Built and run by
// tests/emulator/sum_throughput.sh, which rewrites a lab-3 file (the solution by default) and links
// it with this driver and the emulator only.
#include <cuda_runtime.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "runner/emulator/control.h"  // the emulator's controls (found through -Iharness)

#include "cudalab/lab3.h"

// The three harness hooks lab code calls (harness/core has the real ones).
namespace cudalab {
const char* note_source_file(const char* path) { return path; }
void check_call(cudaError_t status, const char* call, const char* file, int line) {
  if (status != cudaSuccess) {
    std::fprintf(stderr, "%s:%d: %s: %s\n", file, line, call, cudaGetErrorString(status));
    std::exit(1);
  }
}
void check_launch(const char* kernel, const char* file, int line) {
  check_call(cudaDeviceSynchronize(), kernel, file, line);
}
}  // namespace cudalab

int main(int argc, char** argv) {
  std::vector<size_t> sizes;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    size_t n = a.rfind("2^", 0) == 0 ? size_t(1) << std::atoi(a.c_str() + 2) : std::strtoull(a.c_str(), nullptr, 0);
    if (auto plus = a.find('+'); plus != std::string::npos) n += std::strtoull(a.c_str() + plus + 1, nullptr, 0);
    sizes.push_back(n);
  }
  if (sizes.empty()) sizes = {size_t(1) << 24, (size_t(1) << 26) + 1};
  std::printf("lab-3 sum on the CPU backend, %d worker(s):\n", cudalab_cpu::control::worker_count());
  for (size_t n : sizes) {
    float *in, *scratch, *sum;
    if (cudaMalloc(&in, n * sizeof(float)) != cudaSuccess ||
        cudaMalloc(&scratch, lab3::scratch_elements(n) * sizeof(float)) != cudaSuccess ||
        cudaMalloc(&sum, sizeof(float)) != cudaSuccess) {
      std::printf("  n = %zu: out of memory\n", n);
      continue;
    }
    for (size_t i = 0; i < n; ++i) in[i] = float(i % 8);  // "device" memory is host memory here
    double want = 0;
    for (size_t i = 0; i < n; ++i) want += in[i];
    auto t0 = std::chrono::steady_clock::now();
    lab3::multilevel_sum(in, scratch, sum, n);
    cudaError_t e = cudaDeviceSynchronize();
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    float got = 0;
    cudaMemcpy(&got, sum, sizeof got, cudaMemcpyDeviceToHost);
    std::printf("  n = %-12zu %8.3f s  %7.1f M elements/s  %s\n", n, s, n / s / 1e6,
                e != cudaSuccess ? cudaGetErrorString(e) : (got == float(want) ? "right" : "WRONG"));
    cudaFree(in);
    cudaFree(scratch);
    cudaFree(sum);
  }
}
