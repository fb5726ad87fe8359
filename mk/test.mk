# make test: the kit as shipped, tested. Unit tests of the harness, a compile of every shipped
# stub and solution for the GPU (when nvcc is here), and every solution, shipped stub and
# planted-bug fixture run through the checks on the GPU, or on the CPU backend where there is no
# GPU. Other fragments add their own test-* targets to TEST_TARGETS.
#
# `make test` installs (or names) what it needs first, runs every part even when one fails
# (make -k), and closes with one line over all of them: "N passed, N failed, N skipped"
# (tools/test/test_summary.sh counts doctest's test cases and the fixture scripts' PASS/FAIL lines).

TEST_OUT := build/tests
TEST_CXX := g++ -std=c++20 -O1 -Wall -Wextra -Wno-restrict -Iharness/include -Iharness -DCUDALAB_CONTRACT_ONLY -MMD -MP
# The checker's logic that needs no GPU and no runner, and the protocol both sides speak: the
# CPU backend's checker objects (mk/cpu.mk), which make test builds anyway. Their own build for
# the unit tests compiled the same files a second time (14 s of make test's CPU on 2 cores).
UNIT_CHECK := types/options judging/tolerance judging/diagnose timing/stats report/json_writer report/run_record_json \
              types/shape types/cause types/number_words judging/sum_reference calls/sanitizer_digest timing/timing_bound calls/runner_words \
              timing/gpu_gate judging/index_width judging/matrix_reference judging/topk_reference \
              profile/profile_figures profile/profile_digest profile/ncu_figures
