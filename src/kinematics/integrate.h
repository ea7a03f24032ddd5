#pragma once
// Configuration-space arithmetic that respects the quaternions of free and ball joints.

#include "core/types.h"
#include "model/model.h"

namespace graspsim {

// q ← q ⊕ h·v: positions add, quaternions rotate by exp(h·ω) with ω in the body frame
// (free: the linear part adds in the world frame). Quaternions are renormalised.
void integrate_q(const Model& model, VecX& q, const VecX& v, double h);

// The velocity dq such that q0 ⊕ dq = q1 (inverse of integrate_q with h = 1).
VecX difference_q(const Model& model, const VecX& q0, const VecX& q1);

// Renormalises the quaternions in q (after an integrator mixed several stages).
void normalize_q(const Model& model, VecX& q);

// Rate of the local coordinate u (where q = q0 ⊕ u) while the system moves with velocity v
// at q0 ⊕ u: u̇ = J_r(θ)⁻¹ ω for the rotation part θ of each free or ball joint (J_r the
// right Jacobian of SO(3)), u̇ = v elsewhere. Runge-Kutta on u instead of q keeps the
// method's order on the rotation group (Munthe-Kaas).
void local_rate(const Model& model, const VecX& u, const VecX& v, VecX& udot);

}  // namespace graspsim
