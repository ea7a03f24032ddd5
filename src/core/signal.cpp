#include "core/signal.h"

#include <algorithm>
#include <cmath>
#include <numbers>

namespace graspsim {

double Signal::operator()(double time) const {
  const double wave =
      sine_amplitude == 0.0 ? 0.0 : sine_amplitude * std::sin(2.0 * std::numbers::pi * sine_frequency * time + sine_phase);
  return knots(time) + wave;
}

double Signal::knots(double time) const {
  if (t.empty()) return 0.0;
  if (time <= t.front()) return y.front();
  if (time >= t.back()) return y.back();
  const auto it = std::upper_bound(t.begin(), t.end(), time);
  const size_t i = static_cast<size_t>(it - t.begin());  // t[i-1] <= time < t[i]
  if (interp == Interp::Step) return y[i - 1];
  const double s = (time - t[i - 1]) / (t[i] - t[i - 1]);
  return y[i - 1] + s * (y[i] - y[i - 1]);
}

}  // namespace graspsim
