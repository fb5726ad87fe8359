#include <doctest/doctest.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "checker/report/json_writer.h"
#include "checker/report/run_record.h"

using namespace cudalab;

TEST_CASE("the writer's output parses, with escapes and nested containers") {
  JsonWriter j;
  j.begin_object().field("text", std::string("quote \" backslash \\ newline \n tab \t bell \a"));
  j.key("list").begin_array().value(1).value(2.5).value(true).null().end_array();
  j.field("nan", std::nan("")).end_object();
  auto parsed = nlohmann::json::parse(j.str());
  CHECK(parsed["text"] == "quote \" backslash \\ newline \n tab \t bell \a");
  CHECK(parsed["list"].size() == 4);
  CHECK(parsed["list"][1] == 2.5);
  CHECK(parsed["nan"].is_null());
}

TEST_CASE("a run record becomes the documented JSON report") {
  RunRecord rec;
  rec.lab = 3;
  rec.title = "multi-level sum";
  rec.backend = "cuda";
  rec.seed = 12345;
  rec.device.usable = true;
  rec.device.name = "Test GPU";
  rec.device.cc_major = 9;
  CheckOutcome pass{{"one", "n = 1", Shape{{1}}}, {}};
  pass.result.status = Status::Pass;
  CheckOutcome fail{{"big", "n = 2^20", Shape{{1 << 20}}}, {}};
  fail.result.status = Status::Fail;
  fail.result.cause = Cause::WrongValues;
  fail.result.message = "sum is 5";
  fail.result.mismatches.push_back({0, "sum", 6, 5, ""});
  rec.checks = {pass, fail};
  rec.timing.status = "measured";
  rec.timing.rows.push_back({"your kernel", "student", 0.5, 2000, "GB/s", 0.66, ""});

  auto j = nlohmann::json::parse(to_json(rec));
  CHECK(j["cudalab"] == 2);
  CHECK(j["lab"] == 3);
  CHECK(j["seed"] == 12345);
  CHECK(j["device"]["compute_capability"] == "9.0");
  CHECK(j["checks"].size() == 2);
  CHECK(j["checks"][1]["status"] == "fail");
  CHECK(j["checks"][0]["cause"] == "none");
  CHECK(j["checks"][1]["cause"] == "wrong_values");
  CHECK(j["checks"][1]["judged_by"] == "checker");
  CHECK(j["checks"][1]["size"] == "1,048,576");
  CHECK(j["checks"][1]["dims"] == nlohmann::json::array({1048576}));
  CHECK(j["checks"][1]["mismatches"][0]["got"] == 5);
  CHECK(j["summary"]["passed"] == 1);
  CHECK(j["summary"]["failed"] == 1);
  CHECK(j["timing"]["rows"][0]["role"] == "student");
}
