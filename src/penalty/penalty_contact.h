#pragma once
// Volumetric penalty contact (Zechmair & Morel, seed 004, Section II): the force one
// overlap of two bodies produces, from the overlap's geometry, the pair's filter states and
// the relative motion at its centroid. Formulation C's contact law; the stepper that
// integrates it is steppers/penalty_stepper.h.

#include "collision/contact.h"
#include "core/types.h"
#include "model/model.h"

namespace graspsim {

// The reaction direction, pointing from B into A (the push on A), zero for an empty overlap.
//
// VolumeGradient: ½(Σ_B area·n_B − Σ_A area·n_A), the direction in which moving A out of B
// shrinks the overlap fastest (the gradient of the volume: moving A by δ changes it by
// δ·∫_{∂A∩B} n_A dS); the seed's aim for s_d. Each half alone is the whole (the overlap's
// surface is closed), so the average only evens out round-off.
//
// SeedEq3: eq. 3 as written: each piece contributes w·(c − centre), w the volume of the
// pyramid on the piece with apex at the centroid c (area · height / 3, the seed's text),
// A's pieces added, B's subtracted. For a thin wide overlap (a face resting on a face) the
// overlap's side walls are far from c and dominate: a tilt of 1e-6 rad of a 5 cm box
// sunk 20 µm into the ground turns this direction 45° (tests/penalty), so a resting box is
// thrown sideways. Kept for comparison only.
Vec3 reaction_direction(const OverlapResult& overlap, PenaltyDirection method = PenaltyDirection::VolumeGradient);

// The rate of the overlap's volume when A and B move rigidly (Reynolds transport): each
// boundary piece sweeps area · (velocity of its own body at its centre) · normal, exact for
// flat pieces (the velocity is linear over them). `point_velocity_a(x)` and `_b(x)` give each
// body's velocity at a world point.
template <typename VelA, typename VelB>
double volume_rate(const OverlapResult& overlap, VelA&& point_velocity_a, VelB&& point_velocity_b) {
  double rate = 0.0;
  for (const OverlapTriangle& t : overlap.boundary_a) rate += t.area * t.normal.dot(point_velocity_a(t.centre));
  for (const OverlapTriangle& t : overlap.boundary_b) rate += t.area * t.normal.dot(point_velocity_b(t.centre));
  return rate;
}

// The extent of the overlap along the unit normal n: the spread of its boundary pieces'
// centres (a slab's thickness; a spherical cap's height, to within its facets), at most
// 3V over its shadow along n (exact bound for one convex overlap). A penetration depth that
// needs no closest-point query.
double overlap_depth(const OverlapResult& overlap, const Vec3& n);

// The first-contact gain δ_i (eq. 5) at time t, dimensionless: i_v / (√π d_v) · exp(−((t − t_v)/d_v)²)
// with i_v = g_i m Δv, d_v = d_t / Δv, t_v = t_c + g_t d_v, the seed's numbers read in SI
// units. Δv is the approach speed at first contact (held for the pair's life); the seed's
// t_v = g_t d_v − t_c has its sign slipped (the pulse must follow the contact it answers).
// 0 for Δv ≤ 0 (a contact made at rest has no impact).
double impact_gain(const PenaltyOptions& o, double t, double t_contact, double approach_speed, double mass_sum);

// The second-order low-pass of the volume (eq. 4): d/dt (v_f, v̇_f).
inline void volume_filter_rate(const PenaltyOptions& o, double volume, double vf, double vf_rate, double& d_vf,
                               double& d_vf_rate) {
  const double w = o.filter_frequency;
  d_vf = vf_rate;
  d_vf_rate = -2.0 * o.filter_damping * w * vf_rate + w * w * (volume - vf);
}

struct PenaltyForce {
  Vec3 normal = Vec3::UnitZ();  // unit, from A to B (−s_d / |s_d|)
  double magnitude = 0.0;       // |f_n| (N), ≥ 0
  Vec3 friction = Vec3::Zero(); // on B (N)
  Vec3 slip = Vec3::Zero();     // tangential velocity of B relative to A at the centroid (m/s)
  Vec3 on_b() const { return magnitude * normal + friction; }  // total force on B at the centroid
};

// The bristle's rate (friction: bristle), world frame: it follows the slip and relaxes
// towards the slip's direction at length μ·stick_length, LuGre's ż = v − |v| z / z_max with
// z_max proportional to |f_n| through the spring |f_n| / stick_length. When the pair sticks
// (v_t = 0) it stays: the spring holds any load below μ|f_n| without creeping.
inline Vec3 bristle_rate(const PenaltyOptions& o, double mu, const Vec3& slip, const Vec3& bristle) {
  const double reach = mu * o.stick_length;
  if (!(reach > 0.0)) return Vec3::Zero();
  return slip - (slip.norm() / reach) * bristle;
}

// Eqs. 6 and 8: f_n = (1 + δ_i)(g1 v + g2 v̇_f) along the normal, clamped at 0 (a separating
// pair's filtered rate must not pull the bodies together), and the smoothed Coulomb plus
// viscous friction −(μ|f_n| tanh(γ|v_t|) + min(β|v_t|, |f_n|)) v̂_t (the cap: the viscous
// share fades in with the contact instead of jumping on). The seed multiplies the spring-damper
// by δ_i alone, which vanishes once the impulse has passed; 1 + δ_i keeps the steady force
// (Fig. 3 shows it). `v_rel` is B's velocity relative to A at the centroid.
// `rate` is v̇_f (filtered) or the exact volume rate, per PenaltyOptions::rate.
// With friction: bristle the Coulomb share is the bristle's spring instead,
// −(|f_n| / stick_length)·(its tangential part), `bristle` in the world frame (zero for a pair
// made within the step, which has no state yet).
PenaltyForce penalty_force(const PenaltyOptions& o, const OverlapResult& overlap, double rate, double gain,
                           double mu, const Vec3& v_rel, const Vec3& bristle = Vec3::Zero());

}  // namespace graspsim
