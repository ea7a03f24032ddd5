#pragma once
// What drives a model during one step, apart from the Model (like MuJoCo's ctrl): the
// actuators' controls and the kinematic bodies' commanded velocities. The run loop fills it
// from the scene's signals (sample_signals); a controller (C++, Python, a sweep, a policy)
// sets it itself before each step, so one Model serves any number of controllers.

#include <vector>

#include "core/types.h"
#include "model/model.h"

namespace graspsim {

struct Input {
  // Per actuator (Model::actuators), held over the step: a force actuator's effort (N or
  // N·m, clamped to its limits), a position servo's set point (rad or m), a velocity
  // servo's set point (rad/s or m/s).
  VecX ctrl;
  // Per kinematic dof (Model::kinematic_dofs): the velocity it has at the end of the step.
  // Steppers move it there at a constant acceleration over the step.
  VecX kinematic_v;
};

// An Input of the model's sizes, all zero.
Input make_input(const Model& model);

// The scene's signals for the step that starts at t and lasts h: force commands at t (held
// over the step, like a zero-order hold), servo set points and kinematic velocities at the
// end of the step, t + h (what the step is to reach).
void sample_signals(const Model& model, double t, double h, Input& input);

}  // namespace graspsim
