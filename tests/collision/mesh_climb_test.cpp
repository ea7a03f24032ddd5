// The climb index (with_climb_index) must not change an answer: support vertices, supporting
// features and boxes of an indexed mesh are the scan's, on hulls, on a non-convex mesh
// collided as convex, and in the tie cases (directions normal to a face of many vertices).

#include <gtest/gtest.h>

#include <random>

#include "collision/broadphase.h"
#include "collision/mesh_io.h"
#include "collision/mesh_tools.h"
#include "collision/shapes.h"
#include "collision/tessellate.h"
#include "mesh_test_shapes.h"
#include "model/builder.h"
#include "model/mass_properties.h"

namespace graspsim {
namespace {

std::shared_ptr<const Mesh> shadow_fingertip() {
  const auto raw = load_mesh(std::string(GRASPSIM_SHARED_DIR) + "/data/models/shadow_hand/assets/f_distal_pst.obj",
                             "f_distal_pst", Vec3::Constant(1e-3));
  return std::make_shared<const Mesh>(convex_hull(raw->vertices, "f_distal_pst:hull"));
}

// Unit directions: random ones, the axes, and every face's normal (the tie cases: a face's
// vertices are equally far along it).
std::vector<Vec3> directions(const Mesh& mesh) {
  std::mt19937_64 rng(3);
  std::normal_distribution<double> g;
  std::vector<Vec3> d;
  for (int i = 0; i < 2000; ++i) d.push_back(Vec3(g(rng), g(rng), g(rng)).normalized());
  for (int k = 0; k < 3; ++k) d.push_back(Vec3::Unit(k)), d.push_back(-Vec3::Unit(k));
  for (const auto& f : mesh.faces) {
    const Vec3 n = (mesh.vertices[f[1]] - mesh.vertices[f[0]]).cross(mesh.vertices[f[2]] - mesh.vertices[f[0]]);
    if (n.norm() > 0) d.push_back(n.normalized());
  }
  return d;
}

void expect_same_answers(const std::shared_ptr<const Mesh>& plain) {
  const auto indexed = with_climb_index(plain);
  ASSERT_TRUE(indexed->climb) << plain->name;
  ASSERT_FALSE(plain->climb);
  const Pose X{Vec3(0.1, -0.2, 0.3), Quat(Eigen::AngleAxisd(0.7, Vec3(1, 2, 3).normalized()))};
  const ConvexShape a = make_shape(GeomType::ConvexMesh, Vec3::Zero(), X, plain.get());
  const ConvexShape b = make_shape(GeomType::ConvexMesh, Vec3::Zero(), X, indexed.get());
  int faces = 0, hint = -1;
  for (const Vec3& d : directions(*plain)) {
    const int scanned = hull_support_index(*plain, d);
    ASSERT_EQ(scanned, hull_support_index(*indexed, d)) << plain->name << " along " << d.transpose();
    // From wherever the last climb ended, as GJK's successive queries start.
    ASSERT_EQ(scanned, hull_support_index(*indexed, d, &hint)) << plain->name << " along " << d.transpose();
    SupportFeature fa, fb;
    supporting_feature(a, d, fa);
    supporting_feature(b, d, fb);
    ASSERT_EQ(fa.id, fb.id);
    ASSERT_EQ(fa.is_face, fb.is_face);
    ASSERT_EQ(fa.poly.n, fb.poly.n);
    for (int k = 0; k < fa.poly.n; ++k) {
      ASSERT_EQ(fa.poly.v[k].tag, fb.poly.v[k].tag);
      ASSERT_EQ(fa.poly.v[k].p, fb.poly.v[k].p);  // bit for bit
    }
    faces += fa.is_face;
  }
  EXPECT_GT(faces, 0);
}

TEST(MeshClimb, HandHullAnswersAsTheScan) {
  const auto hull = shadow_fingertip();
  EXPECT_GT(hull->vertices.size(), 1000u);  // why it matters: 1 065 vertices, every GJK support scanned them all
  expect_same_answers(hull);
  EXPECT_TRUE(with_climb_index(hull)->climb->own_hull);
}

TEST(MeshClimb, NonConvexMeshClimbsItsHull) {
  // The bunny collided as convex (scenes/robots/shadow_bunny.yaml): its support is its
  // hull's, and its faces are not the hull's, so coplanar patches are not walked.
  const std::shared_ptr<const Mesh> bunny = load_mesh(test::bunny_path(), "bunny", Vec3::Ones());
  expect_same_answers(bunny);
  EXPECT_FALSE(with_climb_index(bunny)->climb->own_hull);
}

// A model of one free body with one convex_mesh geom on `mesh` (density 1000).
std::shared_ptr<const Model> one_mesh_body(const std::shared_ptr<const Mesh>& mesh) {
  ModelBuilder builder;
  builder.add_mesh(mesh);
  BodyDef body;
  body.name = "object";
  builder.add_body(body);
  GeomDef g;
  g.body = "object";
  g.type = GeomType::ConvexMesh;
  g.mesh = mesh->name;
  builder.add_geom(g);
  return builder.build();
}

TEST(MeshClimb, NonConvexMeshCollidesAsItsHull) {
  // Faces of the bunny at its support vertex are not the hull's (a dent, or a face across
  // one), so its geom collides as its hull (Mesh::hull): every supporting face found is a
  // supporting plane of the whole bunny, and its polygon is found without a scan of the
  // bunny. Its mass stays the bunny's.
  const std::shared_ptr<const Mesh> bunny = load_mesh(test::bunny_path(), "bunny", Vec3::Constant(0.035));
  const auto indexed = with_climb_index(bunny);
  ASSERT_TRUE(indexed->hull);
  const Mesh& hull = *indexed->hull;
  ASSERT_TRUE(hull.climb);
  EXPECT_TRUE(hull.climb->own_hull);
  EXPECT_LT(hull.vertices.size(), bunny->vertices.size() / 2);
  const auto model = one_mesh_body(indexed);
  EXPECT_EQ(model->bodies[1].mass, mesh_mass_properties(*bunny, 1000.0).mass);
  EXPECT_LT(model->bodies[1].mass, mesh_mass_properties(hull, 1000.0).mass);  // (the hull is larger)

  const Pose X{Vec3(0.1, -0.2, 0.3), Quat(Eigen::AngleAxisd(0.7, Vec3(1, 2, 3).normalized()))};
  const ConvexShape s = make_shape(*model, 0, X);
  EXPECT_EQ(s.mesh, &hull);
  const double tol = 1e-12;  // metres: a few ulps of 0.3 m
  int faces = 0;
  for (const Vec3& d : directions(hull)) {
    double extreme = -kInf;
    for (const Vec3& v : bunny->vertices) extreme = std::max(extreme, d.dot(X * v));
    EXPECT_NEAR(d.dot(support(s, d)), extreme, tol);
    SupportFeature f;
    supporting_feature(s, d, f);
    ASSERT_GT(f.poly.n, 0);
    if (!f.is_face) continue;
    ++faces;
    const double offset = f.normal.dot(f.poly.v[0].p);
    double beyond = -kInf;
    for (const Vec3& v : bunny->vertices) beyond = std::max(beyond, f.normal.dot(X * v) - offset);
    ASSERT_LT(beyond, tol) << "a face along " << d.transpose() << " that the bunny crosses";
  }
  EXPECT_GT(faces, 100);
}

TEST(MeshClimb, ConvexMeshesCollideAsThemselves) {
  // Their own hull: no second mesh (and the small non-convex L prism gets one, unindexed).
  EXPECT_FALSE(with_climb_index(shadow_fingertip())->hull);
  EXPECT_FALSE(with_climb_index(std::make_shared<const Mesh>(tessellate_cylinder(0.05, 0.1, 48)))->hull);
  const auto rounded_box = load_mesh(std::string(GRASPSIM_SOURCE_DIR) + "/scenes/quasistatic/meshes/rounded_box.obj",
                                     "rounded_box", Vec3::Ones());
  EXPECT_FALSE(with_climb_index(rounded_box)->hull);
  const auto l = with_climb_index(std::make_shared<const Mesh>(test::l_prism()));
  ASSERT_TRUE(l->hull);
  EXPECT_FALSE(l->climb);
  EXPECT_EQ(l->hull->vertices.size(), 10u);  // the reflex corner's two vertices are inside
}

TEST(MeshClimb, FacesOfManyVerticesTieAsTheScanBreaksThem) {
  // A cylinder's caps: 48 vertices equally far along its axis; the scan returns the lowest.
  expect_same_answers(std::make_shared<const Mesh>(tessellate_cylinder(0.05, 0.1, 48)));
  expect_same_answers(std::make_shared<const Mesh>(tessellate_sphere(0.05, 12)));
}

TEST(MeshClimb, SmallOrFlatMeshesKeepTheScan) {
  EXPECT_FALSE(with_climb_index(std::make_shared<const Mesh>(tessellate_box(Vec3(1, 2, 3))))->climb);
  Mesh flat;  // 40 points on a circle: no hull volume
  flat.name = "flat";
  for (int i = 0; i < 40; ++i) flat.vertices.emplace_back(std::cos(0.157 * i), std::sin(0.157 * i), 0.0);
  EXPECT_FALSE(with_climb_index(std::make_shared<const Mesh>(flat))->climb);
}

TEST(MeshClimb, HullBoxIsThePointsBox) {
  const auto hull = with_climb_index(shadow_fingertip());
  const auto model = one_mesh_body(hull);
  std::mt19937_64 rng(5);
  std::normal_distribution<double> n;
  for (int i = 0; i < 200; ++i) {
    const Pose X{Vec3(n(rng), n(rng), n(rng)), Quat(n(rng), n(rng), n(rng), n(rng)).normalized()};
    const Aabb climbed = geom_aabb(*model, 0, X), scanned = points_aabb(hull->vertices, X);
    // The same extreme vertex, its coordinate summed in another order: within a few ulps.
    EXPECT_LT((climbed.lo - scanned.lo).cwiseAbs().maxCoeff(), 1e-15 * (1 + X.p.norm()));
    EXPECT_LT((climbed.hi - scanned.hi).cwiseAbs().maxCoeff(), 1e-15 * (1 + X.p.norm()));
  }
}

}  // namespace
}  // namespace graspsim
