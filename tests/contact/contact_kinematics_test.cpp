// Contact kinematics: point and angular chains against finite differences, contact rows
// at each body's own witness point, contact wrenches as generalized forces, contact frames.

#include <gtest/gtest.h>

#include <random>

#include "contact/contact_kinematics.h"
#include "kinematics/integrate.h"
#include "kinematics/kinematics.h"
#include "../kinematics/random_model.h"

namespace graspsim {
namespace {

// Dense 3 × nv linear Jacobian of the point p_W of body b, and its angular Jacobian.
void jacobians(const KinematicsData& kin, int b, const Vec3& p_W, MatX& Jp, MatX& Jw) {
  PointChain c;
  point_chain(kin, b, p_W, c);
  dense_jacobian(c, Jp);
  angular_chain(kin, b, c);
  dense_jacobian(c, Jw);
}

// Central differences along each generalized velocity direction e_i (q ⊕ ±ε e_i) have
// truncation error O(ε²) ≈ 1e-10 and round-off ≈ 1e-16/ε ≈ 1e-10 for ε = 1e-6 at unit
// scales, so 1e-6 leaves a wide margin while any wrong column (errors of O(1)) fails.
TEST(Jacobians, MatchFiniteDifferencesOnRandomTrees) {
  constexpr double eps = 1e-6, tol = 1e-6;
  for (std::uint64_t seed = 1; seed <= 8; ++seed) {
    auto m = test::random_tree(seed, 9);
    std::mt19937_64 rng(100 + seed);
    const VecX q = test::random_q(*m, rng);
    KinematicsData kin, kp, km;
    forward_kinematics(*m, q, kin);
    MatX Jp(3, m->nv), Jw(3, m->nv);
    for (int b = 1; b < m->nbody(); ++b) {
      const Vec3 local = test::random_vec(rng, 0.5);  // a material point of body b
      const Vec3 p_W = kin.X_WB[b] * local;
      jacobians(kin, b, p_W, Jp, Jw);
      for (int i = 0; i < m->nv; ++i) {
        VecX e = VecX::Zero(m->nv);
        e[i] = 1.0;
        VecX qp = q, qm = q;
        integrate_q(*m, qp, e, eps);
        integrate_q(*m, qm, e, -eps);
        forward_kinematics(*m, qp, kp);
        forward_kinematics(*m, qm, km);
        const Vec3 dp = (kp.X_WB[b] * local - km.X_WB[b] * local) / (2 * eps);
        const Vec3 dw = quat_log(kp.X_WB[b].q * km.X_WB[b].q.conjugate()) / (2 * eps);
        EXPECT_LT((Jp.col(i) - dp).norm(), tol) << "seed " << seed << " body " << b << " dof " << i;
        EXPECT_LT((Jw.col(i) - dw).norm(), tol) << "seed " << seed << " body " << b << " dof " << i;
      }
    }
  }
}

// body_velocity is J v for the body origin and its angular velocity.
TEST(Jacobians, BodyVelocityIsJacobianTimesV) {
  auto m = test::random_tree(42, 10);
  std::mt19937_64 rng(7);
  const VecX q = test::random_q(*m, rng), v = test::random_v(*m, rng);
  KinematicsData kin;
  forward_kinematics(*m, q, kin);
  MatX Jp(3, m->nv), Jw(3, m->nv);
  for (int b = 1; b < m->nbody(); ++b) {
    Vec3 w, vo;
    body_velocity(*m, kin, v, b, w, vo);
    jacobians(kin, b, kin.X_WB[b].p, Jp, Jw);
    EXPECT_LT((Jp * v - vo).norm(), 1e-12);
    EXPECT_LT((Jw * v - w).norm(), 1e-12);
  }
}


// A contact row between two bodies at their own witness points is u·(J_B(p_b) − J_A(p_a)),
// whether built from chains or directly; and its J·v is the relative point velocity.
TEST(ContactRows, RelativeRowsAtWitnessPointsMatchDenseJacobians) {
  for (std::uint64_t seed = 1; seed <= 6; ++seed) {
    auto m = test::random_tree(seed, 8);
    std::mt19937_64 rng(300 + seed);
    const VecX q = test::random_q(*m, rng), v = test::random_v(*m, rng);
    KinematicsData kin;
    forward_kinematics(*m, q, kin);
    MatX Ja(3, m->nv), Jb(3, m->nv), Wa(3, m->nv), Wb(3, m->nv);
    for (int a = 0; a < m->nbody(); ++a)
      for (int b = 1; b < m->nbody(); ++b) {
        if (a == b) continue;
        const Vec3 pa = test::random_vec(rng, 1.0), pb = test::random_vec(rng, 1.0);
        const Vec3 u = test::random_vec(rng, 1.0).normalized();
        Ja.setZero();
        Wa.setZero();
        if (a > 0) jacobians(kin, a, pa, Ja, Wa);
        jacobians(kin, b, pb, Jb, Wb);
        for (bool angular : {false, true}) {
          const VecX expected = angular ? VecX((u.transpose() * (Wb - Wa)).transpose())
                                        : VecX((u.transpose() * (Jb - Ja)).transpose());
          RowEntries e;
          const double jv = relative_row_at(kin, a, pa, b, pb, u, v, angular, e);
          VecX row = VecX::Zero(m->nv);
          for (const auto& [d, x] : e) row[d] += x;
          EXPECT_LT((row - expected).norm(), 1e-12) << "seed " << seed << " a " << a << " b " << b;
          EXPECT_NEAR(jv, expected.dot(v), 1e-12);
          PointChain ca, cb;
          if (angular) {
            angular_chain(kin, a, ca);
            angular_chain(kin, b, cb);
          } else {
            point_chain(kin, a, pa, ca);
            point_chain(kin, b, pb, cb);
          }
          VecX row2 = VecX::Zero(m->nv);
          relative_row(ca, cb, u, [&](int d, double x) { row2[d] += x; });
          EXPECT_LT((row2 - expected).norm(), 1e-12);
          EXPECT_NEAR(u.dot(chain_velocity(cb, v) - chain_velocity(ca, v)), expected.dot(v), 1e-12);
        }
      }
  }
}

// The generalized force of a contact wrench is Jᵀ f: its power equals f·(relative velocity)
// plus τ·(relative angular velocity) for any v (virtual work).
TEST(ContactRows, WrenchMapsToGeneralizedForcesByVirtualWork) {
  auto m = test::random_tree(11, 9);
  std::mt19937_64 rng(5);
  const VecX q = test::random_q(*m, rng), v = test::random_v(*m, rng);
  KinematicsData kin;
  forward_kinematics(*m, q, kin);
  PointChain scratch, ca, cb, wa, wb;
  for (int a = 0; a < m->nbody(); ++a)
    for (int b = 1; b < m->nbody(); ++b) {
      if (a == b) continue;
      const Vec3 pa = test::random_vec(rng, 1.0), pb = test::random_vec(rng, 1.0);
      const Vec3 f = test::random_vec(rng, 10.0), tq = test::random_vec(rng, 1.0);
      VecX tau = VecX::Zero(m->nv);
      add_contact_wrench(kin, a, pa, b, pb, f, tq, tau, scratch);
      point_chain(kin, a, pa, ca);
      point_chain(kin, b, pb, cb);
      angular_chain(kin, a, wa);
      angular_chain(kin, b, wb);
      const double power = f.dot(chain_velocity(cb, v) - chain_velocity(ca, v)) +
                           tq.dot(chain_velocity(wb, v) - chain_velocity(wa, v));
      EXPECT_NEAR(tau.dot(v), power, 1e-10 * (1.0 + std::abs(power)));
    }
}

TEST(ContactRows, ContactFrameIsOrthonormalRightHanded) {
  std::mt19937_64 rng(9);
  for (int i = 0; i < 200; ++i) {
    Vec3 n = test::random_vec(rng, 1.0);
    if (i == 0) n = Vec3::UnitX();
    if (i == 1) n = -Vec3::UnitZ();
    n.normalize();
    const ContactFrame f = contact_frame(n);
    EXPECT_NEAR(f.t1.norm(), 1.0, 1e-14);
    EXPECT_NEAR(f.t2.norm(), 1.0, 1e-14);
    EXPECT_NEAR(f.t1.dot(n), 0.0, 1e-14);
    EXPECT_NEAR(f.t1.dot(f.t2), 0.0, 1e-14);
    EXPECT_NEAR(f.t1.cross(f.t2).dot(n), 1.0, 1e-14);
  }
}

}  // namespace
}  // namespace graspsim
