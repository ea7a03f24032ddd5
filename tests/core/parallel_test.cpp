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

namespace graspsim {
namespace {

// Every task of every run goes once to its own index, run after run on the same threads.
TEST(WorkerPool, RunsEachTaskOncePerRunOnKeptThreads) {
  for (unsigned threads : {1u, 2u, 4u}) {
    WorkerPool pool(threads);
    ASSERT_EQ(pool.size(), threads);
    std::vector<int> count(threads, 0);
    std::vector<std::thread::id> ids(threads);
    for (int run = 0; run < 500; ++run)
      pool.run([&](unsigned k) {
        ++count[k];
        if (run == 0) ids[k] = std::this_thread::get_id();
        else EXPECT_EQ(ids[k], std::this_thread::get_id());  // the same thread each run
      });
    for (unsigned k = 0; k < threads; ++k) EXPECT_EQ(count[k], 500) << k;
    EXPECT_EQ(ids[0], std::this_thread::get_id());  // task 0 on the caller
  }
}

// A task's exception reaches the caller after the other tasks finished; the pool still works.
TEST(WorkerPool, RethrowsATasksExceptionAndKeepsWorking) {
  WorkerPool pool(3);
  std::vector<int> done(3, 0);
  EXPECT_THROW(pool.run([&](unsigned k) {
    if (k == 2) throw std::runtime_error("task 2");
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    done[k] = 1;
  }),
               std::runtime_error);
  EXPECT_EQ(done[0] + done[1], 2);
  int sum = 0;
  std::mutex m;
  pool.run([&](unsigned k) {
    const std::lock_guard lock(m);
    sum += static_cast<int>(k) + 1;
  });
  EXPECT_EQ(sum, 6);
}

}  // namespace
}  // namespace graspsim
