#pragma once
// Storage of spook::solve kept from step to step (the stepper owns one in its Workspace):
// every buffer is resized only when the problem grows, so a steady-state step (the same
// islands as the last one) allocates nothing in the solver.

#include <memory>
#include <vector>

#include "core/parallel.h"

#include "solvers/mlcp.h"
#include "spook/operators.h"

namespace graspsim::spook {

// One island's (or Split part's) dense problem, reused by the island of the same index.
struct IslandScratch {
  std::vector<int> rows;       // rows of the problem (global indices)
  Mlcp mlcp;
  MlcpSolver solver;
  VecX b, x, guess, saved;     // right-hand side, solution, warm guess, λ before a trial
};

struct SolverScratch {
  Operators ops;
  std::vector<int> validate_rows;
  std::vector<int> local;          // (nrows) local index of a row in the island being built, or −1
  std::vector<int> contact_local;  // (ncontacts) index of a contact in `contacts`, or −1
  std::vector<char> contact_seen;  // (ncontacts)
  std::vector<int> contacts;       // contacts of the island being polished
  std::vector<int> moved_dofs;     // dofs of v_fixed that differ from v_free
  std::vector<char> sticking;      // per entry of `contacts`
  std::vector<IslandScratch> parts, polish;
  VecX friction_only, v_friction, v_fixed, w, lambda_prev, v_prev, dv;
  VecX relax_compliance;           // the problem's compliance, 0 on contact normals (relax pass)
  VecX relax_saved;                // each normal's bias, D and 1/D during the relax pass
  VecX v_position_storage;         // Solution::v_position's storage while no relax pass runs
  // Per-island solvers (when some contact asks for its own): the solver of each island,
  // the one running now, and the rows of its islands (for PGS).
  bool per_island = false;
  std::vector<SolverType> island_solver;
  SolverType running = SolverType::Split;
  std::vector<int> running_rows;
  // Parallel sweeps (solve's threads): the pool, made on first use, and each thread's part:
  // a range of Operators::sweep_items (whole groups of islands) when there are groups enough
  // for the threads, else its rows (whole islands, each ascending).
  std::unique_ptr<WorkerPool> pool;
  std::vector<std::pair<int, int>> thread_items;
  std::vector<std::vector<int>> thread_rows;
  std::vector<int> thread_sweeps;  // the sweeps each thread's groups ran (pgs_sweep_items)
  VecX w_stop;                     // SweepStop::w
};

// solve() (problem.h) into `solution`, with storage from `scratch`, on up to `threads`
// threads.
void solve(const Problem& problem, SolverType solver, int iterations, int relax_sweeps, SolverScratch& scratch,
           Solution& solution, int threads = 1, double tolerance = 0.0);

}  // namespace graspsim::spook
