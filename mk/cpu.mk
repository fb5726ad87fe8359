# The CPU backend (issue 3): the unchanged lab files, rewritten for g++ and run on the
# fiber emulator in harness/runner/emulator. Needs only g++, perl and Boost.Context.
#
#   build/cpu/check/labN                               the checker (plain C++: no CUDA, no lab file)
#   build/cpu/labs/labN-runner, solutions/labN-runner  kernel runners (CHECK= picks the variant)
#   make cpu-lab-runner LAB=3 SRC=file.cu OUT=runner    any lab source (the grader's submissions)
#   make test-cpu                                       emulator unit tests and planted-bug fixtures
#   make bench-cpu                                      emulated threads per second (not a test)
#   make cpu-deps                                       installs Boost.Context if it may, else says how
#
# CHECK= takes the same names as on a GPU (Makefile), each mapped to a build of the runner:
#   memcheck (asan)   AddressSanitizer + UBSan bounds checks (fibers annotated)
#   racecheck (race)  the emulator's race detector (harness/runner/emulator/race.h): lab code compiled with
#                     -fsanitize=thread's hooks, which race.cpp defines itself (no libtsan), and with
#                     -fsanitize=bounds, whose handler bounds.cpp defines (no libubsan)
#   synccheck         the default build: its barrier and warp checks are always on
#   initcheck         the memcheck build (AddressSanitizer does not see reads of memory never
#                     written; the harness's NaN-poisoned outputs show most of those anyway)
# Objects of every variant live in their own directory (build/cpu, build/cpu/asan,
# build/cpu/race); the runners are relinked when CHECK changes.

CPU_OUT := build/cpu
CPU_CXX ?= g++
CPU_PERL ?= perl

