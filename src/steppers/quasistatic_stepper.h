#pragma once
// Formulation B: the quasistatic stepper (Trinkle et al.; Pang & Tedrake, seed 003).
//
// The state is the configuration; the input is the actuated dofs' command (kinematic
// bodies' velocities, servo set points). One step:
//   1 system    partition (actuated: kinematic and servo-driven dofs), contacts within the
//               margin with φ and Jacobians at each body's witness point, gravity
//   2 solve     the scheme of options.quasistatic (lcp | miqp | convex, quasistatic/schemes.h)
//   3 update    q⁺ = q ⊕ Δq; v = Δq/h (what the recorders and metrics read; the next step
//               does not use it); per-pair memory of the hypothetical penetration
// An infeasible LCP (a command pushing into contact) is the user's input: InputError, with
// the step, the time and the touching bodies.

#include "model/model.h"
#include "model/state.h"
#include "steppers/step.h"

namespace graspsim {

void step_quasistatic(const Model& model, State& state, const Input& input, const Formulation& f, Workspace& ws,
                      StepResult* result);

}  // namespace graspsim
