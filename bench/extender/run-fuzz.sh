#!/usr/bin/env bash
# Builds the extender's libFuzzer target with clang (its own build directory) and runs it for
# 1,000,000 executions over a copy of the seed corpus. Usage: bench/extender/run-fuzz.sh [runs] [build-dir]
# The issue's bar: at least 1,000,000 executions clean.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
runs="${1:-1000000}"
build="${2:-build-fuzz}"
CC=clang CXX=clang++ cmake -S . -B "$build" -DGANGPLANK_COMPONENTS="engine;net;extender" -DGANGPLANK_FUZZ=ON \
  -DGANGPLANK_BUILD_BENCH=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$build" -j"${GANGPLANK_JOBS:-2}" --target extender_fuzz
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cp -r extender/fuzz/corpus "$work/corpus"
"$build/extender/fuzz/extender_fuzz" -runs="$runs" -max_len=65536 -seed=1 -print_final_stats=1 "$work/corpus" 2>&1 |
  grep -E "^Done|stat::number_of_executed_units|stat::average_exec_per_sec|ERROR|SUMMARY"
