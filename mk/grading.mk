# Instructors' auto-grader (issue 4; grading/README.md).
#
#   make grade LAB=3 SUBMISSIONS=path/ [GRADES=grades] [BACKEND=cuda|cpu] [FORCE=1] [PROFILE=1] [GRADE_ARGS=...]
#   make grader                build/grading/cudalab-grade and cudalab-jail (for the direct call)
#   make grading-setup LAB=3   the grader and everything grading lab 3 needs (below)
#   make gradescope LAB=3      build/grading/gradescope/lab3-autograder.zip, from the last commit
#   make test-grading          the grader's tests (fixture submissions through the CPU backend; three
#                              programs: test-grading-end_to_end, -fresh_clone and -rest)
#
# Needs (Debian): nlohmann-json3-dev libtomlplusplus-dev libcli11-dev libssl-dev, and for the
# tests doctest-dev and python3-jsonschema.

GRADING_OUT := build/grading
GRADER := $(GRADING_OUT)/cudalab-grade
JAIL := $(GRADING_OUT)/cudalab-jail
# grading/grader (the run), grading/results (rubric, scores, the files written), grading/safe_io
# (files and text made safe) and grading/jail (what runs as root) name what they include from
# grading/ (results/..., safe_io/..., jail/...); the grader
# reads the checker's verdict frame from harness/checker/report.
GRADING_CXX := g++ -std=c++20 -O2 -g -Wall -Wextra -MMD -MP
# The grader's tests drive programs and read files: built without optimization, they compile in
# half the time (80 s of make test's CPU at -O2 on 2 cores, 40 s at -O0) and still debug.
GRADING_TEST_CXX := $(subst -O2,-O0,$(GRADING_CXX))
GRADING_INCLUDES := -Igrading -Iharness
GRADING_SRCS := $(wildcard grading/grader/*.cpp grading/results/*.cpp grading/safe_io/*.cpp grading/jail/*.cpp)
GRADING_OBJS := $(patsubst grading/%.cpp,$(GRADING_OUT)/obj/%.o,$(GRADING_SRCS))
GRADING_LIB_OBJS := $(filter-out $(GRADING_OUT)/obj/grader/main.o $(GRADING_OUT)/obj/jail/jail_main.o,$(GRADING_OBJS))
# The jail links only its own folder: it runs as root beside untrusted code, so it stays small.
JAIL_OBJS := $(patsubst grading/%.cpp,$(GRADING_OUT)/obj/%.o,$(wildcard grading/jail/*.cpp))
GRADING_LIBS := -lcrypto -pthread
GRADING_TEST_SRCS := $(wildcard tests/grading/*_test.cpp) tests/grading/main.cpp tests/grading/leftovers.cpp
GRADING_TEST_OBJS := $(patsubst tests/grading/%.cpp,$(GRADING_OUT)/tests/%.o,$(GRADING_TEST_SRCS))
GRADES ?= grades

.PHONY: grade gradescope test-grading grader jail grading-setup grading-runner-prereqs grading-runner-check grading-build-view

$(GRADING_OUT)/obj/%.o: grading/%.cpp
	@mkdir -p $(@D)
	$(SAY) "build grading/$*.cpp"
	$(Q)$(GRADING_CXX) $(GRADING_INCLUDES) -c $< -o $@
$(GRADER): $(GRADING_LIB_OBJS) $(GRADING_OUT)/obj/grader/main.o | $(JAIL)
	$(SAY) "link $@"
	$(Q)$(GRADING_CXX) $^ $(GRADING_LIBS) -o $@
$(JAIL): $(JAIL_OBJS)
	$(SAY) "link $@"
	$(Q)$(GRADING_CXX) $^ -o $@
grader: $(GRADER) $(JAIL)
jail: $(JAIL)

# What a student's build needs, ready before it starts. A student's `make lab-runner` runs in
# their jail, where it can write nothing but its own bin/: every prerequisite of the lab-runner
# rule of the backend (mk/cpu.mk, mk/cuda.mk: the harness's objects and libraries, the link
# contract's tool, whatever those rules ask for) is built first, by the grader, and shown
# read-only. The list is make's own, so a prerequisite added there is picked up here.
#
#   make grading-setup LAB=3 [BACKEND=cpu]   the grader, the jail, lab 3's checker and those
#                                            prerequisites (what the grader itself builds first)
#   make grading-runner-prereqs LAB=3        the prerequisites alone
#   make grading-runner-check LAB=3          exit 0 when they are all built and current, else
#                                            say what is missing (run in every build's jail)
#   make grading-build-view LAB=3            the files and folders a student's build reads
ifneq ($(filter grading-runner-prereqs grading-runner-check grading-build-view grading-setup,$(MAKECMDGOALS)),)
  ifeq ($(LAB),)
    $(error usage: make $(firstword $(filter grading-%,$(MAKECMDGOALS))) LAB=3 [BACKEND=cpu|cuda])
  endif
  # The prerequisites of $(BACKEND)-lab-runner as make itself expands them (`make -pq` prints its
  # rules), without the phony ones (cpu-deps: a check that runs every time, not a file to build).
  # CHECK is passed on by name: make 4.3 gives $(shell) no command-line variable, and the
  # emulator's build (CHECK=race) has objects of its own.
  grading_make_db = $(shell $(MAKE) -pq --no-print-directory -f $(firstword $(MAKEFILE_LIST)) BACKEND=$(BACKEND) LAB=$(LAB) $(if $(CHECK),CHECK=$(CHECK)) $(if $(PROFILE),PROFILE=$(PROFILE)) \
                      $(BACKEND)-lab-runner 2>/dev/null | sed -n 's/^$(1): //p')
  grading_phony := $(call grading_make_db,\.PHONY)
  grading_runner_prereqs := $(filter-out | $(grading_phony),$(call grading_make_db,$(BACKEND)-lab-runner))
  # Only file names: a word with a colon is no prerequisite (text the database printed besides
  # the rule), and would turn the rule below into a pattern rule. Said, not silently dropped.
  grading_not_files := $(strip $(foreach w,$(grading_runner_prereqs),$(if $(findstring :,$(w)),$(w))))
  ifneq ($(grading_not_files),)
    $(warning the lab-runner rule's prerequisites as make printed them hold words that are no file: $(grading_not_files))
    grading_runner_prereqs := $(filter-out $(grading_not_files),$(grading_runner_prereqs))
  endif
endif
grading-runner-prereqs: $(grading_runner_prereqs)
grading-setup: grader lab-checker grading-runner-prereqs
grading-runner-check:
	@$(MAKE) -q --no-print-directory $(addprefix -o ,$(grading_phony)) $(grading_runner_prereqs) || { \
	  echo "lab $(LAB)'s harness is not built for BACKEND=$(BACKEND), or not visible here: a build would first run"; \
	  $(MAKE) -n --no-print-directory $(addprefix -o ,$(grading_phony)) $(grading_runner_prereqs) | head -n 5; \
	  echo "(make grading-setup LAB=$(LAB) BACKEND=$(BACKEND)$(if $(CHECK), CHECK=$(CHECK))$(if $(PROFILE), PROFILE=$(PROFILE)) builds it)"; exit 3; }
# What a student's build reads besides its own file: the makefiles, the harness's sources, the
# dependency checks' stamps, and each build folder a prerequisite lives in (build/cpu,
# build/contract, ...). The grader shows exactly these, read-only, in every build's jail.
grading-build-view:
	@echo Makefile mk harness tools/setup/deps.sh build/deps $(sort $(foreach p,$(filter build/%,$(grading_runner_prereqs)),build/$(word 2,$(subst /, ,$(p)))))

grade: $(GRADER)
	@test -n "$(LAB)" -a -n "$(SUBMISSIONS)" || { echo "usage: make grade LAB=3 SUBMISSIONS=folder [GRADES=grades] [BACKEND=cuda|cpu] [FORCE=1]"; exit 2; }
	./$(GRADER) --lab $(LAB) --submissions $(SUBMISSIONS) --grades $(GRADES) --backend $(BACKEND) $(if $(FORCE),--force) $(if $(filter 1,$(PROFILE)),--profile) $(GRADE_ARGS)

# An autograder for Gradescope's GPU-less machines: correctness through the CPU backend. No
# solution goes in (the checker computes the reference itself; the lab's stub in labs/ gives
# the list of checks), and nothing built here either: setup.sh builds on Gradescope's image.
# The files are the repository's last commit (git archive), never the working copy: a lab an
# instructor filled in to try it stays on their disk. Changes not committed are named, and left
# out. Without git, the working copy is packed as it is, with a warning.
GRADESCOPE_FILES := Makefile mk harness labs grading tools/setup/deps.sh
GRADESCOPE_DIR = $(GRADING_OUT)/gradescope/lab$(LAB)
# (as root in a checkout someone else owns, git needs safe.directory: the checkout is trusted)
GRADESCOPE_GIT := git -c safe.directory='*'
gradescope:
	@test -n "$(LAB)" || { echo "usage: make gradescope LAB=3"; exit 2; }
	@test -f grading/rubrics/lab$(LAB).toml || { echo "no rubric grading/rubrics/lab$(LAB).toml"; exit 2; }
	@rm -rf $(GRADESCOPE_DIR) && mkdir -p $(GRADESCOPE_DIR)/source
	@if [ "$$($(GRADESCOPE_GIT) rev-parse --show-toplevel 2>/dev/null)" = "$$(pwd -P)" ] && \
	    $(GRADESCOPE_GIT) rev-parse -q --verify HEAD >/dev/null 2>&1; then \
	  $(GRADESCOPE_GIT) archive --format=tar HEAD -- $(GRADESCOPE_FILES) | tar -x -C $(GRADESCOPE_DIR)/source || exit 1; \
	  echo "gradescope: packed from the last commit, $$($(GRADESCOPE_GIT) rev-parse --short HEAD)"; \
	  changed=$$($(GRADESCOPE_GIT) status --porcelain -- $(GRADESCOPE_FILES)); \
	  if [ -n "$$changed" ]; then \
	    echo "gradescope: not in the zip (changes not committed; commit what should ship):"; \
	    echo "$$changed" | sed 's/^/  /'; fi; \
	else \
	  echo "gradescope: warning: no git repository here, so the working copy is packed as it is:" \
	       "labs/ must hold the stubs as handed out, not a filled-in lab"; \
	  cp -r --parents $(wildcard $(GRADESCOPE_FILES)) $(GRADESCOPE_DIR)/source/; \
	fi
	@! find $(GRADESCOPE_DIR)/source -path '*solutions*' | grep . || { echo "gradescope: a solution would be shipped"; exit 1; }
	@sed 's/@LAB@/$(LAB)/g' grading/gradescope/setup.sh > $(GRADESCOPE_DIR)/setup.sh
	@sed 's/@LAB@/$(LAB)/g' grading/gradescope/run_autograder > $(GRADESCOPE_DIR)/run_autograder
	@chmod +x $(GRADESCOPE_DIR)/setup.sh $(GRADESCOPE_DIR)/run_autograder
	@cd $(GRADESCOPE_DIR) && rm -f ../lab$(LAB)-autograder.zip && \
	  python3 -m zipfile -c ../lab$(LAB)-autograder.zip setup.sh run_autograder source
	@echo "Upload $(GRADING_OUT)/gradescope/lab$(LAB)-autograder.zip as the assignment's autograder (Ubuntu 24.04 base image)."

# Tests: unit tests of the grader's parts, then every fixture graded end to end on the CPU.
$(GRADING_OUT)/tests/%.o: tests/grading/%.cpp
	@mkdir -p $(@D)
	$(GRADING_TEST_CXX) $(GRADING_INCLUDES) -DCUDALAB_REPO='"$(CURDIR)"' -c $< -o $@
# The two longest test files, a class graded end to end (4 minutes of CPU on 2 cores) and a
# fresh clone that builds its own harness (2 minutes), are programs and parts of their own:
# make -j runs them beside the other parts instead of one after the other in one program.
GRADING_TEST_OWN := end_to_end fresh_clone
GRADING_TEST_OWN_OBJS := $(patsubst %,$(GRADING_OUT)/tests/%_test.o,$(GRADING_TEST_OWN))
$(GRADING_OUT)/grading_tests: $(filter-out $(GRADING_TEST_OWN_OBJS),$(GRADING_TEST_OBJS)) $(GRADING_LIB_OBJS)
	$(GRADING_CXX) $^ $(GRADING_LIBS) -o $@
$(addprefix $(GRADING_OUT)/grading_tests_,$(GRADING_TEST_OWN)): $(GRADING_OUT)/grading_tests_%: $(GRADING_OUT)/tests/%_test.o \
    $(GRADING_OUT)/tests/main.o $(GRADING_OUT)/tests/leftovers.o $(GRADING_LIB_OBJS)
	$(GRADING_CXX) $^ $(GRADING_LIBS) -o $@

# A stand-in lab binary with the real channel code, for the channel's test.
$(GRADING_OUT)/channel_probe: tests/grading/channel_probe.cpp harness/checker/report/report_channel.cpp harness/checker/report/report_channel.h
	@mkdir -p $(@D)
	$(GRADING_CXX) -Iharness tests/grading/channel_probe.cpp harness/checker/report/report_channel.cpp -o $@

# The grader under test builds the checker and kernel runners with nested `make BACKEND=cpu`
# calls: the CPU harness must be complete first, or under `make -j test` both makes would write
# its objects.
# test-grading is all of them: the longest first, so that they start first.
test-grading: $(addprefix test-grading-,$(GRADING_TEST_OWN)) test-grading-rest
test-grading-rest: $(GRADING_OUT)/grading_tests $(GRADER) $(JAIL) $(GRADING_OUT)/channel_probe | cpu-build-all
	CUDALAB_GRADER=$(GRADER) ./$(GRADING_OUT)/grading_tests
$(addprefix test-grading-,$(GRADING_TEST_OWN)): test-grading-%: $(GRADING_OUT)/grading_tests_% $(GRADER) $(JAIL) | cpu-build-all
	CUDALAB_GRADER=$(GRADER) ./$(GRADING_OUT)/grading_tests_$*
.PHONY: test-grading-rest $(addprefix test-grading-,$(GRADING_TEST_OWN))

TEST_TARGETS += test-grading

-include $(call live_deps,$(GRADING_OUT)/obj $(GRADING_OUT)/tests)
