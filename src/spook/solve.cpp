// The four SPOOK solvers over a Problem. Direct and Split solve each island (rows coupled
// through shared trees) as a dense MLCP by Lemke pivoting (mlcp.h, lcp.h); Iterative is
// matrix-free PGS (pgs.h).
//
// Split (thesis 3.4: "direct on joints and normal equations, friction iteratively") is a
// block Gauss-Seidel between two blocks of the same MLCP: (a) all non-friction rows solved
// exactly by pivoting with the friction impulses held fixed, (b) one projected GS sweep over
// the friction rows with the normals of (a) setting the Coulomb bounds. For fixed bounds
// this is block coordinate descent on the strictly convex SPOOK energy, so it converges,
// and it inherits the direct solver's precision on normals and joints (no artificial
// penetration or joint drift from an unconverged PGS). (a)'s reduction and its last
// complementary basis are kept across the outer iterations, so when the active set does not
// change (the common case after the first iteration) (a) costs one LU back-substitution.

#include <algorithm>
#include <optional>
#include <cmath>
#include <stdexcept>
#include <string>

#include "core/error.h"
#include "spook/pgs.h"
#include "spook/scratch.h"

namespace graspsim::spook {
namespace {

// Sweeps of PGS used when pivoting fails on an island (reported in direct_failures).
constexpr int kFallbackSweeps = 200;
// Islands are pivoted densely (O(rows²) memory, O(rows³) time): larger ones go to PGS
// and are reported in direct_failures instead of exhausting memory.
constexpr int kMaxDirectRows = 2000;

// Whether island k belongs to the solver running now (all do unless solvers are per island).
bool selected(const SolverScratch& s, int k) { return !s.per_island || s.island_solver[k] == s.running; }
// Rows for PGS: those of the running solver's islands, or all.
const std::vector<int>* pgs_rows(const SolverScratch& s) { return s.per_island ? &s.running_rows : nullptr; }

// The rows of island k.
const int* island_begin(const Operators& ops, int k) { return ops.island_rows.data() + ops.island_begin[k]; }
int island_size(const Operators& ops, int k) { return ops.island_begin[k + 1] - ops.island_begin[k]; }

IslandScratch& part(std::vector<IslandScratch>& parts, size_t k) {
  if (parts.size() <= k) parts.resize(k + 1);  // grows only: later steps reuse the storage
  return parts[k];
}

void gather(const VecX& x, const std::vector<int>& rows, VecX& out) {
  out.resize(static_cast<Eigen::Index>(rows.size()));
  for (size_t a = 0; a < rows.size(); ++a) out[a] = x[rows[a]];
}

// b = target − J v_other over `rows` (v_other = v_free + Wᵀλ for some λ).
void island_rhs(const Operators& ops, const std::vector<int>& rows, const VecX& v_other, VecX& b) {
  b.resize(static_cast<Eigen::Index>(rows.size()));
  for (size_t a = 0; a < rows.size(); ++a) b[a] = -row_velocity(ops, rows[a], v_other.data());
}

// The MLCP of part.rows (one island or its non-friction part) into part.mlcp. Cone
// contacts are given scaled box bounds when cone_as_scaled_box, otherwise they are
// rejected (pure Direct).
// An island's dense MLCP: its Delassus block, bounds sized, no friction coupling yet.
void start_mlcp(const Problem& p, Operators& ops, const std::vector<int>& rows, Mlcp& mlcp) {
  const int m = static_cast<int>(rows.size());
  dense_delassus(p, ops, rows.data(), m, mlcp.A);
  mlcp.lo.resize(m);
  mlcp.hi.resize(m);
  mlcp.findex.assign(m, -1);
  mlcp.fmu.setZero(m);
  mlcp.poly.clear();
}

void island_mlcp(const Problem& p, SolverScratch& s, IslandScratch& part, bool cone_as_scaled_box) {
  const std::vector<int>& rows = part.rows;
  const int m = static_cast<int>(rows.size());
  const Operators& ops = s.ops;
  Mlcp& mlcp = part.mlcp;
  start_mlcp(p, s.ops, rows, mlcp);
  for (int a = 0; a < m; ++a) {
    s.local[rows[a]] = a;
    mlcp.lo[a] = p.lo[rows[a]];
    mlcp.hi[a] = p.hi[rows[a]];
  }
  for (int r : rows) {
    const int c = ops.contact_of_row[r];
    if (c < 0 || s.contact_seen[c]) continue;
    s.contact_seen[c] = 1;
    const ContactRows& cr = p.contacts[c];
    if (cr.torsion >= 0 && s.local[cr.torsion] >= 0)  // scaled-box row on its normal
      mlcp.findex[s.local[cr.torsion]] = s.local[cr.normal], mlcp.fmu[s.local[cr.torsion]] = cr.torsion_mu;
    bool any_friction = false;
    for (int f : cr.friction) any_friction = any_friction || s.local[f] >= 0;
    if (!any_friction) continue;
    FrictionTreatment t = cr.treatment;
    if (t == FrictionTreatment::Cone) {
      if (!cone_as_scaled_box)  // (solve() resets the scratch maps on its next call)
        throw InputError("spook::solve: the Direct solver does not accept Cone friction (contact " +
                         std::to_string(c) + "); use Split, Iterative or DirectIterative, or box/polyhedral friction");
      t = FrictionTreatment::BoxScaled;
    }
    if (t == FrictionTreatment::BoxScaled) {
      for (int f : cr.friction) mlcp.findex[s.local[f]] = s.local[cr.normal], mlcp.fmu[s.local[f]] = cr.mu;
    } else if (t == FrictionTreatment::Polyhedral) {
      Mlcp::Polyhedral g;
      g.normal = s.local[cr.normal];
      g.mu = cr.mu;
      for (int f : cr.friction) g.rows.push_back(s.local[f]);
      mlcp.poly.push_back(std::move(g));
    }
  }
  for (int r : rows) {  // leave the scratch maps clean for the next island
    s.local[r] = -1;
    if (ops.contact_of_row[r] >= 0) s.contact_seen[ops.contact_of_row[r]] = 0;
  }
}

void direct(const Problem& p, SolverScratch& s, bool cone_as_scaled_box, VecX& lambda, Solution& sol) {
  const bool has_warm = p.lambda_warm.size() == p.nrows();
  const int failures_before = sol.direct_failures;
  const Operators& ops = s.ops;
  for (int k = 0; k < ops.nislands(); ++k) {
    if (!selected(s, k)) continue;
    const int m = island_size(ops, k);
    if (m > kMaxDirectRows) {
      ++sol.direct_failures;
      continue;
    }
    IslandScratch& part = spook::part(s.parts, static_cast<size_t>(k));
    part.rows.assign(island_begin(ops, k), island_begin(ops, k) + m);
    island_mlcp(p, s, part, cone_as_scaled_box);
    part.solver.setup(part.mlcp);
    gather(lambda, part.rows, part.guess);
    island_rhs(s.ops, part.rows, ops.v_free, part.b);
    if (part.solver.solve(part.b, part.x, sol.pivots, has_warm ? &part.guess : nullptr)) {
      for (int a = 0; a < m; ++a) lambda[part.rows[a]] = part.x[a];
    } else {
      ++sol.direct_failures;
    }
  }
  if (sol.direct_failures > failures_before) {
    velocity_of(p, ops, lambda, sol.v);
    pgs_sweeps(p, ops, SweepRows::All, kFallbackSweeps, lambda, sol.v, pgs_rows(s));
  }
}

// Friction of contact c inside its Coulomb bounds with room to spare (a sticking contact).
bool inside_bounds(const Problem& p, const ContactRows& c, const VecX& lambda, double slack) {
  const double bound = friction_bound(c.mu, lambda[c.normal]) * (1.0 - slack);
  if (c.torsion >= 0 && std::abs(lambda[c.torsion]) > friction_bound(c.torsion_mu, lambda[c.normal]) * (1.0 - slack))
    return false;
  switch (c.treatment) {
    case FrictionTreatment::Cone: return std::hypot(lambda[c.friction[0]], lambda[c.friction[1]]) <= bound;
    case FrictionTreatment::BoxScaled:
      return std::all_of(c.friction.begin(), c.friction.end(), [&](int r) { return std::abs(lambda[r]) <= bound; });
    case FrictionTreatment::BoxFixed:
      return std::all_of(c.friction.begin(), c.friction.end(), [&](int r) {
        return lambda[r] >= p.lo[r] * (1.0 - slack) && lambda[r] <= p.hi[r] * (1.0 - slack);
      });
    case FrictionTreatment::Polyhedral: return false;  // not polished
  }
  return false;
}

// Split's last stage. PGS sweeps leave a small friction residual, and in a grasp that
// residual is slip: the held object creeps and, warm-started step after step, the creep
// grows. Contacts whose friction is strictly inside its bounds are sticking, so their
// friction rows are equalities: per island, one direct solve of the normals, joints and
// those rows (sliding contacts keep their iterated friction) makes sticking exact. A
// sticking contact whose exact friction leaves its bounds is demoted to sliding and the
// island is solved again.
// True when the rows the polish would solve exactly (non-friction rows and the friction of
// sticking contacts) already satisfy their conditions within kPolishTolerance at λ, with
// v = v_free + Wᵀλ: then the polish would move λ by no more than that, and is skipped.
// 1e-12 m/s: a sticking contact creeping at that speed moves 10 pm over a 10 s hold, 1e-5
// of the 1 µm no-creep bar and far below the 2 nm/s the friction rows' creep compliance
// allows by design; a warm-started persistent grasp usually lands here.
constexpr double kPolishTolerance = 1e-12;

bool polish_needed(const Problem& p, const SolverScratch& s, const int* island, int m, const VecX& lambda,
                   const VecX& v) {
  const Operators& ops = s.ops;
  for (int a = 0; a < m; ++a) {
    const int r = island[a];
    const int c = ops.contact_of_row[r];
    const bool friction = p.kind[r] == RowKind::Friction;
    if (friction && !s.sticking[s.contact_local[c]]) continue;
    if (ops.D[r] <= 0.0) continue;  // a row that sees no dof and has no compliance
    const double w = p.compliance[r] * lambda[r] + row_velocity(ops, r, v.data());
    const double lo = friction ? -kInf : p.lo[r], hi = friction ? kInf : p.hi[r];
    if (ops.D[r] * std::abs(lambda[r] - std::clamp(lambda[r] - w / ops.D[r], lo, hi)) > kPolishTolerance)
      return true;
  }
  return false;
}

// Returns whether it changed λ.
bool polish_island(const Problem& p, SolverScratch& s, int k, const VecX& v, VecX& lambda, Solution& sol) {
  constexpr int kAttempts = 4;
  constexpr double kSlack = 1e-6;
  const Operators& ops = s.ops;
  const int* island = island_begin(ops, k);
  const int m = island_size(ops, k);
  s.contacts.clear();
  s.sticking.clear();
  for (int a = 0; a < m; ++a) {
    const int r = island[a];
    if (p.kind[r] == RowKind::Normal && ops.contact_of_row[r] >= 0) {
      const int c = ops.contact_of_row[r];
      s.contact_local[c] = static_cast<int>(s.contacts.size());
      s.contacts.push_back(c);
      s.sticking.push_back(inside_bounds(p, p.contacts[c], lambda, kSlack));
    }
  }
  if (s.contacts.empty() || !polish_needed(p, s, island, m, lambda, v)) return false;
  IslandScratch& part = spook::part(s.polish, static_cast<size_t>(k));
  for (int attempt = 0; attempt < kAttempts; ++attempt) {
    // v_fixed = v_free + the friction of this island's sliding contacts, held.
    part.rows.clear();
    s.moved_dofs.clear();  // dofs moved in v_fixed, restored below
    for (int a = 0; a < m; ++a) {
      const int r = island[a];
      const int c = ops.contact_of_row[r];
      const bool friction = p.kind[r] == RowKind::Friction;
      const bool sticking = c >= 0 && s.sticking[s.contact_local[c]];
      if (!friction || sticking) part.rows.push_back(r);
      if (friction && !sticking && lambda[r] != 0.0) {
        apply_impulse(ops, r, lambda[r], s.v_fixed.data());
        for (int q = ops.row_run_begin[r]; q < ops.row_run_begin[r + 1]; ++q)
          for (int d = 0; d < ops.runs[q].nv; ++d) s.moved_dofs.push_back(ops.runs[q].v_begin + d);
      }
    }
    if (part.rows.empty() || part.rows.size() > static_cast<size_t>(kMaxDirectRows)) {
      for (int d : s.moved_dofs) s.v_fixed[d] = ops.v_free[d];
      ++sol.direct_failures;  // too large to pivot: this island keeps its iterated friction
      return false;
    }
    island_rhs(s.ops, part.rows, s.v_fixed, part.b);
    for (int d : s.moved_dofs) s.v_fixed[d] = ops.v_free[d];
    Mlcp& mlcp = part.mlcp;
    const int n = static_cast<int>(part.rows.size());
    start_mlcp(p, s.ops, part.rows, mlcp);
    for (int a = 0; a < n; ++a) {
      const bool friction = p.kind[part.rows[a]] == RowKind::Friction;
      mlcp.lo[a] = friction ? -kInf : p.lo[part.rows[a]];
      mlcp.hi[a] = friction ? kInf : p.hi[part.rows[a]];
    }
    part.solver.setup(mlcp);
    gather(lambda, part.rows, part.guess);
    if (!part.solver.solve(part.b, part.x, sol.pivots, &part.guess)) return false;
    gather(lambda, part.rows, part.saved);
    for (int a = 0; a < n; ++a) lambda[part.rows[a]] = part.x[a];  // the candidate
    bool all_inside = true;
    for (size_t j = 0; j < s.contacts.size(); ++j)
      if (s.sticking[j] && !inside_bounds(p, p.contacts[s.contacts[j]], lambda, 0.0)) {
        s.sticking[j] = 0;
        all_inside = false;
      }
    if (all_inside) return true;
    for (int a = 0; a < n; ++a) lambda[part.rows[a]] = part.saved[a];  // rejected
  }
  return false;
}

// v = v_free + Wᵀλ on entry (it is not updated: islands do not share dofs).
// Returns whether it changed λ.
bool polish_sticking(const Problem& p, SolverScratch& s, const VecX& v, VecX& lambda, Solution& sol) {
  if (p.contacts.empty()) return false;
  s.v_fixed = s.ops.v_free;
  bool changed = false;
  for (int k = 0; k < s.ops.nislands(); ++k)
    if (selected(s, k)) changed = polish_island(p, s, k, v, lambda, sol) || changed;
  return changed;
}

// An outer iteration that changed no row's velocity w_i = J_i v⁺ + Σ_i λ_i − target_i by
// more than kSplitTolerance is a fixed point up to that tolerance: the remaining iterations
// would repeat it. Velocities, not impulses: redundant contact points (a box face's four
// corners: 8 friction rows for 3 tangential dofs) keep trading impulse along the nearly
// null directions of J M⁻¹ Jᵀ (regularised only by the friction creep compliance) at
// ~1e-7 N·s per iteration while v⁺ moves by 1e-11 m/s, so a test on λ never stops (the 1 ms
// push ran all 16 iterations every step). 1e-10 m/s is 100× the polish's tolerance; whatever
// the iteration leaves, the polish then makes the sticking contacts exact.
constexpr double kSplitTolerance = 1e-10;

bool converged(const Problem& p, const Operators& ops, const VecX& lambda_before, const VecX& lambda,
               const VecX& v_before, const VecX& v, VecX& dv) {
  dv = v - v_before;
  for (int i = 0; i < p.nrows(); ++i) {
    const double dw = row_dot(ops, i, dv.data()) + p.compliance[i] * (lambda[i] - lambda_before[i]);
    if (std::abs(dw) > kSplitTolerance) return false;
  }
  return true;
}

// Block Gauss-Seidel of at most `outer` iterations; stops early at a fixed point
// (converged()); sol.iterations = the iterations run.
void split(const Problem& p, SolverScratch& s, int outer, VecX& lambda, Solution& sol) {
  const bool has_warm = p.lambda_warm.size() == p.nrows();
  const Operators& ops = s.ops;
  sol.iterations = outer;
  const int failures_before = sol.direct_failures;
  size_t nparts = 0;
  for (int k = 0; k < ops.nislands(); ++k) {
    if (!selected(s, k)) continue;
    IslandScratch& part = spook::part(s.parts, nparts);
    part.rows.clear();
    for (const int* r = island_begin(ops, k); r != island_begin(ops, k) + island_size(ops, k); ++r)
      if (p.kind[*r] != RowKind::Friction) part.rows.push_back(*r);
    if (static_cast<int>(part.rows.size()) > kMaxDirectRows) {
      ++sol.direct_failures;
      continue;
    }
    if (part.rows.empty()) continue;
    island_mlcp(p, s, part, true);
    part.solver.setup(part.mlcp);
    ++nparts;
  }
  VecX& v = sol.v;
  if (sol.direct_failures > failures_before) {  // too large to pivot: the whole problem goes to PGS
    velocity_of(p, ops, lambda, v);
    pgs_sweeps(p, ops, SweepRows::All, std::max(outer, kFallbackSweeps), lambda, v, pgs_rows(s));
    return;
  }
  s.friction_only.resize(p.nrows());
  velocity_of(p, ops, lambda, v);
  int k = 0;
  for (; k < outer; ++k) {
    s.lambda_prev = lambda;
    s.v_prev = v;
    for (int i = 0; i < p.nrows(); ++i) s.friction_only[i] = p.kind[i] == RowKind::Friction ? lambda[i] : 0.0;
    velocity_of(p, ops, s.friction_only, s.v_friction);
    for (size_t j = 0; j < nparts; ++j) {
      IslandScratch& part = s.parts[j];
      if (k == 0 && has_warm) gather(lambda, part.rows, part.guess);
      island_rhs(s.ops, part.rows, s.v_friction, part.b);
      if (part.solver.solve(part.b, part.x, sol.pivots, k == 0 && has_warm ? &part.guess : nullptr)) {
        for (size_t a = 0; a < part.rows.size(); ++a) lambda[part.rows[a]] = part.x[a];
      } else {
        ++sol.direct_failures;  // keep the previous normals for this outer iteration
      }
    }
    velocity_of(p, ops, lambda, v);
    pgs_sweeps(p, ops, SweepRows::FrictionOnly, 1, lambda, v, pgs_rows(s));
    if (converged(p, ops, s.lambda_prev, lambda, s.v_prev, v, s.dv)) {
      ++k;
      break;
    }
  }
  sol.iterations = k;
  // When the polish re-solved the normals, one last friction sweep puts every sliding
  // contact's friction inside its final cone (a sweep projects against the current normals)
  // and leaves the exact sticking contacts where they are (their fixed point). (v is kept
  // current by the sweeps; only the polish's jump needs it recomputed.)
  if (polish_sticking(p, s, v, lambda, sol)) velocity_of(p, ops, lambda, v);
  pgs_sweeps(p, ops, SweepRows::FrictionOnly, 1, lambda, v, pgs_rows(s));
}

// The islands in contiguous groups of about equal rows, one per thread (fewer threads when
// there are fewer islands): ranges of the sweep's items (whole pairs of islands, so that the
// sweep's pairs stay together) when there are pairs enough, else rows. None when the sweeps
// run on one thread.
void partition_islands(const Problem& p, SolverScratch& s, int threads) {
  for (std::vector<int>& rows : s.thread_rows) rows.clear();
  s.thread_items.clear();
  const Operators& ops = s.ops;
  if (threads < 2 || p.nrows() < kParallelMinRows || ops.nislands() < 2) return;
  const int ngroups = static_cast<int>(ops.sweep_group_begin.size()) - 1;
  if (ngroups >= threads) {
    const size_t parts = static_cast<size_t>(threads);
    size_t placed = 0;
    int first = 0;
    for (int g = 0; g < ngroups; ++g) {
      const int k = 2 * g;
      placed += static_cast<size_t>(ops.island_begin[std::min(k + 2, ops.nislands())] - ops.island_begin[k]);
      const bool full = s.thread_items.size() + 1 < parts && placed * parts >= (s.thread_items.size() + 1) * static_cast<size_t>(p.nrows());
      if (full || g + 1 == ngroups) {
        s.thread_items.emplace_back(ops.sweep_group_begin[first], ops.sweep_group_begin[g + 1]);
        first = g + 1;
      }
    }
    return;
  }
  s.thread_rows.resize(static_cast<size_t>(std::min(threads, ops.nislands())));
  const size_t groups = s.thread_rows.size();
  size_t t = 0, placed = 0;
  for (int k = 0; k < ops.nislands(); ++k) {
    s.thread_rows[t].insert(s.thread_rows[t].end(), island_begin(ops, k), island_begin(ops, k) + island_size(ops, k));
    placed += static_cast<size_t>(island_size(ops, k));
    if (t + 1 < groups && placed * groups >= (t + 1) * static_cast<size_t>(p.nrows())) ++t;
  }
}

// PGS sweeps over all rows (or the running solver's), on the threads of the partition when
// there is one: each thread sweeps its own islands, which share no dof with the others'.
// tolerance > 0 (pgs_sweeps): each group of islands stops once converged; the islands then
// run on threads only as whole groups (thread_items), so that the sweeps do not depend on
// the threads. Returns the most sweeps run.
int sweep_all(const Problem& p, SolverScratch& s, int sweeps, VecX& lambda, VecX& v, Solution& sol,
              const VecX* compliance = nullptr, double tolerance = 0.0) {
  const size_t item_parts = s.thread_items.size();
  const size_t groups = item_parts >= 2 ? item_parts : s.thread_rows.size();
  if (tolerance > 0.0 && s.w_stop.size() < p.nrows()) s.w_stop.resize(2 * p.nrows());  // (grows only)
  const SweepStop stop{tolerance, s.w_stop.data()};
  if (groups < 2 || (item_parts < 2 && (s.thread_rows[1].empty() || tolerance > 0.0)))
    return pgs_sweeps(p, s.ops, SweepRows::All, sweeps, lambda, v, pgs_rows(s), compliance, stop);
  if (!s.pool || s.pool->size() != groups) s.pool = std::make_unique<WorkerPool>(static_cast<unsigned>(groups));
  s.thread_sweeps.assign(groups, 0);
  s.pool->run([&](unsigned k) {
    if (item_parts >= 2)
      s.thread_sweeps[k] = pgs_sweep_items(p, s.ops, SweepRows::All, sweeps, lambda, v, s.thread_items[k].first,
                                           s.thread_items[k].second, compliance, stop);
    else if (!s.thread_rows[k].empty())
      s.thread_sweeps[k] = pgs_sweeps(p, s.ops, SweepRows::All, sweeps, lambda, v, &s.thread_rows[k], compliance);
  });
  sol.threads = static_cast<int>(groups);
  return *std::max_element(s.thread_sweeps.begin(), s.thread_sweeps.end());
}

// The relax pass (solve's relax_sweeps): the contact normals' rows swapped for rigid ones
// aimed at relax_target (bias, D and compliance), swept, and swapped back.
void relax(const Problem& p, SolverScratch& s, int sweeps, VecX& lambda, Solution& sol) {
  Operators& ops = s.ops;
  sol.v_position.swap(s.v_position_storage);  // (last relaxed step's storage: no allocation)
  sol.v_position = sol.v;
  s.relax_compliance = p.compliance;
  s.relax_saved.resize(3 * static_cast<Eigen::Index>(p.contacts.size()));
  for (size_t c = 0; c < p.contacts.size(); ++c) {
    const int i = p.contacts[c].normal;
    s.relax_saved.segment<3>(3 * static_cast<Eigen::Index>(c)) << ops.bias[i], ops.D[i], ops.inv_D[i];
    ops.bias[i] += p.target[i] - p.relax_target[i];
    const double jw = ops.D[i] - p.compliance[i];
    ops.D[i] = jw;
    ops.inv_D[i] = jw > 1e-12 * (jw + p.compliance[i]) ? 1.0 / jw : 0.0;  // (no dof: skipped)
    s.relax_compliance[i] = 0.0;
  }
  sweep_all(p, s, sweeps, lambda, sol.v, sol, &s.relax_compliance);
  for (size_t c = 0; c < p.contacts.size(); ++c) {
    const int i = p.contacts[c].normal;
    const auto saved = s.relax_saved.segment<3>(3 * static_cast<Eigen::Index>(c));
    ops.bias[i] = saved[0], ops.D[i] = saved[1], ops.inv_D[i] = saved[2];
  }
}

void run(const Problem& p, SolverScratch& s, SolverType solver, int iterations, int relax_sweeps, double tolerance,
         VecX& lambda, Solution& sol) {
  const Operators& ops = s.ops;
  switch (solver) {
    case SolverType::Iterative:
      velocity_of(p, ops, lambda, sol.v);
      sol.iterations = sweep_all(p, s, iterations, lambda, sol.v, sol, nullptr, tolerance);
      if (relax_sweeps > 0) relax(p, s, relax_sweeps, lambda, sol);
      break;
    case SolverType::Direct:
      direct(p, s, false, lambda, sol);
      velocity_of(p, ops, lambda, sol.v);
      sol.iterations = sol.pivots;
      break;
    case SolverType::DirectIterative:
      direct(p, s, true, lambda, sol);
      velocity_of(p, ops, lambda, sol.v);
      pgs_sweeps(p, ops, SweepRows::All, iterations, lambda, sol.v, pgs_rows(s));
      sol.iterations = iterations;
      break;
    case SolverType::Split:
      split(p, s, iterations, lambda, sol);
      break;
  }
}

int strength(SolverType t) {
  switch (t) {
    case SolverType::Direct: return 3;
    case SolverType::Split: return 2;
    case SolverType::DirectIterative: return 1;
    case SolverType::Iterative: return 0;
  }
  return 0;
}

// The solver of the whole problem when every contact asks for the same one (or none asks:
// `fallback`), as before per-island solvers existed; none when they differ.
std::optional<SolverType> common_solver(const Problem& p, SolverType fallback) {
  std::optional<SolverType> chosen;
  for (const ContactRows& c : p.contacts) {
    const SolverType t = c.solver.value_or(fallback);
    if (chosen && *chosen != t) return std::nullopt;
    chosen = t;
  }
  return chosen.value_or(fallback);
}

void choose_island_solvers(const Problem& p, SolverScratch& s, SolverType fallback) {
  const Operators& ops = s.ops;
  s.island_solver.assign(ops.nislands(), fallback);
  for (int k = 0; k < ops.nislands(); ++k) {
    int best = -1;
    bool cone = false;
    for (const int* r = island_begin(ops, k); r != island_begin(ops, k) + island_size(ops, k); ++r) {
      const int c = ops.contact_of_row[*r];
      if (c < 0 || p.contacts[c].normal != *r) continue;
      const SolverType t = p.contacts[c].solver.value_or(fallback);
      cone = cone || p.contacts[c].treatment == FrictionTreatment::Cone;
      if (strength(t) > best) best = strength(t), s.island_solver[k] = t;
    }
    if (cone && s.island_solver[k] == SolverType::Direct) s.island_solver[k] = SolverType::Split;
  }
}

}  // namespace

void solve(const Problem& p, SolverType solver, int iterations, int relax_sweeps, SolverScratch& s,
           Solution& sol, int threads, double tolerance) {
  validate(p, s.validate_rows);
  if (iterations < 1) require(false, "spook::solve", "iterations must be at least 1");
  if (relax_sweeps < 0) require(false, "spook::solve", "relax_sweeps must be at least 0");
  if (relax_sweeps > 0 && p.relax_target.size() != p.nrows())
    require(false, "spook::solve", "relax_sweeps needs relax_target, one entry per row");
  if (threads < 1) require(false, "spook::solve", "threads must be at least 1");
  if (!(tolerance >= 0.0)) require(false, "spook::solve", "tolerance must be at least 0");
  if (sol.v_position.size() > 0) sol.v_position.swap(s.v_position_storage);  // empty unless relax runs
  sol.threads = 1;
  const std::optional<SolverType> common = common_solver(p, solver);
  const bool parallel = common == SolverType::Iterative && threads > 1 && p.nrows() >= kParallelMinRows;
  make_operators(p, s.ops);
  partition_islands(p, s, parallel ? threads : 1);
  const Operators& ops = s.ops;
  s.local.assign(p.nrows(), -1);
  s.contact_local.assign(p.contacts.size(), -1);
  s.contact_seen.assign(p.contacts.size(), 0);
  sol.residual = 0.0;
  sol.iterations = sol.pivots = sol.direct_failures = 0;
  VecX& lambda = sol.lambda;
  if (p.lambda_warm.size() == p.nrows()) lambda = p.lambda_warm;
  else lambda.setZero(p.nrows());
  s.per_island = !common.has_value();
  if (!s.per_island) {
    sol.solver = *common;
    run(p, s, *common, iterations, relax_sweeps, tolerance, lambda, sol);
  } else {
    sol.solver.reset();
    choose_island_solvers(p, s, solver);
    sol.iterations = iterations;
    for (SolverType t : {SolverType::Direct, SolverType::Split, SolverType::DirectIterative, SolverType::Iterative}) {
      s.running = t;
      s.running_rows.clear();
      for (int k = 0; k < ops.nislands(); ++k)
        if (s.island_solver[k] == t)
          s.running_rows.insert(s.running_rows.end(), island_begin(ops, k), island_begin(ops, k) + island_size(ops, k));
      if (s.running_rows.empty()) continue;
      std::sort(s.running_rows.begin(), s.running_rows.end());  // PGS visits rows in order
      const int iterations_before = sol.iterations;
      run(p, s, t, iterations, relax_sweeps, tolerance, lambda, sol);
      sol.iterations = std::max(iterations_before, sol.iterations);
    }
  }
  // Every solver leaves sol.v = v_free + Wᵀλ (the sweeps update it with λ); per island,
  // each later solver starts from all islands' λ, but none may have run.
  if (s.per_island) velocity_of(p, ops, lambda, sol.v);
  sol.residual = complementarity_residual(p, ops, lambda, sol.v, s.w);
  to_generalized(p, sol.v);
  if (sol.v_position.size() == p.nv) to_generalized(p, sol.v_position);  // (relax ran)
}

Solution solve(const Problem& p, SolverType solver, int iterations, int relax_sweeps, int threads, double tolerance) {
  SolverScratch scratch;
  Solution sol;
  solve(p, solver, iterations, relax_sweeps, scratch, sol, threads, tolerance);
  return sol;
}

}  // namespace graspsim::spook
