// oneTBB: a parallel reduction inside one call, in an arena of a chosen size.
#include <gtest/gtest.h>

#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/parallel_reduce.h>
#include <oneapi/tbb/task_arena.h>

#include <functional>

TEST(TbbToolchainTest, ParallelReduceInArenaSumsExactly) {
  tbb::task_arena arena{2};
  long long sum = arena.execute([] {
    return tbb::parallel_reduce(
        tbb::blocked_range<int>(1, 100001), 0LL,
        [](const tbb::blocked_range<int>& r, long long acc) {
          for (int i = r.begin(); i != r.end(); ++i) acc += i;
          return acc;
        },
        std::plus<long long>());
  });
  EXPECT_EQ(sum, 5000050000LL);
}
