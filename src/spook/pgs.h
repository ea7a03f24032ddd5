#pragma once
// Projected Gauss-Seidel in velocity space, matrix-free: each row update reads J_i·v⁺ and
// writes v⁺ += W_i Δλ_i (W_i = M⁻¹ J_iᵀ), so one sweep costs O(nnz(J) + nnz(W)).
// Contacts are processed as a unit: the normal, then its friction rows, then the friction
// projection of the contact's treatment (box, scaled box, disk μλ_n, or the capped simplex
// {λ ≥ 0, Σλ ≤ μλ_n} of the polyhedral cone) using the contact's current normal impulse.

#include "spook/operators.h"

namespace graspsim::spook {

enum class SweepRows { All, FrictionOnly };

// When the sweeps may stop early. tolerance > 0 (m/s or rad/s): each group of islands
// (Operators::sweep_group_begin) stops once no row's velocity w_i = J_i v + c_i λ_i − target_i
// moved by more than tolerance per sweep over the last kStopCheck sweeps. Not a test of each
// row's own update: rows on one dof (a servo and the joint's dry friction) trade impulse back
// and forth by much more than they move v. w: scratch of one entry per row.
constexpr int kStopCheck = 8;
struct SweepStop {
  double tolerance = 0.0;
  double* w = nullptr;
};

// Runs `sweeps` sweeps; lambda and v (= v_free + Wᵀλ on entry) are updated together. With
// `subset` (ascending rows, whole contacts), only those rows are swept, and `stop` is not
// used. `compliance`, when given, replaces the problem's (ops' bias and D must agree with
// it). Returns the most sweeps a group of islands ran.
int pgs_sweeps(const Problem& problem, const Operators& ops, SweepRows rows, int sweeps,
               VecX& lambda, VecX& v, const std::vector<int>* subset = nullptr,
               const VecX* compliance = nullptr, const SweepStop& stop = {});

// The same over Operators::sweep_items[first, last) (whole groups of islands,
// Operators::sweep_group_begin: PGS's threads).
int pgs_sweep_items(const Problem& problem, const Operators& ops, SweepRows rows, int sweeps, VecX& lambda,
                    VecX& v, int first, int last, const VecX* compliance = nullptr, const SweepStop& stop = {});

}  // namespace graspsim::spook
