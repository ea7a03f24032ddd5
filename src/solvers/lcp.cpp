#include "solvers/lcp.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace graspsim {
namespace {

// Scales making M̃ = S M S unit-diagonal where M_ii > 0; a variable without a diagonal
// (a slack) gets the geometric mean of its row and column couplings so those become O(1).
VecX lcp_scaling(const MatX& M) {
  const int n = static_cast<int>(M.rows());
  VecX s = VecX::Ones(n);
  std::vector<bool> has_diag(n, false);
  const double tiny = 1e-300;
  for (int i = 0; i < n; ++i)
    if (M(i, i) > tiny) {
      s[i] = 1.0 / std::sqrt(M(i, i));
      has_diag[i] = true;
    }
  for (int i = 0; i < n; ++i) {
    if (has_diag[i]) continue;
    double r = 0.0, c = 0.0;
    for (int j = 0; j < n; ++j)
      if (has_diag[j]) {
        r = std::max(r, std::abs(M(i, j)) * s[j]);
        c = std::max(c, std::abs(M(j, i)) * s[j]);
      }
    if (r > tiny && c > tiny) s[i] = 1.0 / std::sqrt(r * c);
  }
  return s;
}

// Solves M_SS z_S = −q_S with `lu` (left holding M_SS's factors); false if the block is
// singular or the result is not finite.
bool solve_on_set(const MatX& M, const VecX& q, const std::vector<int>& S, VecX& z, Eigen::PartialPivLU<MatX>& lu) {
  const int m = static_cast<int>(S.size());
  z = VecX::Zero(M.rows());
  if (m == 0) return true;
  MatX Mss(m, m);
  VecX qs(m);
  for (int a = 0; a < m; ++a) {
    qs[a] = q[S[a]];
    for (int b = 0; b < m; ++b) Mss(a, b) = M(S[a], S[b]);
  }
  lu.compute(Mss);
  const VecX zs = lu.solve(-qs);
  if (!zs.allFinite()) return false;
  for (int a = 0; a < m; ++a) z[S[a]] = zs[a];
  return true;
}

// Polish: re-solve the basis on the true q, then a few block-principal-pivoting flips
// (drop basic variables that came out negative, add non-basic ones whose w is negative)
// to settle the near-ties that degenerate or ill-conditioned problems leave. Returns the
// best z found (clamped to z ≥ 0) and its basis, with that basis's LU in res.lu when it
// came from a re-solve.
void polish(const MatX& M, const VecX& q, LcpResult& res) {
  const int n = static_cast<int>(q.size());
  double best_r = lcp_residual(M, q, res.z);
  std::vector<int> S = res.basic;
  Eigen::PartialPivLU<MatX> lu;
  for (int iter = 0; iter < 8; ++iter) {
    VecX z;
    if (!solve_on_set(M, q, S, z, lu)) return;
    const VecX zc = z.cwiseMax(0.0);
    const double r = lcp_residual(M, q, zc);
    if (r < best_r) {
      best_r = r, res.z = zc, res.basic = S;
      res.factored = !S.empty();
      if (res.factored) res.lu = lu;
    }
    const VecX w = M * z + q;
    std::vector<char> in(n, 0);
    for (int i : S) in[i] = 1;
    std::vector<int> next;
    for (int i = 0; i < n; ++i)
      if ((in[i] && z[i] >= 0.0) || (!in[i] && w[i] < 0.0)) next.push_back(i);
    if (next == S) return;
    S.swap(next);
  }
}

}  // namespace

double lcp_residual(const MatX& M, const VecX& q, const VecX& z) {
  const VecX w = M * z + q;
  double r = 0.0;
  for (int i = 0; i < z.size(); ++i) r = std::max(r, std::abs(std::min(z[i], w[i])));
  return r;
}

