# Grading a class on a Slurm cluster (grading/README.md, "Grading on a Slurm cluster").
#
#   make grade-slurm LAB=3 SUBMISSIONS=dir [GRADES=grades] [TASKS=8] [BACKEND=cuda|cpu]
#                    [SBATCH_ARGS="--partition=gpu ..."] [GRADE_ARGS=...] [FORCE=1]
#   make test-slurm  a real one-node Slurm (slurmctld, slurmd, munged) in a temporary folder
#                    grades a small class on the CPU backend (as root; Debian's slurm packages)
#
# Without BACKEND on the command line (or in the environment) the jobs use `--backend auto`:
# each grades on a GPU where Slurm gave it one (SBATCH_ARGS="--gres=gpu:1 ..."), else on the
# CPU backend. The login node's own GPU, or lack of one, decides nothing.

TASKS ?= 8
SLURM_BACKEND = $(if $(filter command line environment,$(origin BACKEND)),$(BACKEND),auto)

.PHONY: grade-slurm test-slurm

# `+`: the script's own makes (the builds done once for all tasks) share this make's jobs.
grade-slurm:
	@test -n "$(LAB)" -a -n "$(SUBMISSIONS)" || { echo "usage: make grade-slurm LAB=3 SUBMISSIONS=folder [GRADES=grades] [TASKS=8] [BACKEND=cuda|cpu] [SBATCH_ARGS=\"...\"] [GRADE_ARGS=...] [FORCE=1]"; exit 2; }
	+@grading/slurm/grade_slurm.sh --lab '$(LAB)' --submissions '$(SUBMISSIONS)' --grades '$(or $(GRADES),grades)' \
	  --tasks '$(TASKS)' --backend '$(SLURM_BACKEND)' --sbatch-args '$(SBATCH_ARGS)' --grade-args '$(GRADE_ARGS)$(if $(FORCE), --force)'

# The CPU harness and lab 1's checker are complete before the test's own makes run (under
# `make -j test` other parts build them too), as for test-grading.
test-slurm: $(GRADER) $(JAIL) | cpu-build-all
	+@tests/slurm/test_slurm.sh

TEST_TARGETS += test-slurm
