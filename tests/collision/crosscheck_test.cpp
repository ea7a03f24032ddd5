// Every closed-form pair against the general convex path (GJK/EPA + feature clipping) on
// random poses. Both report the minimum-translation contact, so their deepest depths must
// agree and each normal must be a direction along which the shapes overlap by exactly
// that depth (this also holds when the minimum direction is not unique).

#include <gtest/gtest.h>

#include "collision/narrowphase.h"
#include "collision_test_util.h"

namespace graspsim {
namespace {

// Overlap of the projections of A and B on n: ≥ the penetration depth for every n, equal
// along a minimum-translation direction.
double projected_overlap(const ConvexShape& a, const ConvexShape& b, const Vec3& n) {
  return support(a, n).dot(n) - support(b, -n).dot(n);
}

struct Case {
  GeomType ta;
  Vec3 sa;
  GeomType tb;
  Vec3 sb;
};

// tol_abs + tol_rel·depth bounds |depth difference|. Polytope pairs: EPA stops within
// 1e-9 m and GJK to round-off, so 1e-7 m. Curved surfaces (cylinders, and sphere centres
// inside a shape): EPA refines an inscribed polytope and stops at its iteration cap;
// measured worst 7e-5 relative, so 1e-4 relative.
void cross_check(const Case& c, std::uint64_t seed, int samples, double tol_rel = 0.0) {
  const double tol_abs = 1e-7;
  std::mt19937_64 rng(seed);
  int compared = 0, normals_equal = 0;
  for (int k = 0; k < samples; ++k) {
    const Pose xa{testing::random_vec(rng, -0.2, 0.2), testing::random_quat(rng)};
    const Pose xb{testing::random_vec(rng, -0.6, 0.6), testing::random_quat(rng)};
    const ConvexShape a = make_shape(c.ta, c.sa, xa), b = make_shape(c.tb, c.sb, xb);
    ContactSet exact, general;
    collide_shapes(a, b, 0.0, CollideOptions{}, exact);
    collide_convex_general(a, b, 0.0, CollideOptions{}, general);
    // Grazing contacts (< 1e-6 m) may be found by one path only, within EPA's tolerance.
    if (exact.points.empty() || testing::deepest(exact).depth < 1e-6) continue;
    ASSERT_FALSE(general.points.empty()) << "sample " << k;
    const ContactPoint &e = testing::deepest(exact), &g = testing::deepest(general);
    ++compared;
    const double tol = tol_abs + tol_rel * e.depth;
    EXPECT_NEAR(e.depth, g.depth, tol) << "sample " << k;
    EXPECT_NEAR(projected_overlap(a, b, e.normal), e.depth, tol_abs) << "sample " << k;
    // EPA converges on the depth; its normal may stay tilted within the final facet
    // (measured ≤ 5e-6·depth of extra projected overlap, in deep cases only).
    EXPECT_NEAR(projected_overlap(a, b, g.normal), g.depth, tol + 1e-5 * e.depth) << "sample " << k;
    // A depth error δ on a surface of radius ρ tilts the normal by ~sqrt(2δ/ρ): 0.02 rad
    // for the curved pairs here (δ = 1e-4·0.35 m, ρ = 0.2 m); round-off for polytopes.
    if ((e.normal - g.normal).norm() < (tol_rel > 0 ? 0.02 : 1e-6)) ++normals_equal;
  }
  EXPECT_GT(compared, samples / 5);
  // Ties between minimum directions are rare on random poses.
  EXPECT_GT(normals_equal, 0.97 * compared);
}

constexpr int kSamples = 2000;

TEST(CrossCheck, SphereSphere) { cross_check({GeomType::Sphere, {0.3, 0, 0}, GeomType::Sphere, {0.25, 0, 0}}, 11, kSamples); }
TEST(CrossCheck, SphereBox) { cross_check({GeomType::Sphere, {0.3, 0, 0}, GeomType::Box, {0.2, 0.3, 0.4}}, 12, kSamples); }
TEST(CrossCheck, SphereCapsule) { cross_check({GeomType::Sphere, {0.3, 0, 0}, GeomType::Capsule, {0.2, 0.3, 0}}, 13, kSamples); }
TEST(CrossCheck, SphereCylinder) { cross_check({GeomType::Sphere, {0.3, 0, 0}, GeomType::Cylinder, {0.2, 0.3, 0}}, 14, kSamples, 1e-4); }
TEST(CrossCheck, CapsuleCapsule) { cross_check({GeomType::Capsule, {0.2, 0.3, 0}, GeomType::Capsule, {0.15, 0.4, 0}}, 15, kSamples); }
TEST(CrossCheck, BoxBox) { cross_check({GeomType::Box, {0.3, 0.2, 0.4}, GeomType::Box, {0.25, 0.35, 0.15}}, 16, kSamples); }

// The hull path through the table (a box given as a ConvexMesh) against box-box SAT,
// including the manifold: same number of points and the same deepest point.
TEST(CrossCheck, BoxHullAgainstBoxBox) {
  const Vec3 ha(0.3, 0.2, 0.4), hb(0.25, 0.35, 0.15);
  const auto mesh = testing::box_mesh(hb);
  std::mt19937_64 rng(17);
  int compared = 0, same_count = 0;
  for (int k = 0; k < kSamples; ++k) {
    const Pose xa{testing::random_vec(rng, -0.2, 0.2), testing::random_quat(rng)};
    const Pose xb{testing::random_vec(rng, -0.6, 0.6), testing::random_quat(rng)};
    ContactSet exact, hull;
    collide_shapes(make_shape(GeomType::Box, ha, xa), make_shape(GeomType::Box, hb, xb), 0.0, {}, exact);
    collide_shapes(make_shape(GeomType::Box, ha, xa), make_shape(GeomType::ConvexMesh, Vec3::Ones(), xb, mesh.get()),
                   0.0, {}, hull);
    if (exact.points.empty() || testing::deepest(exact).depth < 1e-6) continue;
    ASSERT_FALSE(hull.points.empty());
    ++compared;
    EXPECT_NEAR(testing::deepest(exact).depth, testing::deepest(hull).depth, 1e-7) << k;
    same_count += exact.points.size() == hull.points.size();
  }
  EXPECT_GT(compared, kSamples / 5);
  EXPECT_GT(same_count, 0.97 * compared);
}

}  // namespace
}  // namespace graspsim

