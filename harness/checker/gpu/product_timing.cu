#include "product_timing.h"

#include <cuda_runtime.h>

#include <algorithm>
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

// One core at 4096^3 would take about a minute: time the first rows of C (about 2^27
// multiply-adds' worth) and scale to all M rows. Rows of C cost the same, so this is fair.
TimingRow cpu_product_row(const RunnerSession& runner, size_t M, size_t N, size_t K, uint64_t seed, double flops) {
  const std::vector<float> a = matrix_input(M, K, seed, /*stream=*/1, -1.0f, 1.0f);
  const std::vector<float> b = matrix_input(K, N, seed, /*stream=*/2, -1.0f, 1.0f);
  const size_t cpu_rows = std::clamp<size_t>((size_t(1) << 27) / std::max<size_t>(1, N * K), 1, M);
  std::vector<float> host_c(cpu_rows * N);
  Timing cpu = time_host(
      runner, [&] { cpu_matmul_rows(a.data(), b.data(), host_c.data(), N, K, 0, cpu_rows); }, 3);
  const double cpu_ms = cpu.median_ms * double(M) / double(cpu_rows);
  // In GFLOP/s: a CPU core's rate would print as 0.00 TFLOP/s.
  return {
      "one CPU core (i-k-j loops)",
      "cpu",
      cpu_ms,
      flops / (cpu_ms * 1e6),
      "GFLOP/s",
      0,
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
  // checked on 64 elements of C drawn after it ran (a dot product of length K each; only those
  // come back).
  auto fill_of = [&](int rep, uint64_t stream) {
    return wire::uniform_fill(timed_call_seed(req.seed, rep), stream, -1.0f, 1.0f);
  };
  size_t c_index = 0;
  const MakeCall make_call = [&](int rep) {
    LabCall call(lab_call);
    call.random_input(kProductA, M * K, fill_of(rep, 1));
    call.random_input(kProductB, K * N, fill_of(rep, 2));
    c_index = call.sampled_output(kProductC, M * N, 64);
    call.scalar(kProductM, int64_t(M));
    call.scalar(kProductN, int64_t(N));
    call.scalar(kProductK, int64_t(K));
    return call;
  };
  const VerifyCall verify = [&](int rep, const LabCall&, const LabCallResult& res) {
    return check_product_samples(res.samples.at(c_index), fill_of(rep, 1), fill_of(rep, 2), M, N, K);
  };
  const StudentTiming student = time_lab_calls(req.runner, make_call, verify);
  // Everything below is the checker's own, timed with no process of the student's alive.
  if (!student_processes_ended(req.runner, t) || !accept_student_timing(student, t)) return t;
  // The harness's kernels and cuBLAS on calls made as the student's were (the ceiling is cuBLAS's
  // row: the same method as every other row).
  std::vector<std::pair<std::string, StudentTiming>> baseline_rows;
  StudentTiming cublas;
  {
    const BaselineSession session(req.runner, lab_call.lab);
    cublas = session.time(kCublasProductRung, make_call, verify);
    // With req.student_row_only, cuBLAS alone: it is the ceiling and sets the physical floor
    // that judges the student's time; the naive rungs are the anchor runs' (the grader's).
    for (const ProductBaseline& base : req.student_row_only ? std::vector<ProductBaseline>{} : baselines) {
      if (!base.fits || base.fits(m, n, k))
        baseline_rows.emplace_back(base.name, session.time(base.rung, make_call, verify));
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
  if (!accept_student_timing(student, t, flops / (3.0 * t.ceiling_value * 1e9),
                             "the product at three times cuBLAS's rate"))
    return t;
  t.note = timing_method_note(student, "The ceiling: cuBLAS SGEMM's row");
  row("your kernel", "student", student.median_ms, student.method());

  if (!req.graded_rows_only) t.rows.push_back(cpu_product_row(req.runner, M, N, K, req.seed, flops));
  for (const auto& [name, timing] : baseline_rows)
    if (baseline_timed(timing, name, t)) row(name, "baseline", timing.median_ms, batches_note(timing));
  row("cuBLAS SGEMM", "vendor", cublas.median_ms, batches_note(cublas));
  return t;
}

}  // namespace cudalab
