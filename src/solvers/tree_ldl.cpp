#include "solvers/tree_ldl.h"

namespace graspsim {

bool TreeLdl::compute(const Eigen::Ref<const MatX>& M, std::span<const int> parent) {
  const int n = static_cast<int>(M.rows());
  parent_.clear();
  H_.resize(n, n);
  auto up = [&](int i) { return parent[static_cast<size_t>(i)]; };
  for (int i = 0; i < n; ++i)
    for (int j = i; j >= 0; j = up(j)) H_(i, j) = M(i, j);
  // Eliminate the leaves first: a dof's update reaches only its ancestors, whose own
  // ancestors are among them, so nothing outside the pattern fills in.
  for (int k = n - 1; k >= 0; --k) {
    if (!(H_(k, k) > 0.0)) return false;
    for (int i = up(k); i >= 0; i = up(i)) {
      const double a = H_(k, i) / H_(k, k);
      for (int j = i; j >= 0; j = up(j)) H_(i, j) -= a * H_(k, j);
      H_(k, i) = a;
    }
  }
  parent_.assign(parent.begin(), parent.end());
  return true;
}

void TreeLdl::solve_Lt_in_place(Eigen::Ref<VecX> x) const {
  // From the leaves up; x_k is final once every descendant of k has given its part.
  for (int k = size() - 1; k >= 0; --k) {
    if (x[k] == 0.0) continue;
    for (int i = parent(k); i >= 0; i = parent(i)) x[i] -= H_(k, i) * x[k];
  }
}

void TreeLdl::solve_L_in_place(Eigen::Ref<VecX> x) const {
  for (int k = 0; k < size(); ++k)
    for (int i = parent(k); i >= 0; i = parent(i)) x[k] -= H_(k, i) * x[i];
}

void TreeLdl::multiply_L_in_place(Eigen::Ref<VecX> x) const {
  // From the leaves up: x_k reads only its ancestors, not yet overwritten.
  for (int k = size() - 1; k >= 0; --k)
    for (int i = parent(k); i >= 0; i = parent(i)) x[k] += H_(k, i) * x[i];
}

void TreeLdl::solve_in_place(Eigen::Ref<VecX> x) const {
  solve_Lt_in_place(x);
  for (int k = 0; k < size(); ++k) x[k] /= H_(k, k);
  solve_L_in_place(x);
}

}  // namespace graspsim
