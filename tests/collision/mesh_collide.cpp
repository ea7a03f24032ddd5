#include "collision/mesh_collide.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <numbers>
#include <random>

#include "collision/mesh_io.h"
#include "collision/tessellate.h"
#include "core/error.h"
#include "mesh_test_shapes.h"

namespace graspsim {
namespace {

// An open flat grid z = 0 over [-1, 1]² in n×n cells, each split in two triangles: plenty
// of internal edges and vertices for ghost contacts to appear at.
Mesh ground_grid(int n) {
  Mesh m;
  for (int j = 0; j <= n; ++j)
    for (int i = 0; i <= n; ++i) m.vertices.emplace_back(-1.0 + 2.0 * i / n, -1.0 + 2.0 * j / n, 0.0);
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i) {
      const int v = j * (n + 1) + i;
      m.faces.push_back({v, v + 1, v + n + 2});
      m.faces.push_back({v, v + n + 2, v + n + 1});
    }
  return m;
}

struct Scene {
  Model model;
  int add_mesh(const Mesh& mesh, GeomType type) {
    model.meshes.push_back(std::make_shared<const Mesh>(mesh));
    Geom g;
    g.name = "mesh" + std::to_string(model.geoms.size());
    g.type = type;
    g.mesh = static_cast<int>(model.meshes.size()) - 1;
    model.geoms.push_back(g);
    return model.ngeom() - 1;
  }
  int add(GeomType type, const Vec3& size) {
    Geom g;
    g.name = "geom" + std::to_string(model.geoms.size());
    g.type = type;
    g.size = size;
    model.geoms.push_back(g);
    return model.ngeom() - 1;
  }
};

using Vec2 = Eigen::Vector2d;

Pose at(const Vec3& p, const Vec3& rot = Vec3::Zero()) { return {p, quat_exp(rot)}; }

void expect_consistent(const ContactPoint& c) {
  EXPECT_NEAR(c.normal.norm(), 1.0, 1e-12);
  // depth is the penetration along the normal between the witness points
  EXPECT_NEAR(c.normal.dot(c.point_a - c.point_b), c.depth, 1e-9);
  EXPECT_LT((c.position - 0.5 * (c.point_a + c.point_b)).norm(), 1e-12);
}

TEST(MeshCollide, SphereOnGridHasOneContactEvenOverGridVertices) {
  Scene s;
  const int ground = s.add_mesh(ground_grid(8), GeomType::TriangleMesh);
  const int ball = s.add(GeomType::Sphere, Vec3(0.1, 0, 0));
  // Over a cell interior, an internal edge, and a grid vertex shared by six triangles.
  for (const Vec3& xy : {Vec3(0.13, 0.37, 0), Vec3(0.125, 0.125, 0), Vec3(0.25, 0.5, 0)}) {
    const ContactSet c = collide_trimesh(s.model, ground, Pose::Identity(), ball, at(xy + Vec3(0, 0, 0.08)), 0.0);
    ASSERT_EQ(c.points.size(), 1u) << xy.transpose();
    EXPECT_NEAR(c.points[0].depth, 0.02, 1e-12);
    EXPECT_LT((c.points[0].normal - Vec3::UnitZ()).norm(), 1e-12);
    EXPECT_LT((c.points[0].point_a - xy).norm(), 1e-12);
    expect_consistent(c.points[0]);
    // Swapped order: the normal flips to keep pointing from A to B.
    const ContactSet d = collide_trimesh(s.model, ball, at(xy + Vec3(0, 0, 0.08)), ground, Pose::Identity(), 0.0);
    ASSERT_EQ(d.points.size(), 1u);
    EXPECT_LT((d.points[0].normal + Vec3::UnitZ()).norm(), 1e-12);
    expect_consistent(d.points[0]);
  }
  EXPECT_TRUE(collide_trimesh(s.model, ground, Pose::Identity(), ball, at(Vec3(0, 0, 0.11)), 0.0).points.empty());
  EXPECT_EQ(collide_trimesh(s.model, ground, Pose::Identity(), ball, at(Vec3(0, 0, 0.11)), 0.02).points.size(), 1u);
}

TEST(MeshCollide, SmallSphereAgainstTessellatedSphereMatchesRadialGeometry) {
  Scene s;
  const int big = s.add_mesh(tessellate_sphere(1.0, 64), GeomType::TriangleMesh);
  const int ball = s.add(GeomType::Sphere, Vec3(0.1, 0, 0));
  std::mt19937_64 rng(3);
  std::normal_distribution<double> g;
  for (int k = 0; k < 50; ++k) {
    const Vec3 dir = Vec3(g(rng), g(rng), g(rng)).normalized();
    const ContactSet c = collide_trimesh(s.model, big, Pose::Identity(), ball, at(1.05 * dir), 0.0);
    ASSERT_FALSE(c.points.empty());
    const ContactPoint& p = c.points[0];
    // The inscribed mesh lies within 1 − cos(π/32) ≈ 4.8e-3 of the unit sphere (band
    // height π/32), and its facet normals within π/32 ≈ 0.1 rad of radial.
    EXPECT_NEAR(p.depth, 0.05, 5e-3);
    EXPECT_GT(p.normal.dot(dir), std::cos(0.1));
    expect_consistent(p);
  }
}

TEST(MeshCollide, TiltedBoxOnGridGivesCornerContactsOnTheBoxFace) {
  Scene s;
  const int ground = s.add_mesh(ground_grid(8), GeomType::TriangleMesh);
  const Vec3 h(0.2, 0.3, 0.1);
  for (const GeomType type : {GeomType::Box, GeomType::ConvexMesh}) {
    const int box = type == GeomType::Box ? s.add(type, h) : s.add_mesh(tessellate_box(h), type);
    const Pose X = at(Vec3(0.1, -0.05, 0.095), Vec3(0.02, -0.01, 0.3));  // a slight tilt, then 0.3 rad about z
    const ContactSet c = collide_trimesh(s.model, ground, Pose::Identity(), box, X, 0.0);
    ASSERT_GE(c.points.size(), 3u);  // the tilt lifts one corner out of the ground
    ASSERT_LE(c.points.size(), static_cast<size_t>(kMaxManifoldPoints));
    const Vec3 n_bottom = -X.R().col(2);
    const Vec3 bottom_centre = X * Vec3(0, 0, -h.z());
    double deepest = 0.0;
    for (const ContactPoint& p : c.points) {
      EXPECT_LT((p.normal - Vec3::UnitZ()).norm(), 1e-12);
      EXPECT_NEAR(p.point_a.z(), 0.0, 1e-12);                              // on the ground
      EXPECT_NEAR(n_bottom.dot(p.point_b - bottom_centre), 0.0, 1e-9);     // on the box's bottom face
      const Vec3 local = X.inverse() * p.point_b;
      EXPECT_LE(std::abs(local.x()), h.x() + 1e-9);
      EXPECT_LE(std::abs(local.y()), h.y() + 1e-9);
      expect_consistent(p);
      deepest = std::max(deepest, p.depth);
    }
    // The deepest box corner, computed directly.
    double lowest = kInf;
    for (int i = 0; i < 8; ++i) lowest = std::min(lowest, (X * Vec3(i & 1 ? h.x() : -h.x(), i & 2 ? h.y() : -h.y(), i & 4 ? h.z() : -h.z())).z());
    EXPECT_NEAR(deepest, -lowest, 1e-9);
  }
}

TEST(MeshCollide, LyingCapsuleTouchesAtBothEnds) {
  Scene s;
  const int ground = s.add_mesh(ground_grid(8), GeomType::TriangleMesh);
  const int cap = s.add(GeomType::Capsule, Vec3(0.05, 0.2, 0));
  const Pose X = at(Vec3(0.03, 0.11, 0.04), Vec3(0, std::numbers::pi / 2, 0));  // axis along x
  const ContactSet c = collide_trimesh(s.model, ground, Pose::Identity(), cap, X, 0.0);
  // Both ends, and possibly points between them (triangles that do not reach an end).
  ASSERT_GE(c.points.size(), 2u);
  int ends = 0;
  for (const ContactPoint& p : c.points) {
    EXPECT_NEAR(p.depth, 0.01, 1e-12);
    EXPECT_LT((p.normal - Vec3::UnitZ()).norm(), 1e-12);
    EXPECT_NEAR(p.point_a.y(), 0.11, 1e-12);
    EXPECT_LE(std::abs(p.point_a.x() - 0.03), 0.2 + 1e-12);
    if (std::abs(std::abs(p.point_a.x() - 0.03) - 0.2) < 1e-12) ++ends;
    expect_consistent(p);
  }
  EXPECT_EQ(ends, 2);
}

TEST(MeshCollide, StandingCylinderTouchesOnItsRim) {
  Scene s;
  const int ground = s.add_mesh(ground_grid(8), GeomType::TriangleMesh);
  const int cyl = s.add(GeomType::Cylinder, Vec3(0.1, 0.2, 0));
  const ContactSet c = collide_trimesh(s.model, ground, Pose::Identity(), cyl, at(Vec3(0.02, 0.01, 0.19)), 0.0);
  ASSERT_GE(c.points.size(), 3u);
  for (const ContactPoint& p : c.points) {
    EXPECT_NEAR(p.depth, 0.01, 1e-12);
    EXPECT_LE((p.point_b - Vec3(0.02, 0.01, -0.01)).norm(), 0.1 + 1e-12);
    expect_consistent(p);
  }
}

TEST(MeshCollide, PlaneAgainstMeshUsesVerticesBelowIt) {
  Scene s;
  const int plane = s.add(GeomType::Plane, Vec3::Zero());
  const int box = s.add_mesh(tessellate_box(Vec3(0.5, 0.5, 0.5)), GeomType::TriangleMesh);
  const ContactSet c = collide_trimesh(s.model, plane, Pose::Identity(), box, at(Vec3(0, 0, 0.45), Vec3(0, 0, 0.4)), 0.0);
  ASSERT_EQ(c.points.size(), 4u);
  for (const ContactPoint& p : c.points) {
    EXPECT_NEAR(p.depth, 0.05, 1e-12);
    EXPECT_LT((p.normal - Vec3::UnitZ()).norm(), 1e-12);  // from the plane (A) to the mesh (B)
    expect_consistent(p);
  }
}

TEST(MeshCollide, MeshAgainstMeshFaceToFace) {
  Scene s;
  const int a = s.add_mesh(tessellate_box(Vec3(0.5, 0.5, 0.5)), GeomType::TriangleMesh);
  const int b = s.add_mesh(tessellate_box(Vec3(0.3, 0.3, 0.3)), GeomType::TriangleMesh);
  const ContactSet c = collide_trimesh(s.model, a, Pose::Identity(), b, at(Vec3(0.1, -0.05, 0.78), Vec3(0, 0, 0.3)), 0.0);
  ASSERT_GE(c.points.size(), 4u);
  for (const ContactPoint& p : c.points) {
    EXPECT_NEAR(p.depth, 0.02, 1e-9);
    EXPECT_LT((p.normal - Vec3::UnitZ()).norm(), 1e-12);
    expect_consistent(p);
  }
  // With a precomputed cache the answer is the same.
  const BvhCache cache(s.model);
  const ContactSet d = collide_trimesh(s.model, cache, a, Pose::Identity(), b, at(Vec3(0.1, -0.05, 0.78), Vec3(0, 0, 0.3)), 0.0);
  EXPECT_EQ(d.points.size(), c.points.size());
}

TEST(MeshCollide, BoxEdgeIntoMeshFaceGivesTheEdgeEnds) {
  Scene s;
  const int table = s.add_mesh(tessellate_box(Vec3(0.5, 0.5, 0.5)), GeomType::TriangleMesh);
  const int box = s.add(GeomType::Box, Vec3(0.2, 0.1, 0.1));
  // Rotated 45° about x: the lowest edge runs along x at z = centre − 0.1·√2.
  const double zc = 0.5 + 0.1 * std::sqrt(2.0) - 0.01;
  const ContactSet c = collide_trimesh(s.model, table, Pose::Identity(), box,
                                       at(Vec3(0.05, 0.1, zc), Vec3(std::numbers::pi / 4, 0, 0)), 0.0);
  // Both ends, plus where the edge crosses the diagonal between the face's two triangles.
  ASSERT_GE(c.points.size(), 2u);
  int ends = 0;
  for (const ContactPoint& p : c.points) {
    EXPECT_NEAR(p.depth, 0.01, 1e-9);
    EXPECT_LT((p.normal - Vec3::UnitZ()).norm(), 1e-9);
    EXPECT_LE(std::abs(p.point_b.x() - 0.05), 0.2 + 1e-9);
    if (std::abs(std::abs(p.point_b.x() - 0.05) - 0.2) < 1e-9) ++ends;
    EXPECT_NEAR(p.point_b.y(), 0.1, 1e-9);
    expect_consistent(p);
  }
  EXPECT_EQ(ends, 2);
}

TEST(MeshCollide, MarginReportsNearPointsWithNegativeDepth) {
  Scene s;
  const int ground = s.add_mesh(ground_grid(4), GeomType::TriangleMesh);
  const int box = s.add(GeomType::Box, Vec3(0.2, 0.2, 0.1));
  const Pose X = at(Vec3(0.1, 0.1, 0.105));  // 5 mm above the ground
  EXPECT_TRUE(collide_trimesh(s.model, ground, Pose::Identity(), box, X, 0.0).points.empty());
  const ContactSet c = collide_trimesh(s.model, ground, Pose::Identity(), box, X, 0.01);
  ASSERT_GE(c.points.size(), 4u);  // corners, grid vertices under the face, crossings
  for (const ContactPoint& p : c.points) {
    EXPECT_NEAR(p.depth, -0.005, 1e-12);
    EXPECT_LE((p.point_b.head<2>() - Vec2(0.1, 0.1)).cwiseAbs().maxCoeff(), 0.2 + 1e-12);
    expect_consistent(p);
  }
}

TEST(MeshCollide, MeshMeshOrderFlipsTheNormal) {
  Scene s;
  const int a = s.add_mesh(tessellate_box(Vec3(0.5, 0.5, 0.5)), GeomType::TriangleMesh);
  const int b = s.add_mesh(tessellate_sphere(0.2, 24), GeomType::TriangleMesh);
  const Pose X_B = at(Vec3(0.05, 0.02, 0.69));  // sphere's lowest vertex 0.01 below the top face
  const ContactSet ab = collide_trimesh(s.model, a, Pose::Identity(), b, X_B, 0.0);
  const ContactSet ba = collide_trimesh(s.model, b, X_B, a, Pose::Identity(), 0.0);
  ASSERT_FALSE(ab.points.empty());
  ASSERT_EQ(ab.points.size(), ba.points.size());
  double deepest = 0.0;
  for (size_t i = 0; i < ab.points.size(); ++i) {
    EXPECT_LT((ab.points[i].normal - Vec3::UnitZ()).norm(), 1e-9);
    EXPECT_LT((ba.points[i].normal + Vec3::UnitZ()).norm(), 1e-9);
    deepest = std::max(deepest, ab.points[i].depth);
  }
  EXPECT_NEAR(deepest, 0.01, 1e-9);
}

TEST(MeshCollide, ManifoldReductionKeepsDeepestAndSpreads) {
  std::vector<ContactPoint> pts;
  for (int i = 0; i < 20; ++i) {
    ContactPoint p;
    p.position = Vec3(i * 0.1, 0, 0);
    p.depth = i == 7 ? 0.5 : 0.1;
    pts.push_back(p);
  }
  const auto kept = reduce_manifold(pts, 3, 1e-6);
  ASSERT_EQ(kept.size(), 3u);
  EXPECT_EQ(kept[0].depth, 0.5);
  EXPECT_NEAR(kept[1].position.x(), 1.9, 1e-12);  // farthest from x = 0.7
  EXPECT_NEAR(kept[2].position.x(), 0.0, 1e-12);
}

TEST(MeshCollide, ManifoldReductionKeepsAFlatBasesCornersOverTheRimAboveIt) {
  // A rounded base (as in Narrowphase.RoundedBaseOnPlaneKeepsTheFlatBasesCorners): a flat
  // 34 mm square touching, and the first ring of its rounded edges 3 mm farther out and
  // 0.6 mm up. Of four points, farthest-first alone keeps one corner and three ring points.
  std::vector<ContactPoint> pts;
  auto add = [&](double x, double y, double up) {
    ContactPoint p;
    p.position = Vec3(x, y, up);
    p.depth = -up;
    pts.push_back(p);
  };
  for (double sx : {-1.0, 1.0})
    for (double sy : {-1.0, 1.0}) {
      add(0.017 * sx, 0.017 * sy, 0.0);
      add(0.0200 * sx, 0.017 * sy, 0.0006);
      add(0.017 * sx, 0.0200 * sy, 0.0006);
      add(0.0192 * sx, 0.0192 * sy, 0.0006);
    }
  const auto kept = reduce_manifold(pts, 4, 1e-6);
  ASSERT_EQ(kept.size(), 4u);
  int corners = 0;
  for (const ContactPoint& c : kept) corners += c.depth == 0.0;
  EXPECT_EQ(corners, 4);
}

TEST(MeshCollide, RequiresATriangleMesh) {
  Scene s;
  const int a = s.add(GeomType::Sphere, Vec3(1, 0, 0));
  EXPECT_THROW(collide_trimesh(s.model, a, Pose::Identity(), a, Pose::Identity(), 0.0), InputError);
}

}  // namespace
}  // namespace graspsim

