#pragma once
// A scalar signal of time: a command for an actuator or a velocity of a kinematic body.
// Piecewise linear (or held) through knots; constant before the first and after the last;
// plus an optional sinusoid a·sin(2π f t + φ) (a shaking gripper, seed 004's Section III.B).

#include <vector>

namespace graspsim {

struct Signal {
  enum class Interp { Linear, Step };
  std::vector<double> t;  // strictly increasing knot times (s)
  std::vector<double> y;  // values at the knots
  Interp interp = Interp::Linear;
  double sine_amplitude = 0.0, sine_frequency = 0.0, sine_phase = 0.0;  // a, f (Hz), φ (rad)

  static Signal Constant(double value) { return Signal{{0.0}, {value}, Interp::Step}; }
  double operator()(double time) const;
  double knots(double time) const;  // the piecewise part alone
  bool empty() const { return t.empty() && sine_amplitude == 0.0; }
};

}  // namespace graspsim
