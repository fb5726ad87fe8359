# make test: the kit as shipped, tested. Unit tests of the harness, a compile of every shipped
# stub and solution for the GPU (when nvcc is here), and every solution, shipped stub and
# planted-bug fixture run through the checks on the GPU, or on the CPU backend where there is no
# GPU. Other fragments add their own test-* targets to TEST_TARGETS.
#
# `make test` installs (or names) what it needs first, runs every part even when one fails
# (make -k), and closes with one line over all of them: "N passed, N failed, N skipped"
# (tools/test_summary.sh counts doctest's test cases and the fixture scripts' PASS/FAIL lines).

TEST_OUT := build/tests
TEST_CXX := g++ -std=c++20 -O1 -Wall -Wextra -Wno-restrict -Iharness/include -Iharness -DCUDALAB_CONTRACT_ONLY -MMD -MP
# The checker's logic that needs no GPU and no runner, and the protocol both sides speak.
UNIT_CHECK := core/options judging/tolerance judging/diagnose timing/stats report/json_writer report/run_record_json \
              core/shape core/cause judging/sum_reference calls/sanitizer_digest timing/timing_bound calls/runner_words \
              timing/gpu_gate judging/index_width judging/matrix_reference
UNIT_WIRE := random protocol
UNIT_OBJS := $(patsubst %,$(TEST_OUT)/checker/%.o,$(UNIT_CHECK)) $(patsubst %,$(TEST_OUT)/wire/%.o,$(UNIT_WIRE)) \
             $(patsubst tests/unit/%.cpp,$(TEST_OUT)/unit/%.o,$(wildcard tests/unit/*.cpp))

$(TEST_OUT)/checker/%.o: harness/checker/%.cpp | unit-deps
	@mkdir -p $(@D)
	$(SAY) "build harness/checker/$*.cpp (unit tests)"
	$(Q)$(TEST_CXX) -c $< -o $@
$(TEST_OUT)/wire/%.o: harness/wire/%.cpp | unit-deps
	@mkdir -p $(@D)
	$(SAY) "build harness/wire/$*.cpp (unit tests)"
	$(Q)$(TEST_CXX) -c $< -o $@
$(TEST_OUT)/unit/%.o: tests/unit/%.cpp | unit-deps
	@mkdir -p $(@D)
	$(SAY) "build tests/unit/$*.cpp"
	$(Q)$(TEST_CXX) -c $< -o $@
$(TEST_OUT)/unit_tests: $(UNIT_OBJS)
	$(Q)$(TEST_CXX) $^ -pthread -o $@
# make bench-references: the host's share of the largest checks, timed in isolation
# (tools/bench_references.cpp; the CPU backend's checker library, so the host paths).
.PHONY: bench-references
$(TEST_OUT)/bench_references: tools/bench_references.cpp $(CPU_CHECK_LIB)
	@mkdir -p $(@D)
	$(Q)g++ -std=c++20 -O2 -pthread -DCUDALAB_BACKEND_CPU=1 $(CPU_CHECK_INCLUDES) $^ -o $@
bench-references: $(TEST_OUT)/bench_references
	@./$<
$(TEST_OUT)/labs_test: tests/integration/labs_test.cpp | unit-deps
	@mkdir -p $(@D)
	$(SAY) "build tests/integration/labs_test.cpp"
	$(Q)$(TEST_CXX) $< -o $@

.PHONY: test-unit test-build test-labs test-parts shipped-stubs
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
# (and the GPU timing test's lying runner, tests/gpu/timing_bound.sh, so that it cannot rot unseen)
test-build: cuda-build-all $(CUDA_OUT)/tests/lab3-lying-runner
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
	@printf '%s\n' $(FIXTURE_SRCS) > build/$*/fixtures/list.txt
.PHONY: FORCE
FORCE:

# The labs run where kernels can run: the GPU, else the CPU backend when it is built in.
LAB_TEST_BACKEND := $(if $(filter cuda,$(BACKEND)),cuda,$(if $(wildcard mk/cpu.mk),cpu,none))
test-labs: $(TEST_OUT)/labs_test $(if $(filter none,$(LAB_TEST_BACKEND)),,$(LAB_TEST_BACKEND)-build-all fixtures-$(LAB_TEST_BACKEND))
	@echo "== every solution, shipped stub and planted bug through the checks ($(LAB_TEST_BACKEND) backend)"
	@CUDALAB_TEST_BACKEND=$(LAB_TEST_BACKEND) CUDALAB_TEST_BUILD=build/$(LAB_TEST_BACKEND) ./$(TEST_OUT)/labs_test

TEST_TARGETS := test-unit test-build test-labs $(TEST_TARGETS)
test-parts: $(TEST_TARGETS)

# The parts run in a make of their own with -k, its output grouped per part (-Otarget) and kept
# in build/tests/test.log, so that the closing line can count every part, failed or not.
test: test-deps
	@mkdir -p $(TEST_OUT)
	@$(if $(filter yes,$(SHIPPED_FROM_GIT)),,echo "cudalab: no git repository here: the stubs tested are the working copy's labs/";) \
	 { $(MAKE) --no-print-directory -k -Otarget test-parts 2>&1; echo $$? > $(TEST_OUT)/test.status; } | tee $(TEST_OUT)/test.log; \
	 tools/test_summary.sh $(TEST_OUT)/test.log $$(cat $(TEST_OUT)/test.status); $(finish_lab)

-include $(shell find $(TEST_OUT) -name '*.d' 2>/dev/null)
