// A planar 2-link chain (one tree, 2 dofs, dense 2×2 mass block) with a velocity equality
// on joint 1 and a lower limit on joint 2: closed forms from the 2×2 linear algebra of
// the active rows, (M⁻¹ + C) λ = target − v_free.

#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "spook/operators.h"
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


// Twin rows (Operators::twin): a servo-like row (compliance c1, target t1, effort bounds) and
// a dry-friction-like row (tiny compliance, target 0, ±F) on the same dof of a 3-dof tree.
// Row by row, PGS converges on their 2×2 block at the rate d / (d + c1) a sweep; as twins one
// sweep solves the block exactly, so it gives Direct's λ (the MLCP's unique solution) in
// every case of bounds: both inside, the friction at ±F, the servo at its effort limit.
TEST(SpookTwinRows, OneSweepSolvesTheirBlockExactly) {
  const MatX M = chain_mass(0.8);
  MatX M3 = MatX::Identity(3, 3) * 0.05;
  M3.topLeftCorner(2, 2) = M;
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  int at_bound = 0, inside = 0;
  for (int trial = 0; trial < 200; ++trial) {
    Problem p;
    p.nv = 3;
    p.trees.push_back(spook_test::make_tree(0, M3));
    p.v_free = Eigen::Vector3d(u(rng), u(rng), u(rng));
    const double effort = trial % 3 == 0 ? 0.1 : kInf, F = 0.1 * (u(rng) + 1.1);
    RowBuilder rb(p);
    rb.add({{1, 1.0}}, RowKind::Bounded, 0.3 * u(rng), 0.5, -effort, effort);
    rb.add({{1, 1.0}}, RowKind::Bounded, 0.0, 1e-9, -F, F);
    rb.add({{0, 1.0}}, RowKind::Bounded, 0.0, 1e-9, -F, F);  // (a row on another dof: no twin)
    rb.finish();
    const Operators ops = make_operators(p);
    ASSERT_EQ(ops.twin[0], 1);
    ASSERT_EQ(ops.twin[1], -2);
    ASSERT_EQ(ops.twin[2], -1);
    ASSERT_TRUE(ops.twin_same[0]);
    const Solution exact = solve(p, SolverType::Direct, 1);
    // Rows 0, 1 against row 2 still converge only across sweeps: enough of them to reach
    // rounding, where row by row the pair alone would need ~1e8 (d / (d + c1) ≈ 1 − 1e-8).
    const Solution pgs = solve(p, SolverType::Iterative, 200);
    EXPECT_LT((pgs.lambda - exact.lambda).cwiseAbs().maxCoeff(), 1e-10) << "trial " << trial;
    const bool bound = std::abs(std::abs(exact.lambda[1]) - F) < 1e-12 || std::abs(std::abs(exact.lambda[0]) - effort) < 1e-12;
    (bound ? at_bound : inside)++;
  }
  EXPECT_GT(at_bound, 20);
  EXPECT_GT(inside, 20);
}

// Rows on one dof whose J differ this step (a servo with a gear of 2) are not solved as a
// block: they are swept one after the other, and still converge to Direct's solution.
TEST(SpookTwinRows, RowsWithDifferentValuesAreSweptOneByOne) {
  Problem p;
  p.nv = 3;
  MatX M3 = MatX::Identity(3, 3) * 0.05;
  M3.topLeftCorner(2, 2) = chain_mass(0.8);
  p.trees.push_back(spook_test::make_tree(0, M3));
  p.v_free = Eigen::Vector3d(0.4, -0.3, 0.2);
  RowBuilder rb(p);
  rb.add({{1, 2.0}}, RowKind::Bounded, 0.1, 1e-1, -kInf, kInf);
  rb.add({{1, 1.0}}, RowKind::Bounded, 0.0, 1e-1, -0.01, 0.01);
  rb.finish();
  const Operators ops = make_operators(p);
  ASSERT_EQ(ops.twin[0], 1);
  EXPECT_FALSE(ops.twin_same[0]);
  const Solution exact = solve(p, SolverType::Direct, 1);
  const Solution pgs = solve(p, SolverType::Iterative, 400);
  EXPECT_LT((pgs.lambda - exact.lambda).cwiseAbs().maxCoeff(), 1e-10);
}

}  // namespace
}  // namespace graspsim::spook
