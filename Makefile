# cudalab: run a lab, run the reference solution, run the tests. `make help` says it all.

LABS := 1 2 3 4 5 6 7 8 9
# What `make` runs with no goal; `make help` lists labs, targets and variables.
DEFAULT_ARCH := 80

# Parallel builds by default: one job per core, unless you gave -j yourself. Only the top-level
# make sets it; recursive makes share its job slots through the jobserver.
NPROC := $(shell nproc 2>/dev/null || echo 2)
ifeq ($(MAKELEVEL)$(filter -j% j%,$(MAKEFLAGS)),0)
  MAKEFLAGS += -j$(NPROC)
endif

# The first GPU's compute capability ("90"), empty without one. nvidia-smi can take a good part of
# a second (where no daemon keeps the driver loaded), and every make needs its answer (the backend,
# the architecture): a GPU found is kept in build/, per boot (a reboot, or this build/ on another
# machine, asks again; a build/ it cannot write, as in the grader's jail, asks every time). No GPU is
# never kept: asking costs nothing where nvidia-smi is missing.
GPU_PROBE := build/.gpu-$(shell tr -d -- - < /proc/sys/kernel/random/boot_id 2>/dev/null)
GPU_CAP := $(shell cat $(GPU_PROBE) 2>/dev/null || { c=$$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -n1 | tr -d '.[:space:]' | grep -E '^[0-9]+$$'); [ -z "$$c" ] || { mkdir -p build && echo $$c > $(GPU_PROBE); } 2>/dev/null; echo $$c; })
ifeq ($(origin BACKEND), undefined)
  BACKEND := $(if $(GPU_CAP),cuda,cpu)
endif
ifeq ($(filter $(BACKEND),cuda cpu),)
  $(error BACKEND must be cuda or cpu, not '$(BACKEND)')
endif

.PHONY: all help test clean deps test-deps unit-deps grade-deps $(addprefix lab,$(LABS)) $(addprefix solution,$(LABS)) lab-binary lab-runner lab-checker
.DEFAULT_GOAL := help
.SECONDEXPANSION:

# The lab files, and an unknown lab (`make lab9`) answered with the ones that exist.
LAB_FILES := $(sort $(wildcard labs/lab*_*.cu))
lab_goals := $(filter-out lab-binary lab-runner lab-checker,$(filter lab% solution%,$(MAKECMDGOALS)))
unknown_labs := $(filter-out $(addprefix lab,$(LABS)) $(addprefix solution,$(LABS)),$(lab_goals))
ifneq ($(unknown_labs),)
  $(info cudalab: there is no $(firstword $(unknown_labs)). The labs are:)
  $(foreach f,$(LAB_FILES),$(info $(shell printf '  make %-9s %s' $(firstword $(subst _, ,$(notdir $(f)))) $(f))))
  $(error make $(firstword $(unknown_labs)): no such lab (make help lists everything))
endif

help:
	@echo "cudalab: fill in the TODOs of a lab file, then run it."
	@echo ""
	@echo "Labs (make labN builds your file and runs every check on it; make solutionN runs the reference):"
	@$(foreach f,$(LAB_FILES),printf '  make %-9s %-36s %s\n' $(firstword $(subst _, ,$(notdir $(f)))) $(f) "$$(sed -n '2s|^//  cudalab · Lab [0-9]* · ||p' $(f))";)
	@echo ""
	@echo "Targets:"
	@echo "  make test                every test of the kit as shipped (your own labs/ do not affect it)"
	@echo "  make grade LAB=3 SUBMISSIONS=dir/   grade a class (instructors; grading/README.md)"
	@echo "  make gradescope LAB=3    a Gradescope autograder zip"
	@echo "  make deps                install (or name) what make test and make grade need"
	@echo "  make clean               remove build/"
	@echo ""
	@echo "Variables:"
	@echo "  ARGS=\"...\"              options for the checker: --seed N, --size S, --only ID, --list,"
	@echo "                           --no-timing, --json PATH, --all (run the large checks even when"
	@echo "                           small ones fail; the CPU backend still skips those too large to"
	@echo "                           emulate, which --list marks), --schedule S (CPU backend), --help"
	@echo "  CHECK=memcheck|racecheck|synccheck|initcheck   under a checker, the same names on both backends"
	@echo "                           (asan = memcheck, race = racecheck). On a GPU: compute-sanitizer's tool;"
	@echo "                           on the CPU backend: memcheck AddressSanitizer, racecheck the race checker,"
	@echo "                           synccheck the plain run (barrier checks always on), initcheck as memcheck"
	@echo "  BACKEND=cuda|cpu         where kernels run (now: $(BACKEND); default: the GPU when one answers)"
	@echo "  ARCH=90                  the GPU architecture (default: the GPU found, else sm_$(DEFAULT_ARCH) plus PTX)"
	@echo "  DEBUGGER=cuda-gdb|gdb    run your lab file's process under a debugger (with ARGS=\"--only ID\")"
	@echo "  V=1                      show the compiler's command lines; -jN sets the parallel jobs (default $(NPROC))"
	@echo "  LAB=, SUBMISSIONS=, GRADES=, FORCE=1, GRADE_ARGS=   for make grade (grading/README.md)"

