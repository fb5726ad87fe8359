# The GPU build. Two programs per lab (issue 8, docs/architecture.md):
#   build/cuda/check/labN               the checker: harness/checker + harness/wire + harness/lab_specs/labN
#                                       (checks, timing), never a lab file
#   build/cuda/labs/labN-runner         the kernel runner: your lab file + harness/runner + harness/wire
#                                       + harness/lab_specs/labN/runner_entry.cpp
#   build/cuda/solutions/labN-runner    the same for the reference solution
# `make labN` builds both and runs the checker, which starts the runner itself.

NVCC ?= nvcc
# Through symlinks first: for a linked nvcc (/usr/bin/nvcc -> /opt/cuda/bin/nvcc, say) the
# toolkit, and its include/, is where the link points, not /usr.
CUDA_HOME ?= $(patsubst %/bin/nvcc,%,$(realpath $(shell command -v $(NVCC) 2>/dev/null)))
ifeq ($(origin ARCH), undefined)
  # The Makefile's probe of the GPU (GPU_CAP), else the default.
  ARCH := $(or $(GPU_CAP),$(DEFAULT_ARCH))
endif

CUDA_OUT := build/cuda
# CUDALAB_GPU_CHECKER: the checker has a GPU of its own to compute references on
# (checker/judging/fill_reference.h). The harness's code names what it includes from harness/.
CHECK_INCLUDES := -Iharness -Iharness/include -DCUDALAB_GPU_CHECKER
RUN_INCLUDES := -Iharness/include -Iharness
# -Wno-restrict: GCC 12 warns falsely on std::string concatenation (GCC bug 105329).
CXXFLAGS_COMMON := -std=c++20 -O2 -Wall -Wextra -Wno-restrict
NVCC_BASE := -std=c++20 -O3 -lineinfo -gencode arch=compute_$(ARCH),code=[sm_$(ARCH),compute_$(ARCH)] -Xcompiler -Wall -MMD -MP
HOST_CXX_BASE := g++ $(CXXFLAGS_COMMON) -isystem $(CUDA_HOME)/include -MMD -MP

