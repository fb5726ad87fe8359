# The tree as the trust boundary, tested (docs/architecture.md): no #include under harness/ or
# grading/ crosses a wall that its folder's README.md does not open (each README's Walls table),
# the checker's folders, layers, include one another one way (no loop), and planted crossings
# (the runner including the checker, the jail including the grader, a loop between two of the
# checker's layers, ...) are refused, naming the file and line.
#
#   make test-architecture     tests/architecture/include_walls_test.sh (a second, no build)
#   python3 tests/architecture/include_walls.py   the check alone, on this checkout

.PHONY: test-architecture
test-architecture:
	@echo "== the include walls (tests/architecture): each folder includes only what its README opens"
	@tests/architecture/include_walls_test.sh

TEST_TARGETS += test-architecture

# No two of the trusted programs' files call each other (tests/architecture/call_loops.py, read
# from the objects the checker and the grader link, with planted loops): where the walk of a
# submission through the checker, or of the grader's configuration through the grader, would
# go back into a file it left (tools/measure/walks/ follows the same walks as the code runs).
# In make test-all: the grader's objects are built for its own tests there.
.PHONY: test-call-loops
CALL_LOOPS_CHECKER_OBJS = $(patsubst harness/%.cpp,$(CPU_OUT)/checker/%.o,$(CPU_CHECK_SRCS)) \
  $(CPU_OUT)/checker/checker/run/main.o $(wildcard $(patsubst harness/lab_specs/%/checks.cpp,$(CPU_OUT)/checker/lab_specs/%/checks.o,$(wildcard harness/lab_specs/*/checks.cpp)))
# (The objects are built from the recipe: this file is read before cpu.mk and grading.mk name them.)
test-call-loops:
	@$(MAKE) --no-print-directory -s $(CPU_OUT)/check/lab3 $(GRADING_OBJS)
	@echo "== call loops (tests/architecture): the checker's and the grader's files call one another one way"
	@tests/architecture/call_loops_test.sh "$(CALL_LOOPS_CHECKER_OBJS)" "$(GRADING_OBJS)"

TEST_TARGETS += test-call-loops
