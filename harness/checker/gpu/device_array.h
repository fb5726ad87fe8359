// A device array the checker owns, for its own baselines (naive kernels, CUB, cuBLAS): made
// from the same seeded fill the kernel runner uses, on the GPU, without a host copy.
#pragma once
#include <cuda_runtime.h>

#include <cstddef>
#include <string>

#include "wire/cuda_errors.h"
#include "wire/fill_gpu.h"

namespace cudalab {

class DeviceArray {
 public:
  DeviceArray(const std::string& name, size_t count) : name_(name), count_(count) {
    require(cudaMalloc(&data_, count * sizeof(float) + 16), "allocating " + name);
  }
  ~DeviceArray() { cudaFree(data_); }
  DeviceArray(const DeviceArray&) = delete;
  DeviceArray& operator=(const DeviceArray&) = delete;
  float* get() const { return data_; }
  size_t size() const { return count_; }
  void fill(const wire::Fill& f) {
    wire::BufferSpec b{name_, wire::ElemType::F32, count_, f, false};
    wire::fill_on_device(data_, b);
    require(cudaDeviceSynchronize(), "filling " + name_);
  }

 private:
  std::string name_;
  size_t count_;
  float* data_ = nullptr;
};

}  // namespace cudalab
