#include "dynamics/dynamics.h"

namespace graspsim {
namespace {

// Recursive Newton-Euler in the world frame: τ = M q̈ + c (q̈ = 0 when qdd is null).
// Gravity enters as a fictitious upward acceleration of the world (Featherstone 5.3).
// `skip`: bodies (whole trees) left out, their dofs' tau zero.
void rne(const Model& model, const KinematicsData& kin, const VecX& v, const VecX* qdd, VecX& tau,
         const std::vector<char>* skip = nullptr) {
  auto& V = kin.V;
  auto& A = kin.A;
  auto& F = kin.F;
  V[0].setZero();
  A[0] << Vec3::Zero(), -model.options.gravity;
  for (int b = 1; b < model.nbody(); ++b) {
    if (skip && (*skip)[b]) continue;
    const int p = model.bodies[b].parent;
    const Joint& j = model.joints[model.bodies[b].joint];
    Vec6 vj = Vec6::Zero();      // joint velocity S v
    Vec6 moving = Vec6::Zero();  // the part whose subspace moves with the body: Ṡ_i = V × S_i
    Vec6 aj = Vec6::Zero();      // S q̈
    for (int d = j.vadr; d < j.vadr + j.nv; ++d) {
      const Vec6 sv = kin.S.col(d) * v[d];
      vj += sv;
      if (!kin.dof_fixed_in_world[d]) moving += sv;
      if (qdd) aj += kin.S.col(d) * (*qdd)[d];
    }
    V[b] = V[p] + vj;
    A[b] = A[p] + cross_motion(V[b], moving) + aj;
    F[b] = kin.I_W[b] * A[b] + cross_force(V[b], kin.I_W[b] * V[b]);
  }
  tau.resize(model.nv);
  for (int b = model.nbody() - 1; b > 0; --b) {
    const Joint& j = model.joints[model.bodies[b].joint];
    if (skip && (*skip)[b]) {
      tau.segment(j.vadr, j.nv).setZero();
      continue;
    }
    for (int d = j.vadr; d < j.vadr + j.nv; ++d) {
      tau[d] = kin.S.col(d).dot(F[b]);
      if (qdd) tau[d] += j.armature * (*qdd)[d];
    }
    F[model.bodies[b].parent] += F[b];
  }
}

}  // namespace

void mass_matrix(const Model& model, const KinematicsData& kin, MatX& M) {
  M.resize(model.nv, model.nv);
  M.setZero();
  // M_ij = S_jᵀ Ic S_i for dof j on the path from dof i to the root (Ic of dof i's body);
  // zero between dofs on different branches.
  for (int i = 0; i < model.nv; ++i) {
    const int b = kin.dof_body[i];
    const Vec6 F = kin.Ic_W[b] * kin.S.col(i);
    for (int j = i; j >= 0; j = kin.dof_parent[j]) M(j, i) = kin.S.col(j).dot(F);
    M(i, i) += model.joints[model.bodies[b].joint].armature;
  }
  M.triangularView<Eigen::StrictlyLower>() = M.transpose();
}

void mass_matrix_block(const Model& model, const KinematicsData& kin, int v_begin, int n, MatX& M) {
  M.setZero(n, n);
  for (int i = v_begin; i < v_begin + n; ++i) {
    const int b = kin.dof_body[i];
    const Vec6 F = kin.Ic_W[b] * kin.S.col(i);
    for (int j = i; j >= v_begin; j = kin.dof_parent[j]) M(j - v_begin, i - v_begin) = kin.S.col(j).dot(F);
    M(i - v_begin, i - v_begin) += model.joints[model.bodies[b].joint].armature;
  }
  M.triangularView<Eigen::StrictlyLower>() = M.transpose();
}

void free_body_mass_matrix(const Model& model, int b, const Mat3& R, MatX& M) {
  const Body& body = model.bodies[b];
  const double m = body.mass;
  M.setZero(6, 6);
  M.topLeftCorner<3, 3>().diagonal().setConstant(m);
  if (!body.com.isZero()) {
    const Mat3 cx = skew(body.com);
    M.topRightCorner<3, 3>() = -m * R * cx;
    M.bottomLeftCorner<3, 3>() = M.topRightCorner<3, 3>().transpose();
    M.bottomRightCorner<3, 3>() = body.inertia - m * cx * cx;
  } else {
    M.bottomRightCorner<3, 3>() = body.inertia;
  }
  M.diagonal().array() += model.joints[body.joint].armature;
}

void bias_forces(const Model& model, const KinematicsData& kin, const VecX& v, VecX& c, const std::vector<char>* skip) {
  rne(model, kin, v, nullptr, c, skip);
}

VecX inverse_dynamics(const Model& model, const KinematicsData& kin, const VecX& v, const VecX& qdd) {
  VecX tau;
  rne(model, kin, v, &qdd, tau);
  return tau;
}

void passive_forces(const Model& model, const VecX& q, const VecX& v, VecX& tau) {
  tau.resize(model.nv);
  for (const Joint& j : model.joints)
    for (int k = 0; k < j.nv; ++k) {
      const int d = j.vadr + k;
      tau[d] = -j.damping * v[d];
      if (j.nq == 1) tau[d] -= j.stiffness * (q[j.qadr] - j.spring_ref);
    }
}

double kinetic_energy(const Model& model, const KinematicsData& kin, const VecX& v) {
  double T = 0.0;
  kin.V[0].setZero();
  for (int b = 1; b < model.nbody(); ++b) {
    const Joint& j = model.joints[model.bodies[b].joint];
    Vec6 V = kin.V[model.bodies[b].parent];
    for (int d = j.vadr; d < j.vadr + j.nv; ++d) V += kin.S.col(d) * v[d];
    kin.V[b] = V;
    T += 0.5 * V.dot(kin.I_W[b] * V);
  }
  return T;
}

double potential_energy(const Model& model, const KinematicsData& kin, const VecX& q) {
  double U = 0.0;
  for (int b = 1; b < model.nbody(); ++b) U -= model.bodies[b].mass * model.options.gravity.dot(kin.p_WCom[b]);
  for (const Joint& j : model.joints)
    if (j.nq == 1) U += 0.5 * j.stiffness * (q[j.qadr] - j.spring_ref) * (q[j.qadr] - j.spring_ref);
  return U;
}

}  // namespace graspsim
