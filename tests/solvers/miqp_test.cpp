// The mixed-integer QP solver (Bonmin's B-BB) against closed forms, hand-solved instances and
// brute-force enumeration of the binaries.

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <thread>

#include "../common/trials.h"
#include "core/error.h"
#include "solvers/lcp.h"
#include "solvers/miqp.h"

namespace graspsim {
namespace {


// An empty problem with n continuous variables, nz binaries and m rows: H = 0, c = 0, free
// bounds, rows free on both sides.
MixedIntegerQp empty_qp(int n, int nz, int m) {
  MixedIntegerQp p;
  p.H = MatX::Zero(n, n);
  p.c = VecX::Zero(n);
  p.A = MatX::Zero(m, n);
  p.B = MatX::Zero(m, nz);
  p.row_lo = VecX::Constant(m, -kInf);
  p.row_hi = VecX::Constant(m, kInf);
  p.x_lo = VecX::Constant(n, -kInf);
  p.x_hi = VecX::Constant(n, kInf);
  return p;
}

// The largest violation of the rows, bounds and integrality by (x, z).
double violation(const MixedIntegerQp& p, const VecX& x, const VecX& z) {
  double v = 0.0;
  const VecX g = p.A * x + (p.nz() ? VecX(p.B * z) : VecX::Zero(p.m()));
  for (int i = 0; i < p.m(); ++i) v = std::max({v, p.row_lo[i] - g[i], g[i] - p.row_hi[i]});
  for (int i = 0; i < p.n(); ++i) v = std::max({v, p.x_lo[i] - x[i], x[i] - p.x_hi[i]});
  for (int j = 0; j < p.nz(); ++j) v = std::max(v, std::min(std::abs(z[j]), std::abs(z[j] - 1.0)));
  return v;
}

// min ‖x − q‖² written as ½ xᵀ (2I) x − 2qᵀx (the reported objective leaves out ‖q‖²).
void distance_objective(MixedIntegerQp& p, const VecX& q) {
  p.H = 2.0 * MatX::Identity(q.size(), q.size());
  p.c = -2.0 * q;
}

TEST(Miqp, ContinuousProjectionOntoABox) {
  MixedIntegerQp p = empty_qp(3, 0, 0);
  const VecX q = (VecX(3) << 1.5, -0.3, 0.4).finished();
  distance_objective(p, q);
  p.x_lo = VecX::Zero(3);
  p.x_hi = VecX::Ones(3);
  const MiqpResult r = solve_miqp_bonmin(p);
  ASSERT_EQ(r.status, MiqpStatus::Optimal) << r.message;
  const VecX expected = (VecX(3) << 1.0, 0.0, 0.4).finished();
  EXPECT_LT((r.x - expected).cwiseAbs().maxCoeff(), 1e-7) << r.x.transpose();
  EXPECT_NEAR(r.objective, (expected - q).squaredNorm() - q.squaredNorm(), 1e-7);
  EXPECT_EQ(r.z.size(), 0);
}

TEST(Miqp, ContinuousProjectionOntoAHalfSpace) {
  MixedIntegerQp p = empty_qp(3, 0, 1);
  const VecX q = (VecX(3) << 2.0, 1.0, -1.0).finished();
  const VecX a = (VecX(3) << 1.0, 2.0, -0.5).finished();
  const double b = 0.5;
  distance_objective(p, q);
  p.A.row(0) = a.transpose();
  p.row_hi[0] = b;
  const MiqpResult r = solve_miqp_bonmin(p);
  ASSERT_EQ(r.status, MiqpStatus::Optimal) << r.message;
  const VecX expected = q - (a.dot(q) - b) / a.squaredNorm() * a;
  EXPECT_LT((r.x - expected).cwiseAbs().maxCoeff(), 1e-7) << r.x.transpose();
  EXPECT_NEAR(r.objective, (expected - q).squaredNorm() - q.squaredNorm(), 1e-7);
  // and the enumeration (one empty assignment) agrees
  const MiqpResult e = solve_miqp_enumerate(p);
  ASSERT_EQ(e.status, MiqpStatus::Optimal) << e.message;
  EXPECT_EQ(e.nodes, 1);
  EXPECT_LT((e.x - expected).cwiseAbs().maxCoeff(), 1e-7);
}

// min (x − 0.7)² with 0 ≤ x ≤ z: the binary must switch on.
MixedIntegerQp switch_on_problem() {
  MixedIntegerQp p = empty_qp(1, 1, 1);
  distance_objective(p, VecX::Constant(1, 0.7));
  p.x_lo[0] = 0.0;
  p.A(0, 0) = 1.0;
  p.B(0, 0) = -1.0;
  p.row_hi[0] = 0.0;  // x − z ≤ 0
  return p;
}

TEST(Miqp, BinarySwitchesOn) {
  const MixedIntegerQp p = switch_on_problem();
  for (const MiqpResult& r : {solve_miqp_bonmin(p), solve_miqp_enumerate(p)}) {
    ASSERT_EQ(r.status, MiqpStatus::Optimal) << r.message;
    EXPECT_NEAR(r.x[0], 0.7, 1e-7);
    EXPECT_EQ(r.z[0], 1.0);
    EXPECT_NEAR(r.objective, -0.49, 1e-7);  // (x − 0.7)² − 0.49
  }
  // with the binary fixed off, x is pushed to 0
  MiqpOptions o;
  o.z_fixed = {0.0};
  const MiqpResult r = solve_miqp_bonmin(p, o);
  ASSERT_EQ(r.status, MiqpStatus::Optimal) << r.message;
  EXPECT_NEAR(r.x[0], 0.0, 1e-7);
  EXPECT_EQ(r.z[0], 0.0);
  EXPECT_NEAR(r.objective, 0.0, 1e-7);
}

// 0 ≤ x1 ⊥ x2 ≥ 0 by big-M rows x1 ≤ M z, x2 ≤ M (1 − z), objective (x1 − 1)² + (x2 − 2)².
TEST(Miqp, ComplementarityByBigM) {
  const double M = 10.0;
  MixedIntegerQp p = empty_qp(2, 1, 2);
  distance_objective(p, (VecX(2) << 1.0, 2.0).finished());
  p.x_lo.setZero();
  p.A(0, 0) = 1.0;
  p.B(0, 0) = -M;
  p.row_hi[0] = 0.0;  // x1 − M z ≤ 0
  p.A(1, 1) = 1.0;
  p.B(1, 0) = M;
  p.row_hi[1] = M;  // x2 + M z ≤ M
  for (const MiqpResult& r : {solve_miqp_bonmin(p), solve_miqp_enumerate(p)}) {
    ASSERT_EQ(r.status, MiqpStatus::Optimal) << r.message;
    EXPECT_LT((r.x - (VecX(2) << 0.0, 2.0).finished()).cwiseAbs().maxCoeff(), 1e-7) << r.x.transpose();
    EXPECT_EQ(r.z[0], 0.0);
    EXPECT_NEAR(r.objective + 5.0, 1.0, 1e-7);  // the constant 1² + 2² left out
  }
  // scaling the objective changes nothing reported
  MiqpOptions o;
  o.objective_scale = 1e3;
  const MiqpResult r = solve_miqp_bonmin(p, o);
  ASSERT_EQ(r.status, MiqpStatus::Optimal) << r.message;
  EXPECT_NEAR(r.objective + 5.0, 1.0, 1e-7);
}

// A random instance, feasible at (x0, z0) by construction: rows of every kind (≤, ≥, two-sided,
// equalities, rows on binaries only), some bounds infinite.
MixedIntegerQp random_instance(std::mt19937& rng) {
  std::uniform_int_distribution<int> n_dist(4, 6), nz_dist(3, 5), coin(0, 1), kind(0, 5);
  std::uniform_real_distribution<double> u(-1.0, 1.0), slack(0.0, 0.5);
  const int n = n_dist(rng), nz = nz_dist(rng), m = nz + 2;
  MixedIntegerQp p = empty_qp(n, nz, m);
  MatX L(n, n);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) L(i, j) = u(rng);
  p.H = L * L.transpose() + 0.1 * MatX::Identity(n, n);
  if (coin(rng)) p.H.row(n - 1).setZero(), p.H.col(n - 1).setZero();  // semidefinite: x_{n−1} enters linearly
  for (int i = 0; i < n; ++i) p.c[i] = 3.0 * u(rng);
  VecX x0(n), z0(nz);
  for (int i = 0; i < n; ++i) x0[i] = u(rng);
  for (int j = 0; j < nz; ++j) z0[j] = coin(rng);
  for (int i = 0; i < n; ++i) {
    // a box on every variable keeps the semidefinite case bounded; some sides are open
    p.x_lo[i] = (i % 3 == 1) ? -kInf : -2.0;
    p.x_hi[i] = (i % 3 == 2 && i != n - 1) ? kInf : 2.0;
  }
  for (int r = 0; r < m; ++r) {
    const bool binaries_only = r == m - 1;
    for (int i = 0; i < n; ++i) p.A(r, i) = binaries_only ? 0.0 : u(rng);
    for (int j = 0; j < nz; ++j) p.B(r, j) = 2.0 * u(rng);
    const double v = p.A.row(r).dot(x0) + p.B.row(r).dot(z0);
    switch (binaries_only ? 0 : kind(rng)) {
      case 0: p.row_hi[r] = v + slack(rng); break;
      case 1: p.row_lo[r] = v - slack(rng); break;
      case 2: p.row_lo[r] = v - slack(rng), p.row_hi[r] = v + slack(rng); break;
      case 3: p.row_lo[r] = p.row_hi[r] = v; break;
      case 4: p.row_hi[r] = v; break;  // active at x0
      default: p.row_lo[r] = v - 1.0 - slack(rng), p.row_hi[r] = v + 1.0 + slack(rng); break;
    }
  }
  return p;
}

TEST(Miqp, RandomInstancesMatchEnumeration) {
  std::mt19937 rng(20240611);
  for (int k = 0; k < 20; k += test::kTrialStride) {
    SCOPED_TRACE("instance " + std::to_string(k));
    const MixedIntegerQp p = random_instance(rng);
    const MiqpResult b = solve_miqp_bonmin(p);
    const MiqpResult e = solve_miqp_enumerate(p);
    ASSERT_EQ(e.status, MiqpStatus::Optimal) << e.message;
    ASSERT_EQ(b.status, MiqpStatus::Optimal) << b.message;
    EXPECT_GE(e.nodes, 1);
    EXPECT_NEAR(b.objective, e.objective, 1e-6 * std::max(1.0, std::abs(e.objective)));
    EXPECT_LE(violation(p, b.x, b.z), 1e-7);
    EXPECT_LE(violation(p, e.x, e.z), 1e-7);
    EXPECT_NEAR(b.objective, 0.5 * b.x.dot(p.H * b.x) + p.c.dot(b.x), 1e-12 * std::max(1.0, std::abs(b.objective)));
    // fixing the binaries at Bonmin's answer reproduces its objective
    MiqpOptions o;
    o.z_fixed.assign(b.z.data(), b.z.data() + b.z.size());
    const MiqpResult f = solve_miqp_bonmin(p, o);
    ASSERT_EQ(f.status, MiqpStatus::Optimal) << f.message;
    EXPECT_NEAR(f.objective, b.objective, 1e-6 * std::max(1.0, std::abs(b.objective)));
    EXPECT_EQ(f.z, b.z);
  }
}

// The LCP 0 ≤ x ⊥ G x + h ≥ 0 (G strictly diagonally dominant: a P-matrix, so exactly one
// solution) as an MIQP by big-M rows: its feasible set is that one point whatever the
// objective, which must then be Lemke's answer. Unpatched, Bonmin 1.8.9's strong branching
// aborts the process on most of these (see SafeChooseVariable in miqp.cpp).
TEST(Miqp, LcpByBigMIsLemkesSolution) {
  std::mt19937 rng(5);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  const double M = 10.0;
  for (int k = 0; k < 8; k += test::kTrialStride) {
    SCOPED_TRACE("instance " + std::to_string(k));
    const int n = 4 + k % 2;
    MixedIntegerQp p = empty_qp(n, n, 3 * n);
    MatX L(n, n), G(n, n);
    VecX h(n);
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j) L(i, j) = u(rng);
    for (int i = 0; i < n; ++i) p.c[i] = u(rng);
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j) G(i, j) = (i == j) + 0.1 * u(rng);
    for (int i = 0; i < n; ++i) h[i] = u(rng);
    p.H = L * L.transpose() / n + MatX::Identity(n, n);
    p.x_lo.setZero();
    for (int i = 0; i < n; ++i) {
      p.A.row(i) = G.row(i);
      p.row_lo[i] = -h[i];  // y_i = (G x + h)_i ≥ 0
      p.A(n + i, i) = 1.0;
      p.B(n + i, i) = -M;
      p.row_hi[n + i] = 0.0;  // x_i ≤ M z_i
      p.A.row(2 * n + i) = G.row(i);
      p.B(2 * n + i, i) = M;
      p.row_hi[2 * n + i] = M - h[i];  // y_i ≤ M (1 − z_i)
    }
    const MiqpResult r = solve_miqp_bonmin(p);
    ASSERT_EQ(r.status, MiqpStatus::Optimal) << r.message;
    const LcpResult lemke = solve_lcp_lemke(G, h);
    ASSERT_TRUE(lemke.ok);
    EXPECT_LT((r.x - lemke.z).cwiseAbs().maxCoeff(), 1e-7) << r.x.transpose() << " vs " << lemke.z.transpose();
    EXPECT_LE(violation(p, r.x, r.z), 1e-7);
  }
}

