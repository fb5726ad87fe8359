// Lab 4's timing: the student's transpose, one CPU core, the harness's naive kernel
// (coalesced reads, strided writes) and cuBLAS's geam transpose (harness/baselines/transpose.cu,
// timed as the student's code is: baseline_timing.h), against the device-to-device copy of the
// same bytes. Rates count bytes read plus written.
#include <string>

#include "call.h"
#include "checker/types/suite.h"
#include "checker/gpu/ceilings.h"
#include "checker/gpu/timer.h"
#include "checker/judging/diagnose.h"
#include "checker/judging/matrix_reference.h"
#include "checker/timing/baseline_timing.h"
#include "checker/timing/timed_call.h"
#include "cudalab/lab4.h"
#include "wire/cuda_errors.h"
#include "wire/fill.h"
#include "wire/random.h"

namespace cudalab {

TimingReport lab_timing(const TimingRequest& req) {
  // 10000 x 10000 floats: 400 MB each way, eight times the H100's L2, not a multiple of 32.
  const size_t rows = req.shape ? req.shape->dims[0] : 10000, cols = req.shape ? req.shape->dims[1] : 10000;
  const size_t n = rows * cols, bytes = n * sizeof(float);

  TimingReport t;
  t.status = "measured";
  t.size = with_commas(rows) + " x " + with_commas(cols) + " floats (" + with_commas(bytes >> 20) + " MiB each way)";
  t.ceiling_name = "device-to-device copy of the same bytes (read + written)";
  t.ceiling_unit = "GB/s";
  auto row = [&](std::string name, std::string role, double ms, std::string note = "") {
    double gbs = 2.0 * double(bytes) / (ms * 1e6);  // every element read once and written once
    // Only GPU kernels are judged against the GPU's memory bandwidth.
    bool on_gpu = role == "student" || role == "baseline" || role == "vendor";
    t.rows.push_back({name, role, ms, gbs, "GB/s", on_gpu ? gbs / t.ceiling_value : 0, note});
  };

  // The student's transpose, in the kernel runner: every repetition on a matrix of its own,
  // checked exactly on 4,096 elements of its output drawn after it ran (only those come back).
  auto fill_of = [&](int rep) { return wire::uniform_fill(timed_call_seed(req.seed, rep), 1, 1.0f, 2.0f); };
  size_t out_index = 0;
  const MakeCall make_call = [&](int rep) {
    LabCall call(lab4_call::kCall);
    call.random_input(lab4_call::kIn, n, fill_of(rep));
    out_index = call.sampled_output(lab4_call::kOut, n, 4096);
    call.scalar(lab4_call::kRows, int64_t(rows));
    call.scalar(lab4_call::kCols, int64_t(cols));
    return call;
  };
  const VerifyCall verify = [&](int rep, const LabCall&, const LabCallResult& res) {
    return check_transpose_samples(res.samples.at(out_index), fill_of(rep), rows, cols);
  };
  const StudentTiming student = time_lab_calls(req.runner, make_call, verify);
  // Everything below is the checker's own, timed with no process of the student's alive.
  if (!student_processes_ended(req.runner, t) || !accept_student_timing(student, t)) return t;
  t.ceiling_value = copy_bandwidth_gbs(req.runner, bytes);
  if (!accept_student_timing(
          student, t, 2.0 * double(bytes) / (1.5 * t.ceiling_value * 1e6),
          "reading and writing " + with_commas(bytes >> 20) + " MiB at 1.5 times the copy bandwidth"))
    return t;
  t.note = timing_method_note(student);
  row("your kernel", "student", student.median_ms, student.method());

  if (!req.graded_rows_only) {  // the grader's speed points need the naive row alone
    const std::vector<float> input = matrix_input(rows, cols, req.seed, /*stream=*/1, 1.0f, 2.0f);
    std::vector<float> host_out(n);
    Timing cpu = time_host(
        req.runner, [&] { cpu_transpose(input.data(), host_out.data(), rows, cols); }, 3);
    row("one CPU core (32 x 32 blocked loops)", "cpu", cpu.median_ms);
  }
  if (req.student_row_only) return t;  // the grader's anchor runs time the harness's rows
  // The harness's kernels on the student's very calls: fresh matrices, outputs checked alike.
  const BaselineSession baselines(req.runner, 4);
  const StudentTiming naive = baselines.time(0, make_call, verify);
  if (baseline_timed(naive, "the naive kernel", t))
    row("naive: coalesced reads, strided writes (harness)", "baseline", naive.median_ms, batches_note(naive));
  if (req.graded_rows_only) return t;
  const StudentTiming geam = baselines.time(1, make_call, verify);
  if (baseline_timed(geam, "cuBLAS", t))
    row("cuBLAS cublasSgeam transpose", "vendor", geam.median_ms, batches_note(geam));
  return t;
}

}  // namespace cudalab
