// jemalloc: the executables' allocator (ADARL_ALLOCATOR=jemalloc). malloc and operator
// new of the whole process must be jemalloc's, and runtime/jemalloc_conf.cpp's options
// must be in force; with ADARL_ALLOCATOR=system there is nothing to check.
#include <gtest/gtest.h>

#ifdef ADARL_JEMALLOC
#include <jemalloc/jemalloc.h>
#endif

#include <cstdint>
#include <cstdlib>
#include <memory>

#ifdef ADARL_JEMALLOC
namespace {

template <class T>
T read_ctl(const char* name) {
  T value{};
  size_t size = sizeof(value);
  EXPECT_EQ(mallctl(name, &value, &size, nullptr, 0), 0) << name;
  return value;
}

}  // namespace
#endif

TEST(JemallocToolchainTest, MallocAndNewOfTheProcessAreJemallocs) {
#ifndef ADARL_JEMALLOC
  GTEST_SKIP() << "built with ADARL_ALLOCATOR=system";
#else
  // thread.allocated counts what this thread allocated through jemalloc: a plain
  // malloc (and a new) must show up there, or glibc's malloc still serves the process.
  const auto before = read_ctl<uint64_t>("thread.allocated");
  void* p = std::malloc(1 << 20);
  ASSERT_NE(p, nullptr);
  const auto after_malloc = read_ctl<uint64_t>("thread.allocated");
  auto q = std::make_unique<char[]>(1 << 20);
  const auto after_new = read_ctl<uint64_t>("thread.allocated");
  std::free(p);
  EXPECT_GE(after_malloc - before, uint64_t{1} << 20);
  EXPECT_GE(after_new - after_malloc, uint64_t{1} << 20);
#endif
}

TEST(JemallocToolchainTest, CompiledInOptionsKeepFreedPages) {
#ifndef ADARL_JEMALLOC
  GTEST_SKIP() << "built with ADARL_ALLOCATOR=system";
#else
  if (std::getenv("MALLOC_CONF")) GTEST_SKIP() << "MALLOC_CONF overrides the options";
  EXPECT_EQ(read_ctl<ssize_t>("opt.dirty_decay_ms"), -1);
  EXPECT_EQ(read_ctl<ssize_t>("opt.muzzy_decay_ms"), -1);
#endif
}
