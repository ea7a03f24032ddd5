#include "solvers/mlcp.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace graspsim {
namespace {

// Principal pivots tried on a remembered basis that no longer fits before Lemke runs, on
// LCPs of up to kRepairMaxVars variables. Each costs a fresh LU (n³/3), a Lemke pivot a
// rank-one update (n²): a small grasp whose basis is off by one index repairs in one LU
// (the direct+iterative hold: 1.17M -> 0.51M instructions per step), while a 10-box column
// (200 variables, dozens of changed indices a step) was slower with repairs (32 -> 47 ms
// per step for 10 columns) than with Lemke alone.
constexpr int kBasisRepairs = 4;
constexpr int kRepairMaxVars = 64;

// out = A(rows, cols), into out's storage.
void block(const MatX& A, const std::vector<int>& rows, const std::vector<int>& cols, MatX& out) {
  out.resize(static_cast<Eigen::Index>(rows.size()), static_cast<Eigen::Index>(cols.size()));
  for (size_t b = 0; b < cols.size(); ++b)
    for (size_t a = 0; a < rows.size(); ++a) out(a, b) = A(rows[a], cols[b]);
}

// out = A(rows, :) x.
void block_times(const MatX& A, const std::vector<int>& rows, const VecX& x, VecX& out) {
  out.resize(static_cast<Eigen::Index>(rows.size()));
  for (size_t a = 0; a < rows.size(); ++a) out[a] = A.row(rows[a]).dot(x);
}

void gather(const VecX& x, const std::vector<int>& idx, VecX& out) {
  out.resize(static_cast<Eigen::Index>(idx.size()));
  for (size_t a = 0; a < idx.size(); ++a) out[a] = x[idx[a]];
}

}  // namespace

int MlcpSolver::add_var(int L_row, double sign, double c) {
  L_row_.push_back(L_row);
  L_sign_.push_back(sign);
  c_.push_back(c);
  return static_cast<int>(L_row_.size()) - 1;
}

void MlcpSolver::add_var_info(VarKind kind, int row, double value) {
  if (nvar_ == static_cast<int>(var_.size())) var_.emplace_back();
  Var& v = var_[nvar_++];
  v.kind = kind;
  v.row = row;
  v.value = value;
  v.rows.clear();
  v.absolute = false;
  v.vars.clear();
}

