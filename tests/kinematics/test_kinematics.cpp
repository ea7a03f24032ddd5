// Forward kinematics and Jacobians: closed-form poses of a planar arm, and every Jacobian
// against central finite differences of forward_kinematics on seeded random trees.

#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "kinematics/integrate.h"
#include "kinematics/kinematics.h"
#include "model/builder.h"
#include "random_model.h"

namespace graspsim {
namespace {

// Two revolute links about z, lengths 1 and 0.5: the tip is at the textbook position.
TEST(ForwardKinematics, PlanarArmMatchesClosedForm) {
  ModelBuilder mb;
  BodyDef b = test::make_body("b", "a", JointType::Revolute, 1.0, Mat3::Identity());
  b.pose.p = Vec3(1, 0, 0);
  mb.add_body(test::make_body("a", "world", JointType::Revolute, 1.0, Mat3::Identity()));
  mb.add_body(b);
  GeomDef tip_geom;
  tip_geom.name = "tip";
  tip_geom.body = "b";
  tip_geom.size = Vec3(0.1, 0, 0);
  tip_geom.pose.p = Vec3(0.5, 0, 0);
  mb.add_geom(tip_geom);
  auto m = mb.build();
  VecX q(2);
  q << 0.3, -1.1;
  KinematicsData kin;
  forward_kinematics(*m, q, kin);
  const Vec3 tip = geom_pose(*m, kin, 0).p;
  EXPECT_NEAR(tip.x(), std::cos(0.3) + 0.5 * std::cos(0.3 - 1.1), 1e-14);
  EXPECT_NEAR(tip.y(), std::sin(0.3) + 0.5 * std::sin(0.3 - 1.1), 1e-14);
  EXPECT_NEAR(tip.z(), 0.0, 1e-14);
  EXPECT_NEAR(quat_log(kin.X_WB[2].q).z(), 0.3 - 1.1, 1e-14);
}

// A free body's pose is its q; a prismatic child slides along its axis in the body frame.
TEST(ForwardKinematics, FreeAndPrismatic) {
  ModelBuilder mb;
  mb.add_body(test::make_body("f", "world", JointType::Free, 1.0, Mat3::Identity()));
  BodyDef s = test::make_body("s", "f", JointType::Prismatic, 1.0, Mat3::Identity(), Vec3(0, 0, 0.2));
  s.joint.axis = Vec3::UnitX();
  mb.add_body(s);
  auto m = mb.build();
  const Quat r(Eigen::AngleAxisd(0.7, Vec3(1, 2, 3).normalized()));
  VecX q(8);
  q << 1, 2, 3, r.w(), r.x(), r.y(), r.z(), 0.25;
  KinematicsData kin;
  forward_kinematics(*m, q, kin);
  EXPECT_LT((kin.X_WB[1].p - Vec3(1, 2, 3)).norm(), 1e-14);
  EXPECT_LT(kin.X_WB[1].q.angularDistance(r), 1e-12);
  EXPECT_LT((kin.X_WB[2].p - (Vec3(1, 2, 3) + r * Vec3(0.25, 0, 0))).norm(), 1e-14);
  EXPECT_LT((kin.p_WCom[2] - (kin.X_WB[2].p + r * Vec3(0, 0, 0.2))).norm(), 1e-14);
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
      point_jacobian(*m, kin, b, p_W, Jp);
      angular_jacobian(*m, kin, b, Jw);
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
    point_jacobian(*m, kin, b, kin.X_WB[b].p, Jp);
    angular_jacobian(*m, kin, b, Jw);
    EXPECT_LT((Jp * v - vo).norm(), 1e-12);
    EXPECT_LT((Jw * v - w).norm(), 1e-12);
  }
}

// Free joint conventions: v[0:3] is the world velocity of the body origin, v[3:6] the
// angular velocity in the body frame.
TEST(Jacobians, FreeJointConventions) {
  ModelBuilder mb;
  mb.add_body(test::make_body("f", "world", JointType::Free, 1.0, Mat3::Identity(), Vec3(0.3, 0, 0)));
  auto m = mb.build();
  const Quat r(Eigen::AngleAxisd(1.0, Vec3::UnitZ()));
  VecX q(7), v(6);
  q << 1, 1, 0, r.w(), r.x(), r.y(), r.z();
  v << 0.1, 0.2, 0.3, 0, 0, 2.0;
  KinematicsData kin;
  forward_kinematics(*m, q, kin);
  Vec3 w, vo;
  body_velocity(*m, kin, v, 1, w, vo);
  EXPECT_LT((vo - Vec3(0.1, 0.2, 0.3)).norm(), 1e-14);
  EXPECT_LT((w - Vec3(0, 0, 2.0)).norm(), 1e-14);
  v << 0, 0, 0, 1.0, 0, 0;  // body x axis = world (cos 1, sin 1, 0)
  body_velocity(*m, kin, v, 1, w, vo);
  EXPECT_LT((w - Vec3(std::cos(1.0), std::sin(1.0), 0)).norm(), 1e-14);
  EXPECT_LT(vo.norm(), 1e-14);
}

}  // namespace
}  // namespace graspsim
