// Seeded random problems: the pivoting solver's exactness, PGS convergence towards it,
// Split = Direct without friction, island independence and warm starts.
// Impulses and velocities are O(1) in these problems (A_ii ~ 1, targets ~ 1), so absolute
// tolerances are relative ones; 1e-9 leaves ~6 orders for the conditioning (compliance
// down to 1e-4) over the 1e-16 rounding of the polished final basis.

#include <gtest/gtest.h>

#include <algorithm>
#include <iostream>
#include <random>
#include <string>

#include "core/error.h"
#include "spook/operators.h"
#include "spook/pgs.h"
#include "spook/scratch.h"
#include "spook_test_util.h"

namespace graspsim::spook {
namespace {

using spook_test::RandomSpec;
using spook_test::random_problem;

constexpr int kSeeds = 60;

double solve_and_check_direct(const Problem& p, std::uint64_t seed) {
  const Solution sol = solve(p, SolverType::Direct, 1);
  EXPECT_EQ(sol.direct_failures, 0) << "seed " << seed;
  EXPECT_LE(sol.residual, 1e-9) << "seed " << seed;
  // An independent dense check of the same conditions (bounds, signs, complementarity).
  EXPECT_LE(spook_test::independent_violation(p, sol.lambda, 1.0), 1e-9) << "seed " << seed;
  return sol.residual;
}

TEST(SpookRandom, DirectIsExactForBoxScaledBoxAndPolyhedralFriction) {
  double worst = 0.0;
  for (FrictionTreatment t : {FrictionTreatment::BoxFixed, FrictionTreatment::BoxScaled, FrictionTreatment::Polyhedral}) {
    RandomSpec spec;
    spec.treatment = t;
    for (std::uint64_t seed = 0; seed < kSeeds; ++seed)
      worst = std::max(worst, solve_and_check_direct(random_problem(seed, spec), seed));
  }
  RandomSpec mixed;
  mixed.mixed_treatments = true;
  mixed.contacts = 12;
  mixed.trees = 6;
  for (std::uint64_t seed = 100; seed < 100 + kSeeds; ++seed)
    worst = std::max(worst, solve_and_check_direct(random_problem(seed, mixed), seed));
  std::cout << "[ spook ] worst Direct residual " << worst << " m/s\n";
}

TEST(SpookRandom, ResidualDetectsAPerturbedSolution) {
  const Problem p = random_problem(7, RandomSpec{});
  Solution sol = solve(p, SolverType::Direct, 1);
  VecX perturbed = sol.lambda;
  perturbed[0] += 1e-3;
  EXPECT_GT(complementarity_residual(p, perturbed), 1e-5);
}

TEST(SpookRandom, PgsConvergesMonotonicallyTowardsDirectWithoutFriction) {
  // Frictionless rows with fixed bounds: PGS is exact coordinate descent on the strictly
  // convex SPOOK energy, so the energy cannot increase from one sweep count to the next
  // (up to rounding, 1e-12) and the iterates approach the pivoting solution. "Stiff-free":
  // compliance 0.1..1 keeps A's condition number moderate, so 256 sweeps reach 1e-6;
  // the error is checked for monotone decrease once the first sweeps have settled the
  // active set (16 sweeps) and while it is above rounding (1e-12).
  RandomSpec spec;
  spec.friction = false;
  spec.log10_compliance_min = -1.0;
  spec.log10_compliance_max = 0.0;
  for (std::uint64_t seed = 0; seed < 10; ++seed) {
    const Problem p = random_problem(seed, spec);
    const Solution exact = solve(p, SolverType::Direct, 1);
    const double e_exact = spook_test::spook_energy(p, exact.lambda);
    double previous_energy = kInf, previous_error = kInf, final_error = kInf;
    for (int n : {1, 2, 4, 8, 16, 32, 64, 128, 256}) {
      const Solution s = solve(p, SolverType::Iterative, n);
      const double energy = spook_test::spook_energy(p, s.lambda);
      EXPECT_LE(energy, previous_energy + 1e-12) << "seed " << seed << " sweeps " << n;
      EXPECT_GE(energy, e_exact - 1e-12) << "the pivoting solution is the minimiser";
      previous_energy = energy;
      const double error = (s.lambda - exact.lambda).norm();
      final_error = error;
      if (n >= 16 && error > 1e-12) {
        EXPECT_LE(error, previous_error * (1.0 + 1e-9)) << "seed " << seed << " sweeps " << n;
        previous_error = error;
      }
    }
    EXPECT_LE(final_error, 1e-6 * std::max(1.0, exact.lambda.norm())) << "seed " << seed;
  }
}

TEST(SpookRandom, SplitEqualsDirectWithoutFriction) {
  RandomSpec spec;
  spec.friction = false;
  spec.contacts = 8;
  for (std::uint64_t seed = 0; seed < kSeeds; ++seed) {
    const Problem p = random_problem(seed, spec);
    const Solution d = solve(p, SolverType::Direct, 1);
    for (int outer : {1, 3}) {
      const Solution s = solve(p, SolverType::Split, outer);
      EXPECT_LE((s.lambda - d.lambda).lpNorm<Eigen::Infinity>(), 1e-12 * (1.0 + d.lambda.lpNorm<Eigen::Infinity>()))
          << "seed " << seed;
    }
  }
}

TEST(SpookRandom, IndependentProblemsGiveTheSameResultTogetherOrApart) {
  RandomSpec spec;
  spec.mixed_treatments = true;
  for (std::uint64_t seed = 0; seed < 10; ++seed) {
    const Problem a = random_problem(2 * seed, spec), b = random_problem(2 * seed + 1, spec);
    const Problem ab = spook_test::concat(a, b);
    for (SolverType s : {SolverType::Direct, SolverType::Iterative, SolverType::Split}) {
      const Solution sa = solve(a, s, 8), sb = solve(b, s, 8), sab = solve(ab, s, 8);
      const double tol = 1e-13 * (1.0 + sab.lambda.lpNorm<Eigen::Infinity>());
      EXPECT_LE((sab.lambda.head(a.nrows()) - sa.lambda).lpNorm<Eigen::Infinity>(), tol) << to_string(s);
      EXPECT_LE((sab.lambda.tail(b.nrows()) - sb.lambda).lpNorm<Eigen::Infinity>(), tol) << to_string(s);
      EXPECT_LE((sab.v.tail(b.nv) - sb.v).lpNorm<Eigen::Infinity>(), tol) << to_string(s);
    }
  }
}

TEST(SpookRandom, WarmStartAtTheSolutionStaysThere) {
  // Box rows (fixed or scaled bounds) and polyhedral blocks are exact fixed points of the
  // PGS updates, so starting there moves λ only by rounding.
  RandomSpec spec;
  spec.mixed_treatments = true;
  for (std::uint64_t seed = 0; seed < 20; ++seed) {
    Problem p = random_problem(seed, spec);
    const Solution exact = solve(p, SolverType::Direct, 1);
    p.lambda_warm = exact.lambda;
    const double tol = 1e-11 * (1.0 + exact.lambda.lpNorm<Eigen::Infinity>());
    for (SolverType s : {SolverType::Iterative, SolverType::Split}) {
      const Solution warm = solve(p, s, 16);
      EXPECT_LE((warm.lambda - exact.lambda).lpNorm<Eigen::Infinity>(), tol) << to_string(s) << " seed " << seed;
    }
  }
}

}  // namespace
}  // namespace graspsim::spook

