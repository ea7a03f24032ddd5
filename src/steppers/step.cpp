#include "steppers/step.h"

#include <chrono>
#include <cmath>
#include <stdexcept>
#include <string>

#include "core/error.h"
#include "steppers/dynamics_stepper.h"
#include "steppers/spook_stepper.h"

namespace graspsim {
namespace {

void check_state_input(const Model& model, const State& s) {
  if (s.q.size() != model.nq || s.v.size() != model.nv)  // (message built only on failure)
    require(false, "state",
            "has " + std::to_string(s.q.size()) + " positions and " + std::to_string(s.v.size()) +
                " velocities, the model needs " + std::to_string(model.nq) + " and " + std::to_string(model.nv));
  if (!std::isfinite(s.t)) require(false, "state", "time is not finite");
  if (!s.q.allFinite()) require(false, "state", "q is not finite");
  if (!s.v.allFinite()) require(false, "state", "v is not finite");
}

}  // namespace

void step(const Model& model, State& state, Workspace& ws, StepResult* result) {
  check_state_input(model, state);
  const auto start = std::chrono::steady_clock::now();
  switch (model.options.stepper) {
    case StepperType::Dynamics: step_dynamics(model, state, ws); break;
    case StepperType::Spook: step_spook(model, state, ws, result); break;
    default:
      throw InputError(std::string("stepper '") + to_string(model.options.stepper) + "' is not available yet");
  }
  const auto stop = std::chrono::steady_clock::now();
  if (result) result->wall_time_s = std::chrono::duration<double>(stop - start).count();
  if (!state.q.allFinite() || !state.v.allFinite())
    throw std::runtime_error("step " + std::to_string(state.step) + " at t = " + std::to_string(state.t) +
                             ": the state became non-finite");
}

}  // namespace graspsim
