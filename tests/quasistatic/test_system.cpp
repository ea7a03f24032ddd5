// The quasistatic system built from a scene: torsional friction (the contact material's
// `torsional_friction`) as two rotational directions per contact, the points kept from the
// last step's slots, and the stepper's post-stabilisation of the contacts it closed.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "../common/temp_dir.h"
#include "collision/narrowphase.h"
#include "io/scene.h"
#include "kinematics/integrate.h"
#include "kinematics/kinematics.h"
#include "quasistatic/schemes.h"
#include "quasistatic/system.h"
#include "steppers/step.h"

namespace graspsim {
namespace {

constexpr double kArm = 0.01, kMu = 0.5, kMass = 1.0, kG = 9.81;

// A ball resting on a table: one contact point, right below its centre, so a spin about the
// vertical slips nowhere and only torsional friction resists it.
std::string ball_scene(const test::TempDir& dir, double torsional_friction) {
  return dir.write("ball.yaml", R"(
duration: 0.01
options: {dt: 0.01, stepper: quasistatic, scheme: lcp, gravity: [0, 0, -9.81]}
materials: [rubber, wood]
contact_materials:
  - {materials: [rubber, wood], friction: 0.5, torsional_friction: )" + show(torsional_friction) + R"(}
geoms:
  - {name: table, type: plane, material: wood}
bodies:
  - name: ball
    pos: [0, 0, 0.05]
    joint: free
    mass: 1.0
    geoms:
      - {name: ball_geom, type: sphere, size: [0.05], material: rubber}
)");
}

QuasistaticSystem ball_on_table(const test::TempDir& dir, QuasistaticScheme scheme, QuasistaticOptions& o) {
  const std::string path = ball_scene(dir, kArm);
  const Scene scene = load_scene(path);
  const Model& model = *scene.model;
  o = scene_formulation(model).quasistatic;
  o.scheme = scheme;
  State s = make_state(model);
  Input in = make_input(model);
  KinematicsData kin;
  QuasistaticBuildScratch scratch;
  QuasistaticSystem sys;
  build_quasistatic_system(model, s, in, o, quasistatic_partition(model), kin, scratch, sys);
  return sys;
}

// The two rows are ± (a/μ) n·ω: of norm a/μ on the ball's rotation dofs, orthogonal to the
// normal and tangent rows (a spin about the contact normal neither opens nor slips).
TEST(QuasistaticSystem, TorsionRowsMeasureTheSpinAboutTheNormalScaledByArmOverMu) {
  test::TempDir dir;
  QuasistaticOptions o;
  const QuasistaticSystem sys = ball_on_table(dir, QuasistaticScheme::Lcp, o);
  ASSERT_EQ(sys.nc(), 1);
  ASSERT_EQ(sys.ntorsion, 2);
  EXPECT_EQ(sys.ntangent(), o.tangent_directions);
  EXPECT_DOUBLE_EQ(sys.torsion_arm[0], kArm);
  const int nt = sys.ntangent();
  // The torsion rows are ± each other and see only rotation: zero on every translation.
  EXPECT_TRUE(sys.Jf_u.row(nt).isApprox(-sys.Jf_u.row(nt + 1)));
  const Eigen::RowVectorXd row = sys.Jf_u.row(nt);
  EXPECT_NEAR(row.norm(), kArm / kMu, 1e-12);
  EXPECT_NEAR(row.dot(sys.Jn_u.row(0)), 0.0, 1e-12);  // a spin does not open the gap
  for (int k = 0; k < nt; ++k) EXPECT_NEAR(row.dot(sys.Jf_u.row(k)), 0.0, 1e-12);  // nor slip
}

// Quasistatic balance of an applied torque τ about the vertical: held while τ ≤ a m g (the
// moment bound a P_n, P_n = m g h), infeasible above it: nothing else can balance it.
TEST(QuasistaticSystem, TorsionalFrictionHoldsATorqueUpToArmTimesWeight) {
  test::TempDir dir;
  for (const QuasistaticScheme scheme : {QuasistaticScheme::Lcp, QuasistaticScheme::Miqp}) {
    for (const double fraction : {0.5, 0.95, 1.05}) {
      SCOPED_TRACE(::testing::Message() << to_string(scheme) << " torque " << fraction << " of a m g");
      QuasistaticOptions o;
      QuasistaticSystem sys = ball_on_table(dir, scheme, o);
      const int nt = sys.ntangent();
      const VecX spin = sys.Jf_u.row(nt).transpose().normalized();  // a unit torque about z (free joint's rotation dofs)
      const double torque = fraction * kArm * kMass * kG;
      sys.tau_u += torque * spin;
      const QuasistaticSolution sol = solve_quasistatic(sys, o);
      if (fraction > 1.0) {
        EXPECT_EQ(sol.status, QuasistaticSolution::Status::Infeasible) << sol.message;
        continue;
      }
      ASSERT_EQ(sol.status, QuasistaticSolution::Status::Solved) << sol.message;
      EXPECT_NEAR(sol.Pn[0], kMass * kG * sys.h, 1e-9);
      const double moment = kArm / kMu * (sol.Pf[nt] - sol.Pf[nt + 1]);
      EXPECT_NEAR(moment, -torque * sys.h, 1e-9);  // opposes the torque
      EXPECT_NEAR(sol.dv_u.dot(spin), 0.0, 1e-9);  // and it does not turn
      const QuasistaticResiduals r = quasistatic_residuals(sys, sol, scheme);
      EXPECT_LE(r.force_balance, 1e-9);
      EXPECT_LE(r.complementarity, 1e-9);
    }
  }
}

TEST(QuasistaticSystem, ANegativeTorsionalFrictionIsRejectedNamingItsMaterial) {
  test::TempDir dir;
  // (load_scene runs the chosen stepper's checks.)
  const std::string what = test::input_error([&] { load_scene(ball_scene(dir, -0.01)); });
  EXPECT_NE(what.find("ball.yaml:6: contact material 'rubber/wood'"), std::string::npos) << what;
  EXPECT_NE(what.find("torsional_friction"), std::string::npos) << what;
}

TEST(QuasistaticSystem, ClosedGapAndSupportTiltOutOfRangeAreRejectedByName) {
  test::TempDir dir;
  const std::string path = ball_scene(dir, 0.01);
  for (const auto& [set, key] : {std::pair{"options.quasistatic.closed_gap=-1e-9", "'closed_gap' must be"},
                                 std::pair{"options.quasistatic.support_tilt=0", "'support_tilt' must be"}}) {
    const std::string what = test::input_error([&] { load_scene(path, {set}); });
    EXPECT_NE(what.find(key), std::string::npos) << what;
  }
}

// A block resting flat on a table: its four corners are contacts, and each step's slots keep
// their witnesses in their bodies.
std::string block_scene(const test::TempDir& dir) {
  return dir.write("block.yaml", R"(
duration: 0.01
options: {dt: 0.01, stepper: quasistatic, scheme: lcp, gravity: [0, 0, -9.81]}
geoms:
  - {name: table, type: plane}
bodies:
  - name: block
    pos: [0, 0, 0.02]
    joint: free
    mass: 1.0
    geoms:
      - {name: block_geom, type: box, size: [0.05, 0.03, 0.02]}
)");
}

// A collider that loses three of the four corners (as a tilted pair does once its gap opens
// by a micron) gets them back from the slots, at their gaps and with the reported normal;
// a corner the collider still reports is not doubled; a point lifted or slid by more than the
// margin is not kept.
TEST(QuasistaticSystem, PersistentPointsRestoreCornersTheColliderNoLongerReports) {
  test::TempDir dir;
  const Scene scene = load_scene(block_scene(dir));
  const Model& model = *scene.model;
  State s = make_state(model);
  Workspace ws;
  step(model, s, ws);  // the LCP holds the block still and writes the four corners' slots
  ASSERT_EQ(s.contacts.size(), 4);
  const double margin = model.options.contact_margin;
  const int table = model.find_geom("table"), block = model.find_geom("block_geom");

  auto restored = [&](const Vec3& shift, double lost_gap_expected) {
    State moved = s;
    for (int a = 0; a < 3; ++a) moved.q[a] += shift[a];
    KinematicsData kin;
    forward_kinematics(model, moved.q, kin);
    const ContactSet full =
        collide_geoms(model, table, geom_pose(model, kin, table), block, geom_pose(model, kin, block), 0.01, {});
    EXPECT_EQ(full.points.size(), 4u);
    ContactSet cs = full;
    cs.points.resize(1);  // the collider "loses" three corners
    add_persistent_points(model, kin, moved.contacts, margin, cs);
    for (size_t i = 1; i < cs.points.size(); ++i) {
      EXPECT_NEAR(-cs.points[i].depth, lost_gap_expected, 1e-12);
      EXPECT_NEAR((cs.points[i].normal - cs.points[0].normal).norm(), 0.0, 1e-12);
      // each restored point is one of the corners the collider reports with everything
      double nearest = kInf;
      for (const ContactPoint& p : full.points) nearest = std::min(nearest, (p.point_b - cs.points[i].point_b).norm());
      EXPECT_LT(nearest, 1e-12);
    }
    return static_cast<int>(cs.points.size());
  };
  EXPECT_EQ(restored(Vec3::Zero(), 0.0), 4);
  EXPECT_EQ(restored(Vec3(0, 0, 0.5 * margin), 0.5 * margin), 4);   // lifted within the margin
  EXPECT_EQ(restored(Vec3(0, 0, 2.0 * margin), 0.0), 1);            // lifted beyond it
  EXPECT_EQ(restored(Vec3(2.0 * margin, 0, 0), 0.0), 1);            // slid beyond it

  // With everything reported nothing is added.
  KinematicsData kin;
  forward_kinematics(model, s.q, kin);
  ContactSet cs = collide_geoms(model, table, geom_pose(model, kin, table), block, geom_pose(model, kin, block), margin, {});
  add_persistent_points(model, kin, s.contacts, margin, cs);
  EXPECT_EQ(cs.points.size(), 4u);
}

// The block's four corners' gaps at configuration q.
std::vector<double> corner_gaps(const Model& model, const VecX& q) {
  KinematicsData kin;
  forward_kinematics(model, q, kin);
  const int table = model.find_geom("table"), block = model.find_geom("block_geom");
  const ContactSet cs = collide_geoms(model, table, geom_pose(model, kin, table), block, geom_pose(model, kin, block),
                                      model.options.contact_margin, {});
  std::vector<double> gaps;
  for (const ContactPoint& p : cs.points) gaps.push_back(-p.depth);
  return gaps;
}

// The centre of the block's base, where it sits on the table.
Vec3 base_centre(const Model& model, const VecX& q) {
  KinematicsData kin;
  forward_kinematics(model, q, kin);
  return kin.X_WB[model.find_body("block")] * Vec3(0, 0, -0.02);
}

// The block moved and turned on the table to a pose of no special numbers.
State block_off_the_axes(const Model& model) {
  State s = make_state(model);
  VecX move = VecX::Zero(model.nv);
  move[0] = 0.1234;
  move[5] = 0.7;
  integrate_q(model, s.q, move, 1.0);
  return s;
}

// Post-stabilisation: a block the last step closed on the table, tilted 1e-7 rad about its
// long axis (as a linearised step leaves a sticking patch), starts the next step with its
// four corners back at a gap of 0 (to second order in the tilt: 1e-16 m). With `stabilize`
// off, or with slots saying the last step left the corners open, it starts where it was.
TEST(QuasistaticStepper, StabilizationClosesAgainTheCornersTheLastStepClosed) {
  test::TempDir dir;
  const Scene scene = load_scene(block_scene(dir));
  const Model& model = *scene.model;
  State s = block_off_the_axes(model);
  Workspace ws;
  step(model, s, ws);
  ASSERT_EQ(s.contacts.size(), 4);
  s.contacts.for_each([](const ContactSlot& sl) { EXPECT_EQ(sl.values[quasistatic_slot::kClosed], 1.0); });

  VecX tilt = VecX::Zero(model.nv);
  tilt[3] = 1e-7;  // the free joint's angular displacement about the block's x (body frame)
  integrate_q(model, s.q, tilt, 1.0);
  const std::vector<double> before = corner_gaps(model, s.q);
  ASSERT_EQ(before.size(), 4u);
  const auto [lo, hi] = std::minmax_element(before.begin(), before.end());
  EXPECT_NEAR(*hi - *lo, 0.06 * 1e-7, 1e-12);

  auto start_of_step = [&](bool stabilize, const State& from, double* moved) {
    Formulation f = scene_formulation(model);
    f.quasistatic.stabilize = stabilize;
    State next = from;
    Workspace w;
    StepResult r;
    step(model, next, make_input(model), f, w, &r);
    *moved = r.quasistatic.stabilized;
    return r.quasistatic.q_before;
  };
  double moved = 0.0;
  const VecX q0 = start_of_step(true, s, &moved);
  for (double gap : corner_gaps(model, q0)) EXPECT_NEAR(gap, 0.0, 1e-15);
  EXPECT_NEAR(moved, 0.03 * 1e-7, 1e-12);
  // It turns about its base (its centre of mass, 0.02 m up, moves 2e-9 m sideways); its base
  // neither slides nor spins on the table.
  EXPECT_LT((base_centre(model, q0) - base_centre(model, s.q)).head<2>().norm(), 1e-15);
  EXPECT_NEAR(q0[6], s.q[6], 1e-15);  // the quaternion's z (w x y z): the yaw

  EXPECT_EQ(start_of_step(false, s, &moved), s.q);
  EXPECT_EQ(moved, 0.0);

  std::vector<ContactSlot> slots = s.contacts.slots();
  for (ContactSlot& sl : slots) sl.values[quasistatic_slot::kClosed] = 0.0;
  State opened = s;
  opened.contacts.assign(slots, s.contacts.live());
  EXPECT_EQ(start_of_step(true, opened, &moved), s.q);
  EXPECT_EQ(moved, 0.0);
}

// A block resting under the MIQP with a closed gap: each step may tilt it within the gap,
// and each next step's stabilisation brings its corners back to 0. In 200 steps the block
// neither slides nor spins. (The least displacement in the mass metric turned it back about
// its centre of mass, not its base, and crept it 3.7 µm; one restricted to the dofs the
// normal rows move spun it.)
TEST(QuasistaticStepper, StabilizationNeitherSlidesNorSpinsARestingBlock) {
  test::TempDir dir;
  const Scene scene = load_scene(block_scene(dir), {"options.scheme=miqp", "options.quasistatic.closed_gap=5e-8"});
  const Model& model = *scene.model;
  State s = block_off_the_axes(model);
  const VecX q_start = s.q;
  Workspace ws;
  double moved = 0.0;
  for (int i = 0; i < 200; ++i) {
    StepResult r;
    step(model, s, ws, &r);
    moved = std::max(moved, r.quasistatic.stabilized);
  }
  // Each step the MIQP tilts the block within the closed gap (a corner up to twice it, open),
  // and the next step's stabilisation tilts it back about its base: the base's centre and the
  // yaw stay within second-order terms (1e-14 a step; a least displacement that slid or spun
  // the block did so by 2e-8 m a step), and the gaps do not grow.
  EXPECT_LT((base_centre(model, s.q) - base_centre(model, q_start)).head<2>().norm(), 1e-10);
  EXPECT_NEAR(s.q[6], q_start[6], 1e-10);
  EXPECT_LE(moved, 2 * 5e-8 + 1e-12);
  for (double gap : corner_gaps(model, s.q)) EXPECT_LE(std::abs(gap), 2 * 5e-8 + 1e-12);
}

}  // namespace
}  // namespace graspsim
