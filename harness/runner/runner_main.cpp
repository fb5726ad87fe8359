// The kernel runner: the lab file's process. It serves the checker's requests over the socket
// on descriptor wire::kRunnerFd (harness/wire/protocol.h): make the buffers, call the lab's
// entry point, record its launches, hand back outputs and guards; time repetitions.
//
// Nothing here is trusted: a lab file can change any of it. What the checker believes it
// checks itself (outputs, guards, timing bounds); the verdict and its secret live only in the
// checker. Started by the checker as `<runner> --serve`; run by hand it says what it is.
#include <cuda_runtime.h>
#include <dirent.h>
#include <malloc.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "copy_check.h"
#include "device_buffers.h"
#include "lab_entry.h"
#include "launch_record.h"
#include "runner_parts.h"
#include "syscall_filter.h"
#include "cudalab/launch_check.h"
#include "wire/cuda_errors.h"
#include "wire/parallel.h"
#include "wire/protocol.h"
#ifdef CUDALAB_BACKEND_CPU
#include "runner/emulator/control.h"
#endif

namespace cudalab {
// Recorded by launch_check.h when the lab file is compiled with CUDALAB_SOURCE_FILE.
static const char* g_source_file = "";
const char* note_source_file(const char* path) { return g_source_file = path; }
}  // namespace cudalab

