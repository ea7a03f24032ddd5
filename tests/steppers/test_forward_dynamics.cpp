// The stepper's accelerations (tree-sparse LᵀDL factorization, or the reduced dense solve
// when kinematic bodies prescribe some dofs) against a dense Cholesky solve of
// M q̈ = τ − c on seeded random branching trees.

#include <gtest/gtest.h>

#include <Eigen/Cholesky>
#include <random>

#include "../kinematics/random_model.h"
#include "dynamics/dynamics.h"
#include "kinematics/kinematics.h"
#include "steppers/dynamics_stepper.h"

namespace graspsim {
namespace {

// Dense reference: q̈ = M⁻¹ (τ_passive − c), the relative error of a 30-dof Cholesky
// solve with condition numbers below ~1e4 stays under 1e-11.
VecX reference_acceleration(const Model& m, const State& s) {
  KinematicsData kin;
  forward_kinematics(m, s.q, kin);
  MatX M;
  VecX c, tau;
  mass_matrix(m, kin, M);
  bias_forces(m, kin, s.v, c);
  passive_forces(m, s.q, s.v, tau);
  return M.llt().solve(tau - c);
}

TEST(ForwardDynamics, TreeFactorizationMatchesDenseCholesky) {
  for (std::uint64_t seed = 1; seed <= 8; ++seed) {
    auto m = test::random_tree(seed, 15);
    std::mt19937_64 rng(seed + 11);
    State s = make_state(*m);
    s.q = test::random_q(*m, rng);
    s.v = test::random_v(*m, rng);
    const VecX expected = reference_acceleration(*m, s);
    Workspace ws;
    step_dynamics(*m, s, ws);  // semi-implicit Euler: ws.qacc is q̈ at the initial state
    EXPECT_LT((ws.qacc - expected).norm(), 1e-10 * (1.0 + expected.norm())) << "seed " << seed;
  }
}

// A kinematic body holding still (zero velocity signals) in the middle of a chain: the
// other dofs move as if its joint were welded, i.e. as the dense solve restricted to them.
TEST(ForwardDynamics, PrescribedDofsAreEliminated) {
  ModelBuilder mb;
  std::mt19937_64 rng(5);
  const char* names[] = {"a", "b", "c"};
  for (int i = 0; i < 3; ++i) {
    BodyDef b = test::make_body(names[i], i == 0 ? "world" : names[i - 1], i == 1 ? JointType::Ball : JointType::Revolute,
                                1.0 + i, test::random_inertia(rng, 1.0 + i), test::random_vec(rng, 0.2));
    b.joint.axis = test::random_vec(rng, 1.0).normalized();
    b.pose.p = Vec3(0, 0, -0.3);
    b.kinematic = i == 1;
    mb.add_body(b);
  }
  auto m = mb.build();
  State s = make_state(*m);
  s.q = test::random_q(*m, rng);
  s.v << 0.3, 0, 0, 0, -0.7;  // the kinematic ball's dofs at their signals (0)
  KinematicsData kin;
  forward_kinematics(*m, s.q, kin);
  MatX M;
  VecX c;
  mass_matrix(*m, kin, M);
  bias_forces(*m, kin, s.v, c);
  const std::vector<int> f = {0, 4};
  Eigen::Matrix2d Mff;
  Eigen::Vector2d rhs;
  for (int r = 0; r < 2; ++r) {
    rhs[r] = -c[f[r]];
    for (int k = 0; k < 2; ++k) Mff(r, k) = M(f[r], f[k]);
  }
  const Eigen::Vector2d expected = Mff.llt().solve(rhs);
  Workspace ws;
  step_dynamics(*m, s, ws);
  EXPECT_NEAR(ws.qacc[0], expected[0], 1e-12);
  EXPECT_NEAR(ws.qacc[4], expected[1], 1e-12);
  EXPECT_EQ(ws.qacc.segment<3>(1).norm(), 0.0);
  EXPECT_EQ(s.v.segment<3>(1).norm(), 0.0);
}

}  // namespace
}  // namespace graspsim
