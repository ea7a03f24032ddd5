#pragma once
// Formulation C: the volumetric penalty stepper (Zechmair & Morel, seed 004).
//
// One step() advances the state by options.dt, the output interval, with the adaptive
// Dormand-Prince RK45 of the integrators module taking as many internal steps as its error
// control needs (their size carries over in State::step_size). The ODE state is (q, v, z):
// z holds the volume filter (v_f, v̇_f) of every tracked contact pair (eq. 4). At each
// derivative evaluation:
//   1 kinematics, the broadphase over all geoms, the overlap volume of each candidate pair
//     (penalty/penalty_geometry.h: convex clipping, mesh-vs-convex clipping, half-space
//     clipping for planes, CGAL for two non-convex meshes)
//   2 per overlapping pair: direction s_d, centroid c, force (1 + δ_i)(g1 v + g2 v̇_f) and
//     tanh friction at c (penalty/penalty_contact.h), mapped to generalized forces
//   3 forward dynamics under the input (the same as the dynamics stepper's), and ż
// Pairs are tracked in State::contacts (one slot per geom pair, feature 0): a pair found
// overlapping at the start of a step gets its slot then (filter at its volume, at rest;
// values[2] its approach speed, `since` the time of first contact, for δ_i) and keeps it
// while it overlaps at step starts. A pair that starts to overlap inside a step pushes
// with the spring alone (its filter starts at the next step): its force still grows from
// zero with the volume. Kinematic dofs move at their commanded velocity over the step.
// Joint limits, equality constraints and dry joint friction need constraint rows and are
// refused (validate_penalty).

#include "model/model.h"
#include "model/state.h"
#include "steppers/step.h"

namespace graspsim {

void step_penalty(const Model& model, State& state, const Input& input, const Formulation& f, Workspace& ws,
                  StepResult* result);

// Checks the penalty options (every gain ≥ 0, stiffness, filter and tolerances > 0) and
// what the stepper cannot do. Throws InputError naming "options: penalty" or the joint.
void validate_penalty(const Model& model, const PenaltyOptions& options);

}  // namespace graspsim
