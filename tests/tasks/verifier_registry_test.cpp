#include <gtest/gtest.h>

#include "tasks/verifier_registry.hpp"

namespace adarl {
namespace {

class constant_verifier final : public verifier {
 public:
  explicit constant_verifier(std::string name) : name_(std::move(name)) {}
  std::string_view name() const override { return name_; }
  verdict verify(const task_item&, std::string_view text) const override {
    return text == "yes" ? verdict{1.f, ""} : verdict{0.f, "mismatch"};
  }

 private:
  std::string name_;
};

TEST(VerifierRegistryTest, FindsByNameAndListsKnownNamesOnError) {
  verifier_registry r;
  r.add(std::make_unique<constant_verifier>("b"));
  r.add(std::make_unique<constant_verifier>("a"));
  auto found = r.find("b");
  ASSERT_TRUE(found.ok());
  EXPECT_EQ((*found)->verify({}, "yes").reward, 1.f);
  auto missing = r.find("c");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.err().message, "unknown verifier \"c\" (known: a, b)");
  EXPECT_EQ(r.names(), (std::vector<std::string>{"a", "b"}));
}

}  // namespace
}  // namespace adarl
