#pragma once
// Formulation A: the SPOOK constraint stepper (Lacoursière; thesis chapter 3).
//
// One step:
//   1 free motion   M, c, forces; (M + hD) (v_free − v) = h (τ − c) per tree, D = joint damping
//                   (implicit, so stiff damping stays stable); kinematic dofs take their signals
//   2 collide       broadphase → narrowphase → contact manifolds (persistent feature ids)
//   3 assemble      rows: contact normals (SPOOK compliance from Young's modulus, point or area
//                   contact), friction per the contact material's model, joint limits, servo
//                   actuators as rows with effort bounds → spook::Problem (the only code that
//                   knows both the plant and the solver)
//   4 solve         spook::solve with the formulation's solver (Direct, Iterative, Split,
//                   DirectIterative)
//   5 integrate     v⁺ from the solution, q⁺ = q ⊕ h v⁺, contact memory for the next step
//
// Contact stiffness (thesis eqs. 3.10–3.11): point contact k = E (N/m, E taken as a spring
// constant, as AGX does); area contact k = E·A/h_rest per point, with A the point's share
// of the contact patch and h_rest the two solids' thickness along the normal, so the
// pressure P = (E/h_rest)·d integrates to F = P·A.

#include "model/model.h"
#include "model/state.h"
#include "steppers/step.h"

namespace graspsim {

void step_spook(const Model& model, State& state, const Input& input, const Formulation& f, Workspace& ws,
                StepResult* result);

// Checks SPOOK's settings: its options (iterations) and its part of every contact
// material (Young's modulus, damping, tangents, torsional friction, primary direction; the
// default's always, like the listed materials'), and that no contact material left to the
// direct solver alone has cone friction (the default only if some used pair falls back to
// it). Throws InputError naming "options" or the material's source. Allocates nothing
// unless it throws.
void validate_spook(const Model& model, const SpookOptions& options);

// Thickness of geom g along the world direction n (m): the extent of its support in ±n;
// 0 for a plane. Used as the rest length of area contact.
double geom_thickness(const Model& model, int g, const Pose& X_WG, const Vec3& n);

}  // namespace graspsim
