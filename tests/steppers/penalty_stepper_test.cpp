// The penalty stepper (formulation C, seed 004) on cases with known answers: a ball resting
// on the ground, the integrator's step sizes through an impact, the kinetic-energy ratio of
// a rigidly carried object, and the nine grippers' first half second.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numbers>
#include <string>

#include "io/run.h"
#include "../common/scene_text.h"
#include "io/scene.h"
#include "kinematics/kinematics.h"
#include "model/builder.h"
#include "steppers/step.h"

namespace graspsim {
namespace {

const std::string kScenes = std::string(GRASPSIM_SOURCE_DIR) + "/scenes/penalty/";

std::string ball_on_ground(double height, double g2 = 2e5) {
  return "options: {stepper: penalty, dt: 0.001, penalty: {damping: " + std::to_string(g2) +
         "}}\n"
         "geoms: [{name: ground, type: plane}]\n"
         "bodies:\n"
         "  - {name: ball, pos: [0, 0, " + std::to_string(height) + "], joint: free, mass: 0.2,\n"
         "     geoms: [{type: sphere, size: [0.03]}]}\n";
}

using test::scene_from_text;

// At rest the volume rate and the impact gain vanish, so the spring alone carries the weight:
// g1 V = m g.
TEST(PenaltyStepper, BallSettlesWhereTheSpringCarriesItsWeight) {
  const Scene scene = scene_from_text(ball_on_ground(0.0299), "penalty_ball");
  const Model& m = *scene.model;
  State s = make_state(m);
  Workspace ws;
  StepResult r;
  for (int i = 0; i < 1000; ++i) step(m, s, ws, &r);
  ASSERT_EQ(r.contacts.size(), 1u);
  const double weight = 0.2 * 9.81;
  EXPECT_NEAR(r.contacts[0].volume, weight / m.options.penalty.stiffness, 1e-4 * weight / m.options.penalty.stiffness);
  EXPECT_NEAR(r.contacts[0].fn, weight, 1e-4 * weight);
  EXPECT_NEAR(r.contacts[0].normal.z(), 1.0, 1e-9);  // from the ground (A) to the ball (B)
  EXPECT_LT(s.v.norm(), 1e-5);
  // Sunk less than a millimetre, and not through the ground.
  EXPECT_GT(s.q[2], 0.029);
  EXPECT_LT(s.q[2], 0.03);
}

// Free fall: the error control lets the steps grow to max_step (one per 1 ms interval, the
// motion is a parabola); the landing forces many smaller ones; at rest they grow back.
TEST(PenaltyStepper, StepSizeAdaptsToTheContact) {
  const Scene scene = scene_from_text(ball_on_ground(0.05), "penalty_drop");
  const Model& m = *scene.model;
  State s = make_state(m);
  Workspace ws;
  StepResult r;
  long flight_steps = 0, flight_intervals = 0, most_steps = 0, rejected = 0;
  for (int i = 0; i < 150; ++i) {
    step(m, s, ws, &r);
    ASSERT_TRUE(r.penalty.valid);
    rejected += r.penalty.rejected;
    most_steps = std::max<long>(most_steps, r.penalty.accepted);
    if (s.t <= 0.05) {  // the ball falls 2 cm: it lands at t ≈ 0.064 s
      flight_steps += r.penalty.accepted;
      ++flight_intervals;
    }
  }
  EXPECT_LE(flight_steps, flight_intervals + 3);  // one step per interval in flight, after the first few
  EXPECT_GE(most_steps, 5);                   // the landing takes several per interval
  EXPECT_GT(rejected, 0);
  EXPECT_GT(s.step_size, 0.0);
}

// The metric: an object fixed to a shaken palm moves exactly with it (ratio 1 to round-off);
// a penalty grasp shaken along its squeeze at 2 Hz with no gravity carries the object within
// a few per cent of that (the pads' compliance lets it lag and catch up).
TEST(PenaltyStepper, KineticEnergyRatioOfACarriedObject) {
  RunOptions o;
  o.record = false;
  const Scene fixed = scene_from_text(
      "duration: 1\n"
      "options: {gravity: [0, 0, 0], dt: 0.001, integrator: rk4}\n"
      "recording: {object: object, carrier: palm}\n"
      "bodies:\n"
      "  - {name: palm, joint: {type: prismatic, axis: [0.6, 0.8, 0]}, kinematic: true, mass: 1,\n"
      "     prescribed_velocity: [{sine: {amplitude: 0.1, frequency: 2}}]}\n"
      "  - {name: object, parent: palm, pos: [0.1, 0, 0], mass: 0.2, geoms: [{type: box, size: [0.02, 0.03, 0.04]}]}\n",
      "penalty_ke_fixed");
  const RunSummary rigid = run_scene(fixed, o);
  EXPECT_NEAR(rigid.json["ke_ratio_mean"].get<double>(), 1.0, 1e-9);
  EXPECT_NEAR(rigid.json["ke_ratio_max"].get<double>(), 1.0, 1e-9);

  const Scene shaken = load_scene(kScenes + "prismatic2_cube.yaml",
                                  {"duration=1", "parameters.shake_amplitude=0.01", "parameters.shake_frequency=2",
                                   "options.gravity=[0, 0, 0]"});
  const RunSummary r = run_scene(shaken, o);
  ASSERT_TRUE(r.json["object_held"].get<bool>());
  EXPECT_NEAR(r.json["ke_ratio_mean"].get<double>(), 1.0, 0.05);
}

// Each grasp closes on its object in the first half second without throwing it
// (the full 10 s are in slow_penalty_grasps_test.cpp).

class PenaltyGrasp : public ::testing::TestWithParam<std::string> {};

TEST_P(PenaltyGrasp, ClosesOnTheObject) {
  RunOptions o;
  o.record = false;
  const Scene scene = load_scene(kScenes + GetParam() + ".yaml", {"duration=0.5"});
  const RunSummary r = run_scene(scene, o);
  EXPECT_TRUE(r.json["object_held"].get<bool>());
  EXPECT_LT(r.json["max_penetration_m"].get<double>(), 2e-3);
}

INSTANTIATE_TEST_SUITE_P(Scenes, PenaltyGrasp,
                         ::testing::Values("prismatic2_cube", "prismatic2_sphere", "prismatic2_bunny", "revolute2_cube",
                                           "revolute2_sphere", "revolute2_bunny", "revolute3_cube", "revolute3_sphere",
                                           "revolute3_bunny"));

// The same scenes with SPOOK (the seed's comparison): its triangle-mesh contacts against a
// box pad once read the depth of a pad corner under a tilted triangle's extended plane
// (4.7 cm) and kicked the bunny.
class SpookBunny : public ::testing::TestWithParam<std::string> {};

TEST_P(SpookBunny, ClosesWithoutADeepContact) {
  RunOptions o;
  o.record = false;
  const Scene scene = load_scene(kScenes + GetParam() + ".yaml", {"duration=0.5", "parameters.stepper=spook"});
  const RunSummary r = run_scene(scene, o);
  EXPECT_TRUE(r.json["object_held"].get<bool>());
  EXPECT_LT(r.json["max_penetration_m"].get<double>(), 2e-3);
}

INSTANTIATE_TEST_SUITE_P(Scenes, SpookBunny, ::testing::Values("prismatic2_bunny", "revolute2_bunny", "revolute3_bunny"));

// A box on the ground under gravity tilted by θ: the ground as a slope. Below the friction
// angle (tan θ < μ) eq. 8 creeps at the speed where μN tanh(γv) + βv = mg sin θ; the bristle
// holds the box still. Above it (β = 0) both slide at g(sin θ − μ cos θ).
std::string box_on_slope(double theta, const std::string& penalty) {
  char gravity[96];
  std::snprintf(gravity, sizeof gravity, "[%.17g, 0, %.17g]", 9.81 * std::sin(theta), -9.81 * std::cos(theta));
  return "options: {stepper: penalty, dt: 0.001, gravity: " + std::string(gravity) + ", penalty: {" + penalty + "}}\n"
         "default_contact: {friction: 0.2}\n"
         "geoms: [{name: ground, type: plane}]\n"
         "bodies:\n"
         "  - {name: box, pos: [0, 0, 0.0249], joint: free, mass: 0.2,\n"
         "     geoms: [{type: box, size: [0.025, 0.025, 0.025]}]}\n";
}

double slide_after(const Model& m, State& s, Workspace& ws, double seconds) {
  const double x0 = s.q[0];
  for (int i = 0; i < static_cast<int>(std::lround(seconds / m.options.dt)); ++i) step(m, s, ws, nullptr);
  return s.q[0] - x0;
}

TEST(PenaltyFriction, TanhCreepsBelowTheFrictionAngleAndTheBristleHolds) {
  const double theta = 0.1, mu = 0.2, g = 9.81, mass = 0.2;  // tan θ = 0.1 < μ
  for (const std::string law : {"tanh", "bristle"}) {
    SCOPED_TRACE(law);
    const Scene scene = scene_from_text(box_on_slope(theta, "friction: " + law), "penalty_slope_" + law);
    const Model& m = *scene.model;
    const PenaltyOptions& o = m.options.penalty;
    State s = make_state(m);
    Workspace ws;
    slide_after(m, s, ws, 1.0);
    const double moved = slide_after(m, s, ws, 1.0);
    if (law == "tanh") {
      // Solve μN tanh(γv) + βv = mg sin θ for the creep speed v by bisection.
      const double load = mass * g * std::sin(theta), normal = mass * g * std::cos(theta);
      double lo = 0.0, hi = 1.0;
      for (int i = 0; i < 100; ++i) {
        const double v = 0.5 * (lo + hi);
        (mu * normal * std::tanh(o.friction_smoothing * v) + o.viscous_friction * v < load ? lo : hi) = v;
      }
      EXPECT_NEAR(moved, lo, 0.01 * lo);  // ~1 mm/s
    } else {
      EXPECT_LT(std::abs(moved), 1e-7);  // (tanh: ~1 mm)
    }
  }
}

TEST(PenaltyFriction, BothLawsSlideAtCoulombsRateAboveTheFrictionAngle) {
  const double theta = 0.3, mu = 0.2, g = 9.81;  // tan θ = 0.31 > μ
  for (const std::string law : {"tanh", "bristle"}) {
    SCOPED_TRACE(law);
    const Scene scene = scene_from_text(box_on_slope(theta, "viscous_friction: 0, friction: " + law), "penalty_slide_" + law);
    const Model& m = *scene.model;
    State s = make_state(m);
    Workspace ws;
    slide_after(m, s, ws, 0.5);
    const double v0 = s.v[0];
    slide_after(m, s, ws, 0.5);
    EXPECT_NEAR((s.v[0] - v0) / 0.5, g * (std::sin(theta) - mu * std::cos(theta)), 0.01 * g * (std::sin(theta) - mu * std::cos(theta)));
  }
}

// A joint past its limit meets a one-sided spring k = I ω² (ω = 2π·limit_frequency): a 1 kg
// slider dropped onto its lower limit rests where k·x = m·g.
TEST(PenaltyStepper, JointLimitIsASpringOnTheDofsInertia) {
  const Scene scene = scene_from_text(
      "options: {stepper: penalty, dt: 0.001}\n"
      "bodies:\n"
      "  - {name: slider, joint: {type: prismatic, name: drop, axis: [0, 0, 1], limits: [0, .inf], q: [0.01]},\n"
      "     mass: 1, inertia: [0.01, 0.01, 0.01]}\n",
      "penalty_limit");
  const Model& m = *scene.model;
  State s = make_state(m);
  Workspace ws;
  for (int i = 0; i < 500; ++i) step(m, s, ws, nullptr);
  const double w = 2.0 * std::numbers::pi * m.options.penalty.limit_frequency;
  EXPECT_NEAR(s.q[0], -9.81 / (w * w), 1e-9);
  EXPECT_LT(std::abs(s.v[0]), 1e-7);
}

// frictionloss F acts as −F tanh(s q̇): under a push f < F the slider creeps at
// atanh(f/F)/s; under f > F it accelerates at (f − F)/m once it slides.
TEST(PenaltyStepper, JointFrictionlossIsSmoothedDryFriction) {
  for (const double push : {1.0, 3.0}) {
    SCOPED_TRACE(push);
    const Scene scene = scene_from_text(
        "options: {stepper: penalty, dt: 0.001}\n"
        "bodies:\n"
        "  - {name: slider, joint: {type: prismatic, name: slide, axis: [1, 0, 0], frictionloss: 2},\n"
        "     mass: 1, inertia: [0.01, 0.01, 0.01]}\n"
        "actuators: [{name: push, joint: slide, type: force, command: " + std::to_string(push) + "}]\n",
        "penalty_frictionloss");
    const Model& m = *scene.model;
    State s = make_state(m);
    Workspace ws;
    for (int i = 0; i < 500; ++i) step(m, s, ws, nullptr);
    const double v_half = s.v[0];
    for (int i = 0; i < 500; ++i) step(m, s, ws, nullptr);
    const double smoothing = m.options.penalty.joint_friction_smoothing;
    if (push < 2.0) {
      EXPECT_NEAR(s.v[0], std::atanh(push / 2.0) / smoothing, 1e-9);
    } else {
      EXPECT_NEAR((s.v[0] - v_half) / 0.5, push - 2.0, 1e-6);
    }
  }
}

}  // namespace
}  // namespace graspsim
