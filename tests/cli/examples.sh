#!/bin/sh
# libadarl as a package (issue 15): installs the build tree into a fresh prefix, checks
# what was installed (libraries, package files, version, public headers and no internal
# ones beyond what they include), then configures, builds and runs each example of
# examples/ against that prefix only (a copy of the example, CMAKE_PREFIX_PATH=prefix,
# no package registry), checking that nothing of the source or build tree is used. The
# work directory is a fresh one outside both (removed when the test passes).
#   examples.sh BUILD_DIR SOURCE_DIR VERSION
set -u
build=$(cd "$1" && pwd) src=$(cd "$2" && pwd) version=$3
work=$(mktemp -d "${TMPDIR:-/tmp}/adarl-examples.XXXXXX") || exit 1
prefix=$work/prefix
fail() { echo "FAIL: $* (files in $work)"; exit 1; }

# 1. Install.
cmake --install "$build" --prefix "$prefix" > "$work/install.log" 2>&1 ||
  { tail -20 "$work/install.log"; fail "cmake --install failed"; }
for f in lib/cmake/adarl/adarlConfig.cmake lib/cmake/adarl/adarlConfigVersion.cmake \
         lib/cmake/adarl/adarlTargets.cmake lib/cmake/adarl/FindCAF.cmake \
         lib/libadarl_pipelines.a lib/libadarl_algorithms.a lib/libadarl_runtime.a \
         include/adarl/version.hpp include/adarl/pipelines/pipeline_builder.hpp \
         include/adarl/engines/engine.hpp include/adarl/messages/interfaces.hpp; do
  [ -f "$prefix/$f" ] || fail "not installed: $f"
done
grep -q "#define ADARL_VERSION \"$version\"" "$prefix/include/adarl/version.hpp" ||
  fail "include/adarl/version.hpp does not say $version"
# Internal headers that no public header includes stay in the source tree.
for f in actors/tracker.hpp actors/learner.hpp net/remote_wire.hpp cli/commands.hpp \
         models/arch/transformer.hpp report/report.hpp; do
  [ -e "$prefix/include/adarl/$f" ] && fail "internal header installed: $f"
done
# The libraries are torch-free: no LibTorch library is named by the exported targets.
grep -qi "torch" "$prefix"/lib/cmake/adarl/adarlTargets*.cmake && fail "the package names torch"
# Every installed header preprocesses with the installed include directories alone (one
# TU with all of them), and none of its includes resolves into the source tree.
all=$work/all_headers.cpp
: > "$all"
(cd "$prefix/include" && find adarl -name '*.hpp' | sort) | while read -r h; do
  echo "#include <$h>" >> "$all"
done
[ "$(wc -l < "$all")" -ge 30 ] || fail "only $(wc -l < "$all") headers installed"
c++ -std=c++20 -M -I "$prefix/include" -I "$prefix/include/adarl" "$all" > "$work/deps.txt" 2>&1 ||
  { head -5 "$work/deps.txt"; fail "the installed headers do not preprocess on their own"; }
grep -q "$src\|$build" "$work/deps.txt" && fail "an installed header includes from the source tree"

# 2. The package's version check: 0.x accepts the same minor version only.
mkdir -p "$work/version_check"
cat > "$work/version_check/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.24)
project(version_check LANGUAGES CXX)
find_package(adarl ${WANT} REQUIRED)
message(STATUS "found adarl ${adarl_VERSION} with ${adarl_PUBLIC_HEADERS}")
CMAKE
want_minor=$(echo "$version" | cut -d. -f1,2)
cmake -S "$work/version_check" -B "$work/version_check/ok" -DWANT="$want_minor" \
      -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_FIND_PACKAGE_NO_PACKAGE_REGISTRY=ON \
      > "$work/version_ok.log" 2>&1 || { tail -20 "$work/version_ok.log"; fail "find_package(adarl $want_minor) failed"; }
grep -q "found adarl $version with .*adarl/pipelines/pipeline_builder.hpp" "$work/version_ok.log" ||
  fail "find_package(adarl) did not give the version and the public headers"
cmake -S "$work/version_check" -B "$work/version_check/bad" -DWANT=0.99 \
      -DCMAKE_PREFIX_PATH="$prefix" > "$work/version_bad.log" 2>&1 &&
  fail "find_package(adarl 0.99) accepted $version"

# 3. The examples, each from a copy, against the prefix only.
launcher=""
command -v ccache > /dev/null && launcher="-DCMAKE_CXX_COMPILER_LAUNCHER=ccache"
for e in embed_verifier custom_engine observe; do
  cp -r "$src/examples/$e" "$work/$e-src"
  cmake -S "$work/$e-src" -B "$work/$e" -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$prefix" \
        -DCMAKE_FIND_PACKAGE_NO_PACKAGE_REGISTRY=ON $launcher > "$work/$e.configure.log" 2>&1 ||
    { tail -20 "$work/$e.configure.log"; fail "$e: configure failed"; }
  grep -q "^adarl_DIR:PATH=$prefix/lib/cmake/adarl$" "$work/$e/CMakeCache.txt" ||
    fail "$e: adarl was not found in the prefix"
  cmake --build "$work/$e" -j2 > "$work/$e.build.log" 2>&1 ||
    { grep -E "error" "$work/$e.build.log" | head -10; fail "$e: build failed"; }
  grep -rq "$src\|$build" "$work/$e/CMakeFiles/$e.dir/flags.make" "$work/$e/CMakeFiles/$e.dir/link.txt" &&
    fail "$e: compiled or linked with paths of the source or build tree"
  (cd "$work/$e" && "./$e" > "$work/$e.out" 2>&1) ||
    { cat "$work/$e.out"; fail "$e: exited with an error"; }
  cat "$work/$e.out"
done

# What each example did.
grep -Eq "^embed_verifier: trained to version 4; the host's reward actors scored [1-9][0-9]* completions, [1-9][0-9]* rewarded$" \
  "$work/embed_verifier.out" || fail "embed_verifier: unexpected output"
[ "$(wc -l < "$work/embed_verifier/embed_verifier_run/metrics.jsonl")" -eq 4 ] ||
  fail "embed_verifier: metrics.jsonl does not hold 4 steps"
grep -q '"zero_reward_reasons":{[^}]*"not_reversed"' "$work/embed_verifier/embed_verifier_run/metrics.jsonl" ||
  fail "embed_verifier: the host's reason code is not in the metrics"
grep -Eq "^custom_engine: the table engine drew [1-9][0-9]* completions; trained to version 6; checkpoint custom_engine_run/checkpoints/step-000006$" \
  "$work/custom_engine.out" || fail "custom_engine: unexpected output"
[ -f "$work/custom_engine/custom_engine_run/checkpoints/step-000006/table.txt" ] ||
  fail "custom_engine: its learner's checkpoint file is missing"
for s in 0 1 2 3 4; do
  grep -q "^step $s: real_reward " "$work/observe.out" || fail "observe: step $s not observed"
done
grep -q "^observe: 5 steps, 4 evaluations observed" "$work/observe.out" ||
  fail "observe: unexpected summary"
rm -rf "$work"
echo "examples: all built against the installed package and ran"
