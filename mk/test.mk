# make test: unit tests of the harness, a compile of every lab and solution for the GPU,
# and every solution and stub run through the checks on the GPU, or on the CPU backend
# where there is no GPU. Other fragments add their own test-* targets to TEST_TARGETS.

TEST_OUT := build/tests
TEST_CXX := g++ -std=c++20 -O1 -Wall -Wextra -Wno-restrict -Iharness/include -Iharness/core -MMD -MP
# The harness logic that needs no GPU and no CUDA runtime.
UNIT_CORE := options tolerance diagnose stats json_writer run_record_json shape random sum_reference
UNIT_OBJS := $(patsubst %,$(TEST_OUT)/core/%.o,$(UNIT_CORE)) \
             $(patsubst tests/unit/%.cpp,$(TEST_OUT)/unit/%.o,$(wildcard tests/unit/*.cpp))

$(TEST_OUT)/core/%.o: harness/core/%.cpp
	@mkdir -p $(@D)
	$(TEST_CXX) -c $< -o $@
$(TEST_OUT)/unit/%.o: tests/unit/%.cpp
	@mkdir -p $(@D)
	$(TEST_CXX) -c $< -o $@
$(TEST_OUT)/unit_tests: $(UNIT_OBJS)
	$(TEST_CXX) $^ -pthread -o $@
$(TEST_OUT)/labs_test: tests/integration/labs_test.cpp
	@mkdir -p $(@D)
	$(TEST_CXX) $< -o $@

.PHONY: test-unit test-build test-labs
test-unit: $(TEST_OUT)/unit_tests
	./$<

test-build: cuda-build-all

# Planted-bug fixtures: lab binaries built from tests/fixtures/labN_*.cu with the real harness.
FIXTURE_SRCS := $(wildcard tests/fixtures/lab*_*.cu)
fixtures-%: FORCE
	@mkdir -p build/$*/fixtures
	@printf '%s\n' $(FIXTURE_SRCS) > build/$*/fixtures/list.txt
	@for f in $(FIXTURE_SRCS); do \
	  name=$$(basename $$f .cu); lab=$$(echo $$name | cut -c4); \
	  if grep -q '^// backends:' $$f && ! grep -q "^// backends:.*$*" $$f; then continue; fi; \
	  $(MAKE) --no-print-directory BACKEND=$* lab-binary LAB=$$lab SRC=$$f OUT=build/$*/fixtures/$$name >/dev/null || exit 1; \
	done
.PHONY: FORCE
FORCE:

# The labs run where kernels can run: the GPU, else the CPU backend when it is built in.
LAB_TEST_BACKEND := $(if $(filter cuda,$(BACKEND)),cuda,$(if $(wildcard mk/cpu.mk),cpu,none))
test-labs: $(TEST_OUT)/labs_test $(if $(filter none,$(LAB_TEST_BACKEND)),,$(LAB_TEST_BACKEND)-build-all fixtures-$(LAB_TEST_BACKEND))
	CUDALAB_TEST_BACKEND=$(LAB_TEST_BACKEND) CUDALAB_TEST_BUILD=build/$(LAB_TEST_BACKEND) ./$(TEST_OUT)/labs_test

TEST_TARGETS := test-unit test-build test-labs $(TEST_TARGETS)
test: $(TEST_TARGETS)

-include $(shell find $(TEST_OUT) -name '*.d' 2>/dev/null)
