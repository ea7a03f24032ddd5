// The closed-form box–cylinder pair (axis parallel to a box axis) against the general GJK/EPA path
// it replaces, over random poses: the same contacts where the general path is exact, and the
// exact depth where it is not.

#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "collision/narrowphase.h"
#include "collision/pairs.h"

namespace graspsim {
namespace {

Quat random_rotation(std::mt19937& rng) {
  std::normal_distribution<double> g;
  return Quat(g(rng), g(rng), g(rng), g(rng)).normalized();
}

// The cylinder's local z turned onto the box's axis k (either way), then spun about it.
Quat parallel_to(const Quat& box, int k, bool flip, double spin) {
  const Vec3 to = (flip ? -1.0 : 1.0) * Vec3::Unit(k);
  return box * Quat::FromTwoVectors(Vec3::UnitZ(), to) * Quat(Eigen::AngleAxisd(spin, Vec3::UnitZ()));
}

struct Pair {
  ConvexShape box, cyl;
};

Pair random_pair(std::mt19937& rng) {
  std::uniform_real_distribution<double> u(0, 1);
  const Vec3 half(0.01 + 0.05 * u(rng), 0.01 + 0.05 * u(rng), 0.01 + 0.05 * u(rng));
  const Quat qb = random_rotation(rng);
  const int k = static_cast<int>(3 * u(rng)) % 3;
  const double r = 0.003 + 0.02 * u(rng), hl = 0.005 + 0.03 * u(rng);
  // Centres across faces, edges and corners, touching, apart and deep.
  const Vec3 reach = half + Vec3::Constant(r + hl);
  const Vec3 local(reach.x() * (2 * u(rng) - 1), reach.y() * (2 * u(rng) - 1), reach.z() * (2 * u(rng) - 1));
  const Pose xb{Vec3(0.1, -0.2, 0.3), qb};
  const Pose xc{xb.p + qb * (1.1 * local), parallel_to(qb, k, u(rng) < 0.5, 6.3 * u(rng))};
  return {make_shape(GeomType::Box, half, xb), make_shape(GeomType::Cylinder, Vec3(r, hl, 0), xc)};
}

double depth_along(const ConvexShape& a, const ConvexShape& b, const Vec3& d) {
  return support(a, d).dot(d) - support(b, -d).dot(d);
}

// Penetration depth = min over directions of depth_along: sampled finely around the answer, no
// direction may be shallower (the closed form found the minimum), and the answer is attained.
TEST(BoxCylinder, DepthIsTheMinimumOverDirectionsAndMatchesTheGeneralPath) {
  std::mt19937 rng(7);
  int compared = 0, faces = 0;
  for (int trial = 0; trial < 3000; ++trial) {
    const Pair p = random_pair(rng);
    ContactSet fast, general;
    const double margin = 0.002;
    box_cylinder(p.box, p.cyl, margin, CollideOptions{}, fast);
    collide_convex_general(p.box, p.cyl, margin, CollideOptions{}, general);
    // Contact or not: the same answer, except within 1e-9 m of the margin's edge.
    if (fast.points.empty() != general.points.empty()) {
      const auto& some = fast.points.empty() ? general : fast;
      double deepest = -1;
      for (const auto& c : some.points) deepest = std::max(deepest, c.depth);
      EXPECT_NEAR(deepest, -margin, 1e-9) << "trial " << trial;
      continue;
    }
    if (fast.points.empty()) continue;
    ++compared;
    const ContactPoint* df = &fast.points[0];
    for (const auto& c : fast.points) df = c.depth > df->depth ? &c : df;
    const ContactPoint* dg = &general.points[0];
    for (const auto& c : general.points) dg = c.depth > dg->depth ? &c : dg;
    // The general path reports EPA's depth (its polytope is inscribed in the curved side, so it
    // can be short by up to ~20 um) or a face axis's (exact); along its normal the exact depth is
    // depth_along, which the closed form's direction may not exceed.
    const Vec3 n = df->normal;
    EXPECT_NEAR(df->depth, dg->depth, 3e-5) << "trial " << trial;
    EXPECT_LE(df->depth, depth_along(p.box, p.cyl, dg->normal) + 1e-12) << "trial " << trial;
    EXPECT_NEAR(depth_along(p.box, p.cyl, n), df->depth, 1e-12) << "trial " << trial;
    if (df->depth > 0) {
      std::normal_distribution<double> g;
      for (int s = 0; s < 200; ++s) {
        const Vec3 d = (n + 0.05 * Vec3(g(rng), g(rng), g(rng))).normalized();
        EXPECT_GE(depth_along(p.box, p.cyl, d), df->depth - 1e-12) << "trial " << trial;
      }
    }
    // The cylinder's side on a box face (the push): the same patch as the general path, point for
    // point. (On a cap against a face either face may be the reference, by round-off in the general
    // path; the closed form always takes the box's.)
    if (fast.points.size() >= 2 && (n - dg->normal).norm() < 1e-12 && std::abs(n.dot(p.cyl.axis())) < 1e-9) {
      ++faces;
      ASSERT_EQ(fast.points.size(), general.points.size()) << "trial " << trial;
      for (std::size_t i = 0; i < fast.points.size(); ++i) {
        EXPECT_LT((fast.points[i].position - general.points[i].position).norm(), 1e-12) << "trial " << trial;
        EXPECT_EQ(fast.points[i].feature, general.points[i].feature) << "trial " << trial;
      }
    }
  }
  EXPECT_GT(compared, 1000);
  EXPECT_GT(faces, 300);
}

// A slightly tilted cylinder (beyond 1.4e-6 rad) takes the general path: the same contacts.
TEST(BoxCylinder, TiltedAxisTakesTheGeneralPath) {
  const ConvexShape box = make_shape(GeomType::Box, Vec3(0.045, 0.045, 0.00635), Pose{Vec3(0, 0, 0.00635), Quat::Identity()});
  const Quat tilt(Eigen::AngleAxisd(1e-5, Vec3::UnitY()));
  const ConvexShape rod = make_shape(GeomType::Cylinder, Vec3(0.00475, 0.025, 0), Pose{Vec3(-0.0497, 0, 0.027), tilt});
  ContactSet fast, general;
  box_cylinder(box, rod, 0.0, CollideOptions{}, fast);
  collide_convex_general(box, rod, 0.0, CollideOptions{}, general);
  ASSERT_EQ(fast.points.size(), general.points.size());
  for (std::size_t i = 0; i < fast.points.size(); ++i) EXPECT_EQ(fast.points[i].position, general.points[i].position);
}

}  // namespace
}  // namespace graspsim
