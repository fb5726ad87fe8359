// The runner's CPU-backend pieces: fills (device memory is host memory, so the host fills it
// directly), a flush that has nothing to do, and the lab's host code run the way a GPU would
// see it: under the checker's schedule, with device memory out of its reach.
#include <cstring>
#include <string>

#include "copy_check.h"
#include "device_buffers.h"
#include "runner_parts.h"
#include "runner/emulator/control.h"
#include "wire/cuda_errors.h"
#include "wire/fill.h"

namespace cudalab::run {

void fill_random(void* p, const wire::BufferSpec& b) {
  switch (b.type) {
    case wire::ElemType::F32: return wire::fill_host(static_cast<float*>(p), b.fill, b.count);
    case wire::ElemType::U32: return wire::fill_host(static_cast<uint32_t*>(p), b.fill, b.count);
    case wire::ElemType::I32: return wire::fill_host(static_cast<int32_t*>(p), b.fill, b.count);
    case wire::ElemType::U8: return wire::fill_host(static_cast<uint8_t*>(p), b.fill, b.count);
  }
}

void flush_l2_cache() {}

bool is_device_memory(const void* p, size_t bytes) { return cudalab_cpu::control::is_device_memory(p, bytes); }

// Device memory is host memory (as in gather_elements).
void write_guards(void* at, uint64_t salt) {
  uint8_t* to = static_cast<uint8_t*>(at);
  for (size_t g = 0; g < wire::kGuardElements; ++g) {
    const uint32_t word = wire::guard_word(salt, g);
    std::memcpy(to + 4 * g, &word, 4);
  }
}

// Device memory is host memory, open to the runner's own code outside the lab's (runtime.cpp).
void gather_elements(const void* p, size_t elem_bytes, const std::vector<uint64_t>& indices, void* out) {
  const uint8_t* from = static_cast<const uint8_t*>(p);
  uint8_t* to = static_cast<uint8_t*>(out);
  for (size_t s = 0; s < indices.size(); ++s)
    std::memcpy(to + s * elem_bytes, from + indices[s] * elem_bytes, elem_bytes);
}

namespace {
std::string ordinal(size_t i) {
  const char* suffix = i % 10 == 1 && i % 100 != 11   ? "st"
                       : i % 10 == 2 && i % 100 != 12 ? "nd"
                       : i % 10 == 3 && i % 100 != 13 ? "rd"
                                                      : "th";
  return std::to_string(i) + suffix;
}
}  // namespace

void run_lab_host_code(const wire::CallRequest& q, const EntryArgs& args, const std::function<void()>& body) {
  using namespace cudalab_cpu;
  // The schedule the checker asked for (the race probe runs a check again in reverse order),
  // sealed before any code of the lab's runs: the first request's holds for the whole process.
  const std::string schedule = q.schedule.empty() ? "in-order" : q.schedule;
  if (!control::schedule_sealed()) {
    if (!control::set_schedule(schedule.c_str())) throw BadRequest("'" + schedule + "' is not a schedule");
    control::seal_schedule();
  } else if (!control::schedule_is(schedule.c_str())) {
    throw BadRequest("this runner runs threads in the schedule '" + std::string(control::schedule_name()) + "', not '" +
                     schedule + "' (was it set before the harness set it?)");
  }
  // How a fault names each buffer: the checker's name, and which argument it is.
  for (size_t i = 0; i < args.buffers.size() && i < q.buffers.size(); ++i) {
    std::string name = q.buffers[i].name;
    if (name.rfind("d_", 0) != 0)
      name += ", the " + ordinal(i + 1) + " pointer argument of " + entry_signature().function;
    control::name_device_allocation(args.buffers[i], name);
    control::mark_array_end(args.buffers[i], q.buffers[i].count * wire::elem_size(q.buffers[i].type));
  }
  const std::string fault = control::run_host_code([](void* f) { (*static_cast<const std::function<void()>*>(f))(); },
                                                   const_cast<std::function<void()>*>(&body));
  if (!fault.empty()) throw CudaFailure(cudaErrorIllegalAddress, fault);
}

}  // namespace cudalab::run
