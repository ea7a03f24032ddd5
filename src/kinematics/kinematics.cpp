#include "kinematics/kinematics.h"

#include <cmath>

namespace graspsim {
namespace {

Quat quat_at(const VecX& q, int adr) { return Quat(q[adr], q[adr + 1], q[adr + 2], q[adr + 3]).normalized(); }

// Turns the body frame X by the rotation r (body frame) about the joint's anchor.
void turn(const Joint& j, const Quat& r, Pose& X) {
  if (!j.anchor.isZero()) X.p += X.q * (j.anchor - r * j.anchor);
  X.q = X.q * r;
}

// Pose of the body after its joint moved by q, given the joint frame at zero motion.
// Quaternion products of unit quaternions are renormalised once, at the end.
Pose joint_pose(const Joint& j, const VecX& q, const Pose& X_W_joint0) {
  Pose X = X_W_joint0;
  switch (j.type) {
    case JointType::Free: return {q.segment<3>(j.qadr), quat_at(q, j.qadr + 3)};
    case JointType::Ball: turn(j, quat_at(q, j.qadr), X); break;
    case JointType::Revolute: {
      const double half = 0.5 * q[j.qadr], s = std::sin(half);
      turn(j, Quat(std::cos(half), s * j.axis.x(), s * j.axis.y(), s * j.axis.z()), X);
      break;
    }
    case JointType::Prismatic: X.p += X.q * (j.axis * q[j.qadr]); break;
    case JointType::Fixed: break;
  }
  X.q.normalize();
  return X;
}

// Motion subspace columns of the joint in the world frame about O. A rotation about the
// unit axis a through point p moves O with p × a.
void joint_subspace(const Joint& j, const Mat3& R, const Vec3& origin, KinematicsData& kin) {
  const Vec3 p = j.anchor.isZero() ? origin : Vec3(origin + R * j.anchor);  // the point turned about
  auto rot = [&](int col, const Vec3& a) { kin.S.col(col) << a, p.cross(a); };
  auto lin = [&](int col, const Vec3& a) { kin.S.col(col) << Vec3::Zero(), a; };
  const int d = j.vadr;
  switch (j.type) {
    case JointType::Free:
      for (int k = 0; k < 3; ++k) lin(d + k, Vec3::Unit(k));
      for (int k = 0; k < 3; ++k) rot(d + 3 + k, R.col(k));
      break;
    case JointType::Ball:
      for (int k = 0; k < 3; ++k) rot(d + k, R.col(k));
      break;
    case JointType::Revolute: rot(d, R * j.axis); break;
    case JointType::Prismatic: lin(d, R * j.axis); break;
    case JointType::Fixed: break;
  }
}

SpatialInertia world_inertia(const Body& b, const Mat3& R, const Vec3& c) {
  SpatialInertia I;
  I.m = b.mass;
  I.h = b.mass * c;
  // Parallel axis: −m [c]×² = m (|c|² 1 − c cᵀ).
  I.I.noalias() = R * b.inertia * R.transpose();
  I.I.noalias() -= b.mass * c * c.transpose();
  I.I.diagonal().array() += b.mass * c.squaredNorm();
  return I;
}

void resize(const Model& model, KinematicsData& kin) {
  const size_t nb = static_cast<size_t>(model.nbody());
  kin.X_WB.resize(nb);
  kin.p_WCom.resize(nb);
  kin.R_WB.resize(nb);
  kin.I_W.resize(nb);
  kin.Ic_W.resize(nb);
  kin.V.resize(nb);
  kin.A.resize(nb);
  kin.F.resize(nb);
  kin.S.resize(6, model.nv);
  kin.body_last_dof.resize(nb);
  kin.dof_body.resize(static_cast<size_t>(model.nv));
  kin.dof_parent.resize(static_cast<size_t>(model.nv));
  kin.dof_fixed_in_world.resize(static_cast<size_t>(model.nv));
}

// Dof tree (cheap integer work, redone per call so a KinematicsData can move between models).
void dof_tree(const Model& model, KinematicsData& kin) {
  kin.body_last_dof[0] = -1;
  for (int b = 1; b < model.nbody(); ++b) {
    const Joint& j = model.joints[model.bodies[b].joint];
    const int up = kin.body_last_dof[model.bodies[b].parent];
    for (int k = 0; k < j.nv; ++k) {
      const int d = j.vadr + k;
      kin.dof_body[d] = b;
      kin.dof_parent[d] = k == 0 ? up : d - 1;
      kin.dof_fixed_in_world[d] = j.type == JointType::Free && k < 3;
    }
    kin.body_last_dof[b] = j.nv > 0 ? j.vadr + j.nv - 1 : up;
  }
}

}  // namespace

void forward_kinematics(const Model& model, const VecX& q, KinematicsData& kin) {
  resize(model, kin);
  dof_tree(model, kin);
  kin.X_WB[0] = Pose::Identity();
  kin.R_WB[0].setIdentity();
  kin.p_WCom[0].setZero();
  kin.I_W[0] = SpatialInertia{};
  for (int b = 1; b < model.nbody(); ++b) {
    const Body& body = model.bodies[b];
    const Joint& j = model.joints[body.joint];
    const Pose& P = kin.X_WB[body.parent];
    const Pose X = joint_pose(j, q, {P.q * body.X_parent_body.p + P.p, P.q * body.X_parent_body.q});
    kin.X_WB[b] = X;
    kin.R_WB[b] = X.q.toRotationMatrix();
    kin.p_WCom[b] = X * body.com;
    joint_subspace(j, kin.R_WB[b], X.p, kin);
    kin.I_W[b] = world_inertia(body, kin.R_WB[b], kin.p_WCom[b]);
  }
  // Composite inertias, leaves first (a parent precedes its children).
  for (int b = 0; b < model.nbody(); ++b) kin.Ic_W[b] = kin.I_W[b];
  for (int b = model.nbody() - 1; b > 0; --b) kin.Ic_W[model.bodies[b].parent] += kin.Ic_W[b];
}

Pose geom_pose(const Model& model, const KinematicsData& kin, int geom) {
  const Geom& g = model.geoms[geom];
  return kin.X_WB[g.body] * g.X_body_geom;
}

Vec6 spatial_velocity(const Model& model, const KinematicsData& kin, const VecX& v, int body) {
  Vec6 V = Vec6::Zero();
  for (int b = body; b > 0; b = model.bodies[b].parent) {
    const Joint& j = model.joints[model.bodies[b].joint];
    for (int d = j.vadr; d < j.vadr + j.nv; ++d) V += kin.S.col(d) * v[d];
  }
  return V;
}

void body_velocity(const Model& model, const KinematicsData& kin, const VecX& v, int body, Vec3& w_W, Vec3& v_W) {
  const Vec6 V = spatial_velocity(model, kin, v, body);
  w_W = V.head<3>();
  v_W = V.tail<3>() + w_W.cross(kin.X_WB[body].p);
}

}  // namespace graspsim
