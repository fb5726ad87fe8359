// The checker <-> kernel runner protocol: the one narrow door between trusted code
// (harness/checker/, never linked with a lab file) and the process a lab file runs in
// (harness/runner/ + the lab file). Both sides include this header; nothing else is shared.
//
// Transport. A Unix stream socket: the runner finds its end on descriptor kRunnerFd.
// Every message is a frame: u32 type, u64 payload length, payload. Arrays never travel in
// frames: each call comes with a shared-memory file (memfd, sent with SCM_RIGHTS) that holds,
// per buffer, a slot of [count elements][kGuardElements guard words]. Inputs are made from
// the seed on both sides (no copy at all) or, for inputs that are not random, written into
// the slot by the checker; outputs and every buffer's guards are written back into the slot
// by the runner.
//
// Conversation (the runner speaks first):
//   runner  -> Hello{version, lab, source, device}
//   checker -> Call{request} + memfd          runner -> CallReply{...}   (repeat)
//   checker -> TimedRep{R requests} + memfd   runner -> RepReady   (all R sets made, L2 flushed)
//   checker -> Go (starts its own clock)      runner -> RepDone{ms of all R calls, reply}
//   checker -> Go{HandBack: which calls' outputs come back, the elements
//                 drawn from each sampled output}   runner -> CallReply   (repeat from TimedRep)
//   checker -> Quit (or closes the socket)
//
// Trust. The checker believes nothing the runner says about correctness: it reads the
// outputs and guards back and judges them itself; every length is bounded before it is
// used; a runner that sends garbage, dies or stalls fails the check that was running. Nor
// does it repeat the runner's words: a failure comes back as data (CallReply::failure) from
// which the checker writes its own sentence; the runner's text travels beside it, for a
// student's own runs only (checker/calls/runner_words.h).
#pragma once
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "random.h"