namespace graspsim::spook {
namespace {

TEST(SpookRandom, SplitConvergesToDirectWithFixedBoxFriction) {
  // With fixed friction bounds the MLCP is a strictly convex QP and Split is block
  // coordinate descent (exact normals block, one GS sweep on friction): the distance to the
  // pivoting solution shrinks with the outer iterations. Compliance 0.1..1 keeps the
  // contraction fast enough for 1e-8 at 400 outer iterations.
  RandomSpec spec;
  spec.treatment = FrictionTreatment::BoxFixed;
  spec.log10_compliance_min = -1.0;
  spec.log10_compliance_max = 0.0;
  for (std::uint64_t seed = 0; seed < 10; ++seed) {
    const Problem p = random_problem(seed, spec);
    const Solution d = solve(p, SolverType::Direct, 1);
    const double e4 = (solve(p, SolverType::Split, 4).lambda - d.lambda).norm();
    const double e400 = (solve(p, SolverType::Split, 400).lambda - d.lambda).norm();
    EXPECT_LE(e400, std::max(1e-8, 1e-3 * e4)) << "seed " << seed;
    EXPECT_LE(e400, 1e-8 * (1.0 + d.lambda.norm())) << "seed " << seed;
  }
}

TEST(SpookRandom, EmptyProblemReturnsTheFreeVelocity) {
  Problem p;
  p.nv = 3;
  p.trees.push_back(spook_test::make_tree(0, MatX::Identity(3, 3)));
  p.v_free = Vec3(1.0, -2.0, 3.0);
  spook_test::RowBuilder rb(p);
  rb.finish();
  for (SolverType s : {SolverType::Direct, SolverType::Iterative, SolverType::Split, SolverType::DirectIterative}) {
    const Solution sol = solve(p, s, 4);
    EXPECT_EQ(sol.v, p.v_free) << to_string(s);
    EXPECT_EQ(sol.lambda.size(), 0);
    EXPECT_EQ(sol.residual, 0.0);
  }
}

TEST(SpookRandom, MalformedProblemsAreRejected) {
  Problem p = random_problem(1, RandomSpec{});
  p.compliance[0] = -1.0;
  EXPECT_THROW(solve(p, SolverType::Iterative, 4), std::invalid_argument);
  p = random_problem(1, RandomSpec{});
  p.contacts[0].friction.push_back(p.contacts[1].friction[0]);  // a row in two contacts
  EXPECT_THROW(solve(p, SolverType::Iterative, 4), std::invalid_argument);
  p = random_problem(1, RandomSpec{});
  EXPECT_THROW(solve(p, SolverType::Iterative, 0), InputError);
}

}  // namespace
}  // namespace graspsim::spook

