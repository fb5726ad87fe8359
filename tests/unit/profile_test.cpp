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

namespace {

// A matrix product's one kernel as the emulator notes it: its global and shared loads' bytes.
ProfileFigures product(double global_bytes, double shared_bytes) {
  std::string n =
      "cudalab: profile kernel mm at labs/lab5.cu:40 launches 1 blocks 64 sampled 64 largest_grid 64 threads 1024 "
      "dynamic_smem 0 static_smem 8192 barriers 1024 atomic_ops 0 atomic_addresses 0 atomic_most_on_one 0 ; line "
      "labs/lab5.cu:31 gload requests 1000 lanes 32000 lanes_possible 32000 units 4000 ideal_units 4000 bytes " +
      std::to_string(global_bytes);
  if (shared_bytes > 0)
    n += " ; line labs/lab5.cu:35 sload requests 1000 lanes 32000 lanes_possible 32000 units 1000 ideal_units 1000 "
         "bytes " +
         std::to_string(shared_bytes);
  ProfileFigures f;
  f.kernels.push_back(*parse_profile_note(n));
  return f;
}

ProfileDigest digest_product(const ProfileFigures& y, const ProfileFigures& r, double multiply_adds) {
  ProfileInputs in;
  in.yours = &y;
  in.reference = &r;
  in.elements = 1 << 24;
  in.multiply_adds = multiply_adds;
  in.your_place = [](const std::string& p) { return p; };
  return digest_profile(in);
}

constexpr double kFmas = 1 << 24;  // 256 x 256 x 256

}  // namespace

TEST_CASE("profile digest: data reuse in a matrix product, from global and from shared memory") {
  // Lab 5's naive product: 2 values from global memory per multiply-add; the tiled reference
  // 1/16 from global, 2 from shared memory.
  const ProfileFigures naive = product(2 * kFmas * 4, 0), tiled = product(kFmas / 16 * 4, 2 * kFmas * 4);
  const ProfileDigest d = digest_product(naive, tiled, kFmas);
  CHECK(d.limiter == "reuse_global");
  REQUIRE(d.sentences.size() >= 3);
  CHECK(d.sentences[0].find("data reuse from global memory is the limiter, at labs/lab5.cu:31") != std::string::npos);
  CHECK(d.sentences[0].find("load 2 values from global memory for every multiply-add, so each value is used once") !=
        std::string::npos);
  CHECK(d.sentences[1].find("loads 0.06 values from global memory per multiply-add, each used 32 times") !=
        std::string::npos);
  // The tiled product against a register-tiled one (lab 9's): shared memory's reuse is named, at
  // the shared-memory line, and global memory's too, after it.
  const ProfileFigures registers = product(kFmas / 64 * 4, 0.1875 * kFmas * 4);
  const ProfileDigest s = digest_product(tiled, registers, kFmas);
  CHECK(s.limiter == "reuse_shared");
  CHECK(s.sentences[0].find("data reuse from shared memory is the limiter, at labs/lab5.cu:35") != std::string::npos);
  CHECK(s.sentences.back().find("data reuse from global memory") == std::string::npos);  // 1/16: not bad in itself
  // Quiet: 16 x 16 tiles (each value used 16 times: half the reference's reuse, still a tiled
  // product), each against itself, and a lab that is no product (no multiply-adds to judge by).
  CHECK(digest_product(product(kFmas / 8 * 4, 2 * kFmas * 4), tiled, kFmas).limiter == "none");
  CHECK(digest_product(tiled, tiled, kFmas).limiter == "none");
  CHECK(digest_product(registers, registers, kFmas).limiter == "none");
  CHECK(digest_product(naive, tiled, 0).limiter == "none");
}

TEST_CASE("profile from Nsight Compute: data reuse from the SASS byte counters and the measured FFMAs") {
  // Synthetic raw pages (not from a GPU: the metrics below were not in the reports kept in
  // tests/profile/ncu), one kernel each, in the columns tools/gpu/gpu_profile.sh asks for: a tiled
  // product with one output per thread against a register-tiled one, 2^30 FFMAs each.
  auto page = [](const std::string& kernel, const std::string& global, const std::string& shared,
                 const std::string& ffma) {
    return "\"ID\",\"Process Name\",\"Kernel Name\",\"launch__grid_size\",\"launch__block_size\","
           "\"sm__sass_data_bytes_mem_global_op_ld.sum\",\"sm__sass_data_bytes_mem_global_op_ldgsts.sum\","
           "\"sm__sass_data_bytes_mem_shared_op_ld.sum\",\"smsp__sass_thread_inst_executed_op_ffma_pred_on.sum\"\n"
           "\"\",\"\",\"\",\"\",\"\",\"byte\",\"byte\",\"byte\",\"inst\"\n"
           "\"0\",\"lab9-runner\",\"" +
           kernel + "(const float *, const float *, float *, int, int, int)\",\"1,024\",\"1024\",\"" + global +
           "\",\"0\",\"" + shared + "\",\"" + ffma + "\"\n";
  };
  const ProfileFigures y = read_ncu_csv(page("one_output_kernel", "268435456", "8589934592", "1073741824"), {});
  const ProfileFigures r = read_ncu_csv(page("sgemm_kernel<true>", "50331648", "805306368", "1073741824"), {});
  REQUIRE(y.problem.empty());
  REQUIRE(y.kernels.size() == 1);
  const KernelFigures& k = y.kernels[0];
  REQUIRE((k.global_load_bytes && k.shared_load_bytes && k.fmas));
  CHECK(*k.global_load_bytes == doctest::Approx(268435456.0));
  CHECK(*k.shared_load_bytes == doctest::Approx(8589934592.0));
  CHECK(*k.fmas == doctest::Approx(1073741824.0));
  ProfileInputs in;
  in.yours = &y;
  in.reference = &r;
  in.elements = 1 << 30;
  in.multiply_adds = 1 << 20;  // wrong on purpose: the measured FFMAs of both reports win
  in.measured = true;
  in.your_place = [](const std::string& k) { return "kernel " + k; };
  const ProfileDigest d = digest_profile(in);
  CHECK(d.limiter == "reuse_shared");
  REQUIRE_FALSE(d.sentences.empty());
  CHECK(d.sentences[0].rfind("Measured", 0) == 0);
  CHECK(d.sentences[0].find("data reuse from shared memory is the limiter, at kernel one_output_kernel: your "
                            "threads load 2 values") != std::string::npos);
  // A report without the counters (an older ncu, or a GPU that lacks them) finds no reuse at all.
  const ProfileFigures old = read_ncu_csv(page("one_output_kernel", "", "", ""), {});
  REQUIRE(old.kernels.size() == 1);
  CHECK_FALSE(old.kernels[0].fmas);
  in.yours = &old;
  in.reference = &old;
  CHECK(digest_profile(in).limiter == "none");
}
