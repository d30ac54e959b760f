#!/bin/sh
# Builds proto/, hlo/ and xla-cli with Bazel, offline, when bazel is installed.
set -e
if ! command -v bazel >/dev/null 2>&1; then
  echo "bazel-build: bazel not installed (make deps installs bazel-bootstrap); skipping"
  exit 0
fi
bazel build --jobs="$(nproc)" //:xla_proto //:hlo //:backends //:xla-cli
echo "bazel-build: ok"
