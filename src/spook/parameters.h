#pragma once
// SPOOK regularization and stabilization (Lacoursière; thesis eq. 3.9) for one row with
// stiffness k (N/m, or N·m/rad), damping time τ (s) and time step h (s):
//   ε = 1/k,  γ = 1/(1 + 4τ/h),  Σ = (4/h²) ε γ.
// With the impulse λ (N·s) as unknown, a position-level row with gap g reads
//   J v⁺ + Σ λ = −(4γ/h) g + γ J v,
// whose static solution is λ/h = −g/ε = −k g (Hooke); τ is the relaxation time of a
// constraint violation (a few time steps is the usual choice; γ → 1 as τ → 0).

namespace graspsim::spook {

struct SpookParameters {
  double epsilon = 0.0;   // compliance ε = 1/k, m/N (0 for a rigid row)
  double gamma = 1.0;     // γ, dimensionless
  double sigma = 0.0;     // Σ_ii = (4/h²) ε γ, (m/s)/(N·s): the row's `compliance`
};

// Throws InputError unless k > 0 (may be +inf), τ ≥ 0, h > 0 and all finite but k.
SpookParameters spook_parameters(double stiffness, double damping_time, double h);

// The row target −(4γ/h) g + γ J v for gap g (m, negative when penetrating) and the
// row velocity J v at the start of the step.
double spook_target(const SpookParameters& params, double h, double gap, double row_velocity);

// Compliance of a velocity-level (friction) row: a viscous creep η ((m/s)/N — the slip
// speed per newton of friction while "sticking") becomes η/h per unit impulse.
double velocity_compliance(double creep, double h);

}  // namespace graspsim::spook
