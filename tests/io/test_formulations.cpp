// One Model stepped by several formulations in one process, and an Input set by code.

#include <gtest/gtest.h>

#include <algorithm>

#include "core/error.h"
#include "io/run.h"
#include "io/scene.h"
#include "steppers/step.h"

namespace graspsim {
namespace {

const std::string kPush = std::string(GRASPSIM_SOURCE_DIR) + "/scenes/validation/push.yaml";

State run_alone(const Model& m, const Formulation& f, int steps) {
  State s = make_state(m);
  Input in = make_input(m);
  Workspace ws;
  for (int i = 0; i < steps; ++i) {
    sample_signals(m, s.t, m.options.dt, in);
    step(m, s, in, f, ws);
  }
  return s;
}

void expect_same_bits(const State& a, const State& b) {
  ASSERT_EQ(a.q.size(), b.q.size());
  for (Eigen::Index i = 0; i < a.q.size(); ++i) EXPECT_EQ(a.q[i], b.q[i]) << "q[" << i << "]";
  for (Eigen::Index i = 0; i < a.v.size(); ++i) EXPECT_EQ(a.v[i], b.v[i]) << "v[" << i << "]";
  EXPECT_EQ(a.t, b.t);
}

// Two States of one Model, stepped in turn by two formulations (each with its own
// workspace), end where each would alone: no formulation state hides in the Model.
TEST(Formulations, OneModelTwoFormulationsSideBySide) {
  const Scene scene = load_scene(kPush, {"parameters.contact=0.8"});
  const Model& m = *scene.model;
  Formulation split = scene_formulation(m), iterative = split;
  split.spook.solver = SolverType::Split;
  iterative.spook.solver = SolverType::Iterative;
  iterative.spook.iterations = 24;
  const int n = 120;
  State a = make_state(m), b = make_state(m);
  Input ia = make_input(m), ib = make_input(m);
  Workspace wa, wb;
  for (int i = 0; i < n; ++i) {
    sample_signals(m, a.t, m.options.dt, ia);
    step(m, a, ia, split, wa);
    sample_signals(m, b.t, m.options.dt, ib);
    step(m, b, ib, iterative, wb);
  }
  expect_same_bits(a, run_alone(m, split, n));
  expect_same_bits(b, run_alone(m, iterative, n));
  // The two really differ (else the test could not tell them apart).
  EXPECT_NE(a.q, b.q);
}

// The same Model stepped by the unconstrained dynamics stepper and by SPOOK.
TEST(Formulations, DynamicsAndSpookOnOneModel) {
  const Scene scene = load_scene(kPush, {"parameters.contact=0.8"});
  const Model& m = *scene.model;
  Formulation spook = scene_formulation(m), dyn = spook;
  dyn.stepper = StepperType::Dynamics;
  const State a = run_alone(m, spook, 30), b = run_alone(m, dyn, 30);
  // Without contacts the object falls through the ground under gravity.
  const int object = m.body_id("box");
  const int z = m.joints[m.bodies[object].joint].qadr + 2;
  EXPECT_NEAR(b.q[z] - m.q0[z], -0.5 * 9.81 * b.t * b.t, 0.05 * 9.81 * b.t * b.t);
  EXPECT_NEAR(a.q[z], m.q0[z], 1e-4);
}

// A per-run formulation the model cannot take is an input error naming the material.
TEST(Formulations, PerRunSolverIsChecked) {
  const Scene scene = load_scene(kPush, {"parameters.friction_model=cone"});
  Formulation f = scene_formulation(*scene.model);
  f.spook.solver = SolverType::Direct;
  State s = make_state(*scene.model);
  Workspace ws;
  try {
    step(*scene.model, s, make_input(*scene.model), f, ws);
    FAIL() << "direct + cone accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("cone"), std::string::npos) << e.what();
  }
}

// A scene is checked for the stepper it chooses: another stepper's settings are checked
// when a run chooses that stepper, with the same message.
TEST(Formulations, PerRunStepperIsChecked) {
  const std::string expected = "default contact material: young_modulus must be positive";
  try {
    load_scene(kPush, {"default_contact.young_modulus=-1"});
    FAIL() << "young_modulus -1 accepted by a SPOOK scene";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(expected), std::string::npos) << e.what();
  }
  // The dynamics stepper reads no contact material: the scene loads and steps...
  const Scene scene = load_scene(kPush, {"default_contact.young_modulus=-1", "options.stepper=dynamics"});
  const Model& m = *scene.model;
  State s = make_state(m);
  Workspace ws;
  step(m, s, make_input(m), ws);
  // ...until a run steps it with SPOOK.
  Formulation f = scene_formulation(m);
  f.stepper = StepperType::Spook;
  try {
    step(m, s, make_input(m), f, ws);
    FAIL() << "young_modulus -1 accepted by a per-run SPOOK formulation";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(expected), std::string::npos) << e.what();
  }
}

// A controller sets the Input itself: the kinematic pusher's velocity from code instead of
// its signal, and a wrongly sized Input is rejected.
TEST(Formulations, InputFromCode) {
  const Scene scene = load_scene(kPush);
  const Model& m = *scene.model;
  ASSERT_FALSE(m.kinematic_dofs.empty());
  State s = make_state(m);
  Input in = make_input(m);
  Workspace ws;
  const int pusher = m.body_id("pusher");
  const int dof = m.joints[m.bodies[pusher].joint].vadr;
  const auto k = std::find(m.kinematic_dofs.begin(), m.kinematic_dofs.end(), dof) - m.kinematic_dofs.begin();
  in.kinematic_v[k] = 0.123;
  step(m, s, in, ws);
  EXPECT_EQ(s.v[dof], 0.123);
  Input bad = in;
  bad.kinematic_v.resize(bad.kinematic_v.size() + 1);
  EXPECT_THROW(step(m, s, bad, ws), InputError);
}

}  // namespace
}  // namespace graspsim
