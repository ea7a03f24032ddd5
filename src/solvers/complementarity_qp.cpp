#include "solvers/complementarity_qp.h"

#include <ClpSimplex.hpp>
#include <CoinError.hpp>
#include <CoinPackedMatrix.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "core/clock.h"
#include "core/error.h"
#include "solvers/active_set_qp.h"

namespace graspsim {
namespace {

constexpr double kClpInf = 1e30;  // Clp's "no bound"
constexpr double kDropRelative = 1e-10;
// The active-set QP's point may miss rows by this many feasibility_tol: rows that depend on
// its working set to within rounding (two points of one pad, normals equal to 1e-16) are
// held by the working set, and its steps cross them by ~1e-9 of their length (4e-9 on a 3D
// pick's node, where the LP's vertex that stood in instead cost 5.3 against 8e-6).
constexpr double kQpRowSlack = 10.0;
// Wolfe's minimum-norm point: a gap (relative) at which a stalled iteration counts as
// converged (see min_norm_point).
constexpr double kWolfeStalledGap = 1e-8;

double clp_bound(double v) { return std::clamp(v, -kClpInf, kClpInf); }

// A pair's state at a node.
enum Fix : signed char { Free = -1, GapZero = 0, ImpulseZero = 1 };

struct Node {
  std::vector<signed char> fix;
  std::vector<unsigned char> basis;  // the parent's final Clp status (warm start); empty: cold
  double bound = -kInf;
};

// A node's relaxation in two phases. Feasibility: Clp's dual simplex on the zero-objective
// LP over columns [x (n), w (np)] and rows [A (m), W x − w = −w0 (np), w + λ ≤ M (np)],
// warm-started from the parent's basis (only bounds changed, so it stays dual feasible).
// Optimality: the primal active-set QP (active_set_qp.h) from that feasible vertex, on the
// rows [A, W x (for w), W x + λ (for w + λ), x (bounds)]. (Clp's own quadratic primal loops
// on these degenerate problems.)
// Undecided: Clp neither proved the node infeasible nor returned a point that meets its rows.
enum class NodeOutcome { Infeasible, Exact, Approximate, Undecided };

class NodeSolver {
 public:
  NodeSolver(const ComplementarityQp& p, const ComplementarityBbOptions& o)
      : p_(p), n_(p.n()), np_(p.np()), tol_(o.feasibility_tol), method_(o.node_qp) {
    const int m = p.m(), ncol = n_ + np_, nrow = m + 2 * np_;
    std::vector<int> rows, cols;
    std::vector<double> vals;
    auto put = [&](int r, int c, double v) {
      if (v == 0.0) return;
      rows.push_back(r);
      cols.push_back(c);
      vals.push_back(v);
    };
    // Entries below kDropRelative of their row's largest (at least 1) are round-off (a
    // Jacobian's 1e-16 and 1e-22 where a lever arm vanishes), no pivots for a simplex. The
    // LP's rows then differ from the exact ones by at most 1e-10 of their scale times |x|,
    // below feasibility_tol, and every point the LP returns is checked against the exact rows.
    auto put_row = [&](int r, const auto& row, double floor) {
      const double cut = kDropRelative * std::max(floor, row.cwiseAbs().maxCoeff());
      for (int c = 0; c < n_; ++c)
        if (std::abs(row[c]) > cut) put(r, c, row[c]);
    };
    for (int r = 0; r < m; ++r) put_row(r, p.A.row(r), 0.0);
    for (int j = 0; j < np_; ++j) {
      put_row(m + j, p.W.row(j), 1.0);
      put(m + j, n_ + j, -1.0);
      put(m + np_ + j, n_ + j, 1.0);
      put(m + np_ + j, p.lambda[j], 1.0);
    }
    const CoinPackedMatrix matrix(true, rows.data(), cols.data(), vals.data(), static_cast<CoinBigIndex>(vals.size()));
    std::vector<double> col_lo(ncol), col_hi(ncol), zero(ncol, 0.0), row_lo(nrow), row_hi(nrow);
    for (int c = 0; c < n_; ++c) {
      col_lo[c] = clp_bound(p.x_lo[c]);
      col_hi[c] = clp_bound(p.x_hi[c]);
    }
    for (int r = 0; r < m; ++r) {
      row_lo[r] = clp_bound(p.row_lo[r]);
      row_hi[r] = clp_bound(p.row_hi[r]);
    }
    for (int j = 0; j < np_; ++j) {
      row_lo[m + j] = row_hi[m + j] = -p.w0[j];
      row_lo[m + np_ + j] = -kClpInf;
      row_hi[m + np_ + j] = p.big_m + p.closed(j);  // the big-M relaxation's w + λ ≤ M + closed_gap
    }
    lp_.setLogLevel(0);
    lp_.loadProblem(matrix, col_lo.data(), col_hi.data(), zero.data(), row_lo.data(), row_hi.data());
    // Unscaled: with Clp's scaling its tolerances held on the scaled rows while unscaled
    // ones stayed missed by 1e-8 (the 3D pick's step 594), and the rows here are already of
    // one magnitude (unit normals, lever arms, identities).
    lp_.scaling(0);
    lp_.setPrimalTolerance(1e-10);
    lp_.setDualTolerance(1e-10);
    lp_.setMaximumIterations(10000);  // ~50x the rows: beyond it the simplex is cycling

    // The objective is a distance when only curved variables carry a linear term:
    // ½ xᵀHx + cᵀx = ½ ‖u‖² + const with u_k = √h_k x_k + c_k/√h_k (k curved).
    for (int k = 0; k < n_; ++k) {
      if (p.H(k, k) > 0.0) curved_.push_back(k);
      else if (p.c[k] != 0.0) linear_flat_ = true;
    }
    qp_.h = p.H.diagonal();
    qp_.c = p.c;
    qp_.A.resize(m + 2 * np_ + n_, n_);
    qp_.lo.resize(qp_.A.rows());
    qp_.hi.resize(qp_.A.rows());
    qp_.A.topRows(m) = p.A;
    qp_.lo.head(m) = p.row_lo;
    qp_.hi.head(m) = p.row_hi;
    qp_.A.middleRows(m, np_) = p.W;
    qp_.A.middleRows(m + np_, np_) = p.W;
    for (int j = 0; j < np_; ++j) {
      qp_.A(m + np_ + j, p.lambda[j]) += 1.0;
      qp_.lo[m + np_ + j] = -kInf;
      qp_.hi[m + np_ + j] = p.big_m + p.closed(j) - p.w0[j];
    }
    qp_.A.bottomRows(n_).setIdentity();
    qp_.lo.tail(n_) = p.x_lo;
    qp_.hi.tail(n_) = p.x_hi;
    row_scale_ = qp_.A.cwiseAbs().rowwise().maxCoeff().cwiseMax(1.0);
  }

