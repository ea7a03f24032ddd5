// A particle on a plane with a normal row and friction rows, against closed forms.
// With M = m·I and rows along orthogonal axes, A = J M⁻¹ Jᵀ + C is diagonal, so every
// solver (pivoting, or one PGS sweep with the normal processed first) is exact up to
// rounding: the tolerances are 1e-12 relative to the impulse scale μλ_n (≈ 0.1 N·s).

#include <gtest/gtest.h>

#include <cmath>

#include "core/error.h"
#include "spook_test_util.h"

namespace graspsim::spook {
namespace {

using spook_test::Particle;
using spook_test::friction_impulse;

constexpr double kRel = 1e-12;

const SolverType kAllSolvers[] = {SolverType::Direct, SolverType::Iterative, SolverType::Split,
                                  SolverType::DirectIterative};

// Cone is the default friction of the iterative solvers; Direct needs a box model.
FrictionTreatment treatment_for(SolverType s) {
  return s == SolverType::Direct ? FrictionTreatment::BoxScaled : FrictionTreatment::Cone;
}

TEST(SpookParticle, NormalImpulseMatchesSpookClosedForm) {
  const Particle part;
  for (SolverType s : kAllSolvers) {
    const Problem p = part.problem({0.0, 0.0}, treatment_for(s));
    const Solution sol = solve(p, s, 16);
    EXPECT_NEAR(sol.lambda[0], part.lambda_n(), kRel * part.lambda_n()) << to_string(s);
    // The normal row's equation: v⁺_z = −Σ λ_n (the compliance-implied penetration rate).
    EXPECT_NEAR(sol.v[2], -part.normal_params().sigma * sol.lambda[0], 1e-14) << to_string(s);
  }
}

TEST(SpookParticle, SticksBelowCoulombLimitForEverySolverAndTreatment) {
  const Particle part;
  const double F = 0.6 * part.mu * part.m * part.g;  // below μ m g
  const Eigen::Vector2d force = F * Eigen::Vector2d(std::cos(0.3), std::sin(0.3));
  for (SolverType s : kAllSolvers)
    for (FrictionTreatment t : {FrictionTreatment::BoxFixed, FrictionTreatment::BoxScaled, FrictionTreatment::Cone}) {
      if (s == SolverType::Direct && t == FrictionTreatment::Cone) continue;
      const Problem p = part.problem(force, t);
      const Solution sol = solve(p, s, 16);
      // Sticking: (1/m + c_t) λ_t = −F h/m per axis, and v⁺_t = −c_t λ_t (creep).
      const double c = part.friction_compliance();
      const Eigen::Vector2d expected = -force * part.h / (1.0 + part.m * c);
      const Eigen::Vector2d f = friction_impulse(p, sol.lambda);
      const double scale = part.mu * part.lambda_n();
      EXPECT_LT((f - expected).norm(), kRel * scale) << to_string(s) << " treatment " << int(t);
      EXPECT_LT((sol.v.head<2>() + c * f).norm(), 1e-14) << to_string(s);
      EXPECT_LT(sol.residual, 1e-12);
    }
}

TEST(SpookParticle, ConeSlidesWithExactCoulombForceOppositeToSlip) {
  const Particle part;
  const double F = 3.0 * part.mu * part.m * part.g;
  for (SolverType s : {SolverType::Iterative, SolverType::Split, SolverType::DirectIterative})
    for (double angle : {0.0, 0.4, M_PI / 4, 2.0, -2.7}) {
      const Eigen::Vector2d dir(std::cos(angle), std::sin(angle));
      const Problem p = part.problem(F * dir, FrictionTreatment::Cone);
      const Solution sol = solve(p, s, 16);
      const Eigen::Vector2d f = friction_impulse(p, sol.lambda);
      const double limit = part.mu * sol.lambda[0];
      EXPECT_NEAR(f.norm(), limit, kRel * limit) << to_string(s) << " angle " << angle;
      const Eigen::Vector2d slip = sol.v.head<2>();
      EXPECT_GT(slip.dot(dir), 0.0);
      // Opposite to slip: f + |f| ŝ = 0.
      EXPECT_LT((f + f.norm() * slip.normalized()).norm(), kRel * limit) << to_string(s);
    }
}

TEST(SpookParticle, ScaledBoxFrictionHasSqrt2ExcessAt45Degrees) {
  const Particle part;
  const Eigen::Vector2d dir = Eigen::Vector2d(1.0, 1.0).normalized();
  const double F = 3.0 * part.mu * part.m * part.g;  // both axes saturate
  for (SolverType s : {SolverType::Direct, SolverType::Split, SolverType::Iterative})
    for (FrictionTreatment t : {FrictionTreatment::BoxScaled, FrictionTreatment::BoxFixed}) {
      const Problem p = part.problem(F * dir, t);
      const Solution sol = solve(p, s, 16);
      const double limit = part.mu * sol.lambda[0];
      EXPECT_NEAR(friction_impulse(p, sol.lambda).norm() / limit, std::sqrt(2.0), kRel) << to_string(s);
    }
  // Along an axis the box is exact.
  const Problem p = part.problem(Eigen::Vector2d(F, 0.0), FrictionTreatment::BoxScaled);
  const Solution sol = solve(p, SolverType::Direct, 1);
  EXPECT_NEAR(friction_impulse(p, sol.lambda).norm(), part.mu * sol.lambda[0], kRel * sol.lambda[0]);
}

TEST(SpookParticle, DirectIterativeRemovesTheBoxExcess) {
  // The direct phase (scaled box) gives √2 μλ_n at 45°; the PGS phase projects onto the disk.
  const Particle part;
  const Eigen::Vector2d dir = Eigen::Vector2d(1.0, 1.0).normalized();
  const Problem p = part.problem(3.0 * part.mu * part.m * part.g * dir, FrictionTreatment::Cone);
  const Solution sol = solve(p, SolverType::DirectIterative, 1);
  EXPECT_NEAR(friction_impulse(p, sol.lambda).norm(), part.mu * sol.lambda[0], kRel * sol.lambda[0]);
}

TEST(SpookParticle, PolyhedralConeDeficitIsAtMostOneMinusCosPiOverK) {
  // With rigid direction rows (c_t = 0) the Stewart-Trinkle solution is the point of the
  // polygon {Σβ_i d_i : β ≥ 0, Σβ ≤ μλ_n} closest to the sticking impulse −m v_free,t: the
  // vertex (|f| = μλ_n) when pushing along a direction, the edge midpoint
  // (|f| = μλ_n cos(π/k), exactly opposite to the push) when pushing between two.
  Particle part;
  part.friction_creep = 0.0;
  const double F = 3.0 * part.mu * part.m * part.g;
  for (int k : {4, 8, 16}) {
    const double inner = std::cos(M_PI / k);
    for (int j = 0; j < 4 * k; ++j) {
      const double angle = M_PI * j / (2 * k);  // vertices, edge midpoints and quarters
      const Eigen::Vector2d dir(std::cos(angle), std::sin(angle));
      const Problem p = part.problem(F * dir, FrictionTreatment::Polyhedral, k);
      const Solution sol = solve(p, SolverType::Direct, 1);
      const double limit = part.mu * sol.lambda[0];
      const Eigen::Vector2d f = friction_impulse(p, sol.lambda);
      EXPECT_LT(sol.residual, 1e-12);
      EXPECT_GE(-f.dot(dir) / limit, inner - kRel) << "k " << k << " j " << j;
      EXPECT_LE(f.norm() / limit, 1.0 + kRel);
      if (j % 4 == 0) {
        EXPECT_NEAR(f.norm() / limit, 1.0, kRel) << "vertex, k " << k;
      }
      if (j % 4 == 2) {
        EXPECT_NEAR(f.norm() / limit, inner, kRel) << "edge midpoint, k " << k;
        EXPECT_LT((f / f.norm() + dir).norm(), 1e-10);
      }
    }
    // Below the inner radius it sticks exactly (v⁺_t = 0, rigid rows).
    const Problem p = part.problem(0.8 * inner * part.mu * part.m * part.g * Eigen::Vector2d(0.6, 0.8),
                                   FrictionTreatment::Polyhedral, k);
    const Solution sol = solve(p, SolverType::Direct, 1);
    EXPECT_LT(sol.v.head<2>().norm(), 1e-14) << "k " << k;
  }
}

TEST(SpookParticle, DirectRejectsConeFriction) {
  const Particle part;
  const Problem p = part.problem({1.0, 0.0}, FrictionTreatment::Cone);
  try {
    solve(p, SolverType::Direct, 1);
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("Cone"), std::string::npos) << e.what();
  }
}

// A particle 1 mm deep at rest: SPOOK's target pushes it out at −(4γ/h) g. With a relax pass
// that velocity moves the position (v_position, the sweeps' v⁺ bit for bit) but v⁺ itself
// comes back to the rigid solution v_z = 0, λ_n = m g h (the row is diagonal: exact).
TEST(SpookParticle, RelaxSweepsKeepTheStabilisedVelocityForPositionsOnly) {
  const Particle part;
  Problem p = part.problem({0.0, 0.0}, FrictionTreatment::Cone);
  p.target[0] = spook_target(part.normal_params(), part.h, -1e-3, 0.0);
  p.relax_target = p.target;
  p.relax_target[0] = 0.0;
  const Solution plain = solve(p, SolverType::Iterative, 16);
  const Solution relaxed = solve(p, SolverType::Iterative, 16, 4);
  EXPECT_EQ(plain.v_position.size(), 0);
  ASSERT_EQ(relaxed.v_position.size(), 3);
  EXPECT_GT(plain.v[2], 1e-3 * 4 * part.normal_params().gamma / part.h * 0.5);  // pushed out
  for (int d = 0; d < 3; ++d) EXPECT_EQ(relaxed.v_position[d], plain.v[d]);
  EXPECT_NEAR(relaxed.v[2], 0.0, 1e-15);
  EXPECT_NEAR(relaxed.lambda[0], part.m * part.g * part.h, kRel * part.m * part.g * part.h);

  p.relax_target.resize(0);
  EXPECT_THROW(solve(p, SolverType::Iterative, 16, 4), std::exception);
}

}  // namespace
}  // namespace graspsim::spook
