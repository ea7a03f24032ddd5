#include "steppers/dynamics_stepper.h"

#include <algorithm>
#include <stdexcept>

#include <Eigen/Cholesky>

#include "kinematics/dynamics.h"
#include "kinematics/integrate.h"
#include "kinematics/kinematics.h"

namespace graspsim {
namespace {

// Sizes the scratch and partitions the dofs into free and prescribed ones.
void prepare(const Model& model, Workspace& ws) {
  const int nv = model.nv;
  ws.M.resize(nv, nv);
  ws.bias.resize(nv);
  ws.tau.resize(nv);
  ws.qacc.resize(nv);
  ws.rhs.resize(nv);
  ws.actuator_effort.resize(static_cast<Eigen::Index>(model.actuators.size()));
  ws.free_dofs.clear();
  ws.prescribed_dofs.clear();
  for (const Joint& j : model.joints)
    for (int d = j.vadr; d < j.vadr + j.nv; ++d)
      (model.bodies[j.body].kinematic ? ws.prescribed_dofs : ws.free_dofs).push_back(d);
  const auto nf = static_cast<Eigen::Index>(ws.free_dofs.size());
  const auto np = static_cast<Eigen::Index>(ws.prescribed_dofs.size());
  ws.qacc_prescribed.resize(np);
  if (np > 0) {
    ws.M_ff.resize(nf, nf);
    ws.rhs_f.resize(nf);
    ws.qacc_f.resize(nf);
  }
}

// Calls fn(dof, signal) for every dof of a kinematic body, in the order of ws.prescribed_dofs.
template <typename Fn>
void for_each_prescribed(const Model& model, Fn fn) {
  for (const Joint& j : model.joints)
    if (model.bodies[j.body].kinematic)
      for (int k = 0; k < j.nv; ++k) fn(j.vadr + k, model.bodies[j.body].prescribed_v[k]);
}

void set_prescribed_v(const Model& model, double t, VecX& v) {
  for_each_prescribed(model, [&](int d, const Signal& s) { v[d] = s(t); });
}

double actuator_effort(const Actuator& a, const Joint& j, double t, const VecX& q, const VecX& v) {
  const double cmd = a.command(t);
  double effort = 0.0;
  switch (a.type) {
    case ActuatorType::Force: effort = cmd; break;
    case ActuatorType::Position: effort = a.kp * (cmd - q[j.qadr + a.dof]) - a.kv * v[j.vadr + a.dof]; break;
    case ActuatorType::Velocity: effort = a.kv * (cmd - v[j.vadr + a.dof]); break;
  }
  return std::clamp(effort, a.effort_min, a.effort_max);
}

// Adds the actuator efforts at (t, q, v) to tau; records them in *effort unless null.
void actuator_forces(const Model& model, double t, const VecX& q, const VecX& v, VecX* effort, VecX& tau) {
  for (size_t i = 0; i < model.actuators.size(); ++i) {
    const Actuator& a = model.actuators[i];
    const Joint& j = model.joints[a.joint];
    const double e = actuator_effort(a, j, t, q, v);
    if (effort) (*effort)[static_cast<Eigen::Index>(i)] = e;
    tau[j.vadr + a.dof] += e;
  }
}

// Factors M = Lᵀ D L in place of its lower triangle (Featherstone's LTDL, RBDA 6.5). M_ij
// is nonzero only when dof j is an ancestor of dof i (parent[] links), and L keeps that
// pattern, so the cost is O(nv·depth²) instead of O(nv³) for a dense Cholesky.
void factor_tree(MatX& H, const std::vector<int>& parent) {
  for (int k = static_cast<int>(H.rows()) - 1; k >= 0; --k) {
    if (!(H(k, k) > 0.0)) throw std::runtime_error("dynamics: the mass matrix is not positive definite");
    for (int i = parent[k]; i >= 0; i = parent[i]) {
      const double a = H(k, i) / H(k, k);
      for (int j = i; j >= 0; j = parent[j]) H(i, j) -= a * H(k, j);
      H(k, i) = a;
    }
  }
}

// Solves Lᵀ D L x = b in place of x (= b on entry), with factor_tree's output.
void solve_tree(const MatX& H, const std::vector<int>& parent, VecX& x) {
  const int n = static_cast<int>(H.rows());
  for (int k = n - 1; k >= 0; --k)
    for (int i = parent[k]; i >= 0; i = parent[i]) x[i] -= H(k, i) * x[k];
  for (int k = 0; k < n; ++k) x[k] /= H(k, k);
  for (int k = 0; k < n; ++k)
    for (int i = parent[k]; i >= 0; i = parent[i]) x[k] -= H(k, i) * x[i];
}

// Solves M q̈ = rhs in place of ws.M; the prescribed dofs keep their signal accelerations
// and move to the right side: M_ff q̈_f = rhs_f − M_fp q̈_p (dense Cholesky).
void solve_accelerations(Workspace& ws) {
  if (ws.prescribed_dofs.empty()) {
    factor_tree(ws.M, ws.kin.dof_parent);
    ws.qacc = ws.rhs;
    solve_tree(ws.M, ws.kin.dof_parent, ws.qacc);
    return;
  }
  const auto& f = ws.free_dofs;
  const auto& p = ws.prescribed_dofs;
  for (size_t k = 0; k < p.size(); ++k) ws.qacc[p[k]] = ws.qacc_prescribed[static_cast<Eigen::Index>(k)];
  for (size_t r = 0; r < f.size(); ++r) {
    double s = ws.rhs[f[r]];
    for (int d : p) s -= ws.M(f[r], d) * ws.qacc[d];
    ws.rhs_f[static_cast<Eigen::Index>(r)] = s;
    for (size_t c = 0; c < f.size(); ++c) ws.M_ff(static_cast<Eigen::Index>(r), static_cast<Eigen::Index>(c)) = ws.M(f[r], f[c]);
  }
  if (f.empty()) return;
  Eigen::LLT<Eigen::Ref<MatX>> llt(ws.M_ff);
  if (llt.info() != Eigen::Success) throw std::runtime_error("dynamics: the mass matrix is not positive definite");
  ws.qacc_f = llt.solve(ws.rhs_f);
  for (size_t r = 0; r < f.size(); ++r) ws.qacc[f[r]] = ws.qacc_f[static_cast<Eigen::Index>(r)];
}

// q̈ at (t, q, v) into ws.qacc. Prescribed dofs accelerate by the finite difference of
// their signals over [ta, tb].
void forward_dynamics(const Model& model, double t, const VecX& q, const VecX& v, double ta, double tb,
                      Workspace& ws, bool record_effort) {
  forward_kinematics(model, q, ws.kin);
  mass_matrix(model, ws.kin, ws.M);
  bias_forces(model, ws.kin, v, ws.bias);
  passive_forces(model, q, v, ws.tau);
  actuator_forces(model, t, q, v, record_effort ? &ws.actuator_effort : nullptr, ws.tau);
  ws.rhs = ws.tau - ws.bias;
  Eigen::Index k = 0;
  for_each_prescribed(model, [&](int, const Signal& s) { ws.qacc_prescribed[k++] = (s(tb) - s(ta)) / (tb - ta); });
  solve_accelerations(ws);
}

void step_euler(const Model& model, State& s, Workspace& ws) {
  const double h = model.options.dt;
  forward_dynamics(model, s.t, s.q, s.v, s.t, s.t + h, ws, true);
  s.v += h * ws.qacc;
  set_prescribed_v(model, s.t + h, s.v);
  integrate_q(model, s.q, s.v, h);
  s.t += h;
}

// Classical RK4 in the local coordinate u of q = q0 ⊕ u (Munthe-Kaas), so that it stays
// fourth order on the quaternions of free and ball joints.
void step_rk4(const Model& model, State& s, Workspace& ws) {
  const double h = model.options.dt;
  static constexpr double kC[4] = {0.0, 0.5, 0.5, 1.0};
  static constexpr double kW[4] = {1.0, 2.0, 2.0, 1.0};
  ws.u.setZero(model.nv);
  ws.u_sum.setZero(model.nv);
  ws.qacc_sum.setZero(model.nv);
  ws.u_rate.setZero(model.nv);
  ws.qacc.setZero(model.nv);
  for (int i = 0; i < 4; ++i) {
    const double ts = s.t + kC[i] * h;
    ws.u = (kC[i] * h) * ws.u_rate;  // from the previous stage's rate
    ws.q_stage = s.q;
    integrate_q(model, ws.q_stage, ws.u, 1.0);
    ws.v_stage = s.v + (kC[i] * h) * ws.qacc;
    set_prescribed_v(model, ts, ws.v_stage);
    forward_dynamics(model, ts, ws.q_stage, ws.v_stage, ts - 0.5 * h, ts + 0.5 * h, ws, i == 0);
    local_rate(model, ws.u, ws.v_stage, ws.u_rate);
    ws.u_sum += kW[i] * ws.u_rate;
    ws.qacc_sum += kW[i] * ws.qacc;
  }
  integrate_q(model, s.q, ws.u_sum, h / 6.0);
  s.v += (h / 6.0) * ws.qacc_sum;
  set_prescribed_v(model, s.t + h, s.v);
  s.t += h;
}

}  // namespace

void add_actuator_forces(const Model& model, const State& state, Workspace& ws, VecX& tau) {
  ws.actuator_effort.resize(static_cast<Eigen::Index>(model.actuators.size()));
  actuator_forces(model, state.t, state.q, state.v, &ws.actuator_effort, tau);
}

void step_dynamics(const Model& model, State& state, Workspace& ws) {
  prepare(model, ws);
  switch (model.options.integrator) {
    case Integrator::SemiImplicitEuler: step_euler(model, state, ws); break;
    case Integrator::RK4: step_rk4(model, state, ws); break;
  }
  state.step += 1;
}

}  // namespace graspsim