namespace cudalab::wire {

constexpr uint32_t kVersion =
    6;  // 3: sampled outputs in timed batches (HandBack); 4: byte fills hash once per 4 bytes;
// 5: SyscallRefused, checks' inputs made by the checker (never a seed);
// 6: DeviceInputs (large inputs made on the checker's GPU, mapped by the runner)
constexpr int kRunnerFd = 3;  // the runner's end of the socket
constexpr size_t kGuardElements = 4096;  // guard words after every buffer
constexpr uint64_t kMaxFramePayload = 16u << 20;  // a frame never carries arrays
constexpr size_t kMaxLaunchesRecorded = 4096;  // more are counted, not listed

enum class MessageType : uint32_t {
  Hello = 1,
  Call = 2,
  CallReply = 3,
  TimedRep = 4,
  RepReady = 5,
  Go = 6,
  RepDone = 7,
  Quit = 8,
  // A timed batch's stop event has been reached: sent before the runner looks at what the calls
  // left (errors, the launch record) and writes its reply, so that the checker's clock stops
  // at the calls' end, not after bookkeeping that grows with the number of calls.
  RepStopped = 9,
  // The runner's system-call filter refused a call of the lab's code (runner/syscall_filter.h):
  // payload u32, the call's number on x86-64, then for open/openat the file's name (up to 200
  // bytes). Sent from the SIGSYS handler just before the runner dies of SIGSYS; the checker
  // believes the death, the number and the name only name the call.
  SyscallRefused = 10,
  // The checker's device memory that holds the next Call's Device-filled inputs: payload u64,
  // the allocation's size; the descriptor that comes with it, the allocation exported
  // (shared_device_memory.h). Sent just before that Call; the runner maps it for that call only.
  DeviceInputs = 11,
};

enum class ElemType : uint8_t { F32 = 0, U32 = 1, I32 = 2, U8 = 3 };
size_t elem_size(ElemType t);
const char* elem_name(ElemType t);  // "float", "unsigned", "int", "unsigned char"

// How a buffer starts. Poison: every byte 0xFF (a NaN as float, 0xFFFFFFFF as an integer):
// what is still poison afterwards was never written. Data: the checker's bytes from the
// slot. Random: element i = lo + (hi - lo) * u^power with u = uniform_at(seed, stream, i)
// (harness/wire/random.h), converted to the element type (floor for integers), and the
// last element multiplied by last_scale (floats only): both sides can make it from the seed.
// Device: the values are already on the GPU, made by the checker in the memory the DeviceInputs
// frame before the call shares, at BufferSpec::device_offset; the runner hands that memory to
// the lab as the buffer itself (its guards follow the elements there).
enum class FillKind : uint8_t { Poison = 0, Data = 1, Random = 2, Device = 3 };
struct Fill {
  FillKind kind = FillKind::Poison;
  uint64_t seed = 0, stream = 0;
  float lo = 0, hi = 1, power = 1, last_scale = 1;
};

struct BufferSpec {
  std::string name;  // "d_scratch": how reports name it
  ElemType type = ElemType::F32;
  uint64_t count = 0;  // elements, without the guards
  Fill fill;
  bool return_data = true;  // copy the elements back (guards always come back)
  uint64_t guard_salt = 0;  // guard word i is guard_word(guard_salt, i)
  uint64_t slot_offset = 0;  // where this buffer's slot starts in the shared memory
  // Timed batches only: a poisoned output of which only this many elements come back, drawn by
  // the checker after the batch ran (HandBack), so that a 400 MB output checked on 4,096
  // elements moves 16 KiB, not 400 MB. 0: the whole output (every Call, and small outputs).
  uint32_t samples = 0;
  uint64_t device_offset = 0;  // a Device fill: where its elements start in the shared device memory
};
constexpr uint32_t kMaxSamples = 1u << 16;  // elements drawn from one output of one call

// Bytes of one buffer's slot in the shared memory: its elements (when they travel either
// way; only the drawn ones of a sampled output) and its guard words.
uint64_t slot_bytes(const BufferSpec& b);
bool slot_has_data(const BufferSpec& b);  // Data fill or return_data
uint64_t slot_data_bytes(const BufferSpec& b);  // the elements' part of the slot (the guards follow)

// The guard word at position i past a buffer's end: a quiet NaN whose payload depends on the
// buffer's salt and on i, so no value computed from another buffer's guards (NaN payloads
// survive arithmetic on x86 and on GPUs) lands back on the same bits.
// Host and device alike: the runner writes the guards on the device (write_guards).
CUDALAB_HOST_DEVICE inline uint32_t guard_word(uint64_t salt, uint64_t i) {
  // 0x7FC00000 | payload: a quiet NaN; the payload's top bit set so it is never the canonical NaN.
  return 0x7FC00000u | 0x00200000u | uint32_t(mix64(salt + i) & 0x001FFFFFu);
}

struct CallRequest {
  uint32_t lab = 0;  // the runner refuses a call for another lab
  std::vector<BufferSpec> buffers;  // in the order the lab's entry point takes them
  std::vector<int64_t> scalars;  // sizes and such, in the entry point's order
  uint64_t shm_bytes = 0;  // size of the shared memory sent with the call
  bool sync_after_launch = true;  // CUDALAB_CHECK_LAUNCH waits for each kernel (checks)
  bool flush_l2 = false;  // timed repetitions: evict the L2 before the call
  // CPU backend: the order threads and blocks run in ("in-order", "reverse", "random:SEED"; ""
  // is in-order). The runner sets it before the lab's code runs, and a runner keeps its first
  // request's: the checker starts another runner for another schedule.
  std::string schedule;
};

struct Launch {
  std::string kernel;  // as the runner could name it
  uint32_t grid[3] = {0, 0, 0}, block[3] = {0, 0, 0};
  uint64_t shared_bytes = 0;  // dynamic shared memory asked for
};

enum class Outcome : uint8_t {
  Ok = 0,
  CudaError = 1,  // a CUDA call or kernel failed (message says which; context_lost if sticky)
  Exception = 2,  // the lab's code threw
  BadRequest = 3,  // the runner could not do what was asked (out of memory, say)
};

// What failed, as data the checker can check before it says anything about it. The runner
// fills it from the CudaFailure (wire/cuda_errors.h) or the exception it caught.
enum class Cause : uint8_t {
  None = 0,
  RunnerWork = 1,  // the runner's own work (making buffers, copying them back) failed
  CudaCall = 2,  // a runtime call the lab's code checked with CUDALAB_CHECK
  Launch = 3,  // a launch CUDALAB_CHECK_LAUNCH found refused
  KernelRun = 4,  // a kernel that failed while running, found by CUDALAB_CHECK_LAUNCH
  LabCall = 5,  // an error found when the lab's host function had returned
  Exception = 6,  // the lab's code threw a std::exception
  OtherThrow = 7,  // the lab's code threw something else
  BadRequest = 8,  // the request did not fit the lab (the checker's mistake)
  InputsNotMapped = 9,  // the checker's device memory (DeviceInputs) could not be mapped: no lab code ran
};

// A copy or fill of the lab's code that the runner refused (runner/copy_check.h): not device to
// device, so it did not happen and the call returned cudaErrorNotPermitted. The first of a call.
struct RefusedCopy {
  std::string call;  // "cudaMemcpy", "cudaMemcpyAsync", "cudaMemset", "cudaMemsetAsync"; "" when none
  std::string direction;  // "device_to_host", "host_to_device", "host_to_host", "host" (a fill of host memory)
};
struct Failure {
  Cause cause = Cause::None;
  int32_t cuda_code = 0;  // cudaError_t, 0 when none
  std::string call;  // CudaCall: the checked call as written ("cudaMalloc(&p, bytes)")
  std::string kernel;  // Launch, KernelRun: the name given to CUDALAB_CHECK_LAUNCH
  std::string file;  // CudaCall, Launch, KernelRun: where, as __FILE__ and __LINE__ said
  uint32_t line = 0;
};

struct CallReply {
  Outcome outcome = Outcome::Ok;
  std::string message;  // the runner's own words (never shown as the checker's)
  Failure failure;  // what failed, as data (outcome != Ok)
  bool context_lost = false;
  std::vector<Launch> launches;
  uint64_t launches_total = 0;  // including those past kMaxLaunchesRecorded
  uint32_t threads_left = 0;  // host threads the lab code started and left running
  // Bytes of GPU data the lab's code made reachable from the host: copied device-to-host, or
  // allocated as host-visible memory (pinned, mapped or managed). A sum computed on the host
  // needs its input there; a kernel's result does not.
  uint64_t bytes_to_host = 0;
  RefusedCopy refused_copy;  // the first copy or fill refused (runner/copy_check.h); call "" when none
  uint64_t device_copy_bytes = 0;  // bytes the lab's code copied between its device buffers
  std::vector<std::string> notes;  // what the emulator noticed (barrier divergence, ...)
  double ms = 0;  // RepDone only: CUDA events around all R calls of the batch
};

struct DeviceInfo {
  bool usable = false;
  std::string problem;  // why not usable, with what to do
  std::string name;
  int cc_major = 0, cc_minor = 0;
  int multiprocessors = 0;
  uint64_t l2_bytes = 0;
  uint64_t memory_bytes = 0;
  std::string driver_version, runtime_version;  // "13.0"; empty on the CPU backend
};

struct Hello {
  uint32_t version = kVersion;
  uint32_t lab = 0;
  std::string backend;  // "cuda" or "cpu"
  std::string source;  // the lab file the runner was built from
  DeviceInfo device;
  bool records_launches = false;  // the launch record works here (a self-test at start)
  std::string tool;  // a checking tool the runner runs under ("" when none)
  bool maps_device_inputs = false;  // the runner can map DeviceInputs (a GPU that shares memory, no tool)
};

// ---- Encoding -------------------------------------------------------------------------------
struct ProtocolError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class Writer {
 public:
  void u8(uint8_t v) { raw(&v, 1); }
  void u32(uint32_t v) { raw(&v, 4); }
  void u64(uint64_t v) { raw(&v, 8); }
  void i64(int64_t v) { raw(&v, 8); }
  void f32(float v) { raw(&v, 4); }
  void f64(double v) { raw(&v, 8); }
  void str(const std::string& s);
  const std::string& bytes() const { return out_; }

