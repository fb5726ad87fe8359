#!/bin/sh
# Times a lab-3 sum on the CPU backend at the sizes given (default: 2^24 2^26+1 2^27+1 2^30).
# Usage: tests/emulator/sum_throughput.sh [LAB3_FILE] [SIZE...]   (after make BACKEND=cpu test-cpu,
# which builds build/cpu/lib/libcudalab_cpu.a)
set -e
src=${1:-solutions/lab3_multilevel_sum.cu}
[ $# -gt 0 ] && shift
out=build/cpu/throughput
mkdir -p $out
flags="-std=c++20 -O2 -pthread -DCUDALAB_BACKEND_CPU=1 -Iharness/runner/emulator/include -Iharness/include -Iharness"
perl harness/runner/emulator/rewrite.pl "$src" $out/lab3.cpp "$src"
g++ $flags -c $out/lab3.cpp -o $out/lab3.o
g++ $flags -c tests/emulator/sum_throughput.cpp -o $out/driver.o
# Boost.Context: the system's, or the copy tools/setup/deps.sh unpacked for a user without root.
boost=build/deps/local/boost-context/lib/libboost_context.a
[ -f $boost ] || boost=-lboost_context
g++ $out/lab3.o $out/driver.o build/cpu/lib/libcudalab_cpu.a $boost -pthread -o $out/sum_throughput
[ $# -gt 0 ] || set -- 2^24 2^26+1 2^27+1 2^30
$out/sum_throughput "$@"
