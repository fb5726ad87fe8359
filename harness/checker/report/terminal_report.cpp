#include "terminal_report.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "checker/judging/diagnose.h"

namespace cudalab {

namespace {
const char* kGreen = "\033[32m";
const char* kRed = "\033[31m";
const char* kYellow = "\033[33m";
const char* kDim = "\033[2m";
const char* kBold = "\033[1m";

std::string pad(std::string s, size_t width) {
  if (s.size() < width) s.append(width - s.size(), ' ');
  return s;
}
std::string lpad(std::string s, size_t width) {
  if (s.size() < width) s.insert(0, width - s.size(), ' ');
  return s;
}
std::string fixed(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}
std::string number3(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.3g", v);
  return buf;
}
std::string number(double v) {
  if (std::isnan(v)) return "NaN";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}
// A mismatch's value: counts as integers (a bin holding 0xFFFFFFFF is the harness's starting
// value, said so), floats with 9 digits, the float poison as never written.
std::string shown(const Mismatch& m, double v) {
  if (m.counts && v >= 0 && v <= 4294967295.0) {
    const std::string s = with_commas(size_t(v));
    return v == 4294967295.0 ? s + " (0xFFFFFFFF)" : s;
  }
  return is_poison(float(v)) ? "NaN (never written)" : number(v);
}
}  // namespace

std::string format_ms(double ms) {
  if (ms >= 100) return fixed(ms, 0) + " ms";
  if (ms >= 10) return fixed(ms, 1) + " ms";
  if (ms >= 1) return fixed(ms, 2) + " ms";
  if (ms >= 0.1) return fixed(ms, 3) + " ms";
  return fixed(ms, 4) + " ms";
}

TerminalReport::TerminalReport(std::FILE* out, size_t id_width, size_t size_width)
    : out_(out), id_width_(id_width), size_width_(size_width) {
  colour_ = isatty(fileno(out)) && !std::getenv("NO_COLOR");
}

std::string TerminalReport::paint(const std::string& text, const char* colour) const {
  return colour_ ? std::string(colour) + text + "\033[0m" : text;
}

void TerminalReport::line(const std::string& text) {
  std::fprintf(out_, "%s\n", text.c_str());
  std::fflush(out_);
}

void TerminalReport::header(const RunRecord& rec) {
  line(paint("cudalab lab " + std::to_string(rec.lab) + ": " + rec.title, kBold));
  if (!rec.source.empty()) line("  source   " + rec.source);
  const wire::DeviceInfo& d = rec.device;
  std::string backend = "  backend  " + rec.backend;
  if (d.usable) {
    backend += ": " + d.name;
    if (rec.backend == "cuda")
      backend += " (sm_" + std::to_string(d.cc_major) + std::to_string(d.cc_minor) + ", " +
                 std::to_string(d.multiprocessors) + " SMs, " + std::to_string(d.l2_bytes >> 20) + " MB L2), driver " +
                 d.driver_version + ", runtime " + d.runtime_version;
  }
  line(backend);
  if (!rec.tool.empty()) line("  checker  " + rec.tool + ": correctness only, not timed");
  line("  seed     " + std::to_string(rec.seed) + "   (replay this run with --seed " + std::to_string(rec.seed) + ")");
  line("");
  line(paint("  " + pad("check", id_width_) + "  " + pad("size", size_width_) + "result", kDim));
}

void TerminalReport::check(const CheckOutcome& o) {
  const CheckResult& r = o.result;
  std::string tag;
  switch (r.status) {
    case Status::Pass: tag = paint("PASS ", kGreen); break;
    case Status::Fail: tag = paint("FAIL ", kRed); break;
    case Status::Error: tag = paint("ERROR", kRed); break;
    case Status::NotRun: tag = paint("NOT RUN", kYellow); break;
    case Status::Skipped: tag = paint("SKIP ", kDim); break;
  }
  line("  " + pad(o.check.id, id_width_) + "  " + pad(o.check.shape.text(), size_width_) + tag + "  " + r.message);
  if (r.status == Status::Pass) {
    for (const auto& n : r.sanitizer) line("      -> " + n);
    return;
  }
  if (r.status == Status::Fail || r.status == Status::Error) line(paint("      " + o.check.title, kDim));
  for (const auto& m : r.mismatches) {
    std::string l =
        "      " + pad(m.where, 16) + " expected " + pad(shown(m, m.expected), 14) + " got " + pad(shown(m, m.got), 20);
    if (!m.owner.empty()) l += " " + m.owner;
    line(l);
  }
  for (const auto& n : r.notes) line("      -> " + n);
  for (const auto& n : r.sanitizer) line("      -> " + n);
  for (const auto& w : r.runner_words) line(paint("      your code's process said: " + w, kDim));
}

void TerminalReport::summary(const RunRecord& rec) {
  size_t total = rec.checks.size(), pass = rec.count(Status::Pass);
  size_t fail = rec.count(Status::Fail), err = rec.count(Status::Error);
  size_t not_run = rec.count(Status::NotRun), skipped = rec.count(Status::Skipped);
  std::string s = "  " + std::to_string(pass) + " of " + std::to_string(total) + " checks passed";
  if (fail) s += ", " + std::to_string(fail) + " failed";
  if (err) s += ", " + std::to_string(err) + " stopped by an error";
  if (not_run) s += ", " + std::to_string(not_run) + " not run";
  if (skipped) s += ", " + std::to_string(skipped) + " skipped";
  line("");
  line(paint(s, pass + skipped == total ? kGreen : kRed));
}

void TerminalReport::timing(const TimingReport& t) {
  line("");
  if (t.status != "measured") {
    line(paint("  timing: " + t.note, kDim));
    return;
  }
  line(paint("  timing", kBold) + "  " + t.size + "  (" + t.note + ")");
  const TimingRow* mine = t.find("student");
  size_t width = 20;
  for (const auto& r : t.rows) width = std::max(width, r.name.size() + 4);
  line(
      paint("  " + pad("", width) + lpad("time", 11) + lpad("rate", 16) + lpad("of ceiling", 12) + lpad("yours is", 15),
            kDim));
  for (const auto& r : t.rows) {
    std::string rate = r.rate <= 0 ? ""
                                   : (r.rate >= 100 ? fixed(r.rate, 0)
                                      : r.rate >= 1 ? fixed(r.rate, 2)
                                                    : number3(r.rate)) +
                                         " " + r.unit;
    std::string frac = r.of_ceiling > 0 ? fixed(100 * r.of_ceiling, 1) + "%" : "";
    std::string speed;
    if (mine && &r != mine && r.ms > 0 && mine->ms > 0 && r.role != "end_to_end") {
      double ratio = r.ms / mine->ms;  // > 1: the student's code is faster than this row
      speed = ratio >= 1 ? fixed(ratio, ratio >= 10 ? 0 : 2) + "x faster"
                         : fixed(1 / ratio, 1 / ratio >= 10 ? 0 : 2) + "x slower";
    }
    std::string name = r.name + (r.note.empty() ? "" : " *");
    line("  " + pad(name, width) + lpad(r.ms > 0 ? format_ms(r.ms) : "", 11) + lpad(rate, 16) + lpad(frac, 12) +
         lpad(speed, 15));
  }
  for (const auto& r : t.rows)
    if (!r.note.empty()) line(paint("  * " + r.name + ": " + r.note, kDim));
  if (t.ceiling_value > 0)
    line(paint("  ceiling: " + t.ceiling_name + " = " + fixed(t.ceiling_value, t.ceiling_value >= 100 ? 0 : 1) + " " +
                   t.ceiling_unit + ", measured in this run",
               kDim));
}

}  // namespace cudalab
