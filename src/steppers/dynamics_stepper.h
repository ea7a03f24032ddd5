#pragma once
// Unconstrained multibody dynamics: gravity, actuators, joint damping and springs, and
// kinematic bodies at their prescribed velocities. No contacts, no joint limits.

#include "model/model.h"
#include "model/state.h"
#include "steppers/step.h"

namespace graspsim {

// Generalized forces of the actuators at state.t (fills ws.actuator_effort), added to tau.
void add_actuator_forces(const Model& model, const State& state, Workspace& ws, VecX& tau);

// One step of options.integrator (semi-implicit Euler or classical RK4).
void step_dynamics(const Model& model, State& state, Workspace& ws);

}  // namespace graspsim
