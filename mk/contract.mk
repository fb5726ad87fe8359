# The link contract (docs/link_contract.md): every lab file's compiled object is judged by
# build/contract/cudalab-contract before it is linked into a kernel runner, on both backends,
# in `make labN` and in the grader's jailed build alike. The tool is trusted code built from
# harness/contract alone (plain g++, no lab file, no CUDA).

CONTRACT_TOOL := build/contract/cudalab-contract
CONTRACT_SRCS := $(wildcard harness/contract/*.cpp)

$(CONTRACT_TOOL): $(CONTRACT_SRCS) $(wildcard harness/contract/*.h)
	@mkdir -p $(@D)
	$(SAY) "build harness/contract (the link contract)"
	$(Q)g++ -std=c++20 -O2 -Wall -Wextra -Iharness/contract $(CONTRACT_SRCS) -o $@

# $(call judge_contract,LAB,BACKEND,SOURCE,OBJECT): the object is removed when it breaks the
# contract, so nothing links it and the next make judges it again.
# OBJECT.breaches lists the broken rules as data ("kind<TAB>symbol"), for the grader; it exists
# only when a rule is broken; the tool has said why, so `make labN` stops without make's banner
# (quiet_stop, Makefile). A fifth argument, "sanitized", says the object was built with -fsanitize (CHECK=asan/race).
judge_contract = $(CONTRACT_TOOL) --lab $(1) --backend $(2) --header harness/include/cudalab/lab$(1).h --source $(3) $(if $(filter sanitized,$(5)),--sanitized) --breaches $(4).breaches $(4) || { rc=$$?; rm -f $(4); $(call quiet_stop,$$rc); }

.PHONY: contract-tool
contract-tool: $(CONTRACT_TOOL)

# The contract's own tests: attackers refused for their reason, honest code accepted, the same
# verdict from nvcc's object and from the CPU backend's (tests/contract).
TEST_TARGETS += test-contract
.PHONY: test-contract
test-contract: $(CONTRACT_TOOL)
	@echo "== the link contract: attacks refused, honest code accepted, on both backends"
	@tests/planted/run.py contract --tool $(CONTRACT_TOOL) --nvcc $(NVCC)

# The boundary the OS and the runner hold (docs/link_contract.md): whole files the contract has
# nothing to refuse in, run through the checks on this machine's backend: each attack stopped at
# run time for its reason, each honest file (tests/contract/honest too) passing every check.
TEST_TARGETS += test-boundary
.PHONY: test-boundary
test-boundary: $(CONTRACT_TOOL) build/$(BACKEND)/check/lab3
	@echo "== the boundary: attacks the contract cannot see, stopped at run time; honest files accepted ($(BACKEND))"
	@tests/planted/run.py boundary --backend $(BACKEND)

# The attackers graded as a class by the real grader, as root, on the CPU backend: one of each
# route (the harness's internals, a C-library name, a host copy, the emulator's controls, a
# macro-made timer, code before main; device memory's protection lifted through no name) gets 0
# points and its reason; an honest file and a reference copy beside them get every point (the rest
# of tests/boundary runs in test-boundary; `tests/contract/grade_attacks.sh GRADER cpu NAME...`
# grades any of them as a class). `tests/contract/grade_attacks.sh GRADER cuda` grades them all on
# a GPU machine.
TEST_TARGETS += test-contract-grading
CONTRACT_GRADED_ATTACKS := lab3_calls_launch_record lab3_defines_send lab3_memcpy2d_to_host lab3_schedule_off \
                           lab3_event_time_by_macro lab3_constructor_before_main \
                           lab3_loader_lookup_unprotect_device lab3_copies_streams_overloads
.PHONY: test-contract-grading
# (The grader's paths are spelled out: mk/grading.mk, which names them, is read after this file.)
test-contract-grading: build/grading/cudalab-grade build/grading/cudalab-jail | cpu-build-all
	@echo "== the link contract's attackers graded as a class (CPU backend, as root)"
	@if [ "$$(id -u)" -ne 0 ]; then echo "SKIP  attack class: the grader's jail needs root"; \
	 else tests/contract/grade_attacks.sh build/grading/cudalab-grade cpu $(CONTRACT_GRADED_ATTACKS); fi
