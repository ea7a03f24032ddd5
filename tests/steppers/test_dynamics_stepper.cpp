// The dynamics stepper against analytic results: pendulum period, energy conservation of a
// double pendulum and of a torque-free rigid body, Dzhanibekov's flip, free fall, a damped
// slider, a position servo, effort clamping and kinematic bodies.

#include <gtest/gtest.h>

#include <cmath>
#include <sstream>
#include <vector>

#include "../common/temp_dir.h"
#include "core/error.h"
#include "dynamics/dynamics.h"
#include "kinematics/kinematics.h"
#include "steppers/dynamics_stepper.h"
#include "stepper_models.h"

namespace graspsim {
namespace {

constexpr double kG = 9.81;

std::string sci(double x) {
  std::ostringstream os;
  os << std::scientific << x;
  return os.str();
}

double total_energy(const Model& m, const State& s, KinematicsData& kin) {
  forward_kinematics(m, s.q, kin);
  return kinetic_energy(m, kin, s.v) + potential_energy(m, kin, s.q);
}

// Period from upward zero crossings of q[0], each located by linear interpolation between
// the two steps that bracket it, averaged over all whole periods simulated.
double measured_period(const Model& m, State s, double duration) {
  Workspace ws;
  std::vector<double> crossings;
  while (s.t < duration) {
    const double q_prev = s.q[0], t_prev = s.t;
    step(m, s, ws);
    if (q_prev < 0.0 && s.q[0] >= 0.0) crossings.push_back(t_prev + (s.t - t_prev) * (-q_prev) / (s.q[0] - q_prev));
  }
  EXPECT_GE(crossings.size(), 3u);
  return (crossings.back() - crossings.front()) / static_cast<double>(crossings.size() - 1);
}

// Compound pendulum, amplitude 0.01 rad: T = 2π √(I_pivot / (m g L)); the amplitude
// correction θ0²/16 ≈ 6e-6 and the integrators' phase errors at dt = 1 ms (≈ (ωh)²/24 ≈
// 4e-7 for semi-implicit Euler) are far below the 0.1 % asked for.
TEST(DynamicsStepper, SmallAnglePendulumPeriod) {
  for (Integrator integ : {Integrator::SemiImplicitEuler, Integrator::RK4}) {
    ModelBuilder mb;
    const double m = 1.5, L = 0.8, Ic = 2e-3;
    BodyDef p = test::pendulum_body("p", "world", m, L, Ic);
    VecX q0(1);
    q0 << 0.01;
    p.joint.q_init = q0;
    mb.add_body(p);
    mb.options().dt = 1e-3;
    mb.options().dynamics.integrator = integ;
    auto model = mb.build();
    const double T = 2 * M_PI * std::sqrt((Ic + m * L * L) / (m * kG * L));
    const double measured = measured_period(*model, make_state(*model), 10.0);
    EXPECT_NEAR(measured / T, 1.0, 1e-4) << to_string(integ);  // well inside 0.1 %
  }
}

// Double pendulum released from large angles (chaotic regime), RK4 at dt = 1 ms for 10 s:
// the total energy drifts by less than 1e-8 of m g L (measured 3e-9).
TEST(DynamicsStepper, DoublePendulumEnergyRK4) {
  ModelBuilder mb;
  BodyDef a = test::pendulum_body("a", "world", 1.0, 0.5, 1e-3);
  BodyDef b = test::pendulum_body("b", "a", 0.7, 0.4, 1e-3);
  b.pose.p = Vec3(0, 0, -1.0);
  VecX qa(1), qb(1);
  qa << 1.2;
  qb << -0.6;
  a.joint.q_init = qa;
  b.joint.q_init = qb;
  mb.add_body(a);
  mb.add_body(b);
  mb.options().dt = 1e-3;
  mb.options().dynamics.integrator = Integrator::RK4;
  auto m = mb.build();
  State s = make_state(*m);
  Workspace ws;
  KinematicsData kin;
  const double E0 = total_energy(*m, s, kin), scale = 1.0 * kG * 1.0;
  double max_drift = 0.0;
  for (int i = 0; i < 10000; ++i) {
    step(*m, s, ws);
    max_drift = std::max(max_drift, std::abs(total_energy(*m, s, kin) - E0) / scale);
  }
  EXPECT_LT(max_drift, 1e-8);
  EXPECT_GT(s.v.cwiseAbs().maxCoeff(), 0.5);  // it really moved
  RecordProperty("max_relative_energy_drift", sci(max_drift));
}

// A free body without gravity; inertia diag(1, 2, 3)·0.1 about a com offset from the origin.
std::shared_ptr<const Model> spinning_body(const Vec3& w_body, double dt) {
  ModelBuilder mb;
  BodyDef b = test::make_body("b", "world", JointType::Free, 2.0, Vec3(0.1, 0.2, 0.3).asDiagonal().toDenseMatrix(),
                              Vec3(0.2, -0.1, 0.3));
  b.pose.p = Vec3(0.5, 0.1, -0.2);
  b.pose.q = Quat(Eigen::AngleAxisd(0.3, Vec3(1, 1, 0).normalized()));
  VecX v0(6);
  v0 << 0.1, 0.2, -0.3, w_body;
  b.joint.v_init = v0;
  mb.add_body(b);
  mb.options().gravity.setZero();
  mb.options().dt = dt;
  mb.options().dynamics.integrator = Integrator::RK4;
  return mb.build();
}

// Angular momentum about the world origin, from the body's velocity and inertia:
// L = R I_c Rᵀ ω + m c × v_c.
Vec3 angular_momentum(const Model& m, const State& s, KinematicsData& kin) {
  forward_kinematics(m, s.q, kin);
  Vec3 w, vo;
  body_velocity(m, kin, s.v, 1, w, vo);
  const Vec3 c = kin.p_WCom[1], vc = vo + w.cross(c - kin.X_WB[1].p);
  const Mat3 R = kin.X_WB[1].R();
  return R * m.bodies[1].inertia * R.transpose() * w + m.bodies[1].mass * c.cross(vc);
}

// Energy and angular momentum are invariants of torque-free motion; RK4's local error at
// dt = 1e-3 is O(h⁵) ≈ 1e-15·|ω|⁵, so each step must keep them to 1e-9 relative.
TEST(DynamicsStepper, TorqueFreeBodyConservesEnergyAndMomentum) {
  auto m = spinning_body(Vec3(1.0, 2.0, -1.5), 1e-3);
  State s = make_state(*m);
  Workspace ws;
  KinematicsData kin;
  double E = total_energy(*m, s, kin);
  Vec3 L = angular_momentum(*m, s, kin);
  double worst_E = 0.0, worst_L = 0.0;
  for (int i = 0; i < 3000; ++i) {
    step(*m, s, ws);
    const double E1 = total_energy(*m, s, kin);
    const Vec3 L1 = angular_momentum(*m, s, kin);
    worst_E = std::max(worst_E, std::abs(E1 - E) / E);
    worst_L = std::max(worst_L, (L1 - L).norm() / L.norm());
    E = E1;
    L = L1;
  }
  EXPECT_LT(worst_E, 1e-9);
  EXPECT_LT(worst_L, 1e-9);
  RecordProperty("worst_energy_per_step", sci(worst_E));
  RecordProperty("worst_momentum_per_step", sci(worst_L));
}

// Spun about the intermediate principal axis (y, I = 0.2) with a 1e-3 rad/s perturbation,
// the body flips: ω_y reverses sign within a few e-folding times 1/λ, λ = ω √((I2−I1)(I3−I2)/(I1 I3))
// ≈ 2.9/s. Spun about the major axis (z) with the same perturbation it stays put.
TEST(DynamicsStepper, DzhanibekovFlip) {
  auto minimum_rate = [](const Vec3& w0, int axis) {
    auto m = spinning_body(w0, 2e-3);
    State s = make_state(*m);
    Workspace ws;
    double lowest = s.v[3 + axis];
    for (int i = 0; i < 5000; ++i) {  // 10 s
      step(*m, s, ws);
      lowest = std::min(lowest, s.v[3 + axis]);
    }
    return lowest;
  };
  EXPECT_LT(minimum_rate(Vec3(1e-3, 5.0, 1e-3), 1), -4.9);
  EXPECT_GT(minimum_rate(Vec3(1e-3, 1e-3, 5.0), 2), 4.99);
}

// Semi-implicit Euler has the closed form z_n = z0 + n h v0 − g h² n(n+1)/2; RK4 is exact
// for the parabola. A spinning body with its com off the origin must still drop its com
// along the parabola (to RK4's accuracy).
TEST(DynamicsStepper, FreeBodyFallsWithGravity) {
  for (Integrator integ : {Integrator::SemiImplicitEuler, Integrator::RK4}) {
    ModelBuilder mb;
    BodyDef b = test::make_body("b", "world", JointType::Free, 1.0, 0.01 * Mat3::Identity());
    b.pose.p = Vec3(0, 0, 10);
    VecX v0(6);
    v0 << 0.5, 0, 2.0, 0, 0, 0;
    b.joint.v_init = v0;
    mb.add_body(b);
    mb.options().dt = 0.01;
    mb.options().dynamics.integrator = integ;
    auto m = mb.build();
    State s = make_state(*m);
    Workspace ws;
    const int n = 100;
    for (int i = 0; i < n; ++i) step(*m, s, ws);
    const double h = 0.01, t = n * h;
    const double z = integ == Integrator::RK4 ? 10 + 2.0 * t - 0.5 * kG * t * t
                                              : 10 + n * h * 2.0 - kG * h * h * n * (n + 1) / 2.0;
    EXPECT_NEAR(s.q[2], z, 1e-11) << to_string(integ);
    EXPECT_NEAR(s.q[0], 0.5 * t, 1e-12);
    EXPECT_NEAR(s.v[2], 2.0 - kG * t, 1e-11);
    EXPECT_EQ(s.step, static_cast<std::uint64_t>(n));
    EXPECT_NEAR(s.t, t, 1e-12);
  }
  ModelBuilder mb;
  BodyDef b = test::make_body("b", "world", JointType::Free, 1.0, Vec3(0.01, 0.02, 0.025).asDiagonal().toDenseMatrix(),
                              Vec3(0.1, 0.05, -0.08));
  VecX v0(6);
  v0 << 0, 0, 0, 3.0, -2.0, 4.0;
  b.joint.v_init = v0;
  mb.add_body(b);
  mb.options().dt = 1e-3;
  mb.options().dynamics.integrator = Integrator::RK4;
  auto m = mb.build();
  State s = make_state(*m);
  Workspace ws;
  KinematicsData kin;
  forward_kinematics(*m, s.q, kin);
  const Vec3 c0 = kin.p_WCom[1];
  Vec3 w, vo;
  body_velocity(*m, kin, s.v, 1, w, vo);
  const Vec3 vc0 = vo + w.cross(c0 - kin.X_WB[1].p);
  for (int i = 0; i < 1000; ++i) step(*m, s, ws);
  forward_kinematics(*m, s.q, kin);
  EXPECT_LT((kin.p_WCom[1] - (c0 + vc0 * 1.0 + 0.5 * m->options.gravity)).norm(), 1e-9);
}

// m ẍ = F − d ẋ: v(t) = F/d (1 − e^{−d t/m}) → terminal velocity F/d. Semi-implicit Euler
// follows its own closed form v_n = F/d (1 − (1 − h d/m)^n).
TEST(DynamicsStepper, DampedSliderReachesTerminalVelocity) {
  const double mass = 2.0, d = 4.0, F = 3.0, h = 1e-3;
  for (Integrator integ : {Integrator::SemiImplicitEuler, Integrator::RK4}) {
    ModelBuilder mb;
    BodyDef b = test::make_body("s", "world", JointType::Prismatic, mass, 0.1 * Mat3::Identity());
    b.joint.axis = Vec3::UnitX();
    b.joint.damping = d;
    mb.add_body(b);
    mb.add_actuator(test::make_actuator("push", "s_joint", ActuatorType::Force, F));
    mb.options().dt = h;
    mb.options().dynamics.integrator = integ;
    auto m = mb.build();
    State s = make_state(*m);
    Workspace ws;
    for (int n = 1; n <= 6000; ++n) {
      step(*m, s, ws);
      if (n % 1000) continue;
      const double expected = integ == Integrator::RK4 ? F / d * (1 - std::exp(-d * s.t / mass))
                                                       : F / d * (1 - std::pow(1 - h * d / mass, n));
      EXPECT_NEAR(s.v[0], expected, 1e-12) << to_string(integ) << " n " << n;
    }
    EXPECT_NEAR(s.v[0], F / d, 1e-5);  // e^{-12} of the way left
  }
}

// Position servo about z (gravity exerts no torque): an underdamped second-order system
// I q̈ = kp (r − q) − kv q̇; compared with its analytic step response, then settled.
TEST(DynamicsStepper, PositionServoSettles) {
  ModelBuilder mb;
  mb.add_body(test::make_body("arm", "world", JointType::Revolute, 1.0, Mat3::Identity()));
  ActuatorDef servo = test::make_actuator("servo", "arm_joint", ActuatorType::Position, 0.5);
  servo.kp = 50.0;
  servo.kv = 10.0;
  mb.add_actuator(servo);
  mb.options().dt = 1e-3;
  mb.options().dynamics.integrator = Integrator::RK4;
  auto m = mb.build();
  State s = make_state(*m);
  Workspace ws;
  const double wn = std::sqrt(50.0), zeta = 10.0 / (2 * wn), wd = wn * std::sqrt(1 - zeta * zeta);
  for (int i = 0; i < 500; ++i) step(*m, s, ws);
  const double t = s.t;
  const double q = 0.5 * (1 - std::exp(-zeta * wn * t) * (std::cos(wd * t) + zeta / std::sqrt(1 - zeta * zeta) * std::sin(wd * t)));
  EXPECT_NEAR(s.q[0], q, 1e-10);
  for (int i = 0; i < 4500; ++i) step(*m, s, ws);
  EXPECT_NEAR(s.q[0], 0.5, 1e-9);
  EXPECT_NEAR(ws.actuator_effort[0], 0.0, 1e-6);
}

// A force command of 10 clamped to 2: the recorded effort is 2 and the joint accelerates
// at 2 / I; a velocity servo far from its target saturates at effort_min.
TEST(DynamicsStepper, EffortClamping) {
  ModelBuilder mb;
  mb.add_body(test::make_body("a", "world", JointType::Revolute, 1.0, 0.5 * Mat3::Identity()));
  mb.add_body(test::make_body("b", "world", JointType::Revolute, 1.0, 0.25 * Mat3::Identity()));
  ActuatorDef force = test::make_actuator("f", "a_joint", ActuatorType::Force, 10.0);
  force.effort_max = 2.0;
  ActuatorDef vel = test::make_actuator("v", "b_joint", ActuatorType::Velocity, -100.0);
  vel.kv = 5.0;
  vel.effort_min = -1.0;
  mb.add_actuator(force);
  mb.add_actuator(vel);
  mb.options().dt = 1e-3;
  auto m = mb.build();
  State s = make_state(*m);
  Workspace ws;
  for (int i = 0; i < 1000; ++i) step(*m, s, ws);
  EXPECT_DOUBLE_EQ(ws.actuator_effort[0], 2.0);
  EXPECT_DOUBLE_EQ(ws.actuator_effort[1], -1.0);
  EXPECT_NEAR(s.v[0], 2.0 / 0.5 * s.t, 1e-12);
  EXPECT_NEAR(s.v[1], -1.0 / 0.25 * s.t, 1e-12);
}

// A kinematic slider with a trapezoidal velocity signal: v equals the signal at every step
// and, with RK4 (Simpson on the piecewise-linear signal, knots on step boundaries), q is its
// exact integral.
TEST(DynamicsStepper, KinematicBodyFollowsSignal) {
  for (Integrator integ : {Integrator::SemiImplicitEuler, Integrator::RK4}) {
    ModelBuilder mb;
    BodyDef cart = test::make_body("cart", "world", JointType::Prismatic, 0.0, Mat3::Zero());
    cart.inertia.reset();
    cart.joint.axis = Vec3::UnitX();
    cart.kinematic = true;
    cart.velocity = {Signal{{0.0, 1.0, 2.0}, {0.0, 1.0, 1.0}, Signal::Interp::Linear}};
    mb.add_body(cart);
    mb.options().dt = 1e-3;
    mb.options().dynamics.integrator = integ;
    auto m = mb.build();
    State s = make_state(*m);
    Workspace ws;
    for (int i = 0; i < 2000; ++i) {
      step(*m, s, ws);
      ASSERT_DOUBLE_EQ(s.v[0], s.t < 1.0 ? s.t : 1.0) << to_string(integ);
    }
    // ∫ = 0.5 + 1.0; semi-implicit Euler uses the end-of-step velocity: + h/2 on the ramp.
    const double expected = integ == Integrator::RK4 ? 1.5 : 1.5 + 0.5e-3;
    EXPECT_NEAR(s.q[0], expected, 1e-9) << to_string(integ);
  }
}

// A damped pendulum on a kinematic cart accelerating at a: it settles where the tilt
// balances gravity and the fictitious force, tan θ = a / g (the prescribed acceleration
// couples through M_fp).
TEST(DynamicsStepper, PendulumOnAcceleratingCart) {
  const double a = 2.0;
  for (Integrator integ : {Integrator::SemiImplicitEuler, Integrator::RK4}) {
    ModelBuilder mb;
    BodyDef cart = test::make_body("cart", "world", JointType::Prismatic, 0.0, Mat3::Zero());
    cart.inertia.reset();
    cart.joint.axis = Vec3::UnitX();
    cart.kinematic = true;
    cart.velocity = {Signal{{0.0, 100.0}, {0.0, 100.0 * a}, Signal::Interp::Linear}};
    BodyDef p = test::pendulum_body("p", "cart", 1.0, 0.5, 1e-3);
    p.joint.damping = 1.0;
    mb.add_body(cart);
    mb.add_body(p);
    mb.options().dt = 1e-3;
    mb.options().dynamics.integrator = integ;
    auto m = mb.build();
    State s = make_state(*m);
    Workspace ws;
    for (int i = 0; i < 20000; ++i) step(*m, s, ws);
    EXPECT_NEAR(s.q[1], std::atan(a / kG), 1e-6) << to_string(integ);
    EXPECT_NEAR(s.v[0], a * s.t, 1e-9);
  }
}

}  // namespace
}  // namespace graspsim

namespace graspsim {
namespace {

// Dry friction is a constraint row: the ODE stepper says so, naming the joint, rather than
// dropping it.
TEST(DynamicsStepper, RefusesJointFrictionNamingTheJoint) {
  ModelBuilder b;
  BodyDef arm;
  arm.name = "arm";
  arm.joint.type = JointType::Revolute;
  arm.joint.name = "elbow";
  arm.joint.frictionloss = 0.1;
  arm.mass = 1.0;
  arm.inertia = Mat3::Identity() * 1e-3;
  b.add_body(arm);
  const auto model = b.build();
  const std::string msg = test::input_error([&] { validate_dynamics(*model, DynamicsOptions{}); });
  EXPECT_NE(msg.find("joint 'elbow': frictionloss"), std::string::npos) << msg;
}

}  // namespace
}  // namespace graspsim
