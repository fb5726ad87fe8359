# Instructors' auto-grader (issue 4; grading/README.md).
#
#   make grade LAB=3 SUBMISSIONS=path/ [GRADES=grades] [BACKEND=cuda|cpu] [FORCE=1] [GRADE_ARGS=...]
#   make gradescope LAB=3      build/grading/gradescope/lab3-autograder.zip
#   make test-grading          the grader's tests (fixture submissions through the CPU backend)
#
# Needs (Debian): nlohmann-json3-dev libtomlplusplus-dev libcli11-dev libssl-dev, and for the
# tests doctest-dev and python3-jsonschema.

GRADING_OUT := build/grading
GRADER := $(GRADING_OUT)/cudalab-grade
JAIL := $(GRADING_OUT)/cudalab-jail
GRADING_CXX := g++ -std=c++20 -O2 -g -Wall -Wextra -MMD -MP
GRADING_SRCS := $(wildcard grading/src/*.cpp)
GRADING_OBJS := $(patsubst grading/src/%.cpp,$(GRADING_OUT)/obj/%.o,$(GRADING_SRCS))
GRADING_LIB_OBJS := $(filter-out $(GRADING_OUT)/obj/main.o $(GRADING_OUT)/obj/jail_main.o,$(GRADING_OBJS))
# The jail links only its own setup: it runs as root beside untrusted code, so it stays small.
JAIL_OBJS := $(addprefix $(GRADING_OUT)/obj/,jail_main.o sandbox.o cgroup.o)
GRADING_LIBS := -lcrypto -pthread
GRADING_TEST_SRCS := $(wildcard tests/grading/*_test.cpp) tests/grading/main.cpp tests/grading/leftovers.cpp
GRADING_TEST_OBJS := $(patsubst tests/grading/%.cpp,$(GRADING_OUT)/tests/%.o,$(GRADING_TEST_SRCS))
GRADES ?= grades

.PHONY: grade gradescope test-grading grader jail

$(GRADING_OUT)/obj/%.o: grading/src/%.cpp
	@mkdir -p $(@D)
	$(GRADING_CXX) -c $< -o $@
$(GRADER): $(GRADING_LIB_OBJS) $(GRADING_OUT)/obj/main.o | $(JAIL)
	$(GRADING_CXX) $^ $(GRADING_LIBS) -o $@
$(JAIL): $(JAIL_OBJS)
	$(GRADING_CXX) $^ -o $@
grader: $(GRADER) $(JAIL)
jail: $(JAIL)

grade: $(GRADER)
	@test -n "$(LAB)" -a -n "$(SUBMISSIONS)" || { echo "usage: make grade LAB=3 SUBMISSIONS=folder [GRADES=grades] [BACKEND=cuda|cpu] [FORCE=1]"; exit 2; }
	./$(GRADER) --lab $(LAB) --submissions $(SUBMISSIONS) --grades $(GRADES) --backend $(BACKEND) $(if $(FORCE),--force) $(GRADE_ARGS)

# An autograder for Gradescope's GPU-less machines: correctness through the CPU backend. No
# solution goes in (the checker computes the reference itself; the lab's stub in labs/ gives
# the list of checks), and nothing built here either: setup.sh builds on Gradescope's image.
GRADESCOPE_FILES := Makefile mk harness labs grading $(wildcard tools/deps.sh)
gradescope:
	@test -n "$(LAB)" || { echo "usage: make gradescope LAB=3"; exit 2; }
	@test -f grading/rubrics/lab$(LAB).toml || { echo "no rubric grading/rubrics/lab$(LAB).toml"; exit 2; }
	rm -rf $(GRADING_OUT)/gradescope/lab$(LAB)
	mkdir -p $(GRADING_OUT)/gradescope/lab$(LAB)/source
	cp -r --parents $(GRADESCOPE_FILES) $(GRADING_OUT)/gradescope/lab$(LAB)/source/
	@! find $(GRADING_OUT)/gradescope/lab$(LAB)/source -path '*solutions*' | grep . || { echo "gradescope: a solution would be shipped"; exit 1; }
	sed 's/@LAB@/$(LAB)/g' grading/gradescope/setup.sh > $(GRADING_OUT)/gradescope/lab$(LAB)/setup.sh
	sed 's/@LAB@/$(LAB)/g' grading/gradescope/run_autograder > $(GRADING_OUT)/gradescope/lab$(LAB)/run_autograder
	chmod +x $(GRADING_OUT)/gradescope/lab$(LAB)/setup.sh $(GRADING_OUT)/gradescope/lab$(LAB)/run_autograder
	cd $(GRADING_OUT)/gradescope/lab$(LAB) && rm -f ../lab$(LAB)-autograder.zip && \
	  python3 -m zipfile -c ../lab$(LAB)-autograder.zip setup.sh run_autograder source
	@echo "Upload $(GRADING_OUT)/gradescope/lab$(LAB)-autograder.zip as the assignment's autograder (Ubuntu 24.04 base image)."

# Tests: unit tests of the grader's parts, then every fixture graded end to end on the CPU.
$(GRADING_OUT)/tests/%.o: tests/grading/%.cpp
	@mkdir -p $(@D)
	$(GRADING_CXX) -Igrading/src -DCUDALAB_REPO='"$(CURDIR)"' -c $< -o $@
$(GRADING_OUT)/grading_tests: $(GRADING_TEST_OBJS) $(GRADING_LIB_OBJS)
	$(GRADING_CXX) $^ $(GRADING_LIBS) -o $@

# A stand-in lab binary with the real channel code, for the channel's test.
$(GRADING_OUT)/channel_probe: tests/grading/channel_probe.cpp harness/check/report_channel.cpp harness/check/report_channel.h
	@mkdir -p $(@D)
	$(GRADING_CXX) -Iharness/check tests/grading/channel_probe.cpp harness/check/report_channel.cpp -o $@

# The grader under test builds the checker and kernel runners with nested `make BACKEND=cpu`
# calls: the CPU harness must be complete first, or under `make -j test` both makes would write
# its objects.
test-grading: $(GRADING_OUT)/grading_tests $(GRADER) $(JAIL) $(GRADING_OUT)/channel_probe | cpu-build-all
	CUDALAB_GRADER=$(GRADER) ./$(GRADING_OUT)/grading_tests

TEST_TARGETS += test-grading

-include $(shell find $(GRADING_OUT)/obj $(GRADING_OUT)/tests -name '*.d' 2>/dev/null)
