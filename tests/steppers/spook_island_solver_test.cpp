// Per-island solvers: contacts may ask for their own solver (a contact material's
// override); each island (rows coupled through shared trees) runs the strongest one its
// contacts ask for. Islands are independent problems, so the result on each island must be
// exactly what solving that island alone with its solver gives.

#include <gtest/gtest.h>

#include <optional>

#include "core/error.h"
#include "spook_test_util.h"

namespace graspsim::spook {
namespace {

using spook_test::concat;
using spook_test::random_problem;
using spook_test::RandomSpec;

// Contact rows only, one tree: the whole problem is one island.
RandomSpec one_island(FrictionTreatment treatment) {
  RandomSpec spec;
  spec.trees = 1;
  spec.equalities = spec.limits = spec.bounded = 0;
  spec.treatment = treatment;
  return spec;
}

void ask(Problem& p, std::optional<SolverType> s) {
  for (ContactRows& c : p.contacts) c.solver = s;
}

// The problem with no contact asking for a solver (the expected results use these, so they
// do not go through the rule under test).
Problem plain(Problem p) {
  ask(p, std::nullopt);
  return p;
}

// The solution of ab (a's rows and dofs first) against a and b solved apart. The rows of
// different islands never meet in any sum, so the results agree to rounding (1e-13).
void expect_apart(const Solution& sab, const Solution& sa, const Solution& sb, int a_rows, int a_nv) {
  const double tol = 1e-13 * (1.0 + sab.lambda.lpNorm<Eigen::Infinity>());
  EXPECT_LE((sab.lambda.head(a_rows) - sa.lambda).lpNorm<Eigen::Infinity>(), tol);
  EXPECT_LE((sab.lambda.tail(sb.lambda.size()) - sb.lambda).lpNorm<Eigen::Infinity>(), tol);
  EXPECT_LE((sab.v.head(a_nv) - sa.v).lpNorm<Eigen::Infinity>(), tol);
  EXPECT_LE((sab.v.tail(sb.v.size()) - sb.v).lpNorm<Eigen::Infinity>(), tol);
}

TEST(SpookIslandSolver, EachIslandRunsTheSolverItsContactsAskFor) {
  for (std::uint64_t seed = 0; seed < 8; ++seed) {
    Problem a = random_problem(2 * seed, one_island(FrictionTreatment::BoxScaled));
    Problem b = random_problem(2 * seed + 1, one_island(FrictionTreatment::BoxScaled));
    ask(a, SolverType::Direct);
    ask(b, SolverType::Iterative);
    const Solution sab = solve(concat(a, b), SolverType::Split, 8);
    EXPECT_FALSE(sab.solver.has_value());  // reported as per island
    const Solution sa = solve(plain(a), SolverType::Direct, 8), sb = solve(plain(b), SolverType::Iterative, 8);
    expect_apart(sab, sa, sb, a.nrows(), a.nv);
  }
}

TEST(SpookIslandSolver, AnIslandRunsTheStrongestSolverAsked) {
  for (std::uint64_t seed = 0; seed < 8; ++seed) {
    Problem a = random_problem(2 * seed, one_island(FrictionTreatment::Cone));
    Problem b = random_problem(2 * seed + 1, one_island(FrictionTreatment::Cone));
    ask(a, SolverType::Iterative);
    a.contacts[seed % a.contacts.size()].solver = SolverType::Split;  // Split > Iterative
    const Solution sab = solve(concat(a, b), SolverType::Iterative, 8);  // b asks nothing: Iterative
    expect_apart(sab, solve(plain(a), SolverType::Split, 8), solve(b, SolverType::Iterative, 8), a.nrows(), a.nv);
  }
}

TEST(SpookIslandSolver, DirectOnAnIslandWithConeFrictionRunsAsSplit) {
  Problem a = random_problem(7, one_island(FrictionTreatment::Cone));
  Problem b = random_problem(8, one_island(FrictionTreatment::Cone));
  a.contacts[0].solver = SolverType::Direct;  // Direct cannot take the cone
  const Solution sab = solve(concat(a, b), SolverType::DirectIterative, 8);
  expect_apart(sab, solve(plain(a), SolverType::Split, 8), solve(b, SolverType::DirectIterative, 8), a.nrows(),
               a.nv);
  // Asked by every contact of the whole problem, Direct still rejects the cone.
  ask(a, SolverType::Direct);
  EXPECT_THROW(solve(a, SolverType::Split, 8), InputError);
}

}  // namespace
}  // namespace graspsim::spook
