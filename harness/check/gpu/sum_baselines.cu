#include "sum_baselines.h"

#include <cub/device/device_reduce.cuh>
#include <cuda_runtime.h>

#include "cuda_errors.h"
#include "ceilings.h"
#include "diagnose.h"
#include "sum_reference.h"
#include "tolerance.h"

namespace cudalab {

namespace {

constexpr unsigned kNaiveBlock = 1024;

// Block b sums data[b*1024, ...) in place; thread 0 writes the block's sum to out[b].
__global__ void naive_interleaved(float* data, float* out, size_t n) {
  size_t base = size_t(blockIdx.x) * blockDim.x;
  unsigned tid = threadIdx.x;
  for (unsigned s = 1; s < blockDim.x; s *= 2) {
    if (tid % (2 * s) == 0 && base + tid + s < n) data[base + tid] += data[base + tid + s];
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = data[base];
}

}  // namespace

Timing time_naive_interleaved_sum(const float* d_in, size_t n) {
  size_t partial_room = (n + kNaiveBlock - 1) / kNaiveBlock + 1;
  float *work = nullptr, *a = nullptr, *b = nullptr;
  require(cudaMalloc(&work, n * sizeof(float)), "allocating the baseline's work copy");
  require(cudaMalloc(&a, partial_room * sizeof(float)), "allocating the baseline's partials");
  require(cudaMalloc(&b, partial_room * sizeof(float)), "allocating the baseline's partials");
  auto prepare = [&] { require(cudaMemcpy(work, d_in, n * sizeof(float), cudaMemcpyDeviceToDevice), "baseline copy"); };
  Timing t = time_gpu(
      [&] {
        float* in = work;
        float* out = a;
        size_t m = n;
        while (true) {
          unsigned blocks = unsigned((m + kNaiveBlock - 1) / kNaiveBlock);
          naive_interleaved<<<blocks, kNaiveBlock>>>(in, out, m);
          if (blocks == 1) break;
          in = out;
          out = (out == a) ? b : a;
          m = blocks;
        }
      },
      TimerConfig{}, prepare);
  cudaFree(work);
  cudaFree(a);
  cudaFree(b);
  require(cudaGetLastError(), "the naive baseline sum");
  return t;
}

Timing time_cub_sum(const float* d_in, size_t n) {
  float* d_out = nullptr;
  void* temp = nullptr;
  size_t temp_bytes = 0;
  require(cudaMalloc(&d_out, sizeof(float)), "allocating CUB's result");
  require(cub::DeviceReduce::Sum(temp, temp_bytes, d_in, d_out, n), "sizing CUB's scratch");
  require(cudaMalloc(&temp, temp_bytes), "allocating CUB's scratch");
  Timing t = time_gpu([&] { require(cub::DeviceReduce::Sum(temp, temp_bytes, d_in, d_out, n), "cub::DeviceReduce::Sum"); });
  cudaFree(temp);
  cudaFree(d_out);
  return t;
}

SumTimingReport::SumTimingReport(size_t n, const std::string& size_note) : n_(n), bytes_(n * sizeof(float)) {
  report.status = "measured";
  report.size = "n = " + with_commas(n) + " floats (" + with_commas(bytes_ >> 20) + " MiB)" + size_note;
  report.note = "CUDA events, median of 20 after 3 warm-ups, L2 flushed before each";
  report.ceiling_name = "device-to-device copy (bytes read + written)";
  report.ceiling_unit = "GB/s";
}

void SumTimingReport::add(const std::string& name, const std::string& role, double ms, const std::string& note) {
  double gbs = double(bytes_) / (ms * 1e6);
  bool on_gpu = role == "student" || role == "baseline" || role == "vendor";
  report.rows.push_back({name, role, ms, gbs, "GB/s", on_gpu ? gbs / report.ceiling_value : 0, note});
}

bool SumTimingReport::add_student(const StudentTiming& st, const std::string& name, const std::string& note) {
  if (!student_processes_ended(report)) return false;
  if (!accept_student_timing(st, report)) return false;
  report.ceiling_value = copy_bandwidth_gbs(bytes_);  // with no process of the student's alive
  const double floor_ms = double(bytes_) / (1.5 * report.ceiling_value * 1e6);
  if (!accept_student_timing(st, report, floor_ms,
                             "reading " + with_commas(bytes_ >> 20) + " MiB at 1.5 times the copy bandwidth"))
    return false;
  report.note = timing_method_note(st);
  add(name, "student", st.median_ms, note);
  return true;
}

void SumTimingReport::add_comparisons(const std::vector<float>& input, const float* d_input) {
  Timing cpu = time_host(
      [&] {
        volatile double s = serial_sum(input);
        (void)s;
      },
      3);
  add("one CPU core (serial, double)", "cpu", cpu.median_ms);
  add("naive interleaved, all levels (harness)", "baseline", time_naive_interleaved_sum(d_input, n_).median_ms);
  add("CUB DeviceReduce::Sum", "vendor", time_cub_sum(d_input, n_).median_ms);
}

}  // namespace cudalab
