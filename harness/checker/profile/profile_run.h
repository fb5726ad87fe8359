// PROFILE=1 on the CPU backend (issue 31): the lab's function called once more in two profile
// runners, the student's and the reference solution's, at a size small enough to emulate; their
// counts read (profile_figures.h) and digested (profile_digest.h) into the report's last section.
#pragma once
#include <cstdio>
#include <string>

#include "checker/types/options.h"
#include "checker/calls/runner_session.h"
#include "checker/types/suite.h"
#include "profile_digest.h"

namespace cudalab {

struct ProfileSection {
  bool ran = false;
  std::string problem;  // why there is no digest ("" when there is one)
  Shape shape;
  ProfileDigest digest;
};

// The size a lab is profiled at on the CPU backend: large enough to launch more blocks than an
// H100 has SMs, small enough to emulate with every access counted in a second or two.
Shape profile_shape(int lab);
// The multiply-adds lab `lab` needs at `shape`: M N K for the matrix products (labs 5 and 9), else 0.
double profile_multiply_adds(int lab, const Shape& shape);

// Runs the two profile runners named in opt (after the checks: the checks' runner is finished).
ProfileSection run_profile(RunnerSession& session, const LabSuite& suite, const Options& opt, uint64_t seed);

void print_profile(std::FILE* out, const ProfileSection& p);
// The section's body as print_profile prints it, without the heading and the indent: the
// sentences (each wrapped at 96 characters, its lines after the first two spaces in), then the
// table; or "not profiled: why". What the JSON report carries (its "profile" field).
std::string profile_body(const ProfileSection& p);

}  // namespace cudalab
