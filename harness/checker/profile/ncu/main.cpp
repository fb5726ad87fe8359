// build/<backend>/check/profile-ncu: PROFILE=1's digest of two Nsight Compute reports (yours and
// the reference solution's, as raw CSV), in the same words as the CPU backend's, marked
// "measured". tools/gpu/gpu_profile.sh runs it; it reads files only, so it is built on any machine.
//
//   profile-ncu --elements N [--multiply-adds F] --yours A.csv --reference B.csv [--first-sentence]
//
// --multiply-adds: a matrix product's M N K (labs 5 and 9), which turns on the data-reuse finding;
// the FFMAs Nsight Compute measured stand in for it where both reports have them.
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>

#include "checker/profile/ncu_figures.h"
#include "checker/profile/profile_digest.h"

namespace {
std::string read_file(const std::string& path) {
  std::ifstream f(path);
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}
}  // namespace

int main(int argc, char** argv) {
  std::string yours, reference;
  double elements = 1, multiply_adds = 0;
  bool first_only = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--yours" && i + 1 < argc)
      yours = argv[++i];
    else if (a == "--reference" && i + 1 < argc)
      reference = argv[++i];
    else if (a == "--elements" && i + 1 < argc)
      elements = std::strtod(argv[++i], nullptr);
    else if (a == "--multiply-adds" && i + 1 < argc)
      multiply_adds = std::strtod(argv[++i], nullptr);
    else if (a == "--first-sentence")
      first_only = true;
    else {
      std::fprintf(stderr,
                   "usage: profile-ncu --elements N [--multiply-adds F] --yours A.csv --reference B.csv "
                   "[--first-sentence]\n");
      return 2;
    }
  }
  // The runner's own kernels (inputs, guards, samples), never the lab's.
  const std::vector<std::string> harness = {"fill_kernel", "fill_bytes_kernel", "self_test_kernel", "guards_kernel",
                                            "gather_kernel"};
  const cudalab::ProfileFigures y = cudalab::read_ncu_csv(read_file(yours), harness);
  const cudalab::ProfileFigures r = cudalab::read_ncu_csv(read_file(reference), harness);
  if (!y.problem.empty() || !r.problem.empty()) {
    std::printf("not profiled: %s\n", (!y.problem.empty() ? y.problem : r.problem).c_str());
    return 1;
  }
  cudalab::ProfileInputs in;
  in.yours = &y;
  in.reference = &r;
  in.elements = elements;
  in.multiply_adds = multiply_adds;
  in.measured = true;
  // The GPU that was measured, by its own name ("NVIDIA H200"), and its SMs' limits.
  if (!y.device.empty()) in.gpu.name = y.device;
  if (y.sms > 0) in.gpu.sms = y.sms;
  if (y.threads_per_sm > 0) in.gpu.threads_per_sm = y.threads_per_sm;
  if (y.blocks_per_sm > 0) in.gpu.blocks_per_sm = y.blocks_per_sm;
  if (y.smem_per_sm > 0) in.gpu.smem_per_sm = y.smem_per_sm;
  if (y.regs_per_sm > 0) in.gpu.regs_per_sm = y.regs_per_sm;
  in.your_place = [](const std::string& kernel) { return "kernel " + kernel; };
  const cudalab::ProfileDigest d = cudalab::digest_profile(in);
  if (first_only) {
    std::printf("%s\n", d.sentences.empty() ? "" : d.sentences[0].c_str());
    return 0;
  }
  for (const auto& s : d.sentences) std::printf("    %s\n", s.c_str());
  std::printf("\n    %-38s %-14s %s\n", "figure", "yours", "reference");
  for (const auto& row : d.table)
    std::printf("    %-38s %-14s %s\n", row.figure.c_str(), row.yours.c_str(), row.reference.c_str());
  if (!y.kernels.empty() && !y.kernels[0].top_stall.empty())
    std::printf("    %-38s %-14s %s\n", "most sampled stall (first kernel)", y.kernels[0].top_stall.c_str(),
                r.kernels.empty() ? "-" : r.kernels[0].top_stall.c_str());
  return 0;
}
