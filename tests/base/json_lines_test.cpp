// read_json_lines: the reader of a run's JSONL files, and what it says of a torn line.
#include "base/json_lines.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "base/content_hash.hpp"

namespace adarl {
namespace {

namespace fs = std::filesystem;

std::string file_with(const std::string& name, const std::string& text) {
  const auto p = fs::temp_directory_path() / ("adarl_jsonl_" + name + "_" +
                                              std::to_string(::getpid()) + ".jsonl");
  std::ofstream(p) << text;
  return p.string();
}

// Issue 38: `adarl report` on a torn metrics.jsonl exited 0 without a word; the reader
// now says which line it left out.
TEST(JsonLinesTest, ATornLastLineIsLeftOutAndTold) {
  const auto f = file_with("torn", "{\"step\": 0}\n\n{\"step\": 1}\n{\"step\": 2, \"lo");
  std::string torn = "stale";
  auto lines = read_json_lines(f, false, &torn);
  ASSERT_TRUE(lines) << lines.err().message;
  EXPECT_EQ(lines->size(), 2u);
  EXPECT_EQ(torn, f + ":4: the last line is torn (the run stopped while writing it?); it was "
                      "left out");
  const auto whole = file_with("whole", "{\"step\": 0}\n");
  ASSERT_TRUE(read_json_lines(whole, false, &torn));
  EXPECT_EQ(torn, "");
  const auto middle = file_with("middle", "{\"step\": 0}\n{bad\n{\"step\": 1}\n");
  auto bad = read_json_lines(middle, false, &torn);
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.err().message, middle + ":2: not a JSON object");
  for (const auto& p : {f, whole, middle}) fs::remove(p);
}

TEST(ContentHashTest, AFileHashesAsItsBytesAndAMissingFileIsNamed) {
  const std::string text(3 << 20, 'x');  // more than one read buffer
  const auto f = file_with("hash", text);
  auto h = file_content_hash(f);
  ASSERT_TRUE(h) << h.err().message;
  EXPECT_EQ(*h, content_hash(text));
  EXPECT_EQ(h->size(), 32u);
  EXPECT_NE(*h, content_hash(text.substr(1)));
  EXPECT_EQ(content_hash(""), "99aa06d3014798d86001c324468d497f");  // XXH3-128 of nothing
  fs::remove(f);
  auto missing = file_content_hash(f);
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.err().message.find(f + ": cannot open"), std::string::npos);
}

}  // namespace
}  // namespace adarl
