// The volumetric penalty law (seed 004, Section II) on overlaps with analytic answers.
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

#include "collision/bvh.h"
#include "collision/overlap.h"
#include "collision/overlap_plane.h"
#include "collision/tessellate.h"
#include "penalty/penalty_contact.h"

namespace graspsim {
namespace {

Pose at(const Vec3& p, const Vec3& rotation = Vec3::Zero()) { return {p, quat_exp(rotation)}; }

// A box sunk 1 cm into the ground (a half-space): the slab below the plane, its cap the
// box's footprint, pushed straight up.
TEST(PenaltyOverlap, BoxIntoHalfSpace) {
  const Mesh box = tessellate_box(Vec3(0.1, 0.2, 0.3));
  const OverlapResult r = overlap_volume_halfspace(box, at(Vec3(0.5, -0.2, 0.29)), Vec3(0, 0, 0), Vec3::UnitZ());
  EXPECT_NEAR(r.volume, 0.2 * 0.4 * 0.01, 1e-15);
  EXPECT_NEAR((r.centroid - Vec3(0.5, -0.2, -0.005)).norm(), 0.0, 1e-13);
  ASSERT_EQ(r.boundary_b.size(), 1u);
  EXPECT_NEAR(r.boundary_b[0].area, 0.2 * 0.4, 1e-14);
  EXPECT_NEAR((r.boundary_b[0].centre - Vec3(0.5, -0.2, 0)).norm(), 0.0, 1e-13);
  // The box is A, the ground B: the push on A is up, so the normal (from A to B) is down.
  const Vec3 s = reaction_direction(r);
  EXPECT_NEAR(s.normalized().dot(Vec3::UnitZ()), 1.0, 1e-12);
  EXPECT_NEAR(overlap_depth(r, Vec3::UnitZ()), 0.01, 1e-12);
}

// Tilted: the cut through the box is a non-rectangular polygon; the volume and the cap
// area match the convex clipping of the box with a large slab standing in for the ground.
TEST(PenaltyOverlap, TiltedBoxMatchesConvexClipping) {
  const Mesh box = tessellate_box(Vec3(0.1, 0.2, 0.3));
  const Pose X = at(Vec3(0.05, 0.1, 0.25), Vec3(0.3, -0.4, 0.2));
  const OverlapResult r = overlap_volume_halfspace(box, X, Vec3::Zero(), Vec3::UnitZ());
  const OverlapResult ref = overlap_volume_convex(box, X, tessellate_box(Vec3(5, 5, 1)), at(Vec3(0, 0, -1)));
  ASSERT_GT(ref.volume, 0.0);
  EXPECT_NEAR(r.volume, ref.volume, 1e-12 * ref.volume + 1e-18);
  EXPECT_NEAR((r.centroid - ref.centroid).norm(), 0.0, 1e-12);
  double cap = 0.0;
  for (const OverlapTriangle& t : ref.boundary_b) cap += t.area;
  ASSERT_EQ(r.boundary_b.size(), 1u);
  EXPECT_NEAR(r.boundary_b[0].area, cap, 1e-12);
}

// The tree visits only the triangles near the ground; the result is the same to round-off.
TEST(PenaltyOverlap, HalfSpaceWithTreeMatchesWithout) {
  const Mesh sphere = tessellate_sphere(0.03, 32);
  const MeshBvh tree(sphere);
  for (int i = 0; i < 20; ++i) {
    const Pose X{Vec3(0.01 * i, -0.02, 0.03 - 0.0005 * i), quat_exp(Vec3(0.1 * i, -0.07 * i, 0.3))};
    const Vec3 n = quat_exp(Vec3(0.02 * i, 0.01, 0)) * Vec3::UnitZ();
    const OverlapResult all = overlap_volume_halfspace(sphere, X, Vec3(0.01, 0, 0), n);
    const OverlapResult near = overlap_volume_halfspace(sphere, X, Vec3(0.01, 0, 0), n, &tree);
    EXPECT_NEAR(near.volume, all.volume, 1e-12 * all.volume + 1e-20) << i;
    if (all.volume > 0.0) {
      EXPECT_NEAR((near.centroid - all.centroid).norm(), 0.0, 1e-12) << i;
    }
    EXPECT_EQ(near.boundary_a.size(), all.boundary_a.size()) << i;
  }
}

// Two boxes overlapping in a slab across B's face: the direction is that face's normal and
// the application point the slab's centre.
TEST(PenaltyOverlap, TwoBoxesDirectionAndCentroid) {
  const Mesh a = tessellate_box(Vec3(0.05, 0.05, 0.05)), b = tessellate_box(Vec3(0.2, 0.2, 0.1));
  // A above B, sunk 4 mm into B's top face (z = 0.1), offset sideways inside B's footprint.
  const OverlapResult r = overlap_volume_convex(a, at(Vec3(0.03, -0.02, 0.146)), b, at(Vec3::Zero()));
  EXPECT_NEAR(r.volume, 0.1 * 0.1 * 0.004, 1e-15);
  EXPECT_NEAR((r.centroid - Vec3(0.03, -0.02, 0.098)).norm(), 0.0, 1e-12);
  const Vec3 s = reaction_direction(r);
  EXPECT_NEAR(s.normalized().dot(Vec3::UnitZ()), 1.0, 1e-12);  // A is pushed up, out of B
}

TEST(PenaltyLaw, ImpactGainIsAPulseAfterFirstContact) {
  PenaltyOptions o;
  const double dv = 0.1, m = 0.4, d_v = o.target_depth / dv;
  const double peak = o.impact_gain * m * dv / (std::sqrt(std::numbers::pi) * d_v);
  EXPECT_NEAR(impact_gain(o, 1.0 + d_v, 1.0, dv, m), peak, 1e-9 * peak);        // g_t = 1: peak one d_v later
  EXPECT_NEAR(impact_gain(o, 1.0, 1.0, dv, m), peak * std::exp(-1.0), 1e-9 * peak);
  EXPECT_LT(impact_gain(o, 1.0 + 10 * d_v, 1.0, dv, m), 1e-30 * peak);         // gone after the impact
  EXPECT_EQ(impact_gain(o, 1.0, 1.0, 0.0, m), 0.0);                            // no impact at rest
}

TEST(PenaltyOverlap, DepthOfTwoSeparateOverlapsIsNotTheirDistance) {
  // Two 1 mm slabs (1 cm² each) 2 cm apart along n, reported as one pair's overlap (a pad's
  // first touch on two parts of a non-convex body): the spread of their faces is 2.1 cm;
  // the depth is bounded by 3V over the shadow, 3 mm.
  OverlapResult r;
  r.volume = 2 * 1e-4 * 1e-3;
  for (double z : {0.0, 0.02}) {
    r.boundary_a.push_back({1e-4, Vec3(0, 0, z), -Vec3::UnitZ()});
    r.boundary_b.push_back({1e-4, Vec3(0, 0, z + 1e-3), Vec3::UnitZ()});
  }
  const double d = overlap_depth(r, Vec3::UnitZ());
  EXPECT_GE(d, 1e-3);
  EXPECT_NEAR(d, 3e-3, 1e-12);
}

TEST(PenaltyLaw, ForceAndTanhFriction) {
  PenaltyOptions o;
  const Mesh box = tessellate_box(Vec3(0.1, 0.1, 0.1));
  const OverlapResult r = overlap_volume_halfspace(box, at(Vec3(0, 0, 0.099)), Vec3::Zero(), Vec3::UnitZ());
  // The ground (B) slides under the box at 5 mm/s: γ|v| = 0.5, where tanh is not yet 1.
  const Vec3 v_rel(0.003, -0.004, 0.0);
  const PenaltyForce f = penalty_force(o, r, 2e-6, 0.0, 0.5, v_rel);
  EXPECT_NEAR(f.normal.z(), -1.0, 1e-12);
  EXPECT_NEAR(f.magnitude, o.stiffness * r.volume + o.damping * 2e-6, 1e-9);
  const double ft = 0.5 * f.magnitude * std::tanh(o.friction_smoothing * 0.005) + o.viscous_friction * 0.005;
  EXPECT_NEAR(ft, 0.5 * f.magnitude * std::tanh(0.5) + 0.1, 1e-12);
  EXPECT_NEAR((f.friction + ft * v_rel / 0.005).norm(), 0.0, 1e-9);
  // Separating fast: the damping would pull; the force stops at zero instead, and so does
  // the viscous share (capped at |f_n|: it fades in and out with the contact).
  const PenaltyForce gone = penalty_force(o, r, -1.0, 0.0, 0.5, v_rel);
  EXPECT_EQ(gone.magnitude, 0.0);
  EXPECT_EQ(gone.friction.norm(), 0.0);
  const PenaltyForce light = penalty_force(o, r, -(o.stiffness * r.volume - 0.05) / o.damping, 0.0, 0.5, 100 * v_rel);
  EXPECT_NEAR(light.magnitude, 0.05, 1e-9);  // β|v| = 10 N would exceed it
  EXPECT_NEAR(light.friction.norm(), 0.05 * 0.5 * std::tanh(o.friction_smoothing * 0.5) + 0.05, 1e-9);
}

// A 5 cm box sunk 20 µm into the ground and tilted by θ: the volume gradient stays within
// about θ of vertical (the overlap's floor tilts with the box); the seed's eq. 3 turns 45°
// at θ = 1e-6 (its side walls, 2.5 cm from the centroid, outweigh the floor).
TEST(PenaltyDirection, ThinOverlapUnderATilt) {
  const Mesh box = tessellate_box(Vec3(0.025, 0.025, 0.025));
  for (double th : {0.0, 1e-6, 1e-4, 1e-3}) {
    const Pose X{Vec3(0, 0, 0.025 - 2e-5), quat_exp(Vec3(0, th, 0))};
    const OverlapResult r = overlap_volume_halfspace(box, X, Vec3::Zero(), Vec3::UnitZ());
    const Vec3 up = reaction_direction(r).normalized();  // the push on the box (A)
    EXPECT_LT(std::acos(std::min(1.0, up.z())), 1.01 * th + 1e-12) << th;
    if (th == 1e-6) {
      const Vec3 seed = reaction_direction(r, PenaltyDirection::SeedEq3).normalized();
      EXPECT_GT(std::acos(std::min(1.0, seed.z())), 0.5) << "eq. 3 as written is expected to tip over";
    }
  }
}

// The exact volume rate against a finite difference of the volume for a box sliding into
// the ground while turning.
TEST(PenaltyRate, ReynoldsTransportMatchesFiniteDifference) {
  const Mesh box = tessellate_box(Vec3(0.03, 0.02, 0.025));
  const Vec3 v(0.1, -0.05, -0.2), w(0.5, -1.0, 0.3);
  auto pose = [&](double t) { return Pose{Vec3(0.01, 0, 0.02) + v * t, quat_exp(w * t) * quat_exp(Vec3(0.1, 0.2, 0))}; };
  auto volume = [&](double t) { return overlap_volume_halfspace(box, pose(t), Vec3::Zero(), Vec3::UnitZ()).volume; };
  const OverlapResult r = overlap_volume_halfspace(box, pose(0.0), Vec3::Zero(), Vec3::UnitZ());
  ASSERT_GT(r.volume, 0.0);
  const Pose X = pose(0.0);
  const double rate = volume_rate(r, [&](const Vec3& x) { return Vec3(v + w.cross(x - X.p)); },
                                  [](const Vec3&) { return Vec3(Vec3::Zero()); });
  const double h = 1e-6, fd = (volume(h) - volume(-h)) / (2 * h);
  EXPECT_NEAR(rate, fd, 1e-6 * std::abs(fd));
}

}  // namespace
}  // namespace graspsim