  // Solves the node's relaxation into x, w. Approximate: the QP did not reach a verified
  // optimum, and x is the LP's feasible vertex. Undecided: see undecided_reason().
  NodeOutcome solve(const Node& node, VecX& x, VecX& w) {
    set_bounds(node);
    const int total = lp_.numberColumns() + lp_.numberRows();
    if (static_cast<int>(node.basis.size()) == total)
      std::copy(node.basis.begin(), node.basis.end(), lp_.statusArray());
    else
      lp_.allSlackBasis(true);
    // The primal simplex from the parent's basis: the dual one (the textbook choice after a
    // bound change) has a zero objective here, every reduced cost degenerate, and on the 3D
    // pick its dual errors became NaN and Clp's assertion aborted the program (steps 929,
    // 1061, 1100). Whatever the warm start says that the rows do not confirm, a cold primal
    // simplex decides. The objective is zero, so any point that meets the rows is optimal:
    // Clp's "stopped on errors" with such a point (step 999 of the pick) is a feasible node.
    lp_.primal();
    VecX x0 = Eigen::Map<const VecX>(lp_.primalColumnSolution(), n_);
    if (lp_.isProvenPrimalInfeasible() || row_violation(x0) > tol_) {
      // Cold, unscaled and then scaled (each has stopped with rows missed by 2e-9 where the
      // other did not, on the 3D pick).
      bool decided = false;
      solve_cold([&] {
        x0 = Eigen::Map<const VecX>(lp_.primalColumnSolution(), n_);
        return lp_.isProvenPrimalInfeasible() || (decided = row_violation(x0) <= tol_);
      });
      if (lp_.isProvenPrimalInfeasible()) return NodeOutcome::Infeasible;
      if (!decided) {
        undecided_reason_ = "Clp could not decide a node's feasibility (status " + std::to_string(lp_.status()) +
                            ", rows missed by " + show(row_violation(x0)) + ")";
        return NodeOutcome::Undecided;
      }
    }
    basis_.assign(lp_.statusArray(), lp_.statusArray() + total);
    // The active-set QP is the faster; its point is checked (it has crept off a degenerate
    // face and stopped outside its rows), and Wolfe's method, feasible by construction,
    // takes over where it fails.
    bool exact = false;
    if (curved_.empty() && !linear_flat_) {  // a feasibility problem: any point is optimal
      x = x0;
      exact = true;
    } else {
      using Method = ComplementarityBbOptions::NodeQp;
      if (method_ != Method::MinNormPoint || linear_flat_) {
        const ActiveSetResult r = solve_active_set_qp(qp_, x0);
        x = r.x;
        exact = r.status == ActiveSetResult::Status::Optimal && row_violation(x) <= kQpRowSlack * tol_;
      }
      if (!exact && !linear_flat_ && method_ != Method::ActiveSet)
        exact = min_norm_point(x0, x) && row_violation(x) <= tol_;
    }
    if (!exact) x = x0;
    w = p_.W * x + p_.w0;
    return exact ? NodeOutcome::Exact : NodeOutcome::Approximate;
  }

