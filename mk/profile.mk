# PROFILE=1 (issue 31): why a lab is slow, after its checks. On the CPU backend the lab file and
# the reference solution are built once more as profile runners (the emulator counts warp
# requests: harness/runner/emulator/profile.h) and the checker digests their counts
# (harness/checker/profile/); on a GPU tools/gpu/gpu_profile.sh runs Nsight Compute over both.
#
#   make lab4 PROFILE=1                 the report, then "Why it is slow"
#   build/cpu/profile/labs/labN-runner, build/cpu/profile/solutions/labN-runner
#   build/cpu/profile/variants/NAME     a known-slow variant (tests/profile/NAME.cu) as a runner
#   make test-profile                   each variant's diagnosis names its reason; the reference none

PROFILE_DIR := $(CPU_OUT)/profile
# Only the emulator and the lab code differ from the plain build (the harness's own code does not
# look at CUDALAB_CPU_PROFILE): the runner's pieces are the plain build's, already there for the
# plain runners, and make test builds only the emulator and the lab files again.
PROFILE_RUN_OBJS := $(CPU_OUT)/obj/runner/launch_record_cpu.o $(CPU_OUT)/obj/runner/runner_cpu.o
PROFILE_LIBS := $(CPU_OUT)/lib/libcudalab_run.a $(PROFILE_DIR)/lib/libcudalab_cpu.a
profile_entry = $(CPU_OUT)/obj/lab_specs/lab$(1)/runner_entry.o

.SECONDEXPANSION:
$(PROFILE_DIR)/labs/lab%-runner: $(PROFILE_DIR)/obj/labs/lab%.o $$(call profile_entry,$$*) $(PROFILE_RUN_OBJS) $(PROFILE_LIBS) | cpu-deps
	@mkdir -p $(@D)
	$(Q)$(CPU_CXX) $(CPU_LINK_profile) $(filter %.o %.a,$^) $(CPU_RUNNER_WRAP) $(CPU_LIBS) -o $@
$(PROFILE_DIR)/solutions/lab%-runner: $(PROFILE_DIR)/obj/solutions/lab%.o $$(call profile_entry,$$*) $(PROFILE_RUN_OBJS) $(PROFILE_LIBS) | cpu-deps
	@mkdir -p $(@D)
	$(Q)$(CPU_CXX) $(CPU_LINK_profile) $(filter %.o %.a,$^) $(CPU_RUNNER_WRAP) $(CPU_LIBS) -o $@
# A known-slow variant: our own file, so no link contract to judge (tests/profile/README.md).
$(PROFILE_DIR)/variants/%: $(PROFILE_DIR)/gen/tests/profile/%.o $$(call profile_entry,$$(call fixture_lab,$$*)) $(PROFILE_RUN_OBJS) $(PROFILE_LIBS) | cpu-deps
	@mkdir -p $(@D)
	$(SAY) "build tests/profile/$*.cu (profile)"
	$(Q)$(CPU_CXX) $(CPU_LINK_profile) $(filter %.o %.a,$^) $(CPU_RUNNER_WRAP) $(CPU_LIBS) -o $@

# make labN PROFILE=1 / solutionN PROFILE=1 on the CPU backend: the checker is given the two
# profile runners, built here first. On a GPU, tools/gpu/gpu_profile.sh runs after the report, when
# every check passed (profile_after_lab, in the lab's recipe).
profile_after_lab =
ifeq ($(PROFILE),1)
ifeq ($(BACKEND),cpu)
$(foreach l,$(LABS),$(eval lab$(l): $(PROFILE_DIR)/labs/lab$(l)-runner $(PROFILE_DIR)/solutions/lab$(l)-runner))
$(foreach l,$(LABS),$(eval solution$(l): $(PROFILE_DIR)/solutions/lab$(l)-runner))
$(foreach l,$(LABS),$(eval lab$(l): override ARGS += --profile-runner $(PROFILE_DIR)/labs/lab$(l)-runner --profile-reference $(PROFILE_DIR)/solutions/lab$(l)-runner))
$(foreach l,$(LABS),$(eval solution$(l): override ARGS += --profile-runner $(PROFILE_DIR)/solutions/lab$(l)-runner --profile-reference $(PROFILE_DIR)/solutions/lab$(l)-runner))
else
# $(1): the lab's number, $(2): labs or solutions (whose runner is profiled).
profile_after_lab = ; tools/gpu/gpu_profile.sh --lab $(1) --runner build/cuda/$(2)/lab$(1)-runner --reference build/cuda/solutions/lab$(1)-runner
$(foreach l,$(LABS),$(eval lab$(l): build/cuda/solutions/lab$(l)-runner))
endif
endif

# make test-profile: the known-slow variants and the references they are judged beside.
PROFILE_VARIANTS := $(patsubst tests/profile/%.cu,%,$(wildcard tests/profile/lab*_*.cu))
PROFILE_VARIANT_LABS := $(sort $(foreach v,$(PROFILE_VARIANTS),$(call fixture_lab,$(v))))
.PHONY: test-profile
TEST_TARGETS += test-profile
test-profile: $(addprefix $(PROFILE_DIR)/variants/,$(PROFILE_VARIANTS)) \
              $(foreach l,$(PROFILE_VARIANT_LABS),$(PROFILE_DIR)/solutions/lab$(l)-runner $(CPU_OUT)/check/lab$(l)) \
              $(CPU_OUT)/check/profile-ncu
	@echo "== PROFILE=1 on the CPU backend: known-slow variants named, references quiet"
	@tests/planted/run.py profile --build $(CPU_OUT)
	@echo "== PROFILE=1's GPU digest over real Nsight Compute reports (tests/profile/ncu)"
	@tests/profile/ncu/run.sh $(CPU_OUT)/check/profile-ncu

# The GPU path's digest of Nsight Compute's reports (tools/gpu/gpu_profile.sh): plain C++, built on
# either backend from the checker's objects, so `make test` compiles it everywhere.
PROFILE_NCU_OBJS := $(patsubst %,$(CPU_OUT)/checker/checker/profile/%.o,ncu_figures profile_digest profile_figures) \
                    $(CPU_OUT)/checker/checker/profile/ncu/main.o
$(CPU_OUT)/check/profile-ncu: $(PROFILE_NCU_OBJS)
	@mkdir -p $(@D)
	$(Q)$(CPU_CXX) $^ -o $@
