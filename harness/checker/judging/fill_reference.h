// References over a Random fill (protocol.h) computed on the checker's GPU: the sum of a range of
// a float fill, the 256-bin histogram of a byte fill, and lab 8's first k of a float fill. The values are made on the device with
// the host's exact bits (wire/fill_device.cuh) and added in double, so the result is the host
// reference's (sum_reference.h, histogram_reference.h) up to the order of double additions: far
// below any float tolerance. They turn the largest checks' host work (2^30 values made and added
// on the CPU: seconds) into milliseconds. The GPU build only: each returns false when there is no
// usable GPU or it fails, and the caller computes on the host as before. Called only where
// CUDALAB_GPU_CHECKER is defined (mk/cuda.mk's checker build; not the CPU backend's, nor the unit tests').
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "wire/protocol.h"

namespace cudalab {

struct TopKEntry;  // topk_reference.h

// From 2^24 values: below, the host takes milliseconds on a GPU machine's cores, less than the
// checker's own CUDA context costs to make; and a failing lab at a terminal leaves out every check
// from 2^24 on, so its quick answer never waits for that context.
constexpr size_t kDeviceReferenceFrom = size_t(1) << 24;

bool device_range_sum(size_t n, const wire::Fill& fill, size_t begin, size_t end, double& sum, double& abs_sum);
bool device_histogram_of_fill(size_t n, const wire::Fill& fill, std::array<uint64_t, 256>& counts);
// The first k of a float fill in lab 8's order (topk_reference.h): the k-th value's order key found
// level by level from histograms of the values' keys, then the elements at or above it gathered
// and sorted on the host. False also when more than a million values tie with the k-th (the host
// then does it).
bool device_top_k_of_fill(size_t n, const wire::Fill& fill, size_t k, std::vector<TopKEntry>& first_k);

}  // namespace cudalab
