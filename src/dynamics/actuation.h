#pragma once
// Actuator forces from an Input: one implementation for every stepper.

#include "core/types.h"
#include "model/input.h"
#include "model/model.h"

namespace graspsim {

enum class ServoForces { Explicit, Skip };

// Adds the actuators' generalized forces at (q, v) under input.ctrl to tau, each effort
// clamped to its limits, and records the efforts in *effort (resized; may be null). Force
// actuators apply ctrl; servos apply the explicit PD law (position: kp (ctrl − q) − kv v;
// velocity: kv (ctrl − v)), or nothing with ServoForces::Skip, for steppers that impose
// servos implicitly as constraint rows (their efforts are then left to the stepper).
void add_actuator_forces(const Model& model, const Input& input, const VecX& q, const VecX& v, VecX* effort,
                         VecX& tau, ServoForces servos = ServoForces::Explicit);

}  // namespace graspsim
