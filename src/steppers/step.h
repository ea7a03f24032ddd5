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

  // Dynamics stepper scratch (sized on first use, then reused without allocation).
  std::vector<int> free_dofs;      // dofs solved for by forward dynamics
  std::vector<int> prescribed_dofs;  // dofs of kinematic bodies, driven by their signals
  VecX rhs, qacc_prescribed;       // τ − c; signal accelerations of the prescribed dofs
  MatX M_ff;                       // M restricted to free_dofs (when some dofs are prescribed)
  VecX rhs_f, qacc_f;              // the reduced system's right side and solution
  VecX q_stage, v_stage;           // RK4: the configuration and velocity of a stage
  VecX u, u_rate, u_sum, qacc_sum; // RK4: local coordinate, its rate, weighted sums of the stages
};

// What one step produced, beyond the new state.
struct StepResult {
  double wall_time_s = 0.0;        // time spent in step()
};

// Advances `state` by model.options.dt. Throws InputError if the state is not finite
// before the step, and std::runtime_error if the step produced non-finite values.
void step(const Model& model, State& state, Workspace& ws, StepResult* result = nullptr);

}  // namespace graspsim