namespace graspsim::spook {
namespace {

TEST(SpookRandom, OversizedIslandFallsBackToPgsAndIsReported) {
  // 700 corner-like contacts on one particle: one island of 2100 rows, above the dense limit.
  const spook_test::Particle part;
  Problem p;
  p.nv = 3;
  p.trees.push_back(spook_test::make_tree(0, part.m * MatX::Identity(3, 3)));
  p.v_free = Vec3(0.1, 0.0, -part.g * part.h);
  spook_test::RowBuilder rb(p);
  for (int i = 0; i < 700; ++i) {
    ContactRows c;
    c.mu = part.mu;
    c.treatment = FrictionTreatment::BoxScaled;
    c.normal = rb.add({{2, 1.0}}, RowKind::Normal, 0.0, 1e-3, 0.0, kInf);
    c.friction = {rb.add({{0, 1.0}}, RowKind::Friction, 0.0, 1e-3, -kInf, kInf),
                  rb.add({{1, 1.0}}, RowKind::Friction, 0.0, 1e-3, -kInf, kInf)};
    p.contacts.push_back(c);
  }
  rb.finish();
  const Solution sol = solve(p, SolverType::Direct, 1);
  EXPECT_EQ(sol.direct_failures, 1);
  // PGS stops the particle (the total normal impulse converges fast) but spreads the load
  // over 700 redundant rows only slowly; the honest residual says so.
  EXPECT_LT(std::abs(sol.v[2]), 1e-6 * part.g * part.h);
  EXPECT_EQ(sol.residual, complementarity_residual(p, sol.lambda));
}

}  // namespace
}  // namespace graspsim::spook

namespace graspsim::spook {
namespace {

TEST(SpookRandom, DirectWarmStartedAtItsSolutionNeedsNoPivots) {
  // The active set guessed from the warm start is the solution's: one LU per island, no
  // Lemke pivots, the same impulses up to rounding of a different elimination (1e-11).
  RandomSpec spec;
  spec.mixed_treatments = true;
  for (std::uint64_t seed = 0; seed < 20; ++seed) {
    Problem p = random_problem(seed, spec);
    const Solution cold = solve(p, SolverType::Direct, 1);
    p.lambda_warm = cold.lambda;
    const Solution warm = solve(p, SolverType::Direct, 1);
    EXPECT_EQ(warm.pivots, 0) << "seed " << seed;
    EXPECT_LE((warm.lambda - cold.lambda).lpNorm<Eigen::Infinity>(), 1e-11 * (1.0 + cold.lambda.lpNorm<Eigen::Infinity>()))
        << "seed " << seed;
    EXPECT_LE(warm.residual, 1e-9);
  }
}

}  // namespace
}  // namespace graspsim::spook

namespace graspsim::spook {
namespace {

TEST(SpookRandom, DirectOnStiffIllConditionedProblems) {
  // Compliance down to 1e-6 of A's O(1) diagonal with up to 10× more rows than dofs: A's
  // condition number reaches ~1e8 and impulses ~1e6 (redundant rows with conflicting
  // targets). Pivoting must not fail, and the residual is held to 1e-9 relative to the
  // size of the terms of A λ (rounding amplified by the conditioning stays below that).
  for (std::uint64_t seed = 0; seed < 200; ++seed) {
    RandomSpec spec;
    spec.mixed_treatments = true;
    spec.contacts = 4 + seed % 20;
    spec.trees = 2 + seed % 7;
    spec.k = 4 + 4 * (seed % 4);
    spec.log10_compliance_min = -6.0;
    const Problem p = random_problem(seed, spec);
    const Solution sol = solve(p, SolverType::Direct, 1);
    EXPECT_EQ(sol.direct_failures, 0) << "seed " << seed;
    const MatX J = MatX(p.J);
    const double A_max = (J * spook_test::dense_mass(p).ldlt().solve(J.transpose())).diagonal().maxCoeff();
    const double scale = std::max(1.0, A_max * sol.lambda.lpNorm<Eigen::Infinity>());
    EXPECT_LE(sol.residual, 1e-9 * scale) << "seed " << seed;
  }
}

}  // namespace
}  // namespace graspsim::spook

namespace graspsim::spook {
namespace {

TEST(SpookRandom, WarmStartOffByOneContactIsRepairedWithoutLemke) {
  // Three contact normals on one body, pressed in (no friction: one LCP variable per row). The warm
  // start is the solution of a neighbouring problem in which row `flip` still pushed; now it
  // separates, so the guessed basis is wrong in one index. One principal pivot repairs it:
  // no Lemke pivots, and the impulses equal a cold solve's.
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (int flip = 0; flip < 3; ++flip) {
    Problem p;
    p.nv = 3;
    MatX L = MatX::Identity(3, 3);
    L(1, 0) = 0.3 * u(rng), L(2, 0) = 0.3 * u(rng), L(2, 1) = 0.3 * u(rng);
    p.trees.push_back(spook_test::make_tree(0, L * L.transpose()));
    p.v_free = Vec3(-0.5 + 0.1 * u(rng), -0.5 + 0.1 * u(rng), -0.5);  // approaching all three
    spook_test::RowBuilder rb(p);
    const Vec3 dirs[3] = {Vec3(0.1, 0, 1).normalized(), Vec3(1, 0, 0.1).normalized(), Vec3(0, 1, 0.1).normalized()};
    for (const Vec3& d : dirs) {
      ContactRows c;
      c.treatment = FrictionTreatment::BoxScaled;  // (with no friction rows)
      c.normal = rb.add({{0, d.x()}, {1, d.y()}, {2, d.z()}}, RowKind::Normal, 0.1, 1e-3, 0.0, kInf);
      p.contacts.push_back(c);
    }
    rb.finish();
    const Solution before = solve(p, SolverType::Direct, 1);
    ASSERT_GT(before.lambda[flip], 0.0);
    p.target[flip] = -10.0;  // the row now separates fast: λ = 0 there
    const Solution cold = solve(p, SolverType::Direct, 1);
    ASSERT_EQ(cold.lambda[flip], 0.0);
    p.lambda_warm = before.lambda;
    const Solution warm = solve(p, SolverType::Direct, 1);
    EXPECT_EQ(warm.pivots, 0) << "flip " << flip;
    EXPECT_LE((warm.lambda - cold.lambda).lpNorm<Eigen::Infinity>(), 1e-12) << "flip " << flip;
    EXPECT_LE(warm.residual, 1e-12);
  }
}

}  // namespace
}  // namespace graspsim::spook