namespace cudalab::run {
namespace {

// The shared memory of one request, mapped for its duration.
struct SharedMemory {
  uint8_t* p = nullptr;
  size_t bytes = 0;
  SharedMemory(int fd, uint64_t want) {
    struct stat st {};
    if (fd < 0 || fstat(fd, &st) != 0 || uint64_t(st.st_size) < want)
      throw wire::ProtocolError("no shared memory came with the request");
    bytes = size_t(want);
    if (bytes) {
      // Mapped whole at once (MAP_POPULATE): a check's inputs fill it (the checker wrote them), and
      // one call maps them faster than a fault per page while they are copied to the device.
      void* m = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd, 0);
      if (m == MAP_FAILED) throw wire::ProtocolError("could not map the shared memory");
      p = static_cast<uint8_t*>(m);
    }
    close(fd);
  }
  ~SharedMemory() {
    if (p) munmap(p, bytes);
  }
};

// Never destroyed: its memory goes back explicitly at Quit, before the CUDA runtime's (or the
// emulator's) own statics are torn down.
DeviceBuffers& g_buffers = *new DeviceBuffers;

// Runs body; a failure becomes the reply's outcome and message.
template <class F>
void guarded(wire::CallReply& reply, F&& body) {
  try {
    body();
  } catch (const CudaFailure& f) {
    reply.outcome = wire::Outcome::CudaError;
    reply.message = f.what();
    reply.context_lost = f.context_lost;
    reply.failure.cause = wire::Cause(uint8_t(f.where));
    reply.failure.cuda_code = int32_t(f.code);
    reply.failure.call = f.call;
    reply.failure.kernel = f.kernel;
    reply.failure.file = f.file;
    reply.failure.line = f.line > 0 ? uint32_t(f.line) : 0;
  } catch (const InputsNotMapped& e) {
    reply.outcome = wire::Outcome::BadRequest;
    reply.message = e.what();
    reply.failure.cause = wire::Cause::InputsNotMapped;
  } catch (const BadRequest& e) {
    reply.outcome = wire::Outcome::BadRequest;
    reply.message = e.what();
    reply.failure.cause = wire::Cause::BadRequest;
  } catch (const std::exception& e) {
    reply.outcome = wire::Outcome::Exception;
    reply.message = std::string("your code threw an exception: ") + e.what();
    reply.failure.cause = wire::Cause::Exception;
  } catch (...) {
    reply.outcome = wire::Outcome::Exception;
    reply.message = "your code threw something that is not a std::exception";
    reply.failure.cause = wire::Cause::OtherThrow;
  }
}

// A CUDA failure while the lab's host function ran is the lab call's, unless it says better.
template <class F>
void as_lab_call(F&& body) {
  try {
    body();
  } catch (CudaFailure& f) {
    if (f.where == CudaFailure::Where::Runner) f.where = CudaFailure::Where::LabCall;
    throw;
  }
}

// One call of the lab's entry point, with the launch record around it. The GPU is
// synchronized before the call returns, so work on any stream is finished.
void call_entry(const wire::CallRequest& q, wire::CallReply& reply) {
  EntryArgs args;
  args.buffers = g_buffers.pointers();
  args.request = &q;
  set_sync_after_launch(q.sync_after_launch);
  const unsigned threads_before = host_thread_count();
  take_refused_copy();
  launch_record_start();
  try {
    as_lab_call([&] {
      call_lab_function(entry_signature().function, [&] { run_lab_host_code(q, args, [&] { call_lab_entry(args); }); });
    });
  } catch (...) {
    launch_record_stop();
    throw;
  }
  launch_record_stop();
  const unsigned threads_after = host_thread_count();
  reply.threads_left = threads_after > threads_before ? threads_after - threads_before : 0;
}

void finish_reply(wire::CallReply& reply) {
  reply.launches = launch_record_take(reply.launches_total);
  reply.bytes_to_host = launch_record_bytes_to_host();
  // A copy or fill refused while the lab's code ran (copy_check.h): it did not happen; the lab's
  // code got cudaErrorNotPermitted and went on. Said as data; the checker writes the note.
  if (const std::optional<RefusedCopy> refused = take_refused_copy()) {
    reply.refused_copy.call = refused->call;
    reply.refused_copy.direction = refused->direction;
  }
  reply.device_copy_bytes = take_device_copy_bytes();
#ifdef CUDALAB_BACKEND_CPU
  reply.notes = cudalab_cpu::control::take_notes(true);
  // The emulator's account of a fault (kernel, block, thread), unless the error says it already.
  const std::string failure = cudalab_cpu::control::last_failure();
  if (reply.outcome == wire::Outcome::CudaError && !failure.empty() &&
      reply.message.find(failure.rfind("cudalab: ", 0) == 0 ? failure.substr(9) : failure) == std::string::npos)
    reply.notes.insert(reply.notes.begin(), failure);
#endif
}

// A request for another lab: the checker started the wrong runner.
void refuse_other_lab(const wire::CallRequest& q) {
  if (int(q.lab) != entry_signature().lab)
    throw BadRequest("this runner serves lab " + std::to_string(entry_signature().lab));
}

void send_reply(int sock, wire::MessageType type, const wire::CallReply& reply) {
  wire::Writer w;
  wire::encode(w, reply);
  wire::send_frame(sock, type, w.bytes());
}

// A check's inputs come as values (the checker made them; no seed ever reaches this process).
// Once they are on the device they leave the shared memory, before the lab's code runs: its
// host code shares this process, and a copy on the host would let it compute there. Whole
// pages go back to the kernel (MADV_REMOVE punches them out of the memfd); the ragged ends
// are zeroed.
void empty_input_slots(const wire::CallRequest& q, uint8_t* shm) {
  constexpr uintptr_t kPage = 4096;
  for (const auto& b : q.buffers) {
    if (b.fill.kind != wire::FillKind::Data) continue;
    uint8_t* begin = shm + b.slot_offset;
    uint8_t* end = begin + b.count * wire::elem_size(b.type);
    uint8_t* first = reinterpret_cast<uint8_t*>((reinterpret_cast<uintptr_t>(begin) + kPage - 1) & ~(kPage - 1));
    uint8_t* last = reinterpret_cast<uint8_t*>(reinterpret_cast<uintptr_t>(end) & ~(kPage - 1));
    if (first >= last || madvise(first, size_t(last - first), MADV_REMOVE) != 0) {
      std::memset(begin, 0, size_t(end - begin));
      continue;
    }
    std::memset(begin, 0, size_t(first - begin));
    std::memset(last, 0, size_t(end - last));
  }
}

// The checker's device memory for the next call (a DeviceInputs frame), mapped; nullptr, with
// the reason in `why`, where it could not be (the call then answers InputsNotMapped).
std::unique_ptr<wire::SharedDeviceMemory> map_device_inputs(const wire::Frame& f, std::string& why) {
  uint64_t bytes = 0;
  try {
    wire::Reader r(f.payload);
    bytes = r.u64();
    r.done();
  } catch (const wire::ProtocolError&) {
    if (f.fd >= 0) close(f.fd);
    throw;
  }
  if (f.fd < 0) throw wire::ProtocolError("no descriptor came with the device inputs");
  return wire::SharedDeviceMemory::import(f.fd, bytes, why);
}

// `lent`: the checker's device memory for this call's Device-filled inputs (or nullptr, with
// `lent_failure` saying why it is missing); unmapped once the call's buffers are written back.
void serve_call(int sock, const wire::Frame& f, std::unique_ptr<wire::SharedDeviceMemory> lent,
                const std::string& lent_failure) {
  wire::Reader r(f.payload);
  const wire::CallRequest q = wire::decode_request(r);
  SharedMemory shm(f.fd, q.shm_bytes);
  wire::CallReply reply;
  guarded(reply, [&] {
    refuse_other_lab(q);
    if (!lent_failure.empty()) throw InputsNotMapped("could not map the checker's inputs: " + lent_failure);
    g_buffers.prepare(q, shm.p, true, lent.get());
    empty_input_slots(q, shm.p);
    call_entry(q, reply);
    g_buffers.write_back(q, shm.p);
  });
  if (lent) {
    cudaDeviceSynchronize();  // nothing of the lab's may still run on memory about to go
    g_buffers.release();
  }
  finish_reply(reply);
  send_reply(sock, wire::MessageType::CallReply, reply);
}

// A timed batch: R calls of the lab's host function back to back, each on buffers of its own
// (fresh inputs from its own seed, outputs poisoned), all made before "ready" and the L2
// flushed after them, so no call finds its inputs cached. On "go" the R calls run between two
// CUDA events on the legacy default stream (every stream the lab's code makes is a blocking
// one, see launch_record_gpu.cpp, so the stop event waits for work on all of them); "done"
// carries the events' time for all R. Then the runner hands back the outputs and guards of the
// calls the checker asks for (those it checks), of a large output only the elements it drew
// (wire::HandBack). It decides after "done", so the lab's code cannot know which calls, nor
// which elements, count. The checker's own clock runs
// from "go" to "done" (checker/timing/timed_call.cpp): what is reported here is only believed within it.
//
// Nothing but the lab's calls runs between the events, and nothing of the runner's own between
// "go" and "done" but recording the events, counting threads and the reply, so the checker's
// clock bounds the lab's time tightly (checker/timing/timing_bound.h).
std::vector<std::unique_ptr<DeviceBuffers>>& g_sets = *new std::vector<std::unique_ptr<DeviceBuffers>>;

// Makes every call's buffers (kept from the last batch where the shapes match) and flushes the
// L2 after them; false, with the reason in `reply`, when they could not all be made.
bool prepare_batch(const std::vector<wire::CallRequest>& reps, const SharedMemory& shm, wire::CallReply& reply) {
  bool prepared = false;
  guarded(reply, [&] {
    refuse_other_lab(reps.front());
    g_buffers.release();  // the checks' buffers: their memory is the batch's now
    g_sets.resize(reps.size());  // kept from the last batch where the shapes match (prepare reuses them)
    try {
      for (size_t i = 0; i < reps.size(); ++i) {
        if (!g_sets[i]) g_sets[i] = std::make_unique<DeviceBuffers>();
        g_sets[i]->prepare(reps[i], shm.p, false);  // one wait for all, below
      }
    } catch (...) {
      g_sets.clear();  // out of memory, say: give it all back, the checker asks for fewer
      throw;
    }
    if (reps.front().flush_l2) flush_l2_cache();
    require(cudaDeviceSynchronize(), "preparing a timed batch");
    prepared = true;
  });
  return prepared;
}

// The lab's host function, once per call of the batch, between the two events: nothing else.
// The launch record is started before, and errors are looked at after (a synchronize here would
// be timed). Tells the checker when the stop event is reached, then puts the events' time (all R
// calls) and the threads the lab's code left running into `reply`.
void run_between_events(int sock, const std::vector<wire::CallRequest>& reps, const std::vector<EntryArgs>& args,
                        unsigned threads_before, cudaEvent_t start, cudaEvent_t stop, wire::CallReply& reply) {
  set_sync_after_launch(false);
  cudaGetLastError();
  take_refused_copy();
  launch_record_start();
  require(cudaEventRecord(start), "recording the start event");
  try {
    as_lab_call([&] {
      for (size_t i = 0; i < reps.size(); ++i) run_lab_host_code(reps[i], args[i], [&] { call_lab_entry(args[i]); });
    });
  } catch (...) {
    launch_record_stop();
    throw;
  }
  require(cudaEventRecord(stop), "recording the stop event");
  launch_record_stop();
  // Counted while the GPU still works through the batch: a thread the lab's code left running
  // could launch after the stop event, and its work would count for nothing in either clock.
  const unsigned threads_after = host_thread_count();
  reply.threads_left = threads_after > threads_before ? threads_after - threads_before : 0;
  require(cudaEventSynchronize(stop), "waiting for the stop event");
  wire::send_frame(sock, wire::MessageType::RepStopped, "");  // the checker's clock stops here
  as_lab_call([&] { finish_lab_call(entry_signature().function); });  // the lab's own errors, named as in the checks
  float ms = 0;
  require(cudaEventElapsedTime(&ms, start, stop), "reading the timing events");
  reply.ms = double(ms);
}

// After "done": the outputs and guards of the calls the checker asks for (those it checks), of a
// large output only the elements it drew (wire::HandBack).
void hand_back_checked(int sock, const std::vector<wire::CallRequest>& reps, const SharedMemory& shm) {
  wire::Frame keep;
  if (!wire::receive_frame(sock, keep, -1) || keep.type != wire::MessageType::Go)
    throw wire::ProtocolError("expected what to hand back");
  wire::Reader hr(keep.payload);
  const wire::HandBack hand_back = wire::decode_hand_back(hr, reps);  // every index checked against its buffer
  wire::CallReply copied;
  guarded(copied, [&] {
    for (size_t i = 0; i < reps.size(); ++i)  // only the calls the checker checks, only the elements it drew
      if (hand_back.calls[i]) g_sets[i]->write_back(reps[i], shm.p, true, hand_back.indices[i]);
  });
  send_reply(sock, wire::MessageType::CallReply, copied);
}

void serve_timed_batch(int sock, const wire::Frame& f) {
  wire::Reader r(f.payload);
  const std::vector<wire::CallRequest> reps = wire::decode_batch(r);
  SharedMemory shm(f.fd, reps.front().shm_bytes);
  for (const auto& q : reps)
    if (q.shm_bytes != reps.front().shm_bytes) throw wire::ProtocolError("a batch's repetitions share one memory");
  wire::CallReply reply;
  if (!prepare_batch(reps, shm, reply)) {
    finish_reply(reply);
    send_reply(sock, wire::MessageType::RepDone, reply);
    return;
  }
  cudaEvent_t start = nullptr, stop = nullptr;
  guarded(reply, [&] {
    require(cudaEventCreate(&start), "creating a timing event");
    require(cudaEventCreate(&stop), "creating a timing event");
  });
  std::vector<EntryArgs> args(reps.size());
  for (size_t i = 0; i < reps.size(); ++i) {
    args[i].buffers = g_sets[i]->pointers();
    args[i].request = &reps[i];
  }
  const unsigned threads_before = host_thread_count();
  wire::send_frame(sock, wire::MessageType::RepReady, "");
  wire::Frame go;
  if (!wire::receive_frame(sock, go, -1) || go.type != wire::MessageType::Go) throw wire::ProtocolError("expected go");
  if (reply.outcome == wire::Outcome::Ok)
    guarded(reply, [&] { run_between_events(sock, reps, args, threads_before, start, stop, reply); });
  finish_reply(reply);
  send_reply(sock, wire::MessageType::RepDone, reply);
  if (start) cudaEventDestroy(start);
  if (stop) cudaEventDestroy(stop);
  if (reply.outcome != wire::Outcome::Ok) return;
  hand_back_checked(sock, reps, shm);
}

// The checking tool this runner runs under (make labN CHECK=...), for the report's header.
std::string checking_tool() {
#if defined(__SANITIZE_ADDRESS__)
  return "AddressSanitizer + UBSan bounds checks (CHECK=asan)";
#elif defined(CUDALAB_CPU_RACE)
  return "the emulator's race detector: every access of every CUDA thread, atomics and barriers (CHECK=race)";
#else
  const char* injected = std::getenv("CUDA_INJECTION64_PATH");
  if (injected && std::strstr(injected, "sanitizer")) return "compute-sanitizer (CHECK=)";
  return "";
#endif
}

// Whether this runner limits its system calls: always, but for the harness's own baseline
// runner and a measurement (the checker's --no-syscall-filter), and under a checking tool that
// works from inside the process (compute-sanitizer's injected library, AddressSanitizer's
// reports), which opens files and starts processes of its own.
bool filters_system_calls(bool asked_off) {
#if defined(__SANITIZE_ADDRESS__)
  return false;
#else
  return !asked_off && !std::getenv("CUDA_INJECTION64_PATH");
#endif
}

// Everything the runner's own code will need from the operating system that the filter then
// refuses: the runtime up (the CUDA context; the emulator's workers and symbol tables), the
// core count asked, the thread list open. Then the filter (syscall_filter.h).
void lock_down(bool asked_off) {
  host_threads();  // wire/parallel.h: read from /sys once
  // The C library's limit on malloc arenas, set now (its default, 8 per core): else the first
  // thread to need a new arena reads the core count from /sys, which the filter refuses.
  mallopt(M_ARENA_MAX, int(8 * host_threads()));
  host_thread_count();
#ifdef CUDALAB_BACKEND_CPU
  cudalab_cpu::control::prepare_for_lockdown();
#else
  cudaFree(nullptr);  // the primary context, if the device query did not make it
#endif
  if (!filters_system_calls(asked_off)) return;
  MemoryGuard guard;
#ifdef CUDALAB_BACKEND_CPU
  const auto guarded = cudalab_cpu::control::guarded_memory();  // device memory, the schedule's page
  guard.site = guarded.site;
  guard.ranges = guarded.ranges;
#endif
  const std::string why = lock_down_system_calls(guard);
  if (!why.empty())
    std::fprintf(stderr, "cudalab: the kernel runner could not limit its system calls (%s)\n", why.c_str());
}

int serve(bool filter_off) {
  const int sock = wire::kRunnerFd;
  wire::Hello hello;
  hello.lab = uint32_t(entry_signature().lab);
  hello.backend = backend_name();
  hello.source = g_source_file;
  hello.device = query_device();
  if (hello.device.usable) hello.records_launches = launch_record_self_test();
  hello.tool = checking_tool();
  // Under a checking tool the lab's inputs stay in memory the runtime made (compute-sanitizer
  // follows those allocations): the checker sends values instead.
  hello.maps_device_inputs = hello.device.usable && hello.tool.empty() && wire::SharedDeviceMemory::supported();
#ifdef CUDALAB_BACKEND_CPU
  cudalab_cpu::control::take_notes(true);  // from now on the emulator's notes go into the report
#endif
  lock_down(filter_off);
  wire::Writer w;
  wire::encode(w, hello);
  wire::send_frame(sock, wire::MessageType::Hello, w.bytes());
  std::unique_ptr<wire::SharedDeviceMemory> lent;  // from a DeviceInputs frame, for the next Call
  std::string lent_failure;
  for (;;) {
    wire::Frame f;
    wire::receive_frame(sock, f, -1);
    switch (f.type) {
      case wire::MessageType::DeviceInputs:
        lent_failure.clear();
        lent = map_device_inputs(f, lent_failure);
        break;
      case wire::MessageType::Call:
        serve_call(sock, f, std::move(lent), lent_failure);
        lent_failure.clear();
        break;
      case wire::MessageType::TimedRep: serve_timed_batch(sock, f); break;
      case wire::MessageType::Quit:
        g_buffers.release();
        g_sets.clear();
        return 0;
      default: throw wire::ProtocolError("an unexpected message");
    }
  }
}

}  // namespace

