// Placeholder until the grading work lands: no channel, nothing sent.
#include "report_channel.h"
namespace cudalab {
void report_channel_init(int&, char**) {}
void report_channel_send(const std::string&) {}
}  // namespace cudalab
