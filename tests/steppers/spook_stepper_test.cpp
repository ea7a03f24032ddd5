// The SPOOK stepper's non-contact rows against closed forms: loop closures (connect, weld),
// joint limits and servo actuators.

#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

#include "model/builder.h"
#include "spook/pgs.h"
#include "steppers/step.h"

namespace graspsim {
namespace {

Options spook_options(double dt = 1e-3) {
  Options o;
  o.stepper = StepperType::Spook;
  o.dt = dt;
  return o;
}

ActuatorDef position_servo(const std::string& name, const std::string& joint, double kp, double kv, double set_point) {
  ActuatorDef a;
  a.name = name;
  a.joint = joint;
  a.type = ActuatorType::Position;
  a.kp = kp;
  a.kv = kv;
  a.command = Signal::Constant(set_point);
  return a;
}

// A 1 kg slider along x on the world (joint "slider_joint"), its joint set by `set`, under
// SPOOK at 1 ms; gravity (along z) does not act on it.
template <class SetJoint>
ModelBuilder slider_builder(SetJoint set) {
  ModelBuilder b;
  b.options() = spook_options();
  BodyDef slider;
  slider.name = "slider";
  slider.joint.type = JointType::Prismatic;
  slider.joint.axis = Vec3::UnitX();
  set(slider.joint);
  slider.mass = 1.0;
  slider.inertia = Mat3::Identity() * 1e-3;
  b.add_body(slider);
  return b;
}

// A 0.5 m × 2 cm × 2 cm, 1 kg rod on a free joint, its top end held at (0, 0, 1) by a
// connect constraint: a physical pendulum. Small-amplitude period 2π √(I_O / (m g d)).
TEST(SpookEquality, ConnectMakesAPhysicalPendulum) {
  const double m = 1.0, L = 0.5, w = 0.02, theta0 = 0.05;
  ModelBuilder b;
  b.options() = spook_options();
  BodyDef rod;
  rod.name = "rod";
  rod.joint.type = JointType::Free;
  const Quat tilt(Eigen::AngleAxisd(theta0, Vec3::UnitY()));
  rod.pose = {Vec3(0, 0, 1) + tilt * Vec3(0, 0, -L / 2), tilt};
  rod.mass = m;
  const double Icm = m * (w * w + L * L) / 12.0;
  rod.inertia = Vec3(Icm, Icm, m * 2 * w * w / 12.0).asDiagonal().toDenseMatrix();
  b.add_body(rod);
  EqualityDef pivot;
  pivot.name = "pivot";
  pivot.body_b = "rod";
  pivot.anchor_a = Vec3(0, 0, 1);
  pivot.anchor_b = Vec3(0, 0, L / 2);
  b.add_equality(pivot);
  auto model = b.build();

  State s = make_state(*model);
  Workspace ws;
  // Period from the upward zero crossings of the rod's x (linear interpolation).
  std::vector<double> crossings;
  double prev_x = s.q[0], prev_t = 0.0, worst_gap = 0.0;
  while (s.t < 6.0) {
    step(*model, s, ws);
    const double x = s.q[0];
    if (prev_x < 0.0 && x >= 0.0) crossings.push_back(prev_t + (s.t - prev_t) * (-prev_x) / (x - prev_x));
    prev_x = x;
    prev_t = s.t;
    const Quat q(s.q[3], s.q[4], s.q[5], s.q[6]);
    worst_gap = std::max(worst_gap, (s.q.head<3>() + q * Vec3(0, 0, L / 2) - Vec3(0, 0, 1)).norm());
  }
  ASSERT_GE(crossings.size(), 4u);
  const double period = (crossings.back() - crossings.front()) / static_cast<double>(crossings.size() - 1);
  const double expected = 2 * std::numbers::pi * std::sqrt((Icm + m * L * L / 4) / (m * 9.81 * L / 2));
  // O(h) time discretisation and the 0.05 rad amplitude (+0.016 %): 0.5 % covers both.
  EXPECT_NEAR(period / expected, 1.0, 5e-3) << "period " << period << " s, expected " << expected << " s";
  EXPECT_LT(worst_gap, 1e-4) << "the pivot opened by " << worst_gap << " m";
}

TEST(SpookEquality, WeldHoldsABodyAgainstGravity) {
  ModelBuilder b;
  b.options() = spook_options();
  BodyDef box;
  box.name = "box";
  box.joint.type = JointType::Free;
  box.pose.p = Vec3(0.3, 0, 1);
  box.mass = 2.0;
  box.inertia = Mat3::Identity() * 0.01;
  b.add_body(box);
  EqualityDef weld;
  weld.name = "weld";
  weld.type = EqualityType::Weld;
  weld.body_b = "box";
  weld.anchor_a = Vec3(0, 0, 1);        // a point 0.3 m from the box: gravity also twists it
  weld.anchor_b = Vec3(-0.3, 0, 0);
  b.add_equality(weld);
  auto model = b.build();
  State s = make_state(*model);
  Workspace ws;
  for (int i = 0; i < 2000; ++i) step(*model, s, ws);
  // Rigid rows relaxing over two steps: the sag per step is g h² ≈ 1e-5 m, and it is corrected.
  EXPECT_LT((s.q.head<3>() - Vec3(0.3, 0, 1)).norm(), 2e-5);
  EXPECT_LT(quat_log(Quat(s.q[3], s.q[4], s.q[5], s.q[6])).norm(), 1e-4);
}

// A pendulum released horizontally swings down onto a limit 30° short of vertical, where
// gravity keeps it pressed: it must stop there and stay.
TEST(SpookLimits, RevoluteJointStopsAtItsLimit) {
  ModelBuilder b;
  b.options() = spook_options();
  BodyDef arm;
  arm.name = "arm";
  arm.pose.p = Vec3(0, 0, 1);
  arm.joint.type = JointType::Revolute;
  arm.joint.axis = Vec3::UnitY();
  arm.joint.limits = std::pair{std::numbers::pi / 6, std::numbers::pi};
  arm.joint.q_init = VecX::Constant(1, std::numbers::pi / 2);
  arm.mass = 1.0;
  arm.com = Vec3(0, 0, -0.5);
  arm.inertia = Mat3::Identity() * 1e-3;
  b.add_body(arm);
  auto model = b.build();
  State s = make_state(*model);
  Workspace ws;
  double lowest = s.q[0];
  for (int i = 0; i < 3000; ++i) {
    step(*model, s, ws);
    lowest = std::min(lowest, s.q[0]);
  }
  // It arrives at ~4 rad/s: the rigid limit lets it in by at most one step of motion.
  EXPECT_GT(lowest, std::numbers::pi / 6 - 5e-3);
  EXPECT_NEAR(s.q[0], std::numbers::pi / 6, 1e-6);
  EXPECT_LT(std::abs(s.v[0]), 1e-6);
}

TEST(SpookServos, PositionServoSettlesAndRespectsItsEffortLimit) {
  ModelBuilder b = slider_builder([](JointDef&) {});
  ActuatorDef servo = position_servo("servo", "slider_joint", 400.0, 40.0, 0.2);  // kv = 2 √(kp m): critical
  servo.effort_min = -10.0;
  servo.effort_max = 10.0;
  b.add_actuator(servo);
  auto model = b.build();
  State s = make_state(*model);
  Workspace ws;
  double worst_effort = 0.0;
  for (int i = 0; i < 3000; ++i) {
    step(*model, s, ws);
    worst_effort = std::max(worst_effort, std::abs(ws.actuator_effort[0]));
  }
  EXPECT_NEAR(s.q[0], 0.2, 1e-6);
  EXPECT_LE(worst_effort, 10.0 + 1e-9);
  EXPECT_GT(worst_effort, 9.9);  // kp · 0.2 = 80 N is asked for at first: the limit binds
}

// A horizontal arm of three 0.3 m links on hinges about y, each held at 0 by a position
// servo against gravity, with dry friction on each hinge: under `solver` at 1 ms, the
// hinge angles after 2 s, and the largest sweep count of the last 100 steps.
struct ArmRun {
  VecX q;
  int sweeps = 0;
};
ArmRun servo_arm(SolverType solver, int iterations, double tolerance = 0.0, bool warm = true) {
  ModelBuilder b;
  b.options() = spook_options();
  b.options().spook.solver = solver;
  b.options().spook.iterations = iterations;
  b.options().spook.tolerance = tolerance;
  for (int k = 0; k < 3; ++k) {
    BodyDef link;
    link.name = "link" + std::to_string(k);
    link.parent = k == 0 ? "world" : "link" + std::to_string(k - 1);
    link.pose.p = Vec3(k == 0 ? 0.0 : 0.3, 0, 0);
    link.joint.type = JointType::Revolute;
    link.joint.axis = Vec3::UnitY();
    link.joint.frictionloss = 0.05;
    link.mass = 1.0 - 0.3 * k;
    link.com = Vec3(0.15, 0, 0);
    link.inertia = Mat3::Identity() * 1e-3;
    b.add_body(link);
    b.add_actuator(position_servo("servo" + std::to_string(k), link.name + "_joint", 200.0, 5.0, 0.0));
  }
  auto model = b.build();
  State s = make_state(*model);
  Workspace ws;
  ArmRun run;
  StepResult r;
  for (int i = 0; i < 2000; ++i) {
    if (!warm) s.constraint_forces.setZero();
    step(*model, s, ws, &r);
    if (i >= 1900) run.sweeps = std::max(run.sweeps, r.solver_iterations);
  }
  run.q = s.q;
  return run;
}

// The non-contact rows start each step from last step's forces (State::constraint_forces),
// so a few PGS sweeps a step still converge, over the steps, to the exact (Direct) rest
// pose: the three servos and frictions on one tree are coupled through its mass matrix.
// Started from zero each step, 4 sweeps leave the arm sagging by ~1e-3 rad (measured).
TEST(SpookServos, WarmStartedServoRowsConvergeAcrossSteps) {
  const VecX exact = servo_arm(SolverType::Direct, 1).q;
  ASSERT_GT(exact.cwiseAbs().maxCoeff(), 1e-3) << "gravity must load the servos";
  const ArmRun warm = servo_arm(SolverType::Iterative, 4);
  EXPECT_LT((warm.q - exact).cwiseAbs().maxCoeff(), 1e-6) << warm.q.transpose() << " vs " << exact.transpose();
  const ArmRun cold = servo_arm(SolverType::Iterative, 4, 0.0, false);
  EXPECT_GT((cold.q - exact).cwiseAbs().maxCoeff(), 1e-4) << "the case must need the warm start";
}

// options.tolerance: at rest the sweeps stop after the first check (kStopCheck sweeps), and
// the pose is still the exact one within what the tolerance allows.
TEST(SpookServos, IterativeStopsOnceTheRowsVelocitiesStopMoving) {
  const VecX exact = servo_arm(SolverType::Direct, 1).q;
  const ArmRun all = servo_arm(SolverType::Iterative, 64);
  EXPECT_EQ(all.sweeps, 64);
  const ArmRun stopped = servo_arm(SolverType::Iterative, 64, 1e-9);
  EXPECT_EQ(stopped.sweeps, spook::kStopCheck);
  EXPECT_LT((stopped.q - exact).cwiseAbs().maxCoeff(), 1e-6);
}

// A 1 kg slider with joint damping c = 2 N·s/m, launched at 1 m/s: v(t) = e^{−c t / m}.
// Implicit damping gives (1 + h c / m)^{−n}, within 0.2 % of it at t = 1 s (h c / m = 0.002).
TEST(SpookDamping, JointDampingDissipatesAtTheClosedFormRate) {
  ModelBuilder b = slider_builder([](JointDef& j) { j.damping = 2.0; });
  auto model = b.build();
  State s = make_state(*model);
  s.v[0] = 1.0;
  Workspace ws;
  for (int i = 0; i < 1000; ++i) step(*model, s, ws);
  EXPECT_NEAR(s.v[0], std::exp(-2.0), 2e-3 * std::exp(-2.0));
  EXPECT_NEAR(s.q[0], (1.0 - std::exp(-2.0)) / 2.0, 2e-3);
}

// A 1 kg slider with dry friction F = 2 N (MJCF frictionloss) under a constant force f:
// below F it does not move; above, it accelerates at (f − F) / m.
double slider_with_friction_after_1s(double f, double* q) {
  ModelBuilder b = slider_builder([](JointDef& j) { j.frictionloss = 2.0; });
  ActuatorDef push;
  push.name = "push";
  push.joint = "slider_joint";
  push.type = ActuatorType::Force;
  push.effort_min = -10.0;
  push.effort_max = 10.0;
  push.command = Signal::Constant(f);
  b.add_actuator(push);
  auto model = b.build();
  State s = make_state(*model);
  Workspace ws;
  for (int i = 0; i < 1000; ++i) step(*model, s, ws);
  *q = s.q[0];
  return s.v[0];
}

TEST(SpookJointFriction, SticksBelowItsLimitAndSlidesAbove) {
  double q = 0.0;
  // At rest the friction row's creep compliance (1e-10 (m/s)/N) is all that moves it.
  EXPECT_NEAR(slider_with_friction_after_1s(1.5, &q), 0.0, 1e-9);
  EXPECT_NEAR(q, 0.0, 1e-9);
  EXPECT_NEAR(slider_with_friction_after_1s(-1.9, &q), 0.0, 1e-9);
  // (3 − 2) N / 1 kg for 1 s; semi-implicit Euler's position is off by h v / 2.
  EXPECT_NEAR(slider_with_friction_after_1s(3.0, &q), 1.0, 1e-9);
  EXPECT_NEAR(q, 0.5, 1e-3);
}

// An undamped position servo (kv = 0, MuJoCo's <position>) on a joint whose damping is
// critical, c = 2 √(kp m): the joint creeps to the set point without overshoot,
// x(t) = x̄ (1 − (1 + ω t) e^{−ω t}), ω = √(kp / m) = 20 rad/s. (Damping that only added
// inertia would leave it oscillating between 0 and 2 x̄.) Implicit Euler's error is O(ω h).
TEST(SpookDamping, CriticallyDampedJointUnderAnUndampedServo) {
  ModelBuilder b = slider_builder([](JointDef& j) { j.damping = 40.0; });
  ActuatorDef servo;
  servo.name = "servo";
  servo.joint = "slider_joint";
  servo.type = ActuatorType::Position;
  servo.kp = 400.0;
  servo.command = Signal::Constant(0.1);
  b.add_actuator(servo);
  auto model = b.build();
  State s = make_state(*model);
  Workspace ws;
  double highest = 0.0;
  for (int i = 1; i <= 500; ++i) {
    step(*model, s, ws);
    highest = std::max(highest, s.q[0]);
    const double t = i * 1e-3, wt = 20.0 * t;
    ASSERT_NEAR(s.q[0], 0.1 * (1.0 - (1.0 + wt) * std::exp(-wt)), 0.1 * 0.02) << "t = " << t;
  }
  EXPECT_LE(highest, 0.1);
}

}  // namespace
}  // namespace graspsim

