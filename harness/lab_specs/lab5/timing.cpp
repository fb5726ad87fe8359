// Lab 5's timing: the student's product, one CPU core (on a few rows, scaled), the harness's
// naive kernel (one thread per element, no shared memory) and cuBLAS SGEMM, which is also
// the ceiling (gpu/product_timing.h, shared with lab 9).
#include "call.h"
#include "checker/gpu/product_timing.h"

namespace cudalab {

TimingReport lab_timing(const TimingRequest& req) {
  return product_timing(req, lab5_call::kCall, {naive_product_baseline()});
}

}  // namespace cudalab
