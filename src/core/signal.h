#pragma once
// A scalar signal of time: a command for an actuator or a velocity of a kinematic body.
// Piecewise linear (or held) through knots; constant before the first and after the last.

#include <vector>

namespace graspsim {

struct Signal {
  enum class Interp { Linear, Step };
  std::vector<double> t;  // strictly increasing knot times (s)
  std::vector<double> y;  // values at the knots
  Interp interp = Interp::Linear;

  static Signal Constant(double value) { return Signal{{0.0}, {value}, Interp::Step}; }
  double operator()(double time) const;
  bool empty() const { return t.empty(); }
};

}  // namespace graspsim
