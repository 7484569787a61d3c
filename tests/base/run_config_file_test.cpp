// config.json (base/run_config_file.hpp): what the one writer writes, the one reader
// reads back; every way a file can be wrong is an error naming it.
#include "base/run_config_file.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

namespace adarl {
namespace {

std::string file_with(const std::string& name, const std::string& text) {
  const std::string path = testing::TempDir() + "adarl_run_config_" + name + ".json";
  std::ofstream(path) << text;
  return path;
}

TEST(RunConfigFileTest, WhatIsWrittenIsReadBack) {
  const std::map<std::string, std::string> values{
      {"seed", "7"}, {"model.kind", "simulated"}, {"name", "a \"quoted\" name"}, {"tasks.dataset", ""}};
  const std::string text = run_config_text(values);
  EXPECT_NE(text.find("\"format\": \"adarl-config-1\""), std::string::npos) << text;
  EXPECT_EQ(text.back(), '\n');
  auto back = read_run_config(file_with("round_trip", text));
  ASSERT_TRUE(back) << back.err().message;
  EXPECT_EQ(*back, values);
}

TEST(RunConfigFileTest, EveryBadFileIsAnErrorNamingIt) {
  const std::string missing = testing::TempDir() + "adarl_run_config_missing.json";
  std::filesystem::remove(missing);
  EXPECT_EQ(read_run_config(missing).err().message,
            missing + ": cannot open (a run or checkpoint without its config)");
  const auto bad = [](const std::string& name, const std::string& text) {
    const std::string f = file_with(name, text);
    auto r = read_run_config(f);
    EXPECT_FALSE(r) << name;
    return r ? std::string() : r.err().message.substr(f.size());
  };
  EXPECT_EQ(bad("torn", "{\"format\": \"adarl-con"), ": corrupt run config (not JSON)");
  EXPECT_EQ(bad("no_format", "{\"values\": {}}"),
            ": not a run config (no \"format\": \"adarl-config-1\")");
  EXPECT_EQ(bad("array", "[1]"), ": not a run config (no \"format\": \"adarl-config-1\")");
  EXPECT_EQ(bad("no_values", "{\"format\": \"adarl-config-1\"}"), ": no \"values\" object");
  EXPECT_EQ(bad("number", "{\"format\": \"adarl-config-1\", \"values\": {\"seed\": 1}}"),
            ": values.seed: expected a string, got number");
}

}  // namespace
}  // namespace adarl
