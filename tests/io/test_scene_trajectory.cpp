// The `trajectories` scene key: waypoint poses of a frame become position-servo commands
// by inverse kinematics.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numbers>
#include <string>

#include "control/ik.h"
#include "io/scene.h"
#include "io_test_util.h"

namespace graspsim {
namespace {

using test::input_error;
using test::TempDir;

const std::string kIiwa = std::string(GRASPSIM_SHARED_DIR) + "/data/models/kuka_iiwa_14/iiwa14.xml";

// The iiwa from its home keyframe; the flange site moves down, sideways while turning 40°
// about the vertical, then tilts 20°. Line numbers matter to the error tests below.
std::string arm_scene(const std::string& trajectory_extra = "", const std::string& rest = "") {
  return "robots:\n"                                                          // 1
         "  - {file: " + kIiwa + ", keyframe: home}\n"                        // 2
         "trajectories:\n"                                                    // 3
         "  - frame: attachment_site\n"                                       // 4
         "    actuators: [actuator1, actuator2, actuator3, actuator4, actuator5, actuator6, actuator7]\n"  // 5
         "    sample_dt: 0.05\n" +                                            // 6
         trajectory_extra +                                                   // (0 or 1 line)
         "    waypoints:\n"                                                   // 7
         "      - {t: 0.0, pos: [0.55, 0.0, 0.45], euler_deg: [180, 0, 0]}\n"
         "      - {t: 1.0, pos: [0.55, 0.0, 0.30], euler_deg: [180, 0, 0]}\n"
         "      - {t: 2.5, pos: [0.50, 0.20, 0.40], euler_deg: [180, 0, 40]}\n"
         "      - {t: 3.0, pos: [0.50, 0.20, 0.40], quat: [0, 0.98480775, 0, 0.17364818]}\n" +
         rest;
}

std::string load_error(const std::string& text) {
  TempDir dir;
  const std::string path = dir.write("arm.yaml", text);
  return input_error([&] { load_scene(path); });
}

struct Way {
  double t;
  Vec3 p;
  Quat q;
};

Quat euler(double roll, double pitch, double yaw) {
  const double k = std::numbers::pi / 180.0;
  return Eigen::AngleAxisd(yaw * k, Vec3::UnitZ()) * Eigen::AngleAxisd(pitch * k, Vec3::UnitY()) *
         Eigen::AngleAxisd(roll * k, Vec3::UnitX());
}

const Way kWays[] = {{0.0, {0.55, 0.0, 0.45}, euler(180, 0, 0)},
                     {1.0, {0.55, 0.0, 0.30}, euler(180, 0, 0)},
                     {2.5, {0.50, 0.20, 0.40}, euler(180, 0, 40)},
                     {3.0, {0.50, 0.20, 0.40}, Quat(0, 0.98480775, 0, 0.17364818).normalized()}};

Pose waypoint_pose(double t) {
  size_t i = 0;
  while (i + 2 < std::size(kWays) && kWays[i + 1].t <= t) ++i;
  const double s = std::clamp((t - kWays[i].t) / (kWays[i + 1].t - kWays[i].t), 0.0, 1.0);
  return {(1 - s) * kWays[i].p + s * kWays[i + 1].p, kWays[i].q.slerp(s, kWays[i + 1].q)};
}

// The arm's configuration the servos command at time t.
VecX commanded_q(const Model& m, double t) {
  VecX q = m.q0;
  for (int i = 1; i <= 7; ++i) {
    const Actuator& a = m.actuators[static_cast<size_t>(m.find_actuator("actuator" + std::to_string(i)))];
    const TransmissionTerm& term = a.transmission[0];
    q[term.qadr] = (a.ctrl_gain * a.command(t) + a.ctrl_bias) / term.coef;
  }
  return q;
}

TEST(SceneTrajectory, CommandsPutTheFrameOnTheInterpolatedWaypoints) {
  TempDir dir;
  const Scene scene = load_scene(dir.write("arm.yaml", arm_scene()));
  const Model& m = *scene.model;
  const IkTarget site = ik_target(m, "attachment_site");
  // Knots every sample_dt plus the waypoints.
  const Signal& c1 = m.actuators[static_cast<size_t>(m.find_actuator("actuator1"))].command;
  ASSERT_EQ(c1.t.size(), 61u);
  EXPECT_EQ(c1.t.front(), 0.0);
  EXPECT_EQ(c1.t.back(), 3.0);
  EXPECT_EQ(c1.interp, Signal::Interp::Linear);
  double largest_jump = 0.0;
  for (int i = 1; i <= 7; ++i) {
    const Signal& c = m.actuators[static_cast<size_t>(m.find_actuator("actuator" + std::to_string(i)))].command;
    for (size_t k = 1; k < c.y.size(); ++k) largest_jump = std::max(largest_jump, std::abs(c.y[k] - c.y[k - 1]));
  }
  EXPECT_LT(largest_jump, 0.1);  // each sample seeded from the one before: no branch flips
  // At knots, between knots (joint-space interpolation of close samples) and after the end.
  for (double t : {0.0, 0.05, 0.5, 0.975, 1.0, 1.333, 2.0, 2.5, 2.72, 3.0, 4.0}) {
    const Pose X = frame_pose(m, site, commanded_q(m, t));
    const Pose want = waypoint_pose(std::min(t, 3.0));
    EXPECT_LT((X.p - want.p).norm(), 1e-4) << "t = " << t;
    EXPECT_LT(quat_log(X.q * want.q.conjugate()).norm(), 1e-3) << "t = " << t;
  }
}

TEST(SceneTrajectory, StartSetsTheInitialConfiguration) {
  TempDir dir;
  const Scene started = load_scene(dir.write("a.yaml", arm_scene()));
  const Model& m = *started.model;
  const Pose X0 = frame_pose(m, ik_target(m, "attachment_site"), m.q0);
  EXPECT_LT((X0.p - kWays[0].p).norm(), 1e-6);
  EXPECT_LT(quat_log(X0.q * kWays[0].q.conjugate()).norm(), 1e-5);
  const VecX commanded = commanded_q(m, 0.0);
  for (int i = 0; i < 7; ++i) EXPECT_DOUBLE_EQ(m.q0[i], commanded[i]);
  // start: false keeps the keyframe's configuration (home).
  const Scene kept = load_scene(dir.write("b.yaml", arm_scene("    start: false\n")));
  const Keyframe& home = kept.model->keyframes[0];
  for (int i = 0; i < 7; ++i) EXPECT_EQ(kept.model->q0[i], home.q[i]);
  // The commands do not depend on `start`.
  const Actuator& a = kept.model->actuators[static_cast<size_t>(kept.model->find_actuator("actuator4"))];
  const Actuator& b = m.actuators[static_cast<size_t>(m.find_actuator("actuator4"))];
  EXPECT_EQ(a.command.y, b.command.y);
}

TEST(SceneTrajectory, BodyFramesAndTheOrientationWeightWork) {
  // A body as the frame (link7's origin is 4.5 cm behind the site), position only.
  TempDir dir;
  std::string text = arm_scene("    orientation_weight: 0\n");
  text.replace(text.find("frame: attachment_site"), 22, "frame: link7");
  const Scene scene = load_scene(dir.write("a.yaml", text));
  const Model& m = *scene.model;
  const Pose X = frame_pose(m, ik_target(m, "link7"), commanded_q(m, 1.0));
  EXPECT_LT((X.p - kWays[1].p).norm(), 1e-4);
}

TEST(SceneTrajectory, ErrorsNameTheFileLineAndTrajectory) {
  // Unknown frame.
  std::string text = arm_scene();
  text.replace(text.find("frame: attachment_site"), 22, "frame: attachment_sit");
  std::string msg = load_error(text);
  EXPECT_CONTAINS(msg, "arm.yaml:4: trajectories item 1 (frame 'attachment_sit'): key 'frame': no site or body 'attachment_sit'");
  EXPECT_CONTAINS(msg, "did you mean 'attachment_site'?");
  // Not a position servo: a velocity servo on a scene body's joint.
  const std::string wheel =
      "bodies:\n"                                                                                    // 11
      "  - {name: wheel, pos: [1, 1, 0], joint: {type: revolute, name: spin}, mass: 1, inertia: [1, 1, 1]}\n"  // 12
      "actuators:\n"                                                                                 // 13
      "  - {name: spinner, joint: spin, type: velocity, kv: 1}\n";                                   // 14
  text = arm_scene("", wheel);
  text.replace(text.find("actuator7]"), 10, "actuator7, spinner]");
  msg = load_error(text);
  EXPECT_CONTAINS(msg, "arm.yaml:5: trajectories item 1 (frame 'attachment_site'): actuator 'spinner' is a velocity actuator, not a position servo");
  // Unknown actuator.
  text = arm_scene();
  text.replace(text.find("actuator7]"), 10, "actuator8]");
  EXPECT_CONTAINS(load_error(text), "arm.yaml:5: trajectories item 1 (frame 'attachment_site'): no actuator 'actuator8'");
  // Unreachable waypoint: 2 m away, at t = 2.5 (line 10).
  text = arm_scene();
  text.replace(text.find("[0.50, 0.20, 0.40], euler_deg"), 18, "[2.00, 0.20, 0.40]");
  msg = load_error(text);
  EXPECT_CONTAINS(msg, "arm.yaml:10: trajectories item 1 (frame 'attachment_site'): the pose at t = ");
  EXPECT_CONTAINS(msg, "is out of reach");
  // The first sample out of reach names t = 0 and the first waypoint.
  text = arm_scene();
  text.replace(text.find("[0.55, 0.0, 0.45]"), 17, "[0.0, 0.0, 2.0]");
  msg = load_error(text);
  EXPECT_CONTAINS(msg, "arm.yaml:8: trajectories item 1 (frame 'attachment_site'): the pose at t = 0 s is out of reach");
  // A control for an actuator the trajectory drives.
  msg = load_error(arm_scene("", "controls:\n  - {actuator: actuator3, command: 0.1}\n"));
  EXPECT_CONTAINS(msg, "arm.yaml:13: controls item 1: actuator 'actuator3' is driven by trajectories item 1 (frame 'attachment_site') (");
  EXPECT_CONTAINS(msg, "arm.yaml:4): its command is generated");
  // Waypoint times must increase; keys are checked.
  text = arm_scene();
  text.replace(text.find("t: 2.5"), 6, "t: 0.5");
  EXPECT_CONTAINS(load_error(text), "arm.yaml:10: waypoint 3 of trajectories item 1 (frame 'attachment_site'): waypoint times must increase strictly");
  EXPECT_CONTAINS(load_error(arm_scene("    sample_dtt: 0.1\n")), "arm.yaml:7: unknown key 'sample_dtt' in trajectories item 1");
  text = arm_scene();
  text.replace(text.find("sample_dt: 0.05"), 15, "sample_dt: 0");
  EXPECT_CONTAINS(load_error(text), "arm.yaml:6: key 'sample_dt': must be positive");
}

}  // namespace
}  // namespace graspsim
