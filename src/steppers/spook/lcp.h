#pragma once
// Dense linear complementarity problems  w = M z + q,  0 ≤ z ⊥ w ≥ 0.
//
// Lemke's complementary pivoting with the covering vector e = (1, …, 1) on a diagonally
// scaled copy (z = S z̃, w̃ = S w, S > 0 chosen so that M̃ has unit diagonal where M has a
// diagonal, which makes the covering vector meaningful across units). Why Lemke: unlike
// Dantzig/ODE pivoting it needs neither symmetry nor a P-matrix, so one algorithm covers
// box rows, bounds that follow the normal (findex) and Stewart-Trinkle's polyhedral cone,
// whose LCP is non-symmetric but copositive-plus with compliance, where Lemke is proven to
// terminate with a solution. The tableau inverse is updated by rank-one pivots (O(n²) per
// pivot); at the end the solution is recomputed from the final complementary basis with a
// fresh LU ("polish"), so rounding accumulated over the pivots does not remain.

#include <Eigen/LU>
#include <vector>

#include "core/types.h"

namespace graspsim::spook {

struct LcpResult {
  VecX z;
  bool ok = false;          // false: ray termination or pivot limit (z is then meaningless)
  int pivots = 0;
  std::vector<int> basic;   // indices i with z_i basic (the active set), ascending
};

LcpResult solve_lcp_lemke(const MatX& M, const VecX& q, int max_pivots = -1);

// max_i |min(z_i, w_i)| — the LCP's natural-map residual in the units of M z + q.
double lcp_residual(const MatX& M, const VecX& q, const VecX& z);

// A complementary basis kept between solves that share M (Split's outer iterations):
// z_S = −M_SS⁻¹ q_S, z_else = 0 is the solution if z_S ≥ 0 and w ≥ 0.
class LcpActiveSet {
 public:
  void set(const MatX& M, std::vector<int> basic);
  bool empty() const { return !valid_; }
  // Fills z and returns true if the stored basis is feasible for q (within tol·scale).
  bool try_solve(const MatX& M, const VecX& q, VecX& z) const;

 private:
  bool valid_ = false;
  std::vector<int> basic_;
  Eigen::PartialPivLU<MatX> lu_;
};

}  // namespace graspsim::spook
