// What lab 6's histogram is timed against, besides one CPU core.
#pragma once
#include <cstddef>
#include <cstdint>

#include "timer.h"

namespace cudalab {

// The harness's naive kernel: one global atomicAdd per byte (a grid-stride loop over a grid of
// every multiprocessor's worth of blocks), after clearing the 256 counters.
Timing time_naive_histogram(const uint8_t* d_in, size_t n);

// CUB's DeviceHistogram::HistogramEven over 256 bins of [0, 256), the vendor library's answer.
// Above 2^31 - 1 bytes CUB takes an int count: returns an empty Timing (median_ms 0).
Timing time_cub_histogram(const uint8_t* d_in, size_t n);

}  // namespace cudalab