namespace {

constexpr double kMaxTermsOverData = 1e6;

// One run of Lemke on q + δu (scaled), polished on the true q.
LcpResult lemke_attempt(const MatX& M_in, const VecX& q_in, const VecX& s, const MatX& M,
                        double delta_rel, int max_pivots) {
  const int n = static_cast<int>(q_in.size());
  LcpResult res;
  res.z = VecX::Zero(n);
  VecX q = s.cwiseProduct(q_in);
  const double delta = delta_rel * std::max(1.0, q.cwiseAbs().maxCoeff());
  for (int i = 0; i < n; ++i) q[i] += delta * (1.0 + std::fmod(0.6180339887498949 * (i + 1), 1.0));

  // Variables: w_i = i, z_j = n + j, z0 = 2n. Equations: w − M z − e z0 = q.
  const int z0 = 2 * n;
  std::vector<int> basis(n);
  for (int i = 0; i < n; ++i) basis[i] = i;
  // B⁻¹ starts as I and a pivot on row r changes only column r and the columns already
  // changed (row r of B⁻¹ is zero elsewhere), so the columns still e_j are skipped: a pivot
  // costs n × (rows pivoted on so far) instead of n² (on the Shadow Hand's grasps ~78 of
  // ~167 columns have changed when a solve ends).
  MatX Binv = MatX::Identity(n, n);
  std::vector<int> changed;  // columns of B⁻¹ that are no longer e_j
  std::vector<char> is_changed(static_cast<size_t>(n), 0);
  VecX x = q;  // values of the basic variables
  VecX v(n), y(n), row(n);
  auto column = [&](int var) -> VecX {
    if (var < n) return Binv.col(var);
    if (var < 2 * n) v = M.col(var - n);
    else v.setOnes();
    y = v;  // B⁻¹ v: the unchanged columns give v_j e_j
    for (int j : changed) y[j] = 0.0;
    for (int j : changed)
      if (v[j] != 0.0) y.noalias() += v[j] * Binv.col(j);
    return -y;
  };
  int entering = -1;
  auto pivot = [&](int r, const VecX& col) {
    const double p = col[r];
    if (!is_changed[static_cast<size_t>(r)]) {
      is_changed[static_cast<size_t>(r)] = 1;
      changed.push_back(r);
    }
    for (int j : changed) row[j] = Binv(r, j) / p;
    const double xr = x[r] / p;
    VecX c = col;
    c[r] = 0.0;
    for (int j : changed) {
      Binv.col(j).noalias() -= row[j] * c;
      Binv(r, j) = row[j];
    }
    x -= c * xr;
    x[r] = xr;
  };

  // Lexicographic minimum-ratio test over rows with a positive pivot: ties in x_i/col_i
  // are broken by the rows of B⁻¹/col_i (equivalent to perturbing q by (ε, ε², …)), which
  // rules out cycling on the degenerate problems contact gives (zero q on slack rows); a
  // tie that includes z0 ends the pivoting at once.
  const double pivot_tol = 1e-11;
  auto leaving_row = [&](const VecX& col) {
    std::vector<int> cand;
    double best = std::numeric_limits<double>::infinity();
    for (int i = 0; i < n; ++i)
      if (col[i] > pivot_tol) best = std::min(best, std::max(x[i], 0.0) / col[i]);
    const double tie = 1e-12 * std::max(1.0, best);
    for (int i = 0; i < n; ++i)
      if (col[i] > pivot_tol && std::max(x[i], 0.0) / col[i] <= best + tie) cand.push_back(i);
    for (int i : cand)
      if (basis[i] == z0) return i;
    for (int j = 0; j < n && cand.size() > 1; ++j) {
      double lex = std::numeric_limits<double>::infinity();
      for (int i : cand) lex = std::min(lex, Binv(i, j) / col[i]);
      std::vector<int> keep;
      for (int i : cand)
        if (Binv(i, j) / col[i] <= lex + 1e-12 * std::max(1.0, std::abs(lex))) keep.push_back(i);
      cand.swap(keep);
    }
    return cand.empty() ? -1 : cand.front();
  };

  // z0 enters at the row of the lexicographically smallest (q_i, B⁻¹_i·) = (q_i, e_iᵀ),
  // i.e. the most negative q(ε) = q + (ε, ε², …): ties in q go to the largest index.
  {
    const double qmin = q.minCoeff();
    int r0 = 0;
    for (int i = 0; i < n; ++i)
      if (q[i] <= qmin + 1e-12 * std::max(1.0, std::abs(qmin))) r0 = i;
    pivot(r0, column(z0));
    basis[r0] = z0;
    entering = n + r0;  // complement of w_r0
  }
  bool done = false;
  while (res.pivots < max_pivots) {
    ++res.pivots;
    const VecX col = column(entering);
    const int r = leaving_row(col);
    if (r < 0) break;  // ray termination
    const int leaving = basis[r];
    pivot(r, col);
    basis[r] = entering;
    if (leaving == z0) {
      done = true;
      break;
    }
    entering = leaving < n ? leaving + n : leaving - n;
  }
  // A ray still leaves a basis worth polishing (near-ties can end there); judged below.

  VecX zt = VecX::Zero(n);
  for (int i = 0; i < n; ++i)
    if (basis[i] >= n && basis[i] < 2 * n) {
      zt[basis[i] - n] = std::max(x[i], 0.0);
      res.basic.push_back(basis[i] - n);
    }
  std::sort(res.basic.begin(), res.basic.end());
  res.z = s.cwiseProduct(zt);
  polish(M_in, q_in, res);
  // Accept what rounding explains: residual against the size of the terms of M z + q. A
  // run that did not end with z0 leaving (a ray, or the pivot limit) is judged against q
  // alone: its polished basis can be near-singular, and a huge z would otherwise excuse
  // its own residual (seen: z ~ 1e7 from |q| ~ 4 on a 2F-85 grasp at 1/60 s). Nor is a
  // run that ended with z0 leaving taken when its terms exceed the data a millionfold:
  // that is the same blow-up (seen: |M| |z| = 7e10 |q|, residual 533, on the 2F-85's
  // cylinder at 1/60 s), where the robot scenes' answers stay below 4e3 |q|.
  const double data = std::max(1.0, q_in.cwiseAbs().maxCoeff());
  const double terms = M_in.cwiseAbs().maxCoeff() * res.z.cwiseAbs().maxCoeff();
  const double scale = done ? std::max(data, terms) : data;
  res.ok = lcp_residual(M_in, q_in, res.z) <= 1e-9 * scale && terms <= kMaxTermsOverData * data;
  return res;
}

}  // namespace

