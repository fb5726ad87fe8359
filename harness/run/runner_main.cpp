// The kernel runner: the lab file's process. It serves the checker's requests over the socket
// on descriptor wire::kRunnerFd (harness/common/protocol.h): make the buffers, call the lab's
// entry point, record its launches, hand back outputs and guards; time repetitions.
//
// Nothing here is trusted: a lab file can change any of it. What the checker believes it
// checks itself (outputs, guards, timing bounds); the verdict and its secret live only in the
// checker. Started by the checker as `<runner> --serve`; run by hand it says what it is.
#include <cuda_runtime.h>
#include <dirent.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "cuda_errors.h"
#include "cudalab/launch_check.h"
#include "device_buffers.h"
#include "lab_entry.h"
#include "launch_record.h"
#include "protocol.h"
#include "runner_parts.h"
#ifdef CUDALAB_BACKEND_CPU
#include "../cpu/control.h"
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
    if (fd < 0 || fstat(fd, &st) != 0 || uint64_t(st.st_size) < want) throw wire::ProtocolError("no shared memory came with the request");
    bytes = size_t(want);
    if (bytes) {
      void* m = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
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
  } catch (const BadRequest& e) {
    reply.outcome = wire::Outcome::BadRequest;
    reply.message = e.what();
  } catch (const std::exception& e) {
    reply.outcome = wire::Outcome::Exception;
    reply.message = std::string("your code threw an exception: ") + e.what();
  } catch (...) {
    reply.outcome = wire::Outcome::Exception;
    reply.message = "your code threw something that is not a std::exception";
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
  launch_record_start();
  try {
    call_lab_function(entry_function_name(), [&] { run_lab_host_code(q, args, [&] { call_lab_entry(args); }); });
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
#ifdef CUDALAB_BACKEND_CPU
  reply.notes = cudalab_cpu::control::take_notes(true);
  // The emulator's account of a fault (kernel, block, thread), unless the error says it already.
  const std::string failure = cudalab_cpu::control::last_failure();
  if (reply.outcome == wire::Outcome::CudaError && !failure.empty() &&
      reply.message.find(failure.rfind("cudalab: ", 0) == 0 ? failure.substr(9) : failure) == std::string::npos)
    reply.notes.insert(reply.notes.begin(), failure);
#endif
}

void send_reply(int sock, wire::MessageType type, const wire::CallReply& reply) {
  wire::Writer w;
  wire::encode(w, reply);
  wire::send_frame(sock, type, w.bytes());
}

void serve_call(int sock, const wire::Frame& f) {
  wire::Reader r(f.payload);
  const wire::CallRequest q = wire::decode_request(r);
  SharedMemory shm(f.fd, q.shm_bytes);
  wire::CallReply reply;
  guarded(reply, [&] {
    if (int(q.lab) != entry_lab_number()) throw BadRequest("this runner serves lab " + std::to_string(entry_lab_number()));
    g_buffers.prepare(q, shm.p);
    call_entry(q, reply);
    g_buffers.write_back(q, shm.p);
  });
  finish_reply(reply);
  send_reply(sock, wire::MessageType::CallReply, reply);
}

// One timed repetition: prepare, say ready, wait for "go", time the call with CUDA events on
// the legacy default stream (every stream the lab's code makes is a blocking one, see
// launch_record_gpu.cpp, so the stop event waits for work on all of them), say done, then
// hand back what the checker asks for: the outputs (it checks this repetition) or only the
// guards. It decides after "done", so the lab's code cannot know which repetitions count.
void serve_timed_rep(int sock, const wire::Frame& f) {
  wire::Reader r(f.payload);
  const wire::CallRequest q = wire::decode_request(r);
  SharedMemory shm(f.fd, q.shm_bytes);
  wire::CallReply reply;
  bool prepared = false;
  guarded(reply, [&] {
    g_buffers.prepare(q, shm.p);
    if (q.flush_l2) flush_l2_cache();
    require(cudaDeviceSynchronize(), "preparing a timed repetition");
    prepared = true;
  });
  if (!prepared) {
    finish_reply(reply);
    send_reply(sock, wire::MessageType::RepDone, reply);
    return;
  }
  wire::send_frame(sock, wire::MessageType::RepReady, "");
  wire::Frame go;
  if (!wire::receive_frame(sock, go, -1) || go.type != wire::MessageType::Go) throw wire::ProtocolError("expected go");
  guarded(reply, [&] {
    cudaEvent_t start, stop;
    require(cudaEventCreate(&start), "creating a timing event");
    require(cudaEventCreate(&stop), "creating a timing event");
    // Nothing between the two events but the lab's own host function: the launch record is
    // started before, and errors are looked at after (a synchronize here would be timed).
    EntryArgs args;
    args.buffers = g_buffers.pointers();
    args.request = &q;
    set_sync_after_launch(false);
    cudaGetLastError();
    launch_record_start();
    require(cudaEventRecord(start), "recording the start event");
    try {
      run_lab_host_code(q, args, [&] { call_lab_entry(args); });
    } catch (...) {
      launch_record_stop();
      throw;
    }
    require(cudaEventRecord(stop), "recording the stop event");
    launch_record_stop();
    g_buffers.snapshot_outputs(q);  // what the outputs hold at the stop event is what counts
    require(cudaEventSynchronize(stop), "waiting for the stop event");
    finish_lab_call(entry_function_name());  // the lab's own errors, named as in the checks
    float ms = 0;
    require(cudaEventElapsedTime(&ms, start, stop), "reading the timing events");
    reply.ms = ms;
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
  });
  finish_reply(reply);
  send_reply(sock, wire::MessageType::RepDone, reply);
  if (reply.outcome != wire::Outcome::Ok) return;
  wire::Frame keep;
  if (!wire::receive_frame(sock, keep, -1) || keep.type != wire::MessageType::Go || keep.payload.size() != 1)
    throw wire::ProtocolError("expected what to hand back");
  const bool outputs = keep.payload[0] != 0;
  wire::CallReply copied;
  guarded(copied, [&] { g_buffers.write_back(q, shm.p, outputs); });
  send_reply(sock, wire::MessageType::CallReply, copied);
}

// The checking tool this runner runs under (make labN CHECK=...), for the report's header.
std::string checking_tool() {
#if defined(__SANITIZE_ADDRESS__)
  return "AddressSanitizer + UBSan bounds checks (CHECK=asan)";
#elif defined(__SANITIZE_THREAD__)
  return "ThreadSanitizer, one identity per CUDA thread (CHECK=race)";
#else
  const char* injected = std::getenv("CUDA_INJECTION64_PATH");
  if (injected && std::strstr(injected, "sanitizer")) return "compute-sanitizer (CHECK=)";
  return "";
#endif
}

int serve() {
  const int sock = wire::kRunnerFd;
  wire::Hello hello;
  hello.lab = uint32_t(entry_lab_number());
  hello.backend = backend_name();
  hello.source = g_source_file;
  hello.device = query_device();
  if (hello.device.usable) hello.records_launches = launch_record_self_test();
  hello.tool = checking_tool();
#ifdef CUDALAB_BACKEND_CPU
  cudalab_cpu::control::take_notes(true);  // from now on the emulator's notes go into the report
#endif
  wire::Writer w;
  wire::encode(w, hello);
  wire::send_frame(sock, wire::MessageType::Hello, w.bytes());
  for (;;) {
    wire::Frame f;
    wire::receive_frame(sock, f, -1);
    switch (f.type) {
      case wire::MessageType::Call: serve_call(sock, f); break;
      case wire::MessageType::TimedRep: serve_timed_rep(sock, f); break;
      case wire::MessageType::Quit:
        g_buffers.release();
        return 0;
      default: throw wire::ProtocolError("an unexpected message");
    }
  }
}

}  // namespace

unsigned host_thread_count() {
  unsigned n = 0;
  if (DIR* d = opendir("/proc/self/task")) {
    while (dirent* e = readdir(d)) n += e->d_name[0] != '.';
    closedir(d);
  }
  return n;
}

}  // namespace cudalab::run

int main(int argc, char** argv) {
  if (argc < 2 || std::strcmp(argv[1], "--serve") != 0) {
    std::fprintf(stderr,
                 "This is lab %d's kernel runner: your lab file plus the code that calls it. The checker "
                 "starts it and talks to it; run `make lab%d` instead (README: \"Debugging\" shows how to "
                 "step through your kernel in a debugger).\n",
                 cudalab::run::entry_lab_number(), cudalab::run::entry_lab_number());
    return 2;
  }
  try {
    return cudalab::run::serve();
  } catch (const cudalab::wire::ProtocolError& e) {
    // The checker went away (or sent what it should not): nothing left to do.
    return 0;
  }
}