UNIT_WIRE := random protocol
UNIT_OBJS := $(patsubst %,$(CPU_OUT)/checker/checker/%.o,$(UNIT_CHECK)) $(patsubst %,$(CPU_OUT)/checker/wire/%.o,$(UNIT_WIRE)) \
             $(patsubst tests/unit/%.cpp,$(TEST_OUT)/unit/%.o,$(wildcard tests/unit/*.cpp))

$(TEST_OUT)/unit/%.o: tests/unit/%.cpp | unit-deps
	@mkdir -p $(@D)
	$(SAY) "build tests/unit/$*.cpp"
	$(Q)$(TEST_CXX) -c $< -o $@
$(TEST_OUT)/unit_tests: $(UNIT_OBJS)
	$(Q)$(TEST_CXX) $^ -pthread -o $@
# make bench-references: the host's share of the largest checks, timed in isolation
# (tools/measure/bench_references.cpp; the CPU backend's checker library, so the host paths).
.PHONY: bench-references
$(TEST_OUT)/bench_references: tools/measure/bench_references.cpp $(CPU_CHECK_LIB)
	@mkdir -p $(@D)
	$(Q)g++ -std=c++20 -O2 -pthread -DCUDALAB_BACKEND_CPU=1 $(CPU_CHECK_INCLUDES) $^ -o $@
bench-references: $(TEST_OUT)/bench_references
	@./$<
$(TEST_OUT)/labs_test: tests/integration/labs_test.cpp | unit-deps
	@mkdir -p $(@D)
	$(SAY) "build tests/integration/labs_test.cpp"
	$(Q)$(TEST_CXX) $< -o $@

.PHONY: test-unit test-build test-labs shipped-stubs
test-unit: $(TEST_OUT)/unit_tests
	@echo "== the harness's unit tests"
	@./$<

# The stubs as shipped: `git show HEAD:labs/...` into build/shipped/labs/, rewritten only when
# they differ (so nothing rebuilds when nothing changed). Without git: the working copy's.
$(SHIPPED_DIR)/labs/%.cu: FORCE
	@mkdir -p $(@D)
ifeq ($(SHIPPED_FROM_GIT),yes)
	@git show HEAD:labs/$*.cu > $@.tmp
else
	@echo "cudalab: no git repository here: testing the stubs in labs/ as they are (a finished lab fails the stub test)"
	@cp labs/$*.cu $@.tmp
endif
	@if cmp -s $@.tmp $@; then rm -f $@.tmp; else mv $@.tmp $@; fi
shipped-stubs: $(SHIPPED_SRCS)

# Compile every shipped stub and solution for the GPU, with or without a GPU; without nvcc the
# compile is skipped (and counted so).
HAVE_NVCC := $(if $(shell command -v $(NVCC) 2>/dev/null),yes)
ifeq ($(HAVE_NVCC),yes)
# (and the GPU tests' own programs, tests/gpu/, so that they cannot rot unseen)
test-build: cuda-build-all $(CUDA_OUT)/tests/lab3-lying-runner $(CUDA_OUT)/tests/fill_agreement
	@echo "== compile every shipped stub and solution with nvcc (sm_$(ARCH))"
	@echo "PASS  nvcc compiles the checkers, the shipped stubs and the solutions"
else
test-build:
	@echo "== compile every shipped stub and solution with nvcc"
	@echo "SKIP  no nvcc: the GPU build is not compiled here (install the CUDA Toolkit)"
endif

# Planted-bug fixtures: runners built from tests/fixtures/labN_*.cu with the real harness, those
# whose "// backends:" line leaves this backend out excepted.
FIXTURE_SRCS := $(wildcard tests/fixtures/lab*_*.cu)
FIXTURES_LIMITED := $(if $(FIXTURE_SRCS),$(shell grep -l '^// backends:' $(FIXTURE_SRCS)))
fixtures_for = $(filter-out $(filter-out $(if $(FIXTURES_LIMITED),$(shell grep -l '^// backends:.*$(1)' $(FIXTURES_LIMITED))),$(FIXTURES_LIMITED)),$(FIXTURE_SRCS))
fixture_runners = $(patsubst tests/fixtures/%.cu,build/$(1)/fixtures/%,$(call fixtures_for,$(1)))
fixtures-cpu: $(call fixture_runners,cpu)
fixtures-cuda: $(call fixture_runners,cuda)
fixtures-%: FORCE
	@mkdir -p build/$*/fixtures
.PHONY: FORCE
FORCE:

# The labs run where kernels can run: the GPU, else the CPU backend when it is built in.
LAB_TEST_BACKEND := $(if $(filter cuda,$(BACKEND)),cuda,$(if $(wildcard mk/cpu.mk),cpu,none))
# On the CPU backend three runs side by side (tests/integration/run_shards.sh; the planted bugs'
# runner's -j): one after another they were make test's longest part, on one core. On a GPU one:
# runs side by side would share the GPU, and the fixtures that time their kernels would time each other's.
LAB_TEST_SHARDS := $(if $(filter cpu,$(LAB_TEST_BACKEND)),3,1)
test-labs: $(TEST_OUT)/labs_test $(if $(filter none,$(LAB_TEST_BACKEND)),,$(LAB_TEST_BACKEND)-build-all fixtures-$(LAB_TEST_BACKEND))
	@echo "== every solution, shipped stub and planted bug through the checks ($(LAB_TEST_BACKEND) backend)"
	@CUDALAB_TEST_BACKEND=$(LAB_TEST_BACKEND) CUDALAB_TEST_BUILD=build/$(LAB_TEST_BACKEND) \
	 tests/integration/run_shards.sh $(LAB_TEST_SHARDS) $(TEST_OUT)/labs_test ./$(TEST_OUT)/labs_test
	@$(if $(filter none,$(LAB_TEST_BACKEND)),echo "SKIP  planted bugs: no GPU and no CPU backend to run them on",\
	  tests/planted/run.py fixtures --backend $(LAB_TEST_BACKEND) -j $(LAB_TEST_SHARDS))

# Timed batches through real CPU-backend runners (lab 4's solution and a planted bug): the drawn
# elements of a sampled output come back, are checked, and a bad index is refused.
ifneq ($(wildcard mk/cpu.mk),)
$(TEST_OUT)/timed_batch_test: tests/integration/timed_batch_test.cpp $(CPU_CHECK_LIB) | unit-deps
	@mkdir -p $(@D)
	$(SAY) "build tests/integration/timed_batch_test.cpp"
	$(Q)$(CPU_CXX) -std=c++20 -O1 -g -pthread -Wall -Wextra -Wno-restrict -DCUDALAB_BACKEND_CPU=1 $(CPU_CHECK_INCLUDES) $^ -o $@
.PHONY: test-timed-batch
TEST_TARGETS += test-timed-batch
test-timed-batch: $(TEST_OUT)/timed_batch_test $(CPU_OUT)/solutions/lab4-runner $(CPU_OUT)/fixtures/lab4_grid_round_down
	@echo "== timed batches through CPU-backend runners: sampled outputs"
	@CUDALAB_TEST_BUILD=$(CPU_OUT) ./$<
endif

# The planted files' runner on itself: every key fails a run that breaks it, a misspelt key is refused.
.PHONY: test-planted
test-planted:
	@echo "== the planted files' runner (tests/planted): each key can fail, unknown keys refused"
	@tests/planted/planted_test.py

# A renamed or removed source's old dependency file must not stop make (Makefile: live_deps).
.PHONY: test-stale-deps
test-stale-deps:
	@echo "== stale dependency files (tests/build)"
	@tests/build/stale_deps_test.sh

TEST_TARGETS := test-unit test-build test-labs test-planted test-stale-deps $(TEST_TARGETS)
# Two tiers. `make test` is the one you run while you work: the harness, the emulator, every lab's
# checks over its solution, stub and planted bugs, the contract and the boundary, the profile, the
# mutation sample, the class report, the walls and the style (about 18 CPU-minutes; 9.6 min of
# wall time from a fresh clone on 2 cores, 2026-11-28: the aim is under 10). `make test-all` adds the parts that
# grade whole classes as root (the grader's end-to-end, isolation and fresh-clone tests, the
# attack class), boot Slurm and compile every file with nvcc: minutes of CPU each (measured on 2
# cores: the grader's 14, nvcc's 6, Slurm's 4, the attack class's 1). CI (.ci/run) runs make test-all.
TEST_SLOW_TARGETS := test-grading test-slurm test-build test-contract-grading test-call-loops
TEST_QUICK_TARGETS = $(filter-out $(TEST_SLOW_TARGETS),$(TEST_TARGETS))
# make -j gives a free job slot to the first part in this list with work to do: the parts that
# wait longest on builds and then run longest (the grader's, Slurm's, the labs') go first, so
# that none of them is left running alone at the end; the nvcc compile, builds only and
# needed by nothing else, goes last and fills the gaps.
TEST_FIRST := test-grading test-slurm test-labs test-contract-grading test-cpu
TEST_LAST := test-build
in_run_order = $(foreach t,$(TEST_FIRST),$(filter $(t),$(1))) $(filter-out $(TEST_FIRST) $(TEST_LAST),$(1)) \
               $(foreach t,$(TEST_LAST),$(filter $(t),$(1)))
.PHONY: test-parts-quick test-parts-all
test-parts-quick: $(call in_run_order,$(TEST_QUICK_TARGETS))
test-parts-all: $(call in_run_order,$(TEST_TARGETS))

# What several parts build through make runs of their own (the grader's setup and its jailed
# readiness check, the race fixtures): built once, before the parts run side by side. Two makes
# compiling the same object at once leave one's archive older than the other's objects, and a
# jailed build then finds the harness stale (CI: the Slurm part's grader stopped at its setup).
ifneq ($(wildcard mk/cpu.mk),)
TEST_SHARED_BUILDS := cpu-build-all $(CONTRACT_TOOL) $(CPU_OUT)/race/lib/libcudalab_cpu.a $(CPU_OUT)/race/lib/libcudalab_run.a \
    $(CPU_RACE_RUN_OBJS) $(foreach l,$(patsubst lab%,%,$(call cpu_checked,$(call cpu_lab_ids,solutions))),$(CPU_OUT)/race/obj/lab_specs/lab$(l)/runner_entry.o)
endif
.PHONY: test-shared-builds
test-shared-builds: $(TEST_SHARED_BUILDS)

# The parts run in a make of their own with -k, its output grouped per part (-Otarget) and kept
# in build/tests/test.log, so that the closing line can count every part, failed or not. The `+`
# hands make's job slots on to those makes: this recipe is written as a $(call), where make does
# not see the $(MAKE) in it, and without it both ran one job at a time whatever -j said ("jobserver
# unavailable": make test took 15 minutes on 2 cores).
#   $(call run_test_tier,NAME,PARTS-TARGET)
define run_test_tier
	@mkdir -p $(TEST_OUT)
	+@$(if $(filter yes,$(SHIPPED_FROM_GIT)),,echo "cudalab: no git repository here: the stubs tested are the working copy's labs/";) \
	 $(MAKE) --no-print-directory BACKEND=cpu test-shared-builds; \
	 { $(MAKE) --no-print-directory -k -Otarget $(2) 2>&1; echo $$? > $(TEST_OUT)/test.status; } | tee $(TEST_OUT)/test.log; \
	 tools/test/test_summary.sh $(TEST_OUT)/test.log $$(cat $(TEST_OUT)/test.status) "$(1)"; $(finish_lab)
endef
.PHONY: test-all
test: test-deps
	$(call run_test_tier,make test,test-parts-quick)
	@echo "   (the whole suite, as CI runs it: make test-all)"
test-all: test-deps
	$(call run_test_tier,make test-all,test-parts-all)

-include $(call live_deps,$(TEST_OUT))
