// step(): input checks, the stepper switch, timing and the step counter.

#include <gtest/gtest.h>

#include <limits>

#include "core/error.h"
#include "stepper_models.h"

namespace graspsim {
namespace {

std::shared_ptr<const Model> one_body(StepperType stepper) {
  ModelBuilder mb;
  mb.add_body(test::make_body("b", "world", JointType::Free, 1.0, Mat3::Identity()));
  mb.options().stepper = stepper;
  return mb.build();
}

TEST(Step, AdvancesTimeAndCountsSteps) {
  auto m = one_body(StepperType::Dynamics);
  State s = make_state(*m);
  Workspace ws;
  StepResult r;
  step(*m, s, ws, &r);
  step(*m, s, ws, &r);
  EXPECT_EQ(s.step, 2u);
  EXPECT_DOUBLE_EQ(s.t, 2 * m->options.dt);
  EXPECT_GT(r.wall_time_s, 0.0);
}

// A free body falling: every time stepper takes it (the quasistatic one needs a support).
TEST(Step, EveryTimeStepperIsAvailable) {
  for (StepperType t : {StepperType::Dynamics, StepperType::Spook, StepperType::Penalty}) {
    const std::string name = to_string(t);
    auto m = one_body(t);
    State s = make_state(*m);
    Workspace ws;
    EXPECT_NO_THROW(step(*m, s, ws)) << name;
    EXPECT_EQ(s.step, 1u) << name;
  }
}

TEST(Step, RejectsNonFiniteOrMissizedState) {
  auto m = one_body(StepperType::Dynamics);
  Workspace ws;
  State s = make_state(*m);
  s.v[2] = std::numeric_limits<double>::quiet_NaN();
  EXPECT_THROW(step(*m, s, ws), InputError);
  s = make_state(*m);
  s.q[0] = std::numeric_limits<double>::infinity();
  EXPECT_THROW(step(*m, s, ws), InputError);
  s = make_state(*m);
  s.q.resize(3);
  EXPECT_THROW(step(*m, s, ws), InputError);
}

// A finite state whose step overflows must be reported, not returned silently.
TEST(Step, ReportsNonFiniteResult) {
  auto m = one_body(StepperType::Dynamics);
  Workspace ws;
  State s = make_state(*m);
  s.v[0] = 1e308;
  s.q[0] = 1e308;
  EXPECT_THROW(step(*m, s, ws), std::runtime_error);
}

}  // namespace
}  // namespace graspsim
