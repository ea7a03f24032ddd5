// overlap_volume_mesh_convex: a closed mesh (the bunny, an L prism) ∩ a convex mesh, checked
// against CGAL's corefinement, the convex clipper and hand computations, including aligned
// (degenerate) placements.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>

#include "collision/bvh.h"
#include "collision/mesh_io.h"
#include "collision/mesh_tools.h"
#include "collision/overlap.h"
#include "collision/tessellate.h"
#include "core/error.h"
#include "mesh_test_shapes.h"

namespace graspsim {
namespace {

Pose pose(const Vec3& p, const Vec3& rotation_vector = Vec3::Zero()) { return {p, quat_exp(rotation_vector)}; }

double total_area(const std::vector<OverlapTriangle>& tris) {
  double a = 0.0;
  for (const auto& t : tris) a += t.area;
  return a;
}

double side_area(const std::vector<OverlapTriangle>& tris, const Vec3& normal) {
  double a = 0.0;
  for (const auto& t : tris)
    if (t.normal.dot(normal) > 1.0 - 1e-9) a += t.area;
  return a;
}

// Σ area·normal = 0 and Σ (centre·normal)·area / 3 = volume over a closed boundary, the
// latter up to round-off of the sums in world coordinates (`floor`).
void expect_closed_boundary(const OverlapResult& r, double tol, double floor = 0.0) {
  const test::BoundaryCheck c = test::boundary_sums(r);
  EXPECT_LE(c.area_normal.norm(), tol * c.area + floor);
  EXPECT_NEAR(c.volume, r.volume, tol * r.volume + floor);
}

// One record per face plane of B, each with B's unit normal.
void expect_one_record_per_plane(const OverlapResult& r) {
  for (size_t i = 0; i < r.boundary_b.size(); ++i) {
    EXPECT_NEAR(r.boundary_b[i].normal.norm(), 1.0, 1e-12);
    for (size_t j = 0; j < i; ++j) EXPECT_LT(r.boundary_b[i].normal.dot(r.boundary_b[j].normal), 1.0 - 1e-9);
  }
}

struct Comparison {
  double volume_error = 0.0;  // relative (see compare_with_cgal for the floor)
  double centroid_error = 0.0;  // relative to B's size
  double area_error = 0.0;      // relative, worst side
};

// The new path against CGAL on the same pair. Tiny overlaps are compared against a floor of
// 1e-12 × B's volume: below it both are round-off of a graze.
Comparison compare_with_cgal(const Mesh& a, const MeshBvh& bvh, const Pose& X_WA, const Mesh& b, const Pose& X_WB,
                             double b_volume, double b_size, double* volume = nullptr) {
  const OverlapResult fast = overlap_volume_mesh_convex(a, bvh, X_WA, b, X_WB);
  const OverlapResult cgal = overlap_volume_cgal(a, X_WA, b, X_WB);
  if (volume) *volume = cgal.volume;
  Comparison c;
  const double floor = 1e-12 * b_volume;
  c.volume_error = std::abs(fast.volume - cgal.volume) / std::max(cgal.volume, floor);
  if (cgal.volume > floor) c.centroid_error = (fast.centroid - cgal.centroid).norm() / b_size;
  const double area_floor = 1e-12 * b_size * b_size;
  for (const auto& [mine, theirs] : {std::pair{&fast.boundary_a, &cgal.boundary_a}, std::pair{&fast.boundary_b, &cgal.boundary_b}})
    c.area_error = std::max(c.area_error, std::abs(total_area(*mine) - total_area(*theirs)) /
                                              std::max(total_area(*theirs), area_floor));
  if (fast.volume > 0.0) {
    expect_closed_boundary(fast, 1e-9);
    expect_one_record_per_plane(fast);
  }
  return c;
}

std::shared_ptr<Mesh> bunny(double scale = 1.0) { return load_mesh(test::bunny_path(), "bunny", Vec3::Constant(scale)); }

Quat random_rotation(std::mt19937_64& rng) {
  std::normal_distribution<double> g;
  return Quat(g(rng), g(rng), g(rng), g(rng)).normalized();
}

TEST(OverlapMeshConvex, BunnyAgainstBoxesMatchesCgal) {
  const auto a = bunny();  // about 2 × 1.9 × 1.5
  const MeshBvh bvh(*a);
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::uniform_int_distribution<int> vertex(0, static_cast<int>(a->vertices.size()) - 1);
  const Pose X_WA = pose(Vec3(0.2, -0.1, 0.3), Vec3(0.3, -0.2, 0.1));
  const Mesh hull = convex_hull(a->vertices);
  Comparison worst;
  int overlapping = 0, concave = 0, cases = 0;
  auto check = [&](const Vec3& half, const Pose& X_AB, const char* what) {
    const Mesh box = tessellate_box(half);
    double v = 0.0;
    const Comparison c = compare_with_cgal(*a, bvh, X_WA, box, X_WA * X_AB, 8 * half.prod(), 2 * half.norm(), &v);
    // Less than the convex hull's overlap: the box takes in a concave part of the surface.
    concave += v < overlap_volume_convex(hull, X_WA, box, X_WA * X_AB).volume - 1e-3 * 8 * half.prod();
    EXPECT_LT(c.volume_error, 1e-6) << what << " case " << cases;
    EXPECT_LT(c.centroid_error, 1e-6) << what << " case " << cases;
    EXPECT_LT(c.area_error, 1e-6) << what << " case " << cases;
    worst.volume_error = std::max(worst.volume_error, c.volume_error);
    worst.centroid_error = std::max(worst.centroid_error, c.centroid_error);
    worst.area_error = std::max(worst.area_error, c.area_error);
    overlapping += v > 0.0;
    ++cases;
  };
  // Boxes of several sizes centred on the surface or anywhere in the bounds.
  for (int i = 0; i < 24; ++i) {
    const Vec3 half(0.03 + 0.4 * u(rng), 0.03 + 0.4 * u(rng), 0.03 + 0.4 * u(rng));
    const Vec3 centre = i % 2 ? a->vertices[vertex(rng)] : Vec3(2 * u(rng) - 1, 2 * u(rng) - 1, 1.5 * u(rng) - 0.75);
    check(half, {centre, random_rotation(rng)}, "random");
  }
  check(Vec3(0.4, 0.05, 0.05), {Vec3(0.1, -0.3, 0.0), random_rotation(rng)}, "crossing the body");
  check(Vec3(0.05, 0.08, 0.1), {Vec3(0.0, 0.0, 0.0), random_rotation(rng)}, "inside");
  check(Vec3(0.1, 0.1, 0.1), {Vec3(-0.3, 0.1, 0.1), random_rotation(rng)}, "inside");
  check(Vec3(1.5, 1.4, 1.3), {Vec3(0.05, 0.0, 0.0), random_rotation(rng)}, "bunny inside the box");
  check(Vec3(0.2, 0.2, 0.2), {Vec3(2.5, 0.0, 0.0), random_rotation(rng)}, "separated");
  check(Vec3(0.2, 0.2, 0.2), {Vec3(0.9, 0.9, 0.7), random_rotation(rng)}, "in the bounds' corner");
  std::printf("bunny vs boxes, %d cases (%d overlapping, %d across concave parts): max relative volume error %.2e, "
              "centroid %.2e, area %.2e\n",
              cases, overlapping, concave, worst.volume_error, worst.centroid_error, worst.area_error);
  EXPECT_GE(overlapping, 25);
  EXPECT_GE(concave, 10);
}

// A finger-sized box pressed 1–2 mm into a bunny of 6 cm, on the surface's outward normal.
Pose pressing(const Mesh& a, int vertex_index, const Vec3& half, double depth, double spin) {
  Vec3 n = Vec3::Zero();
  for (const auto& f : a.faces)
    if (f[0] == vertex_index || f[1] == vertex_index || f[2] == vertex_index)
      n += (a.vertices[f[1]] - a.vertices[f[0]]).cross(a.vertices[f[2]] - a.vertices[f[0]]);
  n.normalize();
  const Quat q = Eigen::AngleAxisd(spin, n) * Quat::FromTwoVectors(Vec3::UnitX(), n);
  return {a.vertices[vertex_index] + n * (half.x() - depth), q};
}

TEST(OverlapMeshConvex, FingerPressingASmallBunnyMatchesCgal) {
  const auto a = bunny(0.03);
  const MeshBvh bvh(*a);
  const Vec3 half(0.005, 0.01, 0.02);  // 1 × 2 × 4 cm
  const Mesh box = tessellate_box(half);
  std::mt19937_64 rng(11);
  std::uniform_int_distribution<int> vertex(0, static_cast<int>(a->vertices.size()) - 1);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  const Pose X_WA = pose(Vec3(0.4, 0.1, 0.05), Vec3(0.0, 0.0, 0.7));
  double worst = 0.0;
  for (int i = 0; i < 12; ++i) {
    const Pose X_AB = pressing(*a, vertex(rng), half, 0.001 + 0.001 * u(rng), 6.3 * u(rng));
    double v = 0.0;
    const Comparison c = compare_with_cgal(*a, bvh, X_WA, box, X_WA * X_AB, 8 * half.prod(), 2 * half.norm(), &v);
    EXPECT_GT(v, 0.0) << i;
    EXPECT_LT(c.volume_error, 1e-6) << i;
    EXPECT_LT(c.centroid_error, 1e-6) << i;
    EXPECT_LT(c.area_error, 1e-6) << i;
    worst = std::max(worst, c.volume_error);
  }
  std::printf("finger on a 6 cm bunny, 12 cases: max relative volume error %.2e\n", worst);
}

// A's triangle t's plane and a frame in it: x along its first edge, z its outward normal.
Pose triangle_frame(const Mesh& a, int t) {
  const auto& f = a.faces[t];
  const Vec3 p = a.vertices[f[0]], e = (a.vertices[f[1]] - p).normalized();
  const Vec3 n = e.cross(a.vertices[f[2]] - p).normalized();
  Mat3 R;
  R << e, n.cross(e), n;
  return {p, Quat(R)};
}

TEST(OverlapMeshConvex, BoxesAlignedWithBunnyFeaturesAreContinuous) {
  // Placed in floating point on the bunny's own planes, edges and vertices: degenerate up to
  // round-off, where the decisions must stay consistent. CGAL cannot be the reference there
  // (its inside test does not return on such input), so the result is compared with CGAL's
  // for the box moved by 1e-9 (the volume may change by 1e-9 × the overlap's area).
  const auto a = bunny();
  const MeshBvh bvh(*a);
  std::mt19937_64 rng(3);
  std::uniform_int_distribution<int> triangle(0, static_cast<int>(a->faces.size()) - 1);
  const Vec3 half(0.05, 0.04, 0.03);
  const Mesh box = tessellate_box(half);
  const Vec3 nudge = 1e-9 * Vec3(0.6, -0.48, 0.64);
  double worst = 0.0, worst_nudges = 0.0;
  int cases = 0, overlapping = 0;
  for (int i = 0; i < 20; ++i) {
    const Pose X_AT = triangle_frame(*a, triangle(rng));
    // Top face in the triangle's plane (box inside), bottom face in it (box outside, touching
    // or overlapping where the surface curves up), an edge along the triangle's first edge, a
    // vertical edge and a corner through its first vertex.
    const Pose placements[] = {X_AT * pose(Vec3(0.01, 0.01, -half.z())), X_AT * pose(Vec3(0.01, 0.01, half.z())),
                               X_AT * pose(Vec3(0.01, half.y(), -half.z() * 0.5)),
                               X_AT * pose(Vec3(half.x(), half.y(), 0.0)), X_AT * pose(half)};
    for (const Pose& X_AB : placements) {
      const OverlapResult mine = overlap_volume_mesh_convex(*a, bvh, Pose::Identity(), box, X_AB);
      const OverlapResult cgal = overlap_volume_cgal(*a, Pose::Identity(), box, {X_AB.p + nudge, X_AB.q});
      const double area = total_area(cgal.boundary_a) + total_area(cgal.boundary_b);
      const double difference = std::abs(mine.volume - cgal.volume);
      EXPECT_LE(difference, 1e-9 * area + 1e-6 * cgal.volume) << i;
      if (mine.volume > 0.0) expect_closed_boundary(mine, 1e-9, 1e-15);
      if (cgal.volume > 1e-3 * 8 * half.prod()) worst = std::max(worst, difference / cgal.volume);
      if (area > 0.0) worst_nudges = std::max(worst_nudges, difference / (1e-9 * area));
      overlapping += cgal.volume > 0.0;
      ++cases;
    }
  }
  std::printf("boxes on bunny planes, edges and vertices, %d cases (%d overlapping): volume vs CGAL's 1e-9 away: "
              "max relative difference %.2e (overlaps > 0.1%% of the box), max %.2f × 1e-9 × area\n",
              cases, overlapping, worst, worst_nudges);
}

TEST(OverlapMeshConvex, ManyPlacementsGiveClosedBoundaries) {
  // Random and feature-aligned placements (546,000 of them, from three seeds, passed the same
  // checks, and the internal parity and closure checks without a retry, during development).
  const auto big = bunny(), small = bunny(0.03);
  const MeshBvh bvh_big(*big), bvh_small(*small);
  std::mt19937_64 rng(99);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::uniform_int_distribution<int> vertex(0, static_cast<int>(big->vertices.size()) - 1);
  std::uniform_int_distribution<int> triangle(0, static_cast<int>(big->faces.size()) - 1);
  const Mesh capsule = tessellate_capsule(0.1, 0.2, 12), sphere = tessellate_sphere(0.15, 10);
  const Vec3 half(0.005, 0.01, 0.02), hb(0.05, 0.04, 0.03);
  const Mesh finger = tessellate_box(half), box = tessellate_box(hb);
  int n = 0, overlapping = 0;
  auto check = [&](const Mesh& a, const MeshBvh& bvh, const Mesh& b, const Pose& X) {
    const OverlapResult r = overlap_volume_mesh_convex(a, bvh, Pose::Identity(), b, X);
    if (r.volume > 0.0) {
      // Faces of B with less than 1e-12 × its size² inside A have no record.
      BoundingBox bounds;
      for (const Vec3& v : b.vertices) bounds.extend(v);
      const double dropped = 1e-12 * bounds.diagonal().squaredNorm();
      const test::BoundaryCheck c = test::boundary_sums(r);
      EXPECT_LE(c.area_normal.norm(), 1e-9 * c.area + 10 * dropped) << n;
      EXPECT_NEAR(c.volume, r.volume, 1e-9 * r.volume + 10 * dropped * (1 + r.centroid.norm())) << n;
      ++overlapping;
    }
    ++n;
  };
  for (int i = 0; i < 400; ++i) {
    check(*small, bvh_small, finger, pressing(*small, vertex(rng), half, 0.003 * u(rng), 6.3 * u(rng)));
    const Vec3 h(0.02 + 0.3 * u(rng), 0.02 + 0.3 * u(rng), 0.02 + 0.3 * u(rng));
    check(*big, bvh_big, tessellate_box(h), {big->vertices[vertex(rng)], random_rotation(rng)});
    if (i % 10 == 0) check(*big, bvh_big, i % 20 ? capsule : sphere, {big->vertices[vertex(rng)], random_rotation(rng)});
    const Pose X_AT = triangle_frame(*big, triangle(rng));
    for (const Vec3& o : {Vec3(0.01, 0.01, -hb.z()), Vec3(0.01, 0.01, hb.z()), Vec3(0.01, hb.y(), -hb.z() * 0.5),
                          Vec3(hb.x(), hb.y(), 0.0), Vec3(hb), Vec3(-hb), Vec3(-hb.x(), hb.y(), hb.z())})
      check(*big, bvh_big, box, X_AT * pose(o));
  }
  EXPECT_GT(overlapping, n / 2);
}

// Volume and first moment of the axis-aligned box [lo, hi] ∩ the L prism (two disjoint boxes).
std::pair<double, Vec3> l_box_overlap(const Vec3& lo, const Vec3& hi) {
  double v = 0.0;
  Vec3 m = Vec3::Zero();
  for (const auto& [a, b] : {std::pair{Vec3(0, 0, 0), Vec3(2, 1, 1)}, std::pair{Vec3(0, 1, 0), Vec3(1, 2, 1)}}) {
    const Vec3 p = lo.cwiseMax(a), q = hi.cwiseMin(b);
    if ((q - p).minCoeff() <= 0.0) continue;
    v += (q - p).prod();
    m += (q - p).prod() * (p + q) / 2;
  }
  return {v, m};
}

TEST(OverlapMeshConvex, AlignedBoxesOnTheLMatchTheExactOverlap) {
  // 20,280 boxes on a quarter grid, turned 0° or 90°: faces coplanar with the L's, edges along
  // and through its edges, corners on its vertices, touching from outside. Volume, centroid and
  // closure are exact up to round-off.
  const Mesh l = test::l_prism();
  const MeshBvh bvh(l);
  int n = 0;
  double worst = 0.0;
  for (double sx : {0.25, 0.5, 1.0})
    for (double sy : {0.5, 1.0})
      for (double sz : {0.5, 1.0}) {
        const Mesh box = tessellate_box(Vec3(sx, sy, sz) / 2);
        for (double x = -0.5; x <= 2.5; x += 0.25)
          for (double y = -0.5; y <= 2.5; y += 0.25)
            for (double z = -0.5; z <= 1.5; z += 0.5)
              for (int turn : {0, 1}) {
                const Vec3 half = turn ? Vec3(sy, sx, sz) / 2 : Vec3(sx, sy, sz) / 2;
                const Pose X{Vec3(x, y, z), quat_exp(Vec3(0, 0, turn * std::acos(-1.0) / 2))};
                const OverlapResult r = overlap_volume_mesh_convex(l, bvh, Pose::Identity(), box, X);
                const auto [v, m] = l_box_overlap(X.p - half, X.p + half);
                const test::BoundaryCheck c = test::boundary_sums(r);
                double e = std::abs(r.volume - v) + c.area_normal.norm() + std::abs(c.volume - r.volume);
                if (v > 0.0) e += (r.centroid - m / v).norm();
                EXPECT_LT(e, 1e-12) << "size " << sx << " " << sy << " " << sz << " at " << X.p.transpose() << " turn " << turn;
                if (v == 0.0) {
                  EXPECT_TRUE(r.boundary_a.empty() && r.boundary_b.empty());
                }
                worst = std::max(worst, e);
                ++n;
              }
      }
  std::printf("aligned boxes on the L prism, %d cases: worst error (volume + centroid + closure) %.2e\n", n, worst);
}

TEST(OverlapMeshConvex, TessellatedSphereAndCapsuleMatchCgal) {
  const auto a = bunny();
  const MeshBvh bvh(*a);
  const Mesh sphere = tessellate_sphere(0.3, 16), capsule = tessellate_capsule(0.15, 0.3, 16);
  std::mt19937_64 rng(5);
  std::uniform_int_distribution<int> vertex(0, static_cast<int>(a->vertices.size()) - 1);
  for (int i = 0; i < 8; ++i) {
    const Mesh& b = i % 2 ? capsule : sphere;
    const double volume = signed_volume(b);
    const Pose X_WB{a->vertices[vertex(rng)], random_rotation(rng)};
    double v = 0.0;
    const Comparison c = compare_with_cgal(*a, bvh, Pose::Identity(), b, X_WB, volume, 0.6, &v);
    EXPECT_GT(v, 0.0) << i;
    EXPECT_LT(c.volume_error, 1e-6) << i;
    EXPECT_LT(c.centroid_error, 1e-6) << i;
    EXPECT_LT(c.area_error, 1e-6) << i;
  }
}

TEST(OverlapMeshConvex, ConvexAAgreesWithTheConvexClipper) {
  const Mesh sphere = tessellate_sphere(0.5, 24), box = tessellate_box(Vec3(0.4, 0.3, 0.6));
  const Pose X_WA = pose(Vec3(0.1, 0.2, 0.0), Vec3(0.2, 0.5, -0.3));
  const Pose X_WB = pose(Vec3(0.5, 0.3, 0.2), Vec3(-0.4, 0.1, 0.9));
  for (const auto& [a, b] : {std::pair{&sphere, &box}, std::pair{&box, &sphere}, std::pair{&box, &box}}) {
    const OverlapResult clip = overlap_volume_convex(*a, X_WA, *b, X_WB);
    const OverlapResult mesh = overlap_volume_mesh_convex(*a, MeshBvh(*a), X_WA, *b, X_WB);
    ASSERT_GT(clip.volume, 0.01);
    EXPECT_NEAR(mesh.volume, clip.volume, 1e-10 * clip.volume);
    EXPECT_LT((mesh.centroid - clip.centroid).norm(), 1e-10);
    EXPECT_NEAR(total_area(mesh.boundary_a), total_area(clip.boundary_a), 1e-10);
    EXPECT_NEAR(total_area(mesh.boundary_b), total_area(clip.boundary_b), 1e-10);
    expect_closed_boundary(mesh, 1e-12);
    // The dispatcher with either side declared non-convex keeps the caller's sides.
    const OverlapResult b_mesh = overlap_volume(*a, X_WA, true, *b, X_WB, false);
    EXPECT_NEAR(b_mesh.volume, clip.volume, 1e-10 * clip.volume);
    EXPECT_NEAR(total_area(b_mesh.boundary_a), total_area(clip.boundary_a), 1e-10);
    EXPECT_NEAR(total_area(b_mesh.boundary_b), total_area(clip.boundary_b), 1e-10);
  }
}

// The L prism {[0,2]x[0,1] ∪ [0,1]x[1,2]} x [0,1] and boxes given by their min and max corners.
struct LCase {
  OverlapResult r;
  explicit LCase(const Vec3& lo, const Vec3& hi, const Vec3& rotation = Vec3::Zero()) {
    const Mesh l = test::l_prism();
    r = overlap_volume_mesh_convex(l, MeshBvh(l), Pose::Identity(), tessellate_box((hi - lo) / 2),
                                   pose((lo + hi) / 2, rotation));
  }
};

TEST(OverlapMeshConvex, LPrismWithABoxInItsNotchMatchesHandComputation) {
  // Box [0.5,1.5]² × [0.25,0.75] around the inner corner: the L keeps its square minus the
  // notch quadrant [1,1.5]², an L-shaped (non-convex) 0.75 of area, 0.5 high.
  const OverlapResult r = LCase(Vec3(0.5, 0.5, 0.25), Vec3(1.5, 1.5, 0.75)).r;
  EXPECT_NEAR(r.volume, 0.375, 1e-12);
  const Vec3 c = (0.5 * Vec3(1.0, 0.75, 0.5) + 0.25 * Vec3(0.75, 1.25, 0.5)) / 0.75;  // two slabs
  EXPECT_LT((r.centroid - c).norm(), 1e-12);
  // On the L: the notch's two walls, 0.5 × 0.5 each.
  EXPECT_NEAR(side_area(r.boundary_a, Vec3::UnitX()), 0.25, 1e-12);
  EXPECT_NEAR(side_area(r.boundary_a, Vec3::UnitY()), 0.25, 1e-12);
  EXPECT_NEAR(total_area(r.boundary_a), 0.5, 1e-12);
  // On the box: top and bottom keep the L-shaped 0.75; the -x, -y walls are inside the L
  // whole (1 × 0.5), the +x, +y walls half.
  ASSERT_EQ(r.boundary_b.size(), 6u);
  EXPECT_NEAR(side_area(r.boundary_b, Vec3::UnitZ()), 0.75, 1e-12);
  EXPECT_NEAR(side_area(r.boundary_b, -Vec3::UnitZ()), 0.75, 1e-12);
  EXPECT_NEAR(side_area(r.boundary_b, -Vec3::UnitX()), 0.5, 1e-12);
  EXPECT_NEAR(side_area(r.boundary_b, -Vec3::UnitY()), 0.5, 1e-12);
  EXPECT_NEAR(side_area(r.boundary_b, Vec3::UnitX()), 0.25, 1e-12);
  EXPECT_NEAR(side_area(r.boundary_b, Vec3::UnitY()), 0.25, 1e-12);
  // The top's record sits at the L-shaped region's centroid.
  for (const auto& t : r.boundary_b)
    if (t.normal.z() > 0.5) {
      EXPECT_LT((t.centre - Vec3(c.x(), c.y(), 0.75)).norm(), 1e-12);
    }
  expect_closed_boundary(r, 1e-12);
}

TEST(OverlapMeshConvex, BoxFacesCoplanarWithTheLsFacesAreReportedOnTheLsSide) {
  // Box [0.5,1.5]² × [0,1]: its top and bottom lie in the L's top and bottom faces.
  const OverlapResult r = LCase(Vec3(0.5, 0.5, 0.0), Vec3(1.5, 1.5, 1.0)).r;
  EXPECT_NEAR(r.volume, 0.75, 1e-12);
  const Vec3 c = (0.5 * Vec3(1.0, 0.75, 0.5) + 0.25 * Vec3(0.75, 1.25, 0.5)) / 0.75;
  EXPECT_LT((r.centroid - c).norm(), 1e-12);
  EXPECT_NEAR(side_area(r.boundary_a, Vec3::UnitZ()), 0.75, 1e-12);
  EXPECT_NEAR(side_area(r.boundary_a, -Vec3::UnitZ()), 0.75, 1e-12);
  EXPECT_NEAR(side_area(r.boundary_a, Vec3::UnitX()), 0.5, 1e-12);
  EXPECT_NEAR(side_area(r.boundary_a, Vec3::UnitY()), 0.5, 1e-12);
  EXPECT_NEAR(total_area(r.boundary_a), 2.5, 1e-12);
  EXPECT_NEAR(side_area(r.boundary_b, -Vec3::UnitX()), 1.0, 1e-12);
  EXPECT_NEAR(side_area(r.boundary_b, -Vec3::UnitY()), 1.0, 1e-12);
  EXPECT_NEAR(side_area(r.boundary_b, Vec3::UnitX()), 0.5, 1e-12);
  EXPECT_NEAR(side_area(r.boundary_b, Vec3::UnitY()), 0.5, 1e-12);
  EXPECT_NEAR(total_area(r.boundary_b), 3.0, 1e-12);
  expect_closed_boundary(r, 1e-12);
  // CGAL agrees, side by side.
  const Mesh l = test::l_prism();
  const OverlapResult cgal = overlap_volume_cgal(l, Pose::Identity(), tessellate_box(Vec3(0.5, 0.5, 0.5)),
                                                 pose(Vec3(1, 1, 0.5)));
  EXPECT_NEAR(cgal.volume, r.volume, 1e-12);
  EXPECT_NEAR(total_area(cgal.boundary_a), total_area(r.boundary_a), 1e-12);
  EXPECT_NEAR(total_area(cgal.boundary_b), total_area(r.boundary_b), 1e-12);

  // A box flush with the L's whole end wall x = 2 from inside: that wall stays on the L.
  const OverlapResult wall = LCase(Vec3(1.5, 0.0, 0.0), Vec3(2.0, 1.0, 1.0)).r;
  EXPECT_NEAR(wall.volume, 0.5, 1e-12);
  EXPECT_NEAR(total_area(wall.boundary_a), 3.0, 1e-12);  // five of the box's faces lie on the L
  EXPECT_NEAR(total_area(wall.boundary_b), 1.0, 1e-12);  // the -x wall at x = 1.5
}

TEST(OverlapMeshConvex, TouchingOrApartIsEmpty) {
  for (const auto& [lo, hi] : {std::pair{Vec3(2.0, 0.0, 0.0), Vec3(3.0, 1.0, 1.0)},   // on the end wall
                               std::pair{Vec3(1.0, 1.0, 0.0), Vec3(2.0, 2.0, 1.0)},   // filling the notch
                               std::pair{Vec3(0.2, 0.2, 1.0), Vec3(0.8, 0.6, 1.5)},   // on the top
                               std::pair{Vec3(3.0, 3.0, 3.0), Vec3(4.0, 4.0, 4.0)}}) {
    const OverlapResult r = LCase(lo, hi).r;
    EXPECT_EQ(r.volume, 0.0) << lo.transpose();
    EXPECT_TRUE(r.boundary_a.empty() && r.boundary_b.empty()) << lo.transpose();
  }
}

TEST(OverlapMeshConvex, BoxEdgeAlongTheLsReflexEdgeMatchesHandComputation) {
  // A box turned 45° about z whose left vertical edge runs along the L's inner corner edge
  // x = y = 1 (through two of its vertices), the diagonal through it on the L's face y = 1.
  const double h = 0.25, s = h * std::sqrt(2.0);
  const Mesh l = test::l_prism();
  const Pose X_WB = pose(Vec3(1.0 + s, 1.0, 0.5), Vec3(0, 0, std::acos(-1.0) / 4));
  const OverlapResult r = overlap_volume_mesh_convex(l, MeshBvh(l), Pose::Identity(), tessellate_box(Vec3(h, h, 1.0)), X_WB);
  // The lower half of the square, the triangle (1,1), (1+2s,1), (1+s,1-s), over z ∈ [0,1].
  EXPECT_NEAR(r.volume, 2 * h * h, 1e-12);
  EXPECT_LT((r.centroid - Vec3(1.0 + s, 1.0 - s / 3, 0.5)).norm(), 1e-12);
  EXPECT_NEAR(side_area(r.boundary_a, Vec3::UnitY()), 2 * s, 1e-12);
  EXPECT_NEAR(side_area(r.boundary_a, Vec3::UnitZ()), 2 * h * h, 1e-12);
  EXPECT_NEAR(side_area(r.boundary_a, -Vec3::UnitZ()), 2 * h * h, 1e-12);
  EXPECT_NEAR(total_area(r.boundary_a), 2 * s + 4 * h * h, 1e-12);
  EXPECT_NEAR(total_area(r.boundary_b), 4 * h, 1e-12);  // two lower walls, 2h wide, 1 high
  EXPECT_EQ(r.boundary_b.size(), 2u);
  expect_closed_boundary(r, 1e-12);
  // A box corner on the L's vertex (2, 1, 1), the box otherwise over the L's top.
  const OverlapResult corner = LCase(Vec3(1.5, 0.5, 0.5), Vec3(2.0, 1.0, 1.0)).r;
  EXPECT_NEAR(corner.volume, 0.125, 1e-12);
  EXPECT_NEAR(total_area(corner.boundary_a), 0.75, 1e-12);
  EXPECT_NEAR(total_area(corner.boundary_b), 0.75, 1e-12);
}

TEST(OverlapMeshConvex, DegenerateLCasesMatchCgal) {
  // Aligned boxes whose faces, edges and corners meet the L's faces, edges and vertices.
  const Mesh l = test::l_prism();
  const MeshBvh bvh(l);
  const double steps[] = {0.0, 0.5, 1.0, 1.5, 2.0};
  int cases = 0;
  double worst = 0.0;
  for (double x : steps)
    for (double y : steps)
      for (double z : {0.0, 0.5, 1.0}) {
        const Vec3 lo(x - 0.5, y - 0.5, z - 0.5), hi(x + 0.25, y + 0.5, z + 0.5);
        const Mesh box = tessellate_box((hi - lo) / 2);
        const Pose X_WB = pose((lo + hi) / 2);
        const OverlapResult mine = overlap_volume_mesh_convex(l, bvh, Pose::Identity(), box, X_WB);
        const OverlapResult cgal = overlap_volume_cgal(l, Pose::Identity(), box, X_WB);
        EXPECT_NEAR(mine.volume, cgal.volume, 1e-12) << lo.transpose();
        EXPECT_LT((mine.centroid - cgal.centroid).norm(), 1e-12) << lo.transpose();
        EXPECT_NEAR(total_area(mine.boundary_a), total_area(cgal.boundary_a), 1e-12) << lo.transpose();
        EXPECT_NEAR(total_area(mine.boundary_b), total_area(cgal.boundary_b), 1e-12) << lo.transpose();
        worst = std::max(worst, std::abs(mine.volume - cgal.volume));
        ++cases;
      }
  std::printf("aligned boxes on the L prism vs CGAL, %d cases: max volume difference %.2e\n", cases, worst);
}

TEST(OverlapMeshConvex, BoxInsideTheBunnyIsTheBox) {
  const auto a = bunny();
  const Vec3 half(0.1, 0.05, 0.08);
  const OverlapResult r = overlap_volume_mesh_convex(*a, MeshBvh(*a), Pose::Identity(), tessellate_box(half),
                                                     pose(Vec3(-0.2, 0.0, 0.0), Vec3(0.3, 0.2, 0.1)));
  EXPECT_NEAR(r.volume, 8 * half.prod(), 1e-14);
  EXPECT_TRUE(r.boundary_a.empty());
  EXPECT_EQ(r.boundary_b.size(), 6u);
  EXPECT_NEAR(total_area(r.boundary_b), 8 * (half.x() * half.y() + half.y() * half.z() + half.z() * half.x()), 1e-14);
  EXPECT_LT((r.centroid - Vec3(-0.2, 0.0, 0.0)).norm(), 1e-14);
}

TEST(OverlapMeshConvex, DispatcherSwapsSidesWhenAIsTheConvexOne) {
  const Mesh l = test::l_prism(), box = tessellate_box(Vec3(0.5, 0.5, 0.5));
  const Pose X_box = pose(Vec3(1, 1, 0.5));  // coplanar with the L's top and bottom
  const OverlapResult ab = overlap_volume(l, Pose::Identity(), box, X_box);
  const OverlapResult ba = overlap_volume(box, X_box, l, Pose::Identity());
  EXPECT_NEAR(ab.volume, 0.75, 1e-12);
  EXPECT_NEAR(ba.volume, 0.75, 1e-12);
  EXPECT_LT((ab.centroid - ba.centroid).norm(), 1e-12);
  // Coplanar faces on the caller's A either way, as CGAL reports them.
  EXPECT_NEAR(total_area(ab.boundary_a), 2.5, 1e-12);
  EXPECT_NEAR(total_area(ab.boundary_b), 3.0, 1e-12);
  EXPECT_NEAR(total_area(ba.boundary_a), 4.5, 1e-12);  // the box's walls inside, top and bottom
  EXPECT_NEAR(total_area(ba.boundary_b), 1.0, 1e-12);  // the notch's walls
  const OverlapResult cgal = overlap_volume_cgal(box, X_box, l, Pose::Identity());
  EXPECT_NEAR(total_area(cgal.boundary_a), total_area(ba.boundary_a), 1e-12);
  EXPECT_NEAR(total_area(cgal.boundary_b), total_area(ba.boundary_b), 1e-12);
}

TEST(OverlapMeshConvex, OpenConvexSideIsAnInputErrorNamingIt) {
  Mesh open = tessellate_box(Vec3(1, 1, 1));
  open.name = "lid_missing";
  open.faces.pop_back();
  const Mesh l = test::l_prism();
  try {
    overlap_volume_mesh_convex(l, MeshBvh(l), Pose::Identity(), open, Pose::Identity());
    FAIL() << "no exception";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("lid_missing"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace graspsim