namespace graspsim {
namespace {

std::vector<ContactPoint> points_at(const std::vector<Vec3>& at, double depth_of_first) {
  std::vector<ContactPoint> out;
  for (size_t i = 0; i < at.size(); ++i) {
    ContactPoint p;
    p.position = p.point_a = p.point_b = at[i];
    p.depth = i == 0 ? depth_of_first : 0.0;
    out.push_back(p);
  }
  return out;
}

TEST(ReduceToSupport, LineContactKeepsItsEnds) {
  // Four collinear points (a pad along a cylinder's side): the two ends span the line.
  const auto kept = reduce_to_support(
      points_at({Vec3(0.01, 0, 0), Vec3(0, 0, 0), Vec3(0.03, 0, 0), Vec3(0.02, 0, 0)}, 1e-4), 4, 1e-4, 0.02);
  ASSERT_EQ(kept.size(), 2u);  // the deepest (0.01) lies between them: dropped
  EXPECT_EQ(kept[0].position, Vec3(0.03, 0, 0));
  EXPECT_EQ(kept[1].position, Vec3(0, 0, 0));
}

TEST(ReduceToSupport, OctagonKeepsFourCornersAroundItsCentre) {
  // A flat base's eight rim points: four are kept, and they surround the centre (a standing
  // object needs its support polygon around the centre of mass).
  std::vector<Vec3> rim;
  for (int i = 0; i < 8; ++i) rim.emplace_back(std::cos(i * std::numbers::pi / 4), std::sin(i * std::numbers::pi / 4), 0);
  const auto kept = reduce_to_support(points_at(rim, 1e-4), 4, 1e-3, 0.02);
  ASSERT_EQ(kept.size(), 4u);
  Vec3 sum = Vec3::Zero();
  for (const ContactPoint& p : kept) sum += p.position;
  EXPECT_LT(sum.norm(), 1e-12);  // opposite pairs: a square
}

TEST(ReduceToSupport, NarrowPatchWithinSpacingKeepsTwo) {
  // A 20 x 3.9 mm rectangle with 5 mm spacing: its long diagonal only.
  const auto kept = reduce_to_support(
      points_at({Vec3(0, 0, 0), Vec3(0.02, 0, 0), Vec3(0, 0.0039, 0), Vec3(0.02, 0.0039, 0)}, 1e-4), 4, 0.005, 0.02);
  ASSERT_EQ(kept.size(), 2u);
  EXPECT_NEAR((kept[1].position - kept[0].position).norm(), std::hypot(0.02, 0.0039), 1e-15);
}

TEST(ReduceToSupport, FlatBaseIsSpannedByItsCornersNotByTheRimAboveIt) {
  // A rounded box on a table: its flat base's corners touch (gap 0); its rounded rim's
  // points lie 3 mm farther out and 0.6 mm up. Keeping the rim instead of the corners lets
  // the base tilt 0.0165 rad and sink a corner 0.6 mm in one step (the 3D pick did).
  std::vector<ContactPoint> points;
  for (double sx : {-1.0, 1.0})
    for (double sy : {-1.0, 1.0}) {
      ContactPoint corner, rim;
      corner.position = Vec3(0.017 * sx, 0.017 * sy, 0);
      rim.position = Vec3(0.0198 * sx, 0.0198 * sy, 0.0003);
      rim.depth = -0.0006;
      points.push_back(rim);
      points.push_back(corner);
    }
  const auto kept = reduce_to_support(points, 4, 0.005, 0.02);
  ASSERT_EQ(kept.size(), 4u);
  for (const ContactPoint& p : kept) EXPECT_EQ(p.depth, 0.0) << p.position.transpose();
  // Planned for tilts up to 0.5 rad, the rim's 0.6 mm counts 1.2 mm against its 4 mm gain
  // along the diagonal: rim points are kept.
  const auto wide = reduce_to_support(points, 4, 0.001, 0.5);
  EXPECT_GE(std::count_if(wide.begin(), wide.end(), [](const ContactPoint& p) { return p.depth < 0; }), 1);
}

}  // namespace
}  // namespace graspsim
