#pragma once
// Small closed meshes and checks shared by the mesh/overlap/collision tests.

#include <cmath>
#include <string>

#include "collision/contact.h"
#include "model/mesh.h"

namespace graspsim::test {

inline std::string bunny_path(bool metres = false) {
  return std::string(GRASPSIM_SHARED_DIR) + "/data/meshes/" +
         (metres ? "bunny_watertight_70374tri_meters.obj" : "bunny_watertight_6976tri.obj");
}

// The L-shaped prism {[0,2]x[0,1] ∪ [0,1]x[1,2]} x [0,1]: volume 3, not convex.
inline Mesh l_prism() {
  Mesh m;
  m.name = "L_prism";
  const double xy[6][2] = {{0, 0}, {2, 0}, {2, 1}, {1, 1}, {1, 2}, {0, 2}};
  for (int z = 0; z < 2; ++z)
    for (const auto& p : xy) m.vertices.emplace_back(p[0], p[1], z);
  // Fan from the reflex corner (1,1) triangulates the L without crossing outside it.
  const int fan[4][3] = {{3, 4, 5}, {3, 5, 0}, {3, 0, 1}, {3, 1, 2}};
  for (const auto& t : fan) {
    m.faces.push_back({t[0] + 6, t[1] + 6, t[2] + 6});  // top, counter-clockwise from +z
    m.faces.push_back({t[0], t[2], t[1]});              // bottom, reversed
  }
  for (int i = 0; i < 6; ++i) {
    const int j = (i + 1) % 6;
    m.faces.push_back({i, j, j + 6});
    m.faces.push_back({i, j + 6, i + 6});
  }
  return m;
}

// Divergence-theorem identities every closed overlap boundary satisfies:
// Σ area·normal = 0 and Σ (centre·normal)·area / 3 = volume.
struct BoundaryCheck {
  Vec3 area_normal = Vec3::Zero();
  double volume = 0.0;
  double area = 0.0;
};
inline BoundaryCheck boundary_sums(const OverlapResult& r) {
  BoundaryCheck c;
  for (const auto* side : {&r.boundary_a, &r.boundary_b})
    for (const OverlapTriangle& t : *side) {
      c.area_normal += t.area * t.normal;
      c.volume += t.centre.dot(t.normal) * t.area / 3.0;
      c.area += t.area;
    }
  return c;
}

}  // namespace graspsim::test
