#pragma once
// Dense linear complementarity problems  w = M z + q,  0 ≤ z ⊥ w ≥ 0.
//
// Lemke's complementary pivoting with the covering vector e = (1, …, 1) on a diagonally
// scaled copy (z = S z̃, w̃ = S w, S > 0 chosen so that M̃ has unit diagonal where M has a
// diagonal, which makes the covering vector meaningful across units).
// Why Lemke: unlike Dantzig/ODE pivoting it needs neither symmetry nor a P-matrix, so one
// algorithm covers box rows, Coulomb bounds that follow the normal and Stewart-Trinkle's
// polyhedral cone. mlcp.h writes box rows with an upper multiplier and Coulomb bounds in
// Stewart-Trinkle form, so the LCP matrix stays copositive with zᵀq ≥ 0 on {z ≥ 0,
// Mz ≥ 0, zᵀMz = 0} when A is positive definite (SPOOK compliance) — the setting in which
// Lemke is known to end with a solution rather than a ray (Stewart & Trinkle; Anitescu &
// Potra). Observed: no failure on the random tests; an earlier shifted form for the
// Coulomb bounds (x = z − μ x_n) lost copositivity and did fail.
// Numerics: contact LCPs are degenerate (q = 0 on every slack row), so pivoting runs on
// q + δu with a tiny deterministic δu > 0 and a lexicographic ratio test; the rank-one
// updated tableau inverse costs O(n × rows pivoted on) per pivot (its other columns are
// still those of I); the final complementary basis is then
// re-solved with a fresh LU on the true q ("polish"), which leaves only rounding.

#include <Eigen/Cholesky>
#include <Eigen/LU>
#include <vector>

#include "core/types.h"

namespace graspsim {

struct LcpResult {
  VecX z;
  bool ok = false;          // false: ray termination or pivot limit (z is then meaningless)
  int pivots = 0;
  std::vector<int> basic;   // indices i with z_i basic (the active set), ascending
  bool factored = false;    // lu holds the LU of M restricted to `basic` (from the polish)
  Eigen::PartialPivLU<MatX> lu;
};

LcpResult solve_lcp_lemke(const MatX& M, const VecX& q, int max_pivots = -1);

// max_i |min(z_i, w_i)| — the LCP's natural-map residual in the units of M z + q.
double lcp_residual(const MatX& M, const VecX& q, const VecX& z);

// A complementary basis kept between solves that share M (Split's outer iterations):
// z_S = −M_SS⁻¹ q_S, z_else = 0 is the solution if z_S ≥ 0 and w ≥ 0.
// Storage is kept across set() calls of the same size (no allocation then).
class LcpActiveSet {
 public:
  // With `symmetric` (M symmetric positive definite: contact normals and joints with
  // SPOOK compliance), basis blocks are factored by Cholesky, else by LU.
  void set_symmetric(bool symmetric) { symmetric_ = symmetric; }
  // `lu`, if given, is M_SS's LU for this basis (LcpResult::lu): used instead of factoring
  // again where the block would be factored by LU.
  void set(const MatX& M, const std::vector<int>& basic, const Eigen::PartialPivLU<MatX>* lu = nullptr);
  void reset() { valid_ = false; }
  bool empty() const { return !valid_; }
  // Fills z and returns true if the stored basis is feasible for q (within tol·scale).
  bool try_solve(const MatX& M, const VecX& q, VecX& z);
  // After a try_solve that returned false: the smallest index whose z (basic) or w
  // (nonbasic) is infeasible, or −1 (no basis, or a singular one).
  int first_infeasible() const { return infeasible_; }
  // The basis with index k moved to the other side (a principal pivot), factored.
  void toggle(const MatX& M, int k);

 private:
  bool valid_ = false;
  bool symmetric_ = false, use_llt_ = false;
  int infeasible_ = -1;
  Eigen::LLT<MatX> llt_;
  std::vector<int> basic_;
  Eigen::PartialPivLU<MatX> lu_;
  MatX Mss_;
  VecX qs_, zs_, w_;
};

}  // namespace graspsim
