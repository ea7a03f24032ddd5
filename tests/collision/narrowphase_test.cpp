// Narrowphase against closed-form answers: depth, normal, points and patches.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "collision/narrowphase.h"
#include "collision_test_util.h"
#include "core/error.h"

namespace graspsim {
namespace {

using testing::deepest;
using testing::pose;

// Round-off of a few operations on unit-sized data.
constexpr double kTol = 1e-9;

ContactSet run(GeomType ta, const Vec3& sa, const Pose& xa, GeomType tb, const Vec3& sb, const Pose& xb,
               double margin = 0.0, int grid = 0, const Mesh* ma = nullptr, const Mesh* mb = nullptr) {
  ContactSet cs;
  CollideOptions opt;
  opt.patch_grid = grid;
  collide_shapes(make_shape(ta, sa, xa, ma), make_shape(tb, sb, xb, mb), margin, opt, cs);
  // Swapping A and B flips the normals and keeps the depths.
  ContactSet sw;
  collide_shapes(make_shape(tb, sb, xb, mb), make_shape(ta, sa, xa, ma), margin, opt, sw);
  EXPECT_EQ(cs.points.empty(), sw.points.empty());
  if (!cs.points.empty() && !sw.points.empty()) {
    EXPECT_NEAR(deepest(cs).depth, deepest(sw).depth, 1e-7);
    EXPECT_LT((deepest(cs).normal + deepest(sw).normal).norm(), 1e-6);
  }
  return cs;
}

TEST(Narrowphase, SpherePlaneOverPoseGrid) {
  std::mt19937_64 rng(1);
  for (int k = 0; k < 20; ++k) {
    const Quat q = testing::random_quat(rng);
    const Vec3 p0 = testing::random_vec(rng, -1, 1), n = q * Vec3::UnitZ();
    for (double h : {-0.2, 0.1, 0.3, 0.49}) {
      const Vec3 c = p0 + q * Vec3(0.3, -0.2, h);
      const ContactSet cs = run(GeomType::Plane, Vec3::Zero(), pose(p0, q), GeomType::Sphere, Vec3(0.5, 0, 0), pose(c));
      ASSERT_EQ(cs.points.size(), 1u);
      EXPECT_NEAR(cs.points[0].depth, 0.5 - h, kTol);
      EXPECT_LT((cs.points[0].normal - n).norm(), kTol);
      EXPECT_LT((cs.points[0].point_b - (c - 0.5 * n)).norm(), kTol);
    }
  }
}

TEST(Narrowphase, SphereSphereAndMargin) {
  std::mt19937_64 rng(2);
  for (int k = 0; k < 50; ++k) {
    const Vec3 dir = testing::random_vec(rng, -1, 1).normalized(), a = testing::random_vec(rng, -1, 1);
    const double d = 0.05 + 0.5 * k / 50.0;
    const ContactSet cs = run(GeomType::Sphere, Vec3(0.2, 0, 0), pose(a), GeomType::Sphere, Vec3(0.3, 0, 0),
                              pose(a + d * dir), 0.1);
    if (d - 0.5 > 0.1) {
      EXPECT_TRUE(cs.points.empty());
      continue;
    }
    ASSERT_EQ(cs.points.size(), 1u);
    EXPECT_NEAR(cs.points[0].depth, 0.5 - d, kTol);  // negative inside the margin
    EXPECT_LT((cs.points[0].normal - dir).norm(), kTol);
  }
}

TEST(Narrowphase, SphereBoxFaceEdgeAndInside) {
  std::mt19937_64 rng(3);
  const Vec3 h(0.3, 0.4, 0.5);
  for (int k = 0; k < 20; ++k) {
    const Pose xb = pose(testing::random_vec(rng, -1, 1), testing::random_quat(rng));
    const Mat3 R = xb.R();
    // Face region: centre 0.1 beyond the +x face.
    ContactSet cs = run(GeomType::Sphere, Vec3(0.25, 0, 0), pose(xb * Vec3(0.4, 0.1, -0.2)), GeomType::Box, h, xb);
    ASSERT_EQ(cs.points.size(), 1u);
    EXPECT_NEAR(cs.points[0].depth, 0.15, kTol);
    EXPECT_LT((cs.points[0].normal + R.col(0)).norm(), kTol);
    // Edge region: 0.06 and 0.08 beyond the +x and +y faces → distance 0.1.
    cs = run(GeomType::Sphere, Vec3(0.25, 0, 0), pose(xb * Vec3(0.36, 0.48, 0.0)), GeomType::Box, h, xb);
    ASSERT_EQ(cs.points.size(), 1u);
    EXPECT_NEAR(cs.points[0].depth, 0.15, kTol);
    EXPECT_LT((cs.points[0].normal + R * Vec3(0.6, 0.8, 0)).norm(), kTol);
    // Inside, 0.05 under the +z face: depth r + 0.05.
    cs = run(GeomType::Sphere, Vec3(0.25, 0, 0), pose(xb * Vec3(0.0, 0.1, 0.45)), GeomType::Box, h, xb);
    ASSERT_EQ(cs.points.size(), 1u);
    EXPECT_NEAR(cs.points[0].depth, 0.3, kTol);
    EXPECT_LT((cs.points[0].normal + R.col(2)).norm(), kTol);
  }
}

TEST(Narrowphase, CapsulePairs) {
  // Crossing capsules (axes x and y) 0.3 apart along z: depth r1 + r2 − 0.3.
  const Quat to_x(Eigen::AngleAxisd(M_PI / 2, Vec3::UnitY())), to_y(Eigen::AngleAxisd(M_PI / 2, Vec3::UnitX()));
  ContactSet cs = run(GeomType::Capsule, Vec3(0.2, 1, 0), pose(Vec3::Zero(), to_x), GeomType::Capsule,
                      Vec3(0.15, 1, 0), pose(Vec3(0.1, -0.2, 0.3), to_y));
  ASSERT_EQ(cs.points.size(), 1u);
  EXPECT_NEAR(cs.points[0].depth, 0.05, kTol);
  EXPECT_LT((cs.points[0].normal - Vec3::UnitZ()).norm(), kTol);
  EXPECT_LT((cs.points[0].position - Vec3(0.1, 0, 0.2 - 0.025)).norm(), kTol);
  // Parallel capsules overlapping over x ∈ [0.5, 1]: two points at the overlap ends.
  cs = run(GeomType::Capsule, Vec3(0.2, 1, 0), pose(Vec3::Zero(), to_x), GeomType::Capsule, Vec3(0.2, 1, 0),
           pose(Vec3(1.5, 0, 0.35), to_x));
  ASSERT_EQ(cs.points.size(), 2u);
  for (const ContactPoint& c : cs.points) EXPECT_NEAR(c.depth, 0.05, kTol);
  EXPECT_NEAR(std::min(cs.points[0].position.x(), cs.points[1].position.x()), 0.5, kTol);
  EXPECT_NEAR(std::max(cs.points[0].position.x(), cs.points[1].position.x()), 1.0, kTol);
  // Capsule lying on a plane: both ends.
  cs = run(GeomType::Plane, Vec3::Zero(), pose(Vec3::Zero()), GeomType::Capsule, Vec3(0.2, 1, 0),
           pose(Vec3(0, 0, 0.19), to_x));
  ASSERT_EQ(cs.points.size(), 2u);
  for (const ContactPoint& c : cs.points) EXPECT_NEAR(c.depth, 0.01, kTol);
  // Sphere over the middle of a capsule.
  cs = run(GeomType::Sphere, Vec3(0.1, 0, 0), pose(Vec3(0.3, 0.25, 0)), GeomType::Capsule, Vec3(0.2, 1, 0),
           pose(Vec3::Zero(), to_x));
  ASSERT_EQ(cs.points.size(), 1u);
  EXPECT_NEAR(cs.points[0].depth, 0.05, kTol);
  EXPECT_LT((cs.points[0].normal + Vec3::UnitY()).norm(), kTol);
}

TEST(Narrowphase, SphereCylinderSideAndCap) {
  const Vec3 cyl(0.3, 0.5, 0);
  ContactSet cs = run(GeomType::Sphere, Vec3(0.1, 0, 0), pose(Vec3(0.35, 0, 0.2)), GeomType::Cylinder, cyl, pose(Vec3::Zero()));
  ASSERT_EQ(cs.points.size(), 1u);
  EXPECT_NEAR(cs.points[0].depth, 0.05, kTol);
  EXPECT_LT((cs.points[0].normal + Vec3::UnitX()).norm(), kTol);
  cs = run(GeomType::Sphere, Vec3(0.1, 0, 0), pose(Vec3(0.1, 0.1, 0.58)), GeomType::Cylinder, cyl, pose(Vec3::Zero()));
  ASSERT_EQ(cs.points.size(), 1u);
  EXPECT_NEAR(cs.points[0].depth, 0.02, kTol);
  EXPECT_LT((cs.points[0].normal + Vec3::UnitZ()).norm(), kTol);
  // Rim region: centre 0.06 out radially and 0.08 above the cap → distance 0.1.
  cs = run(GeomType::Sphere, Vec3(0.12, 0, 0), pose(Vec3(0, 0.36, 0.58)), GeomType::Cylinder, cyl, pose(Vec3::Zero()));
  ASSERT_EQ(cs.points.size(), 1u);
  EXPECT_NEAR(cs.points[0].depth, 0.02, kTol);
}

TEST(Narrowphase, BoxRestingOnPlaneGivesItsFourCorners) {
  const Vec3 h(0.2, 0.3, 0.1);
  const ContactSet cs = run(GeomType::Plane, Vec3::Zero(), pose(Vec3::Zero()), GeomType::Box, h, pose(Vec3(1, 2, 0.099)));
  ASSERT_EQ(cs.points.size(), 4u);
  for (const ContactPoint& c : cs.points) {
    EXPECT_NEAR(c.depth, 0.001, kTol);
    EXPECT_NEAR(std::abs(c.point_b.x() - 1), 0.2, kTol);
    EXPECT_NEAR(std::abs(c.point_b.y() - 2), 0.3, kTol);
    EXPECT_NEAR(c.point_a.z(), 0.0, kTol);
    EXPECT_NEAR(c.area, 0.4 * 0.6 / 4, kTol);
  }
  EXPECT_NEAR(cs.patch_area, 0.4 * 0.6, kTol);
  // Tilted about x: the deepest corner is the analytic lowest one.
  const Quat q(Eigen::AngleAxisd(0.3, Vec3::UnitX()));
  const ContactSet t = run(GeomType::Plane, Vec3::Zero(), pose(Vec3::Zero()), GeomType::Box, h, pose(Vec3(0, 0, 0.1), q));
  const double lowest = 0.1 - (0.3 * std::sin(0.3) + 0.1 * std::cos(0.3));
  EXPECT_EQ(t.points.size(), 2u);
  EXPECT_NEAR(deepest(t).depth, -lowest, kTol);
}

TEST(Narrowphase, BoxFaceOnBoxFaceGivesOverlapCorners) {
  const Vec3 ha(1, 1, 1), hb(0.5, 0.5, 0.5);
  // B overhangs A's +x edge: overlap x ∈ [0.3, 1], y ∈ [−0.5, 0.5], depth 0.1.
  ContactSet cs = run(GeomType::Box, ha, pose(Vec3::Zero()), GeomType::Box, hb, pose(Vec3(0.8, 0, 1.4)));
  ASSERT_EQ(cs.points.size(), 4u);
  for (const ContactPoint& c : cs.points) {
    EXPECT_NEAR(c.depth, 0.1, kTol);
    EXPECT_LT((c.normal - Vec3::UnitZ()).norm(), kTol);
    EXPECT_TRUE(std::abs(c.position.x() - 0.3) < kTol || std::abs(c.position.x() - 1.0) < kTol);
    EXPECT_NEAR(std::abs(c.position.y()), 0.5, kTol);
    EXPECT_NEAR(c.position.z(), 0.95, kTol);
  }
  EXPECT_NEAR(cs.patch_area, 0.7, kTol);
  // B rotated 45° about z with half-width 0.9 on A's unit top: an octagon.
  const Quat q(Eigen::AngleAxisd(M_PI / 4, Vec3::UnitZ()));
  cs = run(GeomType::Box, ha, pose(Vec3::Zero()), GeomType::Box, Vec3(0.9, 0.9, 0.5), pose(Vec3(0, 0, 1.45), q));
  ASSERT_EQ(cs.points.size(), 8u);
  for (const ContactPoint& c : cs.points) {
    EXPECT_NEAR(c.depth, 0.05, kTol);
    const Vec3 lb = q.conjugate() * c.position;  // in B's axes
    // Each corner lies on A's square border and on B's rotated square border.
    EXPECT_NEAR(c.position.head<2>().cwiseAbs().maxCoeff(), 1.0, kTol);
    EXPECT_NEAR(lb.head<2>().cwiseAbs().maxCoeff(), 0.9, kTol);
  }
  const double cut = 0.9 * std::sqrt(2.0) - 1.0;  // each corner triangle of B has area cut²
  EXPECT_NEAR(cs.patch_area, 1.8 * 1.8 - 4 * cut * cut, kTol);
}

TEST(Narrowphase, BoxEdgeOnEdgeAndVertexOnFace) {
  const Vec3 h(1, 1, 1);
  const Quat qa(Eigen::AngleAxisd(M_PI / 4, Vec3::UnitX())), qb(Eigen::AngleAxisd(M_PI / 4, Vec3::UnitY()));
  for (double d : {0.001, 0.01, 0.05, 0.1}) {
    const ContactSet cs = run(GeomType::Box, h, pose(Vec3::Zero(), qa), GeomType::Box, h,
                              pose(Vec3(0, 0, 2 * std::sqrt(2.0) - d), qb));
    ASSERT_EQ(cs.points.size(), 1u);
    EXPECT_NEAR(cs.points[0].depth, d, kTol);
    EXPECT_LT((cs.points[0].normal - Vec3::UnitZ()).norm(), kTol);
    EXPECT_LT((cs.points[0].position - Vec3(0, 0, std::sqrt(2.0) - d / 2)).norm(), kTol);
  }
  // Corner (−h, −h, −h) of B turned straight down onto A's top face.
  const Quat qc = Quat::FromTwoVectors(Vec3(-1, -1, -1).normalized(), -Vec3::UnitZ());
  for (double d : {0.002, 0.02, 0.2}) {
    const ContactSet cs = run(GeomType::Box, Vec3(2, 2, 1), pose(Vec3::Zero()), GeomType::Box, Vec3(0.5, 0.5, 0.5),
                              pose(Vec3(0.3, 0.1, 1 + 0.5 * std::sqrt(3.0) - d), qc));
    ASSERT_EQ(cs.points.size(), 1u);
    EXPECT_NEAR(cs.points[0].depth, d, kTol);
    EXPECT_LT((cs.points[0].normal - Vec3::UnitZ()).norm(), kTol);
    EXPECT_NEAR(cs.points[0].point_b.x(), 0.3, kTol);
    EXPECT_NEAR(cs.points[0].point_b.y(), 0.1, kTol);
  }
}

TEST(Narrowphase, FlatCylinderOnPlaneGivesRimPoints) {
  const ContactSet cs = run(GeomType::Plane, Vec3::Zero(), pose(Vec3::Zero()), GeomType::Cylinder, Vec3(0.2, 0.3, 0),
                            pose(Vec3(0, 0, 0.29)));
  ASSERT_EQ(cs.points.size(), static_cast<size_t>(kRimPoints));
  for (const ContactPoint& c : cs.points) {
    EXPECT_NEAR(c.depth, 0.01, kTol);
    EXPECT_NEAR(c.point_b.head<2>().norm(), 0.2, kTol);
  }
  // The patch is the cap as a 32-gon: area (32/2)·sin(2π/32)·r², 0.64% under πr².
  EXPECT_NEAR(cs.patch_area, 16 * std::sin(2 * M_PI / 32) * 0.04, kTol);
  // On its side: the two ends of the bottom line.
  const Quat side(Eigen::AngleAxisd(M_PI / 2, Vec3::UnitX()));
  const ContactSet s = run(GeomType::Plane, Vec3::Zero(), pose(Vec3::Zero()), GeomType::Cylinder, Vec3(0.2, 0.3, 0),
                           pose(Vec3(0, 0, 0.19), side));
  ASSERT_EQ(s.points.size(), 2u);
  for (const ContactPoint& c : s.points) EXPECT_NEAR(c.depth, 0.01, kTol);
}

// Points of a grid lie in the patch and their areas add up to its area.
TEST(Narrowphase, PatchGridCoversThePolygon) {
  ContactSet cs = run(GeomType::Plane, Vec3::Zero(), pose(Vec3::Zero()), GeomType::Box, Vec3(0.2, 0.3, 0.1),
                      pose(Vec3(0, 0, 0.09)), 0.0, 4);
  ASSERT_EQ(cs.points.size(), 16u);
  double sum = 0;
  for (const ContactPoint& c : cs.points) {
    sum += c.area;
    EXPECT_NEAR(c.depth, 0.01, kTol);
    EXPECT_LE(std::abs(c.position.x()), 0.2 + kTol);
    EXPECT_LE(std::abs(c.position.y()), 0.3 + kTol);
  }
  EXPECT_NEAR(sum, cs.patch_area, kTol);
  EXPECT_NEAR(cs.patch_area, 0.24, kTol);
  // The octagon of two boxes, tilted so depth varies linearly: depth interpolated.
  const Quat q(Eigen::AngleAxisd(M_PI / 4, Vec3::UnitZ()));
  cs = run(GeomType::Box, Vec3(1, 1, 1), pose(Vec3::Zero()), GeomType::Box, Vec3(0.9, 0.9, 0.5),
           pose(Vec3(0, 0, 1.45), q), 0.0, 5);
  sum = 0;
  for (const ContactPoint& c : cs.points) {
    sum += c.area;
    EXPECT_LE(c.position.head<2>().cwiseAbs().maxCoeff(), 1.0 + kTol);
    EXPECT_LE((q.conjugate() * c.position).head<2>().cwiseAbs().maxCoeff(), 0.9 + kTol);
    EXPECT_NEAR(c.depth, 0.05, kTol);
  }
  EXPECT_GT(cs.points.size(), 16u);
  EXPECT_NEAR(sum, cs.patch_area, kTol);
}

TEST(Narrowphase, TriangleMeshPairsAreNotRoutedHere) {
  Mesh mesh;
  EXPECT_THROW(run(GeomType::Sphere, Vec3(1, 0, 0), pose(Vec3::Zero()), GeomType::TriangleMesh, Vec3::Ones(),
                   pose(Vec3::Zero()), 0, 0, nullptr, &mesh),
               InputError);
}

TEST(Narrowphase, PlanesNeverTouch) {
  const ContactSet cs = run(GeomType::Plane, Vec3::Zero(), pose(Vec3::Zero()), GeomType::Plane, Vec3::Zero(),
                            pose(Vec3(0, 0, 0.1)));
  EXPECT_TRUE(cs.points.empty());
}

TEST(Narrowphase, HullBoxRestingOnBoxGivesFaceCorners) {
  const auto mesh = testing::box_mesh(Vec3(0.5, 0.5, 0.5));
  const ContactSet cs = run(GeomType::Box, Vec3(1, 1, 1), pose(Vec3::Zero()), GeomType::ConvexMesh, Vec3::Ones(),
                            pose(Vec3(0.8, 0, 1.4)), 0.0, 0, nullptr, mesh.get());
  ASSERT_EQ(cs.points.size(), 4u);
  for (const ContactPoint& c : cs.points) EXPECT_NEAR(c.depth, 0.1, 1e-7);
  EXPECT_NEAR(cs.patch_area, 0.7, 1e-7);
}

TEST(Narrowphase, CylinderStandingOnBoxGivesRimPoints) {
  // General path: the cap's rim polygon clipped to the box's top face.
  const ContactSet cs = run(GeomType::Box, Vec3(1, 1, 0.5), pose(Vec3::Zero()), GeomType::Cylinder, Vec3(0.2, 0.3, 0),
                            pose(Vec3(0.1, 0.2, 0.79)));
  ASSERT_EQ(cs.points.size(), static_cast<size_t>(kRimPoints));
  for (const ContactPoint& c : cs.points) {
    EXPECT_NEAR(c.depth, 0.01, 1e-7);
    EXPECT_LT((c.normal - Vec3::UnitZ()).norm(), 1e-7);
    EXPECT_NEAR((c.point_b - Vec3(0.1, 0.2, 0.49)).norm(), 0.2, 1e-7);
  }
  // Overhanging the +x edge by 0.15: only rim points over the box remain.
  const ContactSet edge = run(GeomType::Box, Vec3(1, 1, 0.5), pose(Vec3::Zero()), GeomType::Cylinder,
                              Vec3(0.2, 0.3, 0), pose(Vec3(1.15, 0, 0.79)));
  ASSERT_FALSE(edge.points.empty());
  for (const ContactPoint& c : edge.points) EXPECT_LE(c.position.x(), 1.0 + 1e-9);
}

// Feature ids stay the same while the same features touch (a small slide), and differ
// between the points of one manifold.
TEST(Narrowphase, FeatureIdsPersistWhileTheSameFeaturesTouch) {
  auto ids = [](const ContactSet& cs) {
    std::vector<std::uint64_t> v;
    for (const ContactPoint& c : cs.points) v.push_back(c.feature);
    std::sort(v.begin(), v.end());
    return v;
  };
  const ContactSet a = run(GeomType::Box, Vec3(1, 1, 1), pose(Vec3::Zero()), GeomType::Box, Vec3(0.5, 0.5, 0.5),
                           pose(Vec3(0.8, 0, 1.4)));
  const ContactSet b = run(GeomType::Box, Vec3(1, 1, 1), pose(Vec3::Zero()), GeomType::Box, Vec3(0.5, 0.5, 0.5),
                           pose(Vec3(0.79, 0.01, 1.399)));
  ASSERT_EQ(a.points.size(), 4u);
  EXPECT_EQ(ids(a), ids(b));
  const auto v = ids(a);
  EXPECT_TRUE(std::adjacent_find(v.begin(), v.end()) == v.end());
}

TEST(Narrowphase, HullOnPlaneGivesItsLowestVertices) {
  const auto mesh = testing::box_mesh(Vec3(0.2, 0.3, 0.1));
  const ContactSet cs = run(GeomType::Plane, Vec3::Zero(), pose(Vec3::Zero()), GeomType::ConvexMesh, Vec3::Ones(),
                            pose(Vec3(0, 0, 0.098)), 0.0, 0, nullptr, mesh.get());
  ASSERT_EQ(cs.points.size(), 4u);
  for (const ContactPoint& c : cs.points) EXPECT_NEAR(c.depth, 0.002, kTol);
  EXPECT_NEAR(cs.patch_area, 0.24, kTol);
}

TEST(Narrowphase, RoundedBaseOnPlaneKeepsTheFlatBasesCorners) {
  // A rounded box's base: a flat 34 mm square, and around it the first ring of its rounded
  // edges, 3 mm farther out and 0.6 mm up (within the 1 mm margin): 16 candidates for 8
  // points. Farthest-first alone kept one corner and seven ring points, and a stepper given
  // four of those let the base tilt and sink a corner 0.6 mm in one step.
  std::vector<Vec3> pts;
  for (double sx : {-1.0, 1.0})
    for (double sy : {-1.0, 1.0}) {
      pts.emplace_back(0.017 * sx, 0.017 * sy, 0.0);
      pts.emplace_back(0.0200 * sx, 0.017 * sy, 0.0006);
      pts.emplace_back(0.017 * sx, 0.0200 * sy, 0.0006);
      pts.emplace_back(0.0192 * sx, 0.0192 * sy, 0.0006);
      pts.emplace_back(0.02 * sx, 0.02 * sy, 0.1);
    }
  const auto mesh = testing::hull_mesh(pts);
  const ContactSet cs = run(GeomType::Plane, Vec3::Zero(), pose(Vec3::Zero()), GeomType::ConvexMesh, Vec3::Ones(),
                            pose(Vec3::Zero()), 1e-3, 0, nullptr, mesh.get());
  ASSERT_EQ(cs.points.size(), static_cast<size_t>(kMaxManifoldPoints));
  int corners = 0;
  for (const ContactPoint& c : cs.points) corners += c.depth > -1e-12;
  EXPECT_EQ(corners, 4);
}

}  // namespace
}  // namespace graspsim