namespace graspsim {
namespace {

// A ball spinning about the vertical on a plane touches it at one point, where tangential
// friction cannot stop a spin: only torsional friction can. With moment arm ρ its spin
// decays at ρ m g / I = ρ g / (2/5 r²).
TEST(SpookTorsion, TorsionalFrictionStopsASpinAtTheClosedFormRate) {
  const double r = 0.05, rho = 0.01, w0 = 10.0;
  for (double arm : {0.0, rho}) {
    ModelBuilder b;
    b.options() = spook_options();
    b.default_contact().spook.torsional_friction = arm;
    GeomDef ground;
    ground.type = GeomType::Plane;
    b.add_geom(ground);
    BodyDef ball;
    ball.name = "ball";
    ball.joint.type = JointType::Free;
    ball.pose.p = Vec3(0, 0, r);
    ball.joint.v_init = (VecX(6) << 0, 0, 0, 0, 0, w0).finished();
    ball.mass = 1.0;
    b.add_body(ball);
    GeomDef sphere;
    sphere.body = "ball";
    sphere.type = GeomType::Sphere;
    sphere.size = Vec3(r, 0, 0);
    b.add_geom(sphere);
    auto model = b.build();
    State s = make_state(*model);
    Workspace ws;
    for (int i = 0; i < 50; ++i) step(*model, s, ws);
    const double I = 0.4 * model->bodies[1].mass * r * r;
    const double expected = arm > 0.0 ? w0 - arm * model->bodies[1].mass * 9.81 / I * s.t : w0;
    EXPECT_NEAR(s.v[5], expected, 0.01 * w0) << "torsional friction " << arm << " m";
  }
}

// A rod-like box (100 x 25 x 25 mm, 0.2 kg) tumbling in free flight at 1/60 s near its
// intermediate axis. Taken explicitly, the gyroscopic torque makes a fast spin grow without bound
// (measured: 300 -> 1e10 rad/s in half a second); implicitly the energy must never grow. The
// implicit step damps a spin by roughly (h |w|)^2 per step relative, so a moderate spin
// (h |w| = 0.5) keeps its energy and body-frame |L| within 5 % over 2 s, while an extreme one
// (h |w| = 5 rad per step) keeps 60 % (measured 79 %).
TEST(SpookFreeFlight, FastTumbleAtLargeStepsNeverGainsEnergy) {
  for (double spin : {30.0, 300.0}) {
    ModelBuilder b;
    b.options() = spook_options(1.0 / 60);
    b.options().gravity = Vec3::Zero();
    BodyDef rod;
    rod.name = "rod";
    rod.joint.type = JointType::Free;
    const double m = 0.2, lx = 0.1, ly = 0.025, lz = 0.025;
    rod.mass = m;
    rod.inertia = Vec3(m / 12 * (ly * ly + lz * lz), m / 12 * (lx * lx + lz * lz), m / 12 * (lx * lx + ly * ly)).asDiagonal();
    rod.joint.v_init = (VecX(6) << 0, 0, 0, spin / 100, spin, spin / 15).finished();
    b.add_body(rod);
    auto model = b.build();
    State s = make_state(*model);
    Workspace ws;
    const Mat3 I = model->bodies[1].inertia;
    const auto energy = [&] { const Vec3 w = s.v.tail<3>(); return 0.5 * w.dot(I * w); };
    const double e0 = energy(), l0 = (I * s.v.tail<3>()).norm();
    double e_max = e0;
    for (int i = 0; i < 120; ++i) {
      step(*model, s, ws);
      e_max = std::max(e_max, energy());
    }
    const bool moderate = spin < 100;
    EXPECT_LE(e_max, e0 * (1 + 1e-12)) << spin;
    EXPECT_GT(energy(), (moderate ? 0.95 : 0.6) * e0) << spin;
    EXPECT_NEAR((I * s.v.tail<3>()).norm() / l0, 1.0, moderate ? 0.05 : 0.3) << spin;
  }
}

}  // namespace
}  // namespace graspsim

