// A planar 2-link chain (one tree, 2 dofs, dense 2×2 mass block) with a velocity equality
// on joint 1 and a lower limit on joint 2: closed forms from the 2×2 linear algebra of
// the active rows, (M⁻¹ + C) λ = target − v_free.

#include <gtest/gtest.h>

#include <cmath>

#include "spook_test_util.h"

namespace graspsim::spook {
namespace {

using spook_test::RowBuilder;

// Point masses m1, m2 at the ends of links l1, l2, joint angle q2 (double pendulum).
MatX chain_mass(double q2) {
  const double m1 = 1.5, m2 = 0.7, l1 = 0.4, l2 = 0.3;
  MatX M(2, 2);
  M(0, 0) = (m1 + m2) * l1 * l1 + m2 * l2 * l2 + 2 * m2 * l1 * l2 * std::cos(q2);
  M(0, 1) = M(1, 0) = m2 * l2 * l2 + m2 * l1 * l2 * std::cos(q2);
  M(1, 1) = m2 * l2 * l2;
  return M;
}

struct Chain {
  MatX M = chain_mass(0.8);
  Eigen::Vector2d v_free{0.5, -1.2};
  double target1 = 0.3, c1 = 1e-3, c2 = 1e-4;

  Problem problem(RowKind kind1, double lo1, double hi1) const {
    Problem p;
    p.nv = 2;
    p.trees.push_back(spook_test::make_tree(0, M));
    p.v_free = v_free;
    RowBuilder rb(p);
    rb.add({{0, 1.0}}, kind1, target1, c1, lo1, hi1);
    rb.add({{1, 1.0}}, RowKind::Limit, 0.0, c2, 0.0, kInf);  // joint 2 may not move negatively
    rb.finish();
    return p;
  }
};

// PGS on a coupled 2×2 block converges geometrically; 400 sweeps reach rounding here.
const std::pair<SolverType, int> kSolvers[] = {
    {SolverType::Direct, 1}, {SolverType::Split, 1}, {SolverType::DirectIterative, 1}, {SolverType::Iterative, 400}};

TEST(SpookChain, EqualityAndActiveLimitMatchTheLinearSolve) {
  const Chain chain;
  const MatX K = MatX(chain.M.inverse()) + MatX(Eigen::Vector2d(chain.c1, chain.c2).asDiagonal());
  const Eigen::Vector2d expected = K.inverse() * (Eigen::Vector2d(chain.target1, 0.0) - chain.v_free);
  ASSERT_GT(expected[1], 0.0) << "the limit must be active for this test";
  for (auto [solver, n] : kSolvers) {
    const Solution sol = solve(chain.problem(RowKind::Equality, -kInf, kInf), solver, n);
    EXPECT_LT((sol.lambda - expected).norm(), 1e-12 * expected.norm()) << to_string(solver);
    // v⁺ = v_free + M⁻¹λ satisfies each row: v⁺_i + c_i λ_i = target_i.
    EXPECT_NEAR(sol.v[0] + chain.c1 * sol.lambda[0], chain.target1, 1e-12) << to_string(solver);
    EXPECT_NEAR(sol.v[1] + chain.c2 * sol.lambda[1], 0.0, 1e-12) << to_string(solver);
  }
}

TEST(SpookChain, InactiveLimitLeavesOnlyTheEquality) {
  Chain chain;
  chain.v_free = Eigen::Vector2d(0.5, 2.0);  // joint 2 moves away from its limit
  const MatX Minv = chain.M.inverse();
  const double l1 = (chain.target1 - chain.v_free[0]) / (Minv(0, 0) + chain.c1);
  ASSERT_GT(chain.v_free[1] + Minv(1, 0) * l1, 0.0) << "the limit must stay inactive";
  for (auto [solver, n] : kSolvers) {
    const Solution sol = solve(chain.problem(RowKind::Equality, -kInf, kInf), solver, n);
    EXPECT_NEAR(sol.lambda[0], l1, 1e-12 * std::abs(l1)) << to_string(solver);
    EXPECT_EQ(sol.lambda[1], 0.0) << to_string(solver);
  }
}

TEST(SpookChain, SaturatedMotorHoldsItsBoundAndTheLimitTakesTheRest) {
  // The motor row gets bounds ±half of the impulse it would need (the equality case), so it
  // saturates on that side; the limit row then solves its 1×1 equation given it.
  const Chain chain;
  const MatX Minv = chain.M.inverse();
  const MatX K = Minv + MatX(Eigen::Vector2d(chain.c1, chain.c2).asDiagonal());
  const double needed = (K.inverse() * (Eigen::Vector2d(chain.target1, 0.0) - chain.v_free))[0];
  const double bound = 0.5 * std::abs(needed);
  const double l1 = std::copysign(bound, needed);
  const double l2 = (-chain.v_free[1] - Minv(1, 0) * l1) / (Minv(1, 1) + chain.c2);
  ASSERT_GT(l2, 0.0) << "the limit must stay active";
  for (auto [solver, n] : kSolvers) {
    const Solution sol = solve(chain.problem(RowKind::Bounded, -bound, bound), solver, n);
    EXPECT_EQ(sol.lambda[0], l1) << to_string(solver);
    EXPECT_NEAR(sol.lambda[1], l2, 1e-12 * std::abs(l2)) << to_string(solver);
    // At the bound the row's residual w = v⁺ + c λ − target points outwards.
    EXPECT_GE(std::copysign(1.0, needed) * (chain.target1 - sol.v[0] - chain.c1 * sol.lambda[0]), 0.0)
        << to_string(solver);
  }
}

}  // namespace
}  // namespace graspsim::spook