namespace graspsim::spook {
namespace {

using spook_test::RandomSpec;
using spook_test::random_problem;

void expect_same_operators(const Operators& a, const Operators& b, const std::string& what) {
  EXPECT_EQ(a.D, b.D) << what;
  EXPECT_EQ(a.inv_D, b.inv_D) << what;
  EXPECT_EQ(a.bias, b.bias) << what;
  EXPECT_EQ(a.row_run_begin, b.row_run_begin) << what;
  EXPECT_EQ(a.contact_of_row, b.contact_of_row) << what;
  EXPECT_EQ(a.sweep_items, b.sweep_items) << what;
  EXPECT_EQ(a.sweep_paired, b.sweep_paired) << what;
  EXPECT_EQ(a.sweep_pairs, b.sweep_pairs) << what;
  EXPECT_EQ(a.island_rows, b.island_rows) << what;
  EXPECT_EQ(a.island_begin, b.island_begin) << what;
  EXPECT_EQ(a.run_nz, b.run_nz) << what;
  ASSERT_EQ(a.runs.size(), b.runs.size()) << what;
  for (size_t k = 0; k < a.runs.size(); ++k) {
    const Run &x = a.runs[k], &y = b.runs[k];
    EXPECT_EQ(x.tree, y.tree);
    EXPECT_EQ(x.nz, y.nz);
    for (int d = 0; d < x.nv; ++d) {
      EXPECT_EQ(a.jd[x.offset + d], b.jd[y.offset + d]) << what << ", run " << k;
      EXPECT_EQ(a.wd[x.offset + d], b.wd[y.offset + d]) << what << ", run " << k;
    }
  }
}

// New values on the same structure (J's entries, targets, compliance, v_free, masses) under
// the same structure stamp keep the operators' layout and give what operators built from
// scratch give, bit for bit; another stamp, no stamp or islands no longer wanted lay out anew.
TEST(SpookOperators, TheLayoutIsKeptUnderTheSameStructureStampAndOnlyValuesChange) {
  RandomSpec spec;
  spec.trees = 5;
  spec.contacts = 6;
  spec.mixed_treatments = true;
  for (std::uint64_t seed = 1; seed <= 10; ++seed) {
    Problem p = random_problem(seed, spec);
    Problem q = random_problem(1000 + seed, spec);  // another structure
    p.structure = 7;
    Problem same = p;  // new values on p's structure
    for (int i = 0; i < same.J.nonZeros(); ++i) same.J.valuePtr()[i] *= 1.0 + 0.1 * std::sin(i + seed);
    same.target = p.target.reverse();
    same.compliance = 2.0 * p.compliance;
    same.v_free = -p.v_free;
    for (Tree& t : same.trees) t.M_llt.compute(2.0 * t.M_llt.reconstructedMatrix());
    Operators ops;
    make_operators(p, ops);
    EXPECT_FALSE(ops.layout_kept);
    make_operators(same, ops);
    EXPECT_TRUE(ops.layout_kept) << "seed " << seed;
    expect_same_operators(ops, make_operators(same), "same structure, seed " + std::to_string(seed));
    q.structure = 8;
    make_operators(q, ops);
    EXPECT_FALSE(ops.layout_kept);
    expect_same_operators(ops, make_operators(q), "another problem, seed " + std::to_string(seed));
    q.structure = 0;
    make_operators(q, ops);
    EXPECT_FALSE(ops.layout_kept);  // no stamp: never kept
    q.structure = 8;
    make_operators(q, ops);
    EXPECT_FALSE(ops.layout_kept);  // (after a call without a stamp)
    make_operators(q, ops);
    EXPECT_TRUE(ops.layout_kept);
  }
}

TEST(SpookParallel, SweepsOnThreadsGiveTheBitsOfOneThread) {
  RandomSpec spec;
  spec.trees = 3;
  spec.contacts = 5;
  spec.treatment = FrictionTreatment::Cone;
  Problem p = random_problem(1, spec);
  for (std::uint64_t seed = 2; p.nrows() < kParallelMinRows + 20; ++seed) p = spook_test::concat(p, random_problem(seed, spec));
  p.relax_target = 0.5 * p.target;
  for (int relax : {0, 4}) {
    const Solution one = solve(p, SolverType::Iterative, 16, relax, 1);
    EXPECT_EQ(one.threads, 1);
    for (int threads : {2, 3, 8}) {
      const Solution many = solve(p, SolverType::Iterative, 16, relax, threads);
      EXPECT_EQ(many.threads, threads) << "relax " << relax;
      EXPECT_EQ(many.lambda, one.lambda) << threads << " threads, relax " << relax;
      EXPECT_EQ(many.v, one.v) << threads << " threads, relax " << relax;
      if (relax > 0) {
        EXPECT_EQ(many.v_position, one.v_position) << threads << " threads";
      }
      EXPECT_EQ(many.residual, one.residual);
    }
  }
  // With a tolerance each group of islands stops on its own: the same bits on any number of
  // threads too, fewer sweeps than asked for some groups, and not more than asked.
  const Solution stopped = solve(p, SolverType::Iterative, 400, 0, 1, 1e-7);
  EXPECT_LE(stopped.iterations, 400);
  const Solution all = solve(p, SolverType::Iterative, 400, 0, 1);
  EXPECT_NE(stopped.lambda, all.lambda) << "some group must stop early";
  EXPECT_LT((stopped.v - all.v).cwiseAbs().maxCoeff(), 1e-5) << "stopped where the sweeps were still moving v";
  for (int threads : {2, 3, 8}) {
    const Solution many = solve(p, SolverType::Iterative, 400, 0, threads, 1e-7);
    EXPECT_EQ(many.lambda, stopped.lambda) << threads << " threads, tolerance";
    EXPECT_EQ(many.v, stopped.v) << threads << " threads, tolerance";
    EXPECT_EQ(many.iterations, stopped.iterations);
  }
  // Kept scratch, step after step (the pool's threads reused), and a small problem.
  SolverScratch scratch;
  Solution sol;
  for (int k = 0; k < 3; ++k) {
    solve(p, SolverType::Iterative, 16, 0, scratch, sol, 2);
    EXPECT_EQ(sol.threads, 2);
    EXPECT_EQ(sol.lambda, solve(p, SolverType::Iterative, 16, 0, 1).lambda);
  }
  const Problem small = random_problem(1, spec);
  solve(small, SolverType::Iterative, 16, 0, scratch, sol, 2);
  EXPECT_EQ(sol.threads, 1);
  EXPECT_THROW(solve(small, SolverType::Iterative, 16, 0, 0), std::exception);
}

// A problem of `trees` free bodies (random SPD 6 × 6 masses) with random free velocities.
Problem free_bodies(std::mt19937_64& rng, int trees) {
  std::uniform_real_distribution<double> U(-1.0, 1.0);
  Problem p;
  for (int t = 0; t < trees; ++t) {
    MatX B(6, 6);
    for (int i = 0; i < 36; ++i) B.data()[i] = U(rng);
    p.trees.push_back(spook_test::make_tree(6 * t, B * B.transpose() + 0.5 * MatX::Identity(6, 6)));
  }
  p.nv = 6 * trees;
  p.v_free = VecX::NullaryExpr(p.nv, [&] { return U(rng); });
  return p;
}

// Seven sweeps through operators a and through b, from the same start, give the same bits:
// all rows from zero, and the friction rows alone under some normal impulse.
void expect_same_sweeps(const Problem& p, const Operators& a, const Operators& b, std::mt19937_64& rng,
                        const std::string& what) {
  std::uniform_real_distribution<double> P(0.0, 1.0);
  for (SweepRows rows : {SweepRows::All, SweepRows::FrictionOnly}) {
    VecX lambda_a = VecX::Zero(p.nrows()), lambda_b = lambda_a;
    if (rows == SweepRows::FrictionOnly)  // some normal impulse to bound the friction by
      for (const ContactRows& c : p.contacts) lambda_a[c.normal] = lambda_b[c.normal] = P(rng);
    VecX v_a = velocity_of(p, a, lambda_a), v_b = v_a;
    pgs_sweeps(p, a, rows, 7, lambda_a, v_a);
    pgs_sweeps(p, b, rows, 7, lambda_b, v_b);
    ASSERT_TRUE(lambda_a.allFinite() && v_a.allFinite());
    EXPECT_GT(lambda_a.cwiseAbs().maxCoeff(), 0.0) << what;  // (the sweeps did something)
    for (int i = 0; i < p.nrows(); ++i) EXPECT_EQ(lambda_a[i], lambda_b[i]) << what << " row " << i;
    for (int i = 0; i < p.nv; ++i) EXPECT_EQ(v_a[i], v_b[i]) << what << " dof " << i;
  }
}

// PGS's kernels for contacts on one or two free bodies (6-dof trees: Operators::free_contacts,
// velocities held in locals, one per friction treatment) must give the bits of the general
// row-by-row path, which sees the same contacts when free_contacts is cleared.
TEST(SpookRandom, PgsFreeBodyKernelsGiveTheGeneralRowsBits) {
  const FrictionTreatment treatments[] = {FrictionTreatment::Cone, FrictionTreatment::BoxScaled, FrictionTreatment::BoxFixed};
  for (std::uint64_t seed = 0; seed < 20; ++seed) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> U(-1.0, 1.0), P(0.0, 1.0);
    constexpr int kTrees = 4;
    Problem p = free_bodies(rng, kTrees);
    ProblemBuilder rb(p);
    auto row = [&](int ta, int tb) {  // dense over one tree (tb < 0) or two
      std::vector<std::pair<int, double>> e;
      for (int t : {ta, tb})
        if (t >= 0)
          for (int k = 0; k < 6; ++k) e.emplace_back(6 * t + k, U(rng));
      return e;
    };
    for (int c = 0; c < 12; ++c) {
      const int ta = static_cast<int>(P(rng) * kTrees) % kTrees;
      const int tb = c % 2 ? (ta + 1 + static_cast<int>(P(rng) * (kTrees - 1))) % kTrees : -1;
      ContactRows cr;
      cr.mu = 0.1 + 0.9 * P(rng);
      cr.treatment = treatments[c % 3];
      cr.normal = rb.add(row(ta, tb), RowKind::Normal, -0.5 + 1.5 * P(rng), 1e-3 * P(rng), 0.0, kInf);
      const double b = cr.treatment == FrictionTreatment::BoxFixed ? 0.3 * P(rng) : kInf;
      for (int k = 0; k < 2; ++k) cr.friction.push_back(rb.add(row(ta, tb), RowKind::Friction, 0.0, 1e-4, -b, b));
      p.contacts.push_back(cr);
    }
    rb.finish();
    const Operators kernels = make_operators(p);
    int one = 0, two = 0;
    for (const Operators::FreeContact& f : kernels.free_contacts) one += f.runs == 1, two += f.runs == 2;
    ASSERT_EQ(one, 6) << "seed " << seed;  // (every contact qualifies: the kernels are what is compared)
    ASSERT_EQ(two, 6) << "seed " << seed;
    Operators general = kernels;
    for (Operators::FreeContact& f : general.free_contacts) f.runs = 0;
    general.sweep_paired.assign(general.sweep_items.size(), 0);  // (pairs are of free-body contacts)
    general.sweep_pairs = 0;
    expect_same_sweeps(p, kernels, general, rng, "seed " + std::to_string(seed));
  }
}

// The sweep takes the islands two at a time and alternates their items, each island's in row
// order, and steps a cone contact on free bodies together with one of the other island: the
// same bits as the sweep in row order, since items of different islands touch no common tree.
// (Two contacts of one island paired would not give them: the test fails when order_sweep
// pairs items regardless of their islands.)
TEST(SpookRandom, PairedSweepsOfTwoIslandsGiveTheBitsOfRowOrder) {
  for (std::uint64_t seed = 0; seed < 10; ++seed) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> U(-1.0, 1.0), P(0.0, 1.0);
    constexpr int kTrees = 8;  // trees 0-3 and 4-7: two islands at least
    Problem p = free_bodies(rng, kTrees);
    ProblemBuilder rb(p);
    auto row = [&](int ta, int tb) {
      std::vector<std::pair<int, double>> e;
      for (int t : {std::min(ta, tb), std::max(ta, tb)})
        if (t >= 0)
          for (int k = 0; k < 6; ++k) e.emplace_back(6 * t + k, U(rng));
      return e;
    };
    for (int c = 0; c < 24; ++c) {
      const int group = static_cast<int>(P(rng) * 2) % 2;
      const int ta = 4 * group + static_cast<int>(P(rng) * 4) % 4;
      const int tb = c % 3 ? 4 * group + (ta % 4 + 1 + static_cast<int>(P(rng) * 3) % 3) % 4 : -1;
      ContactRows cr;
      cr.mu = 0.1 + 0.9 * P(rng);
      cr.treatment = c % 5 == 4 ? FrictionTreatment::BoxScaled : FrictionTreatment::Cone;
      cr.normal = rb.add(row(ta, tb), RowKind::Normal, -0.5 + 1.5 * P(rng), 1e-3 * P(rng), 0.0, kInf);
      for (int k = 0; k < 2; ++k) cr.friction.push_back(rb.add(row(ta, tb), RowKind::Friction, 0.0, 1e-4, -kInf, kInf));
      if (c % 7 == 0) cr.torsion = rb.add(row(ta, tb), RowKind::Friction, 0.0, 1e-4, -kInf, kInf), cr.torsion_mu = 0.01;
      p.contacts.push_back(cr);
    }
    rb.finish();
    const Operators paired = make_operators(p);
    ASSERT_GE(paired.nislands(), 2) << "seed " << seed;
    // The items: those of row order, each island's in row order; pairs of two islands.
    Operators row_order = paired;
    row_order.sweep_items.clear();
    for (int i = 0; i < p.nrows(); ++i) {
      const int c = paired.contact_of_row[i];
      if (c < 0) row_order.sweep_items.push_back(-1 - i);
      else if (p.contacts[c].normal == i) row_order.sweep_items.push_back(c);
    }
    row_order.sweep_paired.assign(row_order.sweep_items.size(), 0);
    row_order.sweep_pairs = 0;
    std::vector<int> island_of_row(p.nrows());
    for (int k = 0; k < paired.nislands(); ++k)
      for (int j = paired.island_begin[k]; j < paired.island_begin[k + 1]; ++j) island_of_row[paired.island_rows[j]] = k;
    auto first_row = [&](int item) { return item >= 0 ? p.contacts[item].normal : -1 - item; };
    std::vector<int> sorted = paired.sweep_items;
    std::sort(sorted.begin(), sorted.end());
    std::vector<int> expected = row_order.sweep_items;
    std::sort(expected.begin(), expected.end());
    ASSERT_EQ(sorted, expected) << "seed " << seed;
    std::vector<int> last_row(paired.nislands(), -1);
    int pairs = 0;
    for (size_t k = 0; k < paired.sweep_items.size(); ++k) {
      const int r = first_row(paired.sweep_items[k]), island = island_of_row[r];
      EXPECT_GT(r, last_row[island]) << "seed " << seed << ": island " << island << " out of row order";
      last_row[island] = r;
      if (!paired.sweep_paired[k]) continue;
      ++pairs;
      ASSERT_LT(k + 1, paired.sweep_items.size());
      EXPECT_NE(island, island_of_row[first_row(paired.sweep_items[k + 1])]) << "seed " << seed;
    }
    ASSERT_GT(pairs, 0) << "seed " << seed;
    expect_same_sweeps(p, paired, row_order, rng, "seed " + std::to_string(seed));
  }
}

