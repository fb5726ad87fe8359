// A check's large inputs lent as device memory (wire/protocol.h, FillKind::Device and the
// DeviceInputs frame): the request says where each lent buffer starts, its slot carries no
// elements (they never cross host memory), and a fill kind past the last one is refused.
#include <doctest/doctest.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include <string>

#include "wire/protocol.h"

using namespace cudalab;

namespace {

wire::CallRequest lent_input_call() {
  wire::CallRequest q;
  q.lab = 3;
  wire::BufferSpec in;
  in.name = "d_in";
  in.count = uint64_t(1) << 30;
  in.fill.kind = wire::FillKind::Device;
  in.device_offset = 256;
  in.return_data = false;
  wire::BufferSpec sum;
  sum.name = "d_sum";
  sum.count = 1;
  sum.slot_offset = wire::slot_bytes(in);
  q.buffers = {in, sum};
  q.shm_bytes = wire::slot_bytes(in) + wire::slot_bytes(sum);
  return q;
}

std::string encoded(const wire::CallRequest& q) {
  wire::Writer w;
  wire::encode(w, q);
  return w.bytes();
}

}  // namespace

TEST_CASE("a lent input round-trips with its offset, and its slot holds only its guards") {
  const wire::CallRequest q = lent_input_call();
  CHECK(wire::slot_bytes(q.buffers[0]) == wire::kGuardElements * 4);  // 4 GiB of input, 16 KiB of slot
  const std::string bytes = encoded(q);
  wire::Reader r(bytes);
  const wire::CallRequest back = wire::decode_request(r);
  REQUIRE(back.buffers.size() == 2);
  CHECK(back.buffers[0].fill.kind == wire::FillKind::Device);
  CHECK(back.buffers[0].device_offset == 256);
  CHECK(back.buffers[1].fill.kind == wire::FillKind::Poison);
}

TEST_CASE("a fill kind past Device is refused") {
  wire::CallRequest q = lent_input_call();
  q.buffers[0].fill.kind = wire::FillKind(uint8_t(wire::FillKind::Device) + 1);
  const std::string bytes = encoded(q);
  wire::Reader r(bytes);
  CHECK_THROWS_AS(wire::decode_request(r), wire::ProtocolError);
}

TEST_CASE("a runner's hello says whether it maps lent inputs") {
  wire::Hello h;
  h.lab = 3;
  h.backend = "cuda";
  h.maps_device_inputs = true;
  wire::Writer w;
  wire::encode(w, h);
  wire::Reader r(w.bytes());
  CHECK(wire::decode_hello(r).maps_device_inputs);
  h.maps_device_inputs = false;
  wire::Writer w2;
  wire::encode(w2, h);
  wire::Reader r2(w2.bytes());
  CHECK_FALSE(wire::decode_hello(r2).maps_device_inputs);
}

TEST_CASE("a reply naming inputs that could not be mapped round-trips") {
  wire::CallReply c;
  c.outcome = wire::Outcome::BadRequest;
  c.failure.cause = wire::Cause::InputsNotMapped;
  wire::Writer w;
  wire::encode(w, c);
  wire::Reader r(w.bytes());
  CHECK(wire::decode_reply(r).failure.cause == wire::Cause::InputsNotMapped);
}

TEST_CASE("a DeviceInputs frame arrives with its descriptor, and the Call after it with its own") {
  int sv[2];
  REQUIRE(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
  const int lent = memfd_create("lent", 0), shm = memfd_create("shm", 0);
  REQUIRE((lent >= 0 && shm >= 0));
  wire::Writer size;
  size.u64(2 << 20);
  wire::send_frame(sv[0], wire::MessageType::DeviceInputs, size.bytes(), lent);
  wire::send_frame(sv[0], wire::MessageType::Call, encoded(lent_input_call()), shm);
  wire::Frame first, second;
  REQUIRE(wire::receive_frame(sv[1], first, 1000));
  REQUIRE(wire::receive_frame(sv[1], second, 1000));
  CHECK(first.type == wire::MessageType::DeviceInputs);
  CHECK(second.type == wire::MessageType::Call);
  CHECK(first.fd >= 0);
  CHECK(second.fd >= 0);
  CHECK(first.fd != second.fd);
  for (int fd : {first.fd, second.fd, lent, shm, sv[0], sv[1]}) close(fd);
}
