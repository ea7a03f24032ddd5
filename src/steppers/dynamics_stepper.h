#pragma once
// Unconstrained multibody dynamics: gravity, actuators, joint damping and springs, and
// kinematic bodies at their prescribed velocities. No contacts, no joint limits.

#include "model/model.h"
#include "model/state.h"
#include "steppers/step.h"

namespace graspsim {

// Loop closures, joint couplings and dry joint friction are constraint rows: a stepper
// without them (dynamics) refuses such a model. Throws InputError naming the
// equality or joint.
void require_no_constraint_rows(const Model& model);
// Equalities only (the penalty stepper takes limits and frictionloss as forces).
void require_no_equalities(const Model& model);

// Checks the dynamics stepper's settings (its part of the options; it reads no contact
// material). Throws InputError naming the scene key.
void validate_dynamics(const Model& model, const DynamicsOptions& options);

// One step of the formulation's integrator (semi-implicit Euler or classical RK4) under input.
void step_dynamics(const Model& model, State& state, const Input& input, const Formulation& f, Workspace& ws);
// The same driven by the scene's signals and integrator.
void step_dynamics(const Model& model, State& state, Workspace& ws);

}  // namespace graspsim
