# Sourced by tests/gpu/device_check.sh and server_check.sh: carrying binaries built here to
# the GPU machine, which has no Debian packages.

# carry_libraries BINARY DIR: every shared library BINARY links, resolved here, copied into
# DIR (stripped); the loader too, so the machine's own glibc (of unknown version) is never
# mixed with what BINARY was built against. libcuda stays the machine's own.
carry_libraries() {
  ldd "$1" | awk '/=>/ {print $3} !/=>/ && $1 ~ /^\// {print $1}' | while read -r lib; do
    [ -f "$lib" ] || continue
    case "$(basename "$lib")" in libcuda.so*) continue ;; esac
    cp -L "$lib" "$2/"
  done
  chmod u+w "$2"/*
  strip --strip-unneeded "$2"/* 2>/dev/null || true
}

# gpu_library_path DIR: DIR, then the GPU machine's driver folders and wherever it keeps
# cuBLAS (the toolkit, or a Python wheel's folder), for the carried loader's --library-path.
gpu_library_path() {
  local path="$1" d cublas
  for d in /usr/local/nvidia/lib64 /usr/local/nvidia/lib /usr/lib/x86_64-linux-gnu /usr/lib64 /lib64 \
           /usr/local/cuda/compat /usr/local/cuda/lib64; do
    [ -d "$d" ] && path="$path:$d"
  done
  cublas=$(find /usr/local /opt /usr/lib -name 'libcublas.so.1[23]*' 2>/dev/null | head -1 || true)
  [ -n "$cublas" ] && path="$path:$(dirname "$cublas")"
  echo "$path"
}
