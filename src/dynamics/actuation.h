#pragma once
// Actuator forces from an Input: one implementation for every stepper.

#include "core/types.h"
#include "model/input.h"
#include "model/model.h"

namespace graspsim {

// The actuator's set point (servos) or effort (force actuators) for a control value.
double actuator_set_point(const Actuator& a, double ctrl);
// Length L and rate L̇ of the actuator's transmission (model/model.h, Actuator).
double actuator_length(const Actuator& a, const VecX& q);
double actuator_rate(const Actuator& a, const VecX& v);

enum class ServoForces { Explicit, Skip };

// Adds the actuators' generalized forces at (q, v) under input.ctrl to tau, each effort
// clamped to its limits, and records the efforts in *effort (resized; may be null). Force
// actuators apply their set point s; servos apply the explicit PD law (position:
// kp (s − L) − kv L̇; velocity: kv (s − L̇)), or nothing with ServoForces::Skip, for steppers that impose
// servos implicitly as constraint rows (their efforts are then left to the stepper).
void add_actuator_forces(const Model& model, const Input& input, const VecX& q, const VecX& v, VecX* effort,
                         VecX& tau, ServoForces servos = ServoForces::Explicit);

}  // namespace graspsim
