#!/usr/bin/env bash
# Grades a class on a Slurm cluster (grading/README.md, "Grading on a Slurm cluster"):
#
#   grading/slurm/grade_slurm.sh --lab 3 --submissions DIR [--grades DIR] [--tasks 8]
#                                [--backend auto|cuda|cpu] [--sbatch-args "..."] [--grade-args "..."]
#   make grade-slurm LAB=3 SUBMISSIONS=DIR [GRADES=grades] [TASKS=8] [BACKEND=cuda|cpu]
#                    [SBATCH_ARGS="--partition=gpu ..."] [GRADE_ARGS=...]
#
# Run it on a login node, from a checkout on a file system the compute nodes share. It builds
# once, here, everything the tasks run (the grader, the jail, the lab's checker and the kernel
# runner's harness), so that the make calls the grader does on the nodes find nothing to do
# and no two tasks ever compile into the same build folder. Then it submits
#
#   1. a job array of TASKS tasks: task K runs `cudalab-grade --shard K/TASKS`, the students
#      at positions K, K+TASKS, ... of the name-sorted class, in a work folder of its own on
#      its node (removed at its end), and writes their results into GRADES/labN/students/;
#   2. a final job, after the whole array (afterany: whether the tasks succeeded or died),
#      that runs the grader without --shard: it grades whoever has no result yet (a task that
#      died, a node that failed) and writes the class files (gradebook, summary, report).
#
# Each task times the reference solution on its own node before its students, so a speed
# ratio always compares a student with the reference on the same GPU. Logs, the job script
# and the job ids go to GRADES/labN/slurm/.
#
# Options (and the make variables that set them):
#   --lab N              LAB          the lab
#   --submissions DIR    SUBMISSIONS  one folder per student (as for make grade)
#   --grades DIR         GRADES       results go to DIR/labN/ (default: grades)
#   --tasks N            TASKS        array tasks (default 8)
#   --backend B          BACKEND      cuda: every job asks for one GPU (--gres=gpu:1) and must
#                                     get it; cpu: the CPU backend; auto (default): a GPU where
#                                     the job was given one (ask through --sbatch-args)
#   --sbatch-args "..."  SBATCH_ARGS  more sbatch options for every job (partition, account,
#                                     time limit, --cpus-per-task, ...)
#   --grade-args "..."   GRADE_ARGS   more cudalab-grade options for every job (--force: the
#                                     tasks only)
#   ARCH=NN (environment)             the GPU architecture the harness is built for here; give
#                                     the oldest of the cluster's GPUs when the login node has
#                                     another one (or none: then sm_80 plus PTX)
set -euo pipefail

me=grade-slurm
die() { echo "$me: $*" >&2; exit 2; }
usage() { sed -n '2,7p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }

lab="" submissions="" grades="grades" tasks=8 backend=auto sbatch_args="" grade_args=""
while [ $# -gt 0 ]; do
  case "$1" in
    --lab) lab=${2:-}; shift 2 ;;
    --submissions) submissions=${2:-}; shift 2 ;;
    --grades) grades=${2:-}; shift 2 ;;
    --tasks) tasks=${2:-}; shift 2 ;;
    --backend) backend=${2:-}; shift 2 ;;
    --sbatch-args) sbatch_args=${2:-}; shift 2 ;;
    --grade-args) grade_args=${2:-}; shift 2 ;;
    -h|--help) usage ;;
    *) echo "$me: unknown option '$1'" >&2; usage ;;
  esac
done
[ -n "$lab" ] && [ -n "$submissions" ] || usage
case "$lab" in ''|*[!0-9]*) die "--lab takes a number, not '$lab'" ;; esac
case "$tasks" in ''|*[!0-9]*) die "--tasks takes a number of tasks (1 or more), not '$tasks'" ;; esac
tasks=$((10#$tasks))
[ "$tasks" -ge 1 ] || die "--tasks takes a number of tasks (1 or more), not '$tasks'"
case "$backend" in auto|cuda|cpu) ;; *) die "--backend takes auto, cuda or cpu, not '$backend'" ;; esac

command -v sbatch >/dev/null 2>&1 ||
  die "no sbatch here: run this on a Slurm login node (or install Slurm's client, Debian's slurm-client, configured for your cluster)"
