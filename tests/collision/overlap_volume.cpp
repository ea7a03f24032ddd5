#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <random>

#include "collision/mesh_io.h"
#include "collision/mesh_tools.h"
#include "collision/overlap.h"
#include "collision/tessellate.h"
#include "core/error.h"
#include "mesh_test_shapes.h"

namespace graspsim {
namespace {

constexpr double kPi = std::numbers::pi;

void expect_closed_boundary(const OverlapResult& r, double tol) {
  const test::BoundaryCheck c = test::boundary_sums(r);
  EXPECT_LT(c.area_normal.norm(), tol * c.area);
  EXPECT_NEAR(c.volume, r.volume, tol * r.volume);
}

double side_area(const std::vector<OverlapTriangle>& tris, const Vec3& normal) {
  double a = 0.0;
  for (const auto& t : tris)
    if (t.normal.dot(normal) > 1.0 - 1e-9) a += t.area;
  return a;
}

double total_area(const std::vector<OverlapTriangle>& tris) {
  double a = 0.0;
  for (const auto& t : tris) a += t.area;
  return a;
}

Pose pose(const Vec3& p, const Vec3& rotation_vector = Vec3::Zero()) { return {p, quat_exp(rotation_vector)}; }

TEST(OverlapConvex, AxisAlignedBoxesGiveTheProductOfOverlapsAndTheirFaces) {
  const Mesh a = tessellate_box(Vec3(1, 1, 1)), b = tessellate_box(Vec3(1, 1, 1));
  const Pose X_WA = pose(Vec3(0.1, -0.2, 0.3));
  const Pose X_WB = pose(Vec3(1.1, 0.3, 0.55));
  const OverlapResult r = overlap_volume_convex(a, X_WA, b, X_WB);
  // Overlap box: x [0.1, 1.1], y [-0.7, 0.8], z [-0.45, 1.3] → 1 × 1.5 × 1.75.
  const Vec3 ext(1.0, 1.5, 1.75);
  EXPECT_NEAR(r.volume, ext.prod(), 1e-12);
  EXPECT_LT((r.centroid - Vec3(0.6, 0.05, 0.425)).norm(), 1e-12);
  // The overlap box's +x, +y, +z faces are on A's max faces, its -x, -y, -z faces on B's min faces.
  for (int i = 0; i < 3; ++i) {
    const double face = ext.prod() / ext[i];
    EXPECT_NEAR(side_area(r.boundary_a, Vec3::Unit(i)), face, 1e-12) << i;
    EXPECT_NEAR(side_area(r.boundary_b, -Vec3::Unit(i)), face, 1e-12) << i;
  }
  EXPECT_NEAR(total_area(r.boundary_a), ext.prod() * (1 / ext.x() + 1 / ext.y() + 1 / ext.z()), 1e-12);
  EXPECT_NEAR(total_area(r.boundary_b), total_area(r.boundary_a), 1e-12);
  expect_closed_boundary(r, 1e-12);
}

TEST(OverlapConvex, SphereLensConvergesToTheAnalyticVolume) {
  const double rad = 1.0, d = 1.2;
  const double lens = kPi * (4 * rad + d) * (2 * rad - d) * (2 * rad - d) / 12.0;
  double previous = kInf;
  for (int n : {8, 16, 32, 64}) {
    const Mesh s = tessellate_sphere(rad, n);
    const OverlapResult r = overlap_volume_convex(s, pose(Vec3::Zero()), s, pose(Vec3(d, 0, 0)));
    const double error = std::abs(r.volume - lens) / lens;
    std::printf("sphere lens n=%d: relative volume error %.3e\n", n, error);
    // Inscribed spheres lose O(1/n²) of their volume; the lens inherits it: expect ~4x per doubling.
    EXPECT_LT(error * 3.0, previous) << "n=" << n;
    previous = error;
    EXPECT_NEAR(r.centroid.x(), d / 2, 1e-3) << "n=" << n;  // symmetric lens, up to mesh asymmetry
    expect_closed_boundary(r, 1e-9);
    // Each sphere contributes one spherical cap of equal area 2π r h, h = r - d/2.
    EXPECT_NEAR(total_area(r.boundary_a), total_area(r.boundary_b), 1e-9 + 0.05 * total_area(r.boundary_a));
  }
  EXPECT_LT(previous, 1e-2);  // measured 8.4e-3 at n = 64 (4.5e-1, 1.3e-1, 3.4e-2 before)
}

// Monte-Carlo estimate of |A ∩ B| for two boxes given by their poses and half-extents.
double monte_carlo_box_overlap(const Vec3& ha, const Pose& X_WA, const Vec3& hb, const Pose& X_WB, int samples,
                               double* std_error) {
  std::mt19937_64 rng(2024);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  const Pose X_BA = X_WB.inverse() * X_WA;
  int hits = 0;
  for (int i = 0; i < samples; ++i) {
    const Vec3 p_A(ha.x() * u(rng), ha.y() * u(rng), ha.z() * u(rng));
    const Vec3 p_B = X_BA * p_A;
    if ((p_B.cwiseAbs().array() <= hb.array()).all()) ++hits;
  }
  const double box = 8 * ha.prod(), p = double(hits) / samples;
  *std_error = box * std::sqrt(p * (1 - p) / samples);
  return box * p;
}

TEST(OverlapConvex, RotatedBoxesAgreeWithMonteCarlo) {
  const Vec3 ha(0.5, 0.3, 0.2), hb(0.4, 0.4, 0.25);
  const Pose X_WA = pose(Vec3(0.1, 0.0, -0.1), Vec3(0.3, -0.2, 0.7));
  const Pose X_WB = pose(Vec3(0.45, 0.2, 0.05), Vec3(-0.5, 0.4, 0.1));
  const OverlapResult r = overlap_volume_convex(tessellate_box(ha), X_WA, tessellate_box(hb), X_WB);
  double se = 0.0;
  const double mc = monte_carlo_box_overlap(ha, X_WA, hb, X_WB, 400000, &se);
  ASSERT_GT(mc, 0.01);  // a real overlap, not a graze
  EXPECT_NEAR(r.volume, mc, 4.0 * se);  // 4 standard errors: a false failure ~1 in 16000
  expect_closed_boundary(r, 1e-10);
}

TEST(OverlapConvex, ContainedAndDisjoint) {
  const Mesh big = tessellate_box(Vec3(1, 1, 1)), small = tessellate_box(Vec3(0.1, 0.2, 0.3));
  const OverlapResult inside = overlap_volume_convex(small, pose(Vec3(0.2, 0.1, 0), Vec3(0.1, 0.2, 0.3)), big,
                                                     pose(Vec3::Zero()));
  EXPECT_NEAR(inside.volume, 8 * 0.1 * 0.2 * 0.3, 1e-14);
  EXPECT_TRUE(inside.boundary_b.empty());  // all of the small box's surface, none of the big one's
  EXPECT_NEAR(total_area(inside.boundary_a), 8 * (0.02 + 0.03 + 0.06), 1e-13);
  const OverlapResult apart = overlap_volume_convex(small, pose(Vec3(3, 0, 0)), big, pose(Vec3::Zero()));
  EXPECT_EQ(apart.volume, 0.0);
  EXPECT_TRUE(apart.boundary_a.empty() && apart.boundary_b.empty());
}

TEST(OverlapCgal, AgreesWithClippingOnConvexInputs) {
  const Mesh s = tessellate_sphere(0.5, 24), box = tessellate_box(Vec3(0.4, 0.3, 0.6));
  const Pose X_WA = pose(Vec3(0.1, 0.2, 0.0), Vec3(0.2, 0.5, -0.3));
  const Pose X_WB = pose(Vec3(0.5, 0.3, 0.2), Vec3(-0.4, 0.1, 0.9));
  for (const auto& [a, b] : {std::pair{&s, &box}, std::pair{&box, &s}, std::pair{&box, &box}}) {
    const OverlapResult clip = overlap_volume_convex(*a, X_WA, *b, X_WB);
    const OverlapResult cgal = overlap_volume_cgal(*a, X_WA, *b, X_WB);
    ASSERT_GT(clip.volume, 0.01);
    // Both are exact up to floating point on the same polyhedra.
    EXPECT_NEAR(cgal.volume, clip.volume, 1e-9 * clip.volume);
    EXPECT_LT((cgal.centroid - clip.centroid).norm(), 1e-9);
    EXPECT_NEAR(total_area(cgal.boundary_a), total_area(clip.boundary_a), 1e-9);
    EXPECT_NEAR(total_area(cgal.boundary_b), total_area(clip.boundary_b), 1e-9);
    expect_closed_boundary(cgal, 1e-9);
  }
}

TEST(OverlapCgal, LShapeAgainstBoxMatchesHandComputation) {
  const Mesh l = test::l_prism();
  const Mesh box = tessellate_box(Vec3(0.5, 0.5, 0.75));
  // Box [0.5,1.5]² × [-1,0.5]: its square meets the L in [0.5,1.5]×[0.5,1] ∪ [0.5,1]×[1,1.5]
  // (area 0.5 + 0.25) over z ∈ [0, 0.5].
  const OverlapResult r = overlap_volume(l, pose(Vec3::Zero()), box, pose(Vec3(1, 1, -0.25)));
  EXPECT_NEAR(r.volume, 0.75 * 0.5, 1e-12);
  // Centroid: the two slabs' centroids weighted by area; z mid-height 0.25.
  const Vec3 c = (0.5 * Vec3(1.0, 0.75, 0.25) + 0.25 * Vec3(0.75, 1.25, 0.25)) / 0.75;
  EXPECT_LT((r.centroid - c).norm(), 1e-12);
  // On the L's surface: its bottom (z=0, area 0.75) and the two walls of the inner corner
  // (x=1 for y∈[1,1.5], y=1 for x∈[1,1.5], each 0.5 × 0.5 high).
  EXPECT_NEAR(side_area(r.boundary_a, -Vec3::UnitZ()), 0.75, 1e-12);
  EXPECT_NEAR(side_area(r.boundary_a, Vec3::UnitX()), 0.25, 1e-12);
  EXPECT_NEAR(side_area(r.boundary_a, Vec3::UnitY()), 0.25, 1e-12);
  EXPECT_NEAR(total_area(r.boundary_a), 1.25, 1e-12);
  // On the box's surface: its top (z=0.5, area 0.75); its -x and -y walls run 1.0 through
  // the L, its +x and +y walls 0.5 (all 0.5 high).
  EXPECT_NEAR(side_area(r.boundary_b, Vec3::UnitZ()), 0.75, 1e-12);
  EXPECT_NEAR(side_area(r.boundary_b, -Vec3::UnitX()), 0.5, 1e-12);
  EXPECT_NEAR(side_area(r.boundary_b, -Vec3::UnitY()), 0.5, 1e-12);
  EXPECT_NEAR(side_area(r.boundary_b, Vec3::UnitX()), 0.25, 1e-12);
  EXPECT_NEAR(side_area(r.boundary_b, Vec3::UnitY()), 0.25, 1e-12);
  EXPECT_NEAR(total_area(r.boundary_b), 2.25, 1e-12);
  expect_closed_boundary(r, 1e-12);
}

TEST(OverlapCgal, BunnyAgainstBoxIsClosedAndBoundedByBothVolumes) {
  const auto bunny = load_mesh(test::bunny_path(), "bunny", Vec3::Ones());
  const Mesh box = tessellate_box(Vec3(0.5, 0.5, 0.5));
  const OverlapResult r = overlap_volume(*bunny, pose(Vec3::Zero()), box, pose(Vec3(0.3, 0.2, 0.1), Vec3(0.2, 0.3, 0.1)));
  EXPECT_GT(r.volume, 0.1);
  EXPECT_LT(r.volume, 1.0);  // the box's volume
  expect_closed_boundary(r, 1e-9);
  // The box swallowed whole gives the box volume.
  const OverlapResult whole = overlap_volume(*bunny, pose(Vec3::Zero()), tessellate_box(Vec3(0.1, 0.1, 0.1)),
                                             pose(Vec3(0.0, 0.0, 0.0)));
  EXPECT_NEAR(whole.volume, 0.008, 1e-12);
}

TEST(Overlap, OpenMeshIsAnInputErrorNamingIt) {
  Mesh open = tessellate_box(Vec3(1, 1, 1));
  open.name = "lid_missing";
  open.faces.pop_back();
  const Mesh box = tessellate_box(Vec3(1, 1, 1));
  for (auto f : {&overlap_volume_convex, &overlap_volume_cgal}) {
    try {
      f(box, pose(Vec3::Zero()), open, pose(Vec3::Zero()));
      FAIL() << "no exception";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("lid_missing"), std::string::npos) << e.what();
    }
  }
  EXPECT_THROW(overlap_volume(open, pose(Vec3::Zero()), box, pose(Vec3::Zero())), InputError);
}

}  // namespace
}  // namespace graspsim
