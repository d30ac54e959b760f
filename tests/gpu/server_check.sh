#!/bin/bash
# xla-server end to end on a GPU machine (issue 7): the server with --platform=gpu,interpreter,
# driven over gRPC by xla-cli, each module run on both devices with the same seeded random
# arguments and the results compared (numpy on that machine); then the Python client
# (python_check.py, with that machine's python3, grpcio and numpy) against the same server.
# In two halves, as
# device_check.sh (whose bundle's .hlo and .check files it takes along):
#
#   tests/gpu/server_check.sh prepare   here, after device_check.sh prepare: the stripped
#                                       server and cli with every shared library they need
#                                       (libLLVM, OpenBLAS, ...: xz-compressed, ~53 MiB) and
#                                       the modules in tests/gpu/server_bundle.tar.xz
#   tests/gpu/server_check.sh run       on the GPU machine (device tool, carry
#                                       ["tests/gpu/server_bundle.tar.xz"] alone: with the
#                                       device check's bundle it would pass the 64 MiB limit)
#
# Exit status: 0 every module agrees, 1 some differ or fail, 2 the server did not start.
# SERVER_CHECK_PLATFORM=cpu rehearses the run here, with the cpu backend in the gpu's place;
# $PYTHON (default python3) is the interpreter with numpy and grpcio.
set -euo pipefail
cd "$(dirname "$0")/../.."
BUILD=${BUILD_DIR:-build}
BUNDLE=tests/gpu/bundle
ARCHIVE=tests/gpu/server_bundle.tar.xz
. tests/gpu/carry.sh
# Curated cases small enough for the interpreter to answer in seconds.
CASES="gelu_small softmax_97x5000 row_and_column_reductions mixed_int_bf16_movement f32_math integers
float_ops_f32 while_counted_with_branches conditionals_index_and_pred contractions_windows_indexing
mlp_forward_batch64 sort_keys_values_ties_descending scatter_duplicates_unique_out_of_bounds
select_and_scatter_variadic_scatter fft_every_type_1_to_3_axes cholesky_and_triangular_solves"

prepare() {
  ninja -C "$BUILD" xla-server xla-cli xla_client_py
  [ -d "$BUNDLE/cases" ] || { echo "server_check: run device_check.sh prepare first" >&2; exit 2; }
  local stage
  stage=$(mktemp -d)
  mkdir -p "$stage/server/bin" "$stage/server/lib" "$stage/server/cases"
  for c in $CASES; do cp "$BUNDLE/cases/$c.hlo" "$BUNDLE/cases/$c.check" "$stage/server/cases/"; done
  # The Python package as the build tree has it (sources and generated stubs), links resolved.
  mkdir -p "$stage/server/python"
  cp -rL "$BUILD/python_client/xla_client" "$stage/server/python/"
  find "$stage/server/python" -name __pycache__ -prune -exec rm -rf {} +
  cp tests/gpu/python_check.py "$stage/server/"
  for b in xla-server xla-cli; do
    cp "$BUILD/bin/$b" "$stage/server/bin/"
    strip "$stage/server/bin/$b"
    carry_libraries "$BUILD/bin/$b" "$stage/server/lib"
  done
  tar -C "$stage" -cf - server | xz -T2 -6 > "$ARCHIVE"
  rm -rf "$stage"
  echo "server_check: $(du -m "$ARCHIVE" | cut -f1) MiB in $ARCHIVE"
}

