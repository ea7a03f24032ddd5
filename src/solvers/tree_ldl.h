#pragma once
// The factor of a kinematic tree's joint-space inertia without fill-in (Featherstone, Rigid
// Body Dynamics Algorithms, §6.5, LTDL): M = Lᵀ D L with L unit lower triangular and
// L(i, j) ≠ 0 only where j is an ancestor of dof i. Numbered parents first, M has that
// pattern itself, and eliminating from the leaves up keeps it, so a factorization costs
// Σ depth(i)² and a solve ~3 Σ depth(i), where a dense Cholesky costs n³/3 and 2n² (the
// Shadow Hand's held ball under SPOOK: W's solves took ~25 % of the step with a dense factor,
// ~8 % with this one). A forest (several roots) is one matrix.

#include <span>
#include <vector>

#include "core/types.h"

namespace graspsim {

class TreeLdl {
 public:
  // Factors the symmetric M (its lower triangle is read). parent[i] < i is dof i's parent
  // in M's numbering, or negative for a root; M(i, j) must be zero unless one of i, j is an
  // ancestor of the other. Returns false (and keeps no factor) when M is not positive definite.
  bool compute(const Eigen::Ref<const MatX>& M, std::span<const int> parent);
  // x ← M⁻¹ x; the zeros of x below every nonzero (a joint's own row) cost nothing in the
  // first pass.
  void solve_in_place(Eigen::Ref<VecX> x) const;
  // Its three passes, and L itself. With y = L v the kinetic energy is ½ yᵀ D y: in those
  // coordinates the mass is diagonal, and a row J acts as J L⁻¹ = (L⁻ᵀ Jᵀ)ᵀ, whose entries
  // lie on the ancestors of J's own dofs only (where M⁻¹ Jᵀ fills the whole tree).
  void solve_Lt_in_place(Eigen::Ref<VecX> x) const;  // x ← L⁻ᵀ x (leaves up; J's zeros below cost nothing)
  void solve_L_in_place(Eigen::Ref<VecX> x) const;   // x ← L⁻¹ x (roots down)
  void multiply_L_in_place(Eigen::Ref<VecX> x) const;  // x ← L x
  double d(int i) const { return H_(i, i); }
  int parent(int i) const { return parent_[static_cast<size_t>(i)]; }
  // 0 before the first successful compute(), and after reset().
  int size() const { return static_cast<int>(parent_.size()); }
  void reset() { parent_.clear(); }

 private:
  MatX H_;  // D on the diagonal, L below it (only the (dof, ancestor) entries are used)
  std::vector<int> parent_;
};

}  // namespace graspsim
