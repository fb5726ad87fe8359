// The profile in words (issue 31): from the student's figures and the reference solution's, the
// limiter named in two to four sentences, pointing at the line or the launch, beside the
// reference's figures, and a small table of both. The same words on both backends; the CPU
// backend's say "estimated", a GPU's "measured". Advice only: no verdict or point reads it.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "profile_figures.h"

namespace cudalab {

// The GPU the figures are judged for (the CPU backend estimates for an H100).
struct GpuModel {
  std::string name = "H100";
  double sms = 132, threads_per_sm = 2048, blocks_per_sm = 32, smem_per_sm = 228 * 1024, regs_per_sm = 65536;
  double smem_reserved_per_block = 1024;
};

struct ProfileRow {
  std::string figure, yours, reference;
};

struct ProfileDigest {
  std::string limiter;  // a stable id: "uncoalesced", "bank_conflicts", ..., "none"
  std::vector<std::string> sentences;  // two to four
  std::vector<ProfileRow> table;
};

struct ProfileInputs {
  const ProfileFigures* yours = nullptr;
  const ProfileFigures* reference = nullptr;
  double elements = 1;  // the problem's size (elements of the input)
  // The multiply-adds the problem needs, which every correct kernel does (a matrix product's
  // M N K); 0 where the lab is no product. Data reuse is judged against them.
  double multiply_adds = 0;
  bool measured = false;  // a GPU's figures (Nsight Compute) rather than the emulator's estimate
  GpuModel gpu;
  // A place the student's figures name, as the report may show it ("" when it may not).
  std::function<std::string(const std::string&)> your_place = [](const std::string&) { return std::string(); };
};

ProfileDigest digest_profile(const ProfileInputs& in);

}  // namespace cudalab
