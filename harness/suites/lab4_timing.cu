// Lab 4's timing: the student's transpose, one CPU core, the harness's naive kernel
// (coalesced reads, strided writes) and cuBLAS's geam transpose, against the device-to-device
// copy of the same bytes. Rates count bytes read plus written.
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

#include "ceilings.h"
#include "cuda_errors.h"
#include "cudalab/lab4.h"
#include "diagnose.h"
#include "guarded_buffer.h"
#include "matrix_reference.h"
#include "suite.h"
#include "timer.h"

namespace cudalab {
namespace {

// The baseline: one thread per element, 32 x 32 threads a block. Neighbouring threads read
// neighbouring input elements (coalesced) and write output elements `rows` floats apart.
__global__ void naive_transpose(const float* in, float* out, int rows, int cols) {
  const int c = blockIdx.x * blockDim.x + threadIdx.x;
  const int r = blockIdx.y * blockDim.y + threadIdx.y;
  if (r < rows && c < cols) out[size_t(c) * rows + r] = in[size_t(r) * cols + c];
}

Timing time_naive_transpose(const float* in, float* out, int rows, int cols) {
  const dim3 block(32, 32), grid((cols + 31) / 32, (rows + 31) / 32);
  return time_gpu([&] { naive_transpose<<<grid, block>>>(in, out, rows, cols); });
}

void require_cublas(cublasStatus_t s, const char* what) {
  if (s != CUBLAS_STATUS_SUCCESS) throw std::runtime_error(std::string(what) + " failed: " + cublasGetStatusString(s));
}

// cuBLAS is column-major: our row-major rows x cols input is its cols x rows matrix (ld cols),
// and our cols x rows output its rows x cols matrix (ld rows). C = 1 * op_T(A) + 0 * B with
// B = C (geam's documented in-place form; B is not read when beta is 0).
Timing time_cublas_transpose(const float* in, float* out, int rows, int cols) {
  cublasHandle_t h;
  require_cublas(cublasCreate(&h), "cublasCreate");
  const float one = 1.0f, zero = 0.0f;
  Timing t;
  try {
    t = time_gpu([&] {
      require_cublas(cublasSgeam(h, CUBLAS_OP_T, CUBLAS_OP_N, rows, cols, &one, in, cols, &zero, out, rows, out, rows),
                     "cublasSgeam");
    });
  } catch (...) {
    cublasDestroy(h);
    throw;
  }
  cublasDestroy(h);
  return t;
}

}  // namespace

TimingReport lab_timing(const TimingRequest& req) {
  // 10000 x 10000 floats: 400 MB each way, eight times the H100's L2, not a multiple of 32.
  const size_t rows = req.shape ? req.shape->dims[0] : 10000, cols = req.shape ? req.shape->dims[1] : 10000;
  const size_t n = rows * cols, bytes = n * sizeof(float);
  const std::vector<float> input = matrix_input(rows, cols, req.seed, /*stream=*/1, 1.0f, 2.0f);

  GuardedBuffer in("the timing input", n), out("the timing output", n);
  in.upload(input);

  TimingReport t;
  t.status = "measured";
  t.size = with_commas(rows) + " x " + with_commas(cols) + " floats (" + with_commas(bytes >> 20) + " MiB each way)";
  t.note = "CUDA events, median of 20 after 3 warm-ups, L2 flushed before each";
  t.ceiling_name = "device-to-device copy of the same bytes (read + written)";
  t.ceiling_value = copy_bandwidth_gbs(bytes);
  t.ceiling_unit = "GB/s";
  auto row = [&](std::string name, std::string role, double ms, std::string note = "") {
    double gbs = 2.0 * double(bytes) / (ms * 1e6);  // every element read once and written once
    // Only GPU kernels are judged against the GPU's memory bandwidth.
    bool on_gpu = role == "student" || role == "baseline" || role == "vendor";
    t.rows.push_back({name, role, ms, gbs, "GB/s", on_gpu ? gbs / t.ceiling_value : 0, note});
  };

  const int r = int(rows), c = int(cols);
  Timing kernel = time_gpu([&] { lab4::transpose(in.get(), out.get(), r, c); });
  const std::vector<float> yours = out.download();  // before the baselines overwrite it

  std::vector<float> host_out(n);
  Timing cpu = time_host([&] { cpu_transpose(input.data(), host_out.data(), rows, cols); }, 3);
  // The timed run's own answer, exact as in the checks (the timed size is not a check's).
  for (size_t i = 0; i < n; ++i)
    if (!(yours[i] == host_out[i])) {
      t.wrong_answer("element [" + with_commas(i / rows) + "][" + with_commas(i % rows) + "] of the output is " +
                     std::to_string(yours[i]) + ", expected " + std::to_string(host_out[i]));
      return t;
    }
  row("your kernel", "student", kernel.median_ms);
  row("one CPU core (32 x 32 blocked loops)", "cpu", cpu.median_ms);
  row("naive: coalesced reads, strided writes (harness)", "baseline",
      time_naive_transpose(in.get(), out.get(), r, c).median_ms);
  row("cuBLAS cublasSgeam transpose", "vendor", time_cublas_transpose(in.get(), out.get(), r, c).median_ms);
  return t;
}

}  // namespace cudalab
