// A timed batch's hand-back (wire/protocol.h): which calls' outputs come back and which elements
// of their sampled outputs, sent after "done". The runner trusts none of it unchecked: an index
// past its buffer, a list of the wrong length or a hand-back for another batch is a ProtocolError.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "wire/protocol.h"

using namespace cudalab;

namespace {

// A call as lab 4's timing makes it: an input, a sampled output of `count` floats, `samples` drawn.
wire::CallRequest transpose_call(uint64_t count, uint32_t samples) {
  wire::CallRequest q;
  q.lab = 4;
  wire::BufferSpec in;
  in.name = "the input matrix";
  in.count = count;
  in.fill.kind = wire::FillKind::Random;
  in.return_data = false;
  wire::BufferSpec out;
  out.name = "d_out";
  out.count = count;
  out.samples = samples;
  q.buffers = {in, out};
  q.shm_bytes = wire::slot_bytes(in) + wire::slot_bytes(out);
  q.buffers[1].slot_offset = wire::slot_bytes(in);
  return q;
}

std::string encoded(const wire::HandBack& h) {
  wire::Writer w;
  wire::encode(w, h);
  return w.bytes();
}

wire::HandBack decoded(const std::string& bytes, const std::vector<wire::CallRequest>& batch) {
  wire::Reader r(bytes);
  return wire::decode_hand_back(r, batch);
}

}  // namespace

TEST_CASE("a hand-back with drawn indices round-trips, and only kept calls carry indices") {
  const std::vector<wire::CallRequest> batch = {transpose_call(1000, 3), transpose_call(1000, 3),
                                                transpose_call(1000, 3)};
  wire::HandBack h;
  h.calls = {1, 0, 1};
  h.indices = {{{999, 0, 512}}, {}, {{999, 998, 7}}};
  const wire::HandBack back = decoded(encoded(h), batch);
  CHECK(back.calls == h.calls);
  REQUIRE(back.indices.size() == 3);
  CHECK(back.indices[0] == h.indices[0]);
  CHECK(back.indices[1].empty());
  CHECK(back.indices[2] == h.indices[2]);
}

TEST_CASE("a hand-back is refused when an index lies past its buffer") {
  const std::vector<wire::CallRequest> batch = {transpose_call(1000, 2)};
  wire::HandBack h;
  h.calls = {1};
  h.indices = {{{999, 1000}}};
  CHECK_THROWS_AS(decoded(encoded(h), batch), wire::ProtocolError);
  h.indices = {{{999, 999}}};
  CHECK_NOTHROW(decoded(encoded(h), batch));
}

TEST_CASE("a hand-back that does not fit its batch is refused") {
  const std::vector<wire::CallRequest> batch = {transpose_call(1000, 2), transpose_call(1000, 2)};
  wire::HandBack h;
  h.calls = {1, 0};
  h.indices = {{{999, 3, 4}}, {}};  // three indices for two samples
  CHECK_THROWS_AS(decoded(encoded(h), batch), wire::ProtocolError);
  h.indices = {{{999}}, {}};  // one
  CHECK_THROWS_AS(decoded(encoded(h), batch), wire::ProtocolError);
  h.indices = {{{999, 3}}, {}};
  CHECK_NOTHROW(decoded(encoded(h), batch));
  h.calls = {1};  // a call short
  h.indices = {{{999, 3}}};
  CHECK_THROWS_AS(decoded(encoded(h), batch), wire::ProtocolError);
  h.calls = {2, 0};  // neither 0 nor 1
  h.indices = {{{999, 3}}, {}};
  CHECK_THROWS_AS(decoded(encoded(h), batch), wire::ProtocolError);
  std::string trailing = encoded(wire::HandBack{{0, 0}, {{}, {}}}) + "x";
  CHECK_THROWS_AS(decoded(trailing, batch), wire::ProtocolError);
}

TEST_CASE("a sampled output's slot holds its drawn elements only, and the request carries the count") {
  const wire::CallRequest q = transpose_call(100000000, 4096);
  CHECK(wire::slot_bytes(q.buffers[1]) == 4096 * 4 + wire::kGuardElements * 4);
  CHECK(wire::slot_data_bytes(q.buffers[1]) == 4096 * 4);
  wire::Writer w;
  wire::encode(w, q);
  wire::Reader r(w.bytes());
  const wire::CallRequest back = wire::decode_request(r);
  CHECK(back.buffers[1].samples == 4096);
  CHECK(back.buffers[0].samples == 0);
}

TEST_CASE("only a poisoned output may be sampled, and never with more samples than elements") {
  auto round_trip = [](const wire::CallRequest& q) {
    wire::Writer w;
    wire::encode(w, q);
    wire::Reader r(w.bytes());
    wire::decode_request(r);
  };
  wire::CallRequest input_sampled = transpose_call(1000, 0);
  input_sampled.buffers[0].samples = 10;
  CHECK_THROWS_AS(round_trip(input_sampled), wire::ProtocolError);
  CHECK_THROWS_AS(round_trip(transpose_call(1000, 1001)), wire::ProtocolError);
  CHECK_THROWS_AS(round_trip(transpose_call(1u << 20, wire::kMaxSamples + 1)), wire::ProtocolError);
  CHECK_NOTHROW(round_trip(transpose_call(1000, 1000)));
}
