#!/usr/bin/env bash
# make test-slurm: `make grade-slurm` against a real Slurm. Starts a one-node cluster entirely
# inside a temporary folder (its own munge key and munged socket, slurmctld and slurmd on free
# high ports, state, spool, pid and log files in the folder; nothing in /etc is changed),
# grades a small class of lab 1 fixtures on the CPU backend through a job array of two tasks
# and the final job, with task 1 made to die, and checks that
#   - the final job graded task 1's students again (a dead task costs nothing but time),
#   - the gradebook has one row per student, each with the same total, maximum and verdict as
#     a direct run of the grader on the same class,
#   - the class files are there (gradebook, summary, report), and the tasks' node-local work
#     folders are gone.
# Everything is stopped and removed at the end (CUDALAB_KEEP_SLURM_TEST=1 keeps the folder).
#
# Needs root (slurmd starts the jobs as their user) and Debian's slurmctld, slurmd,
# slurm-client and munge (tools/setup/deps.sh slurm installs them). Prints PASS/FAIL/SKIP lines for
# make test's count.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
repo=$(pwd -P)
export PATH="$PATH:/usr/sbin:/sbin"
t_start=$(date +%s)
say() { printf 'test-slurm: [%3ss] %s\n' "$(($(date +%s) - t_start))" "$*"; }
pass() { echo "PASS  slurm: $*"; }
failed=0
fail() { echo "FAIL  slurm: $*"; failed=1; }

if [ "$(id -u)" != 0 ]; then
  echo "SKIP  slurm: make grade-slurm on a one-node Slurm needs root (slurmd); run make test-slurm as root"
  exit 0
fi
if ! tools/setup/deps.sh slurm; then
  echo "FAIL  slurm: Slurm and munge are not installed and could not be (tools/setup/deps.sh slurm, above)"
  exit 1
fi

GRADER=$repo/build/grading/cudalab-grade
[ -x "$GRADER" ] || { echo "FAIL  slurm: no $GRADER (make grader)"; exit 1; }
if ! "$GRADER" --help 2>/dev/null | grep -q -- '--shard'; then
  echo "FAIL  slurm: $GRADER has no --shard option (make grader)"; exit 1
fi

