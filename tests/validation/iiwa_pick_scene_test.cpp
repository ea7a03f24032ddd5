// scenes/quasistatic/iiwa_pick.yaml (seed 003, section V.B): what can be checked of the
// arm's commanded motion without a stepper. The commanded configuration (every servo at its
// set point, the object where it stands) must move smoothly, keep the hand and the arm off
// the table and off the object until the fingers close, and bring the open pads to either
// side of the object with clearance, fingertips 2 cm above the table.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "collision/distance.h"
#include "io/scene.h"
#include "kinematics/kinematics.h"

namespace graspsim {
namespace {

const std::string kScene = std::string(GRASPSIM_SOURCE_DIR) + "/scenes/quasistatic/iiwa_pick.yaml";

// Every joint a position servo drives at its set point at time t; the rest at q0.
VecX commanded_q(const Model& m, double t) {
  VecX q = m.q0;
  for (const Actuator& a : m.actuators) {
    if (a.type != ActuatorType::Position || a.transmission.size() != 1) continue;
    const TransmissionTerm& term = a.transmission[0];
    q[term.qadr] = (a.ctrl_gain * std::clamp(a.command(t), a.ctrl_min, a.ctrl_max) + a.ctrl_bias) / term.coef;
  }
  return q;
}

// Lowest world z of a geom (boxes by their corners, spheres by their centre).
double lowest_z(const Model& m, const KinematicsData& kin, int g) {
  const Geom& geom = m.geoms[static_cast<size_t>(g)];
  const Pose X = geom_pose(m, kin, g);
  if (geom.type == GeomType::Sphere) return X.p.z() - geom.size.x();
  EXPECT_EQ(geom.type, GeomType::Box) << geom.name;
  double z = kInf;
  for (int c = 0; c < 8; ++c) {
    const Vec3 corner((c & 1 ? 1 : -1) * geom.size.x(), (c & 2 ? 1 : -1) * geom.size.y(), (c & 4 ? 1 : -1) * geom.size.z());
    z = std::min(z, (X * corner).z());
  }
  return z;
}

class IiwaPick : public ::testing::TestWithParam<std::string> {};

TEST_P(IiwaPick, CommandedMotionIsSmoothAndClearsTableAndObjectUntilTheGrasp) {
  const Scene scene = load_scene(kScene, {"parameters.object=" + GetParam()});
  const Model& m = *scene.model;
  const int object = m.body_id("object");
  const int object_geom = m.find_geom("object_geom");
  ASSERT_GE(object_geom, 0);
  const double grasp_t = 2.5, grasp_z = scene.parameters.at("grasp_z");

  // IK samples every 20 ms, each seeded from the one before: no joint jumps.
  double largest_step = 0.0;
  for (int i = 1; i <= 7; ++i) {
    const Signal& c = m.actuators[static_cast<size_t>(m.find_actuator("actuator" + std::to_string(i)))].command;
    EXPECT_EQ(c.t.back(), 12.0);
    for (size_t k = 1; k < c.y.size(); ++k) largest_step = std::max(largest_step, std::abs(c.y[k] - c.y[k - 1]));
  }
  EXPECT_LT(largest_step, 0.05);

  // The arm starts where its commands start (trajectories' start: true).
  const VecX q_start = commanded_q(m, 0.0);
  for (int i = 0; i < 7; ++i) EXPECT_DOUBLE_EQ(m.q0[i], q_start[i]);

  // Geoms of the robot (arm and hand) that collide: on a moving body but the object, and
  // not the robot file's visual meshes (contype = conaffinity = 0).
  std::vector<int> robot_geoms, hand_geoms;
  const Geom& obj = m.geoms[static_cast<size_t>(object_geom)];
  for (int g = 0; g < m.ngeom(); ++g) {
    const Geom& geom = m.geoms[static_cast<size_t>(g)];
    if (!(geom.group & obj.mask) || !(obj.group & geom.mask)) continue;
    const int b = geom.body;
    if (b == 0 || b == object || m.bodies[static_cast<size_t>(b)].joint < 0) continue;
    if (m.joints[static_cast<size_t>(m.bodies[static_cast<size_t>(b)].joint)].nv == 0 &&
        m.bodies[static_cast<size_t>(b)].parent == 0)
      continue;  // the arm's base, welded to the world
    robot_geoms.push_back(g);
    const std::string& body = m.bodies[static_cast<size_t>(b)].name;
    if (body == "palm" || body.rfind("finger_", 0) == 0) hand_geoms.push_back(g);
  }
  ASSERT_EQ(hand_geoms.size(), 5u);

  KinematicsData kin;
  double lowest_before_grasp = kInf, lowest_robot = kInf, closest_to_object = kInf;
  for (int step = 0; step <= 2400; ++step) {
    const double t = 0.005 * step;
    forward_kinematics(m, commanded_q(m, t), kin);
    for (int g : robot_geoms) {
      const double z = lowest_z(m, kin, g);
      lowest_robot = std::min(lowest_robot, z);
      if (t <= grasp_t && std::find(hand_geoms.begin(), hand_geoms.end(), g) != hand_geoms.end())
        lowest_before_grasp = std::min(lowest_before_grasp, z);
    }
    if (t > grasp_t) continue;
    // Until the fingers close nothing of the robot touches the object, where it stands.
    const Pose X_obj = geom_pose(m, kin, object_geom);
    for (int g : robot_geoms) {
      DistanceResult d;
      if (signed_distance(m, g, geom_pose(m, kin, g), object_geom, X_obj, 0.05, d))
        closest_to_object = std::min(closest_to_object, d.distance);
    }
  }
  EXPECT_NEAR(lowest_before_grasp, scene.parameters.at("fingertip_clearance"), 1e-4);  // the fingertips, at the pre-grasp
  EXPECT_GT(lowest_robot, 0.015);      // nothing of the robot goes near the table, ever
  EXPECT_GT(closest_to_object, 0.009); // the open pads clear the object by 10 mm (cylinder) or 15 mm (box)

  // At the pre-grasp the two pads straddle the object: on either side of its axis, level
  // with its lower part, each 10-15 mm from its surface.
  forward_kinematics(m, commanded_q(m, grasp_t), kin);
  const Vec3 axis_point = kin.X_WB[static_cast<size_t>(object)].p;
  const Vec3 left = geom_pose(m, kin, m.find_geom("finger_left_pad")).p;
  const Vec3 right = geom_pose(m, kin, m.find_geom("finger_right_pad")).p;
  const Vec3 across = (left - right).normalized();
  EXPECT_LT(std::abs(across.z()), 1e-6);  // the pads face each other horizontally
  EXPECT_LT(((left + right) / 2 - axis_point).head<2>().norm(), 1e-5);  // centred on the axis
  const double half_width = GetParam() == "cylinder" ? scene.parameters.at("radius") : 0.025;
  EXPECT_GT((left - axis_point).dot(across), half_width);    // one pad beyond the surface on one side,
  EXPECT_LT((right - axis_point).dot(across), -half_width);  // the other on the other
  EXPECT_NEAR(left.z(), grasp_z, 1e-4);
  for (const char* pad : {"finger_left_pad", "finger_right_pad"}) {
    const int g = m.find_geom(pad);
    DistanceResult d;
    ASSERT_TRUE(signed_distance(m, g, geom_pose(m, kin, g), object_geom, geom_pose(m, kin, object_geom), 0.05, d));
    EXPECT_GT(d.distance, 0.009) << pad;
    EXPECT_LT(d.distance, 0.016) << pad;
  }
  // The fingers' set points close to 2 mm inside the object's surface (the squeeze) by 4 s
  // and stay there: each pad's face is at q from the middle, the object's half width is
  // `radius` (cylinder) or 25 mm (rounded box).
  for (const char* f : {"finger_left", "finger_right"}) {
    const Signal& c = m.actuators[static_cast<size_t>(m.find_actuator(f))].command;
    EXPECT_EQ(c(grasp_t), 0.04);
    EXPECT_NEAR(c(4.0), half_width - 0.002, 1e-12);
    EXPECT_NEAR(c(12.0), half_width - 0.002, 1e-12);
  }
}

INSTANTIATE_TEST_SUITE_P(Objects, IiwaPick, ::testing::Values("cylinder", "rounded_box"));

}  // namespace
}  // namespace graspsim
