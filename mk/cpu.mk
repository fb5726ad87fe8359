# The CPU backend (issue 3): the unchanged lab files, rewritten for g++ and run on the
# fiber emulator in harness/cpu. Needs only g++, perl and Boost.Context.
#
#   build/cpu/labs/labN, build/cpu/solutions/labN      lab binaries (CHECK= picks the variant)
#   make cpu-lab-binary LAB=3 SRC=file.cu OUT=binary    any lab source (the grader's submissions)
#   make test-cpu                                       emulator unit tests and planted-bug fixtures
#   make bench-cpu                                      emulated threads per second (not a test)
#   make cpu-deps                                       installs Boost.Context if it may, else says how
#
# CHECK=asan  AddressSanitizer + UBSan bounds checks (fibers annotated)
# CHECK=race  ThreadSanitizer through its fiber API, barriers as release/acquire
# compute-sanitizer's names work too: memcheck/initcheck -> asan, racecheck -> race,
# synccheck -> the default build (barrier and warp checks are always on).
# Objects of every variant live in their own directory (build/cpu, build/cpu/asan,
# build/cpu/race); the lab binaries are relinked when CHECK changes.

CPU_OUT := build/cpu
CPU_CXX ?= g++
CPU_PERL ?= perl

CPU_CHECK := $(strip $(patsubst memcheck,asan,$(patsubst initcheck,asan,$(patsubst racecheck,race,$(patsubst synccheck,,$(CHECK))))))
ifneq ($(filter-out asan race,$(CPU_CHECK)),)
  ifeq ($(BACKEND),cpu)
    $(error CHECK=$(CHECK) is not a check the CPU backend knows; use CHECK=asan or CHECK=race)
  endif
endif
CPU_VARIANT_DIR = $(if $(filter asan,$(1)),$(CPU_OUT)/asan,$(if $(filter race,$(1)),$(CPU_OUT)/race,$(CPU_OUT)))
CPU_VARIANT := $(call CPU_VARIANT_DIR,$(CPU_CHECK))

CPU_INCLUDES := -Iharness/cpu/include -Iharness/include -Iharness/core
CPU_COMMON := -std=c++20 -pthread -Wall -Wextra -Wno-restrict -Wno-unused-parameter -Wno-sign-compare -Wno-unknown-pragmas -DCUDALAB_BACKEND_CPU=1 -MMD -MP
# Per variant: flags for lab/harness code, flags for the emulator itself, link flags.
CPU_CODE_plain := -O2 -g
CPU_EMU_plain := -O2 -g
CPU_LINK_plain :=
CPU_SAN_asan := -fsanitize=address,undefined -fsanitize=bounds-strict -fno-sanitize-recover=all -fno-omit-frame-pointer
CPU_CODE_asan := -O1 -g $(CPU_SAN_asan)
CPU_EMU_asan := -O1 -g $(CPU_SAN_asan) -DCUDALAB_CPU_ASAN=1
CPU_LINK_asan := $(CPU_SAN_asan)
# The emulator is not instrumented for ThreadSanitizer: its own bookkeeping is not the lab's race.
CPU_CODE_race := -O1 -g -fsanitize=thread
CPU_EMU_race := -O2 -g -DCUDALAB_CPU_TSAN=1
CPU_LINK_race := -fsanitize=thread
CPU_LIBS := -lboost_context -pthread

