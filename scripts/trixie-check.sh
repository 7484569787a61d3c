#!/usr/bin/env bash
# Builds adarl against LibTorch 2.6 (Debian 13 "trixie", g++ 14) in a debootstrap chroot
# and runs the LibTorch tests and one short `adarl run` there: the check that one source
# tree builds and passes on both Debian 12's LibTorch 1.13.1 and 2.x (issue 40;
# docs/development.md "LibTorch 2.x (Debian 13)").
#
#   scripts/trixie-check.sh            # the working tree as it is (bind-mounted read-only)
#   scripts/trixie-check.sh --head     # a clone of HEAD instead
#   options: --jobs N (default nproc), --targets "T1 T2" (default: the whole project)
#
# The chroot (1.6 GB with the packages) is made once and kept in $ADARL_TRIXIE_BASE
# (default /var/tmp/adarl-trixie-base) with its build directory (/build/trixie inside it,
# 3.7 GB) and ccache, so a second run builds only what changed. The packages are
# installed again only when the list below changes. Tests: ctest -R "$ADARL_TRIXIE_TESTS"
# (default: the LibTorch test binaries). Needs root and the Debian mirror of /etc/apt
# (both present on these machines). Prints the test summary and "trixie-check: done";
# exits 1 when a step fails, 2 when a prerequisite is missing. Logs: ADARL_TRIXIE_BASE/build/logs.
set -euo pipefail

src=$(cd "$(dirname "$0")/.." && pwd)
base=${ADARL_TRIXIE_BASE:-/var/tmp/adarl-trixie-base}
tests_re=${ADARL_TRIXIE_TESTS:-'^(models\.|experiments\.SftJobTest\.|toolchain\.TorchToolchainTest\.)'}
jobs=$(nproc 2>/dev/null || echo 2)
targets=""
head=""
while [ $# -gt 0 ]; do
  case "$1" in
    --head) head=1; shift ;;
    --jobs) jobs=$2; shift 2 ;;
    --targets) targets=$2; shift 2 ;;
    *) echo "usage: trixie-check.sh [--head] [--jobs N] [--targets \"T...\"]" >&2; exit 2 ;;
  esac
done
say() { echo "trixie-check: $*"; }
need() { echo "trixie-check: $*" >&2; exit 2; }
[ "$(id -u)" -eq 0 ] || need "needs root (debootstrap, chroot, bind mounts)"
command -v unshare >/dev/null || need "no unshare (util-linux)"

# The build dependencies of adarl in trixie (scripts/setup.sh's, without the tools that
# only some command-line tests use: clang, node, chromium, prometheus, python modules).
packages=(
  g++ make cmake ccache pkg-config python3
  libcaf-dev                    # 0.17.6, as in Debian 12
  libtorch-dev                  # LibTorch 2.6.0, CPU
  libopenblas0-openmp           # the BLAS torch calls (selected below)
  libgloo-dev                   # torch.distributed Gloo headers (models/train/replica_group)
  libtbb-dev libzmq3-dev cppzmq-dev libspdlog-dev libfmt-dev libcpp-httplib-dev
  libyaml-cpp-dev nlohmann-json3-dev libcli11-dev libgtest-dev libgmock-dev libbenchmark-dev
  libjemalloc-dev libpcre2-dev libicu-dev libxxhash-dev libginac-dev
)

mirror=$(awk '/^URIs:/ {print $2; exit}' /etc/apt/sources.list.d/debian.sources 2>/dev/null || true)
[ -n "$mirror" ] || mirror=$(awk '/^deb / {print $2; exit}' /etc/apt/sources.list 2>/dev/null || true)
[ -n "$mirror" ] || need "no Debian mirror in the apt sources"

# in_chroot CMD...: runs CMD in the chroot, in a mount namespace of its own (the mounts
# vanish with it): /proc, /dev, and the source tree read-only at /src/adarl.
in_chroot() {
  unshare --mount --propagation private -- bash -c '
    set -e
    root=$1 tree=$2; shift 2
    mount --bind /proc "$root/proc"
    mount --rbind /dev "$root/dev"
    if [ -n "$tree" ]; then
      mkdir -p "$root/src/adarl"
      mount --bind "$tree" "$root/src/adarl"
      mount -o remount,bind,ro "$root/src/adarl"
    fi
    exec chroot "$root" /usr/bin/env -i HOME=/root LANG=C.UTF-8 TERM=dumb \
      PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin "$@"' \
    _ "$base" "${tree:-}" "$@"
}
t0=$(date +%s)
lap() { local now; now=$(date +%s); say "$1 took $((now - t0)) s"; t0=$now; }