  // The feasibility LP's basis, the children's warm start.
  const std::vector<unsigned char>& basis() const { return basis_; }
  // Why the last Undecided node was undecided.
  const std::string& undecided_reason() const { return undecided_reason_; }

 private:
  // The largest violation of the node's rows at x, each in units of its largest
  // coefficient (≥ 1).
  double row_violation(const VecX& x) const {
    const VecX ax = qp_.A * x;
    double v = 0.0;
    for (int i = 0; i < ax.size(); ++i) v = std::max(v, std::max(qp_.lo[i] - ax[i], ax[i] - qp_.hi[i]) / row_scale_[i]);
    return v;
  }

  // The node's optimum when the objective is ½‖u‖² (see curved_), by Wolfe's minimum-norm
  // point algorithm (Math. Programming 11, 1976) on the node's polytope mapped to u: a linear
  // program over the node (Clp's primal simplex, warm) gives the vertex furthest along −u,
  // and the point nearest the origin in the hull of a small set of such vertices (at most
  // dim u + 1 of them) moves toward the optimum; it stops when no vertex is further along.
  // The polytope is cut to the box |u_k| ≤ ‖u(x0)‖, which holds the optimum. x is the same
  // convex combination of the vertices in full, so it is feasible. False: it did not converge.
  bool min_norm_point(const VecX& x0, VecX& x) {
    const int d = static_cast<int>(curved_.size());
    auto to_u = [&](const VecX& v) {
      VecX u(d);
      for (int i = 0; i < d; ++i) {
        const int k = curved_[i];
        const double r = std::sqrt(p_.H(k, k));
        u[i] = r * v[k] + p_.c[k] / r;
      }
      return u;
    };
    const double radius = to_u(x0).norm();
    std::vector<double> lo(d), hi(d);
    for (int i = 0; i < d; ++i) {
      const int k = curved_[i];
      const double r = std::sqrt(p_.H(k, k)), centre = -p_.c[k] / p_.H(k, k);
      lo[i] = lp_.columnLower()[k];
      hi[i] = lp_.columnUpper()[k];
      lp_.setColumnBounds(k, std::max(lo[i], centre - radius / r), std::min(hi[i], centre + radius / r));
    }
    std::vector<VecX> full{x0};  // the corral's vertices
    MatX pts = to_u(x0);         // and their u, as columns
    VecX lambda = VecX::Ones(1);
    VecX y = pts.col(0);
    bool converged = false;
    double gap = kInf;  // the last vertex's y·(y − q), relative to the corral's scale
    for (int major = 0; major < 20 * (d + 1) && !converged; ++major) {
      if (y.squaredNorm() == 0.0) {
        converged = true;
        break;
      }
      const VecX dir = y / y.norm();
      for (int i = 0; i < d; ++i) lp_.setObjectiveCoefficient(curved_[i], dir[i] * std::sqrt(p_.H(curved_[i], curved_[i])));
      if (!optimal_lp()) break;
      const VecX v = Eigen::Map<const VecX>(lp_.primalColumnSolution(), n_);
      const VecX q = to_u(v);
      const double scale = std::max(q.squaredNorm(), pts.colwise().squaredNorm().maxCoeff());
      gap = (y.squaredNorm() - y.dot(q)) / scale;
      if (gap <= 1e-10) {
        converged = true;
        break;
      }
      if (row_violation(v) > tol_) break;
      full.push_back(v);
      pts.conservativeResize(Eigen::NoChange, pts.cols() + 1);
      pts.col(pts.cols() - 1) = q;
      lambda.conservativeResize(lambda.size() + 1);
      lambda[lambda.size() - 1] = 0.0;
      // Minor cycle: the affine minimiser of the corral, walked back into its hull while
      // some of its weights are negative (dropping the vertices that reach weight 0).
      for (;;) {
        const int r = static_cast<int>(pts.cols());
        MatX K = MatX::Zero(r + 1, r + 1);
        K.topLeftCorner(r, r) = pts.transpose() * pts;
        K.block(0, r, r, 1).setOnes();
        K.block(r, 0, 1, r).setOnes();
        VecX rhs = VecX::Zero(r + 1);
        rhs[r] = 1.0;
        const VecX alpha = K.fullPivLu().solve(rhs).head(r);
        if (!alpha.allFinite()) return restore(lo, hi, false);
        if (alpha.minCoeff() > 0.0) {
          lambda = alpha;
          break;
        }
        double theta = 1.0;
        for (int i = 0; i < r; ++i)
          if (alpha[i] <= 0.0) theta = std::min(theta, lambda[i] / (lambda[i] - alpha[i]));
        lambda = theta * alpha + (1.0 - theta) * lambda;
        int kept = 0;
        for (int i = 0; i < r; ++i) {
          if (lambda[i] <= 1e-15) continue;
          pts.col(kept) = pts.col(i);
          full[kept] = full[i];
          lambda[kept++] = lambda[i];
        }
        if (kept == 0) return restore(lo, hi, false);
        pts.conservativeResize(Eigen::NoChange, kept);
        full.resize(kept);
        lambda.conservativeResize(kept);
        lambda /= lambda.sum();
      }
      const double before = y.squaredNorm();
      y = pts * lambda;
      // A vertex that no longer shortens y is rounding at work: on the rounded box's pick
      // the LP returned the same vertex for 200 majors with the gap stuck at 1e-10..2e-9.
      // There y is the minimum within that gap, far inside the search's 1e-4.
      if (y.squaredNorm() >= before && gap <= kWolfeStalledGap) converged = true;
    }
    x = VecX::Zero(n_);
    for (size_t i = 0; i < full.size(); ++i) x += lambda[static_cast<int>(i)] * full[i];
    return restore(lo, hi, converged);
  }

