// The complementarity branch and bound against brute-force enumeration of the big-M MIQP's
// binaries and against Bonmin, on random instances (feasible and infeasible), with and
// without mode hints.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "../common/trials.h"
#include "core/error.h"
#include "solvers/complementarity_qp.h"

namespace graspsim {
namespace {

// ny free variables with curvature, np pairs w = W x + w0 ⊥ λ, one general row. The
// constant terms decide feasibility: w0 ≥ 0 keeps x = 0 feasible. `distance`: the impulses
// cost nothing, so the objective is a distance in the curved variables (the quasistatic
// MIQP's form, which the node solver takes by Wolfe's minimum-norm point; otherwise by the
// active-set QP).
ComplementarityQp random_problem(std::mt19937& rng, int ny, int np, bool maybe_infeasible, bool distance = false) {
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  const int n = ny + np;
  ComplementarityQp p;
  p.big_m = 10.0;
  p.H = MatX::Zero(n, n);
  p.c = VecX::Zero(n);
  for (int i = 0; i < ny; ++i) {
    p.H(i, i) = 1.0 + 0.5 * (u(rng) + 1.0);
    p.c[i] = u(rng);
  }
  for (int j = 0; j < np; ++j) p.c[ny + j] = distance ? 0.0 : 0.2 * u(rng);  // impulses may cost or pay
  p.x_lo = VecX::Constant(n, -kInf);
  p.x_hi = VecX::Constant(n, kInf);
  p.W = MatX::Zero(np, n);
  p.w0 = VecX::Zero(np);
  for (int j = 0; j < np; ++j) {
    for (int i = 0; i < ny; ++i) p.W(j, i) = u(rng);
    for (int k = 0; k < np; ++k) p.W(j, ny + k) = (k == j ? 1.0 : 0.3 * u(rng));
    p.w0[j] = maybe_infeasible ? u(rng) : 0.5 * (u(rng) + 1.0);
    p.lambda.push_back(ny + j);
  }
  p.A = MatX::Zero(1, n);
  for (int i = 0; i < n; ++i) p.A(0, i) = u(rng);
  p.row_lo = VecX::Constant(1, -1.0);
  p.row_hi = VecX::Constant(1, 1.0);
  return p;
}

void expect_same(const MiqpResult& a, const MiqpResult& b, const ComplementarityQp& p) {
  ASSERT_EQ(a.status == MiqpStatus::Optimal, b.status == MiqpStatus::Optimal) << a.message << " / " << b.message;
  if (a.status != MiqpStatus::Optimal) {
    EXPECT_EQ(a.status, MiqpStatus::Infeasible);
    EXPECT_EQ(b.status, MiqpStatus::Infeasible);
    return;
  }
  EXPECT_NEAR(a.objective, b.objective, 1e-8 + 1e-7 * std::abs(b.objective));
  // Complementary and feasible, checked from the problem.
  const VecX w = p.W * a.x + p.w0;
  for (int j = 0; j < p.np(); ++j) {
    EXPECT_GE(w[j], -1e-8);
    EXPECT_GE(a.x[p.lambda[j]], -1e-8);
    EXPECT_LE(std::min(std::abs(w[j]), std::abs(a.x[p.lambda[j]])), 1e-8);
  }
  const double row = p.A.row(0).dot(a.x);
  EXPECT_GE(row, p.row_lo[0] - 1e-8);
  EXPECT_LE(row, p.row_hi[0] + 1e-8);
}

TEST(ComplementarityQp, BigMFormHasThreeRowsPerPair) {
  std::mt19937 rng(1);
  const ComplementarityQp p = random_problem(rng, 2, 3, false);
  const MixedIntegerQp q = big_m_miqp(p);
  EXPECT_EQ(q.nz(), 3);
  EXPECT_EQ(q.m(), 1 + 3 * 3);
  EXPECT_EQ(q.B(1 + 1, 0), -p.big_m);  // w − M z ≤ 0
  EXPECT_EQ(q.B(1 + 2, 0), p.big_m);   // λ + M z ≤ M
  EXPECT_EQ(q.row_hi[1 + 2], p.big_m);
}

TEST(ComplementarityQp, BranchAndBoundMatchesEnumerationOnRandomProblems) {
  std::mt19937 rng(2024);
  int feasible = 0, infeasible = 0;
  for (int t = 0; t < 60; t += test::kTrialStride) {
    SCOPED_TRACE(t);
    const ComplementarityQp p = random_problem(rng, 1 + t % 3, 2 + t % 4, t % 3 == 0, t >= 30);
    const MiqpResult bb = solve_complementarity_bb(p);
    const MiqpResult all = solve_miqp_enumerate(big_m_miqp(p));
    ASSERT_NE(all.status, MiqpStatus::Failed) << all.message;
    expect_same(bb, all, p);
    (bb.status == MiqpStatus::Optimal ? feasible : infeasible)++;
  }
  EXPECT_GT(feasible, test::trial_count(60) / 2);
}

// The objective's least value over the bounds alone (λ in [0, M]): each coordinate on its own.
double floor_over_bounds(const ComplementarityQp& p) {
  VecX lo = p.x_lo, hi = p.x_hi;
  for (int j : p.lambda) {
    lo[j] = 0.0;
    hi[j] = p.big_m;
  }
  double f = 0.0;
  for (int i = 0; i < p.n(); ++i) {
    const double h = p.H(i, i);
    const double x = h > 0 ? std::clamp(-p.c[i] / h, lo[i], hi[i]) : (p.c[i] < 0 ? hi[i] : lo[i]);
    f += 0.5 * h * x * x + p.c[i] * x;
  }
  return f;
}

// gap_rel is relative to the objective above that floor (Gurobi's MIPGap on an objective
// whose constant is the floor): an incumbent within gap_rel (best − floor) of every bound is
// returned as optimal, so the true optimum is at most that far below it, never above.
TEST(ComplementarityQp, ARelativeGapIsMeasuredAboveTheObjectivesFloor) {
  std::mt19937 rng(11);
  ComplementarityBbOptions o;
  o.gap_rel = 0.2;
  int optimal = 0, inexact = 0;
  for (int t = 0; t < 20; t += test::kTrialStride) {
    SCOPED_TRACE(t);
    const ComplementarityQp p = random_problem(rng, 1 + t % 3, 2 + t % 4, t % 3 == 0, t % 2 == 0);
    const MiqpResult bb = solve_complementarity_bb(p, o);
    const MiqpResult all = solve_miqp_enumerate(big_m_miqp(p));
    ASSERT_NE(all.status, MiqpStatus::Failed) << all.message;
    if (all.status == MiqpStatus::Infeasible) {
      EXPECT_EQ(bb.status, MiqpStatus::Infeasible);
      continue;
    }
    ASSERT_EQ(bb.status, MiqpStatus::Optimal) << bb.message;
    ++optimal;
    const double floor = floor_over_bounds(p);
    EXPECT_LE(floor, all.objective + 1e-9);
    EXPECT_GE(bb.objective, all.objective - 1e-8 - 1e-7 * std::abs(all.objective));
    EXPECT_LE(bb.objective - all.objective, o.gap_rel * (bb.objective - floor) + 1e-8);
    if (bb.objective > all.objective + 1e-6) ++inexact;
  }
  EXPECT_GT(optimal, test::trial_count(20) / 2);
  if (test::kTrialStride == 1) {  // the sanitizer job's subset has no such problem
    EXPECT_GT(inexact, 0);  // the gap was used: an incumbent above the optimum was accepted
  }
}

TEST(ComplementarityQp, EachNodeQpAloneMatchesEnumerationOnDistanceObjectives) {
  using NodeQp = ComplementarityBbOptions::NodeQp;
  for (NodeQp method : {NodeQp::ActiveSet, NodeQp::MinNormPoint}) {
    std::mt19937 rng(31);
    ComplementarityBbOptions o;
    o.node_qp = method;
    for (int t = 0; t < 30; t += test::kTrialStride) {
      SCOPED_TRACE(t);
      const ComplementarityQp p = random_problem(rng, 1 + t % 3, 2 + t % 5, t % 3 == 0, true);
      const MiqpResult bb = solve_complementarity_bb(p, o);
      const MiqpResult all = solve_miqp_enumerate(big_m_miqp(p));
      ASSERT_NE(all.status, MiqpStatus::Failed) << all.message;
      expect_same(bb, all, p);
    }
  }
}

TEST(ComplementarityQp, NodeLimitReturnsAFeasibleIncumbentAsUnproven) {
  std::mt19937 rng(7);
  int stopped = 0;
  for (int t = 0; t < 10; ++t) {
    SCOPED_TRACE(t);
    const ComplementarityQp p = random_problem(rng, 3, 10, false, t % 2 == 0);
    ComplementarityBbOptions o;
    o.max_nodes = 4;
    const MiqpResult r = solve_complementarity_bb(p, o);
    if (r.status == MiqpStatus::Optimal) continue;  // finished within 4 nodes
    ++stopped;
    if (r.status == MiqpStatus::Failed) {  // no complementary point yet
      EXPECT_EQ(r.x.size(), 0);
      continue;
    }
    ASSERT_EQ(r.status, MiqpStatus::Feasible) << r.message;
    EXPECT_NE(r.message.find("not proven"), std::string::npos) << r.message;
    const MiqpResult full = solve_complementarity_bb(p);
    ASSERT_EQ(full.status, MiqpStatus::Optimal) << full.message;
    EXPECT_GE(r.objective, full.objective - 1e-9);  // an upper bound on the optimum
    const VecX w = p.W * r.x + p.w0;
    for (int j = 0; j < p.np(); ++j) {
      EXPECT_GE(w[j], -1e-8);
      EXPECT_GE(r.x[p.lambda[j]], -1e-8);
      EXPECT_LE(std::min(w[j], r.x[p.lambda[j]]), 1e-8);
    }
    const double row = p.A.row(0).dot(r.x);
    EXPECT_GE(row, p.row_lo[0] - 1e-8);
    EXPECT_LE(row, p.row_hi[0] + 1e-8);
  }
  EXPECT_GT(stopped, 0);  // the limit was reached at least once
}

TEST(ComplementarityQp, ProvesInfeasibilityTheRelaxationMisses) {
  // w = 1 − λ ⊥ λ with 0.2 ≤ λ ≤ 0.8: the relaxation is feasible (λ = 0.5), but λ = 0 and
  // w = 0 (λ = 1) both break the row.
  ComplementarityQp p;
  p.H = MatX::Zero(2, 2);
  p.H(0, 0) = 2.0;
  p.c = VecX::Zero(2);
  p.x_lo = Eigen::Vector2d(-kInf, -kInf);
  p.x_hi = Eigen::Vector2d(kInf, kInf);
  p.W = MatX::Zero(1, 2);
  p.W(0, 1) = -1.0;
  p.w0 = VecX::Ones(1);
  p.lambda = {1};
  p.A = MatX::Zero(1, 2);
  p.A(0, 1) = 1.0;
  p.row_lo = VecX::Constant(1, 0.2);
  p.row_hi = VecX::Constant(1, 0.8);
  const MiqpResult bb = solve_complementarity_bb(p);
  EXPECT_EQ(bb.status, MiqpStatus::Infeasible) << bb.message;
  EXPECT_EQ(solve_miqp_enumerate(big_m_miqp(p)).status, MiqpStatus::Infeasible);
  p.row_hi[0] = 1.0;  // now λ = 1, w = 0 is allowed
  const MiqpResult ok = solve_complementarity_bb(p);
  ASSERT_EQ(ok.status, MiqpStatus::Optimal) << ok.message;
  EXPECT_NEAR(ok.x[1], 1.0, 1e-9);
  EXPECT_EQ(ok.z[0], 0.0);  // z = 0: the gap side is zero
}

TEST(ComplementarityQp, MatchesBonminAndIgnoresTheHint) {
  std::mt19937 rng(99);
  std::bernoulli_distribution coin(0.5);
  for (int t = 0; t < 10; t += test::kTrialStride) {
    SCOPED_TRACE(t);
    const ComplementarityQp p = random_problem(rng, 3, 8, false);
    const MiqpResult bonmin = solve_miqp_bonmin(big_m_miqp(p));
    ComplementarityBbOptions o;
    for (int j = 0; j < p.np(); ++j) o.mode_hint.push_back(coin(rng) ? 1 : 0);
    expect_same(solve_complementarity_bb(p, o), bonmin, p);
    expect_same(solve_complementarity_bb(p), bonmin, p);
  }
}

TEST(ComplementarityQp, HeuristicHintsKeepBonminsOptimum) {
  // Hints whole and partial (−1: left to a dive), on both objective forms: they only seed
  // the incumbent, so the proven optimum is Bonmin's.
  std::mt19937 rng(5);
  std::uniform_int_distribution<int> mode(-1, 1);
  for (int t = 0; t < 8; t += test::kTrialStride) {
    SCOPED_TRACE(t);
    const ComplementarityQp p = random_problem(rng, 3, 8, false, t % 2 == 0);
    const MiqpResult bonmin = solve_miqp_bonmin(big_m_miqp(p));
    std::vector<std::vector<int>> hints(3, std::vector<int>(p.np()));
    for (auto& h : hints)
      for (int& z : h) z = mode(rng);
    int asked = 0;
    ComplementarityBbOptions o;
    o.heuristic_hints = [&] {
      ++asked;
      return hints;
    };
    expect_same(solve_complementarity_bb(p, o), bonmin, p);
    EXPECT_EQ(asked, 1);
  }
}

TEST(ComplementarityQp, HeuristicsAreAskedOnlyOnceTheSearchRunsLongWithAnIncumbent) {
  // The mode hint of the optimum gives the first incumbent: the heuristics (dear on the 3D
  // pick) wait for hints_after_nodes nodes; at 0 they are asked at once. The optimum is the
  // enumeration's either way.
  std::mt19937 rng(11);
  const ComplementarityQp p = random_problem(rng, 3, 4, false);
  const MiqpResult all = solve_miqp_enumerate(big_m_miqp(p));
  ASSERT_EQ(all.status, MiqpStatus::Optimal) << all.message;
  for (int after : {0, 1000000}) {
    SCOPED_TRACE(after);
    ComplementarityBbOptions o;
    for (int j = 0; j < p.np(); ++j) o.mode_hint.push_back(all.z[j] > 0.5 ? 1 : 0);
    o.hints_after_nodes = after;
    int asked = 0;
    o.heuristic_hints = [&] {
      ++asked;
      return std::vector<std::vector<int>>{};
    };
    const MiqpResult r = solve_complementarity_bb(p, o);
    ASSERT_EQ(r.status, MiqpStatus::Optimal) << r.message;
    EXPECT_NEAR(r.objective, all.objective, 1e-8 + 1e-7 * std::abs(all.objective));
    EXPECT_EQ(asked, after == 0 ? 1 : 0);
  }
}

TEST(ComplementarityQp, AnIncumbentAtTheObjectivesFloorEndsTheSearch) {
  // The pairs do not involve the curved variables, so their unconstrained optimum with every
  // λ = 0 is complementary: the hint that says so is optimal at once, proven by the floor of
  // the objective over the bounds, and the heuristics are not asked.
  std::mt19937 rng(3);
  ComplementarityQp p = random_problem(rng, 3, 6, false);
  p.W.leftCols(3).setZero();
  p.A.setZero();  // the general row 0 ∈ [−1, 1] holds anywhere
  p.c.tail(6).setConstant(0.1);  // impulses cost: λ = 0 is best
  ComplementarityBbOptions o;
  o.mode_hint.assign(6, 1);
  bool asked = false;
  o.heuristic_hints = [&] {
    asked = true;
    return std::vector<std::vector<int>>{};
  };
  const MiqpResult r = solve_complementarity_bb(p, o);
  ASSERT_EQ(r.status, MiqpStatus::Optimal) << r.message;
  EXPECT_EQ(r.nodes, 1);
  EXPECT_FALSE(asked);
  for (int i = 0; i < 3; ++i) EXPECT_NEAR(r.x[i], -p.c[i] / p.H(i, i), 1e-9);
  expect_same(r, solve_miqp_bonmin(big_m_miqp(p)), p);
}

TEST(ComplementarityQp, AClosedGapLetsAPatchCloseItsPointsTogether) {
  // Two points of one patch, 4 nm apart in gap, must both carry load (λ1 = λ2 = 0.5: force
  // and moment balance) while the patch moves by one displacement d pushed to −1:
  // w1 = d, w2 = 4e-9 + d. Exact closure of both is impossible; within a closed gap of
  // 1e-8 the patch closes at d = 0 (w2 = 4 nm), and nothing penetrates.
  ComplementarityQp p;
  p.big_m = 10.0;
  p.H = MatX::Zero(3, 3);
  p.H(0, 0) = 2.0;
  p.c = Eigen::Vector3d(2.0, 0.0, 0.0);
  p.x_lo = Eigen::Vector3d(-10.0, 0.0, 0.0);
  p.x_hi = Eigen::Vector3d::Constant(10.0);
  p.W = MatX::Zero(2, 3);
  p.W(0, 0) = p.W(1, 0) = 1.0;
  p.w0 = Eigen::Vector2d(0.0, 4e-9);
  p.lambda = {1, 2};
  p.A = MatX::Zero(2, 3);
  p.A.row(0) << 0.0, 1.0, 1.0;
  p.A.row(1) << 0.0, 1.0, -1.0;
  p.row_lo = Eigen::Vector2d(1.0, 0.0);
  p.row_hi = p.row_lo;
  const MiqpResult exact = solve_complementarity_bb(p);
  EXPECT_EQ(exact.status, MiqpStatus::Infeasible) << exact.message;
  p.closed_gap = Eigen::Vector2d::Constant(1e-8);
  const MiqpResult r = solve_complementarity_bb(p);
  ASSERT_EQ(r.status, MiqpStatus::Optimal) << r.message;
  EXPECT_NEAR(r.x[0], 0.0, 1e-10);
  EXPECT_NEAR(r.x[1], 0.5, 1e-10);
  EXPECT_NEAR(r.x[2], 0.5, 1e-10);
  EXPECT_EQ(r.z[0], 0.0);
  EXPECT_EQ(r.z[1], 0.0);
  // The big-M form carries the same tolerance: enumeration of its binaries agrees.
  const MiqpResult all = solve_miqp_enumerate(big_m_miqp(p));
  ASSERT_EQ(all.status, MiqpStatus::Optimal) << all.message;
  EXPECT_NEAR(all.objective, r.objective, 1e-9);  // the enumeration QP's own tolerance
  p.closed_gap = Eigen::Vector2d(1e-8, -1e-9);
  EXPECT_THROW(solve_complementarity_bb(p), InputError);
}

TEST(ComplementarityQp, RefusesANonDiagonalHessian) {
  std::mt19937 rng(3);
  ComplementarityQp p = random_problem(rng, 2, 2, false);
  p.H(0, 1) = p.H(1, 0) = 0.1;
  EXPECT_THROW(solve_complementarity_bb(p), InputError);
}

}  // namespace
}  // namespace graspsim
