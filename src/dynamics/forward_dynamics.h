#pragma once
// Forward dynamics under an input: M(q) q̈ = τ(q, v, input) + τ_extra − c(q, v), with the
// kinematic (prescribed) dofs at given accelerations. One implementation for every stepper
// that integrates an ODE (the dynamics stepper, the penalty stepper).

#include <vector>

#include "core/types.h"
#include "kinematics/kinematics.h"
#include "model/input.h"
#include "model/model.h"
#include "solvers/tree_ldl.h"

namespace graspsim {

class ForwardDynamics {
 public:
  // Sizes the storage for `model` (the only allocation) and splits the dofs into free and
  // prescribed (Model::kinematic_dofs) ones.
  void prepare(const Model& model);

  // q̈ into qacc (nv) at the kinematics `kin` of q and velocity v. Prescribed dofs take
  // qacc_prescribed (one per Model::kinematic_dofs entry). `tau_extra` (nv, may be null) is
  // added to the passive and actuator forces (contact forces). Actuator efforts go to
  // *effort when it is not null. Throws std::runtime_error if M is not positive definite.
  void accelerations(const Model& model, const KinematicsData& kin, const Input& input, const VecX& q,
                     const VecX& v, const VecX& qacc_prescribed, const VecX* tau_extra, VecX& qacc,
                     VecX* effort);

 private:
  void solve(const Model& model, const KinematicsData& kin, const VecX& qacc_prescribed, VecX& qacc);

  MatX M_;                         // mass matrix (nv x nv)
  TreeLdl tree_;                   // its factor without fill-in (no prescribed dofs)
  VecX bias_, tau_, rhs_;          // c(q, v), applied generalized forces, τ − c (nv)
  std::vector<int> free_dofs_;     // dofs solved for (the rest: Model::kinematic_dofs)
  MatX M_ff_;                      // M restricted to free_dofs_ (when some dofs are prescribed)
  VecX rhs_f_, qacc_f_;
};

}  // namespace graspsim
