#include <gtest/gtest.h>

#include <random>

#include "dynamics/dynamics.h"
#include "kinematics/kinematics.h"
#include "model/builder.h"
#include "model/state.h"
#include "../kinematics/random_model.h"

namespace graspsim {
namespace {

// Two trees: a revolute-ball-prismatic chain and a free body with a revolute child. The
// blocks of each tree must equal the dense CRBA matrix's blocks, and M must be zero across.
TEST(MassMatrixBlock, EqualsTheDenseBlocksOfEachTree) {
  ModelBuilder b;
  auto add = [&](const std::string& name, const std::string& parent, JointType type, const Vec3& offset) {
    BodyDef d;
    d.name = name;
    d.parent = parent;
    d.joint.type = type;
    d.joint.axis = Vec3(0.3, -0.5, 0.8);
    d.joint.armature = 0.01;
    d.pose.p = offset;
    d.mass = 1.3;
    d.com = Vec3(0.05, 0.02, -0.1);
    d.inertia = Vec3(0.02, 0.03, 0.04).asDiagonal().toDenseMatrix();
    b.add_body(d);
  };
  add("a1", "world", JointType::Revolute, Vec3(0, 0, 1));
  add("a2", "a1", JointType::Ball, Vec3(0, 0.2, -0.3));
  add("a3", "a2", JointType::Prismatic, Vec3(0.1, 0, -0.2));
  add("f", "world", JointType::Free, Vec3(1, 0, 0.5));
  add("f1", "f", JointType::Revolute, Vec3(0.2, 0.1, 0));
  auto m = b.build();
  State s = make_state(*m);
  s.q.setRandom();  // any configuration; quaternions renormalised below
  for (const Joint& j : m->joints)
    if (j.type == JointType::Ball || j.type == JointType::Free) s.q.segment<4>(j.qadr + j.nq - 4).normalize();
  KinematicsData kin;
  forward_kinematics(*m, s.q, kin);
  MatX M, block;
  mass_matrix(*m, kin, M);
  const int split = m->joints[m->joint_id("f_joint")].vadr;  // first dof of the second tree
  mass_matrix_block(*m, kin, 0, split, block);
  EXPECT_LT((block - M.topLeftCorner(split, split)).norm(), 1e-14 * M.norm());
  mass_matrix_block(*m, kin, split, m->nv - split, block);
  EXPECT_LT((block - M.bottomRightCorner(m->nv - split, m->nv - split)).norm(), 1e-14 * M.norm());
  EXPECT_EQ(M.topRightCorner(split, m->nv - split).norm(), 0.0);
}

// A lone free body's block in closed form equals the CRBA block, for offset centres of
// mass, full inertias, armature and any orientation; with the centre of mass at the
// origin it does not depend on the orientation at all (bitwise).
TEST(MassMatrixBlock, FreeBodyClosedFormEqualsCrba) {
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (int k = 0; k < 50; ++k) {
    ModelBuilder b;
    BodyDef d;
    d.name = "f";
    d.parent = "world";
    d.joint.type = JointType::Free;
    d.joint.armature = k % 2 ? 0.01 : 0.0;
    d.mass = 0.5 + 0.5 * (u(rng) + 1.0);
    d.com = k % 5 == 0 ? Vec3::Zero() : Vec3(0.1 * u(rng), 0.1 * u(rng), 0.1 * u(rng));
    d.inertia = test::random_inertia(rng, *d.mass);
    b.add_body(d);
    auto m = b.build();
    State s = make_state(*m);
    s.q.head<3>() = Vec3(u(rng), u(rng), u(rng));
    s.q.segment<4>(3) = Eigen::Vector4d(u(rng), u(rng), u(rng), u(rng)).normalized();
    KinematicsData kin;
    forward_kinematics(*m, s.q, kin);
    MatX crba, closed;
    mass_matrix_block(*m, kin, 0, 6, crba);
    free_body_mass_matrix(*m, 1, kin.R_WB[1], closed);
    EXPECT_LT((closed - crba).norm(), 1e-13 * crba.norm()) << "case " << k;
    if (m->bodies[1].com.isZero()) {
      MatX at_identity;
      free_body_mass_matrix(*m, 1, Mat3::Identity(), at_identity);
      EXPECT_EQ(at_identity, closed);
    }
  }
}

}  // namespace
}  // namespace graspsim
