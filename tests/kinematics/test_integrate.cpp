// Configuration arithmetic: ⊕ and ⊖ are inverse, rotations compose as exp(h ω) in the
// body frame, and local_rate is the derivative of the local coordinate.

#include <gtest/gtest.h>

#include <random>

#include "kinematics/integrate.h"
#include "random_model.h"

namespace graspsim {
namespace {

TEST(Integrate, DifferenceInvertsIntegrate) {
  for (std::uint64_t seed = 1; seed <= 5; ++seed) {
    auto m = test::random_tree(seed, 10);
    std::mt19937_64 rng(seed);
    const VecX q0 = test::random_q(*m, rng), v = test::random_v(*m, rng);
    VecX q1 = q0;
    integrate_q(*m, q1, v, 0.7);
    EXPECT_LT((difference_q(*m, q0, q1) - 0.7 * v).norm(), 1e-12);
  }
}

// A ball joint turning at constant body rate ω for time h ends at q0 · exp(h ω).
TEST(Integrate, BallRotatesInBodyFrame) {
  ModelBuilder mb;
  mb.add_body(test::make_body("b", "world", JointType::Ball, 1.0, Mat3::Identity()));
  auto m = mb.build();
  const Quat r0(Eigen::AngleAxisd(0.5, Vec3::UnitX()));
  VecX q(4), v(3);
  q << r0.w(), r0.x(), r0.y(), r0.z();
  v << 0, 0, 2.0;
  integrate_q(*m, q, v, 0.25);
  const Quat expected = r0 * Quat(Eigen::AngleAxisd(0.5, Vec3::UnitZ()));
  EXPECT_LT(Quat(q[0], q[1], q[2], q[3]).angularDistance(expected), 1e-14);
  EXPECT_NEAR(q.norm(), 1.0, 1e-15);
}

// The free joint's translation adds in the world frame, independent of the orientation.
TEST(Integrate, FreeTranslatesInWorldFrame) {
  ModelBuilder mb;
  mb.add_body(test::make_body("b", "world", JointType::Free, 1.0, Mat3::Identity()));
  auto m = mb.build();
  const Quat r0(Eigen::AngleAxisd(1.0, Vec3::UnitZ()));
  VecX q(7), v(6);
  q << 1, 2, 3, r0.w(), r0.x(), r0.y(), r0.z();
  v << 1, 0, 0, 0, 0, 0;
  integrate_q(*m, q, v, 0.5);
  EXPECT_LT((q.head<3>() - Vec3(1.5, 2, 3)).norm(), 1e-15);
}

TEST(Integrate, NormalizeQuaternions) {
  auto m = test::random_tree(3, 8);
  std::mt19937_64 rng(3);
  VecX q = test::random_q(*m, rng);
  const VecX q_unit = q;
  q *= 1.3;
  normalize_q(*m, q);
  for (const Joint& j : m->joints) {
    if (j.type == JointType::Free || j.type == JointType::Ball) {
      EXPECT_LT((q.segment<4>(j.qadr + j.nq - 4) - q_unit.segment<4>(j.qadr + j.nq - 4)).norm(), 1e-15);
    } else if (j.nq == 1) {
      EXPECT_DOUBLE_EQ(q[j.qadr], 1.3 * q_unit[j.qadr]);
    }
  }
}

// d/dt (q0 ⊕ u(t)) must be the velocity v: (q0 ⊕ (u + ε u̇)) ⊖ ((q0 ⊕ u) ⊕ ε v) = O(ε²).
TEST(Integrate, LocalRateIsDerivativeOfLocalCoordinate) {
  for (std::uint64_t seed = 1; seed <= 5; ++seed) {
    auto m = test::random_tree(seed, 10);
    std::mt19937_64 rng(seed + 3);
    const VecX q0 = test::random_q(*m, rng), u = 1.5 * test::random_v(*m, rng), v = test::random_v(*m, rng);
    VecX udot;
    local_rate(*m, u, v, udot);
    constexpr double eps = 1e-6;
    VecX a = q0, b = q0;
    integrate_q(*m, a, u + eps * udot, 1.0);
    integrate_q(*m, b, u, 1.0);
    integrate_q(*m, b, v, eps);
    // Both are ε·O(1) away from q0 ⊕ u; a wrong rate shows as O(ε), the truncation as O(ε²).
    EXPECT_LT(difference_q(*m, b, a).norm(), 1e-10) << "seed " << seed;
  }
}

}  // namespace
}  // namespace graspsim
