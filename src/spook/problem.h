#pragma once
// The SPOOK constraint problem, self-contained: it sees the trees' mass blocks, a sparse
// Jacobian and per-row SPOOK data, never the multibody plant (STYLE practice 3). The
// assembler (SpookStepper) fills a Problem; solve() returns impulses and v⁺.
//
// Conventions
//   * λ is an IMPULSE (N·s, or N·m·s for angular rows): the thesis' eq. (3.8) unknown
//     z = [v⁺, λ] with M v⁺ − Jᵀλ = M v + h f. The average constraint force over the step
//     is λ / h; the integrator converts.
//   * v⁺ = v_free + M⁻¹ Jᵀ λ, with v_free = v + h M⁻¹ f (the unconstrained step).
//   * Row i: w_i = J_i v⁺ + compliance_i λ_i − target_i (a velocity, m/s or rad/s), and
//       lo_i < λ_i < hi_i  ⇒ w_i = 0,   λ_i = lo_i ⇒ w_i ≥ 0,   λ_i = hi_i ⇒ w_i ≤ 0
//     (the MLCP (3.7)). For a SPOOK position-level row with gap g (m, negative when
//     penetrating): target = −(4γ/h) g + γ J v and compliance = Σ = (4/h²) ε γ, see
//     parameters.h. Friction rows are velocity level (target 0, small compliance).
//   * A contact normal row's Jacobian gives the separating velocity (positive apart), so
//     its impulse is ≥ 0 (lo = 0, hi = +inf).

#include <Eigen/Cholesky>
#include <Eigen/SparseCore>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/types.h"
#include "model/model.h"
#include "solvers/tree_ldl.h"

namespace graspsim::spook {

// An independent kinematic tree (or free body): its dofs are v[v_begin, v_begin + nv) and
// its mass-matrix block is factored once by the assembler. M is block diagonal over the
// trees. Dofs covered by no tree have infinite mass (kinematic or world dofs): λ does not
// move them.
struct Tree {
  int v_begin = 0;
  int nv = 0;
  Eigen::LLT<MatX> M_llt;  // Cholesky factor of the tree's mass block (nv × nv, SI)
  // Or, when its size is nv, the factor without fill-in (RBDA §6.5), which then stands for
  // M_llt: the stepper's for trees over kDenseInverseMaxNv dofs (hands, arms with grippers),
  // whose solves it makes several times cheaper.
  TreeLdl M_tree;
  bool sparse() const { return nv > 0 && M_tree.size() == nv; }
  // x ← M⁻¹ x with whichever factor the tree has.
  void solve_in_place(Eigen::Ref<VecX> x) const {
    if (sparse()) M_tree.solve_in_place(x);
    else M_llt.solveInPlace(x);
  }
};

// What a row is; decides which solver part handles it (Split) and is reported back.
enum class RowKind {
  Equality,  // joints, loop closures: lo = −inf, hi = +inf
  Normal,    // contact normal: lo = 0, hi = +inf
  Friction,  // contact tangent or polyhedral direction; bounds come from its ContactRows
  Limit,     // joint limit: one-sided, lo = 0 or hi = 0
  Bounded,   // motors and other rows with given finite [lo, hi]
};

// How the friction rows of one contact are bounded. Only BoxFixed reads the rows' lo/hi.
// Direct accepts all but Cone; Split and DirectIterative solve Cone by PGS projection.
enum class FrictionTreatment {
  BoxFixed,    // lo/hi of the rows as given (±μ λ_n of the previous step): box friction
  BoxScaled,   // |λ_t,k| ≤ μ λ_n with the current λ_n, per row (ODE's "findex")
  Cone,        // ‖(λ_t1, λ_t2)‖ ≤ μ λ_n: exactly two friction rows, iterative solvers only
  Polyhedral,  // k direction rows d_i with λ_i ≥ 0 and Σ λ_i ≤ μ λ_n (Stewart & Trinkle):
               // the rows' directions must positively span the tangent plane
};

// One contact: a normal row and its friction rows.
struct ContactRows {
  int normal = -1;             // row index of the normal
  std::vector<int> friction;   // row indices: (t1, t2) for box/cone, k directions for polyhedral
  double mu = 0.0;             // Coulomb coefficient (ignored by BoxFixed)
  FrictionTreatment treatment = FrictionTreatment::Cone;
  // Torsional friction (optional): a row of relative angular velocity about the normal,
  // |λ_τ| ≤ torsion_mu · λ_n (torsion_mu in m: the moment arm of the friction), whatever
  // the treatment of the tangential rows. Kind Friction; −1 when absent.
  int torsion = -1;
  double torsion_mu = 0.0;
  // The solver this contact asks for (its material's override), or none: the solve's.
  // An island (rows coupled through shared trees) runs the strongest solver its contacts
  // ask for — Direct > Split > DirectIterative > Iterative, ranked by how much of the
  // problem each solves exactly — or the solve's when none asks; Direct on an island with
  // cone friction (which it cannot take) runs as Split. Islands are independent problems,
  // so each may use its own solver.
  std::optional<SolverType> solver = std::nullopt;
};

struct Problem {
  int nv = 0;                  // generalized velocity dimension
  std::vector<Tree> trees;     // disjoint dof ranges
  VecX v_free;                 // (nv) unconstrained end-of-step velocity, m/s and rad/s
  Eigen::SparseMatrix<double, Eigen::RowMajor> J;  // (nrows × nv) constraint Jacobian
  VecX target;                 // (nrows) right-hand side, velocity units
  VecX compliance;             // (nrows) ≥ 0, velocity per impulse ((m/s)/(N·s))
  VecX lo, hi;                 // (nrows) impulse bounds (N·s); ±inf allowed
  std::vector<RowKind> kind;   // (nrows)
  std::vector<ContactRows> contacts;  // each friction row belongs to exactly one contact
  VecX lambda_warm;            // (nrows) warm start (previous step's impulses), or empty
  // Relax pass (solve's relax_sweeps): each contact normal's target with its stabilisation
  // left out (0 for touching solids), reached rigidly (no compliance). (nrows) or empty.
  VecX relax_target;

