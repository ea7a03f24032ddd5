#include "steppers/spook/mlcp.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace graspsim::spook {
namespace {

MatX block(const MatX& A, const std::vector<int>& rows, const std::vector<int>& cols) {
  MatX out(rows.size(), cols.size());
  for (size_t a = 0; a < rows.size(); ++a)
    for (size_t b = 0; b < cols.size(); ++b) out(a, b) = A(rows[a], cols[b]);
  return out;
}

VecX gather(const VecX& x, const std::vector<int>& idx) {
  VecX out(idx.size());
  for (size_t a = 0; a < idx.size(); ++a) out[a] = x[idx[a]];
  return out;
}

}  // namespace

MlcpSolver::MlcpSolver(const Mlcp& p) : m_(static_cast<int>(p.A.rows())) {
  type_.assign(m_, Type::Free);
  x_fixed_ = VecX::Zero(m_);
  std::vector<bool> in_poly(m_, false);
  for (const auto& g : p.poly)
    for (int r : g.rows) in_poly[r] = true;
  for (int i = 0; i < m_; ++i) {
    const bool lo_inf = std::isinf(p.lo[i]), hi_inf = std::isinf(p.hi[i]);
    if (in_poly[i]) type_[i] = Type::Poly;
    else if (p.findex[i] >= 0) type_[i] = p.fmu[i] > 0.0 ? Type::Findex : Type::Fixed;
    else if (lo_inf && hi_inf) type_[i] = Type::Free;
    else if (p.lo[i] == p.hi[i]) type_[i] = Type::Fixed, x_fixed_[i] = p.lo[i];
    else if (hi_inf) type_[i] = Type::Lower;
    else if (lo_inf) type_[i] = Type::Upper;
    else type_[i] = Type::Box;
  }
  std::vector<int>& pos = pos_;
  pos.assign(m_, -1);
  for (int i = 0; i < m_; ++i) {
    if (type_[i] == Type::Free) F_.push_back(i);
    else if (type_[i] != Type::Fixed) pos[i] = static_cast<int>(B_.size()), B_.push_back(i);
  }
  std::vector<int> all(m_);
  for (int i = 0; i < m_; ++i) all[i] = i;
  const MatX A_FF = block(p.A, F_, F_);
  A_FB_ = block(p.A, F_, B_);
  A_BF_ = block(p.A, B_, F_);
  A_BB_ = block(p.A, B_, B_);
  A_Fx_fixed_ = block(p.A, F_, all) * x_fixed_;
  A_Bx_fixed_ = block(p.A, B_, all) * x_fixed_;
  ldlt_FF_.compute(A_FF);
  Ared_ = F_.empty() ? A_BB_ : MatX(A_BB_ - A_BF_ * ldlt_FF_.solve(A_FB_));

  // LCP variables: one per lower/upper/findex-less row, two per box and findex row, one
  // per polyhedral row plus one slack per group.
  const int nB = static_cast<int>(B_.size());
  struct Entry { int r, c; double v; };
  std::vector<Entry> T, E;
  std::vector<int> var_of_row(m_, -1);
  x0_ = VecX::Zero(nB);
  upper_var_.assign(nB, -1);
  hi_ = VecX::Zero(nB);
  auto new_var = [&](int Lrow, double sign, double c) {
    L_row_.push_back(Lrow);
    L_sign_.conservativeResize(L_sign_.size() + 1);
    L_sign_[L_sign_.size() - 1] = sign;
    c_.conservativeResize(c_.size() + 1);
    c_[c_.size() - 1] = c;
    return static_cast<int>(L_row_.size()) - 1;
  };
  for (int i : B_) {
    const int pi = pos[i];
    switch (type_[i]) {
      case Type::Lower:
      case Type::Poly:
        var_of_row[i] = new_var(pi, 1.0, 0.0);
        var_.push_back({type_[i] == Type::Poly ? VarKind::AboveZero : VarKind::AboveLo, i, p.lo[i]});
        T.push_back({pi, var_of_row[i], 1.0});
        x0_[pi] = type_[i] == Type::Poly ? 0.0 : p.lo[i];
        break;
      case Type::Upper:
        var_of_row[i] = new_var(pi, -1.0, 0.0);
        var_.push_back({VarKind::BelowHi, i, p.hi[i]});
        T.push_back({pi, var_of_row[i], -1.0});
        x0_[pi] = p.hi[i];
        break;
      case Type::Box: {
        const int k1 = new_var(pi, 1.0, 0.0), k2 = new_var(-1, 0.0, p.hi[i] - p.lo[i]);
        var_.push_back({VarKind::AboveLo, i, p.lo[i]});
        var_.push_back({VarKind::AtHi, i, p.hi[i]});
        T.push_back({pi, k1, 1.0});
        x0_[pi] = p.lo[i];
        upper_var_[pi] = k2;
        hi_[pi] = p.hi[i];
        E.push_back({k1, k2, 1.0});
        E.push_back({k2, k1, -1.0});
        break;
      }
      default:
        break;
    }
  }
  auto normal_var = [&](int n) {
    if (n < 0 || n >= m_ || type_[n] != Type::Lower)
      throw std::logic_error("spook::MlcpSolver: a friction bound refers to a row that is not a lower-bounded normal");
    return var_of_row[n];
  };
  // |x| ≤ μ x_n as Stewart-Trinkle with the two directions ±: x = z⁺ − z⁻, z± ⊥ ±w + σ,
  // σ ⊥ μ x_n − z⁺ − z⁻. (Shifting x = z − μ x_n instead makes the LCP matrix lose
  // copositivity — negative diagonals — and Lemke then fails on some solvable problems.)
  for (int i : B_) {
    if (type_[i] != Type::Findex) continue;
    const int n = p.findex[i], kn = normal_var(n), pi = pos[i];
    const double mu = p.fmu[i];
    const int kp = new_var(pi, 1.0, 0.0), km = new_var(pi, -1.0, 0.0);
    const int ks = new_var(-1, 0.0, mu * p.lo[n]);
    var_.push_back({VarKind::AboveZero, i, 0.0});
    var_.push_back({VarKind::BelowZero, i, 0.0});
    var_.push_back({VarKind::AtCap, n, mu, {i}, true, {kp, km}});
    T.push_back({pi, kp, 1.0});
    T.push_back({pi, km, -1.0});
    x0_[pi] = 0.0;
    E.push_back({kp, ks, 1.0});
    E.push_back({km, ks, 1.0});
    E.push_back({ks, kn, mu});
    E.push_back({ks, kp, -1.0});
    E.push_back({ks, km, -1.0});
  }
  for (const auto& g : p.poly) {
    const int kn = normal_var(g.normal);
    const int ks = new_var(-1, 0.0, g.mu * p.lo[g.normal]);
    var_.push_back({VarKind::AtCap, g.normal, g.mu, g.rows, false, {}});
    for (int r : g.rows) var_.back().vars.push_back(var_of_row[r]);
    E.push_back({ks, kn, g.mu});
    for (int r : g.rows) {
      E.push_back({ks, var_of_row[r], -1.0});
      E.push_back({var_of_row[r], ks, 1.0});
    }
  }
  const int nl = static_cast<int>(L_row_.size());
  T_ = MatX::Zero(nB, nl);
  for (const Entry& e : T) T_(e.r, e.c) += e.v;
  E_ = MatX::Zero(nl, nl);
  for (const Entry& e : E) E_(e.r, e.c) += e.v;
  const MatX AT = Ared_ * T_;
  M_ = E_;
  for (int k = 0; k < nl; ++k)
    if (L_row_[k] >= 0) M_.row(k) += L_sign_[k] * AT.row(L_row_[k]);
}

