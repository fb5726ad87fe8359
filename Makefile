# cudalab: run a lab, run the reference solution, run the tests.
#
#   make lab3                 build and run your lab 3 (labs/lab3_*.cu)
#   make solution3            build and run the reference solution
#   make lab3 ARGS="--seed 7 --no-timing"
#   make test                 every test the machine can run
#   make clean
#
# BACKEND=cuda|cpu picks where kernels run (default: the GPU when one answers, else the CPU).
# ARCH=90 picks the GPU architecture (default: the GPU found, else sm_80 plus PTX).

LABS := 1 2 3 4 5
# `make help` prints lines 2-11 verbatim: keep the sm_80 there in step with this.
DEFAULT_ARCH := 80

ifeq ($(origin BACKEND), undefined)
  BACKEND := $(shell nvidia-smi -L >/dev/null 2>&1 && echo cuda || echo cpu)
endif
ifeq ($(filter $(BACKEND),cuda cpu),)
  $(error BACKEND must be cuda or cpu, not '$(BACKEND)')
endif

.PHONY: all help test clean $(addprefix lab,$(LABS)) $(addprefix solution,$(LABS)) lab-binary
.DEFAULT_GOAL := help
.SECONDEXPANSION:

help:
	@sed -n '2,11p' Makefile | sed 's/^# \{0,1\}//'

# CHECK=<tool> runs a lab under a checker. On the GPU, compute-sanitizer's memcheck, racecheck,
# synccheck or initcheck (asan and race mean memcheck and racecheck, so one name works on both
# backends); on the CPU backend, asan or race (mk/cpu.mk).
GPU_CHECK_TOOL = $(or $(filter memcheck racecheck synccheck initcheck,$(CHECK)),$(if $(filter asan,$(CHECK)),memcheck),$(if $(filter race,$(CHECK)),racecheck))
ifeq ($(BACKEND)$(if $(CHECK),y),cuday)
  ifeq ($(GPU_CHECK_TOOL),)
    $(error CHECK=$(CHECK) is not a checker here: use memcheck, racecheck, synccheck or initcheck)
  endif
  RUN_PREFIX := compute-sanitizer --tool $(GPU_CHECK_TOOL) --error-exitcode 10
  override ARGS += --no-timing
endif

include $(sort $(wildcard mk/*.mk))

# make labN / solutionN: build on the chosen backend, then run with ARGS.
$(addprefix lab,$(LABS)): lab%: build/$(BACKEND)/labs/lab%
	@$(RUN_PREFIX) ./build/$(BACKEND)/labs/lab$* $(ARGS)
$(addprefix solution,$(LABS)): solution%: build/$(BACKEND)/solutions/lab%
	@$(RUN_PREFIX) ./build/$(BACKEND)/solutions/lab$* $(ARGS)

# make lab-binary LAB=3 SRC=path/to/file.cu OUT=path/to/binary: one lab binary from any
# lab source, with the instructor's harness and flags (the grader builds submissions so).
lab-binary: $(BACKEND)-lab-binary

clean:
	rm -rf build

