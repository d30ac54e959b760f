#!/bin/sh
# Installs the Debian packages xla-server builds and tests with. As root it runs
# apt-get; otherwise it prints the exact command to run.
set -e
PKGS="build-essential cmake ninja-build ccache pkg-config git \
libgrpc++-dev protobuf-compiler-grpc libprotobuf-dev protobuf-compiler libabsl-dev libspdlog-dev \
libgtest-dev libgmock-dev libbenchmark-dev clang-14 libclang-rt-14-dev \
python3-grpcio python3-protobuf python3-numpy python3-pytest python3-venv python3-pip python3-setuptools \
llvm-16-dev libopenblas-dev libeigen3-dev bazel-bootstrap"
missing=""
for p in $PKGS; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed"; then
    missing="$missing $p"
  fi
done
if [ -z "$missing" ]; then
  exit 0
fi
if [ "$(id -u)" = "0" ]; then
  echo "deps: installing:$missing"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing
else
  echo "deps: missing packages; run:"
  echo "  sudo apt-get update && sudo apt-get install -y$missing"
  exit 1
fi