// A tree given the no-fill-in factor (Tree::M_tree, as the stepper does for trees over
// kDenseInverseMaxNv dofs) solves as with its Cholesky factor. Each random tree is taken as a
// chain of its dofs, for which any M has the tree's pattern; W, D and the free-velocity
// updates then go through TreeLdl. The two differ by rounding only: 1e-9 as above.
TEST(SpookRandom, TheSparseTreeFactorGivesTheCholeskyFactorsSolution) {
  RandomSpec spec;
  spec.treatment = FrictionTreatment::Cone;
  for (std::uint64_t seed = 0; seed < 20; ++seed) {
    const Problem p = random_problem(seed, spec);
    Problem q = p;
    for (Tree& t : q.trees) {
      std::vector<int> chain(static_cast<size_t>(t.nv));
      for (int i = 0; i < t.nv; ++i) chain[static_cast<size_t>(i)] = i - 1;
      const MatX M = t.M_llt.reconstructedMatrix();
      ASSERT_TRUE(t.M_tree.compute(M, chain));
      t.M_llt.compute(2.0 * M);  // wrong on purpose: a solve that read it would differ by 2×
      ASSERT_TRUE(t.sparse());
    }
    for (SolverType solver : {SolverType::Iterative, SolverType::Split}) {
      const Solution a = solve(p, solver, 16), b = solve(q, solver, 16);
      EXPECT_LE((a.lambda - b.lambda).lpNorm<Eigen::Infinity>(), 1e-9) << "seed " << seed;
      EXPECT_LE((a.v - b.v).lpNorm<Eigen::Infinity>(), 1e-9) << "seed " << seed;
    }
  }
}

