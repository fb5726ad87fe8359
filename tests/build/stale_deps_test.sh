#!/bin/sh
# Dependency files (.d) written before a source was renamed or removed must not stop make
# ("No rule to make target 'harness/labs/lab3/timing.cu'" for every make of an existing build/):
# the Makefile's live_deps includes only the .d files whose object's source is still there.
# Both layouts compilers write are tried: g++'s (the source on the target's line, or on the next
# when the target is long) and nvcc's ("target : source").
set -u
dir=build/tests/stale-deps
rm -rf "$dir" && mkdir -p "$dir" || exit 1
printf 'a.o: harness/wire/random.cpp harness/wire/random.h\n' > "$dir/gcc_same_line.d"
printf 'build/x/very/long/path/b.o: \\\n harness/wire/protocol.cpp \\\n harness/wire/protocol.h\n' > "$dir/gcc_next_line.d"
printf 'c.o : harness/wire/fill_gpu.cu \\\n    harness/wire/fill.h\n' > "$dir/nvcc.d"
printf 'd.o: harness/labs/lab3/timing.cu harness/wire/random.h\n' > "$dir/renamed.d"
printf 'e.o: \\\n harness/gone/removed.cpp\n' > "$dir/removed.d"
# (MAKEFLAGS emptied: under make test it names job slots this script's make is not handed)
got=$(printf 'show:\n\t@echo $(sort $(notdir $(call live_deps,%s)))\n' "$dir" | MAKEFLAGS= make -s --no-print-directory -f Makefile -f - show)
want="gcc_next_line.d gcc_same_line.d nvcc.d"
rm -rf "$dir"
if [ "$got" = "$want" ]; then
  echo "PASS  stale dependency files: only those whose source is still there are read ($want)"
else
  echo "FAIL  stale dependency files: live_deps read '$got', not '$want'"
  exit 1
fi
