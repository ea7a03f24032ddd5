#include "solvers/active_set_qp.h"

#include <Eigen/Eigenvalues>
#include <Eigen/Jacobi>
#include <Eigen/SparseCore>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

namespace graspsim {
namespace {

enum Side : int { Lower = -1, Equal = 0, Upper = 1 };
// The rows of A, kept sparse: most are unit rows (bounds) or a contact's few dofs, and A·p,
// A·x and Qᵀa over them were ~20 % of the 3D pick's MIQP as dense products.
using SparseRows = Eigen::SparseMatrix<double, Eigen::RowMajor>;
// A row whose component outside the working set's span is below this fraction of its norm
// is dependent on it.
constexpr double kDependent = 1e-9;
struct Active {
  int row;
  Side side;
};

// Rows of x0's active set, equalities first, each kept only if independent of those before
// (modified Gram-Schmidt on the rows).
std::vector<Active> initial_working_set(const BoxedRowsQp& qp, const SparseRows& A, const VecX& x0, double tol) {
  const int m = static_cast<int>(qp.lo.size()), n = static_cast<int>(x0.size());
  const VecX ax = A * x0;
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

// The working set's rows as columns (A_wᵀ, n × k) and their QR with Q explicit (n × n): Q's
// first k columns span the rows, the rest (Z) their null space. A row entering or leaving
// updates it by Givens rotations, O(n²) (Golub & Van Loan, Matrix Computations, 12.5), where
// a new factorization and Q formed were O(n³) per iteration (60 % of the 3D pick's MIQP).
class WorkingSetQr {
 public:
  WorkingSetQr(const SparseRows& A, const std::vector<Active>& work, int n)
      : Q_(MatX::Identity(n, n)), R_(MatX::Zero(n, n)) {
    for (const Active& a : work) append(A, a.row);
  }
  // A_wᵀ gains the column A.row(row)ᵀ (independent of the others) at the end.
  void append(const SparseRows& A, int row) {
    const int n = static_cast<int>(Q_.rows());
    VecX r = times_row(A, row, 0);
    for (int i = n - 1; i > k_; --i) {  // zero r below entry k, bottom up
      Eigen::JacobiRotation<double> g;
      g.makeGivens(r[i - 1], r[i]);
      r.applyOnTheLeft(i - 1, i, g.adjoint());
      Q_.applyOnTheRight(i - 1, i, g);
    }
    R_.col(k_).head(k_ + 1) = r.head(k_ + 1);
    ++k_;
  }
  // A_wᵀ loses its column j: the columns after it shift left, and the subdiagonal this
  // leaves in R is rotated away.
  void erase(int j) {
    for (int c = j; c + 1 < k_; ++c) R_.col(c).head(c + 2) = R_.col(c + 1).head(c + 2);
    R_.col(k_ - 1).setZero();
    --k_;
    for (int c = j; c < k_; ++c) {
      Eigen::JacobiRotation<double> g;
      g.makeGivens(R_(c, c), R_(c + 1, c));
      R_.middleCols(c, k_ - c).applyOnTheLeft(c, c + 1, g.adjoint());
      R_(c + 1, c) = 0.0;
      Q_.applyOnTheRight(c, c + 1, g);
    }
  }
  // The norm of A.row(i)'s component outside the span of the working set's rows.
  double outside_span(const SparseRows& A, int i) const { return times_row(A, i, k_).norm(); }
  int k() const { return k_; }
  const MatX& Q() const { return Q_; }
  auto Z() const { return Q_.rightCols(Q_.cols() - k_); }  // a view: Q changes with the working set
  auto R() const { return R_.topLeftCorner(k_, k_).triangularView<Eigen::Upper>(); }

 private:
  // Q's columns from `first` on, transposed, times A.row(i)ᵀ: a sum over the row's entries.
  VecX times_row(const SparseRows& A, int i, int first) const {
    VecX r = VecX::Zero(Q_.cols() - first);
    for (SparseRows::InnerIterator it(A, i); it; ++it) r += it.value() * Q_.row(it.index()).tail(r.size()).transpose();
    return r;
  }

  MatX Q_, R_;  // R_ upper triangular in its first k_ columns
  int k_ = 0;
};

// Curvature below this is the eigensolver mixing a curved dof into flat ones: a Newton step
// on it would be rounding divided by rounding.
double flat_curvature(const VecX& h) { return h.size() ? 1e-8 * h.cwiseAbs().maxCoeff() : 0.0; }

// The reduced Hessian Zᵀ diag(h) Z = BᵀB with B = diag(√h) Z on the rows where h ≠ 0 (the
// contact QPs curve in a few dofs): its curved eigenpairs (e > flat) come from the small
// B Bᵀ, v = Bᵀu / √e, instead of an (n − k)² eigenproblem per iteration.
struct ReducedHessian {
  VecX e;  // the curved eigenvalues
  MatX V;  // their unit eigenvectors, as columns
  ReducedHessian(const Eigen::Ref<const MatX>& Z, const VecX& h, double flat) {
    int curved = 0;
    for (int i = 0; i < h.size(); ++i) curved += h[i] != 0.0;
    V.resize(Z.cols(), 0);
    if (curved == 0 || Z.cols() == 0) return;
    MatX B(curved, Z.cols());
    for (int i = 0, r = 0; i < h.size(); ++i)
      if (h[i] != 0.0) B.row(r++) = std::sqrt(h[i]) * Z.row(i);
    const Eigen::SelfAdjointEigenSolver<MatX> eig(B * B.transpose());
    std::vector<int> keep;
    for (int i = 0; i < curved; ++i)
      if (eig.eigenvalues()[i] > flat) keep.push_back(i);
    e.resize(static_cast<int>(keep.size()));
    V.resize(Z.cols(), e.size());
    for (int j = 0; j < e.size(); ++j) {
      e[j] = eig.eigenvalues()[keep[j]];
      V.col(j) = B.transpose() * eig.eigenvectors().col(keep[j]) / std::sqrt(e[j]);
    }
  }
  // The Newton step −Σ (vᵢ·g / eᵢ) vᵢ over the curved directions.
  VecX newton(const VecX& gz) const { return -V * (V.transpose() * gz).cwiseQuotient(e); }
  // The part of g along no curvature.
  VecX flat_part(const VecX& gz) const { return gz - V * (V.transpose() * gz); }
};

// The working set's rows back on their true bounds: the least-norm move Δ with
// A_w Δ = b_w − A_w x (the relaxation against degeneracy left them up to 2e-10 away).
void polish(const BoxedRowsQp& qp, const SparseRows& A, const std::vector<Active>& work, VecX& x) {
  const int k = static_cast<int>(work.size()), n = static_cast<int>(x.size());
  if (k == 0) return;
  const WorkingSetQr ws(A, work, n);
  VecX r(k);
  for (int j = 0; j < k; ++j) {
    const double b = work[j].side == Upper ? qp.hi[work[j].row] : qp.lo[work[j].row];
    r[j] = b - A.row(work[j].row).dot(x);
  }
  const auto R = ws.R();
  VecX full = VecX::Zero(n);
  full.head(k) = R.transpose().solve(r);
  x += ws.Q() * full;
  // That move may have left the minimum along the working set's null space: one Newton
  // step there, on the curved directions only, restores it.
  if (k == n) return;
  const auto Z = ws.Z();
  const VecX gz = Z.transpose() * (qp.h.cwiseProduct(x) + qp.c);
  x += Z * ReducedHessian(Z, qp.h, flat_curvature(qp.h)).newton(gz);
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
  const SparseRows A = qp.A.sparseView(1.0, 0.0);  // exact zeros only
  const VecX row_norm = qp.A.rowwise().norm();
  if (max_iterations <= 0) max_iterations = 10 * (n + m) + 100;
  ActiveSetResult res;
  res.x = x0;
  VecX& x = res.x;
  std::vector<Active> work = initial_working_set(qp, A, x0, 1e-12);
  std::vector<char> in_work(m, 0);
  for (const Active& a : work) in_work[a.row] = 1;
  const double flat = flat_curvature(qp.h);
  // After a run of zero-length steps (a degenerate vertex), Bland's rule: the lowest row
  // leaves and the lowest blocking row enters, which cannot cycle.
  int stalled = 0, just_left = -1;
  WorkingSetQr ws(A, work, n);
  for (res.iterations = 0; res.iterations < max_iterations; ++res.iterations) {
    const int k = static_cast<int>(work.size());
    const auto Z = ws.Z();
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
      const VecX lambda = ws.R().solve((ws.Q().leftCols(k).transpose() * g).eval());
      int leave = -1;
      double worst = gtol;
      const bool bland = stalled > 10;
      for (int j = 0; j < k; ++j) {
        if (work[j].side == Equal) continue;
        const double wrong = (work[j].side == Lower ? -lambda[j] : lambda[j]) * row_norm[work[j].row];
        if (wrong <= gtol) continue;
        if (bland ? (leave < 0 || work[j].row < work[leave].row) : wrong > worst) {
          worst = wrong;
          leave = j;
        }
      }
      if (leave < 0) {
        res.status = ActiveSetResult::Status::Optimal;
        polish(qp_in, A, work, x);
        return res;
      }
      in_work[work[leave].row] = 0;
      std::replace(in_work.begin(), in_work.end(), char{2}, char{0});  // the span shrank
      just_left = work[leave].row;
      work.erase(work.begin() + leave);
      ws.erase(leave);
      continue;
    }
    // A step in the null space: Newton where the reduced Hessian curves, a descent ray
    // where the gradient has a component without curvature.
    const ReducedHessian rh(Z, qp.h, flat);
    const VecX flat_g = rh.flat_part(gz);
    const bool ray = flat_g.cwiseAbs().maxCoeff() > gtol;
    const VecX p = Z * (ray ? VecX(-flat_g) : rh.newton(gz));
    // Ratio test over the rows outside the working set.
    double alpha = ray ? kInf : 1.0;
    Active block{-1, Lower};
    const VecX ap = A * p, ax = A * x;
    const double pnorm = p.norm();
    for (int i = 0; i < m; ++i) {
      if (in_work[i]) continue;
      const double tiny = 1e-11 * row_norm[i] * pnorm;  // rows (nearly) along the working set's span
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
      polish(qp_in, A, work, x);
      return res;
    }
    just_left = -1;
    stalled = zero_step ? stalled + 1 : 0;
    x += alpha * p;
    if (block.row >= 0) {
      if (ws.outside_span(A, block.row) <= kDependent * row_norm[block.row]) {
        // Within rounding of the working set's span (a degenerate vertex): its rows hold
        // this one, and as a column of R it would be a near-zero pivot (7e-10 on a 3D
        // pick's node QP, whose next Newton steps then went 1e7 outside the rows). It stops
        // blocking until a row leaves.
        in_work[block.row] = 2;
        continue;
      }
      if (qp.lo[block.row] == qp.hi[block.row]) block.side = Equal;
      work.push_back(block);
      ws.append(A, block.row);
      in_work[block.row] = 1;
    }
  }
  return res;
}

}  // namespace graspsim
