#!/usr/bin/env bash
# The GPU check of issue 17 (docs/guides/models.md "Hugging Face models"): builds adarl against the CUDA
# LibTorch of a Python PyTorch install (its CMake prefix), with every other library from
# Debian 12 packages extracted into a prefix (no root, no apt on the GPU machine), then
# runs the LibTorch tests (models_tests; cuda:0 where they ask for it) and model_bench's
# HF architecture on cuda:0 at Qwen2.5-0.5B's shape, the learner under bfloat16 autocast.
#
# Two steps, because a GPU machine often has neither Debian nor a network:
#   1. on a Debian 12 machine with apt (this project's dev machine):
#        scripts/gpu-check.sh --fetch DEBS_DIR        # apt-get download, no root needed
#      then copy DEBS_DIR (about 60 MB) with the source tree to the GPU machine;
#   2. on the GPU machine (Linux x86_64, glibc >= 2.36 as Debian 12's libraries need, gcc
#      >= 10 and cmake >= 3.18, a CUDA toolkit whose nvcc matches torch.version.cuda, and a
#      python3 whose torch has CUDA and the C++11 ABI: pip wheels from 2.7 on):
#        scripts/gpu-check.sh --debs DEBS_DIR [--python python3] [--device cuda:0]
#      Where the machine is Debian 12 with these -dev packages installed, --debs may be
#      left out: the system's are used.
# Prints the torch tests' summary and the benchmark's lines (tokens/s, % of the GEMM
# roofline = model FLOP utilisation) and ends with "gpu-check: done". Exit status: 0
# done, 1 a step failed, 2 a missing prerequisite (named).
set -euo pipefail

src=$(cd "$(dirname "$0")/.." && pwd)
python=python3
debs=""
device=cuda:0
build="$src/build-gpu"
fetch=""
while [ $# -gt 0 ]; do
  case "$1" in
    --fetch) fetch=$2; shift 2 ;;
    --debs) debs=$2; shift 2 ;;
    --python) python=$2; shift 2 ;;
    --device) device=$2; shift 2 ;;
    --build-dir) build=$2; shift 2 ;;
    *) echo "usage: gpu-check.sh --fetch DIR | [--debs DIR] [--python PY] [--device cuda:N] [--build-dir DIR]" >&2
       exit 2 ;;
  esac
done
need() { echo "gpu-check: $*" >&2; exit 2; }

# The -dev packages adarl builds with (scripts/setup.sh, without LibTorch and the tools),
# and the libraries they link at run time.
dev_packages=(libcaf-dev libtbb-dev libzmq3-dev cppzmq-dev libspdlog-dev libfmt-dev
  libcpp-httplib-dev libyaml-cpp-dev nlohmann-json3-dev libcli11-dev libgtest-dev libgmock-dev
  libbenchmark-dev libjemalloc-dev libpcre2-dev libicu-dev libxxhash-dev libgloo-dev
  libsodium-dev libpgm-dev libnorm-dev libbsd-dev libbrotli-dev)
# Never extracted: the C library, the compiler's runtime, and what every system has; the
# host's own must be used.
base_re='^(libc6|libc6-dev|libc-dev-bin|linux-libc-dev|libstdc\+\+|libgcc|gcc|g\+\+|cpp|libgomp|libcrypt|libssl3|libkrb5|libgssapi|libk5crypto|libcom-err|libkeyutils|zlib1g$|libzstd|liblzma|libbz2|libselinux|libpcre3|libmd0|debconf|dpkg|perl|python|tzdata|libtirpc|libnsl|libasan|libtsan|libubsan|liblsan|libitm|libatomic|libquadmath|libcc1|binutils|libbinutils|libctf|libgprofng|libjansson|libisl|libmpc|libmpfr|libgmp|libhwasan|libexpat|libffi|adduser|cdebconf|passwd|libpam|libaudit|libcap|libsemanage|libsepol|libacl1|libdebian-installer|libnewt|libslang|libtextwrap|libtinfo|libreadline|readline-common|libudev|libdb5|install-info|tar$)'

if [ -n "$fetch" ]; then
  command -v apt-get >/dev/null || need "--fetch needs apt-get (a Debian 12 machine)"
  mkdir -p "$fetch"
  mapfile -t all < <(apt-cache depends --recurse --no-recommends --no-suggests --no-conflicts \
      --no-breaks --no-replaces --no-enhances "${dev_packages[@]}" \
    | grep -E '^[a-z0-9]' | sort -u | grep -Ev "$base_re")
  echo "gpu-check: downloading ${#all[@]} packages into $fetch"
  (cd "$fetch" && apt-get download "${all[@]}" >/dev/null)
  du -sh "$fetch"
  exit 0
fi

# --- the CUDA PyTorch -------------------------------------------------------------
command -v "$python" >/dev/null || need "no $python"
torch_info=$("$python" - 2>/dev/null <<'PY'
import torch
print(torch.utils.cmake_prefix_path)
print(torch.__version__)
print(torch.version.cuda or "")
print(int(torch.cuda.is_available()))
print(int(torch._C._GLIBCXX_USE_CXX11_ABI))
import os; print(os.path.join(os.path.dirname(torch.__file__), "lib"))
PY
) || need "$python cannot import torch (a CUDA PyTorch is needed)"
{ read -r torch_prefix; read -r torch_version; read -r torch_cuda; read -r cuda_ok; read -r abi
  read -r torch_lib; } <<< "$torch_info"
