#include <cmath>

#include "json_writer.h"
#include "run_record.h"

namespace cudalab {

// A mismatch's value: counts as integers, infinities as "inf" / "-inf" (JSON has no infinity,
// and null, which stands for NaN, would tell a reader an expected +inf was NaN), NaN as null.
static void mismatch_value(JsonWriter& j, double v, bool counts) {
  if (counts && v >= 0 && v <= 4294967295.0)
    j.value(static_cast<unsigned long long>(v));
  else if (std::isinf(v))
    j.value(v > 0 ? "inf" : "-inf");
  else
    j.value(v);
}

static void write_device(JsonWriter& j, const wire::DeviceInfo& d) {
  j.key("device").begin_object();
  j.field("usable", d.usable);
  if (!d.usable) j.field("problem", d.problem);
  j.field("name", d.name);
  // The CPU backend is no GPU: it claims no compute capability, driver or runtime.
  if (d.cc_major > 0) j.field("compute_capability", std::to_string(d.cc_major) + "." + std::to_string(d.cc_minor));
  j.field("multiprocessors", d.multiprocessors)
      .field("l2_bytes", d.l2_bytes)
      .field("memory_bytes", d.memory_bytes)
      .field("driver_version", d.driver_version)
      .field("runtime_version", d.runtime_version);
  j.end_object();
}

static void write_check(JsonWriter& j, const CheckOutcome& o) {
  const CheckResult& r = o.result;
  j.begin_object().field("id", o.check.id).field("title", o.check.title).field("size", o.check.shape.text());
  // The same size as numbers, for programs: [n], [rows, cols] or [M, N, K] ("size" is for people).
  j.key("dims").begin_array();
  for (size_t d : o.check.shape.dims) j.value(d);
  j.end_array();
  // What a program reads: the status, its cause, and who can judge the check (the message is
  // for people and may be reworded).
  j.field("status", status_name(r.status)).field("cause", cause_name(r.cause));
  j.field("judged_by", o.check.judged_by_emulator ? "emulator" : "checker");
  j.field("message", r.message);
  j.key("notes").begin_array();
  for (const auto& n : r.notes) j.value(n);
  for (const auto& n : r.sanitizer) j.value(n);
  j.end_array();
  // The runner's own words, apart from the checker's (runner_words.h): absent when a check of
  // the run is hidden.
  if (!r.runner_words.empty()) {
    j.key("runner_words").begin_array();
    for (const auto& w : r.runner_words) j.value(w);
    j.end_array();
  }
  j.field("max_error", r.max_error).field("tolerance", r.tolerance);
  j.field("launches", r.launches);
  j.field("seconds", r.seconds);
  j.key("mismatches").begin_array();
  for (const auto& m : r.mismatches) {
    j.begin_object().field("index", m.index).field("where", m.where);
    mismatch_value(j.key("expected"), m.expected, m.counts);
    mismatch_value(j.key("got"), m.got, m.counts);
    j.field("owner", m.owner).end_object();
  }
  j.end_array().end_object();
}

static void write_timing(JsonWriter& j, const TimingReport& t) {
  j.key("timing").begin_object();
  j.field("status", t.status).field("note", t.note).field("size", t.size).field("seconds", t.seconds);
  j.key("ceiling").begin_object();
  j.field("name", t.ceiling_name).field("value", t.ceiling_value).field("unit", t.ceiling_unit);
  j.end_object();
  j.key("rows").begin_array();
  for (const auto& r : t.rows)
    j.begin_object()
        .field("name", r.name)
        .field("role", r.role)
        .field("ms", r.ms)
        .field("rate", r.rate)
        .field("unit", r.unit)
        .field("of_ceiling", r.of_ceiling)
        .field("note", r.note)
        .end_object();
  j.end_array().end_object();
}

std::string to_json(const RunRecord& rec) {
  JsonWriter j;
  j.begin_object()
      .field("cudalab", kReportSchema)
      .field("lab", rec.lab)
      .field("title", rec.title)
      .field("backend", rec.backend)
      .field("program", rec.program)
      .field("source", rec.source)
      .field("seed", static_cast<unsigned long long>(rec.seed));
  write_device(j, rec.device);
  if (!rec.tool.empty()) j.field("tool", rec.tool);
  j.key("checks").begin_array();
  for (const auto& o : rec.checks) write_check(j, o);
  j.end_array();
  j.key("summary")
      .begin_object()
      .field("total", rec.checks.size())
      .field("passed", rec.count(Status::Pass))
      .field("failed", rec.count(Status::Fail))
      .field("errors", rec.count(Status::Error))
      .field("not_run", rec.count(Status::NotRun))
      .field("skipped", rec.count(Status::Skipped))
      .end_object();
  write_timing(j, rec.timing);
  // PROFILE=1's section, when asked for: advice, read by no verdict (the grader shows its text).
  if (rec.profile.asked) {
    j.key("profile").begin_object();
    j.field("ran", rec.profile.ran).field("size", rec.profile.size).field("problem", rec.profile.problem);
    j.field("limiter", rec.profile.limiter).field("first_sentence", rec.profile.first_sentence);
    j.field("text", rec.profile.text);
    j.end_object();
  }
  j.end_object();
  return j.str();
}

}  // namespace cudalab
