// Lab 8's timing: the student's top-k (timed in the kernel runner, every repetition on values
// of its own and checked) for k = 64 of 2^26 floats, against one CPU core, the harness's
// naive k-pass kernel and CUB's full radix sort. The rate is the input read (n floats).
#include <cuda_runtime.h>

#include <string>

#include "ceilings.h"
#include "cuda_errors.h"
#include "cudalab/lab8.h"
#include "device_array.h"
#include "diagnose.h"
#include "lab_call.h"
#include "random.h"
#include "suite.h"
#include "timed_call.h"
#include "topk_baselines.h"
#include "topk_reference.h"

namespace cudalab {

wire::Fill lab8_fill(uint64_t seed, float lo, float hi);  // suites/lab8_checks.cpp

TimingReport lab_timing(const TimingRequest& req) {
  const size_t n = req.shape ? req.shape->dims[0] : size_t(1) << 26;  // 256 MiB: five times the H100's L2
  const int k = n < 64 ? int(n) : 64;
  const size_t bytes = n * sizeof(float);
  TimingReport report;
  report.status = "measured";
  report.size = "k = " + std::to_string(k) + " of n = " + with_commas(n) + " floats (" + with_commas(bytes >> 20) + " MiB)";
  report.ceiling_name = "device-to-device copy (bytes read + written)";
  report.ceiling_unit = "GB/s";
  auto add = [&](const std::string& name, const std::string& role, double ms) {
    const double gbs = double(bytes) / (ms * 1e6);
    const bool on_gpu = role == "student" || role == "baseline" || role == "vendor";
    report.rows.push_back({name, role, ms, gbs, "GB/s", on_gpu ? gbs / report.ceiling_value : 0, ""});
  };

  auto fill_of = [&](int rep) {
    return lab8_fill(derive_seed(req.seed, ("timing " + std::to_string(rep)).c_str()), -1000.0f, 1000.0f);
  };
  const size_t scratch_n = lab8::scratch_elements(n, k);
  const StudentTiming st = time_lab_calls(
      [&](int rep) {
        LabCall call("lab8::top_k", 8);
        call.random_input("d_values", wire::ElemType::F32, n, fill_of(rep));
        call.output("d_scratch_values", wire::ElemType::F32, scratch_n, false);
        call.output("d_scratch_indices", wire::ElemType::I32, scratch_n, false);
        call.output("d_top_values", wire::ElemType::F32, size_t(k));
        call.output("d_top_indices", wire::ElemType::I32, size_t(k));
        call.scalar(int64_t(n));
        call.scalar(int64_t(k));
        return call;
      },
      [&](int rep, const LabCall&, const LabCallResult& res) -> std::string {
        const std::vector<float> values = make_input_f32(n, fill_of(rep));
        const CheckResult r = judge_top_k(values, top_k_reference(values, size_t(k)), res.floats(3), res.i32s(4));
        return r.status == Status::Pass ? "" : r.message;
      });
  // Everything below is the checker's own, timed with no process of the student's alive.
  if (!student_processes_ended(report) || !accept_student_timing(st, report)) return report;
  report.ceiling_value = copy_bandwidth_gbs(bytes);
  if (!accept_student_timing(st, report, double(bytes) / (1.5 * report.ceiling_value * 1e6),
                             "reading " + with_commas(bytes >> 20) + " MiB at 1.5 times the copy bandwidth"))
    return report;
  report.note = timing_method_note(st);
  add("your top-k, all levels", "student", st.median_ms);

  const wire::Fill fill = lab8_fill(req.seed, -1000.0f, 1000.0f);
  const std::vector<float> input = make_input_f32(n, fill);
  DeviceArray device_input("the timing input", n);
  device_input.fill(fill);
  const float* d_in = device_input.get();
  const Timing cpu = time_host([&] {
    volatile int first = top_k_serial(input, size_t(k))[0].index;
    (void)first;
  });
  add("one CPU core (one pass, a heap of k)", "cpu", cpu.median_ms);
  add("k passes, each the next element (harness)", "baseline", time_naive_top_k(d_in, n, k).median_ms);
  if (n <= size_t(INT32_MAX)) add("CUB DeviceRadixSort::SortPairsDescending, first k", "vendor",
                                  time_cub_sort_top_k(d_in, n, k).median_ms);
  return report;
}

}  // namespace cudalab
