#include "lab_call.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <stdexcept>
#include <functional>
#include <random>

#include "printable.h"
#include "refused_syscall.h"
#include "runner_session.h"
#include "checker/profile/profile_notes.h"
#include "runner_words.h"
#include "device_inputs.h"
#include "checker/judging/diagnose.h"
#include "checker/timing/gpu_gate.h"
#include "wire/fill.h"

namespace cudalab {
namespace {

uint64_t next_guard_salt() {
  static std::atomic<uint64_t> counter{std::random_device{}() | (uint64_t(std::random_device{}()) << 32)};
  return mix64(counter.fetch_add(0x9E3779B97F4A7C15ull));
}

// The call's shared memory: a memfd the runner maps too.
struct SharedMemory {
  int fd = -1;
  uint8_t* p = nullptr;
  size_t bytes = 0;
  explicit SharedMemory(size_t n) : bytes(n) {
    fd = memfd_create("cudalab-call", MFD_CLOEXEC | MFD_ALLOW_SEALING);
    // Sealed against shrinking: a runner that truncated it would make the checker's reads fault.
    if (fd < 0 || ftruncate(fd, off_t(n)) != 0 || fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_SEAL) != 0)
      throw LabCallFailure(LabCallFailure::Kind::Refused, "the checker could not make shared memory for the call");
    if (n) {
      void* m = mmap(nullptr, n, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
      if (m == MAP_FAILED)
        throw LabCallFailure(LabCallFailure::Kind::Refused, "the checker could not map shared memory");
      p = static_cast<uint8_t*>(m);
    }
  }
  ~SharedMemory() {
    if (p) munmap(p, bytes);
    if (fd >= 0) close(fd);
  }
};

template <class T>
std::vector<T> as(const std::vector<uint8_t>& bytes) {
  std::vector<T> v(bytes.size() / sizeof(T));
  if (!v.empty()) std::memcpy(v.data(), bytes.data(), v.size() * sizeof(T));
  return v;
}

}  // namespace

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

// A copy or fill the runner refused (runner/copy_check.h), in the checker's words.
static std::string refused_copy_note(const wire::RefusedCopy& r) {
  const std::string call = printable(r.call, 40);
  const std::string way = r.direction == "device_to_host"   ? "from the device to the host"
                          : r.direction == "host_to_device" ? "from the host to the device"
                          : r.direction == "host"           ? "into host memory"
                                                            : "between host buffers";
  return "your " + call + " " + way +
         " was refused and did not happen (it returned cudaErrorNotPermitted): in a lab "
         "the harness moves every input and output, and the answer must come from your kernels. Copies and fills "
         "of your own device buffers (cudaMemcpyDeviceToDevice, cudaMemset) are fine";
}

// What a failed exchange with the runner means for the check: the runner is replaced.
[[noreturn]] static void runner_failed(const std::string& function, const wire::ProtocolError& e) {
  const std::string how = runner_discard();
  // Death by SIGSYS: the system-call filter's, which only a refused call causes. The number
  // the runner sent before it died names the call (if it came).
  if (how.rfind("was killed by signal " + std::to_string(SIGSYS) + " ", 0) == 0) {
    const auto* refused = dynamic_cast<const SyscallRefusedFrame*>(&e);
    throw LabCallFailure(
        LabCallFailure::Kind::Forbidden,
        // The number only: a file name would be the runner's own text in the checker's sentence,
        // shown even for a hidden check (and files are answered EACCES, never this way, now).
        refused_syscall_message(function, refused ? std::optional<uint32_t>(refused->number) : std::nullopt));
  }
  // A time limit outside the checker's own ended it: a wrapper's wall clock (the grader's jail,
  // timeout(1): status 124) or the CPU time limit (SIGXCPU, which a GPU wait that spins also
  // reaches). That is a time limit, as the checker's own is, not a crash (issue 18).
  const bool wall = how == "exited with status 124", cpu = how.rfind("was killed by signal 24 ", 0) == 0;
  if (wall || cpu)
    throw LabCallFailure(LabCallFailure::Kind::TimedOut,
                         function + " did not finish within " +
                             (wall ? "the time allowed for the run" : "the CPU time allowed for the run") +
                             ": is a loop not ending, or are threads waiting at a barrier that others never reach?");
  if (!how.empty())
    throw LabCallFailure(LabCallFailure::Kind::Crashed,
                         "your code crashed: the process running " + function + " " + how);
  throw LabCallFailure(
      LabCallFailure::Kind::Garbage,
      "the process running " + function + " broke off the conversation with the checker (" + e.what() + ")");
}

[[noreturn]] static void runner_timed_out(const std::string& function, int timeout_ms) {
  runner_discard();
  throw LabCallFailure(LabCallFailure::Kind::TimedOut,
                       function + " did not finish within " + std::to_string(timeout_ms / 1000) +
                           " s: is a loop not ending, or are threads waiting at a barrier that others never reach?");
}

// The runner's next frame, within the per-request limit. A SyscallRefused frame is the runner's
// last word before it dies of SIGSYS (runner/syscall_filter.h): thrown, for runner_failed.
static void receive_from_runner(RunnerProcess& rp, wire::Frame& f, const std::string& function) {
  if (!wire::receive_frame(rp.socket(), f, rp.timeout_ms())) runner_timed_out(function, rp.timeout_ms());
  if (f.type != wire::MessageType::SyscallRefused) return;
  if (f.fd >= 0) close(f.fd);
  const uint32_t nr = f.payload.size() >= 4 ? wire::Reader(f.payload.substr(0, 4)).u32() : 0;
  throw SyscallRefusedFrame(nr, f.payload.size() > 4 ? printable(f.payload.substr(4), 200) : "");
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
                               RunnerProcess& rp, wire::CallRequest& sent, bool values_only = false) {
  wire::CallRequest& q = call.request();
  q.schedule = runner_config().schedule;
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
    if (fd < 0) return send_request(call, data, type, rp, sent, true);
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

constexpr int32_t kLaunchTimeout = 702;  // cudaErrorLaunchTimeout

static std::vector<wire::Launch> g_last_launches;
static uint64_t g_last_total = 0;
static std::vector<std::string> g_last_words;

LabCallResult run_explained(LabCall& call,
                            const std::function<std::string(const std::vector<wire::Launch>&)>& explain) {
  try {
    return call.run();
  } catch (const LabCallFailure& f) {
    const std::string words = explain(f.launches);
    if (words.empty()) throw;
    std::string message = f.what();
    if (const size_t at = message.find(": you asked for a grid of"); at != std::string::npos) message.resize(at);
    LabCallFailure explained(f.kind, message + ": " + words, f.notes, f.runner_words);
    explained.launches = f.launches;
    throw explained;
  }
}

std::vector<wire::Launch> take_last_launches(uint64_t& total) {
  total = g_last_total;
  g_last_total = 0;
  std::vector<wire::Launch> out;
  out.swap(g_last_launches);
  return out;
}

std::vector<std::string> take_last_runner_words() {
  std::vector<std::string> out;
  out.swap(g_last_words);
  return out;
}

// The values at `drawn` of buffer b: from its slot, where the runner gathered them in the order
// drawn (a sampled output), or picked from the whole output.
static std::vector<OutputSample> samples_in_slot(const wire::BufferSpec& b, const uint8_t* slot,
                                                 const std::vector<uint64_t>& drawn) {
  std::vector<OutputSample> out(drawn.size());
  for (size_t s = 0; s < drawn.size(); ++s) {
    out[s].index = drawn[s];
    std::memcpy(&out[s].value, slot + (b.samples ? s : drawn[s]) * sizeof(float), sizeof(float));
  }
  return out;
}

// Reads the outputs and guards back and judges the reply's outcome. `drawn`: per buffer, the
// elements drawn from a sampled output of a timed call (empty for every other buffer).
static LabCallResult read_result(const std::string& function, const wire::CallRequest& q, const wire::CallReply& reply,
                                 const SharedMemory& shm, bool records_launches,
                                 const std::vector<std::vector<uint64_t>>& drawn = {}) {
  g_last_launches = reply.launches;
  g_last_total = reply.launches_total;
  // The runner's words stay apart; the report's are the checker's (runner_words.h).
  const std::vector<std::string> words = runner_words(reply);
  g_last_words.insert(g_last_words.end(), words.begin(), words.end());
  LabCallResult res;
  res.launches = reply.launches;
  res.launches_total = reply.launches_total;
  std::vector<std::string> buffers;
  for (const auto& b : q.buffers) buffers.push_back(b.name);
  res.notes = notes_in_checker_words(reply.notes, reply.launches, lab_source(), buffers);
  keep_profile_notes(reply.notes);  // PROFILE=1's counts: numbers for advice, never these notes' words
  if (!reply.refused_copy.call.empty()) res.notes.insert(res.notes.begin(), refused_copy_note(reply.refused_copy));
  if (reply.outcome != wire::Outcome::Ok) {
    const std::string message = failure_message(reply, function, lab_source());
    LabCallFailure::Kind kind = LabCallFailure::Kind::Exception;
    if (reply.outcome == wire::Outcome::CudaError) {
      if (reply.context_lost) runner_discard();
      kind = reply.context_lost ? LabCallFailure::Kind::ContextLost : LabCallFailure::Kind::CudaError;
      // A kernel the GPU stopped at its time limit: a hang, as the checker's own limit finds one
      // (the fresh runner the next check gets is all it needs), not a broken context that ends the run.
      if (reply.failure.cuda_code == kLaunchTimeout) kind = LabCallFailure::Kind::TimedOut;
      if (reply.failure.cause == wire::Cause::RunnerWork && reply.failure.cuda_code == 2)
        kind = LabCallFailure::Kind::OutOfMemory;
    } else if (reply.outcome == wire::Outcome::BadRequest) {
      kind = LabCallFailure::Kind::Refused;
    }
    LabCallFailure failure(kind, message, res.notes, words);
    failure.launches = reply.launches;
    throw failure;
  }
  // A result computed on the host needs the input there: copied back, or made host-visible.
  uint64_t input_bytes = 0;
  for (const auto& b : q.buffers)
    if (b.fill.kind != wire::FillKind::Poison) input_bytes += b.count * wire::elem_size(b.type);
  // The contracts give the lab's host function no reason to read GPU data back; a few bytes
  // (a count, a flag) are let through.
  if (reply.bytes_to_host > std::max<uint64_t>(64, input_bytes / 8))
    throw LabCallFailure(LabCallFailure::Kind::NoKernel,
                         "the work was done on the host: " + function + " brought " +
                             with_commas(reply.bytes_to_host >> 10) +
                             " KiB of GPU data to the host (a copy to host memory, or pinned, mapped or managed "
                             "memory). Leave the data on the GPU and let your kernels do the work",
                         res.notes);
  // (A copy between device buffers is device work too: a one-element sum is its input, copied.)
  if (records_launches && reply.launches_total == 0 && reply.device_copy_bytes == 0)
    throw LabCallFailure(LabCallFailure::Kind::NoKernel,
                         "no kernel ran: the result was computed on the host. " + function +
                             " must launch your kernel(s) and leave the result in GPU memory",
                         res.notes);
  for (size_t buffer = 0; buffer < q.buffers.size(); ++buffer) {
    const auto& b = q.buffers[buffer];
    const uint8_t* slot = shm.p + b.slot_offset;
    const size_t bytes = b.count * wire::elem_size(b.type);
    res.data.emplace_back(b.return_data && !b.samples ? std::vector<uint8_t>(slot, slot + bytes)
                                                      : std::vector<uint8_t>{});
    res.samples.push_back(buffer < drawn.size() ? samples_in_slot(b, slot, drawn[buffer])
                                                : std::vector<OutputSample>{});
    const uint8_t* g = slot + wire::slot_data_bytes(b);
    GuardState st;
    for (size_t i = 0; i < wire::kGuardElements; ++i) {
      uint32_t word;
      std::memcpy(&word, g + 4 * i, 4);
      if (word != wire::guard_word(b.guard_salt, i)) {
        if (!st.overwritten) st.first = b.count + i * 4 / wire::elem_size(b.type);
        ++st.overwritten;
      }
    }
    res.guards.push_back(st);
  }
  return res;
}

static wire::CallReply receive_reply(RunnerProcess& rp, const std::string& function, wire::MessageType expected) {
  wire::Frame f;
  try {
    receive_from_runner(rp, f, function);
    if (f.fd >= 0) close(f.fd);
    if (f.type != expected) throw wire::ProtocolError("an unexpected message");
    wire::Reader r(f.payload);
    return wire::decode_reply(r);
  } catch (const wire::ProtocolError& e) {
    runner_failed(function, e);
  }
}

// Whether "no kernel ran" can be judged. The CPU backend's emulator sees every launch: what the
// runner says is not needed (a lab file could make its self-test fail). On a GPU the runner's
// self-test at start says whether its stand-ins for the runtime's launch calls work.
static bool launches_recorded(const RunnerProcess& rp) {
#ifdef CUDALAB_BACKEND_CPU
  (void)rp;
  return true;
#else
  // cuBLAS launches through the driver, where the record does not look: the harness's own
  // baseline runner is not judged on it (it is trusted code, checker-built).
  return rp.hello().records_launches && !runner_config().harness_code;
#endif
}

static RunnerProcess& live_runner() {
  try {
    return runner();
  } catch (const std::runtime_error& e) {
    throw LabCallFailure(LabCallFailure::Kind::Crashed, e.what());
  }
}

LabCallResult LabCall::run() {
  request_.lab = uint32_t(signature_.lab);
  RunnerProcess& rp = live_runner();
  CallMemory memory;
  wire::CallRequest sent;
  wire::CallReply reply;
  // Twice at most: a runner that could not map the lent inputs ran none of the lab's code, and
  // gets the same inputs again as values (the driver's failure costs the student nothing).
  for (bool values_only : {false, true}) {
    try {
      memory = send_request(*this, data_, wire::MessageType::Call, rp, sent, values_only);
    } catch (const wire::ProtocolError& e) {
      runner_failed(signature_.function, e);
    }
    reply = receive_reply(rp, signature_.function, wire::MessageType::CallReply);
    if (!memory.lent || reply.failure.cause != wire::Cause::InputsNotMapped) break;
  }
  return read_result(signature_.function, sent, reply, *memory.shm, launches_recorded(rp));
}

// ---- Timed batches (timed_call.h) ----------------------------------------------------------
namespace {

// Whether a timed call brings back only the drawn elements of buffer b (the rest of a large
// output would cost seconds to copy for a check that reads a few thousand of them).
bool gathered(const LabCall& c, size_t b) {
  const wire::BufferSpec& spec = c.request().buffers[b];
  const uint32_t samples = c.samples_of(b);
  return samples > 0 && samples < spec.count && spec.count * wire::elem_size(spec.type) > kWholeOutputBytes;
}

// Every call's buffers get slots of their own in one shared memory, a gathered output's sized for
// its drawn elements only. Returns the requests as sent, and sets the memory's size in each.
std::vector<wire::CallRequest> lay_out_batch(std::vector<LabCall>& calls) {
  uint64_t offset = 0;
  std::vector<wire::CallRequest> requests;
  for (auto& c : calls) {
    wire::CallRequest& q = c.request();
    q.lab = uint32_t(c.lab());
    q.schedule = runner_config().schedule;
    for (size_t b = 0; b < q.buffers.size(); ++b) {
      q.buffers[b].samples = gathered(c, b) ? c.samples_of(b) : 0;
      q.buffers[b].slot_offset = offset;
      offset += (wire::slot_bytes(q.buffers[b]) + 63) & ~uint64_t(63);
    }
    requests.push_back(q);
  }
  for (auto& q : requests) q.shm_bytes = offset;
  for (auto& c : calls) c.request().shm_bytes = offset;
  return requests;
}

// Which elements are checked: drawn only after the batch ran, from a generator seeded from the
// system's entropy, so that neither the lab's code nor anyone who knows the run's seed can tell.
std::mt19937_64& sample_draw() {
  static std::mt19937_64 draw(std::random_device{}() ^ (uint64_t(std::random_device{}()) << 32));
  return draw;
}

// Per buffer of call c: the elements drawn from a sampled output, the last one first (where a
// grid that rounds down leaves its mark); empty for every other buffer.
std::vector<std::vector<uint64_t>> draw_samples(const LabCall& c) {
  std::vector<std::vector<uint64_t>> drawn(c.request().buffers.size());
  for (size_t b = 0; b < drawn.size(); ++b) {
    const uint64_t count = c.request().buffers[b].count;
    if (!c.samples_of(b) || count == 0) continue;
    drawn[b].push_back(count - 1);
    if (c.samples_of(b) >= count) {  // no more elements than samples: every one of them
      for (uint64_t i = 0; i + 1 < count; ++i) drawn[b].push_back(i);
      continue;
    }
    while (drawn[b].size() < c.samples_of(b)) drawn[b].push_back(sample_draw()() % count);
  }
  return drawn;
}

// The hand-back message: the calls wanted and, for each, the indices of its gathered outputs.
wire::HandBack hand_back_of(const std::vector<bool>& wanted,
                            const std::vector<std::vector<std::vector<uint64_t>>>& drawn,
                            const std::vector<wire::CallRequest>& requests) {
  wire::HandBack h;
  h.calls.assign(wanted.begin(), wanted.end());
  h.indices.resize(wanted.size());
  uint64_t total = 0;
  for (size_t c = 0; c < wanted.size(); ++c)
    for (size_t b = 0; wanted[c] && b < requests[c].buffers.size(); ++b)
      if (requests[c].buffers[b].samples) {
        h.indices[c].push_back(drawn[c][b]);
        total += drawn[c][b].size();
      }
  if (total > wire::kMaxBatchSamples)
    throw std::logic_error("a timed batch draws more elements than one message holds");
  return h;
}

}  // namespace

TimedBatch run_timed_batch(std::vector<LabCall>& calls, const std::function<std::vector<bool>(size_t)>& check,
                           bool measured) {
  if (calls.empty()) throw std::logic_error("a timed batch needs a call");
  const std::string function = calls.front().function();
  RunnerProcess& rp = live_runner();
  TimedBatch out;
  const std::vector<wire::CallRequest> requests = lay_out_batch(calls);
  SharedMemory shm{size_t(requests.front().shm_bytes)};
  for (auto& c : calls)
    for (size_t i = 0; i < c.request().buffers.size(); ++i)
      if (!c.data_for_timing()[i].empty())
        std::memcpy(shm.p + c.request().buffers[i].slot_offset, c.data_for_timing()[i].data(),
                    c.data_for_timing()[i].size());
  try {
    wire::Writer w;
    wire::encode_batch(w, requests);
    const auto sent = std::chrono::steady_clock::now();
    wire::send_frame(rp.socket(), wire::MessageType::TimedRep, w.bytes(), shm.fd);
    wire::Frame f;
    receive_from_runner(rp, f, function);
    if (f.fd >= 0) close(f.fd);
    if (f.type == wire::MessageType::RepDone) {  // preparing failed
      wire::Reader r(f.payload);
      read_result(function, requests.front(), wire::decode_reply(r), shm, false);
      throw LabCallFailure(LabCallFailure::Kind::Refused, "preparing a timed batch failed");
    }
    if (f.type != wire::MessageType::RepReady) throw wire::ProtocolError("an unexpected message");
    // The checker's own clock, from "go" to "done": all R calls and nothing of the runner's
    // but recording two events and the reply (timing_bound.h).
    const auto ready = std::chrono::steady_clock::now();
    out.prepare_ms = std::chrono::duration<double, std::milli>(ready - sent).count();
    std::optional<MeasuredSpan> span;  // no other run starting up meanwhile (gpu_gate.h)
    if (measured) span.emplace();
    const auto start = std::chrono::steady_clock::now();
    out.startup_wait_ms = std::chrono::duration<double, std::milli>(start - ready).count();
    wire::send_frame(rp.socket(), wire::MessageType::Go, "");
    wire::Frame done;
    receive_from_runner(rp, done, function);
    out.wall_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    span.reset();
    // "stopped" first when the calls ran to their stop event; the reply follows. A batch that
    // failed on the way sends its reply alone, and the clock stops at that.
    if (done.type == wire::MessageType::RepStopped) {
      if (done.fd >= 0) close(done.fd);
      receive_from_runner(rp, done, function);
    }
    if (done.fd >= 0) close(done.fd);
    if (done.type != wire::MessageType::RepDone) throw wire::ProtocolError("an unexpected message");
    wire::Reader r(done.payload);
    const wire::CallReply timed = wire::decode_reply(r);
    out.ms = timed.ms;
    out.threads_left = timed.threads_left;
    if (timed.outcome != wire::Outcome::Ok) read_result(function, requests.front(), timed, shm, false);  // throws
    // Decided only now, after the batch ran: which calls' outputs come back to be checked, and
    // which elements of their sampled outputs.
    std::vector<bool> wanted = check(calls.size());
    wanted.resize(calls.size(), false);
    std::vector<std::vector<std::vector<uint64_t>>> drawn(calls.size());
    for (size_t i = 0; i < calls.size(); ++i)
      if (wanted[i]) drawn[i] = draw_samples(calls[i]);
    wire::Writer hw;
    wire::encode(hw, hand_back_of(wanted, drawn, requests));
    wire::send_frame(rp.socket(), wire::MessageType::Go, hw.bytes());
    const wire::CallReply copied = receive_reply(rp, function, wire::MessageType::CallReply);
    out.hand_back_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count() - out.wall_ms;
    if (copied.outcome != wire::Outcome::Ok) read_result(function, requests.front(), copied, shm, false);
    out.results.resize(calls.size());
    const bool records = launches_recorded(rp);
    for (size_t i = 0; i < calls.size(); ++i)
      if (wanted[i]) out.results[i] = read_result(function, requests[i], timed, shm, records, drawn[i]);
  } catch (const wire::ProtocolError& e) {
    runner_failed(function, e);
  }
  return out;
}

// ---- Guard verdicts -------------------------------------------------------------------------
void add_guards_and_notes(CheckResult& r, const LabCall& call, const LabCallResult& res,
                          std::initializer_list<Guarded> order) {
  for (const Guarded& g : order) {
    const auto& b = call.request().buffers.at(g.buffer);
    const GuardState& state = res.guards.at(g.buffer);
    add_canary_verdict(r, g.described_as.empty() ? b.name : g.described_as, size_t(b.count), state.overwritten,
                       state.first);
  }
  for (const auto& note : res.notes) r.notes.push_back(note);
}

}  // namespace cudalab
