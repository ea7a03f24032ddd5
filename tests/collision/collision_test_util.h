#pragma once
// Shared helpers of the collision tests: shapes, random poses, hull meshes, tiny models.

#include <memory>
#include <random>
#include <vector>

#include "collision/contact.h"
#include "collision/shapes.h"
#include "model/model.h"

namespace graspsim::testing {

inline Pose pose(const Vec3& p, const Quat& q = Quat::Identity()) { return {p, q}; }

inline Quat random_quat(std::mt19937_64& rng) {
  std::normal_distribution<double> g;
  Quat q(g(rng), g(rng), g(rng), g(rng));
  return q.normalized();
}

inline Vec3 random_vec(std::mt19937_64& rng, double lo, double hi) {
  std::uniform_real_distribution<double> u(lo, hi);
  return {u(rng), u(rng), u(rng)};
}

inline const ContactPoint& deepest(const ContactSet& cs) {
  const ContactPoint* best = &cs.points.at(0);
  for (const ContactPoint& c : cs.points)
    if (c.depth > best->depth) best = &c;
  return *best;
}

// Triangles of the convex hull of points in general position (brute force, O(n^4)): a
// triple is a face when every other point lies behind its plane.
inline std::shared_ptr<Mesh> hull_mesh(const std::vector<Vec3>& pts) {
  auto mesh = std::make_shared<Mesh>();
  mesh->vertices = pts;
  const int n = static_cast<int>(pts.size());
  for (int i = 0; i < n; ++i)
    for (int j = i + 1; j < n; ++j)
      for (int k = j + 1; k < n; ++k) {
        const Vec3 nrm = (pts[j] - pts[i]).cross(pts[k] - pts[i]);
        int above = 0, below = 0;
        for (int m = 0; m < n; ++m) {
          const double d = nrm.dot(pts[m] - pts[i]);
          if (d > 1e-12) ++above;
          if (d < -1e-12) ++below;
        }
        if (above == 0) mesh->faces.push_back({i, j, k});
        else if (below == 0) mesh->faces.push_back({i, k, j});
      }
  return mesh;
}

inline std::shared_ptr<Mesh> sphere_points_hull(int count, double radius, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> g;
  std::vector<Vec3> pts;
  for (int i = 0; i < count; ++i) pts.push_back(radius * Vec3(g(rng), g(rng), g(rng)).normalized());
  return hull_mesh(pts);
}

inline std::shared_ptr<Mesh> box_mesh(const Vec3& h) {
  std::vector<Vec3> pts;
  for (int i = 0; i < 8; ++i)
    pts.emplace_back((i & 1) ? h.x() : -h.x(), (i & 2) ? h.y() : -h.y(), (i & 4) ? h.z() : -h.z());
  return hull_mesh(pts);
}

// A model with a world body and `nfree` free bodies (body i + 1 has joint i).
inline Model free_bodies_model(int nfree) {
  Model m;
  m.bodies.push_back(Body{});
  m.bodies[0].name = "world";
  for (int i = 0; i < nfree; ++i) {
    Body b;
    b.name = "b" + std::to_string(i);
    b.parent = 0;
    b.joint = i;
    m.bodies.push_back(b);
    Joint j;
    j.type = JointType::Free;
    j.body = i + 1;
    m.joints.push_back(j);
  }
  return m;
}

inline int add_geom(Model& m, GeomType type, const Vec3& size, int body, int mesh = -1) {
  Geom g;
  g.name = "g" + std::to_string(m.geoms.size());
  g.type = type;
  g.size = size;
  g.body = body;
  g.mesh = mesh;
  m.geoms.push_back(g);
  return m.ngeom() - 1;
}

}  // namespace graspsim::testing