# CHECK=<tool> runs a lab under a checker: one set of names on both backends, memcheck,
# racecheck, synccheck and initcheck (asan and race are other names for the first two), each
# mapped to what its backend does: compute-sanitizer's tool on a GPU, mk/cpu.mk's build on the
# CPU backend. README's "Checkers" table and `make help` say the same.
CHECK_NAMES := memcheck racecheck synccheck initcheck asan race
ifneq ($(CHECK),)
  ifeq ($(filter $(CHECK_NAMES),$(CHECK)),)
    $(error CHECK=$(CHECK) is not a checker: use memcheck, racecheck, synccheck or initcheck (asan and race also work), on either backend)
  endif
endif
GPU_CHECK_TOOL = $(or $(filter memcheck racecheck synccheck initcheck,$(CHECK)),$(if $(filter asan,$(CHECK)),memcheck),$(if $(filter race,$(CHECK)),racecheck))
ifeq ($(BACKEND)$(if $(CHECK),y),cuday)
  RUN_PREFIX := compute-sanitizer --tool $(GPU_CHECK_TOOL) --error-exitcode 10
  override ARGS += --no-timing
endif

# V=1 shows the compiler's command lines; otherwise a short line says what is built.
Q := $(if $(filter 1,$(V)),,@)
SAY := $(if $(filter 1,$(V)),@true,@printf '  %s\n')

# The kit as shipped, for `make test`: the lab stubs as the repository's last commit has them,
# never your working copy (your progress is `make labN`'s business). Without git, the working
# copy's labs/ stand in, with a note.
SHIPPED_DIR := build/shipped
SHIPPED_FROM_GIT := $(shell [ "$$(git rev-parse --show-toplevel 2>/dev/null)" = "$(CURDIR)" ] && git rev-parse -q --verify HEAD >/dev/null 2>&1 && echo yes)
ifeq ($(SHIPPED_FROM_GIT),yes)
  SHIPPED_STUBS := $(shell git ls-tree --name-only HEAD labs/ | grep -E '^labs/lab[0-9]+_[^/]*\.cu$$')
endif
ifeq ($(SHIPPED_STUBS),)
  SHIPPED_FROM_GIT :=
  SHIPPED_STUBS := $(LAB_FILES)
endif
SHIPPED_SRCS := $(addprefix $(SHIPPED_DIR)/,$(SHIPPED_STUBS))
# A stub declares what the student will use (shared arrays, constants): unused, by design. The
# test build of the shipped stubs does not warn about that; your own lab file's build does.
STUB_QUIET_CXX := -Wno-unused-variable
STUB_QUIET_NVCC := -diag-suppress 177 -Xcompiler -Wno-unused-variable