# What each program is made of. The checker's lab-specific parts: lab_specs/labN/checks.cpp and
# lab_specs/labN/timing.cpp; the runner's: lab_specs/labN/runner_entry.cpp and the lab file.
CHECK_SRCS := $(filter-out harness/checker/run/main.cpp,$(wildcard harness/checker/*/*.cpp))
CHECK_GPU_SRCS := $(wildcard harness/checker/gpu/*.cu)
COMMON_SRCS := $(filter-out harness/wire/shared_device_memory_none.cpp,$(wildcard harness/wire/*.cpp))
RUN_SRCS := $(filter-out harness/runner/%_cpu.cpp,$(wildcard harness/runner/*.cpp))

cuda_objs = $(patsubst harness/%,$(CUDA_OUT)/$(1)/%.o,$(basename $(2)))
CUDA_CHECK_OBJS := $(call cuda_objs,checker,$(CHECK_SRCS) $(CHECK_GPU_SRCS) $(COMMON_SRCS) harness/wire/fill_gpu.cu harness/wire/shared_device_memory.cu)
CUDA_RUN_OBJS := $(call cuda_objs,runner,$(RUN_SRCS) $(COMMON_SRCS) harness/wire/fill_gpu.cu harness/wire/shared_device_memory.cu harness/runner/runner_gpu.cu)
CUDA_CHECK_LIB := $(CUDA_OUT)/lib/libcudalab_check.a
CUDA_RUN_LIB := $(CUDA_OUT)/lib/libcudalab_run.a
CUDA_CHECK_MAIN := $(CUDA_OUT)/checker/checker/run/main.o
# The runner links the shared CUDA runtime: its launch record stands in front of the runtime's
# launch entry points (harness/runner/launch_record_gpu.cpp).
CUDA_RUN_LINK := -cudart shared -ldl $(CUDA_RUNNER_WRAP) -Xlinker -rpath,$(CUDA_HOME)/lib64 -Xlinker -rpath,$(CUDA_HOME)/targets/x86_64-linux/lib

$(CUDA_OUT)/checker/%.o: harness/%.cpp
	@mkdir -p $(@D)
	$(SAY) "build harness/$*.cpp (checker)"
	$(Q)$(HOST_CXX_BASE) $(CHECK_INCLUDES) -c $< -o $@
$(CUDA_OUT)/checker/%.o: harness/%.cu
	@mkdir -p $(@D)
	$(SAY) "build harness/$*.cu (checker)"
	$(Q)$(NVCC) $(NVCC_BASE) $(CHECK_INCLUDES) -c $< -o $@
$(CUDA_OUT)/runner/%.o: harness/%.cpp
	@mkdir -p $(@D)
	$(SAY) "build harness/$*.cpp"
	$(Q)$(HOST_CXX_BASE) $(RUN_INCLUDES) -c $< -o $@
$(CUDA_OUT)/runner/%.o: harness/%.cu
	@mkdir -p $(@D)
	$(SAY) "build harness/$*.cu"
	$(Q)$(NVCC) $(NVCC_BASE) $(RUN_INCLUDES) -c $< -o $@
# Made afresh: `ar rcs` keeps the members it is not given, and a source moved to another folder
# would leave its old object in the archive, which the linker may still pick.
$(CUDA_CHECK_LIB): $(CUDA_CHECK_OBJS)
	@mkdir -p $(@D)
	$(Q)rm -f $@ && ar rcs $@ $^
$(CUDA_RUN_LIB): $(CUDA_RUN_OBJS)
	@mkdir -p $(@D)
	$(Q)ar rcs $@ $^

cuda_checker_objs = $(CUDA_OUT)/checker/lab_specs/lab$(1)/checks.o $(CUDA_OUT)/checker/lab_specs/lab$(1)/timing.o
cuda_entry_obj = $(CUDA_OUT)/runner/lab_specs/lab$(1)/runner_entry.o

# Lab N's baseline runner: the harness's own kernels (naive, CUB, cuBLAS, lab 9's ladder) in a
# kernel runner of their own, so that the checker times them as it times the student's code
# (harness/baselines/entry.cpp, checker/timing/baseline_timing.h). Trusted: harness/ only, no lab file.
CUDA_BASELINE_OBJS := $(call cuda_objs,runner,$(wildcard harness/baselines/*.cu))
CUDA_BASELINE_LIB := $(CUDA_OUT)/lib/libcudalab_baselines.a
$(CUDA_BASELINE_LIB): $(CUDA_BASELINE_OBJS)
	@mkdir -p $(@D)
	$(Q)ar rcs $@ $^
# A static pattern: only the labs' entries (make's built-in `%: %.o` would otherwise "remake" an
# included entry_labN.d from entry_labN.d.o, with N = "N.d").
CUDA_BASELINE_ENTRIES := $(foreach n,$(LABS),$(CUDA_OUT)/runner/baselines/entry_lab$(n).o)
$(CUDA_BASELINE_ENTRIES): $(CUDA_OUT)/runner/baselines/entry_lab%.o: harness/baselines/entry.cpp
	@mkdir -p $(@D)
	$(SAY) "build harness/baselines/entry.cpp (lab $*)"
	$(Q)$(HOST_CXX_BASE) $(RUN_INCLUDES) -DCUDALAB_BASELINE_LAB=$* -c $< -o $@
$(CUDA_OUT)/baselines/lab%-runner: $(CUDA_OUT)/runner/baselines/entry_lab%.o $(CUDA_BASELINE_LIB) $(CUDA_RUN_LIB)
	@mkdir -p $(@D)
	$(Q)$(NVCC) $(NVCC_BASE) $^ $(CUDA_RUN_LINK) -lcublas -o $@

# The checker of lab N (the same for labs/, solutions/ and every submission), with its baseline
# runner beside it (the checker finds it from its own path).
$(CUDA_OUT)/check/lab%: $$(call cuda_checker_objs,$$*) $(CUDA_CHECK_MAIN) $(CUDA_CHECK_LIB) | $(CUDA_OUT)/baselines/lab%-runner
	@mkdir -p $(@D)
	$(Q)$(NVCC) $(NVCC_BASE) $^ -lcublas -o $@

# A lab file, compiled as the runner sees it.
# Each compiled lab file is judged by the link contract before anything links it (mk/contract.mk).
$(CUDA_OUT)/labs/lab%.o: $$(wildcard labs/lab$$*_*.cu) | $(CONTRACT_TOOL)
	@mkdir -p $(@D)
	$(SAY) "build $<"
	$(Q)$(NVCC) $(NVCC_BASE) -Iharness/include -DCUDALAB_SOURCE_FILE='"$<"' -c $< -o $@ || { $(quiet_stop); }
	$(Q)$(call judge_contract,$*,cuda,$<,$@)
$(CUDA_OUT)/solutions/lab%.o: $$(wildcard solutions/lab$$*_*.cu) | $(CONTRACT_TOOL)
	@mkdir -p $(@D)
	$(SAY) "build $<"
	$(Q)$(NVCC) $(NVCC_BASE) -Iharness/include -DCUDALAB_SOURCE_FILE='"$<"' -c $< -o $@ || { $(quiet_stop); }
	$(Q)$(call judge_contract,$*,cuda,$<,$@)
$(CUDA_OUT)/labs/lab%-runner: $(CUDA_OUT)/labs/lab%.o $$(call cuda_entry_obj,$$*) $(CUDA_RUN_LIB)
	$(Q)$(NVCC) $(NVCC_BASE) $^ $(CUDA_RUN_LINK) -o $@
$(CUDA_OUT)/solutions/lab%-runner: $(CUDA_OUT)/solutions/lab%.o $$(call cuda_entry_obj,$$*) $(CUDA_RUN_LIB)
	$(Q)$(NVCC) $(NVCC_BASE) $^ $(CUDA_RUN_LINK) -o $@

# The stubs as the repository ships them (make test; mk/test.mk exports them from git), and the
# planted-bug fixtures (tests/fixtures/labN_*.cu), each as a runner of its lab.
define cuda_shipped_rule
$(CUDA_OUT)/shipped/$(firstword $(subst _, ,$(notdir $(1)))).o: $(1) | $(CONTRACT_TOOL)
	@mkdir -p $$(@D)
	$(SAY) "build $(1)"
	$(Q)$(NVCC) $(NVCC_BASE) $(STUB_QUIET_NVCC) -Iharness/include -DCUDALAB_SOURCE_FILE='"$(1)"' -c $$< -o $$@
	$(Q)$$(call judge_contract,$(patsubst lab%,%,$(firstword $(subst _, ,$(notdir $(1))))),cuda,$(1),$$@)
endef
$(foreach f,$(SHIPPED_SRCS),$(eval $(call cuda_shipped_rule,$(f))))
$(CUDA_OUT)/shipped/lab%-runner: $(CUDA_OUT)/shipped/lab%.o $$(call cuda_entry_obj,$$*) $(CUDA_RUN_LIB)
	$(Q)$(NVCC) $(NVCC_BASE) $^ $(CUDA_RUN_LINK) -o $@
cuda_fixture_lab = $(patsubst lab%,%,$(firstword $(subst _, ,$(1))))
$(CUDA_OUT)/fixtures/%: tests/fixtures/%.cu $$(call cuda_entry_obj,$$(call cuda_fixture_lab,$$*)) $(CUDA_RUN_LIB) | $(CONTRACT_TOOL)
	@mkdir -p $(@D)
	$(SAY) "build $<"
	$(Q)$(NVCC) $(NVCC_BASE) -Iharness/include -DCUDALAB_SOURCE_FILE='"$<"' -c $< -o $@.o
	$(Q)$(call judge_contract,$(call cuda_fixture_lab,$*),cuda,$<,$@.o)
	$(Q)$(NVCC) $(NVCC_BASE) $@.o $(wordlist 2,1000,$^) $(CUDA_RUN_LINK) -o $@

# make lab-runner LAB=3 SRC=path/to/file.cu OUT=path/to/runner: a runner from any lab source,
# with the instructor's harness and flags (the grader builds submissions so).
cuda-lab-runner: $$(call cuda_entry_obj,$$(LAB)) $(CUDA_RUN_LIB) | $(CONTRACT_TOOL)
	@test -n "$(LAB)" -a -n "$(SRC)" -a -n "$(OUT)" || { echo "usage: make lab-runner LAB=3 SRC=file.cu OUT=runner"; exit 2; }
	@mkdir -p $(dir $(OUT))
	$(Q)$(NVCC) $(NVCC_BASE) -Iharness/include -DCUDALAB_SOURCE_FILE='"$(SRC)"' -c $(SRC) -o $(OUT).o
	$(Q)$(call judge_contract,$(LAB),cuda,$(SRC),$(OUT).o)
	$(Q)$(NVCC) $(NVCC_BASE) $(OUT).o $^ $(CUDA_RUN_LINK) -o $(OUT)
cuda-lab-checker: $(CUDA_OUT)/check/lab$(LAB)

# A runner that lies about its time, for tests/gpu/timing_bound.sh only: lab N's reference
# solution with tests/gpu/lying_events.cpp in front of the runtime's cudaEventElapsedTime. The
# production runner has no way to be told to lie; this one is a test's own link.
$(CUDA_OUT)/tests/lying_events.o: tests/gpu/lying_events.cpp
	@mkdir -p $(@D)
	$(SAY) "build tests/gpu/lying_events.cpp"
	$(Q)$(HOST_CXX_BASE) -c $< -o $@
$(CUDA_OUT)/tests/lab%-lying-runner: $(CUDA_OUT)/tests/lying_events.o $(CUDA_OUT)/solutions/lab%.o $$(call cuda_entry_obj,$$*) $(CUDA_RUN_LIB)
	$(Q)$(NVCC) $(NVCC_BASE) $^ $(CUDA_RUN_LINK) -o $@

# The runner's GPU fills against the host's (tests/gpu/fill_agreement.cu): compiled by make test,
# run on a GPU by tools/gpu/gpu_session.sh.
$(CUDA_OUT)/tests/fill_agreement: tests/gpu/fill_agreement.cu $(CUDA_RUN_LIB)
	@mkdir -p $(@D)
	$(SAY) "build tests/gpu/fill_agreement.cu"
	$(Q)$(NVCC) $(NVCC_BASE) -Iharness/include -Iharness/wire -Iharness $(filter %.cu %.a,$^) $(CUDA_RUN_LINK) -o $@

# Compile everything of the kit as shipped (CI does this with no GPU); your own labs/ are
# make labN's business.
cuda-build-all: $(foreach n,$(LABS),$(CUDA_OUT)/check/lab$(n) $(CUDA_OUT)/solutions/lab$(n)-runner) \
                $(foreach f,$(SHIPPED_STUBS),$(CUDA_OUT)/shipped/$(firstword $(subst _, ,$(notdir $(f))))-runner)

.SECONDARY:
-include $(call live_deps,$(CUDA_OUT))

# What each step of labs 6-8 buys on a GPU (tools/measure/bench_steps; a benchmark, not a test):
# the figures the notebooks quote. `make bench-steps && build/bench/bench_steps`.
BENCH_STEPS := build/bench/bench_steps
$(BENCH_STEPS): $(wildcard tools/measure/bench_steps/*.cu tools/measure/bench_steps/*.cuh)
	@mkdir -p $(@D)
	$(SAY) "build tools/measure/bench_steps"
	$(Q)$(NVCC) $(filter-out -MMD -MP,$(NVCC_BASE)) -Itools/measure/bench_steps tools/measure/bench_steps/bench_steps.cu -o $@
.PHONY: bench-steps
bench-steps: $(BENCH_STEPS)
