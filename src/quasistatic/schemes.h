#pragma once
// One quasistatic time step's contact problem (seed 003, Section IV), three ways:
//   Lcp    — Trinkle's scheme: the actuated dofs follow the command exactly; an LCP in the
//            unactuated displacement (free) and the contact impulses; infeasible when the
//            command pushes into contact (the paper's point).
//   Miqp   — Pang & Tedrake (eqs. 23a–f): follow the command as closely as possible,
//            complementarity by big-M binaries, normal impulses bounded below by the
//            hypothetical penetration (per geom pair: see build_cqp); solved by a branch
//            and bound on the pairs with COIN-OR Clp at the nodes, or by COIN-OR Bonmin on
//            the big-M form.
//   Convex — beyond the paper: one convex QP with Anitescu's relaxation of the
//            complementarity (the polyhedral cone's generators as the constraints), a small
//            regularising mass on the unactuated dofs and stiffness K on the actuated ones;
//            no binaries. Solved through its dual, a monotone LCP (Lemke).

#include <string>
#include <vector>

#include "model/model.h"
#include "quasistatic/system.h"
#include "solvers/miqp.h"

namespace graspsim {

struct QuasistaticSolution {
  enum class Status { Solved, Infeasible, Failed };
  Status status = Status::Failed;
  std::string message;           // why not Solved
  VecX dv_u, dv_a;               // displacements of the unactuated and actuated dofs (velocity coordinates × h)
  VecX Pn, Pf, Gamma;            // normal impulse per contact, friction impulse per direction (N·s), sliding slack
  VecX beta;                     // convex: impulse on each cone generator n + μ d (N·s)
  int binaries = 0;              // MIQP binaries
  int nodes = 0;                 // branch-and-bound nodes (MIQP) or pivots (LCP, convex)
  double solve_ms = 0.0;         // time in the solver itself
  double objective = 0.0;        // ‖Δq_a − Δq̄_a‖² (MIQP), the QP's value (convex), 0 (LCP)
  bool big_m_active = false;     // MIQP: a big-M bound is active, so M was too small
  bool proven = true;            // MIQP: false when the branch and bound stopped at its node limit (or a node
                                 // QP it could not solve exactly) with a feasible, unproven incumbent
  std::string solver;            // "lemke", "bonmin", "complementarity_bb" (+"+bonmin" when it fell back), "lemke+<MIQP solver>"
  // MIQP: each pair's binary (1: λ = 0; with a closed gap, also 1 where λ ≤ w), order
  // [z_n, z_f, z_s]; empty otherwise. The next step's hint.
  std::vector<int> modes;
};

// `phi_bar_previous` (per contact, NaN = none): the hypothetical penetration of the previous
// step for PenetrationBound::Previous (seed 003, V.B); ignored otherwise.
// `mode_hint` (MIQP, size 2 n_c + n_d, entries 0, 1 or −1 = none): binaries to try first
// (the previous step's contact modes); it only speeds up the branch and bound.
QuasistaticSolution solve_quasistatic(const QuasistaticSystem& sys, const QuasistaticOptions& options,
                                      const VecX* phi_bar_previous = nullptr, const std::vector<int>* mode_hint = nullptr);

// The index of contact i's pair b in the MIQP's binaries (QuasistaticSolution::modes, the
// mode hint): b = 0 its normal pair (z_n), 1..ndir its friction directions (z_f), ndir + 1
// its sliding slack (z_s).
int miqp_pair(const QuasistaticSystem& sys, int contact, int b);
// The MIQP of eqs. (23a–f) for one step, as given to Bonmin: x = [Δq_u, Δq_a, P_n, P_f, Γ],
// one binary per complementarity pair [z_n, z_f, z_s] (2 n_c + n_d).
MixedIntegerQp quasistatic_miqp(const QuasistaticSystem& sys, const QuasistaticOptions& options,
                                const VecX* phi_bar_previous = nullptr);

// The hypothetical penetration φ̄ = φ + J_n^u Δq_u + J_n^a Δq̄_a of a solution (eq. 21).
VecX hypothetical_penetration(const QuasistaticSystem& sys, const VecX& dv_u);

// Residuals of a solution, computed from the system alone (an independent check of the
// solver): the force balance (23a, N·s), the largest min(|w|, |λ|) over the complementarity
// pairs (φ^{l+1} ⊥ P_n, ρ ⊥ P_f, s ⊥ Γ; for the convex scheme its relaxed pairs
// φ + (J_n + μ J_d)Δq ⊥ β), the most negative linearized gap φ^{l+1} (m), and the most
// violated sign condition (negative impulse or slack).
struct QuasistaticResiduals {
  double force_balance = 0.0, complementarity = 0.0, min_gap = 0.0, sign = 0.0;
};
QuasistaticResiduals quasistatic_residuals(const QuasistaticSystem& sys, const QuasistaticSolution& sol,
                                           QuasistaticScheme scheme);

}  // namespace graspsim