VecX MlcpSolver::lcp_q(const VecX& b) const {
  // w_B = Ared x_B − b_red with b_red = b_B − A_B·x_fixed − A_BF A_FF⁻¹ (b_F − A_F·x_fixed).
  VecX b_red = gather(b, B_) - A_Bx_fixed_;
  if (!F_.empty()) b_red -= A_BF_ * ldlt_FF_.solve(gather(b, F_) - A_Fx_fixed_);
  const VecX p = Ared_ * x0_ - b_red;
  VecX q = c_;
  for (int k = 0; k < q.size(); ++k)
    if (L_row_[k] >= 0) q[k] += L_sign_[k] * p[L_row_[k]];
  return q;
}

VecX MlcpSolver::recover(const VecX& b, const VecX& z) const {
  VecX x = x_fixed_;
  VecX xB = x0_ + T_ * z;
  // A box row whose upper multiplier is active sits exactly at hi (lo + (hi − lo) may round).
  for (size_t a = 0; a < B_.size(); ++a)
    if (upper_var_[a] >= 0 && z[upper_var_[a]] > 0.0) xB[a] = hi_[a];
  for (size_t a = 0; a < B_.size(); ++a) x[B_[a]] = xB[a];
  if (!F_.empty()) {
    const VecX xF = ldlt_FF_.solve(gather(b, F_) - A_Fx_fixed_ - A_FB_ * xB);
    for (size_t a = 0; a < F_.size(); ++a) x[F_[a]] = xF[a];
  }
  return x;
}

