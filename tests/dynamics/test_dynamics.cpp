// Mass matrix, bias forces, inverse dynamics and energies, cross-checked on seeded random
// trees against independent computations (body kinetic energies, finite differences of the
// potential energy and of M, Lagrange's equations).

#include <gtest/gtest.h>

#include <Eigen/Cholesky>
#include <Eigen/Eigenvalues>
#include <random>

#include "dynamics/dynamics.h"
#include "kinematics/integrate.h"
#include "kinematics/kinematics.h"
#include "../kinematics/random_model.h"

namespace graspsim {
namespace {

constexpr int kTrees = 8;
constexpr int kBodies = 10;

// Σ ½ (m |v_com|² + ωᵀ I_W ω) from body_velocity and the model's body properties.
double body_kinetic_energy(const Model& m, const KinematicsData& kin, const VecX& v) {
  double T = 0.0;
  for (int b = 1; b < m.nbody(); ++b) {
    Vec3 w, vo;
    body_velocity(m, kin, v, b, w, vo);
    const Vec3 vc = vo + w.cross(kin.p_WCom[b] - kin.X_WB[b].p);
    const Mat3 R = kin.X_WB[b].R();
    T += 0.5 * m.bodies[b].mass * vc.squaredNorm() + 0.5 * w.dot(R * m.bodies[b].inertia * R.transpose() * w);
  }
  return T;
}

double armature_energy(const Model& m, const VecX& v) {
  double T = 0.0;
  for (const Joint& j : m.joints)
    for (int d = j.vadr; d < j.vadr + j.nv; ++d) T += 0.5 * j.armature * v[d] * v[d];
  return T;
}

TEST(MassMatrix, SymmetricPositiveDefiniteAndMatchesKineticEnergy) {
  for (std::uint64_t seed = 1; seed <= kTrees; ++seed) {
    auto m = test::random_tree(seed, kBodies);
    std::mt19937_64 rng(seed);
    const VecX q = test::random_q(*m, rng), v = test::random_v(*m, rng);
    KinematicsData kin;
    forward_kinematics(*m, q, kin);
    MatX M;
    mass_matrix(*m, kin, M);
    EXPECT_EQ((M - M.transpose()).norm(), 0.0);
    EXPECT_GT(Eigen::SelfAdjointEigenSolver<MatX>(M).eigenvalues().minCoeff(), 0.0) << "seed " << seed;
    // Independent sums over bodies; both sides are O(10) J, so 1e-12 is ~100 ulps.
    const double T = body_kinetic_energy(*m, kin, v) + armature_energy(*m, v);
    EXPECT_NEAR(0.5 * v.dot(M * v), T, 1e-12 * T) << "seed " << seed;
    EXPECT_NEAR(kinetic_energy(*m, kin, v) + armature_energy(*m, v), T, 1e-12 * T);
  }
}

TEST(InverseDynamics, EqualsMassMatrixTimesAccelerationPlusBias) {
  for (std::uint64_t seed = 1; seed <= kTrees; ++seed) {
    auto m = test::random_tree(seed, kBodies);
    std::mt19937_64 rng(seed + 50);
    const VecX q = test::random_q(*m, rng), v = test::random_v(*m, rng), qdd = test::random_v(*m, rng);
    KinematicsData kin;
    forward_kinematics(*m, q, kin);
    MatX M;
    VecX c;
    mass_matrix(*m, kin, M);
    bias_forces(*m, kin, v, c);
    const VecX tau = inverse_dynamics(*m, kin, v, qdd);
    EXPECT_LT((tau - (M * qdd + c)).norm(), 1e-10 * (1.0 + tau.norm())) << "seed " << seed;
  }
}

// With v = 0 the bias is the gravity force, the gradient of the potential energy along
// each velocity direction: c_i = d/dε U(q ⊕ ε e_i). Central differences, ε = 1e-6: error
// ~1e-10 relative to forces of O(10) N.
TEST(BiasForces, GravityIsGradientOfPotentialEnergy) {
  for (std::uint64_t seed = 1; seed <= kTrees; ++seed) {
    auto m = test::random_tree(seed, kBodies);
    std::mt19937_64 rng(seed + 99);
    const VecX q = test::random_q(*m, rng);
    KinematicsData kin;
    forward_kinematics(*m, q, kin);
    VecX c;
    bias_forces(*m, kin, VecX::Zero(m->nv), c);
    constexpr double eps = 1e-6;
    for (int i = 0; i < m->nv; ++i) {
      VecX e = VecX::Zero(m->nv);
      e[i] = 1.0;
      VecX qp = q, qm = q;
      integrate_q(*m, qp, e, eps);
      integrate_q(*m, qm, e, -eps);
      forward_kinematics(*m, qp, kin);
      const double Up = potential_energy(*m, kin, qp);
      forward_kinematics(*m, qm, kin);
      const double Um = potential_energy(*m, kin, qm);
      EXPECT_NEAR(c[i], (Up - Um) / (2 * eps), 1e-6) << "seed " << seed << " dof " << i;
    }
  }
}

// For coordinates whose velocities are their time derivatives (revolute, prismatic),
// Lagrange's equations give the velocity part of the bias independently of Newton-Euler:
// c(q, v) − c(q, 0) = Ṁ v − ½ ∂(vᵀ M v)/∂q, with Ṁ and ∂/∂q by central differences.
TEST(BiasForces, VelocityTermsMatchLagrangeOnHolonomicTrees) {
  for (std::uint64_t seed = 1; seed <= kTrees; ++seed) {
    auto m = test::random_tree(seed, kBodies, /*holonomic_only=*/true);
    std::mt19937_64 rng(seed + 7);
    const VecX q = test::random_q(*m, rng), v = test::random_v(*m, rng);
    KinematicsData kin;
    auto M_at = [&](const VecX& qq) {
      MatX M;
      forward_kinematics(*m, qq, kin);
      mass_matrix(*m, kin, M);
      return M;
    };
    constexpr double eps = 1e-6;
    const MatX Mdot = (M_at(q + eps * v) - M_at(q - eps * v)) / (2 * eps);
    VecX dT(m->nv);
    for (int i = 0; i < m->nv; ++i) {
      VecX qp = q, qm = q;
      qp[i] += eps;
      qm[i] -= eps;
      dT[i] = 0.5 * v.dot((M_at(qp) - M_at(qm)) * v) / (2 * eps);
    }
    forward_kinematics(*m, q, kin);
    VecX c, g;
    bias_forces(*m, kin, v, c);
    bias_forces(*m, kin, VecX::Zero(m->nv), g);
    EXPECT_LT((c - g - (Mdot * v - dT)).norm(), 1e-6) << "seed " << seed;
  }
}

TEST(PassiveForces, DampingAndSprings) {
  ModelBuilder mb;
  BodyDef a = test::make_body("a", "world", JointType::Revolute, 1.0, Mat3::Identity());
  a.joint.damping = 2.0;
  a.joint.stiffness = 5.0;
  a.joint.spring_ref = 0.1;
  BodyDef b = test::make_body("b", "a", JointType::Ball, 1.0, Mat3::Identity());
  b.joint.damping = 3.0;
  b.joint.stiffness = 7.0;  // springs act on revolute and prismatic joints only
  mb.add_body(a);
  mb.add_body(b);
  auto m = mb.build();
  VecX q(5), v(4), tau;
  q << 0.5, 1, 0, 0, 0;
  v << 1.5, 1, 2, 3;
  passive_forces(*m, q, v, tau);
  VecX expected(4);
  expected << -2.0 * 1.5 - 5.0 * (0.5 - 0.1), -3, -6, -9;
  EXPECT_LT((tau - expected).norm(), 1e-15);
}

// A point-like mass hanging at distance L below a revolute pivot: U = −m g L cos θ.
TEST(Energy, PendulumPotentialAndKinetic) {
  ModelBuilder mb;
  BodyDef p = test::make_body("p", "world", JointType::Revolute, 2.0, 1e-3 * Mat3::Identity(), Vec3(0, 0, -0.5));
  p.joint.axis = Vec3::UnitY();
  mb.add_body(p);
  auto m = mb.build();
  VecX q(1), v(1);
  q << 0.4;
  v << 3.0;
  KinematicsData kin;
  forward_kinematics(*m, q, kin);
  EXPECT_NEAR(potential_energy(*m, kin, q), -2.0 * 9.81 * 0.5 * std::cos(0.4), 1e-13);
  EXPECT_NEAR(kinetic_energy(*m, kin, v), 0.5 * (2.0 * 0.25 + 1e-3) * 9.0, 1e-13);
}

}  // namespace
}  // namespace graspsim
