// Where a timing run's time goes (--timing-trace): a line on stderr per step, stamped with the
// steady clock's seconds, the same in every process ("timing trace: 5021.412 s  batch of 155: ..."),
// so that an instructor or a developer can see what a grading's timing phase spends its seconds
// on. Off unless asked for; it never changes what is measured.
#pragma once

namespace cudalab {

void set_timing_trace(bool on);
// printf-style; a no-op unless set_timing_trace(true).
void timing_trace(const char* format, ...) __attribute__((format(printf, 1, 2)));

}  // namespace cudalab
