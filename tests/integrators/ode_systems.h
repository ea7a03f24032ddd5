#pragma once
// Systems with known behaviour for the integrator tests: exponential decay, the harmonic
// oscillator, a mass dropping onto a stiff Kelvin-Voigt ground, a torque-free rigid body.

#include <Eigen/Cholesky>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <memory>

#include "../common/test_bodies.h"
#include "dynamics/dynamics.h"
#include "integrators/integrators.h"
#include "kinematics/kinematics.h"
#include "model/builder.h"

namespace graspsim::test {

inline OdeState ode_state(double t, const VecX& q, const VecX& v, const VecX& z = VecX()) {
  OdeState x;
  x.t = t;
  x.q = q;
  x.v = v;
  x.z = z;
  return x;
}

inline VecX vec(std::initializer_list<double> values) {
  VecX x(static_cast<Eigen::Index>(values.size()));
  Eigen::Index i = 0;
  for (double a : values) x[i++] = a;
  return x;
}

// ż = −λ z in the extra states (nq = nv = 0): z(t) = z0 e^(−λt).
struct Decay {
  double lambda = 1.0;
  void operator()(double, const VecX&, const VecX&, const VecX& z, VecX&, VecX& zdot) const { zdot = -lambda * z; }
  double exact(double z0, double t) const { return z0 * std::exp(-lambda * t); }
};

// q̈ = −ω² q: q(t) = q0 cos ωt + (v0/ω) sin ωt. Counts its evaluations.
struct Oscillator {
  double omega = 1.0;
  std::int64_t calls = 0;
  void operator()(double, const VecX& q, const VecX&, const VecX&, VecX& vdot, VecX&) {
    ++calls;
    vdot[0] = -omega * omega * q[0];
  }
  double q(double q0, double v0, double t) const { return q0 * std::cos(omega * t) + v0 / omega * std::sin(omega * t); }
  double v(double q0, double v0, double t) const { return v0 * std::cos(omega * t) - q0 * omega * std::sin(omega * t); }
};

// A 1 kg point mass under gravity over a Kelvin-Voigt ground at q = 0: for q < 0 the
// ground pushes with max(0, −k q − c q̇) (it never pulls; the force jumps to c |q̇| at
// touchdown, a discontinuity the step control must absorb by rejections).
struct BouncingMass {
  double k = 1e5;   // N/m
  double c = 0.0;   // N·s/m
  double g = 9.81;  // m/s²
  void operator()(double, const VecX& q, const VecX& v, const VecX&, VecX& vdot, VecX&) const {
    const double ground = q[0] < 0.0 ? std::max(0.0, -k * q[0] - c * v[0]) : 0.0;
    vdot[0] = ground - g;
  }
};

// Stiffness k and damping ratio zeta (for the unit mass): c = 2 zeta sqrt(k).
inline BouncingMass kelvin_voigt_ground(double k, double zeta) {
  BouncingMass b;
  b.k = k;
  b.c = 2.0 * zeta * std::sqrt(k);
  return b;
}

// One body on a free joint, no gravity, origin at its centre of mass: it tumbles torque-free.
inline std::shared_ptr<const Model> tumbling_body(const Vec3& principal_inertia, const Quat& orientation) {
  ModelBuilder mb;
  BodyDef b = make_body("body", "world", JointType::Free, 2.0, principal_inertia.asDiagonal().toDenseMatrix());
  b.pose.q = orientation;
  b.pose.p = Vec3(0.1, -0.2, 0.3);
  mb.add_body(b);
  mb.options().gravity = Vec3::Zero();
  return mb.build();
}

// v̇ = M(q)⁻¹ (−c(q, v)); scratch kept between calls, so a steady call allocates nothing.
struct RigidBodyDynamics {
  const Model* model;
  KinematicsData kin;
  MatX M;
  VecX bias;
  Eigen::LLT<MatX> llt;
  explicit RigidBodyDynamics(const Model& m) : model(&m), M(m.nv, m.nv), bias(m.nv), llt(m.nv) {}
  void operator()(double, const VecX& q, const VecX& v, const VecX&, VecX& vdot, VecX& zdot) {
    zdot.setZero();  // any extra states stay put
    forward_kinematics(*model, q, kin);
    mass_matrix(*model, kin, M);
    bias_forces(*model, kin, v, bias);
    llt.compute(M);
    vdot = -bias;
    llt.solveInPlace(vdot);
  }
};

}  // namespace graspsim::test