  // The LP from a slack basis, unscaled and then scaled, until `done()` says the answer
  // will do; unscaled again afterwards.
  template <class Done>
  void solve_cold(Done done) {
    for (const int scaling : {0, 3}) {
      lp_.scaling(scaling);
      lp_.allSlackBasis(true);
      lp_.primal();
      if (done()) break;
    }
    lp_.scaling(0);
  }

  // Solves the LP as it stands, warm, and cold where Clp does not prove an optimum. (Clp
  // called a Wolfe LP infeasible at its tenth major on the cylinder's pick, step 1109, whose
  // nine before were feasible with the same bounds.)
  bool optimal_lp() {
    lp_.primal();
    if (!lp_.isProvenOptimal()) solve_cold([&] { return lp_.isProvenOptimal(); });
    return lp_.isProvenOptimal();
  }

  // The node LP as it was (column bounds, zero objective); returns `ok`.
  bool restore(const std::vector<double>& lo, const std::vector<double>& hi, bool ok) {
    for (size_t i = 0; i < curved_.size(); ++i) {
      lp_.setColumnBounds(curved_[i], lo[i], hi[i]);
      lp_.setObjectiveCoefficient(curved_[i], 0.0);
    }
    return ok;
  }

  // A node's fixes as bounds: w_j = 0 (GapZero, within closed_gap_j) or λ_j = 0
  // (ImpulseZero), else both ≤ M.
  void set_bounds(const Node& node) {
    const int m = p_.m();
    for (int j = 0; j < np_; ++j) {
      const int l = p_.lambda[j];
      const double w_hi = node.fix[j] == GapZero ? p_.closed(j) : p_.big_m, l_hi = node.fix[j] == ImpulseZero ? 0.0 : p_.big_m;
      lp_.setColumnBounds(n_ + j, 0.0, w_hi);
      lp_.setColumnBounds(l, 0.0, l_hi);
      qp_.lo[m + j] = -p_.w0[j];
      qp_.hi[m + j] = w_hi - p_.w0[j];
      qp_.lo[m + 2 * np_ + l] = 0.0;
      qp_.hi[m + 2 * np_ + l] = l_hi;
    }
  }

