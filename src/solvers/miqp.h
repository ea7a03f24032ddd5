#pragma once
// Mixed-integer convex quadratic programs, solved by COIN-OR Bonmin's NLP branch-and-bound
// (B-BB: Ipopt at every node, Cbc's tree search). The quasistatic stepper's MIQP (Pang &
// Tedrake) is one; brute-force enumeration of the binaries is kept for tests and checks.
//
//   minimise ½ xᵀ H x + cᵀ x   over continuous x ∈ Rⁿ and binaries z ∈ {0,1}^nz
//   subject to  row_lo ≤ A x + B z ≤ row_hi   (m rows; ±infinity allowed, equal for equalities)
//               x_lo ≤ x ≤ x_hi                (±infinity allowed)
// H symmetric positive semidefinite.
//
// Before Bonmin sees the problem, fixed variables (binaries fixed by MiqpOptions::z_fixed,
// continuous ones with x_lo = x_hi) are substituted, rows left without a variable are checked
// on their own (a violated one makes the problem Infeasible) and rows free on both sides are
// dropped: Ipopt mishandles constant rows. A problem left without variables is decided
// without Bonmin. Ipopt refuses an NLP with more equality rows than free variables (also at
// a branch-and-bound node whose binaries are all fixed): Failed, "Not enough degrees of
// freedom". Unbounded problems are Failed too.
//
// Tolerances: Ipopt's tol and constr_viol_tol are 1e-9, bound_relax_factor 1e-10, Bonmin's
// integer tolerance 1e-6 and its optimality gaps 1e-9 absolute and relative, all applied
// to the *scaled* objective (MiqpOptions::objective_scale). x is reported as Ipopt returns
// it (inside its bounds: Ipopt honours the original bounds), z rounded to exact 0/1, and
// the objective recomputed unscaled from them.
//
// Bonmin's default B-BB branching (NLP strong branching) is used with one fix: Bonmin 1.8.9
// can abort the process on an Osi assertion when strong branching proves a node infeasible
// (see SafeChooseVariable in miqp.cpp); the fix restores the "node infeasible" verdict.
//
// Threads: each call builds and owns its whole Bonmin setup, reads no option file and prints
// nothing. The sequential MUMPS under Ipopt keeps Fortran module state (concurrent solves
// abort in DMUMPS_LOAD_INIT), so the Bonmin part of every call runs under one process-wide
// mutex: calls from several threads are safe but run one at a time. solve_ms excludes the
// wait.

#include <string>
#include <vector>

#include "core/types.h"

namespace graspsim {

struct MixedIntegerQp {
  MatX H;               // n × n, symmetric positive semidefinite
  VecX c;               // n
  MatX A;               // m × n
  MatX B;               // m × nz
  VecX row_lo, row_hi;  // m; row_lo ≤ row_hi, −inf / +inf for a missing side
  VecX x_lo, x_hi;      // n; x_lo ≤ x_hi, −inf / +inf for a missing side
  int n() const { return static_cast<int>(c.size()); }
  int nz() const { return static_cast<int>(B.cols()); }
  int m() const { return static_cast<int>(row_lo.size()); }
};

struct MiqpOptions {
  double objective_scale = 1.0;  // the objective is multiplied by this inside the solver (Bonmin's
                                 // absolute tolerances are ~1e-6..1e-9: tiny objectives need
                                 // scaling); results report the unscaled objective
  double time_limit_s = 60.0;
  std::vector<double> z_fixed;   // optional: if non-empty (size nz), each entry 0 or 1 fixes that
                                 // binary (−1 = free)
  VecX x_start, z_start;         // optional warm start hints (sizes n and nz, or empty): the root
                                 // NLP's starting point
};

// Failed: a limit was reached or the solver had numerical trouble (the message says which);
// x and z then hold the best feasible point known, if any (empty otherwise).
// Feasible: a point satisfying every constraint whose optimality was not proven (a node
// limit ended the search, or a node's QP could not be solved exactly).
enum class MiqpStatus { Optimal, Infeasible, Failed, Feasible };

struct MiqpResult {
  MiqpStatus status = MiqpStatus::Failed;
  std::string message;
  VecX x;
  VecX z;
  double objective = 0;  // ½ xᵀ H x + cᵀ x (unscaled)
  int nodes = 0;         // Bonmin: branch-and-bound nodes; enumeration: feasible assignments
  double solve_ms = 0;
};

// Throws InputError for a malformed problem or options (see check_miqp).
MiqpResult solve_miqp_bonmin(const MixedIntegerQp& p, const MiqpOptions& o = {});

// Brute force for tests and cross-checks: every binary assignment (nz ≤ 20, else InputError;
// binaries fixed by o.z_fixed keep their value), each a convex QP solved with the same
// Bonmin/Ipopt setup with all binaries fixed; returns the best feasible one (ties, within
// 1e-9 relative: the first in lexicographic order of z) and how many assignments were
// feasible in `nodes`. Failed if any assignment's QP failed or the time limit (for the whole
// enumeration) was reached; the best point found is still returned then.
MiqpResult solve_miqp_enumerate(const MixedIntegerQp& p, const MiqpOptions& o = {});

// Checks a problem's sizes and values (H n×n, finite and symmetric; c n; A m×n; B m×nz;
// bounds of sizes m and n, not NaN, lo ≤ hi, lo < +inf, hi > −inf), throwing InputError
// naming the field. Positive semidefiniteness is not checked.
void check_miqp(const MixedIntegerQp& p);

// The largest violation of a row or a bound by (x, z), in the rows' units.
double max_violation(const MixedIntegerQp& p, const VecX& x, const VecX& z);

}  // namespace graspsim
