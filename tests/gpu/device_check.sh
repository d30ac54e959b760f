#!/bin/bash
# The gpu backend's check on a real GPU (issue 7), in two halves because the GPU machine has
# no Debian packages and no LLVM:
#
#   tests/gpu/device_check.sh prepare   here: builds gpu_bundle and gpu_check_runner, compiles
#                                       the check's modules for sm_90 (curated cases, the
#                                       issue's GELU benchmark, every conformance module the
#                                       gpu backend compiles) into tests/gpu/bundle, with the
#                                       runner and every shared library it needs (glibc and
#                                       its loader included; libcuda is the machine's own)
#   tests/gpu/device_check.sh run       on the GPU machine: runs the bundle (curated checks,
#                                       then benchmarks, then conformance modules; rows as
#                                       they come, a markdown table last) and, where that
#                                       machine's python3 has JAX, the same benchmarks through
#                                       JAX (tests/gpu/jax_reference.py); all of it also to
#                                       $OUT/device_check.md
#
# With the device tool: prepare here, then run with carry ["tests/gpu/bundle"] and a timeout
# under 8 minutes (the runner starts no case after GPU_CHECK_BUDGET_S, default 300 here, and
# gives up on a case after GPU_CHECK_CASE_TIMEOUT_S, default 60; JAX gets 100 s).
# Exit status: 0 all checked cases agree, 1 some failed, 3 no GPU, 4 a case hung.
set -euo pipefail
cd "$(dirname "$0")/../.."
BUILD=${BUILD_DIR:-build}
BUNDLE=tests/gpu/bundle
. tests/gpu/carry.sh
MAX_BUNDLE_MIB=48  # the device tool carries 64 MiB with the working tree

prepare() {
  if [ ! -f "$BUILD/build.ninja" ]; then
    echo "device_check: no configured build in $BUILD (run make build first)" >&2
    exit 2
  fi
  ninja -C "$BUILD" gpu_bundle gpu_check_runner
  rm -rf "$BUNDLE"
  mkdir -p "$BUNDLE/lib"
  local conformance=../shared/conformance
  [ -d "$conformance" ] || conformance=""
  "$BUILD/bin/gpu_bundle" "$BUNDLE" $conformance
  cp "$BUILD/bin/gpu_check_runner" "$BUNDLE/"
  strip "$BUNDLE/gpu_check_runner"
  carry_libraries "$BUILD/bin/gpu_check_runner" "$BUNDLE/lib"
  local mib
  mib=$(du -sm "$BUNDLE" | cut -f1)
  echo "device_check: bundle is ${mib} MiB in $BUNDLE"
  if [ "$mib" -gt "$MAX_BUNDLE_MIB" ]; then
    echo "device_check: the bundle is over ${MAX_BUNDLE_MIB} MiB" >&2
    exit 2
  fi
}

run() {
  if [ ! -x "$BUNDLE/gpu_check_runner" ]; then
    echo "device_check: no bundle in $BUNDLE (run '$0 prepare' on the build machine)" >&2
    exit 2
  fi
  command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv || true
  # libcuda comes from the machine: the usual driver directories follow the bundle's own.
  local path
  path=$(gpu_library_path "$PWD/$BUNDLE/lib")
  echo "device_check: library path $path"
  local loader
  loader=$(find "$BUNDLE/lib" -name 'ld-linux-x86-64.so.*' | head -1)
  local out=${OUT:-/tmp}
  local rc=0
  export GPU_CHECK_BUDGET_S=${GPU_CHECK_BUDGET_S:-300}
  if [ -n "$loader" ]; then
    timeout 400 "$loader" --library-path "$path" "$BUNDLE/gpu_check_runner" "$BUNDLE" | tee "$out/device_check.md" || rc=$?
  else
    LD_LIBRARY_PATH="$path" timeout 400 "$BUNDLE/gpu_check_runner" "$BUNDLE" | tee "$out/device_check.md" || rc=$?
  fi
  if command -v python3 >/dev/null; then
    echo
    PYTHONUNBUFFERED=1 timeout 100 python3 tests/gpu/jax_reference.py 2>"$out/jax_reference.err" | tee -a "$out/device_check.md" ||
      echo "jax reference: failed or timed out (stderr in jax_reference.err)"
  fi
  return $rc
}

case "${1:-}" in
  prepare) prepare ;;
  run) run ;;
  *)
    echo "usage: $0 prepare|run" >&2
    exit 2
    ;;
esac
