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
#include <cmath>
#include <stdexcept>
#include <string>

#include "core/error.h"
#include "steppers/spook/mlcp.h"
#include "steppers/spook/pgs.h"

namespace graspsim::spook {
namespace {

// Sweeps of PGS used when pivoting fails on an island (reported in direct_failures).
constexpr int kFallbackSweeps = 200;
// Islands are pivoted densely (O(rows²) memory, O(rows³) time): larger ones go to PGS
// and are reported in direct_failures instead of exhausting memory.
constexpr int kMaxDirectRows = 2000;

VecX gather(const VecX& x, const std::vector<int>& rows) {
  VecX out(rows.size());
  for (size_t a = 0; a < rows.size(); ++a) out[a] = x[rows[a]];
  return out;
}

VecX island_rhs(const Problem& p, const std::vector<int>& rows, const VecX& v_other) {
  VecX b(rows.size());
  for (size_t a = 0; a < rows.size(); ++a) {
    double jv = 0.0;
    for (SparseRows::InnerIterator it(p.J, rows[a]); it; ++it) jv += it.value() * v_other[it.col()];
    b[a] = p.target[rows[a]] - jv;
  }
  return b;
}

// The MLCP of `rows` (one island or its non-friction part). Cone contacts are given scaled
// box bounds when cone_as_scaled_box, otherwise they are rejected (pure Direct).
Mlcp island_mlcp(const Problem& p, const Operators& ops, const std::vector<int>& rows,
                 bool cone_as_scaled_box) {
  const int m = static_cast<int>(rows.size());
  Mlcp mlcp;
  mlcp.A = dense_delassus(p, ops, rows);
  mlcp.lo.resize(m);
  mlcp.hi.resize(m);
  mlcp.findex.assign(m, -1);
  mlcp.fmu = VecX::Zero(m);
  std::vector<int> local(p.nrows(), -1);
  for (int a = 0; a < m; ++a) {
    local[rows[a]] = a;
    mlcp.lo[a] = p.lo[rows[a]];
    mlcp.hi[a] = p.hi[rows[a]];
  }
  std::vector<bool> seen(p.contacts.size(), false);
  for (int r : rows) {
    const int c = ops.contact_of_row[r];
    if (c < 0 || seen[c]) continue;
    seen[c] = true;
    const ContactRows& cr = p.contacts[c];
    if (cr.torsion >= 0 && local[cr.torsion] >= 0)  // scaled-box row on its normal
      mlcp.findex[local[cr.torsion]] = local[cr.normal], mlcp.fmu[local[cr.torsion]] = cr.torsion_mu;
    bool any_friction = false;
    for (int f : cr.friction) any_friction = any_friction || local[f] >= 0;
    if (!any_friction) continue;
    FrictionTreatment t = cr.treatment;
    if (t == FrictionTreatment::Cone) {
      require(cone_as_scaled_box, "spook::solve",
              "the Direct solver does not accept Cone friction (contact " + std::to_string(c) +
                  "); use Split, Iterative or DirectIterative, or box/polyhedral friction");
      t = FrictionTreatment::BoxScaled;
    }
    if (t == FrictionTreatment::BoxScaled) {
      for (int f : cr.friction) mlcp.findex[local[f]] = local[cr.normal], mlcp.fmu[local[f]] = cr.mu;
    } else if (t == FrictionTreatment::Polyhedral) {
      Mlcp::Polyhedral g;
      g.normal = local[cr.normal];
      g.mu = cr.mu;
      for (int f : cr.friction) g.rows.push_back(local[f]);
      mlcp.poly.push_back(std::move(g));
    }
  }
  return mlcp;
}

void direct(const Problem& p, const Operators& ops, bool cone_as_scaled_box, VecX& lambda,
            Solution& sol) {
  const bool has_warm = p.lambda_warm.size() == p.nrows();
  for (const std::vector<int>& rows : islands(p)) {
    if (static_cast<int>(rows.size()) > kMaxDirectRows) {
      ++sol.direct_failures;
      continue;
    }
    MlcpSolver solver(island_mlcp(p, ops, rows, cone_as_scaled_box));
    VecX x;
    const VecX guess = gather(lambda, rows);
    if (solver.solve(island_rhs(p, rows, p.v_free), x, sol.pivots, has_warm ? &guess : nullptr)) {
      for (size_t a = 0; a < rows.size(); ++a) lambda[rows[a]] = x[a];
    } else {
      ++sol.direct_failures;
    }
  }
  if (sol.direct_failures > 0) {
    VecX v = velocity_of(p, ops, lambda);
    pgs_sweeps(p, ops, SweepRows::All, kFallbackSweeps, lambda, v);
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
void polish_island(const Problem& p, const Operators& ops, const std::vector<int>& island, VecX& lambda,
                   Solution& sol) {
  constexpr int kAttempts = 4;
  constexpr double kSlack = 1e-6;
  std::vector<int> contacts;  // of this island
  for (int r : island)
    if (p.kind[r] == RowKind::Normal && ops.contact_of_row[r] >= 0) contacts.push_back(ops.contact_of_row[r]);
  if (contacts.empty()) return;
  std::vector<char> sticking(p.contacts.size(), 0);
  for (int c : contacts) sticking[c] = inside_bounds(p, p.contacts[c], lambda, kSlack);
  for (int attempt = 0; attempt < kAttempts; ++attempt) {
    VecX fixed = VecX::Zero(p.nrows());  // friction of this island's sliding contacts, held
    std::vector<int> rows;
    for (int r : island) {
      const int c = ops.contact_of_row[r];
      const bool friction = p.kind[r] == RowKind::Friction;
      if (!friction || sticking[c]) rows.push_back(r);
      if (friction && !sticking[c]) fixed[r] = lambda[r];
    }
    if (rows.empty() || rows.size() > static_cast<size_t>(kMaxDirectRows)) {
      ++sol.direct_failures;  // too large to pivot: this island keeps its iterated friction
      return;
    }
    Mlcp mlcp;
    mlcp.A = dense_delassus(p, ops, rows);
    mlcp.lo.resize(static_cast<Eigen::Index>(rows.size()));
    mlcp.hi.resize(static_cast<Eigen::Index>(rows.size()));
    mlcp.findex.assign(rows.size(), -1);
    mlcp.fmu = VecX::Zero(static_cast<Eigen::Index>(rows.size()));
    for (size_t a = 0; a < rows.size(); ++a) {
      const bool friction = p.kind[rows[a]] == RowKind::Friction;
      mlcp.lo[a] = friction ? -kInf : p.lo[rows[a]];
      mlcp.hi[a] = friction ? kInf : p.hi[rows[a]];
    }
    MlcpSolver solver(std::move(mlcp));
    VecX x;
    const VecX guess = gather(lambda, rows);
    if (!solver.solve(island_rhs(p, rows, velocity_of(p, ops, fixed)), x, sol.pivots, &guess)) return;
    VecX candidate = lambda;
    for (size_t a = 0; a < rows.size(); ++a) candidate[rows[a]] = x[a];
    bool all_inside = true;
    for (int c : contacts)
      if (sticking[c] && !inside_bounds(p, p.contacts[c], candidate, 0.0)) {
        sticking[c] = false;
        all_inside = false;
      }
    if (all_inside) {
      lambda = candidate;
      return;
    }
  }
}

void polish_sticking(const Problem& p, const Operators& ops, VecX& lambda, Solution& sol) {
  if (p.contacts.empty()) return;
  for (const std::vector<int>& island : islands(p)) polish_island(p, ops, island, lambda, sol);
}

void split(const Problem& p, const Operators& ops, int outer, VecX& lambda, Solution& sol) {
  const bool has_warm = p.lambda_warm.size() == p.nrows();
  struct Part {
    std::vector<int> rows;  // non-friction rows of one island
    MlcpSolver solver;
  };
  std::vector<Part> parts;
  for (const std::vector<int>& island : islands(p)) {
    std::vector<int> rows;
    for (int r : island)
      if (p.kind[r] != RowKind::Friction) rows.push_back(r);
    if (static_cast<int>(rows.size()) > kMaxDirectRows) {
      ++sol.direct_failures;
      continue;
    }
    if (!rows.empty()) parts.push_back({rows, MlcpSolver(island_mlcp(p, ops, rows, true))});
  }
  if (sol.direct_failures > 0) {  // too large to pivot: the whole problem goes to PGS
    VecX v = velocity_of(p, ops, lambda);
    pgs_sweeps(p, ops, SweepRows::All, std::max(outer, kFallbackSweeps), lambda, v);
    return;
  }
  VecX friction_only(p.nrows());
  for (int k = 0; k < outer; ++k) {
    for (int i = 0; i < p.nrows(); ++i) friction_only[i] = p.kind[i] == RowKind::Friction ? lambda[i] : 0.0;
    const VecX v_with_friction = velocity_of(p, ops, friction_only);
    for (Part& part : parts) {
      VecX x;
      const VecX guess = gather(lambda, part.rows);
      if (part.solver.solve(island_rhs(p, part.rows, v_with_friction), x, sol.pivots,
                            k == 0 && has_warm ? &guess : nullptr)) {
        for (size_t a = 0; a < part.rows.size(); ++a) lambda[part.rows[a]] = x[a];
      } else {
        ++sol.direct_failures;  // keep the previous normals for this outer iteration
      }
    }
    VecX v = velocity_of(p, ops, lambda);
    pgs_sweeps(p, ops, SweepRows::FrictionOnly, 1, lambda, v);
  }
  polish_sticking(p, ops, lambda, sol);
  // The polish re-solved the normals: one last friction sweep puts every sliding contact's
  // friction inside its final cone (a sweep projects against the current normals) and
  // leaves the exact sticking contacts where they are (their fixed point).
  VecX v = velocity_of(p, ops, lambda);
  pgs_sweeps(p, ops, SweepRows::FrictionOnly, 1, lambda, v);
}

}  // namespace

Solution solve(const Problem& p, SolverType solver, int iterations) {
  validate(p);
  require(iterations >= 1, "spook::solve", "iterations must be at least 1");
  const Operators ops = make_operators(p);
  Solution sol;
  VecX lambda = p.lambda_warm.size() == p.nrows() ? p.lambda_warm : VecX::Zero(p.nrows());
  switch (solver) {
    case SolverType::Iterative: {
      VecX v = velocity_of(p, ops, lambda);
      pgs_sweeps(p, ops, SweepRows::All, iterations, lambda, v);
      sol.iterations = iterations;
      break;
    }
    case SolverType::Direct:
      direct(p, ops, false, lambda, sol);
      sol.iterations = sol.pivots;
      break;
    case SolverType::DirectIterative: {
      direct(p, ops, true, lambda, sol);
      VecX v = velocity_of(p, ops, lambda);
      pgs_sweeps(p, ops, SweepRows::All, iterations, lambda, v);
      sol.iterations = iterations;
      break;
    }
    case SolverType::Split:
      split(p, ops, iterations, lambda, sol);
      sol.iterations = iterations;
      break;
  }
  sol.v = velocity_of(p, ops, lambda);
  sol.lambda = std::move(lambda);
  sol.residual = complementarity_residual(p, ops, sol.lambda);
  return sol;
}

}  // namespace graspsim::spook
