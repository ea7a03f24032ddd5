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

namespace graspsim {
namespace {

// A pad's bottom edge across a leaning prism's vertical edge (a parallel-jaw pad on a
// polygonal cylinder that tilted in the grasp). The contact normal is the edges' common
// perpendicular, which is neither shape's face axis, and the witness is where the edges
// cross. Before the supporting features' edge pairs were tried, EPA's normal was off by
// 4e-4 rad, its depth 44 um where the shapes touched, and its point 100 mm up the prism.
TEST(CrossCheck, CrossingEdgesTouchAlongTheirCommonPerpendicular) {
  const double radius = 0.03, height = 0.12, lean = 0.01, depth = 1e-6;
  std::vector<Vec3> pts;  // an octagonal prism with a vertical edge towards +y
  for (int k = 0; k < 8; ++k) {
    const double phi = M_PI / 2 + k * M_PI / 4;
    for (double z : {0.0, height}) pts.emplace_back(radius * std::cos(phi), radius * std::sin(phi), z);
  }
  const auto prism = testing::hull_mesh(pts);
  // The pad: x ∈ [−0.01, 0.01], y ∈ [0, 0.01], z ∈ [0.02, 0.04]; its bottom edge runs along x at (y, z) = (0, 0.02).
  const ConvexShape pad = make_shape(GeomType::Box, Vec3(0.01, 0.005, 0.01), Pose{Vec3(0, 0.005, 0.03), Quat::Identity()});
  // The prism leans away from the pad going up; its edge (0, r, h) crosses the pad's edge at h = 0.03.
  const Quat tilt(Eigen::AngleAxisd(lean, Vec3::UnitX()));
  const Vec3 on_edge = tilt * Vec3(0, radius, 0.03);
  const Vec3 normal(0, -std::cos(lean), -std::sin(lean));  // pad → prism, ⟂ both edges
  const Vec3 crossing(0, 0, 0.02);
  const ConvexShape body = make_shape(GeomType::ConvexMesh, Vec3::Ones(),
                                      Pose{crossing - on_edge - depth * normal, tilt}, prism.get());
  ContactSet cs;
  collide_convex_general(pad, body, 0.0, CollideOptions{}, cs);
  ASSERT_EQ(cs.points.size(), 1u);
  const ContactPoint& c = cs.points[0];
  EXPECT_NEAR(c.depth, depth, 1e-9);
  EXPECT_GT(c.normal.dot(normal), std::cos(1e-7));
  // EPA's witness tolerance is not at stake: the crossing is exact to round-off.
  EXPECT_LT((c.point_a - crossing).norm(), 1e-9) << c.point_a.transpose();
  EXPECT_LT((c.point_b - (crossing - depth * normal)).norm(), 1e-9) << c.point_b.transpose();
}

}  // namespace
}  // namespace graspsim
