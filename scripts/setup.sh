#!/usr/bin/env bash
# Installs the Debian 12 packages adarl builds and runs with. Idempotent: it runs
# `apt-get update` and `apt-get install` only when a package is missing.
set -euo pipefail

packages=(
  build-essential cmake ccache pkg-config git
  libcaf-dev                      # C++ Actor Framework 0.17.6 (core, io)
  libtorch-dev                    # LibTorch 1.13.1, CPU
  libopenblas0-openmp             # fast BLAS for torch (the reference BLAS is 16x slower)
  libgloo-dev                     # torch.distributed Gloo headers
  libtbb-dev                      # oneTBB
  libzmq3-dev cppzmq-dev          # ZeroMQ and its C++ binding
  libspdlog-dev libfmt-dev        # logging
  libyaml-cpp-dev                 # configs
  nlohmann-json3-dev              # JSON, msgpack
  libcli11-dev                    # command line
  libgtest-dev libgmock-dev       # tests
  libbenchmark-dev                # benchmarks
  libjemalloc-dev                 # allocator of the executables (cross-thread frees)
  python3
  python3-zmq python3-msgpack     # the example Python remote verifier (scripts/remote_verifier.py)
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  sudo_cmd=""
  if [ "$(id -u)" -ne 0 ]; then sudo_cmd="sudo"; fi
  export DEBIAN_FRONTEND=noninteractive
  $sudo_cmd apt-get update -qq
  $sudo_cmd apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# Torch must call the OpenMP OpenBLAS, not the reference BLAS (TOOLCHAIN.md, "Speed").
blas=$(update-alternatives --query libblas.so.3-x86_64-linux-gnu 2>/dev/null \
  | awk '/^Value:/ {print $2}')
case "$blas" in
  *openblas-openmp*) ;;
  *)
    alt=$(update-alternatives --list libblas.so.3-x86_64-linux-gnu 2>/dev/null | grep openblas-openmp | head -n1 || true)
    if [ -n "$alt" ]; then
      ${sudo_cmd:-} update-alternatives --set libblas.so.3-x86_64-linux-gnu "$alt" >/dev/null || true
    fi
    ;;
esac
echo "setup: all packages present"