# Before building anything: a cluster must answer (a configuration, a controller).
if ! out=$(sinfo -h -o '%P' 2>&1); then
  printf '%s\n' "$out" | tail -n 5 >&2
  die "sbatch is here but no Slurm cluster answers (sinfo, above): check SLURM_CONF / your slurm.conf"
fi

# Absolute paths everywhere: the jobs run on other machines, from another folder.
repo=$(cd "$(dirname "$0")/../.." && pwd -P)
[ -d "$submissions" ] || die "no folder of submissions at $submissions"
submissions=$(cd "$submissions" && pwd -P)
mkdir -p "$grades"
grades=$(cd "$grades" && pwd -P)
labdir=$grades/lab$lab
slurmdir=$labdir/slurm
mkdir -p "$slurmdir"
chmod 700 "$grades/lab$lab"  # as the grader leaves it: the instructor's alone

ref=$(ls "$repo"/solutions/lab"$lab"_*.cu 2>/dev/null | head -n1 || true)
[ -n "$ref" ] || ref=$(ls "$repo"/labs/lab"$lab"_*.cu 2>/dev/null | head -n1 || true)
[ -n "$ref" ] || die "lab $lab has no solutions/lab${lab}_*.cu nor labs/lab${lab}_*.cu in $repo"

# The backends the tasks may build for: cuda needs nvcc here; auto builds the CUDA harness too
# where nvcc is here (else a task on a GPU node would compile into the shared build/cuda).
path=$PATH
nvcc_here() {
  command -v nvcc >/dev/null 2>&1 && return 0
  [ -x /usr/local/cuda/bin/nvcc ] && path=/usr/local/cuda/bin:$path && PATH=$path && return 0
  return 1
}
case "$backend" in
  cpu) builds="cpu" ;;
  cuda) nvcc_here || die "BACKEND=cuda: no nvcc here. The harness is built once on this host for all tasks; load the CUDA Toolkit (module load cuda, or PATH) and run again"
        builds="cuda" ;;
  auto) if nvcc_here; then builds="cpu cuda"; else builds="cpu"
          echo "$me: note: no nvcc here, so only the CPU harness is built: with BACKEND=auto a task given a GPU would build build/cuda itself (use BACKEND=cpu, or load the CUDA Toolkit here)" >&2
        fi ;;
esac

echo "$me: building the grader and lab $lab's checker and harness ($builds) in $repo"
mk() { make -C "$repo" --no-print-directory "$@"; }
mk grader >"$slurmdir/build.log" 2>&1 || { tail -n 30 "$slurmdir/build.log" >&2; die "make grader failed (log: $slurmdir/build.log)"; }
for b in $builds; do
  # The checker and every prerequisite of a student's build (the runner's harness, the link
  # contract's tool: make grading-setup), so the tasks' builds only compile each student's file.
  mk BACKEND="$b" ${ARCH:+ARCH=$ARCH} grading-setup LAB="$lab" >>"$slurmdir/build.log" 2>&1 ||
    { tail -n 30 "$slurmdir/build.log" >&2; die "building lab $lab for BACKEND=$b failed (log: $slurmdir/build.log)"; }
done
# The emulator's build (the CPU backend under its race detector), which judges barriers and races
# on every backend: built here too, or every task would build it in the shared build/ at once.
case " $grade_args " in
  *" --emulator-verdicts never "*) ;;
  *) mk BACKEND=cpu CHECK=race grading-setup LAB="$lab" >>"$slurmdir/build.log" 2>&1 ||
       { tail -n 30 "$slurmdir/build.log" >&2; die "building lab $lab for the emulator (BACKEND=cpu CHECK=race) failed (log: $slurmdir/build.log)"; } ;;
esac
grader=$repo/build/grading/cudalab-grade
"$grader" --help 2>/dev/null | grep -q -- '--shard' || die "$grader has no --shard option: update the checkout (make grader)"

# BACKEND=cuda: one GPU per job, unless SBATCH_ARGS already asks for GPUs its own way.
gres=""
case " $sbatch_args" in *" --gres"*|*" --gpus"*|*" -G"*|*" --gpus-per-"*) ;; *) [ "$backend" = cuda ] && gres="--gres=gpu:1" ;; esac
final_args=$(printf '%s\n' $grade_args | grep -vx -- '--force' | tr '\n' ' ' || true)

