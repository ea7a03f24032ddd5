// Lemke's method against brute-force enumeration of complementary bases, and the friction
// projections: the solvers module on its own, without any formulation's problem.

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <random>

#include "solvers/friction_projection.h"
#include "solvers/lcp.h"

namespace graspsim {
namespace {

// The LCP's solution by trying every complementary basis (n ≤ 10): for a P-matrix exactly
// one basis gives z ≥ 0, w ≥ 0.
VecX brute_force_lcp(const MatX& M, const VecX& q) {
  const int n = static_cast<int>(q.size());
  for (int mask = 0; mask < (1 << n); ++mask) {
    std::vector<int> b;
    for (int i = 0; i < n; ++i)
      if (mask & (1 << i)) b.push_back(i);
    VecX z = VecX::Zero(n);
    if (!b.empty()) {
      MatX Mbb(b.size(), b.size());
      VecX qb(b.size());
      for (size_t r = 0; r < b.size(); ++r) {
        qb[r] = q[b[r]];
        for (size_t c = 0; c < b.size(); ++c) Mbb(r, c) = M(b[r], b[c]);
      }
      const VecX zb = Mbb.partialPivLu().solve(-qb);
      for (size_t r = 0; r < b.size(); ++r) z[b[r]] = zb[r];
    }
    const VecX w = M * z + q;
    if (z.minCoeff() >= -1e-12 && w.minCoeff() >= -1e-12) return z;
  }
  ADD_FAILURE() << "no complementary basis solves the LCP";
  return VecX::Zero(n);
}

// Symmetric positive definite M (the SPOOK normal LCP's kind) and nonsymmetric P-matrices
// (diagonally dominant): the solution is unique, so Lemke must find that one.
TEST(Lemke, MatchesBruteForceOnPMatrixLcps) {
  std::mt19937_64 rng(17);
  std::normal_distribution<double> g(0.0, 1.0);
  for (int trial = 0; trial < 200; ++trial) {
    const int n = 1 + trial % 8;
    MatX A(n, n);
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j) A(i, j) = g(rng);
    MatX M = trial % 2 ? MatX(A * A.transpose() + 0.1 * MatX::Identity(n, n))
                       : MatX(A + (A.cwiseAbs().rowwise().sum().maxCoeff() + 0.5) * MatX::Identity(n, n));
    VecX q(n);
    for (int i = 0; i < n; ++i) q[i] = g(rng);
    const LcpResult r = solve_lcp_lemke(M, q);
    ASSERT_TRUE(r.ok) << "trial " << trial;
    const VecX expected = brute_force_lcp(M, q);
    EXPECT_LT((r.z - expected).norm(), 1e-9 * (1.0 + expected.norm())) << "trial " << trial;
    EXPECT_LT(lcp_residual(M, q, r.z), 1e-9) << "trial " << trial;
  }
}

// Textbook Lemke on the full tableau [I  −M  −e | q] (covering vector e, no scaling, no
// perturbation), counting the pivots after z0 enters: on a nondegenerate LCP with a unit
// diagonal (where solve_lcp_lemke's scaling is the identity) the path is unique, so its
// length checks the library's pivoting, which its final polish would otherwise hide.
int textbook_lemke_pivots(const MatX& M, const VecX& q) {
  const int n = static_cast<int>(q.size());
  MatX T(n, 2 * n + 2);
  T << MatX::Identity(n, n), -M, -VecX::Ones(n), q;
  std::vector<int> basis(n);
  for (int i = 0; i < n; ++i) basis[i] = i;
  auto pivot = [&](int r, int var) {
    T.row(r) /= T(r, var);
    for (int i = 0; i < n; ++i)
      if (i != r) T.row(i) -= T(i, var) * T.row(r);
    const int left = basis[r];
    basis[r] = var;
    return left;
  };
  int r0 = 0;
  q.minCoeff(&r0);
  int entering = n + r0;
  pivot(r0, 2 * n);
  for (int pivots = 1; pivots < 10 * n; ++pivots) {
    int r = -1;
    for (int i = 0; i < n; ++i)
      if (T(i, entering) > 1e-12 && (r < 0 || T(i, 2 * n + 1) / T(i, entering) < T(r, 2 * n + 1) / T(r, entering)))
        r = i;
    if (r < 0) return -1;
    const int left = pivot(r, entering);
    if (left == 2 * n) return pivots;
    entering = left < n ? left + n : left - n;
  }
  return -1;
}

// Larger LCPs pivot on many rows, so most columns of Lemke's B⁻¹ leave the identity (the
// columns it skips while they are e_j): the path is the textbook one, the answer meets the
// LCP's conditions, and the polish's factors, handed to the active set, reproduce it.
TEST(Lemke, LargeLcpsFollowTheTextbookPathAndHandTheirFactorsToTheActiveSet) {
  std::mt19937_64 rng(23);
  std::normal_distribution<double> g(0.0, 1.0);
  for (int trial = 0; trial < 12; ++trial) {
    const int n = 40 + 10 * trial;
    MatX A(n, n);
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j) A(i, j) = g(rng);
    MatX M = A * A.transpose() / n + 0.05 * MatX::Identity(n, n);
    const VecX d = M.diagonal().cwiseSqrt().cwiseInverse();
    M = d.asDiagonal() * M * d.asDiagonal();  // unit diagonal
    VecX q(n);
    for (int i = 0; i < n; ++i) q[i] = g(rng);
    const LcpResult r = solve_lcp_lemke(M, q);
    ASSERT_TRUE(r.ok) << "trial " << trial;
    EXPECT_EQ(r.pivots, textbook_lemke_pivots(M, q)) << "trial " << trial;
    EXPECT_GT(r.pivots, n / 4) << "trial " << trial;
    const VecX w = M * r.z + q;
    EXPECT_GE(r.z.minCoeff(), 0.0);
    EXPECT_GT(w.minCoeff(), -1e-9) << "trial " << trial;
    EXPECT_LT(std::abs(r.z.dot(w)), 1e-9 * (1.0 + r.z.norm())) << "trial " << trial;
    ASSERT_TRUE(r.factored) << "trial " << trial;
    LcpActiveSet kept, fresh;
    kept.set(M, r.basic, &r.lu);
    fresh.set(M, r.basic);
    VecX zk, zf;
    ASSERT_TRUE(fresh.try_solve(M, q, zf)) << "trial " << trial;
    ASSERT_TRUE(kept.try_solve(M, q, zk)) << "trial " << trial;
    EXPECT_EQ(zk, zf) << "trial " << trial;
  }
}

