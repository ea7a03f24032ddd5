// Sleeping islands in the SPOOK stepper (SleepOptions): a resting box falls asleep without
// moving and keeps carrying its weight; whatever should wake it does (a body landing on it,
// a velocity set on it, a new contact, losing its support); what may not sleep does not; a
// checkpoint taken while it sleeps continues bit for bit.

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>

#include "../common/scene_text.h"
#include "io/scene.h"
#include "io/state_file.h"
#include "steppers/step.h"

namespace graspsim {
namespace {

constexpr double kG = 9.81;

using test::scene_from_text;

// 10 cm, 1 kg boxes at (x, 0, z) on the ground (μ 0.5), SPOOK at 1 ms.
std::string boxes(const std::string& options, const std::vector<std::pair<double, double>>& xz,
                  const std::string& extra = "") {
  std::string s = "options: {stepper: spook, dt: 0.001" + options + "}\n"
                  "default_contact: {friction: 0.5}\n"
                  "geoms: [{name: ground, type: plane}]\n"
                  "bodies:\n";
  for (size_t i = 0; i < xz.size(); ++i)
    s += "  - {name: box" + std::to_string(i) + ", pos: [" + std::to_string(xz[i].first) + ", 0, " +
         std::to_string(xz[i].second) + "], joint: free, mass: 1,\n"
         "     geoms: [{name: g" + std::to_string(i) + ", type: box, size: [0.05, 0.05, 0.05]}]}\n";
  return s + extra;
}

double normal_force_on(const StepResult& r, int body) {
  double f = 0.0;
  for (const ContactResult& c : r.contacts)
    if (c.body_b == body && c.body_a == 0) f += c.fn;
    else if (c.body_a == body && c.body_b == 0) f += c.fn;
  return f;
}

struct Sim {
  std::shared_ptr<const Model> model;
  State s;
  Workspace ws;
  StepResult r;
  explicit Sim(const Scene& scene) : model(scene.model), s(make_state(*scene.model)) {}
  void steps(int n) {
    for (int i = 0; i < n; ++i) step(*model, s, ws, &r);
  }
};

// Placed touching the ground, the box is still from the first step; after `time` (0.5 s) it
// sleeps: its pose stops changing to the bit, v is exactly zero, and the contacts it keeps
// report the weight they carried. Awake, the same box sits where it sleeps to within 1 µm.
TEST(SpookSleep, ARestingBoxSleepsWhereItRestsAndKeepsItsWeight) {
  Sim on(scene_from_text(boxes("", {{0, 0.05}}), "sleep_one"));
  Sim off(scene_from_text(boxes(", sleep: false", {{0, 0.05}}), "sleep_one_off"));
  on.steps(400);
  EXPECT_EQ(on.r.asleep_bodies, 0);
  on.steps(200);
  off.steps(600);
  EXPECT_EQ(on.r.asleep_bodies, 1);
  EXPECT_EQ(off.r.asleep_bodies, 0);
  const VecX q = on.s.q;
  on.steps(400);
  EXPECT_EQ(on.s.q, q);  // bitwise
  EXPECT_EQ(on.s.v, VecX::Zero(6));
  EXPECT_GE(on.s.sleep_time[1], 0.5);
  EXPECT_NEAR(normal_force_on(on.r, 1), kG, 1e-3 * kG);
  // Its contacts report no slip (they are not in the problem: their metrics skip the point
  // velocities) and forces inside their cones.
  ASSERT_FALSE(on.r.contacts.empty());
  for (const ContactResult& c : on.r.contacts) {
    EXPECT_EQ(c.slip, Vec3::Zero());
    EXPECT_LE(c.cone_error, 1e-9);
  }
  off.steps(400);
  EXPECT_LT((off.s.q - on.s.q).norm(), 1e-6);
  EXPECT_EQ(off.s.sleep_time, VecX::Zero(2));
}

// A column of ten boxes dropped onto each other from 0.5 mm gaps comes to rest under the
// default solver (Split: max speed ~1e-7 m/s in a second) and sleeps whole. (The Iterative
// solver at 16 sweeps does not bring it to rest: bench/README.md, session 17.)
TEST(SpookSleep, AColumnOfTenBoxesComesToRestAndSleeps) {
  std::vector<std::pair<double, double>> column;
  for (int k = 0; k < 10; ++k) column.emplace_back(0.0, 0.05 + k * 0.1005);
  Sim run(scene_from_text(boxes("", column), "sleep_column"));
  run.steps(1500);
  EXPECT_EQ(run.r.asleep_bodies, 10);
  EXPECT_NEAR(run.s.q[7 * 9 + 2], 0.95, 1e-3);  // the top box, not fallen
  EXPECT_NEAR(normal_force_on(run.r, 1), 10 * kG, 1e-2 * 10 * kG);
}

// Box 1 falls 2 m and lands on box 0, asleep since 0.5 s: the landing wakes it (the two are
// one island, and box 1 is moving); both then settle and sleep as a stack, the ground
// carrying both weights.
TEST(SpookSleep, ABodyLandingOnASleepingOneWakesIt) {
  Sim run(scene_from_text(boxes("", {{0, 0.05}, {0.02, 2.15}}), "sleep_stack"));
  run.steps(600);  // box 1 is still falling (lands near t = 0.64 s)
  EXPECT_EQ(run.r.asleep_bodies, 1);
  bool woke = false;
  for (int i = 0; i < 400; ++i) {
    run.steps(1);
    woke = woke || run.r.asleep_bodies == 0;
  }
  EXPECT_TRUE(woke);
  run.steps(3000);
  EXPECT_EQ(run.r.asleep_bodies, 2);
  EXPECT_NEAR(run.s.q[7 + 2], 0.15, 2e-3);  // box 1 on box 0
  EXPECT_NEAR(normal_force_on(run.r, 1), 2 * kG, 2e-3 * 2 * kG);
}

// A velocity set on a sleeping box wakes it: it slides v²/(2μg) = 2.55 cm on μ 0.5.
TEST(SpookSleep, SettingAVelocityWakesATree) {
  Sim run(scene_from_text(boxes("", {{0, 0.05}}), "sleep_kick"));
  run.steps(600);
  ASSERT_EQ(run.r.asleep_bodies, 1);
  const double x0 = run.s.q[0], v0 = 0.5;
  run.s.v[0] = v0;
  run.steps(1);
  EXPECT_EQ(run.r.asleep_bodies, 0);
  run.steps(1000);
  EXPECT_NEAR(run.s.q[0] - x0, v0 * v0 / (2 * 0.5 * kG), 0.03 * v0 * v0 / (2 * 0.5 * kG));
}

// Moved into the air by hand while asleep, the box touches nothing and falls at once.
TEST(SpookSleep, ABoxLiftedOffItsSupportWakes) {
  Sim run(scene_from_text(boxes("", {{0, 0.05}}), "sleep_lift"));
  run.steps(600);
  ASSERT_EQ(run.r.asleep_bodies, 1);
  run.s.q[2] = 0.5;
  run.steps(100);
  EXPECT_EQ(run.r.asleep_bodies, 0);
  EXPECT_NEAR(run.s.v[2], -kG * 0.1, 1e-9);
}

// A box on a slope steeper than its friction angle never stops, so never sleeps; below the
// angle it sleeps (a slope is tilted gravity here).
TEST(SpookSleep, OnlyWhatStopsSleeps) {
  auto tilted = [](double theta) {
    char g[96];
    std::snprintf(g, sizeof g, ", gravity: [%.17g, 0, %.17g]", kG * std::sin(theta), -kG * std::cos(theta));
    return std::string(g);
  };
  Sim sliding(scene_from_text(boxes(tilted(0.6), {{0, 0.05}}), "sleep_slide"));  // tan 0.6 = 0.68 > 0.5
  Sim holding(scene_from_text(boxes(tilted(0.4), {{0, 0.05}}), "sleep_hold"));   // tan 0.4 = 0.42 < 0.5
  sliding.steps(1500);
  holding.steps(1500);
  EXPECT_EQ(sliding.r.asleep_bodies, 0);
  EXPECT_NEAR(sliding.s.v[0], kG * (std::sin(0.6) - 0.5 * std::cos(0.6)) * 1.5, 0.02 * kG * 1.5);
  EXPECT_EQ(holding.r.asleep_bodies, 1);
}

// A box leaning on a kinematic body (standing still) is in an island that never sleeps, and
// so is a box on a slider driven by a servo.
TEST(SpookSleep, IslandsWithADrivenBodyNeverSleep) {
  const std::string wall =
      "  - {name: wall, kinematic: true, joint: {type: prismatic, axis: [1, 0, 0]}, pos: [0.1005, 0, 0.05],\n"
      "     geoms: [{name: wall_geom, type: box, size: [0.05, 0.05, 0.05]}]}\n";
  Sim leaning(scene_from_text(boxes("", {{0, 0.05}}, wall), "sleep_wall"));
  leaning.steps(1000);
  EXPECT_EQ(leaning.r.asleep_bodies, 0);
  // Far from the wall the same box sleeps: the rule is the island, not the scene.
  Sim apart(scene_from_text(boxes("", {{-1, 0.05}}, wall), "sleep_wall_apart"));
  apart.steps(1000);
  EXPECT_EQ(apart.r.asleep_bodies, 1);
}

// Asleep pairs are not collided again: their contacts are kept from the last step. A run
// whose Workspace is new every step (so it collides everything) ends in the same bits and
// reports the same contacts.
TEST(SpookSleep, KeptContactsAreTheContactsCollisionWouldFind) {
  const Scene scene = scene_from_text(boxes("", {{0, 0.05}, {0.02, 2.15}, {0.5, 0.05}}), "sleep_kept");
  Sim kept(scene), fresh(scene);
  for (int i = 0; i < 1800; ++i) {
    step(*scene.model, kept.s, kept.ws, &kept.r);
    Workspace ws;
    step(*scene.model, fresh.s, ws, &fresh.r);
  }
  ASSERT_EQ(kept.r.asleep_bodies, 3);
  EXPECT_EQ(kept.s.q, fresh.s.q);
  ASSERT_EQ(kept.r.contacts.size(), fresh.r.contacts.size());
  for (size_t i = 0; i < kept.r.contacts.size(); ++i) {
    EXPECT_EQ(kept.r.contacts[i].geom_b, fresh.r.contacts[i].geom_b);
    EXPECT_EQ(kept.r.contacts[i].position, fresh.r.contacts[i].position);
    EXPECT_EQ(kept.r.contacts[i].fn, fresh.r.contacts[i].fn);
  }
}

// A sleeping box moved by hand along the ground is collided where it now is.
TEST(SpookSleep, ABoxMovedByHandIsCollidedWhereItIs) {
  Sim run(scene_from_text(boxes("", {{0, 0.05}}), "sleep_moved"));
  run.steps(600);
  ASSERT_EQ(run.r.asleep_bodies, 1);
  run.s.q[0] += 0.5;
  run.steps(1);
  ASSERT_FALSE(run.r.contacts.empty());
  for (const ContactResult& c : run.r.contacts) EXPECT_NEAR(c.position.x(), 0.5, 0.051);
}

// A run saved while its box sleeps and continued from the file ends in the same bits as the
// run that never stopped (sleep_time is in the state file).
TEST(SpookSleep, ACheckpointWhileAsleepContinuesBitForBit) {
  const Scene scene = scene_from_text(boxes("", {{0, 0.05}, {0.02, 2.15}}), "sleep_checkpoint");
  Sim whole(scene);
  whole.steps(1500);
  Sim first(scene);
  first.steps(620);
  ASSERT_EQ(first.r.asleep_bodies, 1);
  const std::string path = ::testing::TempDir() + "sleep_checkpoint.state";
  save_state(path, *scene.model, first.s);
  Sim second(scene);
  second.s = load_state(path, *scene.model);
  second.steps(880);
  EXPECT_EQ(second.s.q, whole.s.q);
  EXPECT_EQ(second.s.v, whole.s.v);
  EXPECT_EQ(second.s.sleep_time, whole.s.sleep_time);
}

TEST(SpookSleep, BadSettingsNameTheKey) {
  auto error_of = [](const std::string& options) {
    try {
      scene_from_text(boxes(options, {{0, 0.05}}), "sleep_bad");
    } catch (const std::exception& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_NE(error_of(", sleep: {time: -1}").find("options: sleep: time must be >= 0"), std::string::npos);
  EXPECT_NE(error_of(", sleep: {linear: -0.1}").find("options: sleep: linear must be >= 0"), std::string::npos);
  EXPECT_NE(error_of(", sleep: {angular: .nan}").find("key 'angular': expected a finite number"), std::string::npos);
  EXPECT_NE(error_of(", sleep: {speed: 1}").find("speed"), std::string::npos);
  EXPECT_NE(error_of(", sleep: maybe").find("sleep"), std::string::npos);
}

}  // namespace
}  // namespace graspsim
