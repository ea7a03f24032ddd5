#include "steppers/step.h"

#include <chrono>
#include <cmath>
#include <stdexcept>
#include <string>

#include "core/error.h"
#include "quasistatic/system.h"
#include "steppers/dynamics_stepper.h"
#include "steppers/penalty_stepper.h"
#include "steppers/quasistatic_stepper.h"
#include "steppers/spook_stepper.h"

namespace graspsim {
namespace {

void check_state_input(const Model& model, const State& s, const Input& in) {
  if (s.q.size() != model.nq || s.v.size() != model.nv)  // (message built only on failure)
    require(false, "state",
            "has " + std::to_string(s.q.size()) + " positions and " + std::to_string(s.v.size()) +
                " velocities, the model needs " + std::to_string(model.nq) + " and " + std::to_string(model.nv));
  if (!std::isfinite(s.t)) require(false, "state", "time is not finite");
  if (!s.q.allFinite()) require(false, "state", "q is not finite");
  if (!s.v.allFinite()) require(false, "state", "v is not finite");
  if (in.ctrl.size() != static_cast<Eigen::Index>(model.actuators.size()) ||
      in.kinematic_v.size() != static_cast<Eigen::Index>(model.kinematic_dofs.size()))
    require(false, "input",
            "has " + std::to_string(in.ctrl.size()) + " controls and " + std::to_string(in.kinematic_v.size()) +
                " kinematic velocities, the model needs " + std::to_string(model.actuators.size()) + " and " +
                std::to_string(model.kinematic_dofs.size()));
  if (!in.ctrl.allFinite()) require(false, "input", "ctrl is not finite");
  if (!in.kinematic_v.allFinite()) require(false, "input", "kinematic_v is not finite");
}

}  // namespace

Formulation scene_formulation(const Model& model) {
  const Options& o = model.options;
  return Formulation{o.stepper, o.dynamics, o.spook, o.quasistatic, o.penalty};
}

void validate_formulation(const Model& model, const Formulation& f) {
  switch (f.stepper) {
    case StepperType::Dynamics: validate_dynamics(model, f.dynamics); break;
    case StepperType::Spook: validate_spook(model, f.spook); break;
    case StepperType::Quasistatic: validate_quasistatic(model, f.quasistatic); break;
    case StepperType::Penalty: validate_penalty(model, f.penalty); break;
  }
}

void step(const Model& model, State& state, const Input& input, const Formulation& f, Workspace& ws,
          StepResult* result) {
  check_state_input(model, state, input);
  // The scene's formulation was checked at load; another is checked here (allocates nothing).
  if (f != scene_formulation(model)) validate_formulation(model, f);
  const auto start = std::chrono::steady_clock::now();
  switch (f.stepper) {
    case StepperType::Dynamics: step_dynamics(model, state, input, f, ws); break;
    case StepperType::Spook: step_spook(model, state, input, f, ws, result); break;
    case StepperType::Quasistatic: step_quasistatic(model, state, input, f, ws, result); break;
    case StepperType::Penalty: step_penalty(model, state, input, f, ws, result); break;
  }
  const auto stop = std::chrono::steady_clock::now();
  if (result) result->wall_time_s = std::chrono::duration<double>(stop - start).count();
  if (!state.q.allFinite() || !state.v.allFinite())  // (the message is built only then: a step allocates nothing)
    require_finite_state(model, state.q, state.v, "step " + std::to_string(state.step) + " at t = " + show(state.t));
}

void step(const Model& model, State& state, const Input& input, Workspace& ws, StepResult* result) {
  step(model, state, input, scene_formulation(model), ws, result);
}

void step(const Model& model, State& state, Workspace& ws, StepResult* result) {
  Input& in = ws.input;  // (kept in the workspace: a steady step allocates nothing)
  sample_signals(model, state.t, model.options.dt, in);
  step(model, state, in, scene_formulation(model), ws, result);
}

}  // namespace graspsim
