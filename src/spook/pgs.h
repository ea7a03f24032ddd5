#pragma once
// Projected Gauss-Seidel in velocity space, matrix-free: each row update reads J_i·v⁺ and
// writes v⁺ += W_i Δλ_i (W_i = M⁻¹ J_iᵀ), so one sweep costs O(nnz(J) + nnz(W)).
// Contacts are processed as a unit: the normal, then its friction rows, then the friction
// projection of the contact's treatment (box, scaled box, disk μλ_n, or the capped simplex
// {λ ≥ 0, Σλ ≤ μλ_n} of the polyhedral cone) using the contact's current normal impulse.

#include "spook/operators.h"

namespace graspsim::spook {

enum class SweepRows { All, FrictionOnly };

// Runs `sweeps` sweeps; lambda and v (= v_free + Wᵀλ on entry) are updated together. With
// `subset` (ascending rows, whole contacts), only those rows are swept. `compliance`, when
// given, replaces the problem's (ops' bias and D must agree with it).
void pgs_sweeps(const Problem& problem, const Operators& ops, SweepRows rows, int sweeps,
                VecX& lambda, VecX& v, const std::vector<int>* subset = nullptr,
                const VecX* compliance = nullptr);

// The same over Operators::sweep_items[first, last) (whole groups of islands,
// Operators::sweep_group_begin: PGS's threads).
void pgs_sweep_items(const Problem& problem, const Operators& ops, SweepRows rows, int sweeps, VecX& lambda,
                     VecX& v, int first, int last, const VecX* compliance = nullptr);

}  // namespace graspsim::spook