T=$(mktemp -d /tmp/cudalab-slurm-test.XXXXXX) || exit 2
chmod 755 "$T"
pids=()
cleanup() {
  local s=$?
  if [ -n "${SLURM_CONF:-}" ] && [ -f "$SLURM_CONF" ]; then
    # Jobs first (through the controller, while it runs), then the daemons, by their own ids.
    scancel --user=root >/dev/null 2>&1
    for _ in $(seq 20); do [ -z "$(squeue -h 2>/dev/null)" ] && break; sleep 0.5; done
  fi
  for ((i = ${#pids[@]} - 1; i >= 0; i--)); do kill "${pids[i]}" 2>/dev/null; done
  for p in "${pids[@]}"; do
    for _ in $(seq 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$p" 2>/dev/null
    wait "$p" 2>/dev/null
  done
  if [ "${CUDALAB_KEEP_SLURM_TEST:-}" = 1 ]; then echo "test-slurm: kept $T"; else rm -rf "$T"; fi
  exit "$s"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

logs_tail() {
  for f in "$T"/log/*.log; do [ -f "$f" ] && { echo "---- last lines of $f"; tail -n 15 "$f"; }; done
}

# ---- munge: a key and a daemon of our own -------------------------------------------------
mkdir -p "$T/munge" "$T/log" "$T/state" "$T/spool" "$T/nodetmp"
chmod 700 "$T/munge" "$T/state" "$T/spool"
chmod 1777 "$T/nodetmp"
dd if=/dev/urandom of="$T/munge/munge.key" bs=1024 count=1 status=none
chmod 600 "$T/munge/munge.key"
sock=$T/munge/munge.socket
munged -F --force --socket="$sock" --key-file="$T/munge/munge.key" --pid-file="$T/munge/munged.pid" \
  --log-file="$T/log/munged.log" --seed-file="$T/munge/munged.seed" >"$T/log/munged.out" 2>&1 &
pids+=($!)
for _ in $(seq 50); do [ -S "$sock" ] && break; sleep 0.1; done
if ! munge -n -S "$sock" 2>/dev/null | unmunge -S "$sock" >/dev/null 2>&1; then
  cat "$T/log/munged.out"; logs_tail
  echo "FAIL  slurm: munged does not answer on $sock"; exit 1
fi
say "munged runs on $sock"

# ---- slurm.conf: one node (this machine), one partition -----------------------------------
read -r port_ctld port_d < <(python3 -c '
import socket
ss = [socket.socket() for _ in range(2)]
for s in ss: s.bind(("127.0.0.1", 0))
print(*[s.getsockname()[1] for s in ss])')
host=$(hostname -s)
cpus=$(nproc)
mem_mb=$(($(awk '/^MemTotal:/ {print $2}' /proc/meminfo) / 1024 * 9 / 10))
export SLURM_CONF=$T/slurm.conf
cat >"$SLURM_CONF" <<EOF
# A one-node cluster for tests/slurm/test_slurm.sh; everything lives in $T.
ClusterName=cudalabtest
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$port_ctld
SlurmdPort=$port_d
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$sock
StateSaveLocation=$T/state
SlurmdSpoolDir=$T/spool
SlurmctldPidFile=$T/slurmctld.pid
SlurmdPidFile=$T/slurmd.pid
SlurmctldLogFile=$T/log/slurmctld.log
SlurmdLogFile=$T/log/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SlurmdParameters=config_overrides
ReturnToService=2
KillWait=5
MinJobAge=600
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=$mem_mb State=UNKNOWN
PartitionName=test Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF

slurmctld -D -i >"$T/log/slurmctld.out" 2>&1 &
pids+=($!)
slurmd -D -N "$host" >"$T/log/slurmd.out" 2>&1 &
pids+=($!)
state=""
for _ in $(seq 120); do
  state=$(sinfo -h -N -o '%T' 2>/dev/null | head -n1)
  [ "$state" = idle ] && break
  for p in "${pids[@]}"; do kill -0 "$p" 2>/dev/null || break 2; done
  sleep 0.5
done
if [ "$state" != idle ]; then
  cat "$T"/log/*.out; logs_tail
  echo "FAIL  slurm: the node is not idle after 60 s (sinfo says '${state:-nothing}'; logs above)"; exit 1
fi
say "slurmctld (port $port_ctld) and slurmd (port $port_d) up: node $host idle with $cpus CPUs"
pass "a one-node Slurm starts in a temporary folder"

# ---- the class: six students from the grader's fixtures -----------------------------------
F=tests/grading/fixtures/lab1
S=$T/submissions
mkdir -p "$S/empty"
for f in correct wrong_answer compile_error out_of_bounds stub_as_handed_out; do cp -r "$F/$f" "$S/$f"; done
students=$(cd "$S" && ls | LC_ALL=C sort)
n_students=$(echo "$students" | wc -l)
# Shard K of 2: the students at positions K, K+2, ... of the name-sorted class.
shard() { echo "$students" | awk -v k="$1" '(NR - 1) % 2 == k'; }

# What the grader says without Slurm, for comparison (another uid range than the other tests').
# A generous check limit in both runs: under `make -j2 test` on a 2-core CI machine other
# suites run beside this one, and a check cut short by load would differ between the two.
say "grading the class directly (no Slurm) for comparison"
if "$GRADER" --lab 1 --submissions "$S" --grades "$T/direct" --work "$T/work-direct" --backend cpu \
     --uid-base 260000 --check-timeout 60 >"$T/log/direct.out" 2>&1; then
  pass "the grader grades the class directly"
else
  tail -n 20 "$T/log/direct.out"; fail "the direct run of the grader failed (above)"; exit 1
fi

# ---- through Slurm: 2 tasks, task 1 dies before grading -----------------------------------
say "make grade-slurm LAB=1 TASKS=2 BACKEND=cpu (task 1 made to die)"
G=$T/grades
if ! CUDALAB_SLURM_TEST_FAIL_TASK=1 TMPDIR=$T/nodetmp ${MAKE:-make} --no-print-directory -C "$repo" grade-slurm LAB=1 \
     SUBMISSIONS="$S" GRADES="$G" TASKS=2 BACKEND=cpu GRADE_ARGS="--uid-base 230000 --check-timeout 60" >"$T/log/submit.out" 2>&1; then
  cat "$T/log/submit.out"; logs_tail
  echo "FAIL  slurm: make grade-slurm failed (above)"; exit 1
fi
sed 's/^/    /' "$T/log/submit.out"
jobs_file=$G/lab1/slurm/jobs
array=$(sed -n 's/^array=//p' "$jobs_file" 2>/dev/null)
final=$(sed -n 's/^final=//p' "$jobs_file" 2>/dev/null)
[ -n "$array" ] && [ -n "$final" ] || { echo "FAIL  slurm: no job ids in $jobs_file"; exit 1; }
pass "make grade-slurm submits an array ($array) and a final job ($final)"

say "waiting for the jobs to leave squeue"
deadline=$(($(date +%s) + 900))
last=""
while :; do
  q=$(squeue -h -j "$array,$final" -o '%i %T' 2>/dev/null | tr '\n' ' ')
  [ -z "$q" ] && break
  [ "$q" != "$last" ] && say "squeue: $q" && last=$q
  if [ "$(date +%s)" -gt "$deadline" ]; then
    squeue; logs_tail; tail -n 20 "$G"/lab1/slurm/*.log
    echo "FAIL  slurm: the jobs did not finish within 15 minutes"; exit 1
  fi
  sleep 2
done
job_field() { scontrol show job "$1" 2>/dev/null | tr ' ' '\n' | sed -n "s/^$2=//p" | head -n1; }
say "jobs done: task 0 $(job_field "${array}_0" JobState), task 1 $(job_field "${array}_1" JobState), final $(job_field "$final" JobState) ($(job_field "$final" ExitCode))"

log0=$G/lab1/slurm/task-${array}_0.log
log1=$G/lab1/slurm/task-${array}_1.log
logf=$G/lab1/slurm/final-$final.log
for l in "$log0" "$log1" "$logf"; do [ -f "$l" ] || fail "no log $l"; done
graded_in() { sed -n 's/^\[[0-9]*\/[0-9]*\] \([^:]*\): .*/\1/p' "$1" 2>/dev/null | LC_ALL=C sort; }

if [ "$(job_field "$final" JobState)" = COMPLETED ] && [ "$(job_field "$final" ExitCode)" = 0:0 ]; then
  pass "the final job completes"
else
  sed 's/^/    /' "$logf"; fail "the final job $final: $(job_field "$final" JobState), exit $(job_field "$final" ExitCode) (its log above)"
fi
if [ "$(job_field "${array}_1" JobState)" = FAILED ] && grep -q 'made to die' "$log1" &&
   [ "$(graded_in "$log0")" = "$(shard 0)" ]; then
  pass "task 0 grades its share ($(shard 0 | tr '\n' ' ')), task 1 dies"
else
  sed 's/^/    /' "$log0" "$log1"
  fail "task 0 should grade $(shard 0 | tr '\n' ' ')and task 1 die; task 1: $(job_field "${array}_1" JobState) (logs above)"
fi
if [ "$(graded_in "$logf")" = "$(shard 1)" ]; then
  pass "the final job grades the dead task's students again ($(shard 1 | tr '\n' ' '))"
else
  sed 's/^/    /' "$logf"
  fail "the final job should grade exactly $(shard 1 | tr '\n' ' ')(the dead task's); it graded: $(graded_in "$logf" | tr '\n' ' ')"
fi

# ---- the class files ----------------------------------------------------------------------
book=$G/lab1/gradebook.csv
rows() {  # student,total,maximum,verdict of each row, sorted (the CSV's first four fields)
  tail -n +2 "$1" | cut -d, -f1-4 | LC_ALL=C sort
}
if [ -f "$book" ] && [ "$(rows "$book" | wc -l)" -eq "$n_students" ] &&
   [ "$(rows "$book" | cut -d, -f1)" = "$students" ]; then
  pass "the gradebook has one row per student ($n_students)"
else
  [ -f "$book" ] && cat "$book"
  fail "the gradebook $book should have one row for each of: $(echo $students)"
fi
if [ -f "$book" ] && [ "$(rows "$book")" = "$(rows "$T/direct/lab1/gradebook.csv")" ]; then
  pass "every student's total, maximum and verdict are the direct run's"
  rows "$book" | sed 's/^/    /'
else
  echo "    through Slurm:"; rows "$book" 2>/dev/null | sed 's/^/      /'
  echo "    directly:"; rows "$T/direct/lab1/gradebook.csv" | sed 's/^/      /'
  fail "the gradebook through Slurm differs from the direct run's (above)"
fi
if [ -f "$G/lab1/summary.json" ] && [ -f "$G/lab1/report.html" ] &&
   [ "$(ls "$G"/lab1/students/*/result.json 2>/dev/null | wc -l)" -eq "$n_students" ]; then
  pass "summary.json, report.html and a result.json per student are written"
else
  ls -l "$G/lab1"
  fail "summary.json, report.html or some result.json missing in $G/lab1"
fi
left=$(find "$T/nodetmp" -mindepth 1 -maxdepth 1 -name 'cudalab-*' | wc -l)
if [ "$left" -eq 0 ]; then pass "the jobs removed their node-local work folders"; else
  fail "$left work folder(s) of the jobs left in the node's TMPDIR"; fi

say "done in $(($(date +%s) - t_start)) s"
exit $failed