// The thread list is opened once, before the system-call filter holds, and read again each time.
unsigned host_thread_count() {
  static DIR* const tasks = opendir("/proc/self/task");
  if (!tasks) return 0;
  unsigned n = 0;
  rewinddir(tasks);
  while (dirent* e = readdir(tasks)) n += e->d_name[0] != '.';
  return n;
}

}  // namespace cudalab::run

int main(int argc, char** argv) {
  if (argc < 2 || std::strcmp(argv[1], "--serve") != 0) {
    std::fprintf(stderr,
                 "This is lab %d's kernel runner: your lab file plus the code that calls it. The checker "
                 "starts it and talks to it; run `make lab%d` instead (README: \"Debugging\" shows how to "
                 "step through your kernel in a debugger).\n",
                 cudalab::run::entry_signature().lab, cudalab::run::entry_signature().lab);
    return 2;
  }
  const bool filter_off = argc > 2 && std::strcmp(argv[2], "--no-syscall-filter") == 0;
#ifndef CUDALAB_BACKEND_CPU
  // Every module loaded when the runtime starts, before the system-call filter holds (a module
  // loaded at its kernel's first launch may compile PTX and open the driver's cache on disk). The
  // checker asks for it too; a sandbox between them may not hand its environment on.
  // No PTX compiled to disk either: the driver's cache of compiled kernels (a build for another GPU
  // than this one is compiled when it loads) writes its files later, from a thread of its own.
  if (!filter_off) {
    setenv("CUDA_MODULE_LOADING", "EAGER", 1);
    setenv("CUDA_CACHE_DISABLE", "1", 1);
  }
#endif
  try {
    return cudalab::run::serve(filter_off);
  } catch (const cudalab::wire::ProtocolError& e) {
    // The checker went away (or sent what it should not): nothing left to do.
    return 0;
  }
}
