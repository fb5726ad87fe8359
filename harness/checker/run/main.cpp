// The checker's entry point: trusted code only, never linked with a lab file. It starts the
// kernel runner (the lab file's process) itself and judges what comes back.
#include <sys/prctl.h>

#include "run_checks.h"
#include "checker/report/report_channel.h"

int main(int argc, char** argv) {
  cudalab::report_channel_init(argc, argv);
  // Not dumpable: a process of the same user (the runner, say) can neither ptrace this one nor
  // read its memory through /proc, where the verdict channel's secret lives.
  prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
  cudalab::CheckerSession session;
  return cudalab::run_lab(session, argc, argv);
}