namespace graspsim {
namespace {

// Regression: a pusher rod placed exactly against a box side (the thesis push scene) made
// EPA pick the opposite face: depth 99.5 mm, normal flipped. Exactly touching, and just
// apart or just overlapping, the contact must be the side face at depth ≈ 0.
TEST(Narrowphase, CylinderExactlyTouchingABoxSide) {
  const Vec3 box_half(0.045, 0.045, 0.0065);
  for (double gap : {0.0, 1e-12, -1e-12, 1e-6, -1e-6}) {
    const ConvexShape box = make_shape(GeomType::Box, box_half, Pose{Vec3(0, 0, 0.0065), Quat::Identity()});
    const ConvexShape rod = make_shape(GeomType::Cylinder, Vec3(0.00475, 0.025, 0),
                                       Pose{Vec3(-0.045 - 0.00475 - gap, 0, 0.027), Quat::Identity()});
    ContactSet cs;
    collide_shapes(box, rod, 1e-3, CollideOptions{}, cs);
    ASSERT_FALSE(cs.points.empty()) << "gap " << gap;
    for (const ContactPoint& p : cs.points) {
      EXPECT_NEAR(p.depth, -gap, 1e-9) << "gap " << gap;
      EXPECT_NEAR(p.normal.x(), -1.0, 1e-9) << "gap " << gap;
      EXPECT_NEAR(p.position.x(), -0.045, 1e-6) << "gap " << gap;
    }
  }
}

}  // namespace
}  // namespace graspsim

