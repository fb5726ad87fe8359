// One exchange with the kernel runner, as both kinds of call make it (a check's LabCall::run,
// lab_call.cpp, and a timed batch, checker/timing/timed_batch.cpp): the shared memory a request
// travels with, the runner's frames within the time limit, a reply read back into outputs and
// judged, and what a broken exchange means (the runner is replaced, the call fails).
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "lab_call.h"
#include "runner_session.h"
#include "wire/protocol.h"

namespace cudalab {

// The call's shared memory: a memfd the runner maps too.
struct SharedMemory {
  int fd = -1;
  uint8_t* p = nullptr;
  size_t bytes = 0;
  explicit SharedMemory(size_t n);  // throws LabCallFailure (Refused) when it cannot be made
  ~SharedMemory();
  SharedMemory(const SharedMemory&) = delete;
  SharedMemory& operator=(const SharedMemory&) = delete;
};

// The live runner of the session; one that does not start fails the call (Kind::Crashed).
RunnerProcess& live_runner(RunnerSession& session);

// What a failed exchange with the runner means for the call: the runner is replaced, and the
// call fails with the kind its end shows (a refused system call, a time limit, a crash, garbage).
[[noreturn]] void runner_failed(RunnerSession& session, const std::string& function, const wire::ProtocolError& e);

// The runner's next frame, within the per-request limit (a runner past it is replaced, and the
// call fails as timed out). A SyscallRefused frame is thrown, for runner_failed.
void receive_from_runner(RunnerSession& session, RunnerProcess& rp, wire::Frame& f, const std::string& function);

// The runner's reply of type `expected`; a broken exchange ends in runner_failed.
wire::CallReply receive_reply(RunnerSession& session, RunnerProcess& rp, const std::string& function,
                              wire::MessageType expected);

// Whether "no kernel ran" can be judged for calls in this runner.
bool launches_recorded(const RunnerSession& session, const RunnerProcess& rp);

// Reads the outputs and guards back and judges the reply's outcome: a failed one, or one that
// computed on the host, throws LabCallFailure with the call's record. `drawn`: per buffer, the
// elements drawn from a sampled output of a timed call (empty for every other buffer).
LabCallResult read_result(RunnerSession& session, const std::string& function, const wire::CallRequest& q,
                          const wire::CallReply& reply, const SharedMemory& shm, bool records_launches,
                          const std::vector<std::vector<uint64_t>>& drawn = {});

}  // namespace cudalab
