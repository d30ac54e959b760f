#!/bin/sh
# Builds the libFuzzer targets (hlo/*_fuzz.cc) with clang + ASan/UBSan and runs each for a
# bounded time, seeded from ../shared/conformance. Fails on any crash, leak or sanitizer report.
set -e
BUILD_DIR=${1:-build-fuzz}
SECONDS_EACH=${2:-45}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
SHARED=${XLA_SHARED_DIR:-$ROOT/../shared}
if ! command -v clang++-14 >/dev/null 2>&1; then
  echo "fuzz: clang++-14 not installed (make deps installs it); skipping"
  exit 0
fi
cmake -S "$ROOT" -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_C_COMPILER=clang-14 -DCMAKE_CXX_COMPILER=clang++-14 -DXLA_FUZZ=ON >/dev/null
# run NAME SECONDS "SEED FILES" [RSS_MB UNIT_TIMEOUT MAX_LEN]: one target over its corpus.
run() {
  name=$1; seconds=$2; seeds=$3
  corpus="$BUILD_DIR/corpus/$name"
  mkdir -p "$corpus"
  # Seed only on the first run; later runs keep what the fuzzer found.
  if [ -z "$(ls -A "$corpus")" ]; then
    for f in $seeds; do [ -f "$f" ] && cp "$f" "$corpus/"; done
  fi
  echo "fuzz: $name for ${seconds}s"
  "$BUILD_DIR/fuzz/$name" -max_total_time="$seconds" -rss_limit_mb="${4:-2048}" -timeout="${5:-10}" \
    -max_len="${6:-131072}" -print_final_stats=1 -artifact_prefix="$BUILD_DIR/" "$corpus" \
    > "$BUILD_DIR/$name.log" 2>&1 || { tail -80 "$BUILD_DIR/$name.log"; echo "fuzz: $name FAILED"; exit 1; }
  grep -E "stat::number_of_executed_units|Done" "$BUILD_DIR/$name.log" | tail -2
}
CONFORMANCE_HLO="$SHARED/conformance/parser_roundtrip/*.hlo $SHARED/conformance/parse_only/*.hlo"
# XLA_FUZZ_COMPILE_SECONDS > 0 (make fuzz-compile) runs hlo_compile_fuzz instead: modules compiled
# and run on the interpreter and cpu (the whole backend under ASan: a long build, so not in make test),
# seeded with the conformance modules and the modules in the tests.
COMPILE_SECONDS=${XLA_FUZZ_COMPILE_SECONDS:-0}
if [ "$COMPILE_SECONDS" -gt 0 ]; then
  cmake --build "$BUILD_DIR" -j "$(nproc)" --target hlo_compile_fuzz
  /usr/bin/python3 "$ROOT/scripts/fuzz_seeds.py" "$ROOT" "$BUILD_DIR/seeds/hlo_compile_fuzz"
  run hlo_compile_fuzz "$COMPILE_SECONDS" "$BUILD_DIR/seeds/hlo_compile_fuzz/*.hlo $CONFORMANCE_HLO" 4096 60 65536
  echo "fuzz: ok"
  exit 0
fi
cmake --build "$BUILD_DIR" -j "$(nproc)" --target hlo_parser_fuzz hlo_proto_fuzz
run hlo_parser_fuzz "$SECONDS_EACH" "$CONFORMANCE_HLO"
run hlo_proto_fuzz "$SECONDS_EACH" "$SHARED/conformance/proto/*.pb"
echo "fuzz: ok"