echo "gpu-check: torch $torch_version (CUDA ${torch_cuda:-none}) at $torch_prefix"
[ -n "$torch_cuda" ] || need "torch $torch_version has no CUDA"
[ "$cuda_ok" = 1 ] || need "torch sees no CUDA device (nvidia-smi? CUDA_VISIBLE_DEVICES?)"
# Debian's libraries use the C++11 std::string ABI; a torch of the old ABI (pip wheels
# before 2.7) cannot link with them in one program.
[ "$abi" = 1 ] || need "torch $torch_version uses the pre-C++11 ABI (_GLIBCXX_USE_CXX11_ABI=0): use a wheel >= 2.7 or the cxx11-abi LibTorch zip (then --python is only for the prefix)"
if ! command -v nvcc >/dev/null; then
  for d in "${CUDA_HOME:-}" /usr/local/cuda; do
    if [ -n "$d" ] && [ -x "$d/bin/nvcc" ]; then export PATH="$d/bin:$PATH"; break; fi
  done
fi
command -v nvcc >/dev/null || need "no nvcc: TorchConfig.cmake needs a CUDA toolkit ($torch_cuda), set CUDA_HOME"
echo "gpu-check: $(nvcc --version | tail -n1)"
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader 2>/dev/null \
  | sed 's/^/gpu-check: GPU /' || true

# --- the other libraries: extracted Debian packages, or the system's ------------------
cmake_prefix="$torch_prefix"
arch=x86_64-linux-gnu
if [ -n "$debs" ]; then
  root="$build/debian-root"
  if [ ! -f "$root/.extracted" ]; then
    rm -rf "$root" && mkdir -p "$root"
    n=0
    for deb in "$debs"/*.deb; do
      [ -e "$deb" ] || need "$debs has no .deb files (run --fetch on a Debian 12 machine)"
      if command -v dpkg-deb >/dev/null; then
        dpkg-deb -x "$deb" "$root"
      else  # a .deb is an ar archive holding data.tar.*
        tmp=$(mktemp -d)
        (cd "$tmp" && ar x "$deb" && tar -xf data.tar.* -C "$root")
        rm -rf "$tmp"
      fi
      n=$((n + 1))
    done
    touch "$root/.extracted"
    echo "gpu-check: extracted $n packages into $root"
  fi
  cmake_prefix="$torch_prefix;$root/usr"
  # pkg-config files say prefix=/usr: the sysroot puts the extracted root in front.
  export PKG_CONFIG_SYSROOT_DIR="$root"
  export PKG_CONFIG_PATH="$root/usr/lib/$arch/pkgconfig:$root/usr/share/pkgconfig"
  ldpath="$root/usr/lib/$arch:$torch_lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  glibc=$(ldd --version | head -n1 | grep -Eo '[0-9]+\.[0-9]+$' || echo 0)
  if [ "$(printf '%s\n2.36\n' "$glibc" | sort -V | head -n1)" != 2.36 ]; then
    echo "gpu-check: warning: glibc $glibc is older than Debian 12's 2.36; its libraries may not load" >&2
  fi
else
  ldpath="$torch_lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
fi
# Only the build (the linker resolves the libraries' own dependencies through it), the
# tests and the benchmark see the extracted libraries; cmake and the shell do not.
with_libs() { env LD_LIBRARY_PATH="$ldpath" "$@"; }

# --- build ----------------------------------------------------------------------
cuda_arch=$("$python" -c 'import torch; c = torch.cuda.get_device_capability(); print(f"{c[0]}.{c[1]}")')
echo "gpu-check: configuring $build (compute capability $cuda_arch)"
cmake -S "$src" -B "$build" -DCMAKE_BUILD_TYPE=Release \
  "-DCMAKE_PREFIX_PATH=$cmake_prefix" -DCMAKE_LIBRARY_ARCHITECTURE=$arch \
  "-DTORCH_CUDA_ARCH_LIST=$cuda_arch" -DCMAKE_BUILD_RPATH="$torch_lib" > "$build.configure.log" 2>&1 \
  || { tail -n 30 "$build.configure.log"; echo "gpu-check: cmake configure failed"; exit 1; }
grep -E "Torch|CUDA" "$build.configure.log" | head -n 5 || true
jobs=$(nproc)
with_libs cmake --build "$build" -j "$jobs" --target adarl_cli models_tests tokenizers_tests formats_tests model_bench \
  > "$build.build.log" 2>&1 \
  || { grep -E "error" "$build.build.log" | head -n 20; echo "gpu-check: build failed"; exit 1; }
echo "gpu-check: built (log $build.build.log)"

# --- tests and benchmark on the GPU ----------------------------------------------------
status=0
export ADARL_TEST_DEVICE="$device"   # tests that take a device use this one
(cd "$build" && with_libs ctest -R '^(models|tokenizers|formats)\.' --output-on-failure -j 4 > "$build.ctest.log" 2>&1) || status=1
grep -E "tests passed|tests failed|\*\*\*Failed|Not Run" "$build.ctest.log" | head -n 20
echo "gpu-check: model_bench, HF architecture at Qwen2.5-0.5B's shape on $device"
with_libs "$build/bench/model_bench" 8 --model hf --device "$device" --shape 0.5b --bf16 || status=1
[ $status -eq 0 ] || { echo "gpu-check: a step failed (logs in $build.*.log)"; exit 1; }
echo "gpu-check: done"