# The job script: one for the array's tasks (`task`) and the final job (`final`).
job=$slurmdir/grade.sbatch
fail_task=${CUDALAB_SLURM_TEST_FAIL_TASK:-}  # tests only: this task dies before grading
q() { printf '%q' "$1"; }
cat >"$job" <<EOF
#!/usr/bin/env bash
# Written by grading/slurm/grade_slurm.sh on $(date '+%F %T') for lab $lab.
#   sbatch --array=0-$((tasks - 1)) ... $(q "$job") task    one share of the class per task
#   sbatch --dependency=afterany:ARRAY ... $(q "$job") final  the rest, and the class files
set -u
mode=\${1:?task or final}
export PATH=$(q "$path")
repo=$(q "$repo")
grader=$(q "$grader")
args=(--lab $lab --repo "\$repo" --submissions $(q "$submissions") --grades $(q "$grades") --backend $backend)
# A work folder on this node's own disk, removed at the end (as is whatever the grader built).
id=\${SLURM_ARRAY_JOB_ID:-\${SLURM_JOB_ID:-0}}-\${SLURM_ARRAY_TASK_ID:-final}
work=\$(mktemp -d "\${TMPDIR:-/tmp}/cudalab-\$id.XXXXXX") || { echo "cannot make a work folder in \${TMPDIR:-/tmp}"; exit 1; }
trap 'rm -rf "\$work"' EXIT
trap 'exit 143' TERM INT HUP
# Parallel builds: the CPUs Slurm gave this job, not every core of the node.
cpus=\${SLURM_CPUS_PER_TASK:-\${SLURM_CPUS_ON_NODE:-}}
[ -n "\$cpus" ] && args+=(--jobs "\$cpus")
echo "cudalab: \$mode \$id on \$(hostname) at \$(date '+%F %T'), work folder \$work\${CUDA_VISIBLE_DEVICES:+, GPU(s) \$CUDA_VISIBLE_DEVICES}"
if [ "\$mode" = task ]; then
  k=\${SLURM_ARRAY_TASK_ID:?not an array task}
  if [ "\$k" = $(q "$fail_task") ]; then echo "cudalab: task \$k made to die (CUDALAB_SLURM_TEST_FAIL_TASK)"; exit 1; fi
  "\$grader" "\${args[@]}" --work "\$work" --shard "\$k/$tasks" $grade_args
else
  "\$grader" "\${args[@]}" --work "\$work" $final_args
fi
status=\$?
echo "cudalab: \$mode \$id ended with status \$status at \$(date '+%F %T')"
exit \$status
EOF
chmod 700 "$job"

# Submit: the array, then the final job after it, each job with the same resources. sbatch
# hands the jobs this environment: not the make that may have started this script.
unset MAKEFLAGS MFLAGS MAKELEVEL MAKEOVERRIDES
# shellcheck disable=SC2086  # SBATCH_ARGS is a list of options
submit() { sbatch --parsable --chdir="$repo" $gres $sbatch_args "$@"; }
array_id=$(submit --job-name="cudalab-lab$lab" --array=0-$((tasks - 1)) --output="$slurmdir/task-%A_%a.log" "$job" task) ||
  die "sbatch refused the array (above)"
array_id=${array_id%%;*}
final_id=$(submit --job-name="cudalab-lab$lab-final" --dependency=afterany:"$array_id" --kill-on-invalid-dep=no \
  --output="$slurmdir/final-%j.log" "$job" final) || {
  echo "$me: sbatch refused the final job (above); the array $array_id runs. When it is done, grade the rest and" >&2
  echo "$me: write the class files with: make grade LAB=$lab SUBMISSIONS=$submissions GRADES=$grades" >&2
  exit 1
}
final_id=${final_id%%;*}
printf 'array=%s\nfinal=%s\ntasks=%s\nbackend=%s\n' "$array_id" "$final_id" "$tasks" "$backend" >"$slurmdir/jobs"

cat <<EOF
$me: lab $lab, $(find "$submissions" -mindepth 1 -maxdepth 1 ! -name '.*' | wc -l) entries in $submissions, backend $backend
$me: submitted job array $array_id ($tasks tasks: cudalab-grade --shard K/$tasks) and final job $final_id (after the array: the rest, then the class files)
  follow:   squeue -j $array_id,$final_id
  logs:     $slurmdir/task-${array_id}_K.log, $slurmdir/final-$final_id.log
  results:  $labdir/gradebook.csv, summary.json, report.html once job $final_id is done
  cancel:   scancel $array_id $final_id
EOF
