// PROFILE=1's checker side (issue 31): the emulator's notes are read as numbers or not at all,
// the digest names the limiter only where the student's figure is worse than the reference's,
// and Nsight Compute's CSV gives the same figures a GPU's way.
#include <doctest/doctest.h>

#include <string>

#include "checker/profile/ncu_figures.h"
#include "checker/profile/profile_digest.h"
#include "checker/profile/profile_figures.h"

using namespace cudalab;

namespace {

std::string note(const std::string& shared_line) {
  return "cudalab: profile kernel k at labs/lab4.cu:30 launches 1 blocks 256 sampled 64 largest_grid 256 threads 256 "
         "dynamic_smem 0 static_smem 4096 barriers 256 atomic_ops 0 atomic_addresses 0 atomic_most_on_one 0 ; line "
         "labs/lab4.cu:12 gload requests 100 lanes 3200 lanes_possible 3200 units 400 ideal_units 400 bytes 12800 ; " +
         shared_line;
}

ProfileDigest digest(const std::string& yours, const std::string& reference) {
  ProfileFigures y, r;
  y.kernels.push_back(*parse_profile_note(note(yours)));
  r.kernels.push_back(*parse_profile_note(note(reference)));
  ProfileInputs in;
  in.yours = &y;
  in.reference = &r;
  in.elements = 262144;
  in.your_place = [](const std::string& p) { return p; };
  return digest_profile(in);
}

const char* kPadded =
    "line labs/lab4.cu:20 sload requests 100 lanes 3200 lanes_possible 3200 units 100 ideal_units 100 bytes 12800";
const char* kConflicted =
    "line labs/lab4.cu:20 sload requests 100 lanes 3200 lanes_possible 3200 units 3200 ideal_units 100 bytes 12800";

}  // namespace

TEST_CASE("profile notes: read as numbers, refused when they do not add up") {
  const auto k = parse_profile_note(note(kPadded));
  REQUIRE(k);
  CHECK(k->name == "k");
  CHECK(k->lines.size() == 2);
  CHECK(k->lines[1].kind == AccessKind::SharedLoad);
  CHECK(k->static_smem == 4096);
  CHECK_FALSE(parse_profile_note("cudalab: note: barrier divergence at x:1"));
  CHECK_FALSE(
      parse_profile_note(note("line a:1 sload requests nan lanes 1 lanes_possible 1 units 1 ideal_units 1 bytes 4")));
  // More busy lanes than the warps had: not a count the emulator could make.
  CHECK_FALSE(
      parse_profile_note(note("line a:1 sload requests 1 lanes 64 lanes_possible 32 units 1 ideal_units 1 bytes 4")));
}

TEST_CASE("profile digest: the limiter named at its line, the reference quiet") {
  const ProfileDigest bad = digest(kConflicted, kPadded);
  CHECK(bad.limiter == "bank_conflicts");
  REQUIRE(bad.sentences.size() >= 3);
  CHECK(bad.sentences[0].find("bank conflicts") != std::string::npos);
  CHECK(bad.sentences[0].find("labs/lab4.cu:20") != std::string::npos);
  CHECK(bad.sentences[0].find("32 ways") != std::string::npos);
  CHECK(bad.sentences[0].rfind("Estimated", 0) == 0);
  const ProfileDigest same = digest(kPadded, kPadded);
  CHECK(same.limiter == "none");
  // Worse than the reference is not enough when the figure itself is fine (1.2 passes a request).
  const ProfileDigest slight = digest(
      "line labs/lab4.cu:20 sload requests 100 lanes 3200 lanes_possible 3200 units 120 ideal_units 100 bytes 12800",
      kPadded);
  CHECK(slight.limiter == "none");
}

TEST_CASE("profile from Nsight Compute's raw CSV: one line of each kind per kernel, harness kernels left out") {
  const std::string csv =
      "==PROF== Connected to process\n"
      "\"ID\",\"Process Name\",\"Kernel Name\",\"launch__grid_size\",\"launch__block_size\","
      "\"l1tex__t_requests_pipe_lsu_mem_global_op_st.sum\",\"l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum\","
      "\"memory_l2_theoretical_sectors_global\",\"memory_l2_theoretical_sectors_global_ideal\","
      "\"smsp__pcsamp_warps_issue_stalled_long_scoreboard\",\"smsp__pcsamp_warps_issue_stalled_barrier\"\n"
      "\"\",\"\",\"\",\"\",\"\",\"request\",\"sector\",\"sector\",\"sector\",\"\",\"\"\n"
      "\"0\",\"lab4-runner\",\"fill_kernel\",\"1000\",\"256\",\"10\",\"40\",\"40\",\"40\",\"1\",\"0\"\n"
      "\"1\",\"lab4-runner\",\"transpose(const float *, float *, int, int)\",\"3,136\",\"256\",\"100\",\"3200\","
      "\"3600\",\"800\",\"5\",\"9\"\n"
      "\"2\",\"lab4\",\"cudalab::<unnamed>::range_sum_kernel(double "
      "*)\",\"9\",\"32\",\"1\",\"1\",\"1\",\"1\",\"0\",\"0\"\n";
  const ProfileFigures f = read_ncu_csv(csv, {"fill_kernel"});
  REQUIRE(f.problem.empty());
  REQUIRE(f.kernels.size() == 1);
  const KernelFigures& k = f.kernels[0];
  CHECK(k.name == "transpose");
  CHECK(k.largest_grid == 3136);
  CHECK(k.top_stall == "barrier");
  REQUIRE(k.lines.size() == 1);
  CHECK(k.lines[0].kind == AccessKind::GlobalStore);
  CHECK(k.lines[0].units == 3200);
  CHECK(k.lines[0].ideal_units == doctest::Approx(3200.0 * 800 / 3600));
  CHECK_FALSE(read_ncu_csv("no table here", {}).problem.empty());
}
