#pragma once
// Shared set-up of the actor and pipeline tests.

#include <caf/actor_system_config.hpp>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "actors/prompt_table.hpp"
#include "tasks/suites.hpp"

namespace adarl::test {

/// A small actor system: two scheduler threads, quiet console.
struct test_system_config : caf::actor_system_config {
  test_system_config() { set("scheduler.max-threads", size_t{2}); }
};

/// Math prompts: `train` training items then `held_out` held-out ones.
inline prompt_table_ptr math_table(uint32_t train, uint32_t held_out, uint64_t seed = 1) {
  suite_request r;
  r.seed = seed;
  r.count = train;
  auto tr = generate_suite("math", r);
  r.count = held_out;
  r.part = split::held_out;
  auto ho = generate_suite("math", r);
  auto tok = tokenizer::from_charset(tokenizer::default_charset());
  auto t = build_prompt_table(*tr, *ho, *tok);
  return std::make_shared<const prompt_table>(std::move(*t));
}

/// An empty temporary directory for one test (removed first if left by an earlier run).
inline std::string fresh_dir(const std::string& name) {
  const std::string dir = testing::TempDir() + "adarl_" + name;
  std::filesystem::remove_all(dir);
  return dir;
}

/// The JSON objects of a JSONL file, one per line.
inline std::vector<nlohmann::json> read_lines(const std::string& file) {
  std::ifstream f(file);
  std::vector<nlohmann::json> out;
  for (std::string line; std::getline(f, line);) out.push_back(nlohmann::json::parse(line));
  return out;
}

}  // namespace adarl::test
