#!/usr/bin/env bash
# Installs the Debian packages vta-sim needs (idempotent, quiet when everything is present),
# then configures and builds into build/.  Usage: scripts/setup.sh [extra cmake args]
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(g++ make cmake pkgconf zlib1g-dev libsystemc-dev verilator catch2 libboost-dev
  libboost-program-options-dev nlohmann-json3-dev libfmt-dev ccache clang-format-16
  pybind11-dev python3-dev python3-numpy python3-pytest python3-matplotlib python3-pandas
  gtkwave python3-jsonschema libsqlite3-dev chromium libonnx-dev libprotobuf-dev protobuf-compiler
  libdnnl-dev ocl-icd-opencl-dev opencl-c-headers python3-onnx python3-torch python3-torchvision)
# ocl-icd-opencl-dev and opencl-c-headers: libdnnl-dev's CMake package looks for OpenCL (its GPU
# runtime) even on a CPU-only build; Debian only recommends them.
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  sudo_cmd=""
  [ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq --no-install-recommends \
    "${missing[@]}" >/dev/null
fi

jobs=$(nproc 2>/dev/null || echo 2)
if [ ! -f build/CMakeCache.txt ]; then
  cmake -S . -B build -DCMAKE_BUILD_TYPE=Release "$@" >/dev/null
fi
cmake --build build -j "$jobs" 2>&1 | grep -E "error|warning|Error" || true
cmake --build build -j "$jobs" >/dev/null
