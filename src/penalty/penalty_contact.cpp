#include "penalty/penalty_contact.h"

#include <algorithm>
#include <cmath>
#include <numbers>

namespace graspsim {

Vec3 reaction_direction(const OverlapResult& o, PenaltyDirection method) {
  Vec3 s = Vec3::Zero();
  if (method == PenaltyDirection::VolumeGradient) {
    for (const OverlapTriangle& t : o.boundary_a) s -= 0.5 * t.area * t.normal;
    for (const OverlapTriangle& t : o.boundary_b) s += 0.5 * t.area * t.normal;
    return s;
  }
  auto add = [&](const std::vector<OverlapTriangle>& side, double sign) {
    for (const OverlapTriangle& t : side) {
      const Vec3 to_c = o.centroid - t.centre;
      const double pyramid = t.area * std::abs(t.normal.dot(to_c)) / 3.0;
      s += sign * pyramid * to_c;
    }
  };
  add(o.boundary_a, 1.0);
  add(o.boundary_b, -1.0);
  return s;
}

double overlap_depth(const OverlapResult& o, const Vec3& n) {
  double lo = INFINITY, hi = -INFINITY, shadow = 0.0;
  for (const auto* side : {&o.boundary_a, &o.boundary_b})
    for (const OverlapTriangle& t : *side) {
      lo = std::min(lo, n.dot(t.centre));
      hi = std::max(hi, n.dot(t.centre));
      shadow += 0.5 * t.area * std::abs(n.dot(t.normal));  // the closed boundary covers its shadow twice
    }
  if (!(hi > lo)) return 0.0;
  // A convex overlap of extent h and shadow S along n holds at least the cone S·h/3, so
  // h ≤ 3V/S. Several separate overlaps (a pad's first touch on the bunny's ear and back)
  // spread their centres far apart along n; the bound keeps that spread from reading as depth.
  return shadow > 0.0 ? std::min(hi - lo, 3.0 * o.volume / shadow) : hi - lo;
}

double impact_gain(const PenaltyOptions& o, double t, double t_contact, double approach_speed, double mass_sum) {
  if (!(approach_speed > 0.0) || o.impact_gain <= 0.0) return 0.0;
  const double d_v = o.target_depth / approach_speed;
  const double i_v = o.impact_gain * mass_sum * approach_speed;
  const double x = (t - (t_contact + o.impact_delay * d_v)) / d_v;
  return i_v / (std::sqrt(std::numbers::pi) * d_v) * std::exp(-x * x);
}

PenaltyForce penalty_force(const PenaltyOptions& o, const OverlapResult& overlap, double rate, double gain,
                           double mu, const Vec3& v_rel, const Vec3& bristle) {
  PenaltyForce f;
  const Vec3 s_d = reaction_direction(overlap, o.direction);
  const double len = s_d.norm();
  if (!(overlap.volume > 0.0) || !(len > 0.0)) return f;
  f.normal = -s_d / len;
  f.magnitude = std::max(0.0, (1.0 + gain) * (o.stiffness * overlap.volume + o.damping * rate));
  f.slip = v_rel - v_rel.dot(f.normal) * f.normal;
  const double speed = f.slip.norm();
  // Eq. 8's viscous share β|v| does not vanish with the contact: an overlap appearing under
  // a sliding body would switch on β|v| at once (0.8 N at 4 cm/s; a body grazing the ground
  // then chatters across that jump and RK45's step collapses). Capped at |f_n| (a friction
  // coefficient of 1) it fades in with the normal force; a loaded pad (β|v| ≪ |f_n|) is unchanged.
  const double viscous = std::min(o.viscous_friction * speed, f.magnitude);
  if (o.friction == PenaltyFriction::Bristle) {
    if (speed > 0.0) f.friction = -viscous / speed * f.slip;
    f.friction -= f.magnitude / o.stick_length * (bristle - bristle.dot(f.normal) * f.normal);
    return f;
  }
  if (speed > 0.0)
    f.friction = -(mu * f.magnitude * std::tanh(o.friction_smoothing * speed) + viscous) / speed * f.slip;
  return f;
}

}  // namespace graspsim
