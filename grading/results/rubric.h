// A lab's rubric, read from grading/rubrics/labN.toml: points per check, hidden checks,
// points for speed against the reference, forbidden libraries and resource limits.
#pragma once
#include <cstdint>
#include <filesystem>
#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

namespace grading {

struct RubricError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct Rubric {
  int lab = 0;
  std::string path;
  double default_check_points = 1;  // a check the rubric does not name
  std::map<std::string, double> check_points;
  std::set<std::string> hidden;  // shown to students only as a count of points
  double speed_points = 0;
  // Where the speed scale's ends are. "naive" (the default): no points at the speed of the
  // harness's own naive kernel, full points at the reference solution's, both measured in the
  // same runs as the student's kernel (the checker times the naive kernel beside it). Falls
  // back to "reference" when a lab's naive kernel is not clearly slower than its reference.
  // "reference": full points at full_at times the reference's time, none at zero_at times.
  std::string anchor = "naive";
  double full_at = 1.05;  // within this factor of the reference's time: full points
  double zero_at = 10;  // "reference" anchor: this many times its time earns none
  // Speed points are given in steps of this many points, coarser than the timing noise (about
  // 1% of a time, about 0.05 points on lab 3's scale): kernels that differ by noise alone land
  // on the same points, wherever and whenever they are graded (issue 17).
  double step = 0.5;
  std::string curve = "log";  // "log" (each halving of the time counts the same) or "linear"
  std::vector<std::string> forbid;  // "cub", "thrust", "cublas"
  struct Limits {
    double build_seconds = 240;
    double run_seconds = 180;  // one student's whole run (checker and runners)
    double check_seconds = 60;  // one check at most (the checker's --check-timeout)
    uint64_t memory_mb = 8192;  // address space on the CPU backend, data on the GPU
    uint64_t file_mb = 64;
    uint64_t processes = 512;
    uint64_t output_kb = 64;  // output kept for the feedback
    // The emulator's run (the checks only it can judge: barriers, races) takes the checks up to
    // this many elements (M x N x K for a product): the small ones, about a second of CPU a
    // student under the race detector. A race shows there as it does in the large ones, once a
    // size has as many levels (lab 3's in-place level needs 1024^2 + 1 for 1,024-element blocks).
    uint64_t emulator_largest = uint64_t(1) << 20;
  } limits;

  double points_for(const std::string& check_id) const;
  // Ids under [checks.points] and in checks.hidden that are none of `check_ids` (the lab's
  // real checks): a typo there would silently score or show the wrong check.
  std::vector<std::string> unknown_checks(const std::vector<std::string>& check_ids) const;
  // The fraction of the speed points (0..1) for a correct submission, "reference" anchor:
  // its time is `ratio` times the reference's.
  double speed_fraction_vs_reference(double ratio) const;
  // "naive" anchor: the student's kernel is `speedup` times as fast as the naive kernel, the
  // reference `reference_speedup` times (each against the naive kernel of its own run).
  double speed_fraction_vs_naive(double speedup, double reference_speedup) const;
  // Points from a fraction, to two decimals (a stable gradebook).
  double speed_points_for(double fraction) const;
};

Rubric load_rubric(const std::filesystem::path& path);
Rubric parse_rubric(const std::string& toml_text, const std::string& source_name);

}  // namespace grading
