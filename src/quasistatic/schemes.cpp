#include "quasistatic/schemes.h"

#include <algorithm>
#include <cmath>

#include "core/clock.h"
#include "solvers/complementarity_qp.h"
#include "solvers/lcp.h"

namespace graspsim {
namespace {

// Contact of each friction direction.
int contact_of(const QuasistaticSystem& sys, int k) { return k / sys.ndir(); }

// E^T P_f: the friction impulses summed per contact.
VecX sum_per_contact(const QuasistaticSystem& sys, const VecX& Pf) {
  VecX out = VecX::Zero(sys.nc());
  for (int k = 0; k < sys.nd(); ++k) out[contact_of(sys, k)] += Pf[k];
  return out;
}

// The unactuated dofs' force balance residual J_nu^T P_n + J_fu^T P_f + h τ_u.
VecX balance(const QuasistaticSystem& sys, const VecX& Pn, const VecX& Pf) {
  return sys.Jn_u.transpose() * Pn + sys.Jf_u.transpose() * Pf + sys.h * sys.tau_u;
}

// ---- Trinkle's LCP ------------------------------------------------------------------------
// z = [x⁺, x⁻, P_n, P_f, Γ] with Δq_u = x⁺ − x⁻ (the free displacement split in two signs,
// each paired with one side of the force balance, so that the x–λ blocks are skew and the
// matrix copositive).
struct LcpLayout {
  int nu, nc, nd, xp, xm, pn, pf, g, n;
  explicit LcpLayout(const QuasistaticSystem& s)
      : nu(s.nu()), nc(s.nc()), nd(s.nd()), xp(0), xm(nu), pn(2 * nu), pf(2 * nu + nc), g(2 * nu + nc + nd),
        n(2 * nu + 2 * nc + nd) {}
};

void build_lcp(const QuasistaticSystem& s, MatX& M, VecX& q) {
  const LcpLayout L(s);
  M.setZero(L.n, L.n);
  q.setZero(L.n);
  M.block(L.xp, L.pn, L.nu, L.nc) = -s.Jn_u.transpose();
  M.block(L.xp, L.pf, L.nu, L.nd) = -s.Jf_u.transpose();
  q.segment(L.xp, L.nu) = -s.h * s.tau_u;
  M.block(L.xm, L.pn, L.nu, L.nc) = s.Jn_u.transpose();
  M.block(L.xm, L.pf, L.nu, L.nd) = s.Jf_u.transpose();
  q.segment(L.xm, L.nu) = s.h * s.tau_u;
  M.block(L.pn, L.xp, L.nc, L.nu) = s.Jn_u;
  M.block(L.pn, L.xm, L.nc, L.nu) = -s.Jn_u;
  q.segment(L.pn, L.nc) = s.phi + s.Jn_a * s.dq_command;
  M.block(L.pf, L.xp, L.nd, L.nu) = s.Jf_u;
  M.block(L.pf, L.xm, L.nd, L.nu) = -s.Jf_u;
  q.segment(L.pf, L.nd) = s.Jf_a * s.dq_command;
  for (int k = 0; k < L.nd; ++k) {
    M(L.pf + k, L.g + contact_of(s, k)) = 1.0;
    M(L.g + contact_of(s, k), L.pf + k) = -1.0;
  }
  for (int i = 0; i < L.nc; ++i) M(L.g + i, L.pn + i) = s.mu[i];
}

// ---- the MIQP (23a–f) -------------------------------------------------------------------
// x = [Δq_u, Δq_a, P_n, P_f, Γ]; z = [z_n, z_f, z_s] (one per complementarity pair).
struct MiqpLayout {
  int nu, na, nc, nd, u, a, pn, pf, g, n, zn, zf, zs, nz;
  explicit MiqpLayout(const QuasistaticSystem& s)
      : nu(s.nu()), na(s.na()), nc(s.nc()), nd(s.nd()), u(0), a(nu), pn(nu + na), pf(nu + na + nc),
        g(nu + na + nc + nd), n(nu + na + 2 * nc + nd), zn(0), zf(nc), zs(nc + nd), nz(2 * nc + nd) {}
};

// `fixed_a`: the LCP scheme's feasibility problem (Δq_a bound to the command, no
// objective, no lower bound), used to certify what Lemke could not solve. Pairs in the
// order [z_n, z_f, z_s]; general rows: the force balance, then the lower bounds.
ComplementarityQp build_cqp(const QuasistaticSystem& s, const QuasistaticOptions& o, const VecX* phi_bar_prev,
                            bool fixed_a) {
  const MiqpLayout L(s);
  const double hK = s.h * o.stiffness;
  ComplementarityQp p;
  p.big_m = o.big_m;
  p.H = MatX::Zero(L.n, L.n);
  p.c = VecX::Zero(L.n);
  if (!fixed_a) {
    p.H.block(L.a, L.a, L.na, L.na).diagonal().setConstant(2.0);
    p.c.segment(L.a, L.na) = -2.0 * s.dq_command;
  }
  // The displacements are bounded by M too (m or rad in one step), a physical bound like the
  // pairs': without it a relaxation's vertex can sit 1e7 rad out along a free direction,
  // where its rows are evaluated with 1e-4 rounding.
  p.x_lo = VecX::Constant(L.n, -o.big_m);
  p.x_hi = VecX::Constant(L.n, o.big_m);
  p.x_lo.tail(2 * L.nc + L.nd).setZero();
  p.x_hi.tail(2 * L.nc + L.nd).setConstant(kInf);
  if (fixed_a) p.x_lo.segment(L.a, L.na) = p.x_hi.segment(L.a, L.na) = s.dq_command;

  // (23a) force balance, and (23f) P_n/h ≥ −K φ̄ with φ̄ = φ + J_n^u Δq_u + J_n^a Δq̄_a (or the
  // previous step's, a number), per geom pair: the seed's fingers touch at one point each,
  // where a patch has several, and the command may sink a point the patch cannot close
  // (a pad's far corner, a tilt away from the object): bounding that point's own impulse
  // would force it shut by moving the object. So each point's φ̄ bounds the impulse of
  // its whole pair, Σ_pair P_n/h ≥ −K φ̄_i: the deepest point sets the patch's force, and
  // a pair with one point is eq. (23f) as written.
  // (A contact without geoms, as a hand-built system's, is a pair of its own.)
  auto same_pair = [&](int i, int j) {
    const QuasistaticContact &a = s.contacts[i], &b = s.contacts[j];
    return i == j || (a.geom_a >= 0 && a.geom_b >= 0 && a.geom_a == b.geom_a && a.geom_b == b.geom_b);
  };
  auto pair_impulse = [&](int i, VecX& ax) {
    for (int j = 0; j < L.nc; ++j)
      if (same_pair(i, j)) ax[L.pn + j] = 1.0;
  };
  std::vector<VecX> rows;
  std::vector<double> lo, hi;
  for (int j = 0; j < L.nu; ++j) {
    VecX ax = VecX::Zero(L.n);
    ax.segment(L.pn, L.nc) = s.Jn_u.col(j);
    ax.segment(L.pf, L.nd) = s.Jf_u.col(j);
    rows.push_back(ax);
    lo.push_back(-s.h * s.tau_u[j]);
    hi.push_back(-s.h * s.tau_u[j]);
  }
  for (int i = 0; i < L.nc && !fixed_a; ++i) {
    VecX ax = VecX::Zero(L.n);
    pair_impulse(i, ax);
    if (o.penetration == PenetrationBound::Current) {
      ax.segment(L.u, L.nu) = hK * s.Jn_u.row(i).transpose();
      rows.push_back(ax);
      lo.push_back(-hK * (s.phi[i] + s.Jn_a.row(i).dot(s.dq_command)));
      hi.push_back(kInf);
    } else if (phi_bar_prev && i < phi_bar_prev->size() && std::isfinite((*phi_bar_prev)[i])) {
      rows.push_back(ax);
      lo.push_back(-hK * (*phi_bar_prev)[i]);
      hi.push_back(kInf);
    }
  }
  p.A.resize(static_cast<int>(rows.size()), L.n);
  for (size_t r = 0; r < rows.size(); ++r) p.A.row(static_cast<int>(r)) = rows[r].transpose();
  p.row_lo = Eigen::Map<VecX>(lo.data(), static_cast<int>(lo.size()));
  p.row_hi = Eigen::Map<VecX>(hi.data(), static_cast<int>(hi.size()));

  // The complementarity pairs w ⊥ λ: (12) φ^{l+1} ⊥ P_n, (16) ρ = EΓ + J_f Δq ⊥ P_f,
  // (17) s = U P_n − Eᵀ P_f ⊥ Γ.
  p.W = MatX::Zero(L.nz, L.n);
  p.w0 = VecX::Zero(L.nz);
  p.lambda.resize(L.nz);
  for (int i = 0; i < L.nc; ++i) {
    p.W.block(L.zn + i, L.u, 1, L.nu) = s.Jn_u.row(i);
    p.W.block(L.zn + i, L.a, 1, L.na) = s.Jn_a.row(i);
    p.w0[L.zn + i] = s.phi[i];
    p.lambda[L.zn + i] = L.pn + i;
  }
  if (o.closed_gap > 0.0 && !fixed_a) {
    p.closed_gap = VecX::Zero(L.nz);
    p.closed_gap.segment(L.zn, L.nc).setConstant(o.closed_gap);
  }
  for (int k = 0; k < L.nd; ++k) {
    p.W.block(L.zf + k, L.u, 1, L.nu) = s.Jf_u.row(k);
    p.W.block(L.zf + k, L.a, 1, L.na) = s.Jf_a.row(k);
    p.W(L.zf + k, L.g + contact_of(s, k)) = 1.0;
    p.lambda[L.zf + k] = L.pf + k;
  }
  for (int i = 0; i < L.nc; ++i) {
    p.W(L.zs + i, L.pn + i) = s.mu[i];
    for (int k = 0; k < L.nd; ++k)
      if (contact_of(s, k) == i) p.W(L.zs + i, L.pf + k) = -1.0;
    p.lambda[L.zs + i] = L.g + i;
  }
  return p;
}

void unpack_miqp(const QuasistaticSystem& s, const VecX& x, QuasistaticSolution& sol) {
  const MiqpLayout L(s);
  sol.dv_u = x.segment(L.u, L.nu);
  sol.dv_a = x.segment(L.a, L.na);
  sol.Pn = x.segment(L.pn, L.nc);
  sol.Pf = x.segment(L.pf, L.nd);
  sol.Gamma = x.segment(L.g, L.nc);
}

// The complementarity pairs' two sides (w, λ), in the order of build_miqp.
void for_each_pair(const QuasistaticSystem& s, const QuasistaticSolution& sol,
                   const std::function<void(double w, double lambda)>& fn) {
  const VecX gap = s.phi + s.Jn_u * sol.dv_u + s.Jn_a * sol.dv_a;
  const VecX slide = s.Jf_u * sol.dv_u + s.Jf_a * sol.dv_a;
  const VecX fsum = sum_per_contact(s, sol.Pf);
  for (int i = 0; i < s.nc(); ++i) fn(gap[i], sol.Pn[i]);
  for (int k = 0; k < s.nd(); ++k) fn(slide[k] + sol.Gamma[contact_of(s, k)], sol.Pf[k]);
  for (int i = 0; i < s.nc(); ++i) fn(s.mu[i] * sol.Pn[i] - fsum[i], sol.Gamma[i]);
}

QuasistaticSolution solve_convex_scheme(const QuasistaticSystem& s, const QuasistaticOptions& o);

// Contact i's modes in z (order [z_n, z_f, z_s]): open (no impulses, the sliding slack
// free), or closed and sticking (no slip in any direction, Γ = 0).
void set_open(const MiqpLayout& L, int i, std::vector<int>& z) {
  z[L.zs + i] = 0;
}
void set_sticking(const QuasistaticSystem& s, const MiqpLayout& L, int i, std::vector<int>& z) {
  z[L.zn + i] = 0;
  for (int k = 0; k < s.ndir(); ++k) z[L.zf + i * s.ndir() + k] = 0;
}

// The MIQP's modes read off the convex scheme's solution, a physical guess at the step's
// contact modes where the previous step's no longer fit (a grasp closing): a contact with
// impulse is closed, else open; a closed one sticks where it does not slip, else it slides
// at the cone's edge against the direction that opposes its slip most.
std::vector<int> convex_modes(const QuasistaticSystem& s, const QuasistaticSolution& c) {
  const MiqpLayout L(s);
  std::vector<int> z(L.nz, 1);
  const VecX slide = s.Jf_u * c.dv_u + s.Jf_a * c.dv_a;
  constexpr double kImpulse = 1e-12;  // N·s: far below any impulse that carries a load
  // m in one step: the convex scheme's regularised grip slips ~1e-9 m at pads that hold (the
  // 3D pick's lift), which as sliding modes made the hint infeasible
  constexpr double kSlip = 1e-7;
  for (int i = 0; i < L.nc; ++i) {
    const auto dirs = slide.segment(i * s.ndir(), s.ndir());
    if (c.Pn[i] <= kImpulse) {
      set_open(L, i, z);
    } else if (dirs.cwiseAbs().maxCoeff() <= kSlip) {
      set_sticking(s, L, i, z);
    } else {  // sliding
      Eigen::Index against = 0;
      dirs.minCoeff(&against);
      z[L.zn + i] = 0;
      z[L.zs + i] = 0;
      z[L.zf + i * s.ndir() + static_cast<int>(against)] = 0;
    }
  }
  return z;
}

// Every contact within 1 µm closed and sticking, the others open: the grasp holding still.
std::vector<int> resting_modes(const QuasistaticSystem& s) {
  const MiqpLayout L(s);
  std::vector<int> z(L.nz, 1);
  for (int i = 0; i < L.nc; ++i) {
    if (s.phi[i] > 1e-6) set_open(L, i, z);
    else set_sticking(s, L, i, z);
  }
  return z;
}

// Incumbents beside the previous step's modes, which no longer fit when the pads reach the
// object: the convex scheme's modes and the resting modes, each whole and with only its
// normal pairs fixed (the friction pairs left to a short dive). The branch and bound alone,
// diving from the root, found physically absurd points first on the 3D pick (bench/README);
// asked only when the previous modes had failed, they did not keep the object either.
std::vector<std::vector<int>> physical_hints(const QuasistaticSystem& s, const QuasistaticOptions& o) {
  std::vector<std::vector<int>> hints;
  auto add = [&](std::vector<int> z) {
    hints.push_back(z);
    std::fill(z.begin() + s.nc(), z.end(), -1);
    hints.push_back(std::move(z));
  };
  const QuasistaticSolution guess = solve_convex_scheme(s, o);
  if (guess.status == QuasistaticSolution::Status::Solved) add(convex_modes(s, guess));
  add(resting_modes(s));
  return hints;
}

QuasistaticSolution solve_miqp_scheme(const QuasistaticSystem& s, const QuasistaticOptions& o,
                                      const VecX* phi_bar_prev, bool fixed_a, const std::vector<int>* mode_hint) {
  QuasistaticSolution sol;
  const ComplementarityQp cqp = build_cqp(s, o, phi_bar_prev, fixed_a);
  bool from_ipopt = false;  // the point is Bonmin's (Ipopt's), not the branch and bound's
  auto bonmin = [&] {
    from_ipopt = true;
    MiqpOptions mo;
    mo.objective_scale = o.objective_scale;
    return solve_miqp_bonmin(big_m_miqp(cqp), mo);
  };
  MiqpResult r;
  if (o.miqp_solver == MiqpSolver::Bonmin) {
    r = bonmin();
    sol.solver = "bonmin";
  } else {
    ComplementarityBbOptions bo;
    if (mode_hint) bo.mode_hint = *mode_hint;
    if (!fixed_a) bo.heuristic_hints = [&] { return physical_hints(s, o); };
    bo.max_nodes = o.miqp_max_nodes;
    bo.gap_rel = o.miqp_gap_rel;
    r = solve_complementarity_bb(cqp, bo);
    sol.solver = "complementarity_bb";
    if (r.status == MiqpStatus::Failed) {
      // No complementary point within its limits, or Clp failed: Bonmin decides the step,
      // and the time spent on both is reported.
      const double spent = r.solve_ms;
      const int nodes = r.nodes;
      const std::string why = r.message;
      r = bonmin();
      r.solve_ms += spent;
      r.nodes += nodes;
      if (!r.message.empty()) r.message = "branch and bound: " + why + "; Bonmin: " + r.message;
      sol.solver = "complementarity_bb+bonmin";
    }
  }
  sol.binaries = cqp.np();
  sol.nodes = r.nodes;
  sol.solve_ms = r.solve_ms;
  sol.modes.assign(r.z.data(), r.z.data() + r.z.size());
  if (cqp.closed_gap.size() && r.x.size()) {
    // The next step's hint: a pair whose load is within its closed gap (λ ≤ w ≤ closed_gap,
    // a touching point's ~1e-9 N·s of solver noise) hints open, as without the closed gap.
    // Hinted closed, the pad's points stay welded and the hint fits less often: the
    // cylinder's pick averaged 16 ms a step, against 8 ms this way.
    const VecX w = cqp.W * r.x + cqp.w0;
    for (int j = 0; j < cqp.np(); ++j)
      if (r.x[cqp.lambda[j]] <= w[j]) sol.modes[j] = 1;
  }
  sol.proven = r.status == MiqpStatus::Optimal;
  if (r.status != MiqpStatus::Optimal && r.status != MiqpStatus::Feasible) {
    sol.status = r.status == MiqpStatus::Infeasible ? QuasistaticSolution::Status::Infeasible
                                                    : QuasistaticSolution::Status::Failed;
    sol.message = r.message;
    return sol;
  }
  unpack_miqp(s, r.x, sol);
  // A binary at 1 bounds its impulse by M (1 − z) = 0: what Ipopt left there is rounding.
  // (Not the branch and bound's: its node QP meets its rows within 1e-8, and zeroing its
  // impulses turned that into 1.7e-8 N·s of force balance at step 784 of the 3D pick.)
  const MiqpLayout L(s);
  for (int i = 0; i < L.nc && from_ipopt; ++i) {
    if (r.z[L.zn + i] > 0.5) sol.Pn[i] = 0.0;
    if (r.z[L.zs + i] > 0.5) sol.Gamma[i] = 0.0;
  }
  // And friction within the cone, 0 ≤ Σ P_f ≤ μ P_n, has nothing left when P_n is 0.
  for (int k = 0; k < L.nd && from_ipopt; ++k)
    if (r.z[L.zf + k] > 0.5 || r.z[L.zn + contact_of(s, k)] > 0.5) sol.Pf[k] = 0.0;
  sol.objective = (sol.dv_a - s.dq_command).squaredNorm();
  sol.status = QuasistaticSolution::Status::Solved;
  const double near_m = o.big_m * (1.0 - 1e-6);
  for_each_pair(s, sol, [&](double w, double lambda) {
    if (w >= near_m || lambda >= near_m) sol.big_m_active = true;
  });
  auto at_m = [&](const VecX& v) { return v.size() && v.cwiseAbs().maxCoeff() >= near_m; };
  if (at_m(sol.dv_u) || at_m(sol.dv_a)) sol.big_m_active = true;
  return sol;
}

QuasistaticSolution solve_lcp_scheme(const QuasistaticSystem& s, const QuasistaticOptions& o) {
  QuasistaticSolution sol;
  const LcpLayout L(s);
  MatX M;
  VecX q;
  build_lcp(s, M, q);
  const auto t0 = Clock::now();
  const LcpResult r = solve_lcp_lemke(M, q);
  sol.solve_ms = ms_since(t0);
  sol.nodes = r.pivots;
  sol.solver = "lemke";
  if (r.ok) {
    sol.dv_u = r.z.segment(L.xp, L.nu) - r.z.segment(L.xm, L.nu);
    sol.dv_a = s.dq_command;
    sol.Pn = r.z.segment(L.pn, L.nc);
    sol.Pf = r.z.segment(L.pf, L.nd);
    sol.Gamma = r.z.segment(L.g, L.nc);
    sol.status = QuasistaticSolution::Status::Solved;
    return sol;
  }
  // Lemke is not guaranteed on this (merely copositive) matrix: a ray is not a proof. The
  // same complementarity problem by branch and bound either solves it or proves it infeasible.
  QuasistaticSolution certified = solve_miqp_scheme(s, o, nullptr, true, nullptr);
  certified.solver = "lemke+" + certified.solver;
  certified.solve_ms += sol.solve_ms;
  certified.binaries = 0;
  certified.objective = 0.0;
  if (certified.status == QuasistaticSolution::Status::Infeasible)
    certified.message = "the LCP is infeasible: the command cannot be followed without penetration or without "
                        "breaking the force balance (Trinkle's scheme; the MIQP scheme follows it as closely as possible)";
  return certified;
}

// ---- the convex quasi-dynamic QP ---------------------------------------------------------
// minimise ½ h K ‖Δq_a − Δq̄_a‖² + ½ (ε/h) Δq_uᵀ M_u Δq_u − h τ_uᵀ Δq_u
// subject to φ_i + (J_n,i + μ_i J_d,ij) Δq ≥ 0 for every contact i and direction j.
// Stationarity: Q Δq + b = Aᵀ β, so Δq = Q⁻¹(Aᵀβ − b) and the dual is the monotone LCP
// w = A Q⁻¹ Aᵀ β + (φ − A Q⁻¹ b) ≥ 0 ⊥ β ≥ 0.
QuasistaticSolution solve_convex_scheme(const QuasistaticSystem& s, const QuasistaticOptions& o) {
  QuasistaticSolution sol;
  sol.solver = "lemke";
  const int nu = s.nu(), na = s.na(), n = nu + na, nc = s.nc(), nd = s.nd();
  const auto t0 = Clock::now();
  MatX Q = MatX::Zero(n, n);
  // The regularising mass: a fraction ε of the true one, plus a floor so that a massless
  // unactuated dof stays well posed.
  Q.topLeftCorner(nu, nu) = (o.regularization / s.h) * s.M_u;
  if (nu > 0) Q.topLeftCorner(nu, nu).diagonal().array() += 1e-9 * (1.0 + s.M_u.diagonal().cwiseAbs().maxCoeff());
  Q.bottomRightCorner(na, na).diagonal() = s.h * s.stiffness_a;
  VecX b(n);
  b << -s.h * s.tau_u, -s.h * s.stiffness_a.cwiseProduct(s.dq_command);
  MatX A(nd, n);
  VecX phi_rep(nd);
  for (int k = 0; k < nd; ++k) {
    const int i = contact_of(s, k);
    A.row(k) << s.Jn_u.row(i) + s.mu[i] * s.Jf_u.row(k), s.Jn_a.row(i) + s.mu[i] * s.Jf_a.row(k);
    phi_rep[k] = s.phi[i];
  }
  const Eigen::LLT<MatX> llt(Q);
  VecX dq = -llt.solve(b);
  sol.beta = VecX::Zero(nd);
  if (nd > 0) {
    const MatX QiAt = llt.solve(A.transpose());
    MatX W = A * QiAt;
    // Many generators share few dofs (a face's 4 points × 4 directions on 6 dofs), so W is
    // singular; a compliance of 1e-10 of its scale makes it positive definite, where Lemke
    // cannot end on a ray, and moves the solution by that fraction.
    W.diagonal().array() += 1e-10 * W.diagonal().maxCoeff();
    const VecX w0 = phi_rep + A * dq;
    LcpResult r = solve_lcp_lemke(W, w0);
    double pgs_residual = 0.0;
    sol.nodes = r.pivots;
    // Lemke may still lose its way in rounding on an ill-conditioned W; W is symmetric
    // positive definite, where projected Gauss-Seidel converges.
    if (!r.ok) {
      r.z = VecX::Zero(nd);
      const VecX& d = W.diagonal();
      for (int sweep = 0; sweep < 20000; ++sweep) {
        double change = 0.0;
        for (int k = 0; k < nd; ++k) {
          const double z = std::max(0.0, r.z[k] - (W.row(k).dot(r.z) + w0[k]) / d[k]);
          change = std::max(change, std::abs(z - r.z[k]) * d[k]);
          r.z[k] = z;
        }
        sol.nodes = sweep + 1;
        if (change <= 1e-13 * (1.0 + w0.cwiseAbs().maxCoeff())) break;
      }
      // Accepted within 1e-7 (m of gap or N·s of impulse) of complementarity.
      pgs_residual = lcp_residual(W, w0, r.z);
      r.ok = pgs_residual <= 1e-7;
      sol.solver = "lemke+pgs";
    }
    if (!r.ok) {
      sol.solve_ms = ms_since(t0);
      sol.status = QuasistaticSolution::Status::Failed;
      sol.message = "neither Lemke nor projected Gauss-Seidel solved the convex scheme's dual (PGS residual " +
                    std::to_string(pgs_residual) + " m, W diagonal " + std::to_string(W.diagonal().minCoeff()) + ".." +
                    std::to_string(W.diagonal().maxCoeff()) + ")";
      return sol;
    }
    sol.beta = r.z;
    dq += QiAt * r.z;
  }
  sol.solve_ms = ms_since(t0);
  sol.dv_u = dq.head(nu);
  sol.dv_a = dq.tail(na);
  sol.Pn = VecX::Zero(nc);
  sol.Pf = VecX::Zero(nd);
  sol.Gamma = VecX::Zero(nc);
  for (int k = 0; k < nd; ++k) {
    const int i = contact_of(s, k);
    sol.Pn[i] += sol.beta[k];
    sol.Pf[k] = s.mu[i] * sol.beta[k];
  }
  sol.objective = 0.5 * dq.dot(Q * dq) + b.dot(dq);
  sol.status = QuasistaticSolution::Status::Solved;
  return sol;
}

}  // namespace

QuasistaticSolution solve_quasistatic(const QuasistaticSystem& sys, const QuasistaticOptions& o,
                                      const VecX* phi_bar_previous, const std::vector<int>* mode_hint) {
  switch (o.scheme) {
    case QuasistaticScheme::Lcp: return solve_lcp_scheme(sys, o);
    case QuasistaticScheme::Convex: return solve_convex_scheme(sys, o);
    case QuasistaticScheme::Miqp: break;
  }
  return solve_miqp_scheme(sys, o, phi_bar_previous, false, mode_hint);
}

int miqp_pair(const QuasistaticSystem& sys, int contact, int b) {
  const MiqpLayout L(sys);
  if (b == 0) return L.zn + contact;
  if (b <= sys.ndir()) return L.zf + contact * sys.ndir() + b - 1;
  return L.zs + contact;
}

MixedIntegerQp quasistatic_miqp(const QuasistaticSystem& sys, const QuasistaticOptions& options,
                                const VecX* phi_bar_previous) {
  return big_m_miqp(build_cqp(sys, options, phi_bar_previous, false));
}

VecX hypothetical_penetration(const QuasistaticSystem& s, const VecX& dv_u) {
  return s.phi + s.Jn_u * dv_u + s.Jn_a * s.dq_command;
}

QuasistaticResiduals quasistatic_residuals(const QuasistaticSystem& s, const QuasistaticSolution& sol,
                                           QuasistaticScheme scheme) {
  QuasistaticResiduals r;
  const VecX gap = s.phi + s.Jn_u * sol.dv_u + s.Jn_a * sol.dv_a;
  r.min_gap = gap.size() ? gap.minCoeff() : 0.0;
  auto sign = [&](const VecX& x) {
    if (x.size()) r.sign = std::max(r.sign, -x.minCoeff());
  };
  sign(sol.Pn);
  sign(sol.Pf);
  if (scheme == QuasistaticScheme::Convex) {
    // Its own (relaxed) pairs; its force balance carries the regularising inertia by design.
    sign(sol.beta);
    for (int k = 0; k < s.nd(); ++k) {
      const int i = contact_of(s, k);
      const double w = s.phi[i] + (s.Jn_u.row(i) + s.mu[i] * s.Jf_u.row(k)).dot(sol.dv_u) +
                       (s.Jn_a.row(i) + s.mu[i] * s.Jf_a.row(k)).dot(sol.dv_a);
      r.sign = std::max(r.sign, -w);
      r.complementarity = std::max(r.complementarity, std::min(std::abs(w), std::abs(sol.beta[k])));
    }
    return r;
  }
  sign(sol.Gamma);
  r.force_balance = s.nu() ? balance(s, sol.Pn, sol.Pf).cwiseAbs().maxCoeff() : 0.0;
  for_each_pair(s, sol, [&](double w, double lambda) {
    r.sign = std::max(r.sign, -w);
    r.complementarity = std::max(r.complementarity, std::min(std::abs(w), std::abs(lambda)));
  });
  return r;
}

}  // namespace graspsim
