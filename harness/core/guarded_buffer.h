// A device array with guard elements past its end. Before every run the array is poisoned
// (kPoisonBits, a NaN) and the guards set to kGuardBits (another NaN): elements still
// poisoned afterwards were never written; changed guards were written past the end; and a
// kernel that reads past the end of an input reads NaN, which spoils its result visibly.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

namespace cudalab {

constexpr unsigned kGuardBits = 0x7FC0DEADu;
constexpr size_t kGuardElements = 4096;

class GuardedBuffer {
 public:
  // Allocates n floats plus the guards. Throws CudaFailure naming `name` and the size.
  GuardedBuffer(std::string name, size_t n);
  ~GuardedBuffer();
  GuardedBuffer(const GuardedBuffer&) = delete;
  GuardedBuffer& operator=(const GuardedBuffer&) = delete;

  float* get() const { return data_; }
  size_t size() const { return n_; }
  const std::string& name() const { return name_; }

  void poison();                              // array = poison, guards = guard bits
  void upload(const std::vector<float>& host);// array = host (size must match), guards reset
  void copy_from(const GuardedBuffer& other); // device-to-device, same size
  std::vector<float> download() const;        // the n elements

  struct GuardReport {
    size_t overwritten = 0;
    size_t first = 0;  // index (counting from the array's start) of the first changed guard
  };
  GuardReport check_guards() const;

 private:
  void set_guards();
  std::string name_;
  size_t n_;
  float* data_ = nullptr;
};

}  // namespace cudalab
