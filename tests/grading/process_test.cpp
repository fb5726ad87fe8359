// The grader's process runner and the verdict channel, on real processes (the jail: jail_test.cpp).
#include <doctest/doctest.h>

#include <signal.h>
#include <unistd.h>

#include "grader/process.h"
#include "grader/verdict_frame.h"
#include "safe_io/files.h"
#include "safe_io/secrets.h"

using namespace grading;

namespace {
RunSpec shell(const std::string& script, double timeout = 10) {
  RunSpec s;
  s.argv = {"/bin/sh", "-c", script};
  s.env = {"PATH=/usr/bin:/bin"};
  s.cwd = "/tmp";
  s.limits.wall_seconds = timeout;
  return s;
}
}  // namespace

TEST_CASE("sandbox: exit status, signals, and an exit code that means nothing to the grader") {
  RunResult ok = run_sandboxed(shell("echo hello; exit 3"));
  CHECK(ok.started);
  CHECK(ok.exit_code == 3);
  CHECK(ok.output == "hello\n");
  RunResult seg = run_sandboxed(shell("kill -SEGV $$"));
  CHECK(seg.term_signal == SIGSEGV);
  CHECK(seg.describe().find("signal 11") != std::string::npos);
  RunSpec nothing;
  nothing.argv = {"/no/such/program"};
  nothing.cwd = "/tmp";
  RunResult missing = run_sandboxed(nothing);
  CHECK_FALSE(missing.started);
}

TEST_CASE("sandbox: a timeout kills the whole process group, background children included") {
  const std::string marker = "/tmp/cudalab-grading-orphan-" + random_hex(4);
  RunResult r = run_sandboxed(shell("(sleep 3; touch " + marker + ") & sleep 100", 1));
  CHECK(r.timed_out);
  CHECK(r.seconds < 3);
  sleep(4);
  CHECK_FALSE(fs::exists(marker));  // the background child died with its group
}

TEST_CASE("sandbox: output beyond the limit is counted and dropped, with a note") {
  RunSpec s = shell("head -c 50000000 /dev/zero | tr '\\0' x");
  s.limits.output_keep_bytes = 1000;
  RunResult r = run_sandboxed(s);
  CHECK(r.exit_code == 0);
  CHECK(r.output.size() == 1000);
  CHECK(r.output_bytes == 50000000);
  CHECK(r.output_with_note().find("output truncated") != std::string::npos);
}

TEST_CASE("sandbox: file size limit") {
  RunSpec s = shell("f=/tmp/cudalab-grading-big-$$; head -c 2000000 /dev/zero > $f; wc -c < $f; rm -f $f");
  s.limits.file_bytes = 100000;
  RunResult r = run_sandboxed(s);
  CHECK(r.output.find("\n100000\n") != std::string::npos);  // the writer was stopped at the limit
}

TEST_CASE("channel: the secret is gone before static initializers run, and the report arrives") {
  RunSpec s;
  s.argv = {std::string(CUDALAB_REPO) + "/build/grading/channel_probe"};
  s.env = {"PATH=/usr/bin:/bin"};
  s.cwd = "/tmp";
  s.verdict_channel = true;
  RunResult r = run_sandboxed(s);
  REQUIRE(r.exit_code == 0);
  CHECK(r.output == "probe ran\n");  // nothing of the channel on stdout
  Verdict v = find_verdict(r.channel, r.secret);
  REQUIRE(v.ok);
  CHECK(v.json == "{\"seen\":\"\"}");  // neither getenv nor /proc/self/environ showed it
}
