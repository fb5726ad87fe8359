#!/bin/sh
# Runs a test program as N processes side by side, each with CUDALAB_TEST_SHARD=K/N (the program
# takes every N-th item from the K-th), and prints their output one after another, in order.
#   tests/integration/run_shards.sh N LOG_PREFIX PROGRAM [ARGS...]
# Exits 1 when any shard failed (its output says how), 0 when none did.
n=$1 prefix=$2
shift 2
k=0
while [ "$k" -lt "$n" ]; do
  CUDALAB_TEST_SHARD="$k/$n" "$@" > "$prefix.$k.log" 2>&1 &
  eval "pid_$k=$!"
  k=$((k + 1))
done
failed=0
k=0
while [ "$k" -lt "$n" ]; do
  eval "wait \$pid_$k" || failed=1
  cat "$prefix.$k.log"
  k=$((k + 1))
done
exit $failed
