#!/bin/sh
# Runs every benchmark binary under BUILD_DIR/bench with repetitions and prints medians.
set -e
BUILD_DIR=${1:-build}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
export XLA_SHARED_DIR=${XLA_SHARED_DIR:-$ROOT/../shared}
cd "$ROOT"
for b in "$BUILD_DIR"/bench/*; do
  [ -f "$b" ] && [ -x "$b" ] || continue
  echo "== $(basename "$b")"
  "$b" --benchmark_repetitions=5 --benchmark_report_aggregates_only=true \
       --benchmark_min_time=0.5 | grep -E "median|^Benchmark|^-"
done
