#include "shared_device_memory.h"

#include <cuda.h>
#include <cuda_runtime.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>

namespace cudalab::wire {
namespace {

// The driver's calls this file makes, found once through the runtime.
struct DriverCalls {
  decltype(&::cuMemCreate) create = nullptr;
  decltype(&::cuMemRelease) release = nullptr;
  decltype(&::cuMemAddressReserve) reserve = nullptr;
  decltype(&::cuMemAddressFree) free_range = nullptr;
  decltype(&::cuMemMap) map = nullptr;
  decltype(&::cuMemUnmap) unmap = nullptr;
  decltype(&::cuMemSetAccess) set_access = nullptr;
  decltype(&::cuMemGetAllocationGranularity) granularity = nullptr;
  decltype(&::cuMemExportToShareableHandle) export_handle = nullptr;
  decltype(&::cuMemImportFromShareableHandle) import_handle = nullptr;
  decltype(&::cuMemGetAllocationPropertiesFromHandle) properties = nullptr;
  decltype(&::cuDeviceGetAttribute) attribute = nullptr;
  bool found = false;
};

template <class F>
bool find(const char* name, F& fn) {
  void* p = nullptr;
  cudaDriverEntryPointQueryResult status{};
  if (cudaGetDriverEntryPointByVersion(name, &p, 12000, cudaEnableDefault, &status) != cudaSuccess ||
      status != cudaDriverEntryPointSuccess || !p) {
    cudaGetLastError();
    return false;
  }
  fn = reinterpret_cast<F>(p);
  return true;
}

const DriverCalls& driver() {
  static const DriverCalls calls = [] {
    DriverCalls d;
    d.found = find("cuMemCreate", d.create) && find("cuMemRelease", d.release) &&
              find("cuMemAddressReserve", d.reserve) && find("cuMemAddressFree", d.free_range) &&
              find("cuMemMap", d.map) && find("cuMemUnmap", d.unmap) && find("cuMemSetAccess", d.set_access) &&
              find("cuMemGetAllocationGranularity", d.granularity) &&
              find("cuMemExportToShareableHandle", d.export_handle) &&
              find("cuMemImportFromShareableHandle", d.import_handle) &&
              find("cuMemGetAllocationPropertiesFromHandle", d.properties) && find("cuDeviceGetAttribute", d.attribute);
    return d;
  }();
  return calls;
}

CUmemAllocationProp allocation_properties(int device) {
  CUmemAllocationProp prop{};
  prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
  prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  prop.location.id = device;
  prop.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
  return prop;
}

std::string failed(const char* what, CUresult r) {
  return std::string(what) + " failed (CUresult " + std::to_string(int(r)) + ")";
}

}  // namespace

bool SharedDeviceMemory::supported() {
  const DriverCalls& d = driver();
  int device = 0, posix = 0;
  if (!d.found || cudaGetDevice(&device) != cudaSuccess) return false;
  return d.attribute(&posix, CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED, device) == CUDA_SUCCESS &&
         posix != 0;
}

std::unique_ptr<SharedDeviceMemory> SharedDeviceMemory::create(size_t bytes, std::string& why) {
  if (!supported()) {
    why = "this driver or device cannot share memory between processes";
    return nullptr;
  }
  const DriverCalls& d = driver();
  std::unique_ptr<SharedDeviceMemory> m(new SharedDeviceMemory);
  cudaGetDevice(&m->device_);
  const CUmemAllocationProp prop = allocation_properties(m->device_);
  size_t granularity = 0;
  if (CUresult r = d.granularity(&granularity, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM); r != CUDA_SUCCESS) {
    why = failed("cuMemGetAllocationGranularity", r);
    return nullptr;
  }
  m->bytes_ = (std::max<size_t>(bytes, 1) + granularity - 1) / granularity * granularity;
  CUmemGenericAllocationHandle h = 0;
  if (CUresult r = d.create(&h, m->bytes_, &prop, 0); r != CUDA_SUCCESS) {
    why = failed("cuMemCreate", r);
    return nullptr;
  }
  m->handle_ = h;
  if (!m->map(why)) return nullptr;
  return m;
}

std::unique_ptr<SharedDeviceMemory> SharedDeviceMemory::import(int fd, uint64_t bytes, std::string& why) {
  const DriverCalls& d = driver();
  std::unique_ptr<SharedDeviceMemory> m(new SharedDeviceMemory);
  cudaGetDevice(&m->device_);
  CUmemGenericAllocationHandle h = 0;
  const CUresult r =
      d.found ? d.import_handle(&h, reinterpret_cast<void*>(intptr_t(fd)), CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR)
              : CUDA_ERROR_NOT_SUPPORTED;
  close(fd);
  if (r != CUDA_SUCCESS) {
    why = failed("cuMemImportFromShareableHandle", r);
    return nullptr;
  }
  m->handle_ = h;
  // The size the sender gave must fit what the allocation's granularity allows: a smaller map
  // than claimed is refused by cuMemMap itself, a larger one is what the check asked for.
  CUmemAllocationProp prop{};
  size_t granularity = 0;
  if (d.properties(&prop, h) != CUDA_SUCCESS ||
      d.granularity(&granularity, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM) != CUDA_SUCCESS || bytes == 0 ||
      bytes % granularity != 0) {
    why = "the shared inputs' size (" + std::to_string(bytes) + " bytes) is not the allocation's";
    return nullptr;
  }
  m->bytes_ = size_t(bytes);
  if (!m->map(why)) return nullptr;
  return m;
}

bool SharedDeviceMemory::map(std::string& why) {
  const DriverCalls& d = driver();
  CUdeviceptr at = 0;
  if (CUresult r = d.reserve(&at, bytes_, 0, 0, 0); r != CUDA_SUCCESS) {
    why = failed("cuMemAddressReserve", r);
    return false;
  }
  if (CUresult r = d.map(at, bytes_, 0, handle_, 0); r != CUDA_SUCCESS) {
    d.free_range(at, bytes_);
    why = failed("cuMemMap", r);
    return false;
  }
  data_ = reinterpret_cast<uint8_t*>(at);
  CUmemAccessDesc access{};
  access.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  access.location.id = device_;
  access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
  if (CUresult r = d.set_access(at, bytes_, &access, 1); r != CUDA_SUCCESS) {
    why = failed("cuMemSetAccess", r);
    return false;  // the destructor unmaps
  }
  return true;
}

int SharedDeviceMemory::export_fd() const {
  int fd = -1;
  if (driver().export_handle(&fd, handle_, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0) != CUDA_SUCCESS) return -1;
  return fd;
}

SharedDeviceMemory::~SharedDeviceMemory() {
  const DriverCalls& d = driver();
  if (data_) {
    d.unmap(CUdeviceptr(data_), bytes_);
    d.free_range(CUdeviceptr(data_), bytes_);
  }
  if (handle_) d.release(handle_);
}

}  // namespace cudalab::wire
