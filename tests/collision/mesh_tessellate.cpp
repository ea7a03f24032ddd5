#include <gtest/gtest.h>

#include <numbers>

#include "collision/mesh_tools.h"
#include "collision/tessellate.h"
#include "core/error.h"

namespace graspsim {
namespace {

constexpr double kPi = std::numbers::pi;

struct Case {
  const char* name;
  std::function<Mesh(int)> make;
  double exact;
};

std::vector<Case> cases() {
  const double r = 0.3, h = 0.7;
  return {
      {"sphere", [=](int n) { return tessellate_sphere(r, n); }, 4.0 / 3.0 * kPi * r * r * r},
      {"capsule", [=](int n) { return tessellate_capsule(r, h, n); }, kPi * r * r * (2 * h + 4.0 / 3.0 * r)},
      {"cylinder", [=](int n) { return tessellate_cylinder(r, h, n); }, kPi * r * r * 2 * h},
  };
}

TEST(Tessellate, ClosedOutwardAndConvex) {
  for (const Case& c : cases())
    for (int n : {3, 4, 7, 16, 33}) {
      const Mesh m = c.make(n);
      EXPECT_TRUE(is_closed(m)) << c.name << " n=" << n;
      EXPECT_TRUE(is_convex(m)) << c.name << " n=" << n;
      EXPECT_GT(signed_volume(m), 0.0) << c.name << " n=" << n;
    }
  const Mesh box = tessellate_box(Vec3(0.1, 0.2, 0.3));
  EXPECT_TRUE(is_closed(box));
  EXPECT_NEAR(signed_volume(box), 8 * 0.1 * 0.2 * 0.3, 1e-15);
}

TEST(Tessellate, VolumesConvergeQuadratically) {
  // Inscribed polyhedra: the error is O(1/n^2), so doubling n should cut it by ~4 (we ask
  // for > 3 to allow the pole/band terms), always from below.
  for (const Case& c : cases()) {
    double previous = kInf;
    for (int n : {16, 32, 64, 128}) {
      const double error = (c.exact - signed_volume(c.make(n))) / c.exact;
      EXPECT_GT(error, 0.0) << c.name << " n=" << n;
      EXPECT_LT(error * 3.0, previous) << c.name << " n=" << n;
      previous = error;
    }
    EXPECT_LT(previous, 2e-3) << c.name;
  }
}

TEST(Tessellate, FromModelGeoms) {
  Model model;
  Geom g;
  g.name = "cap";
  g.type = GeomType::Capsule;
  g.size = Vec3(0.2, 0.5, 0);
  model.geoms.push_back(g);
  g.name = "ground";
  g.type = GeomType::Plane;
  model.geoms.push_back(g);
  const Mesh m = tessellate(model, 0, 32);
  EXPECT_EQ(m.name, "cap");
  EXPECT_NEAR(signed_volume(m), signed_volume(tessellate_capsule(0.2, 0.5, 32)), 1e-15);
  EXPECT_THROW(tessellate(model, 1, 32), InputError);
  EXPECT_THROW(tessellate_sphere(-1.0, 8), InputError);
}

}  // namespace
}  // namespace graspsim
