#pragma once
// The step: (Model, State) -> State, chosen by Model::options.stepper with one switch.

#include <vector>

#include "kinematics/kinematics.h"
#include "model/model.h"
#include "model/state.h"

namespace graspsim {

// Scratch memory reused from step to step; owns nothing a user needs between steps.
struct Workspace {
  KinematicsData kin;
  MatX M;                          // mass matrix (nv x nv)
  VecX bias, tau, qacc;            // c(q, v), applied generalized forces, accelerations (nv)
  VecX actuator_effort;            // per actuator, last step (N or N·m)
};

// What one step produced, beyond the new state.
struct StepResult {
  double wall_time_s = 0.0;        // time spent in step()
};

// Advances `state` by model.options.dt. Throws InputError if the state is not finite
// before the step, and std::runtime_error if the step produced non-finite values.
void step(const Model& model, State& state, Workspace& ws, StepResult* result = nullptr);

}  // namespace graspsim
