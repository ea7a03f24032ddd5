#include "kinematics/integrate.h"

#include <cmath>

namespace graspsim {
namespace {

Quat quat_at(const VecX& q, int adr) { return Quat(q[adr], q[adr + 1], q[adr + 2], q[adr + 3]); }

void set_quat(VecX& q, int adr, const Quat& r) { q.segment<4>(adr) << r.w(), r.x(), r.y(), r.z(); }

// Offset of the rotation part of a joint in q and in v; -1 if it has none.
int rot_qadr(const Joint& j) { return j.type == JointType::Free ? j.qadr + 3 : j.type == JointType::Ball ? j.qadr : -1; }
int rot_vadr(const Joint& j) { return j.type == JointType::Free ? j.vadr + 3 : j.vadr; }

// J_r(θ)⁻¹ ω = ω + ½ θ × ω + c(|θ|) θ × (θ × ω), c = 1/θ² − (1 + cos θ) / (2 θ sin θ).
Vec3 inverse_right_jacobian_times(const Vec3& theta, const Vec3& w) {
  const double a = theta.norm();
  // Series below 1e-4 rad: the next term (a⁴/30240) is far below double precision there.
  const double c = a < 1e-4 ? 1.0 / 12.0 + a * a / 720.0
                            : 1.0 / (a * a) - (1.0 + std::cos(a)) / (2.0 * a * std::sin(a));
  const Vec3 tw = theta.cross(w);
  return w + 0.5 * tw + c * theta.cross(tw);
}

}  // namespace

void integrate_q(const Model& model, VecX& q, const VecX& v, double h) {
  for (const Joint& j : model.joints) {
    if (j.nv == 0) continue;
    const int qr = rot_qadr(j);
    if (qr < 0) {
      q[j.qadr] += h * v[j.vadr];
      continue;
    }
    if (j.type == JointType::Free) q.segment<3>(j.qadr) += h * v.segment<3>(j.vadr);
    set_quat(q, qr, (quat_at(q, qr) * quat_exp(h * v.segment<3>(rot_vadr(j)))).normalized());
  }
}

VecX difference_q(const Model& model, const VecX& q0, const VecX& q1) {
  VecX dq(model.nv);
  for (const Joint& j : model.joints) {
    if (j.nv == 0) continue;
    const int qr = rot_qadr(j);
    if (qr < 0) {
      dq[j.vadr] = q1[j.qadr] - q0[j.qadr];
      continue;
    }
    if (j.type == JointType::Free) dq.segment<3>(j.vadr) = q1.segment<3>(j.qadr) - q0.segment<3>(j.qadr);
    const Quat r0 = quat_at(q0, qr).normalized(), r1 = quat_at(q1, qr).normalized();
    dq.segment<3>(rot_vadr(j)) = quat_log(r0.conjugate() * r1);
  }
  return dq;
}

void normalize_q(const Model& model, VecX& q) {
  for (const Joint& j : model.joints) {
    const int qr = rot_qadr(j);
    if (qr >= 0) q.segment<4>(qr).normalize();
  }
}

void local_rate(const Model& model, const VecX& u, const VecX& v, VecX& udot) {
  udot = v;
  for (const Joint& j : model.joints) {
    if (rot_qadr(j) < 0) continue;
    const int vr = rot_vadr(j);
    udot.segment<3>(vr) = inverse_right_jacobian_times(u.segment<3>(vr), v.segment<3>(vr));
  }
}

}  // namespace graspsim