  // Structure stamp, for a producer that builds a problem every step: nonzero only when the
  // trees' dof ranges, J's sparsity pattern and the contacts' rows are exactly those of the
  // last problem it stamped with the same value (the stepper: while the contacts keep their
  // slots and points). solve() then keeps its layout (runs, islands, contact maps) and
  // writes only values; 0 (unknown) lays it out anew.
  std::uint64_t structure = 0;

  int nrows() const { return static_cast<int>(J.rows()); }
};

struct Solution {
  VecX lambda;                 // (nrows) impulses, N·s
  VecX v;                      // (nv) v⁺
  // After a relax pass: the stabilised v⁺ before it, which moves the positions (v, relaxed,
  // is the next step's velocity). Empty without one.
  VecX v_position;
  double residual = 0.0;       // complementarity_residual(problem, lambda), m/s (after a relax
                               // pass: of the relaxed λ against the stabilised rows)
  int iterations = 0;          // PGS sweeps, Split outer iterations run (it stops early at a
                               // fixed point), or Lemke pivots (Direct)
  int pivots = 0;              // total Lemke pivots (Direct, Split, DirectIterative)
  int direct_failures = 0;     // islands whose pivoting failed (then PGS took over)
  std::optional<SolverType> solver;  // the solver that ran, or none when it was per island
  int threads = 1;             // threads the Iterative sweeps ran on (solve's `threads`)
};

// Solves the problem with `solver`, or per island when contacts ask for different ones
// (ContactRows::solver). Direct rejects Cone friction with an InputError; Iterative, Split
// and DirectIterative use `iterations` sweeps / outer iterations (≥ 1).
// relax_sweeps > 0 (Iterative islands; needs relax_target): after the sweeps, v_position
// keeps v⁺ and that many more sweeps take the normals to relax_target rigidly, so that the
// velocity a stabilisation term adds to undo penetration moves the positions but is not
// kept (Box2D v3's relax iterations; Bullet's split impulse in spirit).
// threads > 1: an Iterative solve of at least kParallelMinRows rows sweeps its islands on
// that many threads (islands share no dof, so each thread runs all the sweeps of its own
// islands and the result is the same bits as on one).
// tolerance > 0 (m/s or rad/s; Iterative islands): the sweeps of each group of islands stop
// once no row's velocity moved by more than that per sweep over the last kStopCheck sweeps
// (pgs.h, SweepStop); Solution::iterations is then the most sweeps a group ran. 0: always
// `iterations`.
constexpr int kParallelMinRows = 512;
Solution solve(const Problem& problem, SolverType solver, int iterations, int relax_sweeps = 0, int threads = 1,
               double tolerance = 0.0);

// Checks sizes, index ranges and bounds; throws std::invalid_argument naming the field.
void validate(const Problem& problem);
// The same, with `scratch` reused for the row-ownership check (no allocation once sized).
void validate(const Problem& problem, std::vector<int>& scratch);

// The natural-map residual of the MLCP at λ, in velocity units (m/s), ∞-norm over rows:
//   box rows (fixed or scaled bounds [l, u]):  D_i |λ_i − clamp(λ_i − w_i / D_i, l, u)|,
//   cone pairs:      D̄ ‖λ_t − Π_disk(μλ_n)(λ_t − w_t / D̄)‖₂ with D̄ the pair's mean D,
//   polyhedral:      the natural map of Stewart-Trinkle's LCP in (λ_dir, s) with the
//                    slack s = max(0, −min_i w_i) (the sliding speed it implies),
// where D_i = (J M⁻¹ Jᵀ + diag(compliance))_ii > 0 and w = J v⁺(λ) + compliance⊙λ − target.
// It is 0 exactly at a solution; interior rows contribute |w_i|.
double complementarity_residual(const Problem& problem, const VecX& lambda);

}  // namespace graspsim::spook
