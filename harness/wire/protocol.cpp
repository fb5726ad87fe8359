#include "protocol.h"

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "random.h"

namespace cudalab::wire {

size_t elem_size(ElemType t) { return t == ElemType::U8 ? 1 : 4; }

const char* elem_name(ElemType t) {
  switch (t) {
    case ElemType::F32: return "float";
    case ElemType::U32: return "unsigned";
    case ElemType::I32: return "int";
    case ElemType::U8: return "unsigned char";
  }
  return "?";
}

bool slot_has_data(const BufferSpec& b) { return b.return_data || b.fill.kind == FillKind::Data; }

uint64_t slot_data_bytes(const BufferSpec& b) {
  if (!slot_has_data(b)) return 0;
  return (b.samples ? b.samples : b.count) * elem_size(b.type);
}

uint64_t slot_bytes(const BufferSpec& b) { return slot_data_bytes(b) + kGuardElements * 4; }

// ---- Writer / Reader ------------------------------------------------------------------------
void Writer::str(const std::string& s) {
  u32(uint32_t(s.size()));
  raw(s.data(), s.size());
}

void Reader::raw(void* p, size_t n) {
  if (n > s_.size() - pos_) throw ProtocolError("a message ended early");
  std::memcpy(p, s_.data() + pos_, n);
  pos_ += n;
}
uint8_t Reader::u8() {
  uint8_t v;
  raw(&v, 1);
  return v;
}
uint32_t Reader::u32() {
  uint32_t v;
  raw(&v, 4);
  return v;
}
uint64_t Reader::u64() {
  uint64_t v;
  raw(&v, 8);
  return v;
}
int64_t Reader::i64() {
  int64_t v;
  raw(&v, 8);
  return v;
}
float Reader::f32() {
  float v;
  raw(&v, 4);
  return v;
}
double Reader::f64() {
  double v;
  raw(&v, 8);
  return v;
}

std::string Reader::str(size_t max_len) {
  uint32_t n = u32();
  if (n > max_len || n > s_.size() - pos_) throw ProtocolError("a string in a message is too long");
  std::string s(s_.data() + pos_, n);
  pos_ += n;
  return s;
}

size_t Reader::count(size_t max_items, size_t min_item_bytes) {
  uint64_t n = u64();
  if (n > max_items || n * min_item_bytes > s_.size() - pos_) throw ProtocolError("a count in a message is impossible");
  return size_t(n);
}

void Reader::done() const {
  if (pos_ != s_.size()) throw ProtocolError("a message has bytes left over");
}

// ---- Messages -------------------------------------------------------------------------------
static void encode(Writer& w, const DeviceInfo& d) {
  w.u8(d.usable);
  w.str(d.problem);
  w.str(d.name);
  w.u32(uint32_t(d.cc_major));
  w.u32(uint32_t(d.cc_minor));
  w.u32(uint32_t(d.multiprocessors));
  w.u64(d.l2_bytes);
  w.u64(d.memory_bytes);
  w.str(d.driver_version);
  w.str(d.runtime_version);
}

static DeviceInfo decode_device(Reader& r) {
  DeviceInfo d;
  d.usable = r.u8() != 0;
  d.problem = r.str(4096);
  d.name = r.str(256);
  d.cc_major = int(r.u32() & 0xFF);
  d.cc_minor = int(r.u32() & 0xFF);
  d.multiprocessors = int(r.u32() & 0xFFFF);
  d.l2_bytes = r.u64();
  d.memory_bytes = r.u64();
  d.driver_version = r.str(32);
  d.runtime_version = r.str(32);
  return d;
}

void encode(Writer& w, const Hello& h) {
  w.u32(h.version);
  w.u32(h.lab);
  w.str(h.backend);
  w.str(h.source);
  encode(w, h.device);
  w.u8(h.records_launches);
  w.str(h.tool);
  w.u8(h.maps_device_inputs);
}

Hello decode_hello(Reader& r) {
  Hello h;
  h.version = r.u32();
  h.lab = r.u32();
  h.backend = r.str(16);
  h.source = r.str(4096);
  h.device = decode_device(r);
  h.records_launches = r.u8() != 0;
  h.tool = r.str(256);
  h.maps_device_inputs = r.u8() != 0;
  r.done();
  return h;
}

void encode(Writer& w, const CallRequest& q) {
  w.u32(q.lab);
  w.u64(q.buffers.size());
  for (const auto& b : q.buffers) {
    w.str(b.name);
    w.u8(uint8_t(b.type));
    w.u64(b.count);
    w.u8(uint8_t(b.fill.kind));
    w.u64(b.fill.seed);
    w.u64(b.fill.stream);
    w.f32(b.fill.lo);
    w.f32(b.fill.hi);
    w.f32(b.fill.power);
    w.f32(b.fill.last_scale);
    w.u8(b.return_data);
    w.u64(b.guard_salt);
    w.u64(b.slot_offset);
    w.u32(b.samples);
    w.u64(b.device_offset);
  }
  w.u64(q.scalars.size());
  for (int64_t v : q.scalars) w.i64(v);
  w.u64(q.shm_bytes);
  w.u8(q.sync_after_launch);
  w.u8(q.flush_l2);
  w.str(q.schedule);
}

CallRequest decode_request(Reader& r) {
  CallRequest q;
  q.lab = r.u32();
  size_t n = r.count(64, 60);
  for (size_t i = 0; i < n; ++i) {
    BufferSpec b;
    b.name = r.str(256);
    uint8_t t = r.u8();
    if (t > uint8_t(ElemType::U8)) throw ProtocolError("unknown element type");
    b.type = ElemType(t);
    b.count = r.u64();
    uint8_t k = r.u8();
    if (k > uint8_t(FillKind::Device)) throw ProtocolError("unknown fill");
    b.fill.kind = FillKind(k);
    b.fill.seed = r.u64();
    b.fill.stream = r.u64();
    b.fill.lo = r.f32();
    b.fill.hi = r.f32();
    b.fill.power = r.f32();
    b.fill.last_scale = r.f32();
    b.return_data = r.u8() != 0;
    b.guard_salt = r.u64();
    b.slot_offset = r.u64();
    b.samples = r.u32();
    b.device_offset = r.u64();
    // Only a poisoned output can be sampled: an input's slot carries all of it, and a slot
    // holds no more elements than the buffer has.
    if (b.samples &&
        (b.samples > kMaxSamples || b.samples > b.count || !b.return_data || b.fill.kind != FillKind::Poison))
      throw ProtocolError("a sampled buffer that cannot be sampled");
    q.buffers.push_back(std::move(b));
  }
  size_t m = r.count(64, 8);
  for (size_t i = 0; i < m; ++i) q.scalars.push_back(r.i64());
  q.shm_bytes = r.u64();
  q.sync_after_launch = r.u8() != 0;
  q.flush_l2 = r.u8() != 0;
  q.schedule = r.str(64);
  r.done();
  // Every slot must lie inside the shared memory: checked here, once, for the runner.
  for (const auto& b : q.buffers)
    if (b.count > (uint64_t(1) << 40) || b.slot_offset > q.shm_bytes || slot_bytes(b) > q.shm_bytes - b.slot_offset)
      throw ProtocolError("a buffer's slot lies outside the shared memory");
  return q;
}

void encode(Writer& w, const CallReply& c) {
  w.u8(uint8_t(c.outcome));
  w.str(c.message);
  w.u8(uint8_t(c.failure.cause));
  w.u32(uint32_t(c.failure.cuda_code));
  w.str(c.failure.call);
  w.str(c.failure.kernel);
  w.str(c.failure.file);
  w.u32(c.failure.line);
  w.u8(c.context_lost);
  w.u64(c.launches.size());
  for (const auto& l : c.launches) {
    w.str(l.kernel);
    for (uint32_t v : l.grid) w.u32(v);
    for (uint32_t v : l.block) w.u32(v);
    w.u64(l.shared_bytes);
  }
  w.u64(c.launches_total);
  w.u32(c.threads_left);
  w.u64(c.bytes_to_host);
  w.str(c.refused_copy.call);
  w.str(c.refused_copy.direction);
  w.u64(c.device_copy_bytes);
  w.u64(c.notes.size());
  for (const auto& n : c.notes) w.str(n);
  w.f64(c.ms);
}

void encode_batch(Writer& w, const std::vector<CallRequest>& reps) {
  w.u64(reps.size());
  for (const auto& q : reps) {
    Writer one;
    encode(one, q);
    w.str(one.bytes());
  }
}

std::vector<CallRequest> decode_batch(Reader& r) {
  const size_t n = r.count(kMaxBatchReps, 4);
  if (n == 0) throw ProtocolError("a timed batch with no repetition");
  std::vector<CallRequest> reps;
  for (size_t i = 0; i < n; ++i) {
    const std::string bytes = r.str(1 << 20);
    Reader one(bytes);
    reps.push_back(decode_request(one));
  }
  r.done();
  return reps;
}

void encode(Writer& w, const HandBack& h) {
  w.u64(h.calls.size());
  for (size_t c = 0; c < h.calls.size(); ++c) {
    w.u8(h.calls[c]);
    if (!h.calls[c]) continue;
    for (const auto& list : h.indices.at(c)) {
      w.u64(list.size());
      for (uint64_t i : list) w.u64(i);
    }
  }
}

// The indices drawn from one sampled buffer: exactly b.samples of them, each inside the buffer.
static std::vector<uint64_t> decode_indices(Reader& r, const BufferSpec& b) {
  const size_t n = r.count(kMaxSamples, 8);
  if (n != b.samples) throw ProtocolError("a sampled buffer's index count is not its sample count");
  std::vector<uint64_t> list(n);
  for (auto& i : list) {
    i = r.u64();
    if (i >= b.count) throw ProtocolError("an index past the end of a sampled buffer");
  }
  return list;
}

HandBack decode_hand_back(Reader& r, const std::vector<CallRequest>& batch) {
  HandBack h;
  if (r.count(kMaxBatchReps, 1) != batch.size()) throw ProtocolError("a hand-back for another batch");
  h.calls.resize(batch.size());
  h.indices.resize(batch.size());
  for (size_t c = 0; c < batch.size(); ++c) {
    const uint8_t keep = r.u8();
    if (keep > 1) throw ProtocolError("a hand-back flag that is neither 0 nor 1");
    h.calls[c] = keep;
    if (!keep) continue;
    for (const auto& b : batch[c].buffers)
      if (b.samples) h.indices[c].push_back(decode_indices(r, b));
  }
  r.done();
  return h;
}

CallReply decode_reply(Reader& r) {
  CallReply c;
  uint8_t o = r.u8();
  if (o > uint8_t(Outcome::BadRequest)) throw ProtocolError("unknown outcome");
  c.outcome = Outcome(o);
  c.message = r.str(8192);
  const uint8_t cause = r.u8();
  if (cause > uint8_t(Cause::InputsNotMapped)) throw ProtocolError("unknown cause");
  c.failure.cause = Cause(cause);
  c.failure.cuda_code = int32_t(r.u32());
  c.failure.call = r.str(1024);
  c.failure.kernel = r.str(1024);
  c.failure.file = r.str(4096);
  c.failure.line = r.u32();
  c.context_lost = r.u8() != 0;
  size_t n = r.count(kMaxLaunchesRecorded, 36);
  for (size_t i = 0; i < n; ++i) {
    Launch l;
    l.kernel = r.str(512);
    for (auto& v : l.grid) v = r.u32();
    for (auto& v : l.block) v = r.u32();
    l.shared_bytes = r.u64();
    c.launches.push_back(std::move(l));
  }
  c.launches_total = r.u64();
  c.threads_left = r.u32();
  c.bytes_to_host = r.u64();
  c.refused_copy.call = r.str(64);
  c.refused_copy.direction = r.str(64);
  c.device_copy_bytes = r.u64();
  size_t m = r.count(64, 4);
  for (size_t i = 0; i < m; ++i) c.notes.push_back(r.str(4096));
  c.ms = r.f64();
  r.done();
  return c;
}

// ---- Frames ---------------------------------------------------------------------------------
static void send_all(int sock, const char* p, size_t n, int fd_to_send) {
  bool fd_pending = fd_to_send >= 0;
  while (n > 0) {
    msghdr msg{};
    iovec iov{const_cast<char*>(p), n};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))];
    if (fd_pending) {
      msg.msg_control = control;
      msg.msg_controllen = sizeof control;
      cmsghdr* c = CMSG_FIRSTHDR(&msg);
      c->cmsg_level = SOL_SOCKET;
      c->cmsg_type = SCM_RIGHTS;
      c->cmsg_len = CMSG_LEN(sizeof(int));
      std::memcpy(CMSG_DATA(c), &fd_to_send, sizeof(int));
    }
    ssize_t k = sendmsg(sock, &msg, MSG_NOSIGNAL);
    if (k < 0) {
      if (errno == EINTR) continue;
      throw ProtocolError(std::string("the other side is gone (") + std::strerror(errno) + ")");
    }
    fd_pending = false;
    p += k;
    n -= size_t(k);
  }
}

