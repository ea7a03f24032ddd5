// Mass properties of the watertight Stanford bunny (model layer's mesh_mass_properties)
// against two independent computations: surface quadrature of the divergence theorem
// about the world origin, and the CGAL overlap of the bunny with a box enclosing it.
#include <gtest/gtest.h>

#include "collision/mesh_io.h"
#include "collision/overlap.h"
#include "collision/tessellate.h"
#include "mesh_test_shapes.h"
#include "model/mass_properties.h"

namespace graspsim {
namespace {

// ∫_V 1, x, x xᵀ dV from surface integrals (Gauss): V = ⅓∮x·n, ∫x_i = ½∮x_i² n_i,
// ∫x_i² = ⅓∮x_i³ n_i, ∫x_i x_j = ½∮x_i² x_j n_i (i ≠ j). The integrands are cubic, so a
// degree-3 triangle rule (centroid −27/48, three points at (0.6, 0.2, 0.2) 25/48) is exact.
struct Moments {
  double volume = 0.0;
  Vec3 first = Vec3::Zero();
  Mat3 second = Mat3::Zero();
};

Moments surface_moments(const Mesh& m) {
  Moments r;
  const double w[4] = {-27.0 / 48.0, 25.0 / 48.0, 25.0 / 48.0, 25.0 / 48.0};
  const double bary[4][3] = {{1.0 / 3, 1.0 / 3, 1.0 / 3}, {0.6, 0.2, 0.2}, {0.2, 0.6, 0.2}, {0.2, 0.2, 0.6}};
  for (const auto& f : m.faces) {
    const Vec3 &p0 = m.vertices[f[0]], &p1 = m.vertices[f[1]], &p2 = m.vertices[f[2]];
    const Vec3 n_area = 0.5 * (p1 - p0).cross(p2 - p0);  // unit normal × area
    for (int k = 0; k < 4; ++k) {
      const Vec3 x = bary[k][0] * p0 + bary[k][1] * p1 + bary[k][2] * p2;
      r.volume += w[k] * x.dot(n_area) / 3.0;
      for (int i = 0; i < 3; ++i) {
        r.first[i] += w[k] * 0.5 * x[i] * x[i] * n_area[i];
        for (int j = 0; j < 3; ++j)
          r.second(i, j) += w[k] * (i == j ? x[i] * x[i] * x[i] * n_area[i] / 3.0 : 0.5 * x[i] * x[i] * x[j] * n_area[i]);
      }
    }
  }
  return r;
}

void check_bunny(const Mesh& bunny, double readme_volume) {
  const double density = 1000.0;
  const MassProperties mp = mesh_mass_properties(bunny, density);
  const Moments s = surface_moments(bunny);
  const Vec3 com = s.first / s.volume;
  const Mat3 second_c = s.second - s.volume * com * com.transpose();
  const Mat3 inertia = density * (second_c.trace() * Mat3::Identity() - second_c);
  const double size = (bunny.vertices[0] - com).norm();
  // Both are exact for the polyhedron; what is left is round-off over ~10⁴–10⁵ terms.
  EXPECT_NEAR(mp.mass, density * s.volume, 1e-10 * mp.mass);
  EXPECT_LT((mp.com - com).norm(), 1e-10 * size);
  EXPECT_LT((mp.inertia - inertia).norm(), 1e-9 * inertia.norm());
  EXPECT_LT((mp.inertia - mp.inertia.transpose()).norm(), 1e-12 * inertia.norm());
  // The README's own script, quoted to 5–6 significant digits.
  EXPECT_NEAR(s.volume, readme_volume, 1e-5 * readme_volume);
}

TEST(BunnyMass, MatchesSurfaceQuadrature7k) {
  check_bunny(*load_mesh(test::bunny_path(false), "bunny", Vec3::Ones()), 1.58714);
}

TEST(BunnyMass, MatchesSurfaceQuadrature70kMetres) {
  check_bunny(*load_mesh(test::bunny_path(true), "bunny", Vec3::Ones()), 7.5456e-4);
}

TEST(BunnyMass, VolumeAndCentroidMatchCgalOverlapWithAnEnclosingBox) {
  const auto bunny = load_mesh(test::bunny_path(false), "bunny", Vec3::Ones());
  const MassProperties mp = mesh_mass_properties(*bunny, 1.0);
  // The box strictly contains the bunny (bbox ±1.0), so the overlap is the bunny itself.
  const OverlapResult r = overlap_volume_cgal(*bunny, Pose::Identity(), tessellate_box(Vec3(1.5, 1.5, 1.5)),
                                              Pose{Vec3(0.01, 0.02, 0.03), Quat::Identity()});
  EXPECT_NEAR(r.volume, mp.mass, 1e-10 * mp.mass);
  EXPECT_LT((r.centroid - mp.com).norm(), 1e-10);
  EXPECT_EQ(r.boundary_a.size(), bunny->faces.size());
  EXPECT_TRUE(r.boundary_b.empty());
}

}  // namespace
}  // namespace graspsim
