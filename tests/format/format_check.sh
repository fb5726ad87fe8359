#!/usr/bin/env bash
# The formatter holds (.clang-format): every C++ and CUDA source of harness/, grading/, tools/ and
# the C++ tests is as clang-format writes it. The lab notebooks (labs/, solutions/) and the test
# fixtures (.cu files under tests/: planted bugs and attacks, kept as a student would write them)
# are left alone. Then a planted misformat must be caught, or the check proves nothing.
#   tests/format/format_check.sh          (make test-format; `make format` rewrites the tree)
# Prints a PASS or FAIL line per part.
set -u
cd "$(dirname "$0")/../.." || exit 1
command -v clang-format > /dev/null || { echo "FAIL  format: clang-format is missing (apt-get install clang-format)"; exit 0; }
mapfile -t files < <(tests/format/formatted_files.sh)
bad=$(clang-format --dry-run --Werror "${files[@]}" 2>&1 | grep -E '^[^ ]+:[0-9]+:[0-9]+: error' | cut -d: -f1 | sort -u)
if [ -z "$bad" ]; then
  echo "PASS  format: ${#files[@]} files as .clang-format writes them"
else
  echo "FAIL  format: $(echo "$bad" | wc -l) files not as .clang-format writes them (make format rewrites them):"
  echo "$bad" | head -20 | sed 's/^/        /'
fi
# A planted misformat: a file of the tree with a statement's spaces doubled and a brace moved.
planted=$(sed '0,/^namespace/s//namespace   /; 0,/) {$/s//)\n{/' harness/wire/protocol.cpp)
if printf '%s\n' "$planted" | clang-format --dry-run --Werror --assume-filename=harness/wire/planted.cpp > /dev/null 2>&1; then
  echo "FAIL  format: a planted misformat (harness/wire/protocol.cpp, spaces doubled, a brace moved) was not caught"
else
  echo "PASS  format: a planted misformat is caught"
fi