TEST(Miqp, InfeasibleIsReported) {
  // x ∈ [0, 1], z binary, x + z ≥ 3
  MixedIntegerQp p = empty_qp(1, 1, 1);
  distance_objective(p, VecX::Constant(1, 0.5));
  p.x_lo[0] = 0.0;
  p.x_hi[0] = 1.0;
  p.A(0, 0) = 1.0;
  p.B(0, 0) = 1.0;
  p.row_lo[0] = 3.0;
  EXPECT_EQ(solve_miqp_bonmin(p).status, MiqpStatus::Infeasible);
  const MiqpResult e = solve_miqp_enumerate(p);
  EXPECT_EQ(e.status, MiqpStatus::Infeasible);
  EXPECT_EQ(e.nodes, 0);
  // continuous: x ∈ [0, 1], x ≥ 2
  MixedIntegerQp q = empty_qp(1, 0, 1);
  distance_objective(q, VecX::Constant(1, 0.5));
  q.x_lo[0] = 0.0;
  q.x_hi[0] = 1.0;
  q.A(0, 0) = 1.0;
  q.row_lo[0] = 2.0;
  EXPECT_EQ(solve_miqp_bonmin(q).status, MiqpStatus::Infeasible);
  // binaries only: z0 + z1 ≥ 1 and z0 + z1 ≤ 0.5
  MixedIntegerQp s = empty_qp(1, 2, 2);
  distance_objective(s, VecX::Constant(1, 0.5));
  s.B.setOnes();
  s.row_lo[0] = 1.0;
  s.row_hi[1] = 0.5;
  EXPECT_EQ(solve_miqp_bonmin(s).status, MiqpStatus::Infeasible);
  EXPECT_EQ(solve_miqp_enumerate(s).status, MiqpStatus::Infeasible);
}

