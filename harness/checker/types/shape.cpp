#include "suite.h"
#include "checker/types/number_words.h"

namespace cudalab {

std::string Shape::text() const {
  if (dims.empty()) return "every check";  // a verdict over the whole run (the barriers and races checks)
  if (dims.size() == 1) return with_commas(dims[0]);
  if (dims.size() == 2) return with_commas(dims[0]) + " x " + with_commas(dims[1]);
  if (dims.size() == 3)
    return "M " + with_commas(dims[0]) + ", N " + with_commas(dims[1]) + ", K " + with_commas(dims[2]);
  return "?";
}

size_t Shape::elements() const {
  size_t e = 1;
  for (size_t d : dims) e *= d;
  return e;
}

const char* status_name(Status s) {
  switch (s) {
    case Status::Pass: return "pass";
    case Status::Fail: return "fail";
    case Status::Error: return "error";
    case Status::NotRun: return "not_run";
    case Status::Skipped: return "skipped";
  }
  return "?";
}

}  // namespace cudalab
