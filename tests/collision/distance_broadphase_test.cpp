// Signed distance against closed forms, and the broadphase against brute force.

#include <gtest/gtest.h>

#include <array>

#include <algorithm>

#include "collision/broadphase.h"
#include "collision/distance.h"
#include "collision_test_util.h"

namespace graspsim {
namespace {

using testing::pose;
constexpr double kTol = 1e-9;  // GJK stops at 1e-10 relative gap: round-off level here

double dist(GeomType ta, const Vec3& sa, const Pose& xa, GeomType tb, const Vec3& sb, const Pose& xb,
            DistanceResult* res = nullptr) {
  DistanceResult r;
  EXPECT_TRUE(signed_distance_shapes(make_shape(ta, sa, xa), make_shape(tb, sb, xb), 10.0, r));
  if (res) *res = r;
  return r.distance;
}

TEST(SignedDistance, SeparatedPairsMatchClosedForms) {
  std::mt19937_64 rng(21);
  for (int k = 0; k < 50; ++k) {
    const Vec3 dir = testing::random_vec(rng, -1, 1).normalized();
    const double d = 0.6 + k * 0.01;
    DistanceResult r;
    EXPECT_NEAR(dist(GeomType::Sphere, {0.2, 0, 0}, pose(Vec3::Zero()), GeomType::Sphere, {0.3, 0, 0}, pose(d * dir), &r),
                d - 0.5, kTol);
    EXPECT_LT((r.normal - dir).norm(), kTol);
    // Sphere against a box: distance from the centre to the box minus r.
    const Pose xb{testing::random_vec(rng, -1, 1), testing::random_quat(rng)};
    const Vec3 local = testing::random_vec(rng, -1.5, 1.5), h(0.3, 0.4, 0.5);
    const double to_box = (local - local.cwiseMax(-h).cwiseMin(h)).norm();
    if (to_box > 0.15) {
      EXPECT_NEAR(dist(GeomType::Sphere, {0.1, 0, 0}, pose(xb * local), GeomType::Box, h, xb), to_box - 0.1, kTol);
    }
    // Boxes apart along x by a gap g, each turned about x: distance g (GJK path).
    const double gap = 0.01 + 0.02 * k;
    const Quat qa(Eigen::AngleAxisd(0.1 * k, Vec3::UnitX())), qb(Eigen::AngleAxisd(-0.07 * k, Vec3::UnitX()));
    EXPECT_NEAR(dist(GeomType::Box, {0.3, 0.2, 0.1}, pose(Vec3::Zero(), qa), GeomType::Box, {0.25, 0.2, 0.2},
                     pose(Vec3(0.55 + gap, 0.05, 0), qb), &r),
                gap, 1e-8);
    EXPECT_LT((r.normal - Vec3::UnitX()).norm(), 1e-6);
  }
}

TEST(SignedDistance, PenetratingAndOutOfRange) {
  EXPECT_NEAR(dist(GeomType::Box, {1, 1, 1}, pose(Vec3::Zero()), GeomType::Box, {0.5, 0.5, 0.5}, pose(Vec3(0, 0, 1.4))),
              -0.1, kTol);
  EXPECT_NEAR(dist(GeomType::Plane, {}, pose(Vec3::Zero()), GeomType::Capsule, {0.1, 0.5, 0}, pose(Vec3(0, 0, 0.7))),
              0.1, kTol);
  DistanceResult r;
  EXPECT_FALSE(signed_distance_shapes(make_shape(GeomType::Sphere, {0.1, 0, 0}, pose(Vec3::Zero())),
                                      make_shape(GeomType::Box, {0.1, 0.1, 0.1}, pose(Vec3(1, 0, 0))), 0.5, r));
}

// A scene of free bodies with random geoms, a ground plane and a static box.
Model random_scene(std::mt19937_64& rng, int nbody, std::vector<Pose>& poses, std::shared_ptr<Mesh> hull) {
  Model m = testing::free_bodies_model(nbody);
  m.meshes.push_back(hull);
  testing::add_geom(m, GeomType::Plane, Vec3::Zero(), 0);
  poses.push_back(pose(Vec3::Zero()));
  testing::add_geom(m, GeomType::Box, Vec3(0.5, 0.5, 0.5), 0);
  poses.push_back(pose(Vec3(1, 1, 0.5)));
  const GeomType types[] = {GeomType::Sphere, GeomType::Box, GeomType::Capsule, GeomType::Cylinder, GeomType::ConvexMesh};
  for (int i = 0; i < 2 * nbody; ++i) {
    const GeomType t = types[i % 5];
    testing::add_geom(m, t, Vec3(0.1, 0.15, 0.2), 1 + i % nbody, t == GeomType::ConvexMesh ? 0 : -1);
    poses.push_back(pose(testing::random_vec(rng, -1.5, 1.5) + Vec3(0, 0, 0.5), testing::random_quat(rng)));
  }
  return m;
}

// Every geom's box, grown by `margin`.
std::vector<Aabb> boxes_of(const Model& m, const std::vector<Pose>& poses, double margin) {
  std::vector<Aabb> boxes;
  for (int g = 0; g < m.ngeom(); ++g) {
    Aabb b = geom_aabb(m, g, poses[g]);
    b.lo.array() -= margin, b.hi.array() += margin;
    boxes.push_back(b);
  }
  return boxes;
}

std::vector<std::pair<int, int>> brute_force(const Model& m, const std::vector<Pose>& poses, double margin) {
  const std::vector<Aabb> boxes = boxes_of(m, poses, margin);
  std::vector<std::pair<int, int>> pairs;
  for (int a = 0; a < m.ngeom(); ++a)
    for (int b = a + 1; b < m.ngeom(); ++b)
      if (boxes[a].overlaps(boxes[b]) && geoms_may_collide(m, a, b)) pairs.emplace_back(a, b);
  return pairs;
}

TEST(Broadphase, FindsExactlyTheBruteForcePairs) {
  std::mt19937_64 rng(31);
  const auto hull = testing::sphere_points_hull(20, 0.15, 5);
  for (int scene = 0; scene < 20; ++scene) {
    std::vector<Pose> poses;
    Model m = random_scene(rng, 30, poses, hull);
    if (scene % 2) {  // filters: groups, an exclusion, a child body
      m.geoms[5].group = 2, m.geoms[5].mask = 2;
      m.excluded_body_pairs.emplace_back(1, 2);
    }
    CollideOptions opt;
    opt.margin = 0.01;
    Broadphase bp;
    const auto expected = brute_force(m, poses, opt.margin);
    EXPECT_EQ(bp.find_pairs(m, boxes_of(m, poses, opt.margin)), expected);
    EXPECT_FALSE(expected.empty());
    // The driver returns only touching pairs, sorted, a < b, with points.
    std::vector<ContactSet> out;
    collide(m, poses, opt, bp, out);
    for (size_t i = 0; i < out.size(); ++i) {
      EXPECT_LT(out[i].geom_a, out[i].geom_b);
      EXPECT_FALSE(out[i].points.empty());
      EXPECT_TRUE(std::binary_search(expected.begin(), expected.end(), std::make_pair(out[i].geom_a, out[i].geom_b)));
      if (i) {
        EXPECT_LT(std::make_pair(out[i - 1].geom_a, out[i - 1].geom_b), std::make_pair(out[i].geom_a, out[i].geom_b));
      }
    }
  }
}

// collide() skips a pair while it stays apart along the direction that showed it apart
// last call (Broadphase::pair_axes): over a random drift that brings geoms of every convex
// type into contact and out of it, the contacts are those of a broadphase without that
// memory, bit for bit, and every kept direction does separate its pair by more than the
// margin (A to B).
TEST(Broadphase, KeptSeparatingAxesChangeNoContact) {
  std::mt19937_64 rng(43);
  const auto hull = testing::sphere_points_hull(60, 0.15, 7);
  std::vector<Pose> poses;
  Model m = random_scene(rng, 12, poses, hull);
  CollideOptions opt;
  opt.margin = 0.01;
  Broadphase kept;
  std::vector<ContactSet> out, fresh_out;
  size_t remembered = 0, touching = 0;
  for (int step = 0; step < 120; ++step) {
    for (size_t g = 2; g < poses.size(); ++g) {  // drift towards the middle, turning
      poses[g].p += 0.03 * (Vec3(0, 0, 0.5) - poses[g].p) + testing::random_vec(rng, -0.01, 0.01);
      poses[g].q = (poses[g].q * Quat(Eigen::AngleAxisd(0.05, testing::random_vec(rng, -1, 1).normalized()))).normalized();
    }
    remembered += kept.pair_axes.size();
    collide(m, poses, opt, kept, out);
    Broadphase fresh;
    collide(m, poses, opt, fresh, fresh_out);
    ASSERT_EQ(out.size(), fresh_out.size()) << "step " << step;
    touching += out.size();
    for (size_t i = 0; i < out.size(); ++i) {
      EXPECT_EQ(out[i].geom_a, fresh_out[i].geom_a);
      EXPECT_EQ(out[i].geom_b, fresh_out[i].geom_b);
      ASSERT_EQ(out[i].points.size(), fresh_out[i].points.size());
      for (size_t k = 0; k < out[i].points.size(); ++k) {
        const ContactPoint &p = out[i].points[k], &q = fresh_out[i].points[k];
        EXPECT_EQ(p.position, q.position);
        EXPECT_EQ(p.normal, q.normal);
        EXPECT_EQ(p.depth, q.depth);
        EXPECT_EQ(p.feature, q.feature);
      }
    }
    for (const Broadphase::PairAxis& k : kept.pair_axes) {
      const int a = static_cast<int>(k.pair >> 32), b = static_cast<int>(k.pair & 0xffffffffu);
      const ConvexShape sa = make_shape(m, a, poses[a]), sb = make_shape(m, b, poses[b]);
      EXPECT_NEAR(k.axis.norm(), 1.0, 1e-12);
      EXPECT_GT(support(sb, -k.axis).dot(k.axis) - support(sa, k.axis).dot(k.axis), opt.margin);
    }
  }
  EXPECT_GT(remembered, 200u);  // the memory was used
  EXPECT_GT(touching, 100u);    // and pairs touched
}

// With frozen bodies the sweep starts only from geoms that move (and looks back from them):
// the pairs are still exactly the brute force's less the frozen ones, whatever share moves,
// a kinematic body flagged fixed (1) among them, the plane's box unbounded in x.
TEST(Broadphase, FrozenBodiesLeaveOutTheirPairsAndNoOther) {
  std::mt19937_64 rng(37);
  const auto hull = testing::sphere_points_hull(20, 0.15, 5);
  for (int scene = 0; scene < 16; ++scene) {
    std::vector<Pose> poses;
    Model m = random_scene(rng, 30, poses, hull);
    m.bodies[3].kinematic = true;
    std::vector<char> frozen(static_cast<size_t>(m.nbody()), 0);
    frozen[0] = 1;
    const double moving = std::array{0.0, 0.1, 0.5, 1.0}[scene % 4];
    std::bernoulli_distribution moves(moving);
    for (int b = 1; b < m.nbody(); ++b) frozen[b] = b == 3 ? 1 : moves(rng) ? 0 : 2;
    std::vector<std::pair<int, int>> expected;
    for (const auto& [a, b] : brute_force(m, poses, 0.0))
      if (!frozen_pair(frozen[m.geoms[a].body], frozen[m.geoms[b].body])) expected.emplace_back(a, b);
    Broadphase bp;
    EXPECT_EQ(bp.find_pairs(m, boxes_of(m, poses, 0.0), &frozen), expected) << "scene " << scene;
    if (moving > 0) {
      EXPECT_FALSE(expected.empty());
    }
  }
}

TEST(Broadphase, HonoursFilters) {
  Model m = testing::free_bodies_model(3);
  m.bodies[3].parent = 2;  // body 3 hangs from body 2
  const int plane = testing::add_geom(m, GeomType::Plane, Vec3::Zero(), 0);
  const int ground_box = testing::add_geom(m, GeomType::Box, Vec3::Ones(), 0);
  const int a = testing::add_geom(m, GeomType::Sphere, Vec3(1, 0, 0), 1);
  const int a2 = testing::add_geom(m, GeomType::Sphere, Vec3(1, 0, 0), 1);
  const int b = testing::add_geom(m, GeomType::Sphere, Vec3(1, 0, 0), 2);
  const int c = testing::add_geom(m, GeomType::Sphere, Vec3(1, 0, 0), 3);
  EXPECT_FALSE(geoms_may_collide(m, plane, ground_box));  // both static
  EXPECT_FALSE(geoms_may_collide(m, a, a2));              // same body
  EXPECT_FALSE(geoms_may_collide(m, b, c));               // parent and child
  EXPECT_TRUE(geoms_may_collide(m, a, b));
  EXPECT_TRUE(geoms_may_collide(m, plane, a));
  m.geoms[a].group = 4;
  m.geoms[b].mask = ~4u;
  EXPECT_FALSE(geoms_may_collide(m, a, b));  // b's mask rejects a's group
  EXPECT_TRUE(geoms_may_collide(m, a, c));
  m.excluded_body_pairs.emplace_back(1, 3);
  EXPECT_FALSE(geoms_may_collide(m, a, c));
  // A kinematic body is moved by its signals, never by contact forces: against static
  // geometry or another kinematic body it needs no contacts; a free body under it does.
  m.geoms[b].mask = ~0u;
  m.bodies[1].kinematic = true;
  EXPECT_FALSE(geoms_may_collide(m, plane, a));
  EXPECT_TRUE(geoms_may_collide(m, a, b));
  m.bodies[2].kinematic = true;
  EXPECT_FALSE(geoms_may_collide(m, a, b));
  EXPECT_TRUE(geoms_may_collide(m, plane, c));  // body 3 hangs from kinematic body 2 on its own joint
}

TEST(Broadphase, AabbsBoundTheShapes) {
  std::mt19937_64 rng(41);
  const auto hull = testing::sphere_points_hull(30, 0.2, 6);
  Model m = testing::free_bodies_model(1);
  m.meshes.push_back(hull);
  const GeomType types[] = {GeomType::Sphere, GeomType::Box, GeomType::Capsule, GeomType::Cylinder, GeomType::ConvexMesh};
  for (GeomType t : types) testing::add_geom(m, t, Vec3(0.1, 0.2, 0.3), 1, t == GeomType::ConvexMesh ? 0 : -1);
  for (int k = 0; k < 100; ++k)
    for (int g = 0; g < m.ngeom(); ++g) {
      const Pose x{testing::random_vec(rng, -1, 1), testing::random_quat(rng)};
      const Aabb box = geom_aabb(m, g, x);
      const ConvexShape s = make_shape(m, g, x);
      // Tight: the support along each world axis touches the box face.
      for (int axis = 0; axis < 3; ++axis) {
        EXPECT_NEAR(support(s, Vec3::Unit(axis))[axis], box.hi[axis], 1e-12);
        EXPECT_NEAR(support(s, -Vec3::Unit(axis))[axis], box.lo[axis], 1e-12);
      }
    }
}

}  // namespace
}  // namespace graspsim
