// The quasistatic schemes on hand-made systems (seed 003 eqs. 24–28, reduced).
#include <gtest/gtest.h>

#include <vector>

#include "../common/trials.h"
#include "quasistatic/schemes.h"
#include "solvers/miqp.h"

namespace graspsim {
namespace {

using Vec2 = Eigen::Vector2d;

// The 2D example's left finger and table only (contacts 1 and 3 of eq. 24), two friction
// directions each: n_c = 2, n_d = 4, 8 binaries. q_u = [x_c, y_c], q_a = [x_l, y_g].
QuasistaticSystem finger_and_table(double phi_finger, const Vec2& command) {
  QuasistaticSystem s;
  s.h = 0.01;
  s.dq_command = command;
  s.stiffness_a = VecX::Constant(2, 1e4);
  s.phi = Vec2(phi_finger, 0.0);
  s.mu = Vec2(0.5, 0.5);
  s.directions = {Vec3::UnitY(), -Vec3::UnitY(), Vec3::UnitX(), -Vec3::UnitX()};
  s.Jn_u.resize(2, 2);
  s.Jn_u << 1, 0, 0, 1;
  s.Jn_a.resize(2, 2);
  s.Jn_a << -1, 0, 0, 0;
  s.Jf_u.resize(4, 2);
  s.Jf_u << 0, 1, 0, -1, 1, 0, -1, 0;
  s.Jf_a.resize(4, 2);
  s.Jf_a << 0, -1, 0, 1, 0, 0, 0, 0;
  s.tau_u = Vec2(0.0, -9.81);
  s.M_u = MatX::Identity(2, 2);
  s.contacts.resize(2);
  return s;
}

QuasistaticOptions options(QuasistaticScheme scheme) {
  QuasistaticOptions o;
  o.scheme = scheme;
  o.tangent_directions = 2;
  return o;
}

TEST(QuasistaticSchemes, MiqpOptimumMatchesEnumerationOfContactModes) {
  // Pushing the cylinder sideways along the table, and pushing while lifting: the finger
  // touches, so every contact mode is a candidate.
  const std::vector<Vec2> commands = {Vec2(0.002, 0.001), Vec2(-0.001, 0.001)};
  for (size_t k = 0; k < commands.size(); k += test::kTrialStride) {
    const Vec2& command = commands[k];
    SCOPED_TRACE(command.transpose());
    const QuasistaticSystem s = finger_and_table(0.0, command);
    const QuasistaticOptions o = options(QuasistaticScheme::Miqp);
    const MixedIntegerQp p = quasistatic_miqp(s, o);
    ASSERT_EQ(p.nz(), 8);
    MiqpOptions mo;
    mo.objective_scale = o.objective_scale;
    // The enumeration runs Bonmin on all 256 assignments: about 330 s a command under the sanitizers,
    // so the default 60 s wall-clock limit made the result depend on the machine's load
    // (CI failed here). ctest's timeout still catches a hang.
    mo.time_limit_s = 1000.0;
    const MiqpResult bb = solve_miqp_bonmin(p, mo);
    const MiqpResult all = solve_miqp_enumerate(p, mo);
    ASSERT_EQ(bb.status, MiqpStatus::Optimal) << bb.message;
    ASSERT_EQ(all.status, MiqpStatus::Optimal) << all.message;
    EXPECT_NEAR(bb.objective, all.objective, 1e-9 + 1e-6 * std::abs(all.objective));
    const QuasistaticSolution sol = solve_quasistatic(s, o);
    ASSERT_EQ(sol.status, QuasistaticSolution::Status::Solved) << sol.message;
    const QuasistaticResiduals res = quasistatic_residuals(s, sol, o.scheme);
    EXPECT_LE(res.force_balance, 1e-8);
    EXPECT_LE(res.complementarity, 1e-8);
    EXPECT_LE(res.sign, 1e-8);
  }
}

TEST(QuasistaticSchemes, PushAlongTheTableSlidesTheCylinder) {
  // A 1 mm push: the finger follows it (nothing resists but sliding friction) and the
  // cylinder moves with it. The forces are not unique (the finger's friction may carry part
  // of the weight); the table's friction is at its limit and balances the push.
  const QuasistaticSystem s = finger_and_table(0.0, Vec2(0.001, 0.0));
  for (const auto scheme : {QuasistaticScheme::Lcp, QuasistaticScheme::Miqp}) {
    const QuasistaticSolution sol = solve_quasistatic(s, options(scheme));
    ASSERT_EQ(sol.status, QuasistaticSolution::Status::Solved) << sol.message;
    EXPECT_NEAR(sol.dv_u[0], 0.001, 1e-9);
    EXPECT_NEAR(sol.dv_u[1], 0.0, 1e-9);
    EXPECT_NEAR(sol.dv_a[0], 0.001, 1e-9);
    EXPECT_GT(sol.Pn[0], 0.0);
    EXPECT_NEAR(sol.Pf[3] - sol.Pf[2], 0.5 * sol.Pn[1], 1e-9);  // sliding: −x friction at μ P_n
    EXPECT_NEAR(sol.Pn[0], sol.Pf[3] - sol.Pf[2], 1e-9);
  }
}

TEST(QuasistaticSchemes, LcpReportsAnInfeasibleCommand) {
  // The finger is told to push through a cylinder pinned by a wall (a second finger).
  QuasistaticSystem s = finger_and_table(0.0, Vec2(0.001, 0.0));
  s.phi = Vec3(0.0, 0.0, 0.0);
  s.mu = Vec3(0.5, 0.5, 0.5);
  s.contacts.resize(3);
  s.Jn_u.conservativeResize(3, 2);
  s.Jn_u.row(2) << -1, 0;   // a fixed wall on the right: φ = x_wall − x_c − r
  s.Jn_a.conservativeResize(3, 2);
  s.Jn_a.row(2) << 0, 0;
  s.directions.push_back(Vec3::UnitY());
  s.directions.push_back(-Vec3::UnitY());
  s.Jf_u.conservativeResize(6, 2);
  s.Jf_u.row(4) << 0, 1;
  s.Jf_u.row(5) << 0, -1;
  s.Jf_a.conservativeResize(6, 2);
  s.Jf_a.bottomRows(2).setZero();
  const QuasistaticSolution lcp = solve_quasistatic(s, options(QuasistaticScheme::Lcp));
  EXPECT_EQ(lcp.status, QuasistaticSolution::Status::Infeasible);
  EXPECT_NE(lcp.message.find("infeasible"), std::string::npos);
  // The MIQP follows the command as far as it can: not at all in x.
  const QuasistaticSolution miqp = solve_quasistatic(s, options(QuasistaticScheme::Miqp));
  ASSERT_EQ(miqp.status, QuasistaticSolution::Status::Solved) << miqp.message;
  EXPECT_NEAR(miqp.dv_a[0], 0.0, 1e-9);
  EXPECT_GE(miqp.Pn[0] / s.h, 1e4 * 0.001 - 1e-6);  // the lower bound K φ̄
}

TEST(QuasistaticSchemes, MiqpBoundsEachGeomPairsImpulseByItsDeepestPoint) {
  // The finger of LcpReportsAnInfeasibleCommand, pinned cylinder and all, now touches through
  // a patch of two points: one closed (φ = 0), one 0.2 mm open at the same normal (a pad's
  // far corner). The command sinks both (φ̄ = −1 and −0.8 mm), but the open point cannot
  // close while the other stays shut. Bounding each point's own impulse (eq. 23f read per
  // point) would demand force where no contact can be: no solution. Per pair, the deepest
  // point sets the patch's force and the far point stays open.
  QuasistaticSystem s = finger_and_table(0.0, Vec2(0.001, 0.0));
  s.phi = Eigen::Vector4d(0.0, 0.0, 0.0, 2e-4);
  s.mu = Eigen::Vector4d(0.5, 0.5, 0.5, 0.5);
  s.contacts.resize(4);
  const int finger = 1, table = 2, wall = 3, cylinder = 4;
  s.contacts[0].geom_a = s.contacts[3].geom_a = finger;
  s.contacts[1].geom_a = table;
  s.contacts[2].geom_a = wall;
  for (QuasistaticContact& c : s.contacts) c.geom_b = cylinder;
  s.Jn_u.conservativeResize(4, 2);
  s.Jn_u.row(2) << -1, 0;
  s.Jn_u.row(3) = s.Jn_u.row(0);
  s.Jn_a.conservativeResize(4, 2);
  s.Jn_a.row(2) << 0, 0;
  s.Jn_a.row(3) = s.Jn_a.row(0);
  s.directions.push_back(Vec3::UnitY());
  s.directions.push_back(-Vec3::UnitY());
  s.directions.push_back(Vec3::UnitY());
  s.directions.push_back(-Vec3::UnitY());
  s.Jf_u.conservativeResize(8, 2);
  s.Jf_u.row(4) << 0, 1;
  s.Jf_u.row(5) << 0, -1;
  s.Jf_u.middleRows(6, 2) = s.Jf_u.topRows(2);
  s.Jf_a.conservativeResize(8, 2);
  s.Jf_a.middleRows(4, 2).setZero();
  s.Jf_a.middleRows(6, 2) = s.Jf_a.topRows(2);
  const QuasistaticSolution miqp = solve_quasistatic(s, options(QuasistaticScheme::Miqp));
  ASSERT_EQ(miqp.status, QuasistaticSolution::Status::Solved) << miqp.message;
  EXPECT_TRUE(miqp.proven);
  EXPECT_NEAR(miqp.dv_a[0], 0.0, 1e-9);  // blocked by the pinned cylinder
  EXPECT_NEAR(miqp.Pn[3], 0.0, 1e-12);    // the far corner stays open (to rounding)
  EXPECT_GE((miqp.Pn[0] + miqp.Pn[3]) / s.h, 1e4 * 0.001 - 1e-6);  // K φ̄ of the deepest point
  const QuasistaticResiduals r = quasistatic_residuals(s, miqp, QuasistaticScheme::Miqp);
  EXPECT_LE(r.force_balance, 1e-8);
  EXPECT_LE(r.complementarity, 1e-9);
  EXPECT_GE(r.min_gap, -1e-9);
  // Bonmin on the same MIQP finds the same optimum (0.001², the x command lost).
  MiqpOptions mo;
  mo.objective_scale = QuasistaticOptions{}.objective_scale;
  mo.time_limit_s = 1000.0;
  const MiqpResult bonmin = solve_miqp_bonmin(quasistatic_miqp(s, options(QuasistaticScheme::Miqp)), mo);
  ASSERT_EQ(bonmin.status, MiqpStatus::Optimal) << bonmin.message;
  EXPECT_NEAR(miqp.objective, 1e-6, 1e-12);
  EXPECT_NEAR((bonmin.x.segment(2, 2) - s.dq_command).squaredNorm(), miqp.objective, 1e-12);
}

TEST(QuasistaticSchemes, ConvexSchemeSolvesItsQp) {
  // Its optimum satisfies the QP's KKT conditions: Q Δq + b = Aᵀβ, 0 ≤ w ⊥ β ≥ 0.
  const QuasistaticSystem s = finger_and_table(0.0, Vec2(0.001, 0.0005));
  const QuasistaticOptions o = options(QuasistaticScheme::Convex);
  const QuasistaticSolution sol = solve_quasistatic(s, o);
  ASSERT_EQ(sol.status, QuasistaticSolution::Status::Solved) << sol.message;
  const QuasistaticResiduals res = quasistatic_residuals(s, sol, o.scheme);
  EXPECT_LE(res.complementarity, 1e-10);
  EXPECT_LE(res.sign, 1e-10);
  // Stationarity in the unactuated dofs: (ε/h) M Δq_u − h τ_u = J_uᵀ P.
  const Vec2 lhs = (o.regularization / s.h) * s.M_u * sol.dv_u - s.h * s.tau_u;
  const Vec2 rhs = s.Jn_u.transpose() * sol.Pn + s.Jf_u.transpose() * sol.Pf;
  EXPECT_LE((lhs - rhs).norm(), 1e-8);
  // Actuated: h K (Δq_a − Δq̄_a) = J_aᵀ P.
  const Vec2 lhs_a = s.h * 1e4 * (sol.dv_a - s.dq_command);
  const Vec2 rhs_a = s.Jn_a.transpose() * sol.Pn + s.Jf_a.transpose() * sol.Pf;
  EXPECT_LE((lhs_a - rhs_a).norm(), 1e-8);
}

}  // namespace
}  // namespace graspsim