// A hand holding a ball, as the stepper gives it to the solver: one branched tree of 24 dofs
// (a wrist of two, five fingers of four or five from it, the Shadow Hand's shape) and a free
// body. The hand's mass has the tree's pattern (M = Lᵀ D L, L nonzero only at (dof,
// ancestor)). Rows: cone contacts between a finger's chain and the body, a servo and the
// dry friction of one joint (twins), a coupling of two joints of a finger, a limit.
struct HandProblem {
  Problem p;
  MatX M;
  std::vector<int> parent;
};

HandProblem hand_problem(std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> U(-1.0, 1.0), P(0.0, 1.0);
  HandProblem h;
  std::vector<int> finger_begin;
  h.parent = {-1, 0};
  for (int len : {4, 4, 4, 5, 5}) {
    finger_begin.push_back(static_cast<int>(h.parent.size()));
    for (int k = 0; k < len; ++k) h.parent.push_back(k == 0 ? 1 : static_cast<int>(h.parent.size()) - 1);
  }
  finger_begin.push_back(static_cast<int>(h.parent.size()));
  const int n = static_cast<int>(h.parent.size());
  MatX L = MatX::Zero(n, n);
  for (int i = 0; i < n; ++i) {
    L(i, i) = 0.3 + P(rng);
    for (int j = h.parent[i]; j >= 0; j = h.parent[j]) L(i, j) = 0.5 * U(rng);
  }
  h.M = 0.05 * L.transpose() * L;
  Problem& p = h.p;
  p.nv = n + 6;
  p.trees.push_back(spook_test::make_tree(0, h.M));
  MatX B(6, 6);
  for (int i = 0; i < 36; ++i) B.data()[i] = U(rng);
  p.trees.push_back(spook_test::make_tree(n, 0.1 * (B * B.transpose() + MatX::Identity(6, 6))));
  p.v_free.resize(p.nv);
  for (int i = 0; i < p.nv; ++i) p.v_free[i] = U(rng);
  auto chain = [&](int f, int last) {  // the wrist and finger f's joints up to `last`
    std::vector<std::pair<int, double>> e{{0, U(rng)}, {1, U(rng)}};
    for (int k = finger_begin[f]; k <= last; ++k) e.emplace_back(k, U(rng));
    return e;
  };
  spook_test::RowBuilder rb(p);
  for (int point = 0; point < 10; ++point) {  // two points each on the first two links
    const int c = point < 4 ? point / 2 : point - 2;
    const int f = c % 5, last = finger_begin[f + 1] - 1 - c / 5;
    auto row = [&] {
      auto e = chain(f, last);
      for (int k = 0; k < 6; ++k) e.emplace_back(n + k, U(rng));
      return e;
    };
    ContactRows cr;
    cr.mu = 0.3 + 0.7 * P(rng);
    cr.treatment = FrictionTreatment::Cone;
    cr.normal = rb.add(row(), RowKind::Normal, -0.5 + P(rng), 1e-6, 0.0, kInf);
    cr.friction.push_back(rb.add(row(), RowKind::Friction, 0.0, 1e-8, -kInf, kInf));
    cr.friction.push_back(rb.add(row(), RowKind::Friction, 0.0, 1e-8, -kInf, kInf));
    p.contacts.push_back(cr);
  }
  for (int d = 0; d < n; d += 3) {
    rb.add({{d, 1.0}}, RowKind::Bounded, 0.3 * U(rng), 1e-3, -2.0, 2.0);   // a servo
    rb.add({{d, 1.0}}, RowKind::Bounded, 0.0, 1e-9, -0.05, 0.05);          // its joint's dry friction
  }
  rb.add({{finger_begin[4] + 2, 1.0}, {finger_begin[4] + 3, -1.0}}, RowKind::Equality, 0.1 * U(rng), 1e-6, -kInf, kInf);
  rb.add({{finger_begin[2] + 1, 1.0}}, RowKind::Limit, 0.2 * U(rng), 0.0, 0.0, kInf);
  rb.finish();
  p.relax_target = p.target;
  return h;
}