# --- 1. the base system (once) ----------------------------------------------------
if [ ! -f "$base/.adarl-base" ]; then
  command -v debootstrap >/dev/null || apt-get install -y -qq debootstrap >/dev/null \
    || need "no debootstrap (apt-get install debootstrap)"
  say "creating the Debian 13 base system in $base (once) from $mirror"
  rm -rf "$base"
  debootstrap --variant=minbase trixie "$base" "$mirror" > "$base.debootstrap.log" 2>&1 \
    || { tail -n 20 "$base.debootstrap.log"; say "debootstrap failed"; exit 1; }
  rm -f "$base.debootstrap.log"
  # The archive may serve a snapshot whose Release file has expired.
  printf 'Acquire::Check-Valid-Until "false";\nAPT::Install-Recommends "false";\n' \
    > "$base/etc/apt/apt.conf.d/90adarl"
  touch "$base/.adarl-base"
  lap "debootstrap"
fi

# --- 2. the packages (again only when the list changes) -----------------------------
want=$(printf '%s\n' "${packages[@]}")
if [ "$(cat "$base/.adarl-packages" 2>/dev/null || true)" != "$want" ]; then
  say "installing ${#packages[@]} packages in the chroot"
  cp /etc/resolv.conf "$base/etc/resolv.conf"
  tree="" in_chroot bash -c '
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq && apt-get install -y -qq "$@" > /var/log/adarl-install.log 2>&1 \
      || { tail -n 20 /var/log/adarl-install.log; exit 1; }
    alt=$(update-alternatives --list libblas.so.3-x86_64-linux-gnu | grep openblas-openmp | head -n1)
    update-alternatives --set libblas.so.3-x86_64-linux-gnu "$alt" >/dev/null
    apt-get clean' _ "${packages[@]}" || { say "package install failed"; exit 1; }
  echo "$want" > "$base/.adarl-packages"
  lap "package install"
fi
torch_version=$(tree="" in_chroot dpkg-query -W -f='${Version}' libtorch-dev)
gxx_version=$(tree="" in_chroot g++ -dumpfullversion)
say "Debian $(cat "$base/etc/debian_version"), LibTorch $torch_version, g++ $gxx_version"

# --- 3. the source tree -------------------------------------------------------------
clone=""
cleanup() { [ -z "$clone" ] || rm -rf "$clone"; }
trap cleanup EXIT
if [ -n "$head" ]; then
  clone=$(mktemp -d /var/tmp/adarl-trixie-src.XXXXXX)
  git clone -q "$src" "$clone/adarl"
  tree="$clone/adarl"
  say "source: a clone of HEAD $(git -C "$src" rev-parse --short HEAD)"
else
  tree="$src"
  say "source: the working tree $src (HEAD $(git -C "$src" rev-parse --short HEAD 2>/dev/null || echo '?'))"
fi

# --- 4. build -----------------------------------------------------------------------
logs="$base/build/logs"
mkdir -p "$logs"
say "building in $base/build/trixie with $jobs jobs (logs in $logs)"
in_chroot bash -c '
  set -o pipefail
  export CCACHE_DIR=/build/ccache
  ccache -M 8G >/dev/null
  cmake -S /src/adarl -B /build/trixie -DCMAKE_BUILD_TYPE=RelWithDebInfo > /build/logs/configure.log 2>&1 \
    || { tail -n 30 /build/logs/configure.log; echo "trixie-check: cmake configure failed"; exit 1; }
  targets=()
  for t in $2; do targets+=(--target "$t"); done
  cmake --build /build/trixie -j "$1" "${targets[@]}" -- -k > /build/logs/build.log 2>&1 \
    || { grep -E -A3 "error|Error " /build/logs/build.log | head -n 60; echo "trixie-check: build failed"; exit 1; }
  grep -c "warning:" /build/logs/build.log | sed "s/^/trixie-check: compiler warnings: /" || true' \
  _ "$jobs" "$targets" || exit 1
lap "build"

# --- 5. the LibTorch tests ------------------------------------------------------------
status=0
in_chroot bash -c 'cd /build/trixie && ctest -R "$1" --output-on-failure -j 2 > /build/logs/ctest.log 2>&1' \
  _ "$tests_re" || status=1
grep -E '\*\*\*(Failed|Timeout|Exception)|Not Run' "$logs/ctest.log" | head -n 20 || true
sed -n '/tests passed, /,$p' "$logs/ctest.log" | grep -v '^$' | head -n 40 || true
lap "tests"

# --- 6. one short adarl run -----------------------------------------------------------
say "adarl run: configs/quickstart.yaml, 3 RL steps after 20 SFT steps"
in_chroot bash -c '
  rm -rf /build/run /build/run-cache && cd /build
  ADARL_CACHE=/build/run-cache /build/trixie/adarl run /src/adarl/configs/quickstart.yaml out=/build/run progress=false \
    sft.steps=20 tracker.steps=3 eval.every=0 > /build/logs/run.log 2>&1
  rc=$?; tail -n 8 /build/logs/run.log; exit $rc' || { say "adarl run failed"; status=1; }
grep -q "finished at version 3" "$logs/run.log" || { say "adarl run did not finish 3 steps"; status=1; }
lap "adarl run"

[ $status -eq 0 ] || { say "a step failed (logs in $logs)"; exit 1; }
say "done"
