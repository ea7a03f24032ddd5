#include <chrono>

#include "core/parallel.h"

namespace graspsim {
namespace {

// How long an idle worker (or the caller waiting for the workers) spins before it sleeps.
constexpr auto kSpin = std::chrono::milliseconds(2);

// Spins until done() or kSpin has passed; returns done().
template <class Done>
bool spin_until(Done done) {
  const auto end = std::chrono::steady_clock::now() + kSpin;
  for (int i = 0;; ++i) {
    if (done()) return true;
    if ((i & 63) == 63 && std::chrono::steady_clock::now() > end) return done();
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
  }
}

}  // namespace

WorkerPool::WorkerPool(unsigned threads) {
  for (unsigned k = 1; k < std::max(1u, threads); ++k) workers_.emplace_back([this, k] { loop(k); });
}

WorkerPool::~WorkerPool() {
  {
    const std::lock_guard lock(mutex_);
    stop_ = true;
  }
  start_.notify_all();
  for (std::thread& t : workers_) t.join();
}

void WorkerPool::loop(unsigned k) {
  unsigned long seen = 0;
  for (;;) {
    auto started = [&] { return stop_.load() || generation_.load(std::memory_order_acquire) != seen; };
    if (!spin_until(started)) {
      std::unique_lock lock(mutex_);
      start_.wait(lock, started);
    }
    if (stop_) return;
    seen = generation_.load(std::memory_order_acquire);
    try {
      (*work_)(k);
    } catch (...) {
      const std::lock_guard lock(mutex_);
      if (!error_) error_ = std::current_exception();
    }
    if (pending_.fetch_sub(1, std::memory_order_acq_rel) == 1) {
      const std::lock_guard lock(mutex_);  // (so the caller cannot miss the notification)
      done_.notify_one();
    }
  }
}

void WorkerPool::run(const std::function<void(unsigned)>& work) {
  work_ = &work;  // (no worker reads it until the generation below moves)
  error_ = nullptr;
  pending_.store(static_cast<unsigned>(workers_.size()), std::memory_order_relaxed);
  {
    const std::lock_guard lock(mutex_);  // a worker about to sleep sees the new generation
    generation_.fetch_add(1, std::memory_order_release);
  }
  start_.notify_all();
  std::exception_ptr error;
  try {
    work(0);
  } catch (...) {
    error = std::current_exception();
  }
  auto finished = [&] { return pending_.load(std::memory_order_acquire) == 0; };
  std::unique_lock lock(mutex_, std::defer_lock);
  if (!spin_until(finished)) {
    lock.lock();
    done_.wait(lock, finished);
  } else {
    lock.lock();
  }
  if (!error) error = error_;
  lock.unlock();
  if (error) std::rethrow_exception(error);
}

}  // namespace graspsim