run() {
  local out=${OUT:-/tmp} root=/tmp/xla_server_check
  rm -rf "$root" && mkdir -p "$root"
  xz -dc "$ARCHIVE" | tar -C "$root" -xf -
  local path
  path=$(gpu_library_path "$root/server/lib")
  local loader
  loader=$(find "$root/server/lib" -name 'ld-linux-x86-64.so.*' | head -1)
  run_bin() { "$loader" --library-path "$path" "$root/server/bin/$1" "${@:2}"; }
  local platform=${SERVER_CHECK_PLATFORM:-gpu}
  run_bin xla-server --platform=$platform,interpreter --listen=127.0.0.1:50051 >"$out/server.log" 2>&1 &
  SERVER_PID=$!
  trap 'kill $SERVER_PID 2>/dev/null || true' EXIT
  local up=0
  for _ in $(seq 1 60); do
    if run_bin xla-cli devices --server=127.0.0.1:50051 >"$root/devices.txt" 2>&1; then up=1; break; fi
    sleep 0.5
  done
  if [ "$up" != 1 ]; then
    echo "server_check: the server did not start"; tail -20 "$out/server.log"; return 2
  fi
  cat "$root/devices.txt"
  echo
  echo "| module (xla-server, gRPC, xla-cli) | $platform vs interpreter | $platform execute median |"
  echo "| --- | --- | --- |"
  local failed=0
  for c in $CASES; do
    local hlo="$root/server/cases/$c.hlo" check
    check=$(cat "$root/server/cases/$c.check")
    local ok=1
    for p in $platform interpreter; do
      mkdir -p "$root/o/$p/$c"
      if ! run_bin xla-cli run "$hlo" --server=127.0.0.1:50051 --platform=$p --random-args \
           --output-dir="$root/o/$p/$c" >"$root/o/$p/$c.txt" 2>&1; then
        echo "| $c | FAILED on $p: $(tail -1 "$root/o/$p/$c.txt") | |"; ok=0; break
      fi
    done
    if [ "$ok" = 1 ]; then
      local median verdict
      median=$(run_bin xla-cli run "$hlo" --server=127.0.0.1:50051 --platform=$platform --random-args --repeat=5 --json 2>/dev/null |
               "${PYTHON:-python3}" -c 'import json,sys; print(json.load(sys.stdin)["execute_ms"]["median"])' 2>/dev/null || echo "?")
      verdict=$("${PYTHON:-python3}" - "$root/o/$platform/$c" "$root/o/interpreter/$c" $check <<'PY'
import os, sys
try:
    import numpy as np
except ImportError:
    np = None
gpu, ref, rtol, atol = sys.argv[1], sys.argv[2], float(sys.argv[3]), float(sys.argv[4])
files = sorted(f for f in os.listdir(ref) if f.endswith(".npy"))
if not files or sorted(os.listdir(gpu)) != sorted(os.listdir(ref)):
    print("DIFFER: different outputs"); sys.exit()
for f in files:
    if np is None:  # here, without numpy: bytes only
        if open(os.path.join(gpu, f), "rb").read() != open(os.path.join(ref, f), "rb").read():
            print(f"DIFFER: {f} bytes (no numpy to compare within tolerance)"); sys.exit()
        continue
    try:
        a, b = np.load(os.path.join(gpu, f)), np.load(os.path.join(ref, f))
    except Exception as e:  # bf16 and other ml_dtypes without ml_dtypes installed
        ga, gb = open(os.path.join(gpu, f), "rb").read(), open(os.path.join(ref, f), "rb").read()
        if ga != gb: print(f"DIFFER: {f} bytes ({e})"); sys.exit()
        continue
    if a.shape != b.shape: print(f"DIFFER: {f} shape {a.shape} vs {b.shape}"); sys.exit()
    if a.dtype.kind in "fc":
        if not np.allclose(a, b, rtol=rtol, atol=atol, equal_nan=True):
            i = np.argmax(np.abs(a - b)); print(f"DIFFER: {f} at {i}: {a.flat[i]} vs {b.flat[i]}"); sys.exit()
    elif not np.array_equal(a, b):
        print(f"DIFFER: {f}"); sys.exit()
print(f"agrees ({len(files)} outputs, rtol {rtol}, atol {atol})")
PY
) || verdict="FAILED: the comparison did not run"
      case "$verdict" in agrees*) ;; *) failed=1 ;; esac
      echo "| $c | $verdict | $median ms |"
    else
      failed=1
    fi
  done
  echo
  run_bin xla-cli ping --server=127.0.0.1:50051 --repeat=200 --json || true
  echo
  if ! PYTHONPATH="$root/server/python" "${PYTHON:-python3}" "$root/server/python_check.py" 127.0.0.1:50051 "$platform"; then
    failed=1
  fi
  return $failed
}

case "${1:-}" in
  prepare) prepare ;;
  run) run | tee "${OUT:-/tmp}/server_check.md" ;;
  *)
    echo "usage: $0 prepare|run" >&2
    exit 2
    ;;
esac
