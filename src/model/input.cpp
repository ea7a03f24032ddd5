#include "model/input.h"

namespace graspsim {

Input make_input(const Model& model) {
  Input in;
  in.ctrl.setZero(static_cast<Eigen::Index>(model.actuators.size()));
  in.kinematic_v.setZero(static_cast<Eigen::Index>(model.kinematic_dofs.size()));
  return in;
}

void sample_signals(const Model& model, double t, double h, Input& input) {
  input.ctrl.resize(static_cast<Eigen::Index>(model.actuators.size()));
  for (size_t i = 0; i < model.actuators.size(); ++i) {
    const Actuator& a = model.actuators[i];
    input.ctrl[static_cast<Eigen::Index>(i)] = a.command(a.type == ActuatorType::Force ? t : t + h);
  }
  input.kinematic_v.resize(static_cast<Eigen::Index>(model.kinematic_dofs.size()));
  Eigen::Index k = 0;
  for (const Joint& j : model.joints)
    if (model.bodies[j.body].kinematic)
      for (int d = 0; d < j.nv; ++d) input.kinematic_v[k++] = model.bodies[j.body].prescribed_v[d](t + h);
}

}  // namespace graspsim
