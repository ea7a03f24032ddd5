#include "solvers/active_set_qp.h"

#include <Eigen/Eigenvalues>
#include <Eigen/QR>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

namespace graspsim {
namespace {

enum Side : int { Lower = -1, Equal = 0, Upper = 1 };
struct Active {
  int row;
  Side side;
};

// Rows of x0's active set, equalities first, each kept only if independent of those before
// (modified Gram-Schmidt on the rows).
std::vector<Active> initial_working_set(const BoxedRowsQp& qp, const VecX& x0, double tol) {
  const int m = static_cast<int>(qp.lo.size()), n = static_cast<int>(x0.size());
  const VecX ax = qp.A * x0;
  std::vector<Active> out;
  std::vector<VecX> basis;
  auto try_add = [&](int i, Side side) {
    if (static_cast<int>(basis.size()) >= n) return;
    VecX r = qp.A.row(i).transpose();
    const double norm = r.norm();
    if (norm == 0.0) return;
    for (const VecX& b : basis) r -= b.dot(r) * b;
    if (r.norm() <= 1e-9 * norm) return;
    basis.push_back(r / r.norm());
    out.push_back({i, side});
  };
  for (int i = 0; i < m; ++i)
    if (qp.lo[i] == qp.hi[i]) try_add(i, Equal);
  for (int i = 0; i < m; ++i) {
    if (qp.lo[i] == qp.hi[i]) continue;
    const double scale = tol * std::max(1.0, qp.A.row(i).cwiseAbs().maxCoeff());
    if (std::isfinite(qp.lo[i]) && std::abs(ax[i] - qp.lo[i]) <= scale) try_add(i, Lower);
    else if (std::isfinite(qp.hi[i]) && std::abs(ax[i] - qp.hi[i]) <= scale) try_add(i, Upper);
  }
  return out;
}

// The working set's rows as columns (A_wᵀ, n × k) and their QR, with Q formed (n × n):
// Q's first k columns span the rows, the rest (Z) their null space.
struct WorkingSetQr {
  MatX AwT, Q;
  Eigen::HouseholderQR<MatX> qr;
  WorkingSetQr(const BoxedRowsQp& qp, const std::vector<Active>& work, int n) : AwT(n, work.size()) {
    for (size_t j = 0; j < work.size(); ++j) AwT.col(static_cast<Eigen::Index>(j)) = qp.A.row(work[j].row).transpose();
    if (work.empty()) {
      Q = MatX::Identity(n, n);
      return;
    }
    qr.compute(AwT);
    Q = qr.householderQ() * MatX::Identity(n, n);
  }
  int k() const { return static_cast<int>(AwT.cols()); }
  MatX Z() const { return Q.rightCols(Q.cols() - k()); }
  auto R() const { return qr.matrixQR().topLeftCorner(k(), k()).triangularView<Eigen::Upper>(); }
};

// Curvature below this is the eigensolver mixing a curved dof into flat ones: a Newton step
// on it would be rounding divided by rounding.
double flat_curvature(const VecX& h) { return h.size() ? 1e-8 * h.cwiseAbs().maxCoeff() : 0.0; }

// The Newton step −Σ (tᵢ / eᵢ) vᵢ over the curved directions (eᵢ > flat) of the reduced
// Hessian's eigen-decomposition, t = Vᵀ g_z the reduced gradient in its eigenbasis.
VecX curved_newton_step(const Eigen::SelfAdjointEigenSolver<MatX>& eig, const VecX& t, double flat) {
  VecX pz = VecX::Zero(t.size());
  for (int i = 0; i < t.size(); ++i)
    if (eig.eigenvalues()[i] > flat) pz -= (t[i] / eig.eigenvalues()[i]) * eig.eigenvectors().col(i);
  return pz;
}

Eigen::SelfAdjointEigenSolver<MatX> reduced_hessian(const MatX& Z, const VecX& h) {
  return Eigen::SelfAdjointEigenSolver<MatX>(Z.transpose() * h.asDiagonal() * Z);
}

// The working set's rows back on their true bounds: the least-norm move Δ with
// A_w Δ = b_w − A_w x (the relaxation against degeneracy left them up to 2e-10 away).
void polish(const BoxedRowsQp& qp, const std::vector<Active>& work, VecX& x) {
  const int k = static_cast<int>(work.size()), n = static_cast<int>(x.size());
  if (k == 0) return;
  const WorkingSetQr ws(qp, work, n);
  VecX r(k);
  for (int j = 0; j < k; ++j) {
    const double b = work[j].side == Upper ? qp.hi[work[j].row] : qp.lo[work[j].row];
    r[j] = b - qp.A.row(work[j].row).dot(x);
  }
  const auto R = ws.R();
  VecX full = VecX::Zero(n);
  full.head(k) = R.transpose().solve(r);
  x += ws.Q * full;
  // That move may have left the minimum along the working set's null space: one Newton
  // step there, on the curved directions only, restores it.
  if (k == n) return;
  const MatX Z = ws.Z();
  const Eigen::SelfAdjointEigenSolver<MatX> eig = reduced_hessian(Z, qp.h);
  const VecX gz = Z.transpose() * (qp.h.cwiseProduct(x) + qp.c);
  VecX t(gz.size());
  for (int i = 0; i < gz.size(); ++i) t[i] = eig.eigenvectors().col(i).dot(gz);
  x += Z * curved_newton_step(eig, t, flat_curvature(qp.h));
}

}  // namespace

ActiveSetResult solve_active_set_qp(const BoxedRowsQp& qp_in, const VecX& x0, double tol, int max_iterations) {
  // Degenerate vertices (many more active rows than free directions, as in contact
  // problems) make an active-set method take zero steps for ever; every inequality is
  // relaxed by a distinct amount of 1-2e-10 of its scale (deterministic), which breaks the
  // ties; x0 then starts strictly inside every inequality.
  BoxedRowsQp qp = qp_in;
  for (int i = 0; i < static_cast<int>(qp.lo.size()); ++i) {
    if (qp.lo[i] == qp.hi[i]) continue;
    const double d = 1e-10 * (1.0 + static_cast<double>((static_cast<std::uint64_t>(i) * 2654435761u) % 1024) / 1024.0) *
                     std::max(1.0, qp.A.row(i).cwiseAbs().maxCoeff());
    qp.lo[i] -= d;
    qp.hi[i] += d;
  }
  const int n = static_cast<int>(x0.size()), m = static_cast<int>(qp.lo.size());
  if (max_iterations <= 0) max_iterations = 10 * (n + m) + 100;
  ActiveSetResult res;
  res.x = x0;
  VecX& x = res.x;
  std::vector<Active> work = initial_working_set(qp, x0, 1e-12);
  std::vector<char> in_work(m, 0);
  for (const Active& a : work) in_work[a.row] = 1;
  const double flat = flat_curvature(qp.h);
  // After a run of zero-length steps (a degenerate vertex), Bland's rule: the lowest row
  // leaves and the lowest blocking row enters, which cannot cycle.
  int stalled = 0, just_left = -1;
  for (res.iterations = 0; res.iterations < max_iterations; ++res.iterations) {
    const int k = static_cast<int>(work.size());
    const WorkingSetQr ws(qp, work, n);
    const MatX Z = ws.Z();
    const VecX g = qp.h.cwiseProduct(x) + qp.c;
    // Stationarity and multiplier signs are judged against the size of the gradient's terms
    // (not of their sum, which vanishes at an unconstrained optimum): rounding in the
    // working set's QR is ~1e-12 of them on these problems.
    const double gscale = std::max(qp.c.cwiseAbs().maxCoeff(), qp.h.cwiseProduct(x).cwiseAbs().maxCoeff());
    const double gtol = tol * std::max(gscale, 1e-12);
    const VecX gz = Z.transpose() * g;
    if (gz.size() == 0 || gz.cwiseAbs().maxCoeff() <= gtol) {
      // Stationary on the working set: A_wᵀ λ = g. A row at its lower bound needs λ ≥ 0, at
      // its upper bound λ ≤ 0; the most wrong one leaves.
      if (k == 0) {
        res.status = ActiveSetResult::Status::Optimal;
        return res;
      }
      const VecX lambda = ws.R().solve((ws.Q.leftCols(k).transpose() * g).eval());
      int leave = -1;
      double worst = gtol;
      const bool bland = stalled > 10;
      for (int j = 0; j < k; ++j) {
        if (work[j].side == Equal) continue;
        const double wrong = (work[j].side == Lower ? -lambda[j] : lambda[j]) * ws.AwT.col(j).norm();
        if (wrong <= gtol) continue;
        if (bland ? (leave < 0 || work[j].row < work[leave].row) : wrong > worst) {
          worst = wrong;
          leave = j;
        }
      }
      if (leave < 0) {
        res.status = ActiveSetResult::Status::Optimal;
        polish(qp_in, work, x);
        return res;
      }
      in_work[work[leave].row] = 0;
      just_left = work[leave].row;
      work.erase(work.begin() + leave);
      continue;
    }
    // A step in the null space: Newton where the reduced Hessian curves, a descent ray
    // where the gradient has a component without curvature.
    const Eigen::SelfAdjointEigenSolver<MatX> eig = reduced_hessian(Z, qp.h);
    const VecX& ev = eig.eigenvalues();
    const MatX& V = eig.eigenvectors();
    const VecX t = V.transpose() * gz;
    VecX pz = VecX::Zero(gz.size());
    bool ray = false;
    for (int i = 0; i < ev.size(); ++i)
      if (ev[i] <= flat && std::abs(t[i]) > gtol) {
        pz -= t[i] * V.col(i);
        ray = true;
      }
    if (!ray) pz = curved_newton_step(eig, t, flat);
    const VecX p = Z * pz;
    // Ratio test over the rows outside the working set.
    double alpha = ray ? kInf : 1.0;
    Active block{-1, Lower};
    const VecX ap = qp.A * p, ax = qp.A * x;
    const double pnorm = p.norm();
    for (int i = 0; i < m; ++i) {
      if (in_work[i]) continue;
      const double tiny = 1e-11 * qp.A.row(i).norm() * pnorm;  // rows (nearly) along the working set's span
      double a = kInf;
      Side side = Lower;
      if (ap[i] < -tiny && std::isfinite(qp.lo[i])) a = std::max(0.0, (qp.lo[i] - ax[i]) / ap[i]);
      else if (ap[i] > tiny && std::isfinite(qp.hi[i])) {
        a = std::max(0.0, (qp.hi[i] - ax[i]) / ap[i]);
        side = Upper;
      }
      if (a < alpha) {  // ties: the lowest row (rows are visited in order)
        alpha = a;
        block = {i, side};
      }
    }
    if (!std::isfinite(alpha)) {
      res.status = ActiveSetResult::Status::Unbounded;
      return res;
    }
    const bool zero_step = alpha * pnorm <= 1e-15 * (1.0 + x.norm());
    // The row that just left blocks at once: its wrong-signed multiplier was rounding.
    if (zero_step && block.row == just_left) {
      res.status = ActiveSetResult::Status::Optimal;
      polish(qp_in, work, x);
      return res;
    }
    just_left = -1;
    stalled = zero_step ? stalled + 1 : 0;
    x += alpha * p;
    if (block.row >= 0) {
      if (qp.lo[block.row] == qp.hi[block.row]) block.side = Equal;
      work.push_back(block);
      in_work[block.row] = 1;
    }
  }
  return res;
}

}  // namespace graspsim
