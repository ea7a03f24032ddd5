// run_ordered: every job runs once, results are emitted in index order whatever the threads do,
// and a job's exception reaches the caller after the others finished.
#include <gtest/gtest.h>

#include <chrono>
#include <stdexcept>
#include <thread>

#include "core/parallel.h"

namespace graspsim {
namespace {

TEST(Parallel, EmitsInIndexOrderWhateverTheFinishingOrder) {
  const std::size_t n = 40;
  std::vector<int> runs(n, 0);
  std::vector<std::size_t> emitted;
  run_ordered(
      n, 3,
      [&](std::size_t i) {
        // Early jobs take longest, so later ones finish first.
        std::this_thread::sleep_for(std::chrono::microseconds(200 * ((n - i) % 5)));
        ++runs[i];
      },
      [&](std::size_t i) { emitted.push_back(i); });
  for (std::size_t i = 0; i < n; ++i) {
    EXPECT_EQ(runs[i], 1) << i;
    EXPECT_EQ(emitted[i], i);
  }
}

TEST(Parallel, AJobsExceptionIsRethrownAfterTheOthersRan) {
  std::vector<int> runs(10, 0);
  EXPECT_THROW(run_ordered(
                   10, 2,
                   [&](std::size_t i) {
                     ++runs[i];
                     if (i == 3) throw std::runtime_error("job 3");
                   },
                   [](std::size_t) {}),
               std::runtime_error);
  for (int r : runs) EXPECT_EQ(r, 1);
}

}  // namespace
}  // namespace graspsim