// The hand's tree solved in mass-diagonal coordinates (Tree::sparse, operators.h) gives the
// solution of its dense Cholesky factor, for every solver, a relax pass, the twins and the
// contacts' chain kernel; and its rows' runs there are the chains of their joints, not the
// whole tree. 1e-9 as above: the
// two differ by rounding only.
TEST(SpookRandom, ABranchedTreeInMassDiagonalCoordinatesGivesTheDenseSolution) {
  long chain_runs = 0;
  for (std::uint64_t seed = 0; seed < 12; ++seed) {
    const HandProblem h = hand_problem(seed);
    Problem q = h.p;
    Tree& t = q.trees[0];
    ASSERT_TRUE(t.M_tree.compute(h.M, h.parent));
    t.M_llt.compute(2.0 * h.M);  // wrong on purpose: a solve that read it would differ by 2×
    ASSERT_TRUE(t.sparse());
    for (SolverType solver : {SolverType::Iterative, SolverType::Split, SolverType::DirectIterative}) {
      for (int relax : {0, 4}) {
        if (relax > 0 && solver != SolverType::Iterative) continue;
        const Solution a = solve(h.p, solver, 24, relax), b = solve(q, solver, 24, relax);
        const std::string what = "seed " + std::to_string(seed) + ", solver " + std::to_string(static_cast<int>(solver));
        EXPECT_LE((a.lambda - b.lambda).lpNorm<Eigen::Infinity>(), 1e-9) << what;
        EXPECT_LE((a.v - b.v).lpNorm<Eigen::Infinity>(), 1e-9) << what;
        EXPECT_NEAR(a.residual, b.residual, 1e-9) << what;
        ASSERT_EQ(a.v_position.size(), b.v_position.size()) << what;
        if (relax > 0) {
          EXPECT_LE((a.v_position - b.v_position).lpNorm<Eigen::Infinity>(), 1e-9) << what;
        }
      }
    }
    const Operators ops = make_operators(q);
    for (const spook::Run& r : ops.runs) {
      if (r.tree != 0) continue;
      EXPECT_TRUE(r.w_sparse) << "seed " << seed;
      EXPECT_LE(r.nz, 7) << "seed " << seed;  // a chain: the wrist's 2 and at most a finger's 5, not 24
    }
    int twins = 0;
    for (int i = 0; i < q.nrows(); ++i) twins += ops.twin[i] >= 0 && ops.twin_same[i];
    EXPECT_EQ(twins, 8) << "seed " << seed;
    // Every contact is swept on its gathered chain (pgs.cpp, ChainContactRows); with the dense
    // factor none is, so the solutions above compare the two kernels too.
    EXPECT_EQ(std::count_if(ops.chain_of_contact.begin(), ops.chain_of_contact.end(), [](int k) { return k >= 0; }), 10);
    const Operators dense = make_operators(h.p);
    EXPECT_TRUE(std::all_of(dense.chain_of_contact.begin(), dense.chain_of_contact.end(), [](int k) { return k < 0; }));
    // Every row of no contact is swept from its packed record (pgs.cpp, joint_item), the twins
    // as one; with the dense factor none is, so the solutions above compare the two paths.
    int packed_rows = 0, free_rows = 0;
    for (const Operators::JointItem& j : ops.joint_items) packed_rows += j.k >= 0 ? 2 : 1;
    for (int i = 0; i < q.nrows(); ++i) free_rows += ops.contact_of_row[i] < 0;
    EXPECT_EQ(packed_rows, free_rows) << "seed " << seed;
    EXPECT_TRUE(dense.joint_items.empty());
    chain_runs += std::count_if(ops.chain_next.begin(), ops.chain_next.end(), [](int c) { return c >= 0; });
  }
  // Some contacts are stepped on their run's gather (Operators::chain_next), so the solutions
  // above compare that path too.
  EXPECT_GT(chain_runs, 0);
}

}  // namespace
}  // namespace graspsim::spook
