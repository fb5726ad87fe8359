#include "lab_call.h"

#include <unistd.h>

#include <atomic>
#include <cstring>
#include <functional>
#include <random>
#include <stdexcept>

#include "device_inputs.h"
#include "runner_exchange.h"
#include "wire/fill.h"

namespace cudalab {
namespace {

uint64_t next_guard_salt() {
  static std::atomic<uint64_t> counter{std::random_device{}() | (uint64_t(std::random_device{}()) << 32)};
  return mix64(counter.fetch_add(0x9E3779B97F4A7C15ull));
}

template <class T>
std::vector<T> as(const std::vector<uint8_t>& bytes) {
  std::vector<T> v(bytes.size() / sizeof(T));
  if (!v.empty()) std::memcpy(v.data(), bytes.data(), v.size() * sizeof(T));
  return v;
}

}  // namespace

void CallRecord::add(const CallRecord& later) {
  launches = later.launches;
  launches_total = later.launches_total;
  runner_words.insert(runner_words.end(), later.runner_words.begin(), later.runner_words.end());
  runner_notes.insert(runner_notes.end(), later.runner_notes.begin(), later.runner_notes.end());
}

std::vector<float> LabCallResult::floats(size_t b) const { return as<float>(data.at(b)); }
std::vector<uint32_t> LabCallResult::u32s(size_t b) const { return as<uint32_t>(data.at(b)); }
std::vector<int32_t> LabCallResult::i32s(size_t b) const { return as<int32_t>(data.at(b)); }

Cause cause_of(LabCallFailure::Kind kind) {
  using Kind = LabCallFailure::Kind;
  switch (kind) {
    case Kind::CudaError: return Cause::CudaError;
    case Kind::ContextLost: return Cause::ContextLost;
    case Kind::Exception: return Cause::Exception;
    case Kind::Crashed: return Cause::Crash;
    case Kind::TimedOut: return Cause::TimeLimit;
    case Kind::Garbage: return Cause::RunnerLost;
    case Kind::NoKernel: return Cause::NoKernel;
    case Kind::Refused: return Cause::RequestRefused;
    case Kind::OutOfMemory: return Cause::OutOfMemory;
    case Kind::Forbidden: return Cause::ForbiddenCall;
  }
  return Cause::CheckerError;
}

size_t LabCall::add(wire::BufferSpec spec, const void* data) {
  spec.guard_salt = next_guard_salt();
  request_.buffers.push_back(spec);
  samples_.push_back(0);
  data_.emplace_back();
  if (data) {
    const uint8_t* p = static_cast<const uint8_t*>(data);
    data_.back().assign(p, p + spec.count * wire::elem_size(spec.type));
  }
  return request_.buffers.size() - 1;
}

wire::BufferSpec LabCall::next_buffer(size_t param, uint64_t count) const {
  const size_t place = request_.buffers.size();
  if (param != place || place >= signature_.buffers.size())
    throw std::logic_error(std::string(signature_.function) + ": the checker added buffer " + std::to_string(param) +
                           " at place " + std::to_string(place) + ", which its call (labs/lab" +
                           std::to_string(signature_.lab) + "/call.h) does not have");
  wire::BufferSpec b;
  b.name = signature_.buffers[place].name;
  b.type = signature_.buffers[place].type;
  b.count = count;
  return b;
}
size_t LabCall::random_input(size_t param, size_t count, const wire::Fill& fill) {
  wire::BufferSpec b = next_buffer(param, count);
  b.fill = fill;
  b.fill.kind = wire::FillKind::Random;
  b.return_data = false;
  return add(b, nullptr);
}
size_t LabCall::data_input(size_t param, wire::ElemType type, const void* bytes, size_t count) {
  wire::BufferSpec b = next_buffer(param, count);
  if (b.type != type)
    throw std::logic_error(std::string(signature_.function) + ": the checker wrote " + wire::elem_name(type) +
                           " values into " + b.name + ", which holds " + wire::elem_name(b.type));
  b.fill.kind = wire::FillKind::Data;
  b.return_data = false;
  return add(b, bytes);
}
size_t LabCall::output_from(size_t param, const void* bytes, size_t count) {
  wire::BufferSpec b = next_buffer(param, count);
  b.fill.kind = wire::FillKind::Data;
  b.return_data = true;
  return add(b, bytes);
}
size_t LabCall::output(size_t param, size_t count, bool return_data) {
  wire::BufferSpec b = next_buffer(param, count);
  b.fill.kind = wire::FillKind::Poison;
  b.return_data = return_data;
  return add(b, nullptr);
}
void LabCall::scalar(size_t param, int64_t v) {
  if (param != request_.scalars.size() || param >= signature_.scalars.size())
    throw std::logic_error(std::string(signature_.function) + ": the checker gave scalar " + std::to_string(param) +
                           " at place " + std::to_string(request_.scalars.size()) + ", which its call does not have");
  request_.scalars.push_back(v);
}

size_t LabCall::sampled_output(size_t param, size_t count, uint32_t samples) {
  if (samples == 0 || samples > wire::kMaxSamples)
    throw std::logic_error("a sampled output draws 1 to 65,536 elements");
  if (param < signature_.buffers.size() && signature_.buffers[param].type != wire::ElemType::F32)
    throw std::logic_error(std::string(signature_.function) + ": a sampled output holds floats");
  const size_t b = output(param, count);
  samples_[b] = samples;
  return b;
}

// A check's random input, made here: the runner gets its values, never its seed. The runner is
// the lab file's process and the fill is public code (wire/fill.h), so a seed there would let
// the lab's host code make the inputs again, compute the answer on the host and write it with
// cudaMemset. The runner moves the values to the device and empties their slot before the
// lab's code runs (runner_main.cpp). Timed batches, which run only after every check passed,
// still send seeds: the GPU makes their gigabytes in place, and host work shows in their time.
static void make_input_in_slot(const wire::BufferSpec& b, uint8_t* slot) {
  switch (b.type) {
    case wire::ElemType::F32: return wire::fill_host(reinterpret_cast<float*>(slot), b.fill, b.count);
    case wire::ElemType::U32: return wire::fill_host(reinterpret_cast<uint32_t*>(slot), b.fill, b.count);
    case wire::ElemType::I32: return wire::fill_host(reinterpret_cast<int32_t*>(slot), b.fill, b.count);
    case wire::ElemType::U8: return wire::fill_host(slot, b.fill, b.count);
  }
}

// What one call's request travels with, held until its reply: the shared memory, and the
// checker's device memory lent for its large inputs (device_inputs.h) when there is any.
struct CallMemory {
  std::unique_ptr<SharedMemory> shm;
  std::unique_ptr<wire::SharedDeviceMemory> lent;
};

// The large random inputs made on this checker's GPU, where the runner can map them; `sent`
// marks them. nullptr where there are none, or where `values_only` (a retry, see LabCall::run).
static std::unique_ptr<wire::SharedDeviceMemory> lend_device_inputs(const LabCall& call, const RunnerProcess& rp,
                                                                    bool values_only, wire::CallRequest& sent) {
#ifdef CUDALAB_GPU_CHECKER
  if (!values_only && rp.hello().maps_device_inputs) return make_inputs_on_device(call.request(), sent);
#else
  (void)call, (void)rp, (void)values_only, (void)sent;
#endif
  return nullptr;
}

// Lays the slots out, makes the random inputs (on the GPU, lent, or in their slots) and copies
// the Data inputs into their slots, sends the request with the shared memory. What travels is
// `sent`: the request with values or lent memory for seeds, as the runner lays its slots out
// (the reply is read by it).
static CallMemory send_request(LabCall& call, const std::vector<std::vector<uint8_t>>& data, wire::MessageType type,
                               const RunnerSession& session, RunnerProcess& rp, wire::CallRequest& sent,
                               bool values_only = false) {
  wire::CallRequest& q = call.request();
  q.schedule = session.config().schedule;
  sent = q;
  CallMemory memory;
  memory.lent = lend_device_inputs(call, rp, values_only, sent);
  for (auto& b : sent.buffers)
    if (b.fill.kind == wire::FillKind::Random) b.fill = wire::Fill{wire::FillKind::Data};
  uint64_t offset = 0;
  for (auto& b : sent.buffers) {
    b.slot_offset = offset;
    offset += (wire::slot_bytes(b) + 63) & ~uint64_t(63);
  }
  sent.shm_bytes = offset;
  memory.shm = std::make_unique<SharedMemory>(size_t(offset));
  for (size_t i = 0; i < q.buffers.size(); ++i) {
    uint8_t* slot = memory.shm->p + sent.buffers[i].slot_offset;
    if (!data[i].empty()) std::memcpy(slot, data[i].data(), data[i].size());
    if (q.buffers[i].fill.kind == wire::FillKind::Random && sent.buffers[i].fill.kind == wire::FillKind::Data)
      make_input_in_slot(q.buffers[i], slot);
  }
  if (memory.lent) {
    const int fd = memory.lent->export_fd();
    if (fd < 0) return send_request(call, data, type, session, rp, sent, true);
    wire::Writer lw;
    lw.u64(memory.lent->bytes());
    try {
      wire::send_frame(rp.socket(), wire::MessageType::DeviceInputs, lw.bytes(), fd);
    } catch (...) {
      close(fd);
      throw;
    }
    close(fd);
  }
  wire::Writer w;
  wire::encode(w, sent);
  wire::send_frame(rp.socket(), type, w.bytes(), memory.shm->fd);
  return memory;
}

LabCallResult run_explained(CallContext& context, LabCall& call,
                            const std::function<std::string(const std::vector<wire::Launch>&)>& explain) {
  try {
    return call.run(context);
  } catch (const LabCallFailure& f) {
    const std::string words = explain(f.launches);
    if (words.empty()) throw;
    std::string message = f.what();
    if (const size_t at = message.find(": you asked for a grid of"); at != std::string::npos) message.resize(at);
    throw LabCallFailure(f.kind, message + ": " + words, f.notes, f);
  }
}

LabCallResult LabCall::run(CallContext& context) {
  RunnerSession& session = context.runner;
  request_.lab = uint32_t(signature_.lab);
  RunnerProcess& rp = live_runner(session);
  CallMemory memory;
  wire::CallRequest sent;
  wire::CallReply reply;
  // Twice at most: a runner that could not map the lent inputs ran none of the lab's code, and
  // gets the same inputs again as values (the driver's failure costs the student nothing).
  for (bool values_only : {false, true}) {
    try {
      memory = send_request(*this, data_, wire::MessageType::Call, session, rp, sent, values_only);
    } catch (const wire::ProtocolError& e) {
      runner_failed(session, signature_.function, e);
    }
    reply = receive_reply(session, rp, signature_.function, wire::MessageType::CallReply);
    if (!memory.lent || reply.failure.cause != wire::Cause::InputsNotMapped) break;
  }
  // The record goes to the check whether the reply was judged a success or a failure.
  try {
    LabCallResult res =
        read_result(session, signature_.function, sent, reply, *memory.shm, launches_recorded(session, rp));
    context.record.add(res);
    return res;
  } catch (const LabCallFailure& f) {
    context.record.add(f);
    throw;
  }
}

}  // namespace cudalab
