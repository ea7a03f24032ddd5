// The dense active-set QP against closed-form optima: projections, a semidefinite Hessian
// (flat directions), an equality, and a vertex where many rows meet (degeneracy).
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "solvers/active_set_qp.h"

namespace graspsim {
namespace {

BoxedRowsQp rows_qp(const VecX& h, const VecX& c, const MatX& A, const VecX& lo, const VecX& hi) {
  BoxedRowsQp q;
  q.h = h;
  q.c = c;
  q.A = A;
  q.lo = lo;
  q.hi = hi;
  return q;
}

TEST(ActiveSetQp, ProjectionOntoABoxClamps) {
  // min ½‖x − a‖², 0 ≤ x ≤ 1: x = clamp(a).
  const Eigen::Vector3d a(-0.5, 0.3, 2.0);
  const BoxedRowsQp q = rows_qp(VecX::Ones(3), -a, MatX::Identity(3, 3), VecX::Zero(3), VecX::Ones(3));
  const ActiveSetResult r = solve_active_set_qp(q, VecX::Constant(3, 0.5));
  ASSERT_EQ(r.status, ActiveSetResult::Status::Optimal);
  EXPECT_NEAR(r.x[0], 0.0, 1e-9);
  EXPECT_NEAR(r.x[1], 0.3, 1e-12);
  EXPECT_NEAR(r.x[2], 1.0, 1e-9);
}

TEST(ActiveSetQp, EqualityConstrainedMinimumNorm) {
  // min ‖x‖² subject to x0 + x1 + x2 = 3: x = (1, 1, 1).
  MatX A(1, 3);
  A << 1, 1, 1;
  const BoxedRowsQp q = rows_qp(VecX::Constant(3, 2.0), VecX::Zero(3), A, VecX::Constant(1, 3.0), VecX::Constant(1, 3.0));
  const ActiveSetResult r = solve_active_set_qp(q, Eigen::Vector3d(3, 0, 0));
  ASSERT_EQ(r.status, ActiveSetResult::Status::Optimal);
  EXPECT_NEAR((r.x - Eigen::Vector3d(1, 1, 1)).norm(), 0.0, 1e-12);
}

TEST(ActiveSetQp, SemidefiniteHessianMovesAlongFlatDirections) {
  // min (x0 − 2)² with x1 uncurved: x0 + x1 ≤ 1, x1 ≥ 0. x1 must give way (a flat direction)
  // for x0 to reach its bound: x = (1, 0), value (1 − 2)² − 4 = −3 in ½xᵀHx + cᵀx.
  MatX A(2, 2);
  A << 1, 1, 0, 1;
  const BoxedRowsQp q = rows_qp(Eigen::Vector2d(2, 0), Eigen::Vector2d(-4, 0), A, Eigen::Vector2d(-kInf, 0),
                                Eigen::Vector2d(1, kInf));
  const ActiveSetResult r = solve_active_set_qp(q, Eigen::Vector2d(0, 0.5));
  ASSERT_EQ(r.status, ActiveSetResult::Status::Optimal);
  EXPECT_NEAR(r.x[0], 1.0, 1e-9);
  EXPECT_NEAR(r.x[1], 0.0, 1e-9);
}

TEST(ActiveSetQp, DegenerateVertexWhereManyRowsMeet) {
  // min ‖x − (2, 2)‖² below 40 lines through (1, 1) with normals in the positive quadrant:
  // the optimum is the vertex (1, 1), where every row is active.
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> angle(0.05, 1.5);
  const int m = 40;
  MatX A(m, 2);
  VecX hi(m);
  for (int i = 0; i < m; ++i) {
    const double t = angle(rng);
    A.row(i) << std::cos(t), std::sin(t);
    hi[i] = A.row(i).sum();
  }
  const BoxedRowsQp q = rows_qp(VecX::Constant(2, 2.0), VecX::Constant(2, -4.0), A, VecX::Constant(m, -kInf), hi);
  const ActiveSetResult r = solve_active_set_qp(q, Eigen::Vector2d(0, 0));
  ASSERT_EQ(r.status, ActiveSetResult::Status::Optimal);
  EXPECT_NEAR((r.x - Eigen::Vector2d(1, 1)).norm(), 0.0, 1e-8);  // rows relaxed by ≤ 2e-10
}

TEST(ActiveSetQp, ReportsAnUnboundedRay) {
  // min −x0 with x0 ≥ 0 only: no optimum.
  MatX A(1, 1);
  A << 1;
  const BoxedRowsQp q = rows_qp(VecX::Zero(1), VecX::Constant(1, -1.0), A, VecX::Zero(1), VecX::Constant(1, kInf));
  EXPECT_EQ(solve_active_set_qp(q, VecX::Constant(1, 1.0)).status, ActiveSetResult::Status::Unbounded);
}

}  // namespace
}  // namespace graspsim