namespace graspsim {
namespace {

// Two rods hanging from hinges at their top ends (joint anchors half a rod above their
// frames), coupled q_a = 2 q_b by a joint equality. Small oscillations of the coupled
// system: ω² = g (4 m d_a + m d_b) / (4 I_a + I_b), with I = m L²/3 about the hinge,
// d = L/2; the coupling holds throughout.
TEST(SpookEquality, JointCouplingWithAnchoredHinges) {
  const double m = 1.0, L = 0.4, theta0 = 0.02;
  ModelBuilder b;
  b.options() = spook_options();
  for (const char* name : {"a", "b"}) {
    BodyDef rod;
    rod.name = name;
    rod.pose.p = Vec3(name[0] == 'a' ? 0.0 : 1.0, 0, 1 - L / 2);
    rod.joint.type = JointType::Revolute;
    rod.joint.name = std::string(name) + "_hinge";
    rod.joint.axis = Vec3::UnitY();
    rod.joint.anchor = Vec3(0, 0, L / 2);
    rod.joint.q_init = VecX::Constant(1, name[0] == 'a' ? 2 * theta0 : theta0);
    rod.mass = m;
    rod.com = Vec3::Zero();
    const double Ic = m * L * L / 12.0;
    rod.inertia = Vec3(Ic, Ic, 1e-6).asDiagonal().toDenseMatrix();
    b.add_body(rod);
  }
  EqualityDef couple;
  couple.name = "couple";
  couple.type = EqualityType::Joint;
  couple.joint_a = "a_hinge";
  couple.joint_b = "b_hinge";
  couple.poly = {0.0, 2.0, 0.0, 0.0, 0.0};
  b.add_equality(couple);
  auto model = b.build();

  State s = make_state(*model);
  Workspace ws;
  std::vector<double> crossings;
  double prev = s.q[1], prev_t = 0.0, worst = 0.0;
  while (s.t < 6.0) {
    step(*model, s, ws);
    if (prev < 0.0 && s.q[1] >= 0.0) crossings.push_back(prev_t + (s.t - prev_t) * (-prev) / (s.q[1] - prev));
    prev = s.q[1];
    prev_t = s.t;
    worst = std::max(worst, std::abs(s.q[0] - 2.0 * s.q[1]));
  }
  ASSERT_GE(crossings.size(), 3u);
  const double period = (crossings.back() - crossings.front()) / static_cast<double>(crossings.size() - 1);
  const double I = m * L * L / 3.0, d = L / 2;
  const double expected = 2 * std::numbers::pi * std::sqrt((4 * I + I) / (9.81 * (4 * m * d + m * d)));
  // O(h) discretisation and the finite amplitude, as for the connect pendulum above.
  EXPECT_NEAR(period / expected, 1.0, 5e-3) << "period " << period << " s, expected " << expected << " s";
  EXPECT_LT(worst, 1e-5) << "rad off the coupling";
}

}  // namespace
}  // namespace graspsim