void MlcpSolver::setup(const Mlcp& p) {
  m_ = static_cast<int>(p.A.rows());
  active_.reset();
  type_.assign(m_, Type::Free);
  x_fixed_.setZero(m_);
  in_poly_.assign(m_, 0);
  for (const auto& g : p.poly)
    for (int r : g.rows) in_poly_[r] = 1;
  for (int i = 0; i < m_; ++i) {
    const bool lo_inf = std::isinf(p.lo[i]), hi_inf = std::isinf(p.hi[i]);
    if (in_poly_[i]) type_[i] = Type::Poly;
    else if (p.findex[i] >= 0) type_[i] = p.fmu[i] > 0.0 ? Type::Findex : Type::Fixed;
    else if (lo_inf && hi_inf) type_[i] = Type::Free;
    else if (p.lo[i] == p.hi[i]) type_[i] = Type::Fixed, x_fixed_[i] = p.lo[i];
    else if (hi_inf) type_[i] = Type::Lower;
    else if (lo_inf) type_[i] = Type::Upper;
    else type_[i] = Type::Box;
  }
  std::vector<int>& pos = pos_;
  pos.assign(m_, -1);
  F_.clear();
  B_.clear();
  for (int i = 0; i < m_; ++i) {
    if (type_[i] == Type::Free) F_.push_back(i);
    else if (type_[i] != Type::Fixed) pos[i] = static_cast<int>(B_.size()), B_.push_back(i);
  }
  block(p.A, F_, F_, A_FF_);
  block(p.A, F_, B_, A_FB_);
  block(p.A, B_, F_, A_BF_);
  block(p.A, B_, B_, A_BB_);
  block_times(p.A, F_, x_fixed_, A_Fx_fixed_);
  block_times(p.A, B_, x_fixed_, A_Bx_fixed_);
  ldlt_FF_.compute(A_FF_);
  Ared_ = A_BB_;
  if (!F_.empty() && !B_.empty()) {  // (Eigen's triangular solve reads element 0 even of an F × 0 matrix)
    S_FB_ = A_FB_;
    ldlt_FF_.solveInPlace(S_FB_);
    Ared_.noalias() -= A_BF_ * S_FB_;
  }

  // LCP variables: one per lower/upper/findex-less row, two per box and findex row, one
  // per polyhedral row plus one slack per group.
  const int nB = static_cast<int>(B_.size());
  lower_only_ = std::all_of(B_.begin(), B_.end(), [&](int i) { return type_[i] == Type::Lower; });
  std::vector<Entry>& T = T_entries_;
  std::vector<Entry>& E = E_entries_;
  T.clear();
  E.clear();
  var_of_row_.assign(m_, -1);
  std::vector<int>& var_of_row = var_of_row_;
  x0_.setZero(nB);
  upper_var_.assign(nB, -1);
  hi_.setZero(nB);
  L_row_.clear();
  L_sign_.clear();
  c_.clear();
  nvar_ = 0;
  for (int i : B_) {
    const int pi = pos[i];
    switch (type_[i]) {
      case Type::Lower:
      case Type::Poly:
        var_of_row[i] = add_var(pi, 1.0, 0.0);
        add_var_info(type_[i] == Type::Poly ? VarKind::AboveZero : VarKind::AboveLo, i, p.lo[i]);
        T.push_back({pi, var_of_row[i], 1.0});
        x0_[pi] = type_[i] == Type::Poly ? 0.0 : p.lo[i];
        break;
      case Type::Upper:
        var_of_row[i] = add_var(pi, -1.0, 0.0);
        add_var_info(VarKind::BelowHi, i, p.hi[i]);
        T.push_back({pi, var_of_row[i], -1.0});
        x0_[pi] = p.hi[i];
        break;
      case Type::Box: {
        const int k1 = add_var(pi, 1.0, 0.0), k2 = add_var(-1, 0.0, p.hi[i] - p.lo[i]);
        add_var_info(VarKind::AboveLo, i, p.lo[i]);
        add_var_info(VarKind::AtHi, i, p.hi[i]);
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
      throw std::logic_error("MlcpSolver: a friction bound refers to a row that is not a lower-bounded normal");
    return var_of_row[n];
  };
  // |x| ≤ μ x_n as Stewart-Trinkle with the two directions ±: x = z⁺ − z⁻, z± ⊥ ±w + σ,
  // σ ⊥ μ x_n − z⁺ − z⁻. (Shifting x = z − μ x_n instead makes the LCP matrix lose
  // copositivity — negative diagonals — and Lemke then fails on some solvable problems.)
  for (int i : B_) {
    if (type_[i] != Type::Findex) continue;
    const int n = p.findex[i], kn = normal_var(n), pi = pos[i];
    const double mu = p.fmu[i];
    const int kp = add_var(pi, 1.0, 0.0), km = add_var(pi, -1.0, 0.0);
    const int ks = add_var(-1, 0.0, mu * p.lo[n]);
    add_var_info(VarKind::AboveZero, i, 0.0);
    add_var_info(VarKind::BelowZero, i, 0.0);
    add_var_info(VarKind::AtCap, n, mu);
    var_[nvar_ - 1].rows.push_back(i);
    var_[nvar_ - 1].absolute = true;
    var_[nvar_ - 1].vars.push_back(kp);
    var_[nvar_ - 1].vars.push_back(km);
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
    const int ks = add_var(-1, 0.0, g.mu * p.lo[g.normal]);
    add_var_info(VarKind::AtCap, g.normal, g.mu);
    Var& cap = var_[nvar_ - 1];
    cap.rows.assign(g.rows.begin(), g.rows.end());
    for (int r : g.rows) cap.vars.push_back(var_of_row[r]);
    E.push_back({ks, kn, g.mu});
    for (int r : g.rows) {
      E.push_back({ks, var_of_row[r], -1.0});
      E.push_back({var_of_row[r], ks, 1.0});
    }
  }
  const int nl = static_cast<int>(L_row_.size());
  active_.set_symmetric(lower_only_);
  if (lower_only_) {  // (contact normals with joints: z = x_B − lo, T = I, no couplings)
    M_ = Ared_;
    return;
  }
  T_.setZero(nB, nl);
  for (const Entry& e : T) T_(e.r, e.c) += e.v;
  E_.setZero(nl, nl);
  for (const Entry& e : E) E_(e.r, e.c) += e.v;
  // Ared T: each column of T holds at most one entry ±1 (a variable carries one row), so
  // the product is a signed selection of Ared's columns (exactly what a product would give,
  // without its O(nB² nl) work).
  AT_.setZero(nB, nl);
  for (const Entry& e : T) AT_.col(e.c) += e.v * Ared_.col(e.r);
  M_ = E_;
  for (int k = 0; k < nl; ++k)
    if (L_row_[k] >= 0) M_.row(k) += L_sign_[k] * AT_.row(L_row_[k]);
}

void MlcpSolver::reduce_rhs(const VecX& b) {
  // b_red = b_B − A_B·x_fixed − A_BF A_FF⁻¹ (b_F − A_F·x_fixed).
  gather(b, B_, b_red_);
  b_red_ -= A_Bx_fixed_;
  if (!F_.empty()) {
    gather(b, F_, bF_);
    bF_ -= A_Fx_fixed_;
    yF_ = bF_;
    ldlt_FF_.solveInPlace(yF_);
    b_red_.noalias() -= A_BF_ * yF_;
  }
}

void MlcpSolver::lcp_q(const VecX& b) {
  // w_B = Ared x_B − b_red.
  reduce_rhs(b);
  p_.resize(Ared_.rows());
  p_.noalias() = Ared_ * x0_;
  p_ -= b_red_;
  q_.resize(static_cast<Eigen::Index>(c_.size()));
  for (int k = 0; k < q_.size(); ++k) q_[k] = L_row_[k] >= 0 ? c_[k] + L_sign_[k] * p_[L_row_[k]] : c_[k];
}

void MlcpSolver::recover(const VecX& b, const VecX& z, VecX& x) {
  x = x_fixed_;
  xB_ = x0_;
  if (lower_only_) xB_ += z;
  else if (z.size() > 0) xB_.noalias() += T_ * z;
  // A box row whose upper multiplier is active sits exactly at hi (lo + (hi − lo) may round).
  for (size_t a = 0; a < B_.size(); ++a)
    if (upper_var_[a] >= 0 && z[upper_var_[a]] > 0.0) xB_[a] = hi_[a];
  for (size_t a = 0; a < B_.size(); ++a) x[B_[a]] = xB_[a];
  if (!F_.empty()) {
    gather(b, F_, bF_);
    bF_ -= A_Fx_fixed_;
    bF_.noalias() -= A_FB_ * xB_;
    ldlt_FF_.solveInPlace(bF_);
    for (size_t a = 0; a < F_.size(); ++a) x[F_[a]] = bF_[a];
  }
}

void MlcpSolver::basis_from(const VecX& x, const VecX& b, std::vector<int>& basic) {
  const double tol = 1e-12 * std::max(1.0, x.cwiseAbs().maxCoeff());
  // Row residuals of the guess decide the degenerate case of a zero Coulomb cap.
  gather(x, B_, xB_);
  reduce_rhs(b);
  wB_.resize(xB_.size());
  wB_.noalias() = Ared_ * xB_;
  wB_ -= b_red_;
  const VecX& wB = wB_;
  in_.assign(nvar_, 0);
  std::vector<char>& in = in_;
  for (int k = 0; k < nvar_; ++k) {
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
  basic.clear();
  for (int k = 0; k < nvar_; ++k)
    if (in[k]) basic.push_back(k);
}

bool MlcpSolver::solve(const VecX& b, VecX& x, int& pivots, const VecX* guess) {
  lcp_q(b);
  if (q_.size() == 0) {  // only equality rows: the Schur complement solve is the answer
    z_.resize(0);
    recover(b, z_, x);
    return true;
  }
  if (active_.empty() && guess != nullptr && guess->size() == m_) {
    basis_from(*guess, b, basic_);
    active_.set(M_, basic_);
  }
  if (active_.try_solve(M_, q_, z_)) {
    recover(b, z_, x);
    return true;
  }
  // A remembered basis that is off by an index or two (a friction multiplier of a redundant
  // contact point drifting through zero from step to step) is repaired by principal pivots
  // (Murty's least-index rule) at one LU each, before Lemke restarts from scratch.
  const int repairs = nvar_ <= kRepairMaxVars ? kBasisRepairs : 0;
  for (int repair = 0; repair < repairs && active_.first_infeasible() >= 0; ++repair) {
    active_.toggle(M_, active_.first_infeasible());
    if (active_.try_solve(M_, q_, z_)) {
      recover(b, z_, x);
      return true;
    }
  }
  LcpResult res = solve_lcp_lemke(M_, q_);
  pivots += res.pivots;
  if (!res.ok) return false;
  active_.set(M_, res.basic, res.factored ? &res.lu : nullptr);
  recover(b, res.z, x);
  return true;
}

}  // namespace graspsim
