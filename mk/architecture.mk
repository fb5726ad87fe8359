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
