#include "timed_batch.h"

#include <unistd.h>

#include <chrono>
#include <cstring>
#include <random>
#include <stdexcept>

#include "gpu_gate.h"
#include "checker/calls/runner_exchange.h"

namespace cudalab {
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
std::vector<wire::CallRequest> lay_out_batch(const RunnerSession& session, std::vector<LabCall>& calls) {
  uint64_t offset = 0;
  std::vector<wire::CallRequest> requests;
  for (auto& c : calls) {
    wire::CallRequest& q = c.request();
    q.lab = uint32_t(c.lab());
    q.schedule = session.config().schedule;
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

TimedBatch run_timed_batch(RunnerSession& session, std::vector<LabCall>& calls,
                           const std::function<std::vector<bool>(size_t)>& check, bool measured) {
  if (calls.empty()) throw std::logic_error("a timed batch needs a call");
  const std::string function = calls.front().function();
  RunnerProcess& rp = live_runner(session);
  TimedBatch out;
  const std::vector<wire::CallRequest> requests = lay_out_batch(session, calls);
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
    receive_from_runner(session, rp, f, function);
    if (f.fd >= 0) close(f.fd);
    if (f.type == wire::MessageType::RepDone) {  // preparing failed
      wire::Reader r(f.payload);
      read_result(session, function, requests.front(), wire::decode_reply(r), shm, false);
      throw LabCallFailure(LabCallFailure::Kind::Refused, "preparing a timed batch failed");
    }
    if (f.type != wire::MessageType::RepReady) throw wire::ProtocolError("an unexpected message");
    // The checker's own clock, from "go" to "done": all R calls and nothing of the runner's
    // but recording two events and the reply (timing_bound.h).
    const auto ready = std::chrono::steady_clock::now();
    out.prepare_ms = std::chrono::duration<double, std::milli>(ready - sent).count();
    std::optional<MeasuredSpan> span;  // no other run starting up meanwhile (gpu_gate.h)
    if (measured) span.emplace(session.measured_span_gate());
    const auto start = std::chrono::steady_clock::now();
    out.startup_wait_ms = std::chrono::duration<double, std::milli>(start - ready).count();
    wire::send_frame(rp.socket(), wire::MessageType::Go, "");
    wire::Frame done;
    receive_from_runner(session, rp, done, function);
    out.wall_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    span.reset();
    // "stopped" first when the calls ran to their stop event; the reply follows. A batch that
    // failed on the way sends its reply alone, and the clock stops at that.
    if (done.type == wire::MessageType::RepStopped) {
      if (done.fd >= 0) close(done.fd);
      receive_from_runner(session, rp, done, function);
    }
    if (done.fd >= 0) close(done.fd);
    if (done.type != wire::MessageType::RepDone) throw wire::ProtocolError("an unexpected message");
    wire::Reader r(done.payload);
    const wire::CallReply timed = wire::decode_reply(r);
    out.ms = timed.ms;
    out.threads_left = timed.threads_left;
    if (timed.outcome != wire::Outcome::Ok)
      read_result(session, function, requests.front(), timed, shm, false);  // throws
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
    const wire::CallReply copied = receive_reply(session, rp, function, wire::MessageType::CallReply);
    out.hand_back_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count() - out.wall_ms;
    if (copied.outcome != wire::Outcome::Ok) read_result(session, function, requests.front(), copied, shm, false);
    out.results.resize(calls.size());
    const bool records = launches_recorded(session, rp);
    for (size_t i = 0; i < calls.size(); ++i)
      if (wanted[i]) out.results[i] = read_result(session, function, requests[i], timed, shm, records, drawn[i]);
  } catch (const wire::ProtocolError& e) {
    runner_failed(session, function, e);
  }
  return out;
}

}  // namespace cudalab
