// The no-fill-in factor of a tree's inertia (LᵀDL) against Eigen's dense Cholesky on random trees.

#include <gtest/gtest.h>

#include <Eigen/Cholesky>
#include <random>
#include <vector>

#include "solvers/tree_ldl.h"

namespace graspsim {
namespace {

// A random tree of n dofs (parents first) and an SPD matrix with its pattern: M = Lᵀ L for a
// random L that is nonzero only at (dof, ancestor), diagonal in [1, 2], the rest in [−½, ½].
struct RandomTree {
  std::vector<int> parent;
  MatX M;
};

RandomTree random_tree(std::mt19937_64& rng, int n) {
  RandomTree t;
  std::uniform_real_distribution<double> off(-0.5, 0.5), diag(1.0, 2.0);
  for (int i = 0; i < n; ++i) t.parent.push_back(std::uniform_int_distribution<int>(-1, i - 1)(rng));
  MatX L = MatX::Zero(n, n);
  for (int i = 0; i < n; ++i) {
    L(i, i) = diag(rng);
    for (int j = t.parent[i]; j >= 0; j = t.parent[j]) L(i, j) = off(rng);
  }
  t.M = L.transpose() * L;
  return t;
}

TEST(TreeLdl, SolvesAsADenseCholeskyOnRandomTrees) {
  std::mt19937_64 rng(17);
  for (int n : {1, 2, 6, 24, 40}) {
    for (int trial = 0; trial < 20; ++trial) {
      const RandomTree t = random_tree(rng, n);
      // Off the pattern M is exactly zero: the pattern the factor relies on.
      for (int i = 0; i < n; ++i)
        for (int j = 0; j < i; ++j) {
          bool related = false;
          for (int a = t.parent[i]; a >= 0; a = t.parent[a]) related = related || a == j;
          if (!related) {
            ASSERT_EQ(t.M(i, j), 0.0);
          }
        }
      TreeLdl f;
      ASSERT_TRUE(f.compute(t.M, t.parent));
      EXPECT_EQ(f.size(), n);
      const Eigen::LLT<MatX> dense(t.M);
      std::normal_distribution<double> g;
      VecX x(n);
      for (int i = 0; i < n; ++i) x[i] = g(rng);
      VecX y = x;
      f.solve_in_place(y);
      const VecX y_dense = dense.solve(x);
      // Both are backward stable: the residual is round-off of ‖M‖‖y‖ (n ≤ 40 terms of 1e-16),
      // and the two answers agree within the condition number (≤ ~1e3 here) times that.
      EXPECT_LE((t.M * y - x).norm(), 1e-13 * t.M.norm() * y.norm()) << "n " << n;
      EXPECT_LE((y - y_dense).norm(), 1e-11 * y_dense.norm()) << "n " << n;
      // A unit right-hand side (a joint's own row) skips the zeros of the first pass.
      for (int k = 0; k < n; k += 5) {
        VecX e = VecX::Zero(n);
        e[k] = 1.0;
        f.solve_in_place(e);
        EXPECT_LE((e - dense.solve(VecX::Unit(n, k))).norm(), 1e-11 * e.norm()) << "n " << n << " column " << k;
      }
    }
  }
}

// The passes that make the mass diagonal (SPOOK's coordinates y = L v): xᵀ M x = (L x)ᵀ D (L x)
// for every x (so M = Lᵀ D L), L⁻¹ undoes L, (L⁻ᵀ a)·(L x) = a·x, and L⁻ᵀ of a joint's own
// row stays on that joint and its ancestors.
TEST(TreeLdl, MakesTheMassDiagonalInLCoordinates) {
  std::mt19937_64 rng(29);
  std::normal_distribution<double> g;
  for (int n : {1, 3, 24, 40}) {
    for (int trial = 0; trial < 20; ++trial) {
      const RandomTree t = random_tree(rng, n);
      TreeLdl f;
      ASSERT_TRUE(f.compute(t.M, t.parent));
      VecX x(n), a(n);
      for (int i = 0; i < n; ++i) x[i] = g(rng), a[i] = g(rng);
      VecX y = x;
      f.multiply_L_in_place(y);
      double yDy = 0.0;
      for (int i = 0; i < n; ++i) yDy += y[i] * f.d(i) * y[i];
      const double xMx = x.dot(t.M * x);
      EXPECT_NEAR(yDy, xMx, 1e-12 * t.M.norm() * x.squaredNorm()) << "n " << n;
      VecX back = y;
      f.solve_L_in_place(back);
      EXPECT_LE((back - x).norm(), 1e-12 * x.norm()) << "n " << n;
      VecX at = a;
      f.solve_Lt_in_place(at);
      EXPECT_NEAR(at.dot(y), a.dot(x), 1e-11 * a.norm() * x.norm()) << "n " << n;
      const int k = std::uniform_int_distribution<int>(0, n - 1)(rng);
      VecX e = VecX::Unit(n, k);
      f.solve_Lt_in_place(e);
      for (int i = 0; i < n; ++i) {
        bool on_path = i == k;
        for (int j = t.parent[k]; j >= 0; j = t.parent[j]) on_path = on_path || j == i;
        if (!on_path) EXPECT_EQ(e[i], 0.0) << "n " << n << " dof " << i << " off the path of " << k;
      }
    }
  }
}

TEST(TreeLdl, RefusesAMatrixThatIsNotPositiveDefinite) {
  std::mt19937_64 rng(3);
  RandomTree t = random_tree(rng, 8);
  TreeLdl f;
  ASSERT_TRUE(f.compute(t.M, t.parent));
  t.M(5, 5) = -1.0;
  EXPECT_FALSE(f.compute(t.M, t.parent));
  EXPECT_EQ(f.size(), 0);  // no factor is kept
  f.reset();
  EXPECT_EQ(f.size(), 0);
}

}  // namespace
}  // namespace graspsim
