#include "spook/parameters.h"

#include <cmath>

#include "core/error.h"

namespace graspsim::spook {

SpookParameters spook_parameters(double stiffness, double damping_time, double h) {
  // (The messages are built only on failure: this runs for every contact row of a step.)
  if (!(stiffness > 0.0 && !std::isnan(stiffness)))
    require(false, "spook_parameters", "stiffness must be > 0");
  if (!(damping_time >= 0.0 && std::isfinite(damping_time)))
    require(false, "spook_parameters", "damping time must be finite and >= 0");
  if (!(h > 0.0 && std::isfinite(h))) require(false, "spook_parameters", "time step must be finite and > 0");
  SpookParameters p;
  p.epsilon = std::isinf(stiffness) ? 0.0 : 1.0 / stiffness;
  p.gamma = 1.0 / (1.0 + 4.0 * damping_time / h);
  p.sigma = 4.0 / (h * h) * p.epsilon * p.gamma;
  return p;
}

double spook_target(const SpookParameters& params, double h, double gap, double row_velocity) {
  return -4.0 * params.gamma / h * gap + params.gamma * row_velocity;
}

double velocity_compliance(double creep, double h) {
  if (!(creep >= 0.0 && std::isfinite(creep)))
    require(false, "velocity_compliance", "creep must be finite and >= 0");
  if (!(h > 0.0 && std::isfinite(h))) require(false, "velocity_compliance", "time step must be finite and > 0");
  return creep / h;
}

}  // namespace graspsim::spook
