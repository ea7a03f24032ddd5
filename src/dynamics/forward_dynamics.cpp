#include "dynamics/forward_dynamics.h"

#include <stdexcept>

#include <Eigen/Cholesky>

#include "core/error.h"

#include "dynamics/actuation.h"
#include "dynamics/dynamics.h"
#include "model/state.h"

namespace graspsim {
namespace {

// The model's masses and inertias are checked positive at load, so at a valid configuration
// M is positive definite: one that is not comes from a state the integration made invalid (an
// adaptive integrator's stage far off, a free body's quaternion collapsed). A divergence,
// which an adaptive integrator answers with a smaller step.
[[noreturn]] void not_positive_definite() {
  throw DivergenceError("dynamics: the mass matrix is not positive definite at this configuration");
}

}  // namespace

void ForwardDynamics::prepare(const Model& model) {
  const int nv = model.nv;
  M_.resize(nv, nv);
  bias_.resize(nv);
  tau_.resize(nv);
  rhs_.resize(nv);
  free_dofs_.clear();
  for (const Joint& j : model.joints)
    for (int d = j.vadr; d < j.vadr + j.nv; ++d)
      if (!model.bodies[j.body].kinematic) free_dofs_.push_back(d);
  if (!model.kinematic_dofs.empty()) {
    const auto nf = static_cast<Eigen::Index>(free_dofs_.size());
    M_ff_.resize(nf, nf);
    rhs_f_.resize(nf);
    qacc_f_.resize(nf);
  }
}

void ForwardDynamics::accelerations(const Model& model, const KinematicsData& kin, const Input& input, const VecX& q,
                                    const VecX& v, const VecX& qacc_prescribed, const VecX* tau_extra, VecX& qacc,
                                    VecX* effort) {
  // (an integrator's stage that diverged would otherwise read as "not positive definite")
  if (!q.allFinite() || !v.allFinite()) require_finite_state(model, q, v, "");
  mass_matrix(model, kin, M_);
  bias_forces(model, kin, v, bias_);
  passive_forces(model, q, v, tau_);
  add_actuator_forces(model, input, q, v, effort, tau_);
  rhs_ = tau_ - bias_;
  if (tau_extra) rhs_ += *tau_extra;
  solve(model, kin, qacc_prescribed, qacc);
}

// Without prescribed dofs: the tree factorization. With them: their accelerations move to
// the right side, M_ff q̈_f = rhs_f − M_fp q̈_p (dense Cholesky).
void ForwardDynamics::solve(const Model& model, const KinematicsData& kin, const VecX& qacc_prescribed, VecX& qacc) {
  if (model.kinematic_dofs.empty()) {
    if (!tree_.compute(M_, kin.dof_parent)) not_positive_definite();
    qacc = rhs_;
    tree_.solve_in_place(qacc);
    return;
  }
  const auto& f = free_dofs_;
  const auto& p = model.kinematic_dofs;
  for (size_t k = 0; k < p.size(); ++k) qacc[p[k]] = qacc_prescribed[static_cast<Eigen::Index>(k)];
  for (size_t r = 0; r < f.size(); ++r) {
    double s = rhs_[f[r]];
    for (int d : p) s -= M_(f[r], d) * qacc[d];
    rhs_f_[static_cast<Eigen::Index>(r)] = s;
    for (size_t c = 0; c < f.size(); ++c)
      M_ff_(static_cast<Eigen::Index>(r), static_cast<Eigen::Index>(c)) = M_(f[r], f[c]);
  }
  if (f.empty()) return;
  Eigen::LLT<Eigen::Ref<MatX>> llt(M_ff_);
  if (llt.info() != Eigen::Success) not_positive_definite();
  qacc_f_ = llt.solve(rhs_f_);
  for (size_t r = 0; r < f.size(); ++r) qacc[f[r]] = qacc_f_[static_cast<Eigen::Index>(r)];
}

}  // namespace graspsim
