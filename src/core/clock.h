#pragma once
// Wall-clock timing of solver calls (reported, never used for results).

#include <chrono>

namespace graspsim {

using Clock = std::chrono::steady_clock;

inline double ms_since(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

}  // namespace graspsim