  const ComplementarityQp& p_;
  int n_, np_;
  double tol_;
  ComplementarityBbOptions::NodeQp method_;
  std::vector<int> curved_;   // variables with h_k > 0
  bool linear_flat_ = false;  // some variable without curvature has a linear cost
  std::vector<unsigned char> basis_;  // the last node's feasibility basis
  std::string undecided_reason_;
  ClpSimplex lp_;
  BoxedRowsQp qp_;
  VecX row_scale_;  // each row of qp_.A's largest |coefficient|, at least 1
};

double objective(const ComplementarityQp& p, const VecX& x) { return 0.5 * x.dot(p.H.diagonal().cwiseProduct(x)) + p.c.dot(x); }

// min of ½ xᵀHx + cᵀx over the bounds alone (H diagonal; each λ_j in [0, M]): −∞ if
// unbounded.
double objective_floor(const ComplementarityQp& p) {
  VecX lo = p.x_lo, hi = p.x_hi;
  for (const int k : p.lambda) {
    lo[k] = 0.0;
    hi[k] = p.big_m;
  }
  double f = 0.0;
  for (int k = 0; k < p.n(); ++k) {
    const double h = p.H(k, k), c = p.c[k];
    if (h > 0.0) {
      const double x = std::clamp(-c / h, lo[k], hi[k]);
      f += 0.5 * h * x * x + c * x;
    } else if (c != 0.0) {
      f += std::min(c * lo[k], c * hi[k]);
    }
  }
  return std::isnan(f) ? -kInf : f;
}

}  // namespace

void check_complementarity_qp(const ComplementarityQp& p) {
  const int n = p.n(), np = p.np();
  const std::string f = "ComplementarityQp.";
  require(p.H.rows() == n && p.H.cols() == n, f + "H", "must be n x n (n = size of c)");
  require(p.H.allFinite() && p.c.allFinite() && p.A.allFinite() && p.W.allFinite() && p.w0.allFinite(), f + "H/c/A/W/w0",
          "not finite");
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j)
      require(i == j ? p.H(i, i) >= 0.0 : p.H(i, j) == 0.0, f + "H", "must be diagonal with entries >= 0");
  require(p.A.cols() == n && p.A.rows() == p.m() && p.row_hi.size() == p.m(), f + "A", "must be m x n with row bounds of size m");
  require(p.x_lo.size() == n && p.x_hi.size() == n, f + "x_lo/x_hi", "must have size n");
  require(p.W.rows() == np && p.W.cols() == n && p.w0.size() == np, f + "W/w0", "must be np x n and np");
  require(std::isfinite(p.big_m) && p.big_m > 0, f + "big_m", "must be positive");
  require(p.closed_gap.size() == 0 || p.closed_gap.size() == np, f + "closed_gap", "must have size np or 0");
  for (int j = 0; j < p.closed_gap.size(); ++j)
    require(p.closed_gap[j] >= 0.0 && p.closed_gap[j] < p.big_m, f + "closed_gap",
            "entry " + std::to_string(j) + " must be in [0, big_m)");
  std::vector<char> seen(n, 0);
  for (int j = 0; j < np; ++j) {
    const int l = p.lambda[j];
    require(l >= 0 && l < n && !seen[l], f + "lambda", "entry " + std::to_string(j) + " must be a distinct index < n");
    seen[l] = 1;
    require(p.x_lo[l] <= 0.0 && p.x_hi[l] >= 0.0, f + "x_lo/x_hi",
            "the bounds of lambda " + std::to_string(l) + " must admit 0");
  }
  for (int i = 0; i < p.m(); ++i)
    require(!(p.row_lo[i] > p.row_hi[i]), f + "row_lo", "entry " + std::to_string(i) + " exceeds row_hi");
  for (int i = 0; i < n; ++i) require(!(p.x_lo[i] > p.x_hi[i]), f + "x_lo", "entry " + std::to_string(i) + " exceeds x_hi");
}

