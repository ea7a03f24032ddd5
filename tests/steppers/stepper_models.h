#pragma once
// Small models and helpers shared by the stepper tests.

#include <memory>
#include <string>

#include "../common/test_bodies.h"
#include "model/builder.h"
#include "model/state.h"
#include "steppers/step.h"

namespace graspsim::test {

inline ActuatorDef make_actuator(const std::string& name, const std::string& joint, ActuatorType type, double command) {
  ActuatorDef a;
  a.name = name;
  a.joint = joint;
  a.type = type;
  a.command = Signal::Constant(command);
  return a;
}

// A revolute pendulum about world y: com a distance L below the pivot, inertia I_c about it.
inline BodyDef pendulum_body(const std::string& name, const std::string& parent, double mass, double L, double I_c) {
  BodyDef b = make_body(name, parent, JointType::Revolute, mass, I_c * Mat3::Identity(), Vec3(0, 0, -L));
  b.joint.axis = Vec3::UnitY();
  return b;
}

}  // namespace graspsim::test