void send_frame(int sock, MessageType type, const std::string& payload, int fd_to_send) {
  std::string frame(12, '\0');
  uint32_t t = uint32_t(type);
  uint64_t len = payload.size();
  std::memcpy(frame.data(), &t, 4);
  std::memcpy(frame.data() + 4, &len, 8);
  frame += payload;
  send_all(sock, frame.data(), frame.size(), fd_to_send);
}

// Reads exactly n bytes; a descriptor arriving on the way is kept in fd.
static bool receive_all(int sock, char* p, size_t n, int& fd, int timeout_ms) {
  while (n > 0) {
    if (timeout_ms >= 0) {
      pollfd pfd{sock, POLLIN, 0};
      int k = poll(&pfd, 1, timeout_ms);
      if (k < 0 && errno == EINTR) continue;
      if (k == 0) return false;
    }
    msghdr msg{};
    iovec iov{p, n};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))];
    msg.msg_control = control;
    msg.msg_controllen = sizeof control;
    ssize_t k = recvmsg(sock, &msg, MSG_CMSG_CLOEXEC);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) throw ProtocolError(k == 0 ? "the other side closed the connection" : std::strerror(errno));
    for (cmsghdr* c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c))
      if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) {
        int got;
        std::memcpy(&got, CMSG_DATA(c), sizeof(int));
        if (fd >= 0) close(fd);
        fd = got;
      }
    p += k;
    n -= size_t(k);
  }
  return true;
}

bool receive_frame(int sock, Frame& out, int timeout_ms) {
  char header[12];
  int fd = -1;
  if (!receive_all(sock, header, sizeof header, fd, timeout_ms)) return false;
  uint32_t t;
  uint64_t len;
  std::memcpy(&t, header, 4);
  std::memcpy(&len, header + 4, 8);
  if (t < uint32_t(MessageType::Hello) || t > uint32_t(MessageType::DeviceInputs))
    throw ProtocolError("an unknown message type");
  if (len > kMaxFramePayload) throw ProtocolError("a message longer than any the protocol sends");
  out.type = MessageType(t);
  out.payload.assign(size_t(len), '\0');
  // The rest of a frame that has begun arrives promptly; a stall here counts against the timeout too.
  if (len && !receive_all(sock, out.payload.data(), size_t(len), fd, timeout_ms)) {
    if (fd >= 0) close(fd);
    throw ProtocolError("a message stopped half-way");
  }
  out.fd = fd;
  return true;
}

}  // namespace cudalab::wire
