#include "solvers/tree_cholesky.h"

#include <cmath>

namespace graspsim {

bool TreeCholesky::compute(const Eigen::Ref<const MatX>& M, std::span<const int> parent) {
  const int n = static_cast<int>(M.rows());
  parent_.clear();
  L_.resize(n, n);
  for (int i = 0; i < n; ++i)
    for (int j = i; j >= 0; j = parent[static_cast<size_t>(j)]) L_(i, j) = M(i, j);
  // RBDA Algorithm 6.2 (LTL): eliminate the leaves first, so a dof's update reaches only
  // its ancestors, which are its ancestors' ancestors too.
  for (int k = n - 1; k >= 0; --k) {
    if (!(L_(k, k) > 0.0)) return false;
    const double d = std::sqrt(L_(k, k));
    L_(k, k) = d;
    for (int i = parent[static_cast<size_t>(k)]; i >= 0; i = parent[static_cast<size_t>(i)]) L_(k, i) /= d;
    for (int i = parent[static_cast<size_t>(k)]; i >= 0; i = parent[static_cast<size_t>(i)]) {
      const double lki = L_(k, i);
      for (int j = i; j >= 0; j = parent[static_cast<size_t>(j)]) L_(i, j) -= lki * L_(k, j);
    }
  }
  parent_.assign(parent.begin(), parent.end());
  return true;
}

void TreeCholesky::solve_in_place(Eigen::Ref<VecX> x) const {
  const int n = size();
  // Lᵀ z = x, from the leaves up: z_k is final once every descendant of k has given its part.
  for (int k = n - 1; k >= 0; --k) {
    if (x[k] == 0.0) continue;
    x[k] /= L_(k, k);
    const double z = x[k];
    for (int i = parent_[static_cast<size_t>(k)]; i >= 0; i = parent_[static_cast<size_t>(i)]) x[i] -= L_(k, i) * z;
  }
  // L y = z, from the root down.
  for (int k = 0; k < n; ++k) {
    double y = x[k];
    for (int i = parent_[static_cast<size_t>(k)]; i >= 0; i = parent_[static_cast<size_t>(i)]) y -= L_(k, i) * x[i];
    x[k] = y / L_(k, k);
  }
}

}  // namespace graspsim