namespace graspsim {
namespace {

// MPR (the fast option) finds the same touching hull pairs; its depth is the overlap along
// its own direction, so it can only over-estimate the minimum (EPA's) depth.
TEST(CrossCheck, MprFindsTheEpaContacts) {
  const auto ha = testing::sphere_points_hull(50, 0.3, 3), hb = testing::sphere_points_hull(50, 0.25, 4);
  std::mt19937_64 rng(18);
  CollideOptions fast;
  fast.mpr = true;
  int compared = 0;
  for (int k = 0; k < kSamples; ++k) {
    const Pose xa{Vec3::Zero(), testing::random_quat(rng)};
    const Pose xb{testing::random_vec(rng, -0.6, 0.6), testing::random_quat(rng)};
    const ConvexShape a = make_shape(GeomType::ConvexMesh, Vec3::Ones(), xa, ha.get());
    const ConvexShape b = make_shape(GeomType::ConvexMesh, Vec3::Ones(), xb, hb.get());
    ContactSet epa, mpr;
    collide_shapes(a, b, 0.0, {}, epa);
    collide_shapes(a, b, 0.0, fast, mpr);
    if (epa.points.empty() || testing::deepest(epa).depth < 1e-6) continue;
    ++compared;
    ASSERT_FALSE(mpr.points.empty()) << k;
    EXPECT_GE(testing::deepest(mpr).depth, testing::deepest(epa).depth - 1e-7) << k;
  }
  EXPECT_GT(compared, kSamples / 10);
}

}  // namespace
}  // namespace graspsim
