// The lab binary's entry point. Linked as an object (not from an archive) so that a lab
// file defining its own main fails to link instead of silently replacing the harness.
#include "report_channel.h"
#include "runner.h"

int main(int argc, char** argv) {
  cudalab::report_channel_init(argc, argv);
  return cudalab::run_lab(argc, argv);
}
