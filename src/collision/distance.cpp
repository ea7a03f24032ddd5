#include "collision/distance.h"

#include "collision/gjk.h"
#include "collision/narrowphase.h"
#include "collision/pairs.h"
#include "core/error.h"

namespace graspsim {
namespace {

bool from_deepest(const ContactSet& cs, DistanceResult& out) {
  if (cs.points.empty()) return false;
  const ContactPoint* best = &cs.points[0];
  for (const ContactPoint& c : cs.points)
    if (c.depth > best->depth) best = &c;
  out.distance = -best->depth;
  out.point_a = best->point_a;
  out.point_b = best->point_b;
  out.normal = best->normal;
  return true;
}

// Pairs whose narrowphase reports the exact distance of separated shapes too.
bool narrowphase_is_exact(GeomType a, GeomType b) {
  auto has = [&](GeomType t) { return a == t || b == t; };
  if (has(GeomType::Plane)) return true;
  if (a == GeomType::Capsule && b == GeomType::Capsule) return true;
  return has(GeomType::Sphere) && !has(GeomType::ConvexMesh);
}

}  // namespace

bool signed_distance_shapes(const ConvexShape& a, const ConvexShape& b, double max_distance, DistanceResult& out) {
  if (a.type == GeomType::TriangleMesh || b.type == GeomType::TriangleMesh)
    throw InputError(std::string("signed distance ") + to_string(a.type) + "/" + to_string(b.type) + " not supported");
  if (a.type == GeomType::Plane && b.type == GeomType::Plane) return false;
  ContactSet cs;
  if (narrowphase_is_exact(a.type, b.type)) {
    collide_shapes(a, b, max_distance, CollideOptions{}, cs);
    return from_deepest(cs, out);
  }
  const double ra = a.radius(), rb = b.radius();
  const GjkResult g = gjk_distance(a, b, ra + rb + max_distance);
  if (g.beyond) return false;
  if (!g.overlap && g.distance > 1e-9) {
    const double phi = g.distance - ra - rb;
    if (phi > max_distance) return false;
    out.normal = (g.point_b - g.point_a) / g.distance;
    out.point_a = g.point_a + ra * out.normal;
    out.point_b = g.point_b - rb * out.normal;
    out.distance = phi;
    return true;
  }
  if (a.type == GeomType::Box && b.type == GeomType::Box) {
    box_box(a, b, 0.0, CollideOptions{}, cs);
    return from_deepest(cs, out);
  }
  collide_convex_general(a, b, 0.0, CollideOptions{}, cs);
  return from_deepest(cs, out);
}

bool signed_distance(const Model& model, int ga, const Pose& X_WA, int gb, const Pose& X_WB, double max_distance,
                     DistanceResult& out) {
  return signed_distance_shapes(make_shape(model, ga, X_WA), make_shape(model, gb, X_WB), max_distance, out);
}

}  // namespace graspsim
