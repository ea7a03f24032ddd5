#include "steppers/quasistatic_stepper.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <utility>
#include <vector>

#include <Eigen/Cholesky>

#include "core/error.h"
#include "kinematics/integrate.h"
#include "metrics/contact_metrics.h"
#include "quasistatic/schemes.h"
#include "quasistatic/system.h"
#include "solvers/complementarity_qp.h"

namespace graspsim {

struct QuasistaticScratch {
  QuasistaticPartition part;
  QuasistaticBuildScratch build;
  QuasistaticSystem sys;
  VecX phi_bar_prev, dv;
  std::vector<int> mode_hint;
};

void ScratchDeleter::operator()(QuasistaticScratch* p) const { delete p; }

namespace {

namespace slot = quasistatic_slot;

Vec3 contact_middle(const QuasistaticContact& c) { return 0.5 * (c.point_a + c.point_b); }

// The nearest slot of contact c's geom pair that has `need` and witnesses, and its distance
// (a flat patch's points are picked among near-equal candidates and change ids between steps
// while the patch and its modes stay).
std::pair<const ContactSlot*, double> nearest_pair_slot(const Model& model, const KinematicsData& kin,
                                                        const ContactTable& table, const QuasistaticContact& c, int need) {
  const ContactSlot* best = nullptr;
  double best_d = kInf;
  const Vec3 at = contact_middle(c);
  table.for_each([&](const ContactSlot& sl) {
    if (sl.key.geom_a != c.geom_a || sl.key.geom_b != c.geom_b || !sl.values[need] || !sl.values[slot::kHasWitnesses])
      return;
    const auto [pa, pb] = slot_witnesses(model, kin, sl);
    const double d = (0.5 * (pa + pb) - at).norm();
    if (d < best_d) {
      best_d = d;
      best = &sl;
    }
  });
  return {best, best_d};
}

// The slot whose modes hint contact c: its own (`own`, null if new), else the nearest one of
// the same geom pair.
const ContactSlot* hint_slot(const Model& model, const KinematicsData& kin, const ContactTable& table,
                             const QuasistaticContact& c, const ContactSlot* own) {
  if (own) return own->values[slot::kHasModes] ? own : nullptr;
  return nearest_pair_slot(model, kin, table, c, slot::kHasModes).first;
}

// Whether the last step closed contact c: its own slot says so, or (new id) the nearest slot
// of its pair within the contact margin does.
bool closed_last_step(const Model& model, const KinematicsData& kin, const ContactTable& table,
                      const QuasistaticContact& c) {
  if (const ContactSlot* own = table.find({c.geom_a, c.geom_b, c.feature})) return own->values[slot::kClosed] == 1.0;
  const auto [near, d] = nearest_pair_slot(model, kin, table, c, slot::kHasWitnesses);
  return near && d <= model.options.contact_margin && near->values[slot::kClosed] == 1.0;
}

// Post-stabilisation (options.quasistatic.stabilize, after Cline & Pai 2003): the contacts the
// last step closed are brought back to a gap of 0 by the displacement Δ of the unactuated dofs
// that slides them least. A tilted base then turns about its contact plane; the least
// displacement in the mass metric would turn it about its centre of mass and creep it over the
// table (20 nm a step). φ moves with Δ to first order; the Jacobians stay (Δ is the
// linearisation's error, nm). Returns the largest change of a gap, 0 if nothing moved.
//
// min W‖A Δ − b‖² + ‖T Δ‖² + ε‖Δ‖², with A the closed contacts' normal rows, b = −φ, T their
// friction rows: W ≫ 1 makes the gaps a constraint (least squares where they are not all
// reachable), ε picks Δ in the directions no row sees (none of them moves).
constexpr double kGapWeight = 1e8, kStillWeight = 1e-9;

double stabilize_closed_contacts(const Model& model, State& s, const KinematicsData& kin,
                                 const QuasistaticPartition& part, QuasistaticSystem& sys) {
  const double margin = model.options.contact_margin;
  std::vector<int> rows;
  for (int i = 0; i < sys.nc(); ++i)
    if (std::abs(sys.phi[i]) <= margin && sys.Jn_u.row(i).squaredNorm() > 0.0 &&
        closed_last_step(model, kin, s.contacts, sys.contacts[i]))
      rows.push_back(i);
  if (rows.empty()) return 0.0;
  // Only the dofs the rows move (a scene's other objects stay out of the solve).
  const int nu = sys.nu(), k = sys.ndir(), nt = sys.ntangent();
  auto moves = [&](int i, int j) {
    if (sys.Jn_u(i, j) != 0.0) return true;
    for (int d = 0; d < nt; ++d)
      if (sys.Jf_u(i * k + d, j) != 0.0) return true;
    return false;
  };
  std::vector<int> cols;
  for (int j = 0; j < nu; ++j)
    if (std::any_of(rows.begin(), rows.end(), [&](int i) { return moves(i, j); })) cols.push_back(j);
  const int m = static_cast<int>(cols.size());
  MatX N = MatX::Zero(m, m);
  VecX g = VecX::Zero(m), a(m), t(m);
  for (int i : rows) {
    for (int c = 0; c < m; ++c) a[c] = sys.Jn_u(i, cols[c]);
    N.noalias() += kGapWeight * a * a.transpose();
    g -= kGapWeight * sys.phi[i] * a;
    for (int d = 0; d < nt; ++d) {
      for (int c = 0; c < m; ++c) t[c] = sys.Jf_u(i * k + d, cols[c]);
      N.noalias() += t * t.transpose();
    }
  }
  N.diagonal().array() += kStillWeight;
  const VecX x = N.ldlt().solve(g);
  VecX delta = VecX::Zero(nu);
  for (int c = 0; c < m; ++c) delta[cols[c]] = x[c];
  const VecX dphi = sys.Jn_u * delta;
  const double moved = dphi.lpNorm<Eigen::Infinity>();
  // A correction that moves a contact point by more than the margin (along its normal or
  // its friction directions) is no linearisation error: leave the state as it is.
  const double slid = sys.nd() ? (sys.Jf_u * delta).lpNorm<Eigen::Infinity>() : 0.0;
  if (!std::isfinite(moved) || !std::isfinite(slid) || std::max(moved, slid) > margin) return 0.0;
  sys.phi += dphi;
  for (int i = 0; i < sys.nc(); ++i) sys.contacts[i].phi = sys.phi[i];
  VecX dv = VecX::Zero(model.nv);
  for (int i = 0; i < nu; ++i) dv[part.unactuated[i]] = delta[i];
  integrate_q(model, s.q, dv, 1.0);
  return moved;
}

// A contact's modes fit a double's mantissa as bits: bit b is miqp_pair(sys, i, b)'s binary.
bool modes_fit(const QuasistaticSystem& sys) { return sys.ndir() + 2 <= 52; }

std::string touching(const Model& model, const QuasistaticSystem& sys) {
  std::string out;
  for (const QuasistaticContact& c : sys.contacts) {
    if (c.phi > 1e-9) continue;
    if (!out.empty()) out += ", ";
    out += model.bodies[c.body_a].name + "/" + model.bodies[c.body_b].name;
  }
  return out.empty() ? "none" : out;
}

void fill_results(const QuasistaticSystem& sys, const QuasistaticSolution& sol, StepResult& result) {
  result.contacts.clear();
  const double h = sys.h;
  const int k = sys.ndir();
  const VecX slide = sys.Jf_u * sol.dv_u + sys.Jf_a * sol.dv_a;
  // The solvers meet the cone's row Σ P_f ≤ μ P_n to their feasibility tolerance (N·s).
  const double force_tol = ComplementarityBbOptions{}.feasibility_tol / h;
  for (int i = 0; i < sys.nc(); ++i) {
    const QuasistaticContact& c = sys.contacts[i];
    ContactResult r;
    r.geom_a = c.geom_a;
    r.geom_b = c.geom_b;
    r.body_a = c.body_a;
    r.body_b = c.body_b;
    r.position = 0.5 * (c.point_a + c.point_b);
    r.normal = c.normal;
    r.depth = -c.phi;
    r.mu = c.mu;
    r.fn = sol.Pn[i] / h;
    Vec3 slip = Vec3::Zero();
    const int nt = sys.ntangent();
    for (int j = 0; j < nt; ++j) {
      r.ft += sys.directions[i * k + j] * (sol.Pf[i * k + j] / h);
      slip += sys.directions[i * k + j] * (slide[i * k + j] / h);
    }
    // The directions are balanced, so Σ d (d·v) = (k/2) v_t.
    r.slip = slip * (2.0 / nt);
    if (sys.ntorsion) r.torsion = sys.torsion_scale(i) * (sol.Pf[i * k + nt] - sol.Pf[i * k + nt + 1]) / h;
    r.cone_error = coulomb_cone_error(r.fn, r.ft, c.mu, force_tol);
    r.alignment_error = alignment_error(r.ft, r.slip);
    result.contacts.push_back(r);
  }
}

}  // namespace

void step_quasistatic(const Model& model, State& s, const Input& in, const Formulation& f, Workspace& ws,
                      StepResult* result) {
  const QuasistaticOptions& o = f.quasistatic;
  const double h = model.options.dt;
  if (!ws.quasistatic) {
    validate_quasistatic(model, o);
    ws.quasistatic.reset(new QuasistaticScratch);
    ws.quasistatic->part = quasistatic_partition(model);
  }
  QuasistaticScratch& sc = *ws.quasistatic;
  QuasistaticSystem& sys = sc.sys;
  build_quasistatic_system(model, s, in, o, sc.part, ws.kin, sc.build, sys);
  const double stabilized = o.stabilize ? stabilize_closed_contacts(model, s, ws.kin, sc.part, sys) : 0.0;

  // From each contact's slot: the previous step's hypothetical penetration (seed 003, V.B)
  // and, for the MIQP, its modes as the hint (see hint_slot). A contact new to its geom pair
  // is hinted open (no impulse, free sliding slack), as a contact that is not touching yet is.
  const bool miqp = o.scheme == QuasistaticScheme::Miqp;
  const int nbits = sys.ndir() + 2;
  const std::uint64_t open = (std::uint64_t{1} << (nbits - 1)) - 1;  // z_n and every z_f, not z_s
  sc.phi_bar_prev = VecX::Constant(sys.nc(), std::numeric_limits<double>::quiet_NaN());
  sc.mode_hint.assign(miqp ? 2 * sys.nc() + sys.nd() : 0, 0);
  for (int i = 0; i < sys.nc(); ++i) {
    const QuasistaticContact& c = sys.contacts[i];
    const ContactSlot* own = s.contacts.find({c.geom_a, c.geom_b, c.feature});
    if (own && own->values[slot::kHasPhiBar]) sc.phi_bar_prev[i] = own->values[slot::kPhiBar];
    if (!miqp) continue;
    const ContactSlot* hint = modes_fit(sys) ? hint_slot(model, ws.kin, s.contacts, c, own) : nullptr;
    const std::uint64_t bits = hint ? static_cast<std::uint64_t>(hint->values[slot::kModes]) : open;
    for (int b = 0; b < nbits; ++b) sc.mode_hint[miqp_pair(sys, i, b)] = static_cast<int>((bits >> b) & 1);
  }
  const QuasistaticSolution sol = solve_quasistatic(sys, o, &sc.phi_bar_prev, miqp ? &sc.mode_hint : nullptr);
  if (sol.status != QuasistaticSolution::Status::Solved) {
    const std::string what = "step " + std::to_string(s.step + 1) + " (t = " + show(s.t) + "), scheme " +
                             to_string(o.scheme) + ": " + sol.message + "; touching: " + touching(model, sys);
    if (sol.status == QuasistaticSolution::Status::Infeasible) throw InputError(what);
    throw std::runtime_error(what);
  }

  const VecX phi_bar = hypothetical_penetration(sys, sol.dv_u);
  // Closed: the gap after the step within closed_gap and the solvers' row tolerance.
  const VecX gap_after = sys.phi + sys.Jn_u * sol.dv_u + sys.Jn_a * sol.dv_a;
  const double closed_tol = o.closed_gap + ComplementarityBbOptions{}.feasibility_tol;
  s.contacts.begin();
  for (int i = 0; i < sys.nc(); ++i) {
    const QuasistaticContact& c = sys.contacts[i];
    ContactSlot& sl = s.contacts.touch({c.geom_a, c.geom_b, c.feature}, s.t);
    sl.values[slot::kPhiBar] = phi_bar[i];
    sl.values[slot::kHasPhiBar] = 1.0;
    const bool modes = static_cast<int>(sol.modes.size()) == 2 * sys.nc() + sys.nd() && modes_fit(sys);
    std::uint64_t bits = 0;
    for (int b = 0; modes && b < nbits; ++b)
      if (sol.modes[miqp_pair(sys, i, b)]) bits |= std::uint64_t{1} << b;
    sl.values[slot::kModes] = static_cast<double>(bits);
    sl.values[slot::kHasModes] = modes ? 1.0 : 0.0;
    // The witnesses in their bodies at the step's start (ws.kin is at s.q before the step and
    // its stabilisation, which moved the bodies by nm).
    const Vec3 wa = ws.kin.X_WB[c.body_a].inverse() * c.point_a, wb = ws.kin.X_WB[c.body_b].inverse() * c.point_b;
    for (int a = 0; a < 3; ++a) {
      sl.values[slot::kWitnessA + a] = wa[a];
      sl.values[slot::kWitnessB + a] = wb[a];
    }
    sl.values[slot::kHasWitnesses] = 1.0;
    sl.values[slot::kClosed] = gap_after[i] <= closed_tol ? 1.0 : 0.0;
  }
  s.contacts.end();

  sc.dv = VecX::Zero(model.nv);
  for (int i = 0; i < sys.nu(); ++i) sc.dv[sc.part.unactuated[i]] = sol.dv_u[i];
  for (int i = 0; i < sys.na(); ++i) sc.dv[sc.part.actuated[i]] = sol.dv_a[i];
  if (result) {
    QuasistaticStepInfo& info = result->quasistatic;
    info.valid = true;
    info.q_before = s.q;
    info.actuated_dofs = sc.part.actuated;
    info.dq_command = sys.dq_command;
    info.dq = sol.dv_a;
    info.binaries = sol.binaries;
    info.nodes = sol.nodes;
    info.solve_ms = sol.solve_ms;
    info.objective = sol.objective;
    info.big_m_active = sol.big_m_active;
    info.proven = sol.proven;
    info.stabilized = stabilized;
    const QuasistaticResiduals res = quasistatic_residuals(sys, sol, o.scheme);
    info.force_balance = res.force_balance;
    info.complementarity = res.complementarity;
    fill_results(sys, sol, *result);
    result->solver = sol.solver;
    result->solver_iterations = sol.nodes;
    result->solver_residual = res.complementarity / h;
  }
  ws.actuator_effort = VecX::Zero(static_cast<Eigen::Index>(model.actuators.size()));
  s.v = sc.dv / h;
  integrate_q(model, s.q, s.v, h);
  s.t += h;
  s.step += 1;
}

}  // namespace graspsim
