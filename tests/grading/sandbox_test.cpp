// The sandbox and the verdict channel, on real processes.
#include <doctest/doctest.h>

#include <signal.h>
#include <unistd.h>

#include "sandbox.h"
#include "util.h"
#include "verdict_frame.h"

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

TEST_CASE("sandbox: as root, runs as another user with no network") {
  if (geteuid() != 0) {
    MESSAGE("skipped: only root can run a program as another user (this test runs as uid " << geteuid() << ")");
    return;
  }
  RunSpec s = shell("id -u; grep -c : /proc/net/dev");
  s.run_as = lookup_user("nobody");
  s.new_namespaces = namespaces_available();
  if (!s.new_namespaces) MESSAGE("namespaces are not available here: the no-network part is skipped");
  RunResult r = run_sandboxed(s);
  CHECK(r.output.rfind(std::to_string(s.run_as->uid) + "\n", 0) == 0);
  if (s.new_namespaces) CHECK(r.output.find("\n1\n") != std::string::npos);  // loopback only, and it is down
}

TEST_CASE("sandbox: in its own namespaces, a program's own signals and exit status come through") {
  if (!namespaces_available()) {
    MESSAGE("skipped: needs root and namespaces (this test runs as uid " << geteuid() << ")");
    return;
  }
  auto in_namespaces = [](const std::string& script) {
    RunSpec s = shell(script);
    s.new_namespaces = true;
    s.run_as = lookup_user("nobody");
    return run_sandboxed(s);
  };
  // abort() from C (Perl's POSIX::abort is the C library's): the first thing a failed
  // assert or std::terminate does. The program must not be the namespace's init, or the
  // kernel drops the SIGABRT and it dies of something else.
  RunResult aborted = in_namespaces("exec perl -MPOSIX -e 'POSIX::abort()'");
  CHECK(aborted.term_signal == SIGABRT);
  CHECK(aborted.describe().find("signal 6") != std::string::npos);
  RunResult killed_self = in_namespaces("kill -TERM $$; sleep 5");
  CHECK(killed_self.term_signal == SIGTERM);
  CHECK_FALSE(killed_self.timed_out);
  RunResult status = in_namespaces("echo $$; (sleep 5; exit 0) & exit 7");  // the orphan is not waited for
  CHECK(status.exit_code == 7);
  CHECK(status.output == "2\n");  // init is 1
  CHECK(status.seconds < 3);
  RunSpec nothing;
  nothing.argv = {"/no/such/program"};
  nothing.cwd = "/tmp";
  nothing.new_namespaces = true;
  RunResult missing = run_sandboxed(nothing);  // init passes the program's start error on
  CHECK_FALSE(missing.started);
  CHECK(missing.start_error.find("cannot start the program") != std::string::npos);
}

TEST_CASE("sandbox: hidden folders are empty and read-only for the program, and untouched outside") {
  if (!namespaces_available()) {
    MESSAGE("skipped: needs root and namespaces (this test runs as uid " << geteuid() << ")");
    return;
  }
  const fs::path dir = "/tmp/cudalab-grading-hidden-" + random_hex(4);
  fs::create_directories(dir);
  write_file_atomic(dir / "answer.cu", "the reference\n");
  RunSpec s = shell("ls -A " + dir.string() + " | wc -l; (echo x > " + dir.string() + "/answer.cu) 2>/dev/null || echo refused");
  s.new_namespaces = true;
  s.hidden = {dir, "/no/such/folder"};  // one that cannot be covered does not stop the run
  RunResult r = run_sandboxed(s);
  CHECK(r.exit_code == 0);
  CHECK(r.output == "0\nrefused\n");
  CHECK(*read_file(dir / "answer.cu") == "the reference\n");
  fs::remove_all(dir);
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