namespace graspsim {
namespace {

// Regression: in the thesis push at 80 % of the side, GJK stalled on a repeated support
// point with the rod touching the rotated box and reported the cores 39 mm apart; the
// contact vanished for a step and came back 0.16 mm deep. Poses from that step.
TEST(Narrowphase, GjkStallOnARodTouchingARotatedBoxIsRecovered) {
  const ConvexShape box = make_shape(
      GeomType::Box, Vec3(0.045, 0.045, 0.0065),
      Pose{Vec3(0.031463715368227237, -0.011033990098273948, 0.0064997925937497871),
           Quat(0.99035109084034822, -1.7906512778744951e-06, -2.354334003594498e-06, -0.13858108407204478).normalized()});
  const ConvexShape rod = make_shape(GeomType::Cylinder, Vec3(0.00475, 0.025, 0),
                                     Pose{Vec3(-0.0094166666666664588, 0.027, 0.027), Quat::Identity()});
  ContactSet cs;
  collide_shapes(box, rod, 1e-3, CollideOptions{}, cs);
  ASSERT_FALSE(cs.points.empty());
  // The rod's axis lies 4.75 mm + ~5 µm from the box side whose outward normal is the box's
  // rotated −x axis.
  const Vec3 side_normal = Quat(0.99035109084034822, 0, 0, -0.13858108407204478).normalized() * Vec3(-1, 0, 0);
  for (const ContactPoint& p : cs.points) {
    EXPECT_NEAR(p.depth, 0.0, 1e-5);
    EXPECT_GT(p.normal.dot(side_normal), 0.9999);
  }
}

}  // namespace
}  // namespace graspsim