# A lab's report already says what failed, and so does a compile error shown as nvcc shows it:
# make adds no "*** Error 1" banner under either when it was started for that one lab. make has
# no other way to exit non-zero without its banner than to end quietly by SIGPIPE (status 141);
# any other make (several goals, the grader's, the tests') fails the usual way.
quiet_fail := $(if $(filter 0,$(MAKELEVEL)),$(if $(filter 1,$(words $(MAKECMDGOALS))),$(filter $(addprefix lab,$(LABS)) $(addprefix solution,$(LABS)),$(MAKECMDGOALS))))
# In a recipe, after a failure that has been explained: $(call quiet_stop,STATUS).
quiet_stop = $(if $(quiet_fail),kill -s PIPE $$PPID 2>/dev/null;) exit $(or $(1),1)

# The dependency files (.d, the compilers' -MMD) under folder $(1) whose object's source is still
# there: one written before a source was renamed or removed names it, and would stop every make
# of an existing build/ with "No rule to make target" (its object's own rule says what is needed).
live_deps = $(shell find $(1) -name '*.d' -exec awk 'FNR == 1 { sub(/^[^:]*:/, "") } \
                { for (i = 1; i <= NF; i++) if ($$i != "\\") { if ((getline x < $$i) >= 0) print FILENAME; close($$i); nextfile } }' \
                {} + 2>/dev/null)

include $(sort $(wildcard mk/*.mk))

# DEBUGGER=cuda-gdb (or gdb) runs the kernel runner, your lab file's process, under it; the
# checker waits for it without a time limit. Pick one check: ARGS="--only one_element".
ifneq ($(DEBUGGER),)
  override ARGS += $(foreach w,$(DEBUGGER) --args,--runner-wrap $(w)) --no-timing
endif

# make labN / solutionN: build the checker and the kernel runner on the chosen backend, then
# run the checker (it starts the runner) with ARGS.
#
# The report already says what failed, so make adds no banner under it (quiet_stop, above): the
# exit status is then 141; scripts that want the checker's own 0/1/2/3/4 run
# build/<backend>/check/labN directly.
finish_lab = s=$$?; [ $$s -eq 0 ] || { $(call quiet_stop,$$s); }
$(addprefix lab,$(LABS)): lab%: build/$(BACKEND)/check/lab% build/$(BACKEND)/labs/lab%-runner
	@$(RUN_PREFIX) ./build/$(BACKEND)/check/lab$* --runner build/$(BACKEND)/labs/lab$*-runner $(ARGS); $(finish_lab)$(call profile_after_lab,$*,labs)
$(addprefix solution,$(LABS)): solution%: build/$(BACKEND)/check/lab% build/$(BACKEND)/solutions/lab%-runner
	@$(RUN_PREFIX) ./build/$(BACKEND)/check/lab$* --runner build/$(BACKEND)/solutions/lab$*-runner $(ARGS); $(finish_lab)$(call profile_after_lab,$*,solutions)

# What `make test` and `make grade` need (tools/setup/deps.sh checks each by building a program with
# it, installs what is missing when root or sudo needs no password, else prints the command).
# Each target asks for what it uses: the unit and lab tests need doctest and nlohmann-json (and
# Boost.Context on the CPU backend), the grader its own libraries; `make test` runs everything,
# so it asks for everything.
deps: test-deps
test-deps:
	@tools/setup/deps.sh test
unit-deps:
	@tools/setup/deps.sh doctest json $(if $(filter cpu,$(BACKEND)),boost-context)
grade-deps:
	@tools/setup/deps.sh json toml cli11 openssl $(if $(filter cpu,$(BACKEND)),boost-context)

# make lab-runner LAB=3 SRC=path/to/file.cu OUT=path/to/runner: a kernel runner from any lab
# source, with the instructor's harness and flags (the grader builds submissions so);
# make lab-checker LAB=3: the lab's checker, build/<backend>/check/lab3.
lab-runner: $(BACKEND)-lab-runner
lab-checker: $(BACKEND)-lab-checker
lab-binary: lab-runner

clean:
	rm -rf build

# The grader's build waits for its libraries (mk/grading.mk names the objects).
grade gradescope: | grade-deps
$(GRADING_OBJS) $(GRADING_TEST_OBJS) $(GRADING_OUT)/channel_probe: | grade-deps
$(GRADING_TEST_OBJS): | unit-deps

