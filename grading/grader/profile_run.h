// --profile (issue 31): "why is it slow" for a student whose checks all passed, made on the CPU
// backend after their grading; advice in their feedback, never points.
#pragma once
#include "grading_context.h"

namespace grading {

// --profile: for a graded student whose checks all passed, their file built as a profile runner
// (bin/lab-profile, in their build jail) and profiled beside the reference's by the CPU backend's
// checker (their runner in their jail), into r.profile_*; when it cannot be made (a build error,
// a time limit), r.profile_status is "not_made" and the text says why. Never touches points.
// Others are left as they are.
void add_profile(const GradingContext& ctx, unsigned index, StudentResult& r);

}  // namespace grading