MixedIntegerQp big_m_miqp(const ComplementarityQp& p) {
  check_complementarity_qp(p);
  const int n = p.n(), m = p.m(), np = p.np();
  MixedIntegerQp q;
  q.H = p.H;
  q.c = p.c;
  q.x_lo = p.x_lo;
  q.x_hi = p.x_hi;
  for (int j = 0; j < np; ++j) {  // the binaries bound each λ_j
    q.x_lo[p.lambda[j]] = 0.0;
    q.x_hi[p.lambda[j]] = kInf;
  }
  q.A = MatX::Zero(m + 3 * np, n);
  q.B = MatX::Zero(m + 3 * np, np);
  q.row_lo.resize(m + 3 * np);
  q.row_hi.resize(m + 3 * np);
  q.A.topRows(m) = p.A;
  q.row_lo.head(m) = p.row_lo;
  q.row_hi.head(m) = p.row_hi;
  for (int j = 0; j < np; ++j) {
    const int r = m + 3 * j;
    q.A.row(r) = p.W.row(j);  // w ≥ 0
    q.row_lo[r] = -p.w0[j];
    q.row_hi[r] = kInf;
    q.A.row(r + 1) = p.W.row(j);  // w − M z ≤ 0
    q.B(r + 1, j) = -p.big_m;
    q.row_lo[r + 1] = -kInf;
    q.row_hi[r + 1] = p.closed(j) - p.w0[j];
    q.A(r + 2, p.lambda[j]) = 1.0;  // λ + M z ≤ M
    q.B(r + 2, j) = p.big_m;
    q.row_lo[r + 2] = -kInf;
    q.row_hi[r + 2] = p.big_m;
  }
  return q;
}

