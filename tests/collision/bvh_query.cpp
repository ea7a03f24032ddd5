#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "collision/bvh.h"
#include "collision/mesh_io.h"
#include "collision/tessellate.h"
#include "mesh_test_shapes.h"

namespace graspsim {
namespace {

TEST(Bvh, TriangleBoxSeparatingAxes) {
  const Obb unit{Vec3::Zero(), Mat3::Identity(), Vec3::Ones()};
  // Every vertex outside the box, yet the triangle cuts straight through it.
  EXPECT_TRUE(triangle_overlaps_box(Vec3(-5, -5, 0.2), Vec3(5, -5, 0.2), Vec3(0, 5, 0.2), unit));
  // Parallel to a face, just above it.
  EXPECT_FALSE(triangle_overlaps_box(Vec3(-5, -5, 1.01), Vec3(5, -5, 1.01), Vec3(0, 5, 1.01), unit));
  // In the plane x + y = c, which clears the box's (1, 1, z) edge only for c > 2.
  EXPECT_FALSE(triangle_overlaps_box(Vec3(2.1, 0, -3), Vec3(2.1, 0, 3), Vec3(0, 2.1, 0), unit));
  EXPECT_TRUE(triangle_overlaps_box(Vec3(1.9, 0, -3), Vec3(1.9, 0, 3), Vec3(0, 1.9, 0), unit));
  // Overlaps the box on all three box axes, separated only by its own normal (x + y = 2.8).
  EXPECT_FALSE(triangle_overlaps_box(Vec3(3.0, -0.2, 1.5), Vec3(-0.2, 3.0, 1.5), Vec3(3.0, -0.2, 0.3), unit));
}

TEST(Bvh, OrientedBoxQueriesMatchBruteForce) {
  const auto bunny = load_mesh(test::bunny_path(), "bunny", Vec3::Ones());
  const MeshBvh bvh(*bunny);
  EXPECT_EQ(bvh.triangle_count(), static_cast<int>(bunny->faces.size()));
  for (const Vec3& v : bunny->vertices) ASSERT_TRUE(bvh.bounds().contains(v));
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> u(-1.0, 1.0), s(0.01, 0.4);
  size_t total = 0;
  for (int q = 0; q < 200; ++q) {
    const Obb box{Vec3(u(rng), u(rng), u(rng)), quat_exp(3.0 * Vec3(u(rng), u(rng), u(rng))).toRotationMatrix(),
                  Vec3(s(rng), s(rng), s(rng))};
    std::vector<int> brute;
    for (int t = 0; t < static_cast<int>(bunny->faces.size()); ++t) {
      const auto& f = bunny->faces[t];
      if (triangle_overlaps_box(bunny->vertices[f[0]], bunny->vertices[f[1]], bunny->vertices[f[2]], box))
        brute.push_back(t);
    }
    ASSERT_EQ(triangles_overlapping(*bunny, bvh, box), brute) << "query " << q;
    total += brute.size();
    const BoundingBox aabb(box.centre - box.half, box.centre + box.half);
    std::vector<int> brute_aabb;
    for (int t = 0; t < bvh.triangle_count(); ++t)
      if (bvh.triangle_box(t).intersects(aabb)) brute_aabb.push_back(t);
    std::vector<int> got;
    bvh.query(aabb, got);
    std::sort(got.begin(), got.end());
    ASSERT_EQ(got, brute_aabb) << "query " << q;
  }
  EXPECT_GT(total, 1000u);  // the queries really hit the surface
}

TEST(Bvh, TreeTreePairsMatchBruteForce) {
  const Mesh a = tessellate_sphere(1.0, 20), b = tessellate_capsule(0.4, 0.8, 16);
  const MeshBvh ta(a), tb(b);
  const Pose X_ab{Vec3(0.9, 0.3, 0.2), quat_exp(Vec3(0.4, -0.3, 1.0))};
  std::vector<std::pair<int, int>> got, brute;
  ta.query(tb, X_ab, got);
  for (int i = 0; i < ta.triangle_count(); ++i)
    for (int j = 0; j < tb.triangle_count(); ++j) {
      const BoundingBox& bj = tb.triangle_box(j);
      if (boxes_may_overlap(ta.triangle_box(i), Obb{X_ab * bj.center(), X_ab.R(), bj.sizes() / 2}))
        brute.emplace_back(i, j);
    }
  std::sort(got.begin(), got.end());
  EXPECT_EQ(got, brute);
  EXPECT_GT(brute.size(), 20u);
}

TEST(Bvh, CacheHoldsTreesForTriangleMeshGeomsOnly) {
  Model model;
  model.meshes.push_back(std::make_shared<const Mesh>(tessellate_sphere(1.0, 8)));
  model.meshes.push_back(std::make_shared<const Mesh>(tessellate_box(Vec3(1, 1, 1))));
  Geom g;
  g.type = GeomType::TriangleMesh;
  g.mesh = 0;
  model.geoms.push_back(g);
  g.type = GeomType::ConvexMesh;
  g.mesh = 1;
  model.geoms.push_back(g);
  const BvhCache cache(model);
  ASSERT_NE(cache.find(0), nullptr);
  EXPECT_EQ(cache.find(0)->triangle_count(), static_cast<int>(model.meshes[0]->faces.size()));
  EXPECT_EQ(cache.find(1), nullptr);
  EXPECT_EQ(cache.find(7), nullptr);
}

}  // namespace
}  // namespace graspsim