CPU_CORE_SRCS := $(filter-out harness/core/main.cpp,$(wildcard harness/core/*.cpp))
CPU_EMU_SRCS := $(wildcard harness/cpu/*.cpp)
CPU_BOOST_HEADER := /usr/include/boost/context/detail/fcontext.hpp

.SECONDEXPANSION:
.PHONY: cpu-deps cpu-lab-binary test-cpu bench-cpu cpu-build-all cpu-fixtures

# Boost.Context is the one package a base Debian/Ubuntu system lacks.
cpu-deps:
	@if [ ! -f $(CPU_BOOST_HEADER) ]; then \
	  if [ "$$(id -u)" = 0 ]; then \
	    echo "cudalab: installing Boost.Context for the CPU backend (apt-get install libboost-context-dev)"; \
	    apt-get install -y -q libboost-context-dev >/dev/null || { apt-get update -q >/dev/null && apt-get install -y -q libboost-context-dev >/dev/null; }; \
	  elif command -v sudo >/dev/null && sudo -n true 2>/dev/null; then \
	    echo "cudalab: installing Boost.Context for the CPU backend (sudo apt-get install libboost-context-dev)"; \
	    sudo apt-get install -y -q libboost-context-dev >/dev/null || { sudo apt-get update -q >/dev/null && sudo apt-get install -y -q libboost-context-dev >/dev/null; }; \
	  else \
	    echo "cudalab: the CPU backend needs Boost.Context. Install it once with:"; \
	    echo "    sudo apt-get install libboost-context-dev"; \
	    exit 1; \
	  fi; \
	  test -f $(CPU_BOOST_HEADER) || { echo "cudalab: Boost.Context is still missing; install libboost-context-dev"; exit 1; }; \
	fi

# The lab binaries are relinked when CHECK changes (this file's content is the variant). A GPU
# run's CHECK=memcheck leaves it alone, so it does not force CPU relinks later.
ifeq ($(BACKEND),cpu)
$(shell mkdir -p $(CPU_OUT) && { [ -f $(CPU_OUT)/check-mode ] && [ "$$(cat $(CPU_OUT)/check-mode)" = "$(CPU_CHECK)" ] || echo "$(CPU_CHECK)" > $(CPU_OUT)/check-mode; })
else
$(shell mkdir -p $(CPU_OUT) && { [ -f $(CPU_OUT)/check-mode ] || echo "$(CPU_CHECK)" > $(CPU_OUT)/check-mode; })
endif

# ---- Rules for one variant: $(1) name, $(2) directory --------------------------------------
define cpu_variant_rules
$(2)/obj/%.o: harness/%.cpp | cpu-deps
	@mkdir -p $$(@D)
	$(CPU_CXX) $(CPU_COMMON) $(CPU_CODE_$(1)) $(CPU_INCLUDES) -c $$< -o $$@
$(2)/emu/%.o: harness/cpu/%.cpp | cpu-deps
	@mkdir -p $$(@D)
	$(CPU_CXX) $(CPU_COMMON) $(CPU_EMU_$(1)) $(CPU_INCLUDES) -c $$< -o $$@
$(2)/lib/libcudalab.a: $(patsubst harness/%.cpp,$(2)/obj/%.o,$(CPU_CORE_SRCS))
	@mkdir -p $$(@D)
	ar rcs $$@ $$^
$(2)/lib/libcudalab_cpu.a: $(patsubst harness/cpu/%.cpp,$(2)/emu/%.o,$(CPU_EMU_SRCS))
	@mkdir -p $$(@D)
	ar rcs $$@ $$^
# A .cu file, rewritten for g++: the launch syntax and extern __shared__ (see rewrite.pl).
$(2)/gen/%.cpp: %.cu harness/cpu/rewrite.pl
	@mkdir -p $$(@D)
	$(CPU_PERL) harness/cpu/rewrite.pl $$< $$@ $$<
$(2)/gen/%.o: $(2)/gen/%.cpp
	$(CPU_CXX) $(CPU_COMMON) $(CPU_CODE_$(1)) $(CPU_INCLUDES) -DCUDALAB_SOURCE_FILE='"$$*.cu"' -c $$< -o $$@
# Each lab and solution source, found by glob: labs/lab3_*.cu -> obj/labs/lab3.o.
$(foreach f,$(wildcard labs/lab*_*.cu solutions/lab*_*.cu),
$(2)/obj/$(dir $(f))$(firstword $(subst _, ,$(notdir $(f)))).o: $(2)/gen/$(f:.cu=.cpp)
	@mkdir -p $$(@D)
	$(CPU_CXX) $(CPU_COMMON) $(CPU_CODE_$(1)) $(CPU_INCLUDES) -DCUDALAB_SOURCE_FILE='"$(f)"' -c $$< -o $$@
)
# Unit tests and fixtures link only the emulator.
$(2)/tests/%: $(2)/gen/tests/cpu/%.o $(2)/lib/libcudalab_cpu.a
	@mkdir -p $$(@D)
	$(CPU_CXX) $(CPU_LINK_$(1)) $$^ $(CPU_LIBS) -o $$@
endef
$(eval $(call cpu_variant_rules,plain,$(CPU_OUT)))
$(eval $(call cpu_variant_rules,asan,$(CPU_OUT)/asan))
$(eval $(call cpu_variant_rules,race,$(CPU_OUT)/race))

CPU_LIB := $(CPU_VARIANT)/lib/libcudalab.a
CPU_EMU_LIB := $(CPU_VARIANT)/lib/libcudalab_cpu.a
CPU_MAIN := $(CPU_VARIANT)/obj/core/main.o
CPU_LINK := $(CPU_LINK_$(or $(CPU_CHECK),plain))
cpu_suite_obj = $(CPU_VARIANT)/obj/suites/lab$(1)_checks.o

$(CPU_OUT)/labs/lab%: $(CPU_VARIANT)/obj/labs/lab%.o $$(call cpu_suite_obj,$$*) $(CPU_MAIN) $(CPU_LIB) $(CPU_EMU_LIB) $(CPU_OUT)/check-mode | cpu-deps
	@mkdir -p $(@D)
	$(CPU_CXX) $(CPU_LINK) $(filter %.o %.a,$^) $(CPU_LIBS) -o $@
$(CPU_OUT)/solutions/lab%: $(CPU_VARIANT)/obj/solutions/lab%.o $$(call cpu_suite_obj,$$*) $(CPU_MAIN) $(CPU_LIB) $(CPU_EMU_LIB) $(CPU_OUT)/check-mode | cpu-deps
	@mkdir -p $(@D)
	$(CPU_CXX) $(CPU_LINK) $(filter %.o %.a,$^) $(CPU_LIBS) -o $@

cpu-lab-binary: $$(call cpu_suite_obj,$$(LAB)) $(CPU_MAIN) $(CPU_LIB) $(CPU_EMU_LIB) | cpu-deps
	@test -n "$(LAB)" -a -n "$(SRC)" -a -n "$(OUT)" || { echo "usage: make lab-binary LAB=3 SRC=file.cu OUT=binary"; exit 2; }
	@mkdir -p $(dir $(OUT))
	$(CPU_PERL) harness/cpu/rewrite.pl $(SRC) $(OUT).cpu.cpp $(SRC)
	$(CPU_CXX) $(CPU_COMMON) $(CPU_CODE_$(or $(CPU_CHECK),plain)) $(CPU_INCLUDES) -DCUDALAB_SOURCE_FILE='"$(SRC)"' -c $(OUT).cpu.cpp -o $(OUT).o
	$(CPU_CXX) $(CPU_LINK) $(OUT).o $^ $(CPU_LIBS) -o $(OUT)

# Every lab and solution whose checks exist (a lab in progress has none yet).
cpu_lab_ids = $(foreach f,$(wildcard $(1)/lab*_*.cu),$(firstword $(subst _, ,$(notdir $(f)))))
cpu_checked = $(foreach l,$(1),$(if $(wildcard harness/suites/$(l)_checks.cpp),$(l)))
cpu-build-all: $(addprefix $(CPU_OUT)/labs/,$(call cpu_checked,$(call cpu_lab_ids,labs))) \
               $(addprefix $(CPU_OUT)/solutions/,$(call cpu_checked,$(call cpu_lab_ids,solutions)))

# ---- Tests and benchmark -------------------------------------------------------------------
CPU_UNIT := $(CPU_OUT)/tests/unit_tests

CPU_FIXTURES := $(patsubst tests/cpu/fixtures/%.cu,%,$(wildcard tests/cpu/fixtures/*.cu))
cpu-fixtures: $(foreach v,$(CPU_OUT) $(CPU_OUT)/asan $(CPU_OUT)/race,$(addprefix $(v)/tests/fixtures/,$(CPU_FIXTURES)))

TEST_TARGETS += test-cpu
# The unit tests run in every variant too: no sanitizer may report anything on them.
test-cpu: $(CPU_UNIT) $(CPU_OUT)/asan/tests/unit_tests $(CPU_OUT)/race/tests/unit_tests cpu-fixtures
	$(CPU_UNIT)
	$(CPU_OUT)/asan/tests/unit_tests
	TSAN_OPTIONS=halt_on_error=1 $(CPU_OUT)/race/tests/unit_tests
	tests/cpu/run_fixtures.sh $(CPU_OUT)

bench-cpu: $(CPU_OUT)/tests/bench
	$(CPU_OUT)/tests/bench

-include $(shell find $(CPU_OUT) -name '*.d' 2>/dev/null)