// An infeasible LCP (w = −z − 1 can never be ≥ 0 with z ≥ 0) ends on a ray: reported.
TEST(Lemke, ReportsInfeasibleLcps) {
  const MatX M = -MatX::Identity(3, 3);
  const VecX q = -VecX::Ones(3);
  EXPECT_FALSE(solve_lcp_lemke(M, q).ok);
}

// q ≥ 0: z = 0 is the solution, found without pivots.
TEST(Lemke, TrivialSolutionNeedsNoPivots) {
  const MatX M = MatX::Identity(4, 4);
  const LcpResult r = solve_lcp_lemke(M, VecX::Ones(4));
  ASSERT_TRUE(r.ok);
  EXPECT_EQ(r.z, VecX::Zero(4));
  EXPECT_EQ(r.pivots, 0);
}

TEST(FrictionProjection, DiskScalesOntoTheRimAndKeepsInsidePoints) {
  double x = 3.0, y = 4.0;
  project_disk(x, y, 1.0);
  EXPECT_NEAR(x, 0.6, 1e-15);
  EXPECT_NEAR(y, 0.8, 1e-15);
  x = 0.1, y = -0.2;
  project_disk(x, y, 1.0);
  EXPECT_EQ(x, 0.1);
  EXPECT_EQ(y, -0.2);
  EXPECT_EQ(project_box(5.0, -1.0, 2.0), 2.0);
  EXPECT_EQ(project_box(-5.0, -1.0, 2.0), -1.0);
}

// project_disk skips the square root well inside the disk: its result must be, bit for bit,
// that of the plain rule (scale when √(x² + y²) > radius) on and next to the rim, at radii
// from subnormal-squared to large, where a margin too thin for radius²'s rounding would
// keep a point the plain rule scales.
TEST(FrictionProjection, DiskShortcutGivesThePlainRulesBits) {
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> angle(0.0, 6.283185307179586), offset(-1e-11, 1e-11);
  for (double radius : {0.0, 1e-300, 1e-160, 1e-150, 1e-149, 1e-8, 0.3, 1.0, 7.0, 1e150}) {
    for (int trial = 0; trial < 2000; ++trial) {
      const double a = angle(rng), scale = 1.0 + (trial % 4 == 0 ? 0.0 : offset(rng));
      double x = radius * scale * std::cos(a), y = radius * scale * std::sin(a);
      if (trial % 7 == 0) x = std::nextafter(x, 0.0);
      double px = x, py = y;
      const double norm = std::sqrt(x * x + y * y);
      if (norm > radius) px *= radius / norm, py *= radius / norm;
      double sx = x, sy = y;
      project_disk(sx, sy, radius);
      ASSERT_EQ(std::bit_cast<std::uint64_t>(sx), std::bit_cast<std::uint64_t>(px)) << radius << " " << trial;
      ASSERT_EQ(std::bit_cast<std::uint64_t>(sy), std::bit_cast<std::uint64_t>(py)) << radius << " " << trial;
    }
  }
}

// The capped-simplex projection is the closest point: no other feasible point on a fine
// random sample is closer, and the result is feasible.
TEST(FrictionProjection, CappedSimplexIsTheClosestFeasiblePoint) {
  std::mt19937_64 rng(3);
  std::uniform_real_distribution<double> u(-1.0, 2.0), u01(0.0, 1.0);
  for (int trial = 0; trial < 50; ++trial) {
    const int k = 2 + trial % 6;
    VecX x(k);
    for (int i = 0; i < k; ++i) x[i] = u(rng);
    const double cap = 1.5 * u01(rng);
    const VecX y = project_capped_simplex(x, cap);
    EXPECT_GE(y.minCoeff(), 0.0);
    EXPECT_LE(y.sum(), cap + 1e-12);
    for (int s = 0; s < 300; ++s) {
      VecX p(k);
      for (int i = 0; i < k; ++i) p[i] = u01(rng);
      p *= cap * u01(rng) / std::max(p.sum(), 1e-12);
      EXPECT_LE((y - x).norm(), (p - x).norm() + 1e-12);
    }
  }
}

}  // namespace
}  // namespace graspsim
