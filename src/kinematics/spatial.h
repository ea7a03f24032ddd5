#pragma once
// Spatial algebra (Featherstone) in the world frame. Every spatial vector is expressed in
// world axes about the world origin O:
//   motion  V = [ω; v_O]  (angular velocity; velocity of the body point now at O)
//   force   F = [n_O; f]  (moment about O; force)
// With one common frame no transforms are needed between bodies: a parent's quantities
// add directly to its children's (as in MuJoCo's com-based formulation).

#include "core/types.h"

namespace graspsim {

// V ×m U: the rate of change of motion vector U moving with velocity V.
inline Vec6 cross_motion(const Vec6& V, const Vec6& U) {
  const Vec3 w = V.head<3>(), v = V.tail<3>(), a = U.head<3>(), b = U.tail<3>();
  Vec6 r;
  r << w.cross(a), w.cross(b) + v.cross(a);
  return r;
}

// V ×f F: the rate of change of force vector F moving with velocity V.
inline Vec6 cross_force(const Vec6& V, const Vec6& F) {
  const Vec3 w = V.head<3>(), v = V.tail<3>(), n = F.head<3>(), f = F.tail<3>();
  Vec6 r;
  r << w.cross(n) + v.cross(f), w.cross(f);
  return r;
}

// Rigid-body inertia about the world origin: mass m, first moment h = m·c (c = com) and
// rotational inertia I_O = I_com − m [c]×² about O, all in world axes. Composite inertias
// of subtrees are plain sums of these.
struct SpatialInertia {
  double m = 0.0;
  Vec3 h = Vec3::Zero();
  Mat3 I = Mat3::Zero();

  // Momentum [I_O ω + h × v; m v − h × ω] of velocity V = [ω; v].
  [[gnu::always_inline]] Vec6 operator*(const Vec6& V) const {
    const Vec3 w = V.head<3>(), v = V.tail<3>();
    Vec6 r;
    r << I * w + h.cross(v), m * v - h.cross(w);
    return r;
  }
  SpatialInertia& operator+=(const SpatialInertia& o) {
    m += o.m;
    h += o.h;
    I += o.I;
    return *this;
  }
};

}  // namespace graspsim
