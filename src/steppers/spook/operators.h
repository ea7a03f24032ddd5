#pragma once
// Matrix-free pieces of the Delassus operator A = J M⁻¹ Jᵀ + diag(compliance), built from
// the tree blocks: W_i = M⁻¹ J_iᵀ per row (stored as rows of W), the diagonal of A, the
// islands (rows coupled through shared trees or a shared contact) and dense island blocks.

#include <Eigen/SparseCore>
#include <vector>

#include "steppers/spook/problem.h"

namespace graspsim::spook {

using SparseRows = Eigen::SparseMatrix<double, Eigen::RowMajor>;

struct Operators {
  SparseRows W;               // (nrows × nv) row i = (M⁻¹ J_iᵀ)ᵀ; zero on dofs of no tree
  VecX D;                     // (nrows) A_ii = J_i W_iᵀ + compliance_i
  std::vector<int> contact_of_row;  // (nrows) contact index of a normal/friction row, or −1
};

Operators make_operators(const Problem& problem);

// v⁺ = v_free + Wᵀ λ.
VecX velocity_of(const Problem& problem, const Operators& ops, const VecX& lambda);

// w = J v + compliance ⊙ λ − target (per row, velocity units).
VecX row_residual(const Problem& problem, const VecX& v, const VecX& lambda);

// Connected components of rows: two rows are coupled when they touch a common tree or
// belong to the same contact. Rows sorted ascending within an island; islands ordered by
// their first row.
std::vector<std::vector<int>> islands(const Problem& problem);

// Dense A restricted to `rows` (rows × rows), including the compliance diagonal.
MatX dense_delassus(const Problem& problem, const Operators& ops, const std::vector<int>& rows);

// complementarity_residual (problem.h) with operators already built.
double complementarity_residual(const Problem& problem, const Operators& ops, const VecX& lambda);

// The Coulomb-bounds of a friction row given the current normal impulse λ_n.
double friction_bound(double mu, double lambda_n);

}  // namespace graspsim::spook