// The InputError's message, or "" if none was thrown.
template <class F>
std::string input_error(F&& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(Miqp, MalformedProblemsNameTheField) {
  const MixedIntegerQp good = switch_on_problem();
  EXPECT_NO_THROW(check_miqp(good));
  auto expect_field = [&](MixedIntegerQp p, const std::string& field) {
    const std::string msg = input_error([&] { solve_miqp_bonmin(p); });
    EXPECT_NE(msg.find("MixedIntegerQp." + field), std::string::npos) << field << ": '" << msg << "'";
    EXPECT_NE(input_error([&] { check_miqp(p); }), "") << field;
  };
  MixedIntegerQp p = good;
  p.H = MatX::Zero(2, 2);
  expect_field(p, "H");
  p = good;
  p.H(0, 0) = std::nan("");
  expect_field(p, "H");
  p = good;
  p.A = MatX::Zero(2, 1);
  expect_field(p, "A");
  p = good;
  p.B = MatX::Zero(3, 1);
  expect_field(p, "B");
  p = good;
  p.row_hi = VecX::Zero(2);
  expect_field(p, "row_hi");
  p = good;
  p.x_lo = VecX();
  expect_field(p, "x_lo");
  p = good;
  p.x_hi[0] = std::nan("");
  expect_field(p, "x_hi");
  p = good;
  p.row_lo[0] = 1.0;  // above row_hi = 0
  expect_field(p, "row_lo");
  MixedIntegerQp asym = empty_qp(2, 0, 0);
  asym.H(0, 1) = 1.0;
  expect_field(asym, "H");

  MiqpOptions o;
  o.z_fixed = {0.0, 1.0};
  EXPECT_NE(input_error([&] { solve_miqp_bonmin(good, o); }).find("z_fixed"), std::string::npos);
  o.z_fixed = {0.5};
  EXPECT_NE(input_error([&] { solve_miqp_bonmin(good, o); }).find("z_fixed"), std::string::npos);
  o = {};
  o.x_start = VecX::Zero(3);
  EXPECT_NE(input_error([&] { solve_miqp_bonmin(good, o); }).find("x_start"), std::string::npos);

  // too many binaries to enumerate
  EXPECT_NE(input_error([&] { solve_miqp_enumerate(empty_qp(1, 21, 0)); }), "");
}

TEST(Miqp, PrintsNothing) {
  std::mt19937 rng(7);
  const MixedIntegerQp p = random_instance(rng);
  MixedIntegerQp continuous = empty_qp(2, 0, 0);  // nz = 0: Cbc has no integer to branch on
  distance_objective(continuous, VecX::Ones(2));
  MixedIntegerQp unbounded = empty_qp(1, 1, 1);  // min −x, x ≥ 0, x + z ≥ 0
  unbounded.c[0] = -1.0;
  unbounded.x_lo[0] = 0.0;
  unbounded.A(0, 0) = unbounded.B(0, 0) = 1.0;
  unbounded.row_lo[0] = 0.0;
  MixedIntegerQp infeasible = switch_on_problem();
  infeasible.x_lo[0] = 2.0;  // x ≥ 2 but x ≤ z ≤ 1
  testing::internal::CaptureStdout();
  testing::internal::CaptureStderr();
  const MiqpResult r = solve_miqp_bonmin(p);
  const MiqpResult c = solve_miqp_bonmin(continuous);
  const MiqpResult u = solve_miqp_bonmin(unbounded);
  const MiqpResult i = solve_miqp_bonmin(infeasible);
  const MiqpResult e = solve_miqp_enumerate(infeasible);
  const std::string out = testing::internal::GetCapturedStdout();
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(r.status, MiqpStatus::Optimal) << r.message;
  EXPECT_EQ(c.status, MiqpStatus::Optimal) << c.message;
  EXPECT_EQ(u.status, MiqpStatus::Failed) << u.message;  // unbounded: not an optimum
  EXPECT_EQ(i.status, MiqpStatus::Infeasible) << i.message;
  EXPECT_EQ(e.status, MiqpStatus::Infeasible) << e.message;
  EXPECT_EQ(out, "");
  EXPECT_EQ(err, "");
}

TEST(Miqp, FixedContinuousVariablesAreSubstituted) {
  // x0 = 1 fixed by its bounds, rows on x0 alone (one an equality), min x1² − x1 with x1 ≤ z.
  // Left to Ipopt, the rows without a free variable made it stop at its starting point.
  MixedIntegerQp p = empty_qp(2, 1, 3);
  p.x_lo[0] = p.x_hi[0] = 1.0;
  p.H(1, 1) = 2.0;
  p.c[1] = -1.0;
  p.A(0, 0) = 1.0;
  p.row_lo[0] = 0.5;
  p.A(1, 0) = 1.0;
  p.row_lo[1] = p.row_hi[1] = 1.0;
  p.A(2, 1) = 1.0;
  p.B(2, 0) = -1.0;
  p.row_hi[2] = 0.0;
  for (const MiqpResult& r : {solve_miqp_bonmin(p), solve_miqp_enumerate(p)}) {
    ASSERT_EQ(r.status, MiqpStatus::Optimal) << r.message;
    EXPECT_NEAR(r.objective, -0.25, 1e-9);
    EXPECT_NEAR(r.x[1], 0.5, 1e-7);
    EXPECT_EQ(r.x[0], 1.0);
    EXPECT_EQ(r.z[0], 1.0);
  }
  p.row_lo[1] = p.row_hi[1] = 2.0;  // now violated by the fixed x0
  EXPECT_EQ(solve_miqp_bonmin(p).status, MiqpStatus::Infeasible);
}

TEST(Miqp, CallsFromSeveralThreadsAgree) {
  std::mt19937 rng(11);
  const MixedIntegerQp p = random_instance(rng);
  const MiqpResult ref = solve_miqp_bonmin(p);
  ASSERT_EQ(ref.status, MiqpStatus::Optimal) << ref.message;
  std::vector<MiqpResult> results(4);
  std::vector<std::thread> threads;
  for (auto& r : results) threads.emplace_back([&p, &r] { r = solve_miqp_bonmin(p); });
  for (auto& t : threads) t.join();
  for (const auto& r : results) {
    EXPECT_EQ(r.status, MiqpStatus::Optimal) << r.message;
    EXPECT_EQ(r.z, ref.z);
    EXPECT_NEAR(r.objective, ref.objective, 1e-9 * std::max(1.0, std::abs(ref.objective)));
  }
}

}  // namespace
}  // namespace graspsim
