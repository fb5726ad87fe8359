// The timed comparison of the matrix-product labs (5: the tiled product, 9: SGEMM): the
// student's C = A B at 4096^3 (or --size), one CPU core, the harness's own kernels and cuBLAS
// SGEMM, which is also the ceiling. Rates count 2 M N K floating-point operations.
#pragma once
#include <string>
#include <vector>

#include "product_baselines.h"
#include "checker/types/suite.h"
#include "wire/lab_signature.h"

namespace cudalab {

// Times the lab's call (the student's function, in the kernel runner, each repetition's answer
// checked) against one CPU core, the baselines in their order, and cuBLAS. The first baseline
// is the one the grader's speed scale starts from (grading/rubrics: anchor = "naive").
TimingReport product_timing(const TimingRequest& req, const wire::LabSignature& lab_call,
                            const std::vector<ProductBaseline>& baselines);

}  // namespace cudalab
