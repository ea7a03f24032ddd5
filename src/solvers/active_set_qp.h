#pragma once
// Dense convex QP with a diagonal, positive semidefinite Hessian, by a primal active-set
// method started from a feasible point (Nocedal & Wright, Algorithm 16.3, with the
// zero-curvature directions a semidefinite Hessian needs):
//
//   minimise ½ xᵀ diag(h) x + cᵀ x   subject to  lo ≤ A x ≤ hi   (bounds as unit rows)
//
// Each iteration works in the null space of the working set (a Householder QR of its rows):
// a Newton step where the reduced Hessian has curvature, a descent ray where it has none,
// cut by the first blocking row; at a stationary point the most negative multiplier leaves.
// Sized for the quasistatic MIQP's node problems (tens of variables, a few hundred rows,
// mostly sparse): the working set's QR is dense and updated row by row, the products with A
// run over its nonzeros.

#include <string>

#include "core/types.h"

namespace graspsim {

struct BoxedRowsQp {
  VecX h;          // n, ≥ 0 (the Hessian's diagonal)
  VecX c;          // n
  MatX A;          // m × n
  VecX lo, hi;     // m; −inf / +inf for a missing side, equal for an equality
};

struct ActiveSetResult {
  enum class Status { Optimal, Unbounded, IterationLimit } status = Status::IterationLimit;
  VecX x;
  int iterations = 0;
};

// `x0` must satisfy every row. Against degeneracy every inequality is relaxed by 1-2e-10 of
// its scale while iterating; at the end the working set's rows are put back on their true
// bounds (a least-norm move), so only rows outside it may be off, by as much.
// Multipliers and reduced gradients are compared with `tol` times the gradient's scale.
ActiveSetResult solve_active_set_qp(const BoxedRowsQp& qp, const VecX& x0, double tol = 1e-8, int max_iterations = 0);

}  // namespace graspsim
