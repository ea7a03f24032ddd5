#include "steppers/dynamics_stepper.h"

#include <algorithm>
#include <optional>
#include <stdexcept>
#include <string>

#include <Eigen/Cholesky>

#include "core/error.h"
#include "dynamics/actuation.h"
#include "dynamics/dynamics.h"
#include "integrators/integrators.h"
#include "kinematics/integrate.h"
#include "kinematics/kinematics.h"

namespace graspsim {

// The dynamics stepper's scratch (sized on first use, then reused without allocation).
struct DynamicsScratch {
  MatX M;                          // mass matrix (nv x nv)
  VecX bias, tau;                  // c(q, v), applied generalized forces (nv)
  std::vector<int> free_dofs;      // dofs solved for by forward dynamics (the rest: Model::kinematic_dofs)
  VecX rhs, qacc_prescribed;       // τ − c; accelerations of the prescribed dofs over the step
  MatX M_ff;                       // M restricted to free_dofs (when some dofs are prescribed)
  VecX rhs_f, qacc_f;              // the reduced system's right side and solution
  const Model* rk4_model = nullptr;  // the model rk4 was made for
  std::optional<RungeKutta4> rk4;  // the integrators module's (kept for its storage)
  OdeState x;                      // (q, v) as the integrator sees them
};

void ScratchDeleter::operator()(DynamicsScratch* p) const { delete p; }

namespace {

// Sizes the scratch and partitions the dofs into free and prescribed ones.
DynamicsScratch& prepare(const Model& model, Workspace& w) {
  if (!w.dynamics) w.dynamics.reset(new DynamicsScratch);
  DynamicsScratch& ws = *w.dynamics;
  const int nv = model.nv;
  w.qacc.resize(nv);
  ws.M.resize(nv, nv);
  ws.bias.resize(nv);
  ws.tau.resize(nv);
  ws.rhs.resize(nv);
  w.actuator_effort.resize(static_cast<Eigen::Index>(model.actuators.size()));
  ws.free_dofs.clear();
  for (const Joint& j : model.joints)
    for (int d = j.vadr; d < j.vadr + j.nv; ++d)
      if (!model.bodies[j.body].kinematic) ws.free_dofs.push_back(d);
  const auto nf = static_cast<Eigen::Index>(ws.free_dofs.size());
  const auto np = static_cast<Eigen::Index>(model.kinematic_dofs.size());
  ws.qacc_prescribed.resize(np);
  if (np > 0) {
    ws.M_ff.resize(nf, nf);
    ws.rhs_f.resize(nf);
    ws.qacc_f.resize(nf);
  }
  return ws;
}

// The kinematic dofs move from their velocity at the start of the step to the commanded one
// at its end at a constant acceleration.
void prescribed_accelerations(const Model& model, const Input& in, const VecX& v, double h, DynamicsScratch& ws) {
  for (size_t k = 0; k < model.kinematic_dofs.size(); ++k) {
    const auto kk = static_cast<Eigen::Index>(k);
    ws.qacc_prescribed[kk] = (in.kinematic_v[kk] - v[model.kinematic_dofs[k]]) / h;
  }
}

void set_prescribed_v(const Model& model, const Input& in, VecX& v) {
  for (size_t k = 0; k < model.kinematic_dofs.size(); ++k) v[model.kinematic_dofs[k]] = in.kinematic_v[static_cast<Eigen::Index>(k)];
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

// Solves M q̈ = rhs in place of d.M into qacc; the prescribed dofs keep their accelerations
// and move to the right side: M_ff q̈_f = rhs_f − M_fp q̈_p (dense Cholesky).
void solve_accelerations(const Model& model, const KinematicsData& kin, DynamicsScratch& ws, VecX& qacc) {
  if (model.kinematic_dofs.empty()) {
    factor_tree(ws.M, kin.dof_parent);
    qacc = ws.rhs;
    solve_tree(ws.M, kin.dof_parent, qacc);
    return;
  }
  const auto& f = ws.free_dofs;
  const auto& p = model.kinematic_dofs;
  for (size_t k = 0; k < p.size(); ++k) qacc[p[k]] = ws.qacc_prescribed[static_cast<Eigen::Index>(k)];
  for (size_t r = 0; r < f.size(); ++r) {
    double s = ws.rhs[f[r]];
    for (int d : p) s -= ws.M(f[r], d) * qacc[d];
    ws.rhs_f[static_cast<Eigen::Index>(r)] = s;
    for (size_t c = 0; c < f.size(); ++c) ws.M_ff(static_cast<Eigen::Index>(r), static_cast<Eigen::Index>(c)) = ws.M(f[r], f[c]);
  }
  if (f.empty()) return;
  Eigen::LLT<Eigen::Ref<MatX>> llt(ws.M_ff);
  if (llt.info() != Eigen::Success) throw std::runtime_error("dynamics: the mass matrix is not positive definite");
  ws.qacc_f = llt.solve(ws.rhs_f);
  for (size_t r = 0; r < f.size(); ++r) qacc[f[r]] = ws.qacc_f[static_cast<Eigen::Index>(r)];
}

// q̈ at (q, v) under the input into w.qacc (prescribed dofs: d.qacc_prescribed).
void forward_dynamics(const Model& model, const Input& in, const VecX& q, const VecX& v, Workspace& w,
                      DynamicsScratch& d, bool record_effort) {
  forward_kinematics(model, q, w.kin);
  mass_matrix(model, w.kin, d.M);
  bias_forces(model, w.kin, v, d.bias);
  passive_forces(model, q, v, d.tau);
  add_actuator_forces(model, in, q, v, record_effort ? &w.actuator_effort : nullptr, d.tau);
  d.rhs = d.tau - d.bias;
  solve_accelerations(model, w.kin, d, w.qacc);
}

void step_euler(const Model& model, State& s, const Input& in, Workspace& w, DynamicsScratch& d) {
  const double h = model.options.dt;
  prescribed_accelerations(model, in, s.v, h, d);
  forward_dynamics(model, in, s.q, s.v, w, d, true);
  s.v += h * w.qacc;
  set_prescribed_v(model, in, s.v);
  integrate_q(model, s.q, s.v, h);
  s.t += h;
}

// Classical RK4 of the integrators module, in the local coordinate u of q = q0 ⊕ u
// (Munthe-Kaas), so that it stays fourth order on the quaternions of free and ball joints.
// The input is held over the step; the prescribed dofs' constant acceleration ramps their
// stage velocities, and they end exactly at their commanded velocity.
void step_rk4(const Model& model, State& s, const Input& in, Workspace& w, DynamicsScratch& d) {
  const double h = model.options.dt;
  if (d.rk4_model != &model) {
    d.rk4.emplace(model_space(model));
    d.rk4_model = &model;
  }
  prescribed_accelerations(model, in, s.v, h, d);
  d.x.t = s.t;
  d.x.q = s.q;
  d.x.v = s.v;
  d.x.z.resize(0);
  int stage = 0;
  auto qdd = [&](double, const VecX& q, const VecX& v, const VecX&, VecX& vdot, VecX&) {
    forward_dynamics(model, in, q, v, w, d, stage++ == 0);  // efforts: those at the step's start
    vdot = w.qacc;
  };
  d.rk4->step(qdd, d.x, h);
  s.q = d.x.q;
  s.v = d.x.v;
  set_prescribed_v(model, in, s.v);
  s.t += h;
}

}  // namespace

void validate_dynamics(const Model& model, const DynamicsOptions& o) {
  // Loop closures, joint couplings and dry friction are constraint rows; this stepper has none.
  if (!model.equalities.empty())
    throw InputError("equality '" + model.equalities.front().name +
                     "': equality constraints need a constraint stepper (options: {stepper: spook})");
  for (const Joint& j : model.joints)
    if (j.frictionloss > 0.0)
      throw InputError("joint '" + j.name +
                       "': frictionloss (dry friction) needs a constraint stepper (options: {stepper: spook})");
  // The scene reader takes only the integrators' names; code may still pass a stray value.
  for (const auto& entry : EnumNames<Integrator>::table)
    if (entry.first == o.integrator) return;
  throw InputError("options: integrator " + std::to_string(static_cast<int>(o.integrator)) +
                   " is not one of euler | rk4");
}

void step_dynamics(const Model& model, State& state, const Input& input, const Formulation& f, Workspace& ws) {
  DynamicsScratch& d = prepare(model, ws);
  switch (f.dynamics.integrator) {
    case Integrator::SemiImplicitEuler: step_euler(model, state, input, ws, d); break;
    case Integrator::RK4: step_rk4(model, state, input, ws, d); break;
  }
  state.step += 1;
}

void step_dynamics(const Model& model, State& state, Workspace& ws) {
  sample_signals(model, state.t, model.options.dt, ws.input);
  step_dynamics(model, state, ws.input, scene_formulation(model), ws);
}

}  // namespace graspsim
