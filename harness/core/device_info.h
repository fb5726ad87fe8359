// The GPU (or the CPU backend's stand-in) that a run used, recorded with its results.
#pragma once
#include <cstddef>
#include <string>

namespace cudalab {

struct DeviceInfo {
  bool usable = false;
  std::string problem;  // why not usable, with what to do
  std::string name;
  int cc_major = 0, cc_minor = 0;
  int multiprocessors = 0;
  size_t l2_bytes = 0;
  size_t memory_bytes = 0;
  std::string driver_version, runtime_version;  // "13.0"
};

DeviceInfo query_device();
const char* backend_name();  // "cuda" or "cpu"

}  // namespace cudalab
