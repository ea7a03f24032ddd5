// Robot grasps under SPOOK, each lifting its object 10 cm and holding it 5 s (issue 11's
// grasp target): the Robotiq 2F-85 (scenes/robots/robotiq_box.yaml, robotiq_cylinder.yaml)
// and the Shadow Hand (shadow_sphere.yaml, shadow_bunny.yaml), loaded unedited from their
// Menagerie MJCF files.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <map>

#include "kinematics/kinematics.h"
#include "spook_validation_util.h"

namespace graspsim::validation {
namespace {

// The origin of body `object` in the frame of body `link`.
Vec3 object_in(const KinematicsData& kin, int link, int object) { return kin.X_WB[link].inverse() * kin.X_WB[object].p; }

// Object origin in the frame of the finger pad `pad`.
Vec3 in_pad(const Model& m, const State& s, const std::string& pad) {
  KinematicsData kin;
  forward_kinematics(m, s.q, kin);
  return object_in(kin, m.body_id(pad), m.body_id("object"));
}

Scene robot_scene(const std::string& name, const std::vector<std::string>& overrides) {
  return load_scene(std::string(GRASPSIM_SOURCE_DIR) + "/scenes/robots/" + name + ".yaml", overrides);
}

// close + settle + lift (10 cm at lift_speed, reached and left over lift_ramp_s)
double hold_start_of(const Scene& scene) {
  const auto& p = scene.parameters;
  return p.at("close_s") + p.at("settle_s") + 0.1 / p.at("lift_speed") + p.at("lift_ramp_s");
}

struct GraspCase {
  const char* name;
  const char* scene;
  const char* dt;
  double object_half;  // height of the object's centre when it rests on the floor
};

class RobotGrasp : public ::testing::TestWithParam<GraspCase> {};

TEST_P(RobotGrasp, Robotiq2f85LiftsAndHolds) {
  const GraspCase& c = GetParam();
  const Scene scene = robot_scene(c.scene, {std::string("parameters.dt=") + c.dt});
  const Model& m = *scene.model;
  const double hold_start = hold_start_of(scene), hold_end = scene.duration;
  Vec3 start = Vec3::Zero();
  double worst_coupling = 0.0;
  const Joint& right = m.joints[m.joint_id("right_driver_joint")];
  const Joint& left = m.joints[m.joint_id("left_driver_joint")];
  const State end = simulate(scene, hold_end, [&](const State& s, const StepResult&, Workspace&) {
    if (std::abs(s.t - hold_start) < 0.5 * m.options.dt) start = in_pad(m, s, "right_pad");
    // The MJCF <equality><joint> keeps both drivers together.
    if (s.t > hold_start) worst_coupling = std::max(worst_coupling, std::abs(s.q[right.qadr] - s.q[left.qadr]));
  });
  const double lift = position(m, end, "object").z() - c.object_half;
  // 10 cm, plus the ~1.5 mm the closing fingertips raise it off the floor
  EXPECT_NEAR(lift, 0.1, 2e-3) << "the object follows the gripper up 10 cm";
  const double slip = (in_pad(m, end, "right_pad") - start).norm();
  EXPECT_LT(slip, 1e-3) << "slip relative to the finger during the 5 s hold";
  EXPECT_LT(worst_coupling, 1e-3) << "rad between the two driver joints";
  RecordProperty("hold_slip_mm", std::to_string(1e3 * slip));
}

// With point contact at 1/60 s the pads and inner links give an MLCP on which Lemke once
// ended on a near-singular basis and was accepted: impulses of 1e7 N·s threw the box
// 15 km in one step (with 64 sweeps). Now such a run counts as a failure and PGS takes the
// island: the state stays finite and the box held (area contact is what the scene uses).
TEST(RobotGraspRobustness, PointContactAtOneSixtiethStaysFinite) {
  const Scene scene = robot_scene("robotiq_box", {"parameters.dt=0.0166666666666667", "default_contact.area=point"});
  const State end = simulate(scene, scene.duration, [](const State&, const StepResult&, Workspace&) {});
  EXPECT_TRUE(end.q.allFinite() && end.v.allFinite());
  EXPECT_GT(position(*scene.model, end, "object").z(), 0.025 + 0.08) << "still in the gripper, 10 cm up";
}

// One run of a Shadow Hand scene. Slip is relative to the fingers: every hand link that
// touches the object when the hold starts (fingers, thumb, palm) is followed, and `slip` is
// the largest move of the object's origin in one of their frames over the 5 s hold.
struct HandHold {
  bool on_stand_at_hold = false;
  size_t links = 0;   // hand links touching the object when the hold starts
  double slip = 0.0;  // m
  std::string slip_link;
  double rise = 0.0;  // m: the object's z at the end less at the start
};

HandHold hand_hold(const std::string& scene_name, const std::string& dt) {
  const Scene scene = robot_scene(scene_name, {"parameters.dt=" + dt});
  const Model& m = *scene.model;
  const double hold_start = hold_start_of(scene);
  const int object = m.body_id("object");
  const int stand = 0;  // the posts are world geoms
  HandHold out;
  std::map<int, Vec3> start;  // link → object origin in its frame at the hold's start
  const State end = simulate(scene, scene.duration, [&](const State& s, const StepResult& r, Workspace&) {
    if (std::abs(s.t - hold_start) >= 0.5 * m.options.dt) return;
    KinematicsData kin;
    forward_kinematics(m, s.q, kin);
    for (const ContactResult& k : r.contacts) {
      if (k.fn <= 0.0 || (k.body_a != object && k.body_b != object)) continue;
      const int link = k.body_a == object ? k.body_b : k.body_a;
      if (link == stand) out.on_stand_at_hold = true;
      else start[link] = object_in(kin, link, object);
    }
  });
  KinematicsData kin;
  forward_kinematics(m, end.q, kin);
  for (const auto& [link, at_start] : start) {
    const double d = (object_in(kin, link, object) - at_start).norm();
    if (d > out.slip) out.slip = d, out.slip_link = m.bodies[link].name;
  }
  out.links = start.size();
  out.rise = position(m, end, "object").z() - position(m, make_state(m), "object").z();
  return out;
}

// Held: off the stand, by at least three links, 10 cm up within 1 cm (the wrist servo, kp
// 8 N·m/rad, gives ~0.06 rad under the load; the bunny turns in the hand).
bool lifted(const HandHold& r) { return !r.on_stand_at_hold && r.links >= 3 && std::abs(r.rise - 0.1) < 0.01; }

struct HandCase {
  const char* name;
  const char* scene;
  const char* dt;
};

class ShadowHandGrasp : public ::testing::TestWithParam<HandCase> {};

// The ball: the object moves less than 1 mm in the frame of each holding link.
TEST_P(ShadowHandGrasp, PowerGraspLiftsAndHolds) {
  const HandCase& c = GetParam();
  const HandHold r = hand_hold(c.scene, c.dt);
  EXPECT_FALSE(r.on_stand_at_hold) << "the object is still on the stand";
  ASSERT_GE(r.links, 3u) << "fewer than three hand links hold the object";
  EXPECT_LT(r.slip, 1e-3) << "slip relative to " << r.slip_link << " during the 5 s hold";
  EXPECT_NEAR(r.rise, 0.1, 0.01) << "the object follows the hand up 10 cm";
  RecordProperty("hold_slip_mm", std::to_string(1e3 * r.slip));
}

// Whether one run holds the bunny used to depend on how its trajectory rounded (docs/robots.md):
// runs whose dt differs by at most 1.2e-11 (relative) lifted it in 7-8 of 9 at 1 ms and 14 of
// 25 at 1/60 s, while its geom's supporting "faces" were the bunny's own triangles at the
// support vertex, planes the bunny crosses. Colliding as its hull (Mesh::hull), every one of
// those runs lifts it: 9 of 9 (slips 0-0.17 mm, median 0.001) and 25 of 25 (0-1.8 mm, median
// 0.07). The test asserts over such runs still, with a margin for a sample: at least
// min_lifted of them lift it 10 cm, and the median slip of those is below 1 mm (the ball's
// single-run bound).
struct BunnyCase {
  const char* name;
  double dt;
  int runs;
  int min_lifted;
  double median_slip;  // m
};

class ShadowHandBunny : public ::testing::TestWithParam<BunnyCase> {};

TEST_P(ShadowHandBunny, NearlyEveryRunLiftsItWhateverTheRounding) {
  const BunnyCase& c = GetParam();
  std::vector<double> slips;  // of the runs that lift it
  std::string runs;
  for (int k = -(c.runs / 2); k <= c.runs / 2; ++k) {
    char dt[32], shown[48];
    std::snprintf(dt, sizeof dt, "%.17g", c.dt * (1.0 + 1e-12 * k));
    const HandHold r = hand_hold("shadow_bunny", dt);
    std::snprintf(shown, sizeof shown, " %.3f%s", 1e3 * r.slip, lifted(r) ? "" : "(dropped)");
    runs += shown;
    if (lifted(r)) slips.push_back(r.slip);
  }
  RecordProperty("slips_mm", runs);
  ASSERT_GE(static_cast<int>(slips.size()), c.min_lifted) << "runs that lift the bunny 10 cm; slips (mm):" << runs;
  std::nth_element(slips.begin(), slips.begin() + slips.size() / 2, slips.end());
  EXPECT_LT(slips[slips.size() / 2], c.median_slip) << "the median slip of the lifted runs; slips (mm):" << runs;
}

INSTANTIATE_TEST_SUITE_P(Scenes, ShadowHandBunny,
                         ::testing::Values(BunnyCase{"dt_1ms", 0.001, 9, 8, 1e-3},
                                           BunnyCase{"dt_1_60s", 1.0 / 60.0, 25, 22, 1e-3}),
                         [](const auto& info) { return std::string(info.param.name); });

INSTANTIATE_TEST_SUITE_P(Scenes, ShadowHandGrasp,
                         ::testing::Values(HandCase{"sphere_dt_1ms", "shadow_sphere", "0.001"},
                                           HandCase{"sphere_dt_1_60s", "shadow_sphere", "0.0166666666666667"}),
                         [](const auto& info) { return std::string(info.param.name); });

INSTANTIATE_TEST_SUITE_P(Scenes, RobotGrasp,
                         ::testing::Values(GraspCase{"box_dt_1ms", "robotiq_box", "0.001", 0.025},
                                           GraspCase{"box_dt_1_60s", "robotiq_box", "0.0166666666666667", 0.025},
                                           GraspCase{"cylinder_dt_1ms", "robotiq_cylinder", "0.001", 0.04},
                                           GraspCase{"cylinder_dt_1_60s", "robotiq_cylinder", "0.0166666666666667", 0.04}),
                         [](const auto& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace graspsim::validation
