#pragma once
// Independent jobs on a few threads with ordered, incremental results: used to run many
// simulations (one Model or scene each) in one process.

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace graspsim {

// Runs work(i) for every i < n on `jobs` threads and
// calls emit(i) in index order as soon as i and all before it are done, so output stays ordered
// and incremental. The first exception a work item throws is rethrown after all threads stop.
template <class Work, class Emit>
void run_ordered(std::size_t n, unsigned jobs, Work work, Emit emit) {
  std::mutex mutex;
  std::vector<char> done(n, 0);
  std::size_t next_emit = 0;
  std::atomic<std::size_t> next{0};
  std::exception_ptr error;
  const auto worker = [&] {
    for (std::size_t i; (i = next++) < n;) {
      try {
        work(i);
      } catch (...) {
        const std::lock_guard lock(mutex);
        if (!error) error = std::current_exception();
      }
      const std::lock_guard lock(mutex);
      done[i] = 1;
      while (next_emit < n && done[next_emit]) emit(next_emit++);
    }
  };
  std::vector<std::thread> threads;
  for (unsigned w = 1; w < std::max(1u, jobs); ++w) threads.emplace_back(worker);
  worker();
  for (auto& t : threads) t.join();
  if (error) std::rethrow_exception(error);
}

}  // namespace graspsim
