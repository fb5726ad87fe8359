#!/usr/bin/env bash
# The files .clang-format holds (one list for the check and for `make format`): the C++ and CUDA
# sources of harness/, grading/ and tools/, and the tests' own C++; not the notebooks, not the
# tests' .cu fixtures.
cd "$(dirname "$0")/../.." || exit 1
git ls-files -- 'harness/*.cpp' 'harness/*.h' 'harness/*.cu' 'harness/*.cuh' 'grading/*.cpp' 'grading/*.h' \
  'tools/*.cpp' 'tools/*.cu' 'tests/*.cpp' 'tests/*.h'
