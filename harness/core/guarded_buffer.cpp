#include "guarded_buffer.h"

#include <cuda_runtime.h>

#include <cstring>
#include <stdexcept>

#include "cuda_errors.h"
#include "diagnose.h"

// Under the CPU backend's CHECK=asan, device memory is host memory: the guards are also
// poisoned for AddressSanitizer, so a kernel touching them is reported at the student's own
// line, not only afterwards by the guard check. The harness unpoisons them to use them.
#if defined(CUDALAB_BACKEND_CPU) && defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#define CUDALAB_GUARDS_POISON(p, bytes) ASAN_POISON_MEMORY_REGION(p, bytes)
#define CUDALAB_GUARDS_UNPOISON(p, bytes) ASAN_UNPOISON_MEMORY_REGION(p, bytes)
#else
#define CUDALAB_GUARDS_POISON(p, bytes) ((void)0)
#define CUDALAB_GUARDS_UNPOISON(p, bytes) ((void)0)
#endif

namespace cudalab {

GuardedBuffer::GuardedBuffer(std::string name, size_t n) : name_(std::move(name)), n_(n) {
  size_t bytes = (n + kGuardElements) * sizeof(float);
  cudaError_t e = cudaMalloc(&data_, bytes);
  if (e != cudaSuccess) {
    cudaGetLastError();  // an out-of-memory error is not sticky: clear it
    throw CudaFailure(e, "could not allocate " + name_ + " (" + with_commas(n) + " floats, " +
                             with_commas(bytes >> 20) + " MiB) on the GPU: " + cudaGetErrorString(e) +
                             "; try a smaller --size");
  }
  set_guards();
}

GuardedBuffer::~GuardedBuffer() {
  CUDALAB_GUARDS_UNPOISON(data_ + n_, kGuardElements * sizeof(float));
  cudaFree(data_);
}

void GuardedBuffer::set_guards() {
  std::vector<unsigned> guards(kGuardElements, kGuardBits);
  CUDALAB_GUARDS_UNPOISON(data_ + n_, kGuardElements * sizeof(float));
  require(cudaMemcpy(data_ + n_, guards.data(), kGuardElements * sizeof(float), cudaMemcpyHostToDevice),
          "setting the guard elements of " + name_);
  CUDALAB_GUARDS_POISON(data_ + n_, kGuardElements * sizeof(float));
}

void GuardedBuffer::poison() {
  static_assert(kPoisonBits == 0xFFFFFFFFu, "cudaMemset writes bytes: poison must repeat one byte");
  require(cudaMemset(data_, 0xFF, n_ * sizeof(float)), "poisoning " + name_);
  set_guards();
}

void GuardedBuffer::upload(const std::vector<float>& host) {
  if (host.size() != n_) throw std::logic_error("upload size mismatch for " + name_);
  require(cudaMemcpy(data_, host.data(), n_ * sizeof(float), cudaMemcpyHostToDevice), "copying " + name_ + " to the GPU");
  set_guards();
}

void GuardedBuffer::copy_from(const GuardedBuffer& other) {
  if (other.n_ != n_) throw std::logic_error("copy size mismatch for " + name_);
  require(cudaMemcpy(data_, other.data_, n_ * sizeof(float), cudaMemcpyDeviceToDevice), "copying " + name_);
  set_guards();
}

std::vector<float> GuardedBuffer::download() const {
  std::vector<float> host(n_);
  require(cudaMemcpy(host.data(), data_, n_ * sizeof(float), cudaMemcpyDeviceToHost),
          "copying " + name_ + " back from the GPU");
  return host;
}

GuardedBuffer::GuardReport GuardedBuffer::check_guards() const {
  std::vector<unsigned> guards(kGuardElements);
  CUDALAB_GUARDS_UNPOISON(data_ + n_, kGuardElements * sizeof(float));
  require(cudaMemcpy(guards.data(), data_ + n_, kGuardElements * sizeof(float), cudaMemcpyDeviceToHost),
          "reading the guard elements of " + name_);
  CUDALAB_GUARDS_POISON(data_ + n_, kGuardElements * sizeof(float));
  GuardReport r;
  for (size_t i = 0; i < kGuardElements; ++i)
    if (guards[i] != kGuardBits) {
      if (!r.overwritten) r.first = n_ + i;
      ++r.overwritten;
    }
  return r;
}

}  // namespace cudalab
