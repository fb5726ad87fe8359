#include "product_timing.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "timer.h"
#include "checker/judging/diagnose.h"
#include "checker/judging/matrix_reference.h"
#include "checker/judging/product_check.h"
#include "checker/judging/tolerance.h"
#include "checker/timing/baseline_timing.h"
#include "checker/timing/timed_call.h"
#include "wire/cuda_errors.h"
#include "wire/fill.h"
#include "wire/random.h"

namespace cudalab {

namespace {

// 64 elements of C (the last, then others drawn after the call ran), each a dot product of
// length K against the fills of A and B: "" when all are within the rounding tolerance.
std::string check_sampled_product(const LabCallResult& res, size_t c_index, const wire::Fill& fa, const wire::Fill& fb,
                                  size_t M, size_t N, size_t K, std::mt19937_64& pick) {
  const uint64_t ka = wire::fill_key(fa), kb = wire::fill_key(fb);
  for (int s = 0; s < 64; ++s) {
    const size_t i = s == 0 ? M * N - 1 : pick() % (M * N), r = i / N, col = i % N;
    double dot = 0, abs_dot = 0;
    for (size_t q = 0; q < K; ++q) {
      const double p = double(wire::random_value(fa, ka, r * K + q, M * K)) *
                       double(wire::random_value(fb, kb, q * N + col, K * N));
      dot += p;
      abs_dot += std::fabs(p);
    }
    const float got = res.float_at(c_index, i);
    if (!within(dot, got, dot_tolerance(K, abs_dot)))
      return "C[" + with_commas(r) + "][" + with_commas(col) + "] is " + std::to_string(got) + ", expected " +
             std::to_string(dot);
  }
  return "";
}

// One core at 4096^3 would take about a minute: time the first rows of C (about 2^27
// multiply-adds' worth) and scale to all M rows. Rows of C cost the same, so this is fair.
TimingRow cpu_product_row(size_t M, size_t N, size_t K, uint64_t seed, double flops) {
  const std::vector<float> a = matrix_input(M, K, seed, /*stream=*/1, -1.0f, 1.0f);
  const std::vector<float> b = matrix_input(K, N, seed, /*stream=*/2, -1.0f, 1.0f);
  const size_t cpu_rows = std::clamp<size_t>((size_t(1) << 27) / std::max<size_t>(1, N * K), 1, M);
  std::vector<float> host_c(cpu_rows * N);
  Timing cpu = time_host([&] { cpu_matmul_rows(a.data(), b.data(), host_c.data(), N, K, 0, cpu_rows); }, 3);
  const double cpu_ms = cpu.median_ms * double(M) / double(cpu_rows);
  // In GFLOP/s: a CPU core's rate would print as 0.00 TFLOP/s.
  return {"one CPU core (i-k-j loops)", "cpu", cpu_ms, flops / (cpu_ms * 1e6), "GFLOP/s", 0,
          cpu_rows == M ? "" : "measured on " + with_commas(cpu_rows) + " rows of C and scaled to all " + with_commas(M)};
}

}  // namespace

TimingReport product_timing(const TimingRequest& req, const wire::LabSignature& lab_call,
                            const std::vector<ProductBaseline>& baselines) {
  // 4096^3: 64 MiB per matrix, above the H100's 50 MB L2; the size cuBLAS is quoted at.
  const size_t M = req.shape ? req.shape->dims[0] : 4096, N = req.shape ? req.shape->dims[1] : 4096,
               K = req.shape ? req.shape->dims[2] : 4096;
  const double flops = 2.0 * double(M) * double(N) * double(K);
  const int m = int(M), n = int(N), k = int(K);

  TimingReport t;
  t.status = "measured";
  t.size = "M " + with_commas(M) + ", N " + with_commas(N) + ", K " + with_commas(K) + " (float)";
  t.ceiling_name = "cuBLAS SGEMM (FP32, no tensor cores)";
  t.ceiling_unit = "TFLOP/s";
  auto row = [&](std::string name, std::string role, double ms, std::string note = "") {
    double tflops = flops / (ms * 1e9);
    // Only GPU kernels are judged against the GPU's arithmetic.
    bool on_gpu = role == "student" || role == "baseline" || role == "vendor";
    t.rows.push_back({name, role, ms, tflops, "TFLOP/s", on_gpu ? tflops / t.ceiling_value : 0, note});
  };

  // The student's product, in the kernel runner: every repetition on matrices of its own, and
  // checked on 64 elements of C chosen after it ran (a dot product of length K each).
  auto fill_of = [&](int rep, uint64_t stream) {
    return wire::uniform_fill(timed_call_seed(req.seed, rep), stream, -1.0f, 1.0f);
  };
  size_t c_index = 0;
  std::mt19937_64 pick(req.seed);
  const MakeCall make_call = [&](int rep) {
    LabCall call(lab_call);
    call.random_input(kProductA, M * K, fill_of(rep, 1));
    call.random_input(kProductB, K * N, fill_of(rep, 2));
    c_index = call.output(kProductC, M * N);
    call.scalar(kProductM, int64_t(M));
    call.scalar(kProductN, int64_t(N));
    call.scalar(kProductK, int64_t(K));
    return call;
  };
  const VerifyCall verify = [&](int rep, const LabCall&, const LabCallResult& res) {
    return check_sampled_product(res, c_index, fill_of(rep, 1), fill_of(rep, 2), M, N, K, pick);
  };
  const StudentTiming student = time_lab_calls(make_call, verify);
  // Everything below is the checker's own, timed with no process of the student's alive.
  if (!student_processes_ended(t) || !accept_student_timing(student, t)) return t;
  // The harness's kernels and cuBLAS on calls made as the student's were (the ceiling is cuBLAS's
  // row: the same method as every other row).
  std::vector<std::pair<std::string, StudentTiming>> baseline_rows;
  StudentTiming cublas;
  {
    const BaselineSession session(lab_call.lab);
    cublas = session.time(kCublasProductRung, make_call, verify);
    for (const ProductBaseline& base : baselines) {
      if (!base.fits || base.fits(m, n, k)) baseline_rows.emplace_back(base.name, session.time(base.rung, make_call, verify));
      if (req.graded_rows_only) break;  // the grader's speed points need the first (the anchor) alone
    }
  }
  if (!cublas.ok) {
    t.status = "error";
    t.rows.clear();
    t.note = "timing stopped: cuBLAS SGEMM, the ceiling, could not be timed: " + cublas.problem;
    return t;
  }
  t.ceiling_value = flops / (cublas.median_ms * 1e9);
  if (!accept_student_timing(student, t, flops / (3.0 * t.ceiling_value * 1e9), "the product at three times cuBLAS's rate"))
    return t;
  t.note = timing_method_note(student, "The ceiling: cuBLAS SGEMM's row");
  row("your kernel", "student", student.median_ms, student.method());

  if (!req.graded_rows_only) t.rows.push_back(cpu_product_row(M, N, K, req.seed, flops));
  for (const auto& [name, timing] : baseline_rows)
    if (baseline_timed(timing, name, t)) row(name, "baseline", timing.median_ms, batches_note(timing));
  row("cuBLAS SGEMM", "vendor", cublas.median_ms, batches_note(cublas));
  return t;
}

}  // namespace cudalab