MiqpResult solve_complementarity_bb(const ComplementarityQp& p, const ComplementarityBbOptions& o) {
  check_complementarity_qp(p);
  const int np = p.np();
  require(o.mode_hint.empty() || static_cast<int>(o.mode_hint.size()) == np, "ComplementarityBbOptions.mode_hint",
          "expected size " + std::to_string(np) + " (pairs) or empty");
  const auto t0 = Clock::now();
  MiqpResult res;
  NodeSolver solver(p, o);
  VecX x, w, best_x;
  double best = kInf;
  int approximate = 0;  // nodes whose QP stood in by its LP vertex: no proof below them
  // Nodes Clp could not decide (step 1972 of the 3D pick, rows missed by 2e-8 after every
  // simplex): skipped, so no proof below them, and without an incumbent no infeasibility.
  int undecided = 0;
  const double floor = objective_floor(p);
  auto gap = [&] { return std::max(o.gap_abs, o.gap_rel * std::max(0.0, best - floor)); };
  // A relaxed solution that satisfies every pair is a candidate; else the most violated
  // pair is returned for branching (−1: candidate).
  auto most_violated = [&](const VecX& xs, const VecX& ws, const Node& node) {
    int worst = -1;
    double worst_v = o.feasibility_tol;
    for (int j = 0; j < np; ++j) {
      if (node.fix[j] != Free) continue;
      const double v = std::min(ws[j] - p.closed(j), xs[p.lambda[j]]);
      if (v > worst_v) {
        worst_v = v;
        worst = j;
      }
    }
    return worst;
  };

  // Depth first until an incumbent exists, the child that agrees with the relaxed solution
  // (its smaller side set to zero) first: the relaxation is weak (w + λ ≤ M with M far above
  // the step's impulses and gaps), so its bound is flat over much of the tree and best-first
  // search would sweep it breadth first; diving finds a complementary point, usually at the
  // root's bound, at once. Then best bound first (the proof; see the loop).
  std::vector<Node> open;
  try {
    // The relaxed solution's smaller side first. (Ordering the children by the previous
    // step's modes instead was worse: where those no longer fit, it explored 2000
    // infeasible nodes.)
    auto branch = [&](const Node& node, int j, double f, std::vector<Node>& stack) {
      const Fix first = w[j] <= x[p.lambda[j]] ? GapZero : ImpulseZero;
      Node child{node.fix, solver.basis(), f};
      child.fix[j] = first == GapZero ? ImpulseZero : GapZero;
      stack.push_back(child);
      child.fix[j] = first;
      stack.push_back(std::move(child));
    };
    // Each hint as a first incumbent: its node, and where that is not complementary (the
    // hint leaves pairs free), a dive below it of at most hint_dive_nodes nodes.
    auto try_hint = [&](const std::vector<int>& modes) {
      std::vector<Node> stack(1);
      stack[0].fix.assign(np, Free);
      for (int j = 0; j < np; ++j)
        if (modes[j] == 0 || modes[j] == 1) stack[0].fix[j] = modes[j] ? ImpulseZero : GapZero;
      for (int budget = o.hint_dive_nodes + 1; !stack.empty() && budget > 0; --budget) {
        Node node = std::move(stack.back());
        stack.pop_back();
        ++res.nodes;
        const NodeOutcome outcome = solver.solve(node, x, w);
        if (outcome == NodeOutcome::Infeasible) continue;
        if (outcome == NodeOutcome::Undecided) {
          ++undecided;
          continue;
        }
        const double f = objective(p, x);
        if (best_x.size() && f >= best - gap()) continue;  // (gap() is infinite without an incumbent)
        const int j = most_violated(x, w, node);
        if (j < 0) {
          best = f;
          best_x = x;
          return;
        }
        branch(node, j, f, stack);
      }
    };
    if (!o.mode_hint.empty()) try_hint(o.mode_hint);
    // The objective's least value over the bounds alone bounds every node: an incumbent there
    // (a command followed exactly) is optimal without a search.
    const bool settled = best_x.size() && best <= floor + gap();
    // The heuristics cost more than a node (the 3D pick's convex scheme: ~30 ms in the
    // squeeze): asked at once without an incumbent, else once the search has run
    // hints_after_nodes nodes without closing.
    bool asked = !o.heuristic_hints || settled;
    auto ask = [&] {
      asked = true;
      for (const std::vector<int>& modes : o.heuristic_hints()) {
        require(static_cast<int>(modes.size()) == np, "ComplementarityBbOptions.heuristic_hints",
                "expected size " + std::to_string(np) + " (pairs)");
        try_hint(modes);
      }
    };
    if (!asked && !best_x.size()) ask();
    Node root;
    root.fix.assign(np, Free);
    root.bound = floor;
    open.push_back(root);
    while (!open.empty()) {
      if (!asked && res.nodes >= o.hints_after_nodes) ask();
      if (best_x.size()) {
        // Once an incumbent exists what is left is mostly its proof: the open node of least
        // bound first (ties: the deepest). (Depth first all the way, the 3D pick averaged
        // 1.8-2.6 ms a step for the cylinder and 17-25 ms for the rounded box; now 1.6 and
        // 14 ms, bench/README.md.)
        size_t low = open.size() - 1;
        for (size_t i = open.size(); i-- > 0;)
          if (open[i].bound < open[low].bound) low = i;
        std::swap(open[low], open.back());
      }
      Node node = std::move(open.back());
      open.pop_back();
      if (node.bound >= best - gap()) continue;
      // The node limit ends a search that has an incumbent; one without goes on to its
      // first complementary point (or the time limit).
      const bool node_limit = res.nodes >= o.max_nodes && best_x.size();
      if (node_limit || ms_since(t0) > 1e3 * o.time_limit_s) {
        res.message = node_limit ? "node limit (" + std::to_string(o.max_nodes) + ") reached" : "time limit reached";
        break;
      }
      ++res.nodes;
      const NodeOutcome outcome = solver.solve(node, x, w);
      if (outcome == NodeOutcome::Infeasible) continue;
      if (outcome == NodeOutcome::Undecided) {
        ++undecided;
        continue;
      }
      if (outcome == NodeOutcome::Approximate) ++approximate;
      const double f = objective(p, x);
      if (f >= best - gap()) continue;
      const int j = most_violated(x, w, node);
      if (j < 0) {
        best = f;
        best_x = x;
        continue;
      }
      branch(node, j, f, open);
    }
  } catch (const std::exception& e) {
    res.message = std::string("Clp: ") + e.what();
    open = {};
  } catch (const CoinError& e) {  // not a std::exception
    res.message = "Clp: " + e.className() + "::" + e.methodName() + ": " + e.message();
    open = {};
  }
  res.solve_ms = ms_since(t0);
  if (best_x.size()) {
    res.x = best_x;
    res.z.resize(np);
    const VecX ws = p.W * best_x + p.w0;
    // A pair closed within its closed gap may carry a load smaller than its gap: it is closed.
    for (int j = 0; j < np; ++j) res.z[j] = best_x[p.lambda[j]] <= ws[j] - p.closed(j) ? 1.0 : 0.0;
    res.objective = objective(p, best_x);
  }
  if (!open.empty() || !res.message.empty()) {
    res.status = best_x.size() ? MiqpStatus::Feasible : MiqpStatus::Failed;
    if (res.message.empty()) res.message = "stopped";
    if (best_x.size()) res.message += "; the incumbent is returned, its optimality not proven";
  } else if (best_x.size()) {
    res.status = approximate || undecided ? MiqpStatus::Feasible : MiqpStatus::Optimal;
    if (approximate)
      res.message = std::to_string(approximate) + " node QP(s) not solved exactly: optimality not proven";
    if (undecided)
      res.message += (approximate ? "; " : "") + std::to_string(undecided) + " node(s) undecided (" + solver.undecided_reason() +
                     "): optimality not proven";
  } else if (undecided) {
    res.status = MiqpStatus::Failed;
    res.message = "no complementary point found; " + std::to_string(undecided) + " node(s) undecided (" +
                  solver.undecided_reason() + ")";
  } else {
    // Without an incumbent nothing was pruned by bound: the search was exhaustive.
    res.status = MiqpStatus::Infeasible;
    res.message = "infeasible";
  }
  return res;
}

}  // namespace graspsim
