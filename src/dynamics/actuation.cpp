#include "dynamics/actuation.h"

#include <algorithm>

namespace graspsim {

double actuator_set_point(const Actuator& a, double ctrl) {
  return a.ctrl_gain * std::clamp(ctrl, a.ctrl_min, a.ctrl_max) + a.ctrl_bias;
}

double actuator_length(const Actuator& a, const VecX& q) {
  double L = 0.0;
  for (const TransmissionTerm& t : a.transmission) L += t.coef * q[t.qadr];
  return L;
}

double actuator_rate(const Actuator& a, const VecX& v) {
  double Ld = 0.0;
  for (const TransmissionTerm& t : a.transmission) Ld += t.coef * v[t.vadr];
  return Ld;
}

void add_actuator_forces(const Model& model, const Input& input, const VecX& q, const VecX& v, VecX* effort,
                         VecX& tau, ServoForces servos) {
  if (effort) effort->resize(static_cast<Eigen::Index>(model.actuators.size()));
  for (size_t i = 0; i < model.actuators.size(); ++i) {
    const Actuator& a = model.actuators[i];
    const auto ii = static_cast<Eigen::Index>(i);
    if (a.type != ActuatorType::Force && servos == ServoForces::Skip) continue;
    const double s = actuator_set_point(a, input.ctrl[ii]);
    double e = 0.0;
    switch (a.type) {
      case ActuatorType::Force: e = s; break;
      case ActuatorType::Position: e = a.kp * (s - actuator_length(a, q)) - a.kv * actuator_rate(a, v); break;
      case ActuatorType::Velocity: e = a.kv * (s - actuator_rate(a, v)); break;
    }
    e = std::clamp(e, a.effort_min, a.effort_max);
    if (effort) (*effort)[ii] = e;
    for (const TransmissionTerm& t : a.transmission) tau[t.vadr] += t.coef * e;
  }
}

}  // namespace graspsim
