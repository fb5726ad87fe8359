#include "runner_exchange.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <optional>

#include "printable.h"
#include "refused_syscall.h"
#include "runner_words.h"
#include "checker/types/number_words.h"

namespace cudalab {

constexpr int32_t kLaunchTimeout = 702;  // cudaErrorLaunchTimeout

SharedMemory::SharedMemory(size_t n) : bytes(n) {
  fd = memfd_create("cudalab-call", MFD_CLOEXEC | MFD_ALLOW_SEALING);
  // Sealed against shrinking: a runner that truncated it would make the checker's reads fault.
  if (fd < 0 || ftruncate(fd, off_t(n)) != 0 || fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_SEAL) != 0)
    throw LabCallFailure(LabCallFailure::Kind::Refused, "the checker could not make shared memory for the call");
  if (n) {
    void* m = mmap(nullptr, n, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (m == MAP_FAILED) throw LabCallFailure(LabCallFailure::Kind::Refused, "the checker could not map shared memory");
    p = static_cast<uint8_t*>(m);
  }
}

SharedMemory::~SharedMemory() {
  if (p) munmap(p, bytes);
  if (fd >= 0) close(fd);
}

RunnerProcess& live_runner(RunnerSession& session) {
  try {
    return session.runner();
  } catch (const std::runtime_error& e) {
    throw LabCallFailure(LabCallFailure::Kind::Crashed, e.what());
  }
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

void runner_failed(RunnerSession& session, const std::string& function, const wire::ProtocolError& e) {
  const std::string how = session.discard();
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

[[noreturn]] static void runner_timed_out(RunnerSession& session, const std::string& function, int timeout_ms) {
  session.discard();
  throw LabCallFailure(LabCallFailure::Kind::TimedOut,
                       function + " did not finish within " + std::to_string(timeout_ms / 1000) +
                           " s: is a loop not ending, or are threads waiting at a barrier that others never reach?");
}

// A SyscallRefused frame is the runner's last word before it dies of SIGSYS
// (runner/syscall_filter.h).
void receive_from_runner(RunnerSession& session, RunnerProcess& rp, wire::Frame& f, const std::string& function) {
  if (!wire::receive_frame(rp.socket(), f, rp.timeout_ms())) runner_timed_out(session, function, rp.timeout_ms());
  if (f.type != wire::MessageType::SyscallRefused) return;
  if (f.fd >= 0) close(f.fd);
  const uint32_t nr = f.payload.size() >= 4 ? wire::Reader(f.payload.substr(0, 4)).u32() : 0;
  throw SyscallRefusedFrame(nr, f.payload.size() > 4 ? printable(f.payload.substr(4), 200) : "");
}

wire::CallReply receive_reply(RunnerSession& session, RunnerProcess& rp, const std::string& function,
                              wire::MessageType expected) {
  wire::Frame f;
  try {
    receive_from_runner(session, rp, f, function);
    if (f.fd >= 0) close(f.fd);
    if (f.type != expected) throw wire::ProtocolError("an unexpected message");
    wire::Reader r(f.payload);
    return wire::decode_reply(r);
  } catch (const wire::ProtocolError& e) {
    runner_failed(session, function, e);
  }
}

// Whether "no kernel ran" can be judged. The CPU backend's emulator sees every launch: what the
// runner says is not needed (a lab file could make its self-test fail). On a GPU the runner's
// self-test at start says whether its stand-ins for the runtime's launch calls work.
bool launches_recorded(const RunnerSession& session, const RunnerProcess& rp) {
#ifdef CUDALAB_BACKEND_CPU
  (void)session, (void)rp;
  return true;
#else
  // cuBLAS launches through the driver, where the record does not look: the harness's own
  // baseline runner is not judged on it (it is trusted code, checker-built).
  return rp.hello().records_launches && !session.config().harness_code;
#endif
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

LabCallResult read_result(RunnerSession& session, const std::string& function, const wire::CallRequest& q,
                          const wire::CallReply& reply, const SharedMemory& shm, bool records_launches,
                          const std::vector<std::vector<uint64_t>>& drawn) {
  LabCallResult res;
  res.launches = reply.launches;
  res.launches_total = reply.launches_total;
  // The runner's words stay apart; the report's are the checker's (runner_words.h).
  res.runner_words = runner_words(reply);
  res.runner_notes = reply.notes;  // PROFILE=1's counts: numbers for advice, never these notes' words
  std::vector<std::string> buffers;
  for (const auto& b : q.buffers) buffers.push_back(b.name);
  res.notes = notes_in_checker_words(reply.notes, reply.launches, session.source(), buffers);
  if (!reply.refused_copy.call.empty()) res.notes.insert(res.notes.begin(), refused_copy_note(reply.refused_copy));
  if (reply.outcome != wire::Outcome::Ok) {
    const std::string message = failure_message(reply, function, session.source());
    LabCallFailure::Kind kind = LabCallFailure::Kind::Exception;
    if (reply.outcome == wire::Outcome::CudaError) {
      if (reply.context_lost) session.discard();
      kind = reply.context_lost ? LabCallFailure::Kind::ContextLost : LabCallFailure::Kind::CudaError;
      // A kernel the GPU stopped at its time limit: a hang, as the checker's own limit finds one
      // (the fresh runner the next check gets is all it needs), not a broken context that ends the run.
      if (reply.failure.cuda_code == kLaunchTimeout) kind = LabCallFailure::Kind::TimedOut;
      if (reply.failure.cause == wire::Cause::RunnerWork && reply.failure.cuda_code == 2)
        kind = LabCallFailure::Kind::OutOfMemory;
    } else if (reply.outcome == wire::Outcome::BadRequest) {
      kind = LabCallFailure::Kind::Refused;
    }
    LabCallFailure failure(kind, message, res.notes, res);
    if (past_array_end(reply)) failure.cause = Cause::PastArrayEnd;
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
                         res.notes, res);
  // (A copy between device buffers is device work too: a one-element sum is its input, copied.)
  if (records_launches && reply.launches_total == 0 && reply.device_copy_bytes == 0)
    throw LabCallFailure(LabCallFailure::Kind::NoKernel,
                         "no kernel ran: the result was computed on the host. " + function +
                             " must launch your kernel(s) and leave the result in GPU memory",
                         res.notes, res);
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

}  // namespace cudalab