LcpResult solve_lcp_lemke(const MatX& M_in, const VecX& q_in, int max_pivots) {
  const int n = static_cast<int>(q_in.size());
  if (n == 0 || q_in.minCoeff() >= 0.0) {
    LcpResult res;
    res.z = VecX::Zero(n);
    res.ok = true;
    return res;
  }
  if (max_pivots < 0) max_pivots = 50 * n + 100;
  const VecX s = lcp_scaling(M_in);
  const MatX M = s.asDiagonal() * M_in * s.asDiagonal();
  // Contact LCPs are degenerate (q = 0 on every slack row, near-dependent rows), where the
  // lexicographic rule alone proved fragile in floating point: pivot on q + δu with a
  // small deterministic δu > 0 (generic, so the pivoting is non-degenerate), then polish
  // the final basis on the true q. A different δ resolves the rare remaining failures.
  int pivots = 0;
  LcpResult res;
  for (double delta : {1e-8, 1e-6, 1e-10}) {
    res = lemke_attempt(M_in, q_in, s, M, delta, max_pivots);
    pivots += res.pivots;
    if (res.ok) break;
  }
  res.pivots = pivots;
  return res;
}

void LcpActiveSet::set(const MatX& M, const std::vector<int>& basic, const Eigen::PartialPivLU<MatX>* lu) {
  basic_.assign(basic.begin(), basic.end());
  const int m = static_cast<int>(basic_.size());
  valid_ = true;
  if (lu && !symmetric_ && lu->rows() == m) {  // (the same block, factored the same way)
    use_llt_ = false;
    lu_ = *lu;
    return;
  }
  Mss_.resize(m, m);
  for (int b = 0; b < m; ++b)
    for (int a = 0; a < m; ++a) Mss_(a, b) = M(basic_[a], basic_[b]);
  use_llt_ = false;
  if (symmetric_) {
    llt_.compute(Mss_);
    use_llt_ = llt_.info() == Eigen::Success;
  }
  if (!use_llt_) lu_.compute(Mss_);
}

void LcpActiveSet::toggle(const MatX& M, int k) {
  std::vector<int> basic = basic_;
  const auto it = std::lower_bound(basic.begin(), basic.end(), k);
  if (it != basic.end() && *it == k) basic.erase(it);
  else basic.insert(it, k);
  set(M, basic);
}

bool LcpActiveSet::try_solve(const MatX& M, const VecX& q, VecX& z) {
  infeasible_ = -1;
  if (!valid_) return false;
  const int m = static_cast<int>(basic_.size());
  z.setZero(q.size());
  if (m > 0) {
    qs_.resize(m);
    for (int a = 0; a < m; ++a) qs_[a] = -q[basic_[a]];
    zs_.resize(m);
    if (use_llt_) zs_ = llt_.solve(qs_);
    else zs_ = lu_.solve(qs_);
    if (!zs_.allFinite()) return false;
    for (int a = 0; a < m; ++a) z[basic_[a]] = zs_[a];
  }
  // Feasibility with a tolerance relative to the problem's scale (rounding only).
  const double scale = std::max(1.0, q.cwiseAbs().maxCoeff());
  const double wtol = 1e-13 * scale;
  const double ztol = 1e-12 * std::max(1.0, z.cwiseAbs().maxCoeff());
  w_.resize(q.size());
  w_.noalias() = M * z;
  w_ += q;
  for (int i = 0; i < q.size(); ++i)
    if (z[i] < -ztol || w_[i] < -wtol) {
      infeasible_ = i;
      return false;
    }
  for (int i : basic_)  // a singular basis block may have been "solved" inaccurately
    if (std::abs(w_[i]) > 1e3 * wtol) return false;
  z = z.cwiseMax(0.0);
  return true;
}

}  // namespace graspsim
