#include "model/mass_properties.h"

#include <cmath>
#include <numbers>
#include <random>

#include <gtest/gtest.h>

#include "core/error.h"

namespace graspsim {
namespace {

Mesh cube_mesh(const Vec3& h, const Vec3& offset) {
  Mesh m;
  m.name = "cube";
  for (int i = 0; i < 8; ++i)
    m.vertices.push_back(offset + Vec3((i & 1) ? h.x() : -h.x(), (i & 2) ? h.y() : -h.y(), (i & 4) ? h.z() : -h.z()));
  // Outward-facing triangles of the 6 faces.
  m.faces = {{0, 2, 3}, {0, 3, 1}, {4, 5, 7}, {4, 7, 6}, {0, 1, 5}, {0, 5, 4},
             {2, 6, 7}, {2, 7, 3}, {0, 4, 6}, {0, 6, 2}, {1, 3, 7}, {1, 7, 5}};
  return m;
}

TEST(MassProperties, MeshCubeMatchesBoxFormula) {
  const Vec3 h(0.3, 0.2, 0.1), offset(1.0, -2.0, 0.5);
  const MassProperties mesh = mesh_mass_properties(cube_mesh(h, offset), 700.0);
  const MassProperties box = box_mass_properties(h, 700.0);
  EXPECT_NEAR(mesh.mass, box.mass, 1e-12 * box.mass);
  EXPECT_LT((mesh.com - offset).norm(), 1e-12);
  EXPECT_LT((mesh.inertia - box.inertia).norm(), 1e-12 * box.inertia.norm());
}

TEST(MassProperties, InsideOutMeshIsAnError) {
  Mesh m = cube_mesh(Vec3::Constant(0.1), Vec3::Zero());
  for (auto& f : m.faces) std::swap(f[1], f[2]);
  EXPECT_THROW(mesh_mass_properties(m, 1000.0), InputError);
}

// Monte-Carlo check of a solid given by an inside test, with a seeded RNG. With n samples the
// relative standard error of the volume is about sqrt((1-p)/(p n)) (p = hit fraction).
template <typename Inside>
MassProperties monte_carlo(Inside inside, const Vec3& half_box, int n) {
  std::mt19937_64 rng(12345);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  double hits = 0;
  Vec3 first = Vec3::Zero();
  Mat3 second = Mat3::Zero();
  for (int i = 0; i < n; ++i) {
    const Vec3 x(u(rng) * half_box.x(), u(rng) * half_box.y(), u(rng) * half_box.z());
    if (!inside(x)) continue;
    hits += 1;
    first += x;
    second += x * x.transpose();
  }
  const double cell = 8.0 * half_box.prod() / n;
  const double vol = hits * cell;
  const Vec3 com = first / hits;
  const Mat3 c = second * cell - vol * com * com.transpose();
  return {vol, com, c.trace() * Mat3::Identity() - c};
}

TEST(MassProperties, CapsuleAgainstMonteCarlo) {
  const double r = 0.1, hl = 0.2;
  const MassProperties exact = capsule_mass_properties(r, hl, 1.0);
  const MassProperties mc = monte_carlo(
      [&](const Vec3& x) {
        const double z = std::clamp(x.z(), -hl, hl);
        return (x - Vec3(0, 0, z)).squaredNorm() <= r * r;
      },
      Vec3(r, r, hl + r), 2'000'000);
  // 2e6 samples, hit fraction ~0.6: relative standard error ~5e-4; allow 4 sigma.
  EXPECT_NEAR(mc.mass / exact.mass, 1.0, 2e-3);
  EXPECT_NEAR(mc.inertia(0, 0) / exact.inertia(0, 0), 1.0, 4e-3);
  EXPECT_NEAR(mc.inertia(2, 2) / exact.inertia(2, 2), 1.0, 4e-3);
}

TEST(MassProperties, CylinderAndSphereClosedForms) {
  const double pi = std::numbers::pi;
  const MassProperties s = sphere_mass_properties(0.5, 2.0);
  EXPECT_NEAR(s.mass, 2.0 * 4.0 / 3.0 * pi * 0.125, 1e-15);
  EXPECT_NEAR(s.inertia(1, 1), 0.4 * s.mass * 0.25, 1e-15);
  const MassProperties c = cylinder_mass_properties(0.1, 0.5, 1.0);
  EXPECT_NEAR(c.mass, pi * 0.01, 1e-15);
  EXPECT_NEAR(c.inertia(0, 0), c.mass * (3 * 0.01 + 1.0) / 12.0, 1e-15);
}

TEST(MassProperties, SumUsesParallelAxes) {
  // Two unit point-like spheres at ±1 on x: I_yy = I_zz = 2 m d² (+ tiny own inertia).
  const MassProperties a = sphere_mass_properties(1e-3, 1.0 / (4.0 / 3.0 * std::numbers::pi * 1e-9));
  const MassProperties left = a.transformed({Vec3(-1, 0, 0), Quat::Identity()});
  const MassProperties right = a.transformed({Vec3(1, 0, 0), Quat::Identity()});
  const MassProperties sum = left + right;
  EXPECT_NEAR(sum.mass, 2.0, 1e-9);
  EXPECT_LT(sum.com.norm(), 1e-12);
  EXPECT_NEAR(sum.inertia(1, 1), 2.0, 1e-5);
  EXPECT_NEAR(sum.inertia(0, 0), 0.0, 1e-5);
}

}  // namespace
}  // namespace graspsim