 private:
  void raw(const void* p, size_t n) { out_.append(static_cast<const char*>(p), n); }
  std::string out_;
};

// Reads what Writer wrote; every read is bounds-checked and throws ProtocolError.
class Reader {
 public:
  explicit Reader(const std::string& bytes) : s_(bytes) {}
  uint8_t u8();
  uint32_t u32();
  uint64_t u64();
  int64_t i64();
  float f32();
  double f64();
  std::string str(size_t max_len = 1 << 16);
  // A count of items that follow, each at least min_item_bytes long: refused when the
  // remaining bytes cannot hold them (a lie about sizes) or above max_items.
  size_t count(size_t max_items, size_t min_item_bytes);
  void done() const;  // throws if bytes are left over

 private:
  void raw(void* p, size_t n);
  const std::string& s_;
  size_t pos_ = 0;
};

void encode(Writer& w, const Hello& h);
void encode(Writer& w, const CallRequest& r);
void encode(Writer& w, const CallReply& r);
Hello decode_hello(Reader& r);
CallRequest decode_request(Reader& r);
CallReply decode_reply(Reader& r);
// A timed batch (TimedRep): R calls of the lab, each with buffers of its own in one shared memory.
constexpr size_t kMaxBatchReps = 20000;
void encode_batch(Writer& w, const std::vector<CallRequest>& reps);
std::vector<CallRequest> decode_batch(Reader& r);

// What a timed batch hands back, decided by the checker after "done", so that the lab's code
// cannot know which calls, nor which elements of a large output, are checked: per call, whether
// its outputs come back, and for a call that does, per sampled buffer (BufferSpec::samples > 0,
// in buffer order) the indices of the elements to bring back, in the order their values go into
// the buffer's slot.
struct HandBack {
  std::vector<uint8_t> calls;  // per call of the batch: 1 = hand back
  std::vector<std::vector<std::vector<uint64_t>>> indices;  // per call, per sampled buffer
};
// Elements drawn in one batch, at most: the hand-back travels in one frame.
constexpr uint64_t kMaxBatchSamples = uint64_t(1) << 20;
void encode(Writer& w, const HandBack& h);
// Checked against the batch it answers: a call count, index lists and sample counts that do not
// match its requests, or an index past its buffer's end, is a ProtocolError.
HandBack decode_hand_back(Reader& r, const std::vector<CallRequest>& batch);

// ---- Frames on the socket -------------------------------------------------------------------
// Writes a frame (and, when fd_to_send >= 0, passes that descriptor with it). Throws
// ProtocolError when the peer is gone.
void send_frame(int sock, MessageType type, const std::string& payload, int fd_to_send = -1);

struct Frame {
  MessageType type;
  std::string payload;
  int fd = -1;  // a descriptor that came with the frame (the caller owns it)
};
// Reads one frame. timeout_ms < 0 waits forever. Throws ProtocolError on a closed socket,
// a malformed or oversized frame; returns false on timeout.
bool receive_frame(int sock, Frame& out, int timeout_ms);

}  // namespace cudalab::wire
