// Tangent bases of the friction models, the SPOOK parameters, and the capped-simplex
// projection used by the polyhedral cone. Directions are built from unit vectors with a
// few flops, so orthonormality holds to 1e-15.

#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

#include "core/error.h"
#include "spook_test_util.h"
#include "contact/friction_directions.h"
#include "solvers/friction_projection.h"
#include "spook/pgs.h"

namespace graspsim::spook {
namespace {

constexpr double kTol = 1e-15 * 8;

void expect_tangent_frame(const Vec3& n, const TangentPair& t) {
  EXPECT_NEAR(t.t1.norm(), 1.0, kTol);
  EXPECT_NEAR(t.t2.norm(), 1.0, kTol);
  EXPECT_NEAR(t.t1.dot(n), 0.0, kTol);
  EXPECT_NEAR(t.t2.dot(n), 0.0, kTol);
  EXPECT_NEAR(t.t1.dot(t.t2), 0.0, kTol);
  EXPECT_NEAR(t.t1.cross(t.t2).dot(n), 1.0, kTol);  // right-handed (t1, t2, n)
}

TEST(SpookFriction, BoxTangentsAreWorldAxesProjected) {
  const TangentPair up = box_tangents(Vec3::UnitZ());
  EXPECT_LT((up.t1 - Vec3::UnitX()).norm(), kTol);
  EXPECT_LT((up.t2 - Vec3::UnitY()).norm(), kTol);
  // x nearly parallel to n: the world y axis is used instead.
  const Vec3 n = Vec3(1.0, 0.1, 0.05).normalized();
  const TangentPair side = box_tangents(n);
  EXPECT_LT((side.t1 - (Vec3::UnitY() - n.y() * n).normalized()).norm(), kTol);
  std::mt19937_64 rng(3);
  std::normal_distribution<double> N;
  for (int i = 0; i < 100; ++i) {
    const Vec3 m = Vec3(N(rng), N(rng), N(rng)).normalized();
    expect_tangent_frame(m, box_tangents(m));
  }
}

TEST(SpookFriction, OrientedTangentsFollowThePrimaryDirection) {
  const Vec3 n = Vec3(0.0, 0.6, 0.8);
  const Vec3 primary(1.0, 2.0, 0.0);
  const TangentPair t = oriented_tangents(n, primary);
  expect_tangent_frame(n, t);
  EXPECT_LT((t.t1 - (primary - n.dot(primary) * n).normalized()).norm(), kTol);
  // A primary along n has no projection: box tangents.
  const TangentPair fallback = oriented_tangents(n, 3.0 * n);
  EXPECT_LT((fallback.t1 - box_tangents(n).t1).norm(), kTol);
}

TEST(SpookFriction, RandomizedTangentsRotateTheBoxPrimaryBySeededUniformAngles) {
  const Vec3 n = Vec3(0.3, -0.2, 0.9).normalized();
  const TangentPair box = box_tangents(n);
  std::mt19937_64 rng(42), replay(42);
  std::uniform_real_distribution<double> angle(0.0, 2.0 * std::numbers::pi);
  for (int i = 0; i < 50; ++i) {
    const TangentPair t = randomized_tangents(n, rng);
    expect_tangent_frame(n, t);
    const double theta = angle(replay);
    EXPECT_NEAR(std::atan2(t.t1.dot(box.t2), t.t1.dot(box.t1)), std::remainder(theta, 2 * std::numbers::pi), 1e-12);
  }
}

TEST(SpookFriction, MultiDirectionalSetAndChoice) {
  const Vec3 n = Vec3::UnitZ();
  const std::vector<Vec3> d8 = tangent_directions(n, 8);
  ASSERT_EQ(d8.size(), 8u);
  EXPECT_LT((d8[0] - Vec3::UnitX()).norm(), kTol);
  for (int i = 0; i < 8; ++i) {
    EXPECT_NEAR(d8[i].norm(), 1.0, kTol);
    EXPECT_NEAR(d8[i].dot(d8[(i + 1) % 8]), std::cos(std::numbers::pi / 4), kTol);
  }
  // Primary: most parallel to the previous friction force; secondary: most orthogonal
  // (d1 and d5 tie exactly; the first wins).
  const DirectionChoice c = choose_directions(d8, d8[3] * 2.0 + 0.1 * d8[4], Vec3(1, 0, 0));
  EXPECT_EQ(c.primary, 3);
  EXPECT_EQ(c.secondary, 1);
  // No previous force: the slip decides; neither: the first direction.
  EXPECT_EQ(choose_directions(d8, Vec3::Zero(), -Vec3::UnitY()).primary, 6);
  EXPECT_EQ(choose_directions(d8, Vec3::Zero(), Vec3::Zero()).primary, 0);
  // k = 6: no direction is orthogonal to d0; the secondary is 60° away (|cos| = 1/2).
  const std::vector<Vec3> d6 = tangent_directions(n, 6);
  const DirectionChoice c6 = choose_directions(d6, Vec3::Zero(), Vec3::Zero());
  EXPECT_NEAR(std::abs(d6[c6.secondary].dot(d6[c6.primary])), 0.5, kTol);
  EXPECT_THROW(tangent_directions(n, 2), InputError);
}

TEST(SpookParameters, ClosedFormsAndValidation) {
  const double k = 2e5, tau = 0.03, h = 0.01;
  const SpookParameters p = spook_parameters(k, tau, h);
  EXPECT_DOUBLE_EQ(p.epsilon, 1.0 / k);
  EXPECT_DOUBLE_EQ(p.gamma, 1.0 / 13.0);
  EXPECT_DOUBLE_EQ(p.sigma, 4.0 / (h * h) / k / 13.0);
  EXPECT_DOUBLE_EQ(spook_target(p, h, -0.002, 0.5), 4.0 / 13.0 / h * 0.002 + 0.5 / 13.0);
  EXPECT_EQ(spook_parameters(kInf, tau, h).sigma, 0.0);
  EXPECT_THROW(spook_parameters(0.0, tau, h), InputError);
  EXPECT_THROW(spook_parameters(k, -1.0, h), InputError);
  EXPECT_THROW(spook_parameters(k, tau, 0.0), InputError);
  EXPECT_DOUBLE_EQ(velocity_compliance(1e-4, h), 1e-2);
}

TEST(SpookParameters, RestingParticleSettlesAtTheHookeDepth) {
  // Step a particle on a compliant plane with the SPOOK row: at rest v⁺ = 0, λ = m g h and
  // Σλ = −(4γ/h) z give z = −ε m g, the spring's static deflection m g / k. The
  // discrete system is a damped linear recursion, so after 400 steps (τ = 2h) the
  // transient is below rounding: tolerance 1e-12 relative.
  const double m = 0.8, g = 9.81, h = 0.01, k = 5e4;
  const SpookParameters sp = spook_parameters(k, 2 * h, h);
  double z = 0.0, v = 0.0;
  for (int step = 0; step < 400; ++step) {
    Problem p;
    p.nv = 1;
    p.trees.push_back(spook_test::make_tree(0, m * MatX::Identity(1, 1)));
    p.v_free = VecX::Constant(1, v - g * h);
    spook_test::RowBuilder rb(p);
    rb.add({{0, 1.0}}, RowKind::Normal, spook_target(sp, h, z, v), sp.sigma, 0.0, kInf);
    rb.finish();
    p.contacts.push_back({0, {}, 0.0, FrictionTreatment::BoxScaled});
    v = solve(p, SolverType::Direct, 1).v[0];
    z += h * v;
  }
  EXPECT_NEAR(z, -m * g / k, 1e-12 * m * g / k);
}

TEST(SpookPgs, CappedSimplexProjection) {
  const VecX x = (VecX(4) << 0.5, -0.2, 0.3, 0.1).finished();
  EXPECT_LT((project_capped_simplex(x, 2.0) - (VecX(4) << 0.5, 0.0, 0.3, 0.1).finished()).norm(), 1e-16);
  EXPECT_EQ(project_capped_simplex(x, 0.0), VecX::Zero(4));
  // Σ positive part = 0.9 > 0.6: subtract θ = 0.1 from the positive entries above it.
  const VecX y = project_capped_simplex(x, 0.6);
  EXPECT_LT((y - (VecX(4) << 0.4, 0.0, 0.2, 0.0).finished()).norm(), 1e-15);
}

}  // namespace
}  // namespace graspsim::spook