CPU_CHECK := $(strip $(patsubst memcheck,asan,$(patsubst initcheck,asan,$(patsubst racecheck,race,$(patsubst synccheck,,$(CHECK))))))
# The two names whose CPU build is not a tool of their own say what runs instead, in one line.
ifeq ($(BACKEND),cpu)
  ifeq ($(CHECK),synccheck)
    $(info cudalab: CHECK=synccheck on the CPU backend is the plain run: its barrier and warp checks are always on)
  endif
  ifeq ($(CHECK),initcheck)
    $(info cudalab: CHECK=initcheck on the CPU backend runs memcheck's build (AddressSanitizer): it does not see reads of memory never written)
  endif
endif
CPU_VARIANT_DIR = $(if $(filter asan,$(1)),$(CPU_OUT)/asan,$(if $(filter race,$(1)),$(CPU_OUT)/race,$(CPU_OUT)))
CPU_VARIANT := $(call CPU_VARIANT_DIR,$(CPU_CHECK))
# CHECK=asan: the sanitizer writes its reports to files, and the checker shows them digested
# under each check (harness/checker/calls/sanitizer_digest.h); every report stays in
# build/cpu/asan/reports/all-reports.txt. (CHECK=race's reports are the emulator's notes.)
ifneq ($(and $(filter cpu,$(BACKEND)),$(filter asan,$(CPU_CHECK))),)
  override ARGS += --sanitizer-log $(CPU_VARIANT)/reports
endif

# Lab code sees the emulator's CUDA headers and the lab headers only; the harness's own code
# names what it includes from harness/ (runner/..., wire/...), which tests/architecture checks.
CPU_LAB_INCLUDES := -Iharness/runner/emulator/include -Iharness/include
CPU_RUN_INCLUDES := $(CPU_LAB_INCLUDES) -Iharness
CPU_CHECK_INCLUDES := -Iharness -Iharness/include -DCUDALAB_CONTRACT_ONLY
CPU_COMMON := -std=c++20 -pthread -Wall -Wextra -Wno-restrict -Wno-unused-parameter -Wno-sign-compare -Wno-unknown-pragmas -DCUDALAB_BACKEND_CPU=1 -MMD -MP
# Per variant: flags for harness code, for lab code, for the emulator itself, link flags.
CPU_CODE_plain := -O2 -g
CPU_LAB_plain := $(CPU_CODE_plain)
CPU_EMU_plain := -O2 -g
CPU_LINK_plain :=
CPU_SAN_asan := -fsanitize=address,undefined -fsanitize=bounds-strict -fno-sanitize-recover=all -fno-omit-frame-pointer
CPU_CODE_asan := -O1 -g $(CPU_SAN_asan)
CPU_LAB_asan := $(CPU_CODE_asan)
CPU_EMU_asan := -O1 -g $(CPU_SAN_asan) -DCUDALAB_CPU_ASAN=1
CPU_LINK_asan := $(CPU_SAN_asan)
# Only lab code calls the detector's hooks: the harness's and the emulator's own accesses are
# not the lab's races. libbacktrace (GCC's own, in libgcc-dev) names the lines.
CPU_CODE_race := -O1 -g -DCUDALAB_CPU_RACE=1
# (-Wno-tsan: GCC warns that it leaves fences to the hooks; race.cpp makes them.)
# Lab code cannot tell this build from the others: no CUDALAB_CPU_RACE, no __SANITIZE_THREAD__ (code that
# behaved only outside the race detector would hide its races from it).
CPU_LAB_detect := -O1 -g -fsanitize=thread -Wno-tsan -U__SANITIZE_THREAD__
# -fsanitize=bounds: every index of an array whose size g++ knows (a static __shared__ array, a local
# one) is tested, and bounds.cpp fails the launch when one is past the end (not bounds-strict: a
# struct's trailing array, a flexible array, stays unchecked).
CPU_LAB_race := $(CPU_LAB_detect) -fsanitize=bounds
CPU_EMU_race := -O2 -g -DCUDALAB_CPU_RACE=1
CPU_LINK_race :=
# PROFILE=1 (issue 31): lab code calls the same hooks as the race build's, which profile.cpp
# defines instead to count warp requests (harness/runner/emulator/profile.h); -O1 as there.
CPU_CODE_profile := -O1 -g -DCUDALAB_CPU_PROFILE=1
CPU_LAB_profile := $(CPU_LAB_detect)
CPU_EMU_profile := -O2 -g -DCUDALAB_CPU_PROFILE=1
CPU_LINK_profile :=
# Boost.Context: the system's, or the copy tools/setup/deps.sh unpacked into build/deps/local for a
# user who may not install it (static, so the runners need nothing at run time). Expanded when
# a recipe runs, after cpu-deps has made that copy.
CPU_BOOST_LOCAL := build/deps/local/boost-context
cpu_boost_local = $(shell [ -f $(CPU_BOOST_LOCAL)/lib/libboost_context.a ] && echo yes)
CPU_BOOST_INCLUDE = $(if $(cpu_boost_local),-isystem $(CPU_BOOST_LOCAL)/include)
CPU_LIBS = $(if $(cpu_boost_local),$(CPU_BOOST_LOCAL)/lib/libboost_context.a,-lboost_context) -lbacktrace -pthread

# The kernel runner (harness/runner + harness/wire + the emulator) in each variant; the checker
# (harness/checker + harness/wire) is plain C++, never a lab file, never a sanitizer. A lab's own
# pieces (harness/lab_specs/labN: checks.cpp for the checker, runner_entry.cpp for the runner) are
# linked into that lab's programs only.
CPU_RUN_SRCS := $(filter-out harness/runner/%_gpu.cpp,$(wildcard harness/runner/*.cpp)) $(wildcard harness/wire/*.cpp)
# (harness/checker/gpu/ is the GPU build's alone: CUDA events, the checker's GPU references.)
CPU_CHECK_SRCS := $(filter-out harness/checker/run/main.cpp harness/checker/gpu/%,$(wildcard harness/checker/*/*.cpp)) $(wildcard harness/wire/protocol.cpp harness/wire/random.cpp harness/wire/shared_device_memory_none.cpp)
CPU_EMU_SRCS := $(wildcard harness/runner/emulator/*.cpp)

.SECONDEXPANSION:
.PHONY: cpu-deps cpu-lab-runner cpu-lab-checker test-cpu bench-cpu cpu-build-all cpu-fixtures

# Boost.Context is the one package a base Debian/Ubuntu system lacks. tools/setup/deps.sh links a
# tiny program with -lboost_context (a header alone is not enough), installs the package when
# it may (root, or sudo without a password), else prints the one command to run.
# (A copy of the kit without tools/, such as a Gradescope autograder's, skips the check.)
cpu-deps:
	@if [ -x tools/setup/deps.sh ]; then tools/setup/deps.sh lab || { $(quiet_stop); }; fi

# The lab binaries are relinked when CHECK changes (this file's content is the variant). A GPU
# run's CHECK=memcheck leaves it alone, so it does not force CPU relinks later.
ifeq ($(BACKEND),cpu)
$(shell { mkdir -p $(CPU_OUT) && { [ -f $(CPU_OUT)/check-mode ] && [ "$$(cat $(CPU_OUT)/check-mode)" = "$(CPU_CHECK)" ] || echo "$(CPU_CHECK)" > $(CPU_OUT)/check-mode; }; } 2>/dev/null)
else
$(shell { mkdir -p $(CPU_OUT) && { [ -f $(CPU_OUT)/check-mode ] || echo "$(CPU_CHECK)" > $(CPU_OUT)/check-mode; }; } 2>/dev/null)
endif

# A lab file's compile errors as nvcc words them (harness/runner/emulator/nvcc_style.pl); V=1: g++'s own.
CPU_GXX_AS_NVCC := $(if $(filter 1,$(V)),CUDALAB_GXX_RAW=1 )$(CPU_PERL) harness/runner/emulator/nvcc_style.pl

# ---- Rules for one variant of the runner: $(1) name, $(2) directory -------------------------
# $(2)/flags holds the variant's compiler flags and changes only when they do: every object
# depends on it, so that a build folder made before a change is rebuilt, never linked half old.
# A folder from before the file existed keeps its objects (dated 1970), except race's: CHECK=race
# was ThreadSanitizer then.
define cpu_variant_rules
# (Quiet where the build folder is read-only, as in the grader's jail: its flags were written when
# the grader built it, and a student reads no shell complaint of the build system's in feedback.)
$$(shell { mkdir -p $(2) && echo '$(CPU_CODE_$(1)) | $(CPU_LAB_$(1)) | $(CPU_EMU_$(1))' > $(2)/flags.new && \
  if [ ! -f $(2)/flags ]; then mv $(2)/flags.new $(2)/flags; $(if $(filter race profile,$(1)),:,touch -d @0 $(2)/flags); \
  elif ! cmp -s $(2)/flags.new $(2)/flags; then mv $(2)/flags.new $(2)/flags; fi; rm -f $(2)/flags.new; } 2>/dev/null)
$(2)/obj/%.o: harness/%.cpp $(2)/flags | cpu-deps
	@mkdir -p $$(@D)
	$(SAY) "build harness/$$*.cpp$(if $(filter-out plain,$(1)), ($(1)))"
	$(Q)$(CPU_CXX) $(CPU_COMMON) $(CPU_CODE_$(1)) $(CPU_RUN_INCLUDES) -c $$< -o $$@
$(2)/emulator/%.o: harness/runner/emulator/%.cpp $(2)/flags | cpu-deps
	@mkdir -p $$(@D)
	$(SAY) "build harness/runner/emulator/$$*.cpp$(if $(filter-out plain,$(1)), ($(1)))"
	$(Q)$(CPU_CXX) $(CPU_COMMON) $(CPU_EMU_$(1)) $(CPU_RUN_INCLUDES) $$(CPU_BOOST_INCLUDE) -c $$< -o $$@
# Both made afresh, as the checker's below: a removed or renamed source's old object would stay
# in the archive (emulator.cpp's, split into fibers.cpp, block.cpp, ...), defining what the new
# objects define, and the linker may pick it.
$(2)/lib/libcudalab_run.a: $(patsubst harness/%.cpp,$(2)/obj/%.o,$(CPU_RUN_SRCS))
	@mkdir -p $$(@D)
	$(Q)rm -f $$@ && ar rcs $$@ $$^
$(2)/lib/libcudalab_cpu.a: $(patsubst harness/runner/emulator/%.cpp,$(2)/emulator/%.o,$(CPU_EMU_SRCS))
	@mkdir -p $$(@D)
	$(Q)rm -f $$@ && ar rcs $$@ $$^
# A .cu file, rewritten for g++: the launch syntax and extern __shared__ (see rewrite.pl).
$(2)/gen/%.cpp: %.cu harness/runner/emulator/rewrite.pl
	@mkdir -p $$(@D)
	$(Q)$(CPU_PERL) harness/runner/emulator/rewrite.pl $$< $$@ $$<
$(2)/gen/%.o: $(2)/gen/%.cpp $(2)/flags
	$(Q)$(CPU_CXX) $(CPU_COMMON) $(CPU_LAB_$(1)) $(CPU_RUN_INCLUDES) -DCUDALAB_SOURCE_FILE='"$$*.cu"' -c $$< -o $$@
# Each lab and solution source, found by glob: labs/lab3_*.cu -> obj/labs/lab3.o; the stubs as
# shipped (make test) -> obj/build/shipped/labs/lab3.o.
$(foreach f,$(wildcard labs/lab*_*.cu solutions/lab*_*.cu) $(SHIPPED_SRCS),
$(2)/obj/$(dir $(f))$(firstword $(subst _, ,$(notdir $(f)))).o: $(2)/gen/$(f:.cu=.cpp) $(2)/flags | $(CONTRACT_TOOL)
	@mkdir -p $$(@D)
	$(SAY) "build $(f)$(if $(filter-out plain,$(1)), ($(1)))"
	$(Q)$(CPU_GXX_AS_NVCC) $(f) $(CPU_CXX) $(CPU_COMMON) $(CPU_LAB_$(1)) $(if $(filter $(SHIPPED_DIR)/%,$(f)),$(STUB_QUIET_CXX)) $(CPU_LAB_INCLUDES) -DCUDALAB_SOURCE_FILE='"$(f)"' -c $$< -o $$@ || { $$(quiet_stop); }
	$(Q)$$(call judge_contract,$(patsubst lab%,%,$(firstword $(subst _, ,$(notdir $(f))))),cpu,$(f),$$@,$(if $(filter-out plain,$(1)),sanitized))
)
# Unit tests and fixtures link only the emulator.
$(2)/tests/%: $(2)/gen/tests/emulator/%.o $(2)/lib/libcudalab_cpu.a
	@mkdir -p $$(@D)
	$(Q)$(CPU_CXX) $(CPU_LINK_$(1)) $$^ $$(CPU_LIBS) -o $$@
endef
$(eval $(call cpu_variant_rules,plain,$(CPU_OUT)))
$(eval $(call cpu_variant_rules,asan,$(CPU_OUT)/asan))
$(eval $(call cpu_variant_rules,race,$(CPU_OUT)/race))
$(eval $(call cpu_variant_rules,profile,$(CPU_OUT)/profile))

# The checker: plain g++, no CUDA headers at all.
$(CPU_OUT)/checker/%.o: harness/%.cpp
	@mkdir -p $(@D)
	$(SAY) "build harness/$*.cpp (checker)"
	$(Q)$(CPU_CXX) -std=c++20 -O2 -g -pthread -Wall -Wextra -Wno-restrict -DCUDALAB_BACKEND_CPU=1 -MMD -MP $(CPU_CHECK_INCLUDES) -c $< -o $@
CPU_CHECK_LIB := $(CPU_OUT)/lib/libcudalab_check.a
# Made afresh: `ar rcs` keeps the members it is not given, and a source moved to another folder
# would leave its old object in the archive, which the linker may still pick.
$(CPU_CHECK_LIB): $(patsubst harness/%.cpp,$(CPU_OUT)/checker/%.o,$(CPU_CHECK_SRCS))
	@mkdir -p $(@D)
	$(Q)rm -f $@ && ar rcs $@ $^
$(CPU_OUT)/check/lab%: $(CPU_OUT)/checker/lab_specs/lab%/checks.o $(CPU_OUT)/checker/checker/run/main.o $(CPU_CHECK_LIB)
	@mkdir -p $(@D)
	$(Q)$(CPU_CXX) $^ -pthread -o $@

CPU_RUN_LIB := $(CPU_VARIANT)/lib/libcudalab_run.a
CPU_EMU_LIB := $(CPU_VARIANT)/lib/libcudalab_cpu.a
CPU_LINK := $(CPU_LINK_$(or $(CPU_CHECK),plain))
cpu_entry_obj = $(CPU_VARIANT)/obj/lab_specs/lab$(1)/runner_entry.o
# The runner's own pieces for the CPU backend (the launch observer, host fills).
CPU_RUN_CPU_OBJS := $(CPU_VARIANT)/obj/runner/launch_record_cpu.o $(CPU_VARIANT)/obj/runner/runner_cpu.o

$(CPU_OUT)/labs/lab%-runner: $(CPU_VARIANT)/obj/labs/lab%.o $$(call cpu_entry_obj,$$*) $(CPU_RUN_CPU_OBJS) $(CPU_RUN_LIB) $(CPU_EMU_LIB) $(CPU_OUT)/check-mode | cpu-deps
	@mkdir -p $(@D)
	$(Q)$(CPU_CXX) $(CPU_LINK) $(filter %.o %.a,$^) $(CPU_RUNNER_WRAP) $(CPU_LIBS) -o $@
$(CPU_OUT)/solutions/lab%-runner: $(CPU_VARIANT)/obj/solutions/lab%.o $$(call cpu_entry_obj,$$*) $(CPU_RUN_CPU_OBJS) $(CPU_RUN_LIB) $(CPU_EMU_LIB) $(CPU_OUT)/check-mode | cpu-deps
	@mkdir -p $(@D)
	$(Q)$(CPU_CXX) $(CPU_LINK) $(filter %.o %.a,$^) $(CPU_RUNNER_WRAP) $(CPU_LIBS) -o $@
# The stubs as the repository ships them (make test; mk/test.mk exports them from git).
$(CPU_OUT)/shipped/lab%-runner: $(CPU_VARIANT)/obj/$(SHIPPED_DIR)/labs/lab%.o $$(call cpu_entry_obj,$$*) $(CPU_RUN_CPU_OBJS) $(CPU_RUN_LIB) $(CPU_EMU_LIB) $(CPU_OUT)/check-mode | cpu-deps
	@mkdir -p $(@D)
	$(Q)$(CPU_CXX) $(CPU_LINK) $(filter %.o %.a,$^) $(CPU_RUNNER_WRAP) $(CPU_LIBS) -o $@
# A planted-bug fixture (tests/fixtures/labN_*.cu) as a runner of its lab (make test).
fixture_lab = $(patsubst lab%,%,$(firstword $(subst _, ,$(1))))
$(CPU_OUT)/fixtures/%: $(CPU_OUT)/gen/tests/fixtures/%.cpp $$(call cpu_entry_obj,$$(call fixture_lab,$$*)) $(CPU_RUN_CPU_OBJS) $(CPU_RUN_LIB) $(CPU_EMU_LIB) | cpu-deps $(CONTRACT_TOOL)
	@mkdir -p $(@D)
	$(SAY) "build tests/fixtures/$*.cu"
	$(Q)$(CPU_CXX) $(CPU_COMMON) $(CPU_CODE_plain) $(CPU_LAB_INCLUDES) -DCUDALAB_SOURCE_FILE='"tests/fixtures/$*.cu"' -c $< -o $@.o
	$(Q)$(call judge_contract,$(call fixture_lab,$*),cpu,tests/fixtures/$*.cu,$@.o)
	$(Q)$(CPU_CXX) $(CPU_LINK_plain) $@.o $(filter %.o %.a,$(wordlist 2,1000,$^)) $(CPU_RUNNER_WRAP) $(CPU_LIBS) -o $@

# A fixture with a "// build: race" line is built as CHECK=race builds a lab (the race detector's
# runner), whatever CHECK is now: its expected message is the detector's.
CPU_RACE_FIXTURES := $(patsubst tests/fixtures/%.cu,%,$(shell grep -l '^// build: race' /dev/null $(wildcard tests/fixtures/lab*_*.cu)))
CPU_RACE_RUN_OBJS := $(patsubst $(CPU_VARIANT)/%,$(CPU_OUT)/race/%,$(CPU_RUN_CPU_OBJS))
$(addprefix $(CPU_OUT)/fixtures/,$(CPU_RACE_FIXTURES)): $(CPU_OUT)/fixtures/%: $(CPU_OUT)/race/gen/tests/fixtures/%.cpp \
    $$(CPU_OUT)/race/obj/lab_specs/lab$$(call fixture_lab,$$*)/runner_entry.o $(CPU_RACE_RUN_OBJS) $(CPU_OUT)/race/lib/libcudalab_run.a \
    $(CPU_OUT)/race/lib/libcudalab_cpu.a | cpu-deps $(CONTRACT_TOOL)
	@mkdir -p $(@D)
	$(SAY) "build tests/fixtures/$*.cu (race)"
	$(Q)$(CPU_CXX) $(CPU_COMMON) $(CPU_LAB_race) $(CPU_LAB_INCLUDES) -DCUDALAB_SOURCE_FILE='"tests/fixtures/$*.cu"' -c $< -o $@.o
	$(Q)$(call judge_contract,$(call fixture_lab,$*),cpu,tests/fixtures/$*.cu,$@.o,sanitized)
	$(Q)$(CPU_CXX) $(CPU_LINK_race) $@.o $(filter %.o %.a,$(wordlist 2,1000,$^)) $(CPU_RUNNER_WRAP) $(CPU_LIBS) -o $@

# PROFILE=1 (the grader's --profile, issue 31): the file as a profile runner, from mk/profile.mk's
# pieces (the plain build's runner objects, the profile build's emulator; lab code compiled as there).
ifeq ($(PROFILE),1)
  ifneq ($(CPU_CHECK),)
    $(if $(filter cpu-lab-runner lab-runner,$(MAKECMDGOALS)),$(error make lab-runner PROFILE=1 takes no CHECK=))
  endif
  CPU_LR_MODE := profile
  CPU_LR_DEPS = $(CPU_OUT)/obj/lab_specs/lab$(LAB)/runner_entry.o $(CPU_OUT)/obj/runner/launch_record_cpu.o \
                $(CPU_OUT)/obj/runner/runner_cpu.o $(CPU_OUT)/lib/libcudalab_run.a $(CPU_OUT)/profile/lib/libcudalab_cpu.a
else
  CPU_LR_MODE := $(or $(CPU_CHECK),plain)
  CPU_LR_DEPS = $(call cpu_entry_obj,$(LAB)) $(CPU_RUN_CPU_OBJS) $(CPU_RUN_LIB) $(CPU_EMU_LIB)
endif
cpu-lab-runner: $$(CPU_LR_DEPS) | cpu-deps $(CONTRACT_TOOL)
	@test -n "$(LAB)" -a -n "$(SRC)" -a -n "$(OUT)" || { echo "usage: make lab-runner LAB=3 SRC=file.cu OUT=runner"; exit 2; }
	@mkdir -p $(dir $(OUT))
	$(Q)$(CPU_PERL) harness/runner/emulator/rewrite.pl $(SRC) $(OUT).cpu.cpp $(SRC)
	$(Q)$(CPU_CXX) $(CPU_COMMON) $(CPU_LAB_$(CPU_LR_MODE)) $(CPU_LAB_INCLUDES) -DCUDALAB_SOURCE_FILE='"$(SRC)"' -c $(OUT).cpu.cpp -o $(OUT).o
	$(Q)$(call judge_contract,$(LAB),cpu,$(SRC),$(OUT).o,$(if $(filter-out plain,$(CPU_LR_MODE)),sanitized))
	$(Q)$(CPU_CXX) $(CPU_LINK_$(CPU_LR_MODE)) $(OUT).o $^ $(CPU_RUNNER_WRAP) $(CPU_LIBS) -o $(OUT)
cpu-lab-checker: $(CPU_OUT)/check/lab$(LAB)

# Every checker, solution and shipped stub whose checks exist (a lab in progress has none yet).
# Your own labs/ are not built here: make test tests the kit as shipped.
cpu_lab_ids = $(foreach f,$(wildcard $(1)/lab*_*.cu),$(firstword $(subst _, ,$(notdir $(f)))))
cpu_checked = $(foreach l,$(1),$(if $(wildcard harness/lab_specs/$(l)/checks.cpp),$(l)))
cpu_shipped_ids = $(foreach f,$(SHIPPED_STUBS),$(firstword $(subst _, ,$(notdir $(f)))))
cpu-build-all: $(addprefix $(CPU_OUT)/check/,$(call cpu_checked,$(call cpu_lab_ids,solutions))) \
               $(addsuffix -runner,$(addprefix $(CPU_OUT)/shipped/,$(call cpu_checked,$(cpu_shipped_ids)))) \
               $(addsuffix -runner,$(addprefix $(CPU_OUT)/solutions/,$(call cpu_checked,$(call cpu_lab_ids,solutions))))

# ---- Tests and benchmark -------------------------------------------------------------------
CPU_UNIT := $(CPU_OUT)/tests/unit_tests

# Each emulator fixture is built in the one variant its "// build:" line names (plain, asan or
# race; plain without the line), the one tests/planted/run.py runs it in: building every
# fixture in all three took 20 s of make test's CPU for runners nothing ran.
CPU_FIXTURES := $(patsubst tests/emulator/fixtures/%.cu,%,$(wildcard tests/emulator/fixtures/*.cu))
CPU_FIXTURE_MODES := $(shell grep -H '^// build:' /dev/null $(wildcard tests/emulator/fixtures/*.cu) | sed 's|^tests/emulator/fixtures/\(.*\)\.cu:// build: *\([a-z]*\).*|\2/\1|')
cpu_fixture_in = $(patsubst $(1)/%,%,$(filter $(1)/%,$(CPU_FIXTURE_MODES)))
cpu-fixtures: $(addprefix $(CPU_OUT)/tests/fixtures/,$(filter-out $(call cpu_fixture_in,asan) $(call cpu_fixture_in,race),$(CPU_FIXTURES))) \
              $(addprefix $(CPU_OUT)/asan/tests/fixtures/,$(call cpu_fixture_in,asan)) \
              $(addprefix $(CPU_OUT)/race/tests/fixtures/,$(call cpu_fixture_in,race))

TEST_TARGETS += test-cpu
# The unit tests run in every variant too: no sanitizer may report anything on them.
# The emulator's tests provoke its diagnostics on purpose: tools/test/expected_output.sh keeps them
# in a log and says so (and shows them when a test fails).
test-cpu: $(CPU_UNIT) $(CPU_OUT)/asan/tests/unit_tests $(CPU_OUT)/race/tests/unit_tests cpu-fixtures
	@echo "== the CPU emulator's unit tests (plain, asan, race) and fixtures"
	@tools/test/expected_output.sh build/tests/logs/cpu-unit.log $(CPU_UNIT)
	@tools/test/expected_output.sh build/tests/logs/cpu-unit-asan.log $(CPU_OUT)/asan/tests/unit_tests
	@tools/test/expected_output.sh build/tests/logs/cpu-unit-race.log $(CPU_OUT)/race/tests/unit_tests
	@! grep "data race" build/tests/logs/cpu-unit-race.log || { echo "   the race detector found races in the emulator's own tests (above)"; exit 1; }
	@tests/planted/run.py emulator --build $(CPU_OUT)
	@tests/emulator/compile_errors.sh

bench-cpu: $(CPU_OUT)/tests/bench
	$(CPU_OUT)/tests/bench

# make bench-hipcpu HIPCPU=/path/to/HIP-CPU: the emulator beside HIP-CPU (github.com/ROCm/HIP-CPU,
# header-only; needs TBB, Debian's libtbb-dev) on the same kernels, tests/emulator/bench_hipcpu.cu,
# built with HIP-CPU's own Release flags. Not a test: it prints CPU seconds per kernel.
.PHONY: bench-hipcpu
bench-hipcpu: $(CPU_OUT)/tests/bench_hipcpu
	@test -n "$(HIPCPU)" -a -f "$(HIPCPU)/include/hip/hip_runtime.h" || \
	  { echo "usage: make bench-hipcpu HIPCPU=/path/to/HIP-CPU (a checkout of github.com/ROCm/HIP-CPU)"; exit 2; }
	$(Q)g++ -std=c++20 -O3 -DNDEBUG -DCUDALAB_COMPARE_HIPCPU -I$(HIPCPU)/include -x c++ tests/emulator/bench_hipcpu.cu \
	  -ltbb -pthread -o $(CPU_OUT)/tests/bench_hipcpu-hipcpu
	$(CPU_OUT)/tests/bench_hipcpu
	$(CPU_OUT)/tests/bench_hipcpu-hipcpu

-include $(call live_deps,$(CPU_OUT))
