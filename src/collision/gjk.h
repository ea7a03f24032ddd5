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
  bool beyond = false;         // stopped early: the cores are farther apart than stop_beyond
  Vec3 separation = Vec3::Zero();  // beyond: unit, from A to B, along which they are that far apart
  int iterations = 0;
};
// Stops as soon as a support plane proves the cores more than `stop_beyond` apart (then
// `distance` is only that lower bound and the points are unset).
GjkResult gjk_distance(const ConvexShape& a, const ConvexShape& b, double stop_beyond = kInf);

// Penetration of the full shapes (radii included). Returns false when libccd finds them
// apart. normal is unit from A to B: moving B by depth·normal separates them. With
// `cores`, EPA runs on the cores (polytopes for spheres and capsules, so it is exact) and
// the radii are added: sweeping by a ball adds its radius to the penetration depth.
// `mpr` uses libccd's MPR instead of EPA (approximate depth, faster).
bool epa_penetration(const ConvexShape& a, const ConvexShape& b, bool cores, double& depth, Vec3& normal,
                     Vec3& point_a, Vec3& point_b, bool mpr = false);

}  // namespace graspsim
