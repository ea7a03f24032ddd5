#pragma once
// Convex geoms as the narrowphase sees them: a world pose plus support mappings and
// supporting features (the face, edge or vertex extremal in a direction). Spheres and
// capsules are a core (point, segment) swept by a sphere, which keeps GJK exact for them.

#include <array>
#include <cstdint>

#include "core/types.h"
#include "model/model.h"

namespace graspsim {

struct ConvexShape {
  GeomType type = GeomType::Sphere;
  Vec3 size = Vec3::Zero();
  const Mesh* mesh = nullptr;  // ConvexMesh: its vertices span the hull
  Vec3 p = Vec3::Zero();       // world position of the geom frame
  Mat3 R = Mat3::Identity();   // world orientation of the geom frame
  mutable int climb_hint = -1; // ConvexMesh: the last support vertex, where the next climb starts

  // Radius of the sphere swept over the core: spheres and capsules, else 0.
  double radius() const {
    return (type == GeomType::Sphere || type == GeomType::Capsule) ? size.x() : 0.0;
  }
  Vec3 axis() const { return R.col(2); }
};

ConvexShape make_shape(const Model& model, int geom, const Pose& X_WG);
ConvexShape make_shape(GeomType type, const Vec3& size, const Pose& X_WG, const Mesh* mesh = nullptr);

// Index of the mesh vertex farthest along local direction d (the lowest of equals): a climb
// when the mesh has its climb index, else a scan. A climb starts from *hint and leaves its
// answer there; without `lowest_of_ties` it returns any of equals (a box needs no more).
int hull_support_index(const Mesh& mesh, const Vec3& d, int* hint = nullptr, bool lowest_of_ties = true);

// Support point of the core (no swept radius) in world direction `dir` (any length).
Vec3 support_core(const ConvexShape& s, const Vec3& dir);
// Support point of the full shape (core + radius along dir).
Vec3 support(const ConvexShape& s, const Vec3& dir);

// A small ordered polygon of world points, each tagged with where it came from (vertex or
// clip-edge crossing) so that contact features can be hashed stably.
struct PolyPoint {
  Vec3 p;
  std::uint32_t tag;
};
inline constexpr int kMaxPolygon = 64;
struct Polygon {
  std::array<PolyPoint, kMaxPolygon> v;
  int n = 0;
  void push(const Vec3& p, std::uint32_t tag) {
    if (n < kMaxPolygon) v[n++] = {p, tag};
  }
};

// The feature of a shape extremal in world direction n: a face (≥ 3 points, with its
// outward normal), an edge (2 points) or a vertex (1 point), on the shape's surface.
struct SupportFeature {
  Polygon poly;
  Vec3 normal = Vec3::UnitZ();  // outward face normal; meaningful when is_face
  bool is_face = false;
  std::uint32_t id = 0;         // index of the feature on its shape
};
// Cylinder caps and capsule sides count as faces/edges when the axis is within this angle
// (rad) of being parallel/perpendicular to n.
inline constexpr double kFeatureAngle = 0.02;
// Rim points used for a cylinder cap face.
inline constexpr int kRimPoints = 8;
void supporting_feature(const ConvexShape& s, const Vec3& n, SupportFeature& out);

// The 8 corners of a box in world coordinates; corner i has local signs
// (x: bit 0, y: bit 1, z: bit 2; set bit = +).
std::array<Vec3, 8> box_corners(const ConvexShape& box);

}  // namespace graspsim