std::vector<int> MlcpSolver::basis_from(const VecX& x, const VecX& b) const {
  const double tol = 1e-12 * std::max(1.0, x.cwiseAbs().maxCoeff());
  // Row residuals of the guess decide the degenerate case of a zero Coulomb cap.
  const VecX xB = gather(x, B_);
  VecX b_red = gather(b, B_) - A_Bx_fixed_;
  if (!F_.empty()) b_red -= A_BF_ * ldlt_FF_.solve(gather(b, F_) - A_Fx_fixed_);
  const VecX wB = Ared_ * xB - b_red;
  std::vector<char> in(var_.size(), 0);
  for (int k = 0; k < static_cast<int>(var_.size()); ++k) {
    const Var& v = var_[k];
    switch (v.kind) {
      case VarKind::AboveLo: in[k] = x[v.row] > v.value + tol; break;
      case VarKind::BelowHi: in[k] = x[v.row] < v.value - tol; break;
      case VarKind::AtHi: in[k] = x[v.row] >= v.value - tol; break;
      case VarKind::AboveZero: in[k] = x[v.row] > tol; break;
      case VarKind::BelowZero: in[k] = x[v.row] < -tol; break;
      case VarKind::AtCap: {
        double load = 0.0;
        for (int r : v.rows) load += v.absolute ? std::abs(x[r]) : x[r];
        const double cap = v.value * x[v.row];
        if (cap > tol) {
          in[k] = load >= cap - tol;
          break;
        }
        // Zero cap (separated contact): the multiplier carries the row velocity, together
        // with the (zero) friction variable that velocity pushes against.
        if (v.absolute) {
          const double w = wB[pos_[v.rows[0]]];
          if (std::abs(w) > tol) in[k] = 1, in[v.vars[w < 0.0 ? 0 : 1]] = 1;
        } else {
          int arg = 0;
          for (int a = 1; a < static_cast<int>(v.rows.size()); ++a)
            if (wB[pos_[v.rows[a]]] < wB[pos_[v.rows[arg]]]) arg = a;
          if (wB[pos_[v.rows[arg]]] < -tol) in[k] = 1, in[v.vars[arg]] = 1;
        }
        break;
      }
    }
  }
  std::vector<int> basic;
  for (int k = 0; k < static_cast<int>(var_.size()); ++k)
    if (in[k]) basic.push_back(k);
  return basic;
}

bool MlcpSolver::solve(const VecX& b, VecX& x, int& pivots, const VecX* guess) {
  const VecX q = lcp_q(b);
  VecX z;
  if (q.size() == 0) {  // only equality rows: the Schur complement solve is the answer
    x = recover(b, z);
    return true;
  }
  if (active_.empty() && guess != nullptr && guess->size() == m_) active_.set(M_, basis_from(*guess, b));
  if (active_.try_solve(M_, q, z)) {
    x = recover(b, z);
    return true;
  }
  LcpResult res = solve_lcp_lemke(M_, q);
  pivots += res.pivots;
  if (!res.ok) return false;
  active_.set(M_, res.basic);
  x = recover(b, res.z);
  return true;
}

}  // namespace graspsim::spook
