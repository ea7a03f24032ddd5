#pragma once
// Quadratic programs with complementarity constraints (a QP with "either–or" pairs), the
// quasistatic stepper's MIQP before it is written with big-M binaries:
//
//   minimise ½ xᵀ H x + cᵀ x                 (H diagonal, ≥ 0)
//   subject to  row_lo ≤ A x ≤ row_hi        (general rows; equal bounds for equalities)
//               x_lo ≤ x ≤ x_hi
//               for each pair j:  w_j = W_j x + w0_j,   0 ≤ w_j ≤ M,   0 ≤ x[λ_j] ≤ M,
//                                 w_j · x[λ_j] = 0
//
// big_m_miqp writes it as Pang & Tedrake's big-M MIQP (seed 003 eq. 20): one binary z_j per
// pair, w_j ≤ M z_j, λ_j ≤ M (1 − z_j); any MIQP solver then solves the same problem.
//
// solve_complementarity_bb is a branch and bound on the pairs themselves (Bard and Moore's
// scheme for complementarity-constrained programs): a node fixes some pairs to w_j = 0 and
// others to λ_j = 0 and relaxes the rest to the convex hull of the disjunction,
// w_j, λ_j ≥ 0, w_j + λ_j ≤ M, which is exactly the big-M MIQP's relaxation with z_j ∈ [0, 1].
// So node bounds, the tree and the optimum are those of any big-M B&B (Bonmin's), but each
// node is small: COIN-OR Clp's dual simplex, warm-started from its parent's basis, decides
// its feasibility, and its QP is solved from that vertex by the active-set QP (or, where that
// point fails the check and the objective is a distance in the curved variables, as the
// quasistatic MIQP's is, by Wolfe's minimum-norm point), where Bonmin runs an interior point
// method from scratch. Every node's point is checked against the rows, whatever Clp
// reported. The tree is searched depth
// first, the branch that agrees with the relaxed solution first. A node whose relaxed
// solution already satisfies every pair ends its branch with a candidate. A mode hint (e.g.
// the previous step's contact modes) is tried first as an incumbent, so a step whose modes
// did not change is usually settled at the root.

#include <functional>
#include <vector>

#include "solvers/miqp.h"

namespace graspsim {

struct ComplementarityQp {
  MatX H;                 // n × n, diagonal, ≥ 0
  VecX c;                 // n
  MatX A;                 // m × n
  VecX row_lo, row_hi;    // m
  VecX x_lo, x_hi;        // n (a λ_j's bounds are replaced by [0, M])
  MatX W;                 // np × n
  VecX w0;                // np
  std::vector<int> lambda;  // np: the index in x of each pair's λ_j (distinct)
  // np or empty (all 0): pair j counts as w_j = 0 ("closed") while w_j ≤ closed_gap_j, so
  // w_j λ_j ≤ closed_gap_j λ_j. A contact's gap closes within this tolerance: exact
  // closure at several points of one patch is over-determined by the nanometres a
  // linearised step leaves (see QuasistaticOptions::closed_gap).
  VecX closed_gap;
  double big_m = 1.0;
  int n() const { return static_cast<int>(c.size()); }
  int m() const { return static_cast<int>(row_lo.size()); }
  int np() const { return static_cast<int>(lambda.size()); }
  double closed(int j) const { return closed_gap.size() ? closed_gap[j] : 0.0; }
};

// Throws InputError naming the field for a malformed problem.
void check_complementarity_qp(const ComplementarityQp& p);

// The big-M MIQP: rows = the general rows, then per pair w_j ≥ 0, w_j − M z_j ≤ closed_gap_j,
// λ_j + M z_j ≤ M. z_j = 1 means λ_j = 0 (the pair is "open": w_j free in [0, M]).
MixedIntegerQp big_m_miqp(const ComplementarityQp& p);

struct ComplementarityBbOptions {
  // A safety net against a search that stalls (it makes the result depend on the machine);
  // max_nodes is the deterministic limit.
  double time_limit_s = 60.0;
  // Optional (size np or empty): per pair, 1 = try λ_j = 0, 0 = try w_j = 0, −1 = no hint.
  std::vector<int> mode_hint;
  // Optional: further hints of the same form (e.g. modes read off a physical heuristic's
  // solution), each tried after mode_hint; one that leaves pairs free (−1) may dive below
  // its node for up to hint_dive_nodes nodes. The best complementary point of all the
  // hints is the first incumbent (ties keep the earlier).
  std::function<std::vector<std::vector<int>>()> heuristic_hints;
  int hint_dive_nodes = 50;
  // With an incumbent from mode_hint, heuristic_hints are asked only once the search has
  // taken this many nodes (they may cost more than the search they would shorten).
  int hints_after_nodes = 10;
  double feasibility_tol = 1e-9;   // rows, bounds and complementarity min(w_j, λ_j), in their units
  // A node is pruned when bound ≥ incumbent − max(gap_abs, gap_rel·(incumbent − floor)), floor
  // the objective's least value over the bounds (the command followed exactly): the gap is
  // relative to the part of the objective a mode can change, not to its arbitrary offset.
  double gap_abs = 1e-15;
  double gap_rel = 1e-9;
  int max_nodes = 100000;          // once an incumbent exists: stop here with it (Feasible)
  // The node QP: the active-set QP with Wolfe's minimum-norm point where its point fails
  // the check (Auto), or one of them alone (Wolfe's only for a distance objective: no linear
  // cost on variables without curvature; otherwise the active-set QP runs).
  enum class NodeQp { Auto, ActiveSet, MinNormPoint } node_qp = NodeQp::Auto;
};

// Result in the big-M MIQP's terms (z_j = 1: λ_j = 0), so it compares directly with
// solve_miqp_bonmin on big_m_miqp(p). nodes: QPs solved. Every returned x is checked
// against the rows, bounds and pairs (feasibility_tol), whatever the node solvers said.
// Feasible: the node limit ended the search with an incumbent, or some node's QP was not
// solved exactly (its LP vertex stood in, an upper estimate of its bound), so the optimum
// is not proven. Failed: no incumbent and a limit was reached, or Clp failed (the message
// says which).
MiqpResult solve_complementarity_bb(const ComplementarityQp& p, const ComplementarityBbOptions& o = {});

}  // namespace graspsim
