#include "dynamics/actuation.h"

#include <algorithm>

namespace graspsim {

void add_actuator_forces(const Model& model, const Input& input, const VecX& q, const VecX& v, VecX* effort,
                         VecX& tau, ServoForces servos) {
  if (effort) effort->resize(static_cast<Eigen::Index>(model.actuators.size()));
  for (size_t i = 0; i < model.actuators.size(); ++i) {
    const Actuator& a = model.actuators[i];
    const auto ii = static_cast<Eigen::Index>(i);
    if (a.type != ActuatorType::Force && servos == ServoForces::Skip) continue;
    const Joint& j = model.joints[a.joint];
    const double cmd = input.ctrl[ii];
    double e = 0.0;
    switch (a.type) {
      case ActuatorType::Force: e = cmd; break;
      case ActuatorType::Position: e = a.kp * (cmd - q[j.qadr + a.dof]) - a.kv * v[j.vadr + a.dof]; break;
      case ActuatorType::Velocity: e = a.kv * (cmd - v[j.vadr + a.dof]); break;
    }
    e = std::clamp(e, a.effort_min, a.effort_max);
    if (effort) (*effort)[ii] = e;
    tau[j.vadr + a.dof] += e;
  }
}

}  // namespace graspsim
