# One style, checked (.clang-format; tests/format/): `make test-format` fails on a file the
# formatter would change, and on a planted misformat it would miss; `make format` rewrites them.

.PHONY: test-format format
test-format:
	@echo "== the formatter (tests/format): the sources as .clang-format writes them"
	@tools/setup/deps.sh clang-format
	@tests/format/format_check.sh

format:
	@tools/setup/deps.sh clang-format
	@tests/format/formatted_files.sh | xargs clang-format -i

TEST_TARGETS += test-format
