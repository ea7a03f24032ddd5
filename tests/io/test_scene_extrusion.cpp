// `type: extrusion` geoms: a non-convex outline collides as its true shape (not its hull), its
// footprint carries the weight, and bad outlines are refused at their line.

#include <gtest/gtest.h>

#include "io/scene.h"
#include "io_test_util.h"
#include "steppers/step.h"

namespace graspsim {
namespace {

using test::input_error;
using test::TempDir;

// A 60 x 40 mm L of 10 mm thickness; the notch [20, 60] x [10, 40] mm is cut out of its hull.
constexpr const char* kLOutline = "[[0, 0], [0.06, 0], [0.06, 0.01], [0.02, 0.01], [0.02, 0.04], [0, 0.04]]";

std::string scene_text(const std::string& l_body, const std::string& extra) {
  return std::string("duration: 1\noptions: {stepper: spook, dt: 0.001, patch_grid: 3}\n") +
         "geoms:\n  - {name: ground, type: plane}\n" + "bodies:\n" + l_body + extra;
}

// The L as a free body resting on the ground.
Scene free_l(const TempDir& dir) {
  return load_scene(dir.write("l.yaml", scene_text("  - name: l\n    pos: [0, 0, 0.005]\n    joint: free\n    geoms:\n"
                                                   "      - {name: l_geom, type: extrusion, height: 0.01, density: 1000, "
                                                   "outline: " + std::string(kLOutline) + "}\n", "")));
}

TEST(SceneExtrusion, LShapeIsTwoNamedPiecesWithTheOutlinesMass) {
  TempDir dir;
  const Scene scene = free_l(dir);
  const Model& m = *scene.model;
  ASSERT_GE(m.find_geom("l_geom/0"), 0);
  ASSERT_GE(m.find_geom("l_geom/1"), 0);
  EXPECT_LT(m.find_geom("l_geom/2"), 0);
  const int l = m.find_body("l");
  EXPECT_NEAR(m.bodies[l].mass, 1000 * (0.06 * 0.04 - 0.04 * 0.03) * 0.01, 1e-12);
}

// The L rests on the ground: every support point lies on the true footprint (none in the notch,
// which the convex hull would cover) and the support carries the weight.
TEST(SceneExtrusion, TheSupportIsTheTrueFootprint) {
  TempDir dir;
  const Scene scene = free_l(dir);
  const Model& m = *scene.model;
  State s = make_state(m);
  Workspace ws;
  StepResult r;
  for (int i = 0; i < 200; ++i) step(m, s, ws, &r);
  double fz = 0;
  int points = 0;
  for (const ContactResult& c : r.contacts) {
    const Vec3 p = c.position;
    EXPECT_FALSE(p.x() > 0.02 + 1e-9 && p.y() > 0.01 + 1e-9) << "support point in the notch: " << p.transpose();
    EXPECT_GE(p.x(), -1e-9);
    EXPECT_GE(p.y(), -1e-9);
    fz += c.fn * c.normal.z();
    ++points;
  }
  EXPECT_EQ(points, 2 * 9);  // a 3 x 3 grid under each piece
  EXPECT_NEAR(std::abs(fz), m.bodies[m.find_body("l")].mass * 9.81, 1e-3 * m.bodies[m.find_body("l")].mass * 9.81);
}

// A ball dropped over the notch falls past the L onto the ground; over the L it lands on its top.
TEST(SceneExtrusion, ABallFallsThroughTheNotchNotOntoTheHull) {
  TempDir dir;
  const std::string fixed_l =
      "  - name: l\n    pos: [0, 0, 0.025]\n    geoms:\n"
      "      - {name: l_geom, type: extrusion, height: 0.05, outline: " + std::string(kLOutline) + "}\n";
  for (const auto& [x, y, top] : {std::tuple{0.045, 0.03, false}, std::tuple{0.01, 0.03, true}}) {
    const std::string ball = "  - name: ball\n    pos: [" + std::to_string(x) + ", " + std::to_string(y) +
                             ", 0.08]\n    joint: free\n    geoms:\n      - {type: sphere, size: 0.004}\n";
    const Scene scene = load_scene(dir.write("drop.yaml", scene_text(fixed_l, ball)));
    const Model& m = *scene.model;
    State s = make_state(m);
    Workspace ws;
    for (int i = 0; i < 600; ++i) step(m, s, ws);
    const int ball_q = m.joints[m.bodies[m.find_body("ball")].joint].qadr;
    EXPECT_NEAR(s.q[ball_q + 2], top ? 0.054 : 0.004, 5e-4) << "dropped at x = " << x;
  }
}

TEST(SceneExtrusion, BadOutlinesNameTheLine) {
  TempDir dir;
  const auto body = [](const std::string& geom) {
    return "  - name: l\n    joint: free\n    geoms:\n      - " + geom + "\n";
  };
  const auto err = [&](const std::string& geom) {
    return input_error([&] { load_scene(dir.write("bad.yaml", scene_text(body(geom), ""))); });
  };
  EXPECT_CONTAINS(err("{type: extrusion, height: 0.01, outline: [[0, 0], [1, 1], [1, 0], [0, 1]]}"),
                  "bad.yaml:9: geoms of body 'l'");
  EXPECT_CONTAINS(err("{type: extrusion, height: 0.01, outline: [[0, 0], [1, 1], [1, 0], [0, 1]]}"), "crosses or touches itself");
  EXPECT_CONTAINS(err("{type: extrusion, height: 0, outline: [[0, 0], [1, 0], [0, 1]]}"), "'height' must be positive");
  EXPECT_CONTAINS(err("{type: extrusion, outline: [[0, 0], [1, 0], [0, 1]]}"), "height");
  EXPECT_CONTAINS(err("{type: extrusion, height: 0.01, outline: [[0, 0], [1, 0, 2], [0, 1]]}"), "outline");
  EXPECT_CONTAINS(err("{type: extrusion, height: 0.01, size: [1], outline: [[0, 0], [1, 0], [0, 1]]}"), "size");
  EXPECT_CONTAINS(err("{type: extrusoin, height: 0.01}"), "extrusion");
}

}  // namespace
}  // namespace graspsim

namespace graspsim {
namespace {

// The shipped example: a rod in the L's notch pushes it from inside its hull. The rod touches
// the notch's inner side from the first step (with the hull it would start 16 mm deep) and
// carries the part along -x, turning it counter-clockwise (the push acts 5 mm above the centroid).
TEST(SceneExtrusion, ShippedLPushMovesThePartFromInsideItsHull) {
  const Scene scene = load_scene(std::string(GRASPSIM_SOURCE_DIR) + "/scenes/validation/l_push.yaml", {"duration=0.5"});
  const Model& m = *scene.model;
  const int part = m.find_body("part"), pusher = m.find_body("pusher");
  State s = make_state(m);
  Workspace ws;
  StepResult r;
  double deepest = 0;
  for (int i = 0; i < 500; ++i) {
    step(m, s, ws, &r);
    bool touching = false;
    for (const ContactResult& c : r.contacts)
      if (c.body_a == pusher || c.body_b == pusher) touching = true, deepest = std::max(deepest, c.depth);
    ASSERT_TRUE(touching) << "step " << i;
  }
  EXPECT_LT(deepest, 1e-4);
  const int q = m.joints[m.bodies[part].joint].qadr;
  EXPECT_LT(s.q[q], -0.001);  // 5 mm of push; the origin (the L's corner) also swings with the turn
  EXPECT_GT(s.q[q + 6], 0.0);  // yaw > 0
}

}  // namespace
}  // namespace graspsim
