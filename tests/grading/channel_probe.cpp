// A stand-in lab binary for the channel test: its static initializer looks for the grader's
// secret the way a submission would (environment, /proc/self/environ), then main sends
// what it found through the channel.
#include <cstdio>
#include <cstdlib>
#include <string>

#include "checker/report/report_channel.h"

static std::string seen_by_initializer() {
  std::string seen;
  if (std::getenv("CUDALAB_VERDICT_CHANNEL")) seen += "getenv ";
  if (FILE* f = std::fopen("/proc/self/environ", "rb")) {
    std::string env;
    char buf[4096];
    size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) env.append(buf, n);
    std::fclose(f);
    if (env.find("CUDALAB_VERDICT_CHANNEL") != std::string::npos) seen += "environ ";
  }
  return seen;
}
static const std::string g_seen = seen_by_initializer();

int main(int argc, char** argv) {
  cudalab::report_channel_init(argc, argv);
  std::printf("probe ran\n");
  cudalab::report_channel_send("{\"seen\":\"" + g_seen + "\"}");
  return 0;
}
