#pragma once
// Independent jobs on a few threads with ordered, incremental results: used to run many
// simulations (one Model or scene each) in one process. And a fork-join pool of kept
// threads for work inside one step (WorkerPool).

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <functional>
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

// Threads kept for the life of the pool, so a step can fork and join in microseconds
// (starting a thread costs tens, and waking a sleeping one ~90 µs on our VMs). run(work)
// calls work(k) once for every k < size(): task 0 on the caller, task k on worker k, and
// returns when all are done; the first exception a task throws is rethrown then. Between
// runs a worker spins for up to kSpin before it sleeps, so steps of a few milliseconds find
// it awake: a pool of n threads keeps n − 1 cores busy while it is used. One run at a time
// (a pool belongs to one solver scratch).
class WorkerPool {
 public:
  explicit WorkerPool(unsigned threads);
  ~WorkerPool();
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;
  unsigned size() const { return static_cast<unsigned>(workers_.size()) + 1; }
  void run(const std::function<void(unsigned)>& work);

 private:
  void loop(unsigned k);
  std::vector<std::thread> workers_;
  std::mutex mutex_;
  std::condition_variable start_, done_;
  const std::function<void(unsigned)>* work_ = nullptr;
  std::atomic<unsigned long> generation_{0};
  std::atomic<unsigned> pending_{0};
  std::atomic<bool> stop_{false};
  std::exception_ptr error_;  // (under mutex_)
};

}  // namespace graspsim
