#include <doctest/doctest.h>

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <string>
#include <thread>

#include "checker/timing/gpu_gate.h"

using namespace cudalab;

TEST_CASE("the GPU gate lets one timing run through at a time, and the next one in once it is released") {
  char dir[] = "/tmp/cudalab-gate-XXXXXX";
  REQUIRE(mkdtemp(dir) != nullptr);
  const std::string path = std::string(dir) + "/gpu0.gate";
  std::atomic<bool> second_in{false};
  std::thread second;
  {
    GpuGate first(path);
    second = std::thread([&] {
      GpuGate mine(path);  // its own open file: flock makes it wait for the first
      second_in = true;
    });
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    CHECK_FALSE(second_in.load());  // still measuring: the second waits
  }
  second.join();
  CHECK(second_in.load());
  unlink(path.c_str());
  rmdir(dir);
}

TEST_CASE("no gate asked for: nothing to wait on; a gate that cannot be made names its file") {
  GpuGate none("");
  CHECK_THROWS_WITH(GpuGate("/nonexistent-dir/gpu0.gate"), doctest::Contains("/nonexistent-dir/gpu0.gate"));
}

TEST_CASE("a measured span waits out every run that is starting up, and starting runs never wait for each other") {
  char dir[] = "/tmp/cudalab-gate-XXXXXX";
  REQUIRE(mkdtemp(dir) != nullptr);
  const std::string gate = std::string(dir) + "/gpu0.gate";
  std::atomic<bool> measuring{false};
  std::thread measurer;
  {
    GpuStartup first(gate);
    GpuStartup second(gate);  // shared: two runs may start at once
    measurer = std::thread([&] {
      const MeasuredSpan span(gate);  // its own open file: flock makes it wait for both start-ups
      measuring = true;
    });
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    CHECK_FALSE(measuring.load());
    first.release();
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    CHECK_FALSE(measuring.load());  // one start-up is still under way
  }
  measurer.join();
  CHECK(measuring.load());
  const MeasuredSpan no_gate("");  // nothing to wait on
  unlink((gate + ".start").c_str());
  rmdir(dir);
}
