#!/bin/sh
# Runs every benchmark binary under BUILD_DIR/bench with repetitions and prints medians.
# cpu_bench (issue 6) is not a Google Benchmark binary: it prints its own table (cpu backend
# against NumPy and the machine's ceilings, medians of CPU_BENCH_RUNS runs).
# server_bench (issue 4) prints its own table too: xla-server against bare gRPC.
set -e
BUILD_DIR=${1:-build}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
export XLA_SHARED_DIR=${XLA_SHARED_DIR:-$ROOT/../shared}
cd "$ROOT"
for b in "$BUILD_DIR"/bench/*; do
  [ -f "$b" ] && [ -x "$b" ] || continue
  case "$(basename "$b")" in cpu_bench|server_bench) continue ;; esac
  echo "== $(basename "$b")"
  "$b" --benchmark_repetitions=5 --benchmark_report_aggregates_only=true \
       --benchmark_min_time=0.5 | grep -E "median|^Benchmark|^-"
done
if [ -x "$BUILD_DIR/bench/cpu_bench" ]; then
  echo "== cpu_bench"
  "$BUILD_DIR/bench/cpu_bench" --runs="${CPU_BENCH_RUNS:-15}"
fi
if [ -x "$BUILD_DIR/bench/server_bench" ]; then
  echo "== server_bench (xla-server against bare gRPC; logs on stderr)"
  "$BUILD_DIR/bench/server_bench" 2>/dev/null
fi