namespace graspsim {
namespace {

// Regression: a disc fingertip (the prehensile scene's: r 20 mm, 5 mm half thickness, axis
// along y) pressed 30 nm into a box face made EPA return one point with a normal tilted by
// ~50 degrees instead of the face patch; the finger lost its grip for a step. Sliding the disc
// along the face in 0.1 mm steps, every pose must give the face normal, the face patch (the
// disc's face clipped to the box face: several points) and the 30 nm depth.
TEST(Narrowphase, DiscPressedOnABoxFaceGivesTheFacePatch) {
  const ConvexShape box = make_shape(GeomType::Box, Vec3(0.05, 0.0125, 0.0125), Pose{Vec3(0, 0, 0.2), Quat::Identity()});
  const Quat axis_y(Eigen::AngleAxisd(M_PI / 2, Vec3::UnitX()));
  const double press = 3e-8;
  for (int k = 0; k <= 150; ++k) {
    const double x = 1e-4 * k + (k == 100 ? 2e-8 : 0.0);  // k = 100: the pose the scene hit
    const ConvexShape disc =
        make_shape(GeomType::Cylinder, Vec3(0.02, 0.005, 0), Pose{Vec3(x, 0.0125 + 0.005 - press, 0.2), axis_y});
    ContactSet cs;
    collide_shapes(box, disc, 1e-3, CollideOptions{}, cs);
    ASSERT_GE(cs.points.size(), 3u) << "x " << x;
    for (const ContactPoint& p : cs.points) {
      EXPECT_NEAR(p.normal.y(), 1.0, 1e-9) << "x " << x;
      EXPECT_NEAR(p.depth, press, 1e-9) << "x " << x;
    }
  }
}

}  // namespace
}  // namespace graspsim
