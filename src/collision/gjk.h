#pragma once
// Distance and penetration of convex shapes. gjk_distance is our own GJK over the shape
// cores (Gilbert-Johnson-Keerthi with Ericson's closest-point sub-simplex routines), since
// libccd 2.0 has no distance query; epa_penetration wraps libccd's GJK+EPA.

#include "collision/shapes.h"

namespace graspsim {

struct GjkResult {
  bool overlap = false;        // cores intersect (distance 0)
  double distance = 0.0;       // between the cores (swept radii not subtracted)
  Vec3 point_a = Vec3::Zero(), point_b = Vec3::Zero();  // closest core points
  int iterations = 0;
};
GjkResult gjk_distance(const ConvexShape& a, const ConvexShape& b);

// Penetration of the full shapes (radii included). Returns false when libccd finds them
// apart. normal is unit from A to B: moving B by depth·normal separates them. With
// `cores`, EPA runs on the cores (polytopes for spheres and capsules, so it is exact) and
// the radii are added: sweeping by a ball adds its radius to the penetration depth.
bool epa_penetration(const ConvexShape& a, const ConvexShape& b, bool cores, double& depth, Vec3& normal,
                     Vec3& point_a, Vec3& point_b);

}  // namespace graspsim
