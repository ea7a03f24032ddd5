#pragma once
// What the collision layer hands to the steppers: contact manifolds, signed distances and
// overlap volumes. All quantities are in world coordinates and SI units.

#include <cstdint>
#include <vector>

#include "core/types.h"

namespace graspsim {

// A contact manifold keeps at most this many points (the deepest and the most spread out).
inline constexpr int kMaxManifoldPoints = 8;
// Reducing a manifold, a point whose gap exceeds the deepest's by e counts e / kSupportTilt
// nearer those kept: it closes before a deeper point nearer them only under a tilt over
// kSupportTilt (rad) in one step. A rounded box's rim, 0.6 mm above its flat base and 3 mm
// farther out, then does not crowd out the base's own corners.
inline constexpr double kSupportTilt = 0.02;
// How far a point `distance` from those kept and `rise` above the deepest reaches past them,
// for the reductions' "farthest next".
inline double support_reach(double distance, double rise, double tilt = kSupportTilt) { return distance - rise / tilt; }

struct ContactPoint {
  Vec3 position = Vec3::Zero();    // midway between the witness points
  Vec3 normal = Vec3::UnitZ();     // unit, from geom A towards geom B
  double depth = 0.0;              // penetration (> 0); the signed distance is φ = −depth
  Vec3 point_a = Vec3::Zero();     // witness point on the surface of A
  Vec3 point_b = Vec3::Zero();     // witness point on the surface of B
  double area = 0.0;               // share of the contact patch this point stands for (m²), 0 = unknown
  std::uint64_t feature = 0;       // id of the touching feature pair, stable while they keep touching
};

// A contact point from its witness points on A and B, the A→B normal and the depth.
inline ContactPoint make_contact_point(const Vec3& point_a, const Vec3& point_b, const Vec3& normal, double depth,
                                       std::uint64_t feature) {
  ContactPoint c;
  c.point_a = point_a;
  c.point_b = point_b;
  c.position = 0.5 * (point_a + point_b);
  c.normal = normal;
  c.depth = depth;
  c.feature = feature;
  return c;
}

// The contact manifold of one geom pair (empty `points` = no contact within the margin).
struct ContactSet {
  int geom_a = -1, geom_b = -1;
  std::vector<ContactPoint> points;
  double patch_area = 0.0;         // area of the overlap polygon, when the pair has one (m²)
  // No points: a unit direction from A to B along which the geoms are farther apart than the
  // margin, when the narrowphase found one (collide keeps it to test the pair next step);
  // else zero.
  Vec3 separating_axis = Vec3::Zero();
};

// Closest points of two geoms that are near but not necessarily touching.
struct DistanceResult {
  double distance = 0.0;           // signed: > 0 separated, < 0 penetrating
  Vec3 point_a = Vec3::Zero(), point_b = Vec3::Zero();  // witness points (world)
  Vec3 normal = Vec3::UnitZ();     // unit, from A towards B
};

// A triangle of the boundary of the overlap region, on the surface of one of the two solids
// (seed 004, Algorithm 1).
struct OverlapTriangle {
  double area = 0.0;
  Vec3 centre = Vec3::Zero();
  Vec3 normal = Vec3::UnitZ();     // outward from the overlap region
};

struct OverlapResult {
  double volume = 0.0;             // m³
  Vec3 centroid = Vec3::Zero();
  std::vector<OverlapTriangle> boundary_a;  // overlap boundary lying on A's surface
  std::vector<OverlapTriangle> boundary_b;  // overlap boundary lying on B's surface
};

}  // namespace graspsim
