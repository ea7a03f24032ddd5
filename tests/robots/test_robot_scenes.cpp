// Robot files inside scenes: placed on another robot's site, keyframes in the combined
// model, the same file twice, and steppers that cannot impose a robot's equalities.
#include <gtest/gtest.h>

#include "../common/temp_dir.h"
#include "core/error.h"
#include "collision/distance.h"
#include "io/scene.h"
#include "kinematics/kinematics.h"
#include "model/state.h"
#include "robots/robot_file.h"

namespace graspsim {
namespace {

const std::string kSource = GRASPSIM_SOURCE_DIR;

TEST(RobotScenes, GripperSitsOnTheArmsAttachmentSite) {
  const Scene scene = load_scene(kSource + "/scenes/robots/iiwa_robotiq.yaml");
  const Model& m = *scene.model;
  KinematicsData kin;
  forward_kinematics(m, m.q0, kin);
  const int site = m.find_site("attachment_site");
  ASSERT_GE(site, 0);
  const Pose X_site = kin.X_WB[m.sites[site].body] * m.sites[site].X_body_site;
  // base_mount hangs from the site at its MJCF pose (0 0 0.007), base 0.0038 above it.
  const Vec3 base_mount = kin.X_WB[m.body_id("gripper/base_mount")].p;
  EXPECT_LT((base_mount - X_site * Vec3(0, 0, 0.007)).norm(), 1e-12);
  EXPECT_EQ(m.bodies[m.body_id("gripper/base_mount")].parent, m.sites[site].body);
  // The arm's keyframe covers the arm's 7 joints of the 15; the gripper's stay at q0.
  ASSERT_EQ(m.keyframes.size(), 1u);
  const Keyframe& home = m.keyframes.front();
  EXPECT_EQ(home.q.size(), m.nq);
  const Joint& j4 = m.joints[m.joint_id("joint4")];
  EXPECT_DOUBLE_EQ(home.q[j4.qadr], -1.5708);
  EXPECT_EQ(home.q.tail(8), m.q0.tail(8));
}

// The Shadow Hand grasp scenes: the unedited right hand (24 joints, 20 actuators), palm
// down above `object`, which rests on the stand (their slow runs are in tests/validation).
TEST(RobotScenes, ShadowHandScenesPlaceThePalmAboveTheObject) {
  for (const char* name : {"shadow_sphere", "shadow_bunny"}) {
    SCOPED_TRACE(name);
    const Scene scene = load_scene(kSource + "/scenes/robots/" + name + ".yaml");
    const Model& m = *scene.model;
    EXPECT_EQ(m.actuators.size(), 20u);
    EXPECT_TRUE(m.bodies[m.body_id("lift")].kinematic);
    KinematicsData kin;
    forward_kinematics(m, m.q0, kin);
    const Pose& palm = kin.X_WB[m.body_id("rh_palm")];
    EXPECT_LT((palm.R() * Vec3(0, -1, 0) - Vec3(0, 0, -1)).norm(), 1e-9) << "palm faces down";
    const Vec3 object = kin.X_WB[m.body_id("object")].p;
    const double top = scene.parameters.at("object_top");
    EXPECT_GT(palm.p.z() - 0.012, top) << "the palm's surface (12 mm below its frame) clears the object";
    EXPECT_LT(palm.p.z() - 0.012 - top, 0.005);
    EXPECT_GT(top, object.z());
    // The object rests on (or less than a millimetre above) the posts, not in them.
    const int geom = m.find_geom("object_geom");
    for (const char* post : {"stand_post0", "stand_post1", "stand_post2"}) {
      const int g = m.find_geom(post);
      ASSERT_GE(g, 0);
      DistanceResult d;
      ASSERT_TRUE(signed_distance(m, g, kin.X_WB[0] * m.geoms[g].X_body_geom, geom,
                                  kin.X_WB[m.geoms[geom].body] * m.geoms[geom].X_body_geom, 0.01, d))
          << post;
      EXPECT_GT(d.distance, -1e-9) << post;
      EXPECT_LT(d.distance, 1e-3) << post;
    }
  }
}

// `keyframe:` starts a robot at one of its file's keyframes: the arm's "home" sets its 7
// joints; a gripper hung from it keeps its own initial values. A missing name is an error
// that lists the file's keyframes.
TEST(RobotScenes, KeyframeKeyStartsTheRobotThere) {
  test::TempDir dir;
  const std::string models = std::string(GRASPSIM_SHARED_DIR) + "/data/models/";
  const std::string scene_text = "options: {stepper: spook}\nrobots:\n  - {file: " + models + "kuka_iiwa_14/iiwa14.xml, keyframe: home}\n"
                                 "  - {file: " + models + "robotiq_2f85/2f85.xml, prefix: g/, site: attachment_site}\n";
  const Scene scene = load_scene(dir.write("arm.yaml", scene_text));
  const Model& m = *scene.model;
  ASSERT_EQ(m.keyframes.size(), 1u);
  const Keyframe& home = m.keyframes.front();
  EXPECT_DOUBLE_EQ(m.q0[m.joints[m.joint_id("joint4")].qadr], -1.5708);
  EXPECT_EQ(m.q0.head(7), home.q.head(7));
  EXPECT_EQ(m.q0.tail(8), VecX::Zero(8)) << "the gripper's joints stay at their zero";
  const State s = make_state(m);
  EXPECT_EQ(s.q, m.q0);

  const std::string bad = "robots:\n  - {file: " + models + "kuka_iiwa_14/iiwa14.xml, keyframe: rest}\n";
  const std::string msg = test::input_error([&] { load_scene(dir.write("bad.yaml", bad)); });
  EXPECT_NE(msg.find("bad.yaml:2"), std::string::npos) << msg;
  EXPECT_NE(msg.find("no keyframe 'rest' (the file has 'home')"), std::string::npos) << msg;
}

TEST(RobotScenes, SameFileTwiceWithPrefixes) {
  ModelBuilder b;
  const std::string file = std::string(GRASPSIM_SHARED_DIR) + "/data/models/robotiq_2f85/2f85.xml";
  RobotPlacement left, right;
  left.prefix = "left/";
  right.prefix = "right/";
  right.pose.p = Vec3(0.3, 0, 0);
  add_robot(b, file, left);
  add_robot(b, file, right);
  const auto m = b.build();
  EXPECT_EQ(m->actuators.size(), 2u);
  EXPECT_GE(m->find_body("right/base"), 0);
}

TEST(RobotScenes, TwoFilesShareTheirFrictionMaterials) {
  // Both files' geoms have MuJoCo's default friction 1: one material "mu1", one pair.
  ModelBuilder b;
  const std::string models = std::string(GRASPSIM_SHARED_DIR) + "/data/models/";
  add_robot(b, models + "robotiq_2f85/2f85.xml");
  add_robot(b, models + "shadow_hand/right_hand.xml");
  const auto m = b.build();
  int mu1 = 0;
  for (const auto& name : m->materials) mu1 += name == "mu1";
  EXPECT_EQ(mu1, 1);
}

TEST(RobotScenes, TheDynamicsStepperRefusesEqualities) {
  // The 2F-85's four-bar loops are equality rows: only SPOOK imposes them.
  EXPECT_THROW(load_scene(std::string(GRASPSIM_SHARED_DIR) + "/data/models/robotiq_2f85/2f85.xml",
                          {"options.stepper=dynamics"}),
               InputError);
}

}  // namespace
}  // namespace graspsim
