// The URDF loader (robots/urdf.h): a small robot and its MJCF twin must give the same
// Model; mesh files are found as ROS does (package://, file://, relative); errors and
// warnings name the file and line.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <unistd.h>

#include "../common/temp_dir.h"
#include "core/error.h"
#include "model/builder.h"
#include "robots/robot_file.h"
#include "robots/urdf.h"

namespace graspsim {
namespace {

namespace fs = std::filesystem;

constexpr double kTol = 1e-12;

using test::TempDir;
using test::input_error;

#define EXPECT_CONTAINS(haystack, needle) \
  EXPECT_NE(std::string(haystack).find(needle), std::string::npos) << "message: " << (haystack) << "\nwanted: " << (needle)

// The 1-based line of the first occurrence of `needle` in `text`.
int line_of(const std::string& text, const std::string& needle) {
  const auto at = text.find(needle);
  EXPECT_NE(at, std::string::npos) << needle;
  return 1 + static_cast<int>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(at), '\n'));
}

// URDF's rpy: fixed axes x, y, z, i.e. R = Rz(yaw) Ry(pitch) Rx(roll).
Quat rpy(double r, double p, double y) {
  return Quat(Eigen::AngleAxisd(y, Vec3::UnitZ()) * Eigen::AngleAxisd(p, Vec3::UnitY()) * Eigen::AngleAxisd(r, Vec3::UnitX()));
}

// MJCF's quat attribute: "w x y z", exact to the last bit.
std::string wxyz(const Quat& q) {
  std::ostringstream s;
  s.precision(17);
  s << q.w() << ' ' << q.x() << ' ' << q.y() << ' ' << q.z();
  return s.str();
}

double max_abs(const Mat3& m) { return m.cwiseAbs().maxCoeff(); }

// A unit cube centred at the origin, faces counter-clockwise seen from outside.
const char* kCubeObj =
    "v -0.5 -0.5 -0.5\nv 0.5 -0.5 -0.5\nv 0.5 0.5 -0.5\nv -0.5 0.5 -0.5\n"
    "v -0.5 -0.5 0.5\nv 0.5 -0.5 0.5\nv 0.5 0.5 0.5\nv -0.5 0.5 0.5\n"
    "f 1 4 3 2\nf 5 6 7 8\nf 1 2 6 5\nf 3 4 8 7\nf 4 1 5 8\nf 2 3 7 6\n";

// A link with an inertial, and the same cube as collision and visual geometry.
std::string mesh_link(const std::string& name, const std::string& uri, const std::string& scale = "1 1 1") {
  return "  <link name=\"" + name +
         "\">\n"
         "    <inertial><mass value=\"1\"/><inertia ixx=\"0.1\" ixy=\"0\" ixz=\"0\" iyy=\"0.1\" iyz=\"0\" izz=\"0.1\"/></inertial>\n"
         "    <collision><geometry><mesh filename=\"" + uri + "\" scale=\"" + scale + "\"/></geometry></collision>\n"
         "    <visual><geometry><mesh filename=\"" + uri + "\" scale=\"" + scale + "\"/></geometry></visual>\n"
         "  </link>\n";
}

// ---- the twin ---------------------------------------------------------------------------
// base (fixed to the world) → j1 revolute → arm (box) → j2 prismatic → slider (cylinder);
// j2 mimics j1. Rotated joint origin, inertia frame and geoms exercise every convention.
const double kJ1Rpy[3] = {0.1, 0.2, 0.3};
const double kArmInertialRpy[3] = {0.3, -0.2, 0.5};
const double kBoxRpy[3] = {0.0, 0.4, 0.0};
const double kCylinderRpy[3] = {1.5707963267948966, 0.0, 0.0};

const char* kTwinUrdf = R"(<?xml version="1.0"?>
<robot name="twin">
  <link name="base">
    <inertial>
      <origin xyz="0.01 0.02 0.03" rpy="0 0 0"/>
      <mass value="2"/>
      <inertia ixx="0.02" ixy="0" ixz="0" iyy="0.03" iyz="0" izz="0.04"/>
    </inertial>
  </link>
  <joint name="j1" type="revolute">
    <parent link="base"/>
    <child link="arm"/>
    <origin xyz="0.1 0 0.2" rpy="0.1 0.2 0.3"/>
    <axis xyz="0 1 0"/>
    <limit lower="-1.5" upper="2" effort="10" velocity="1"/>
    <dynamics damping="0.2" friction="0.03"/>
  </joint>
  <link name="arm">
    <inertial>
      <origin xyz="0.05 0 0.1" rpy="0.3 -0.2 0.5"/>
      <mass value="1.5"/>
      <inertia ixx="0.01" ixy="0" ixz="0" iyy="0.012" iyz="0" izz="0.015"/>
    </inertial>
    <collision>
      <origin xyz="0 0 0.1" rpy="0 0.4 0"/>
      <geometry><box size="0.1 0.2 0.3"/></geometry>
    </collision>
  </link>
  <joint name="j2" type="prismatic">
    <parent link="arm"/>
    <child link="slider"/>
    <origin xyz="0 0 0.3" rpy="0 0 0"/>
    <axis xyz="1 0 0"/>
    <limit lower="-0.05" upper="0.1" effort="5" velocity="0.5"/>
    <mimic joint="j1" multiplier="0.5" offset="0.01"/>
  </joint>
  <link name="slider">
    <inertial>
      <mass value="0.5"/>
      <inertia ixx="0.001" ixy="0" ixz="0" iyy="0.001" iyz="0" izz="0.0005"/>
    </inertial>
    <collision>
      <origin xyz="0.02 0 0" rpy="1.5707963267948966 0 0"/>
      <geometry><cylinder radius="0.03" length="0.08"/></geometry>
    </collision>
  </link>
</robot>
)";

std::string twin_mjcf() {
  auto q = [](const double* a) { return wxyz(rpy(a[0], a[1], a[2])); };
  return std::string(R"(<mujoco model="twin">
  <compiler angle="radian"/>
  <worldbody>
    <body name="base">
      <inertial pos="0.01 0.02 0.03" mass="2" diaginertia="0.02 0.03 0.04"/>
      <body name="arm" pos="0.1 0 0.2" quat=")") +
         q(kJ1Rpy) + R"(">
        <joint name="j1" type="hinge" axis="0 1 0" range="-1.5 2" limited="true" damping="0.2" frictionloss="0.03"/>
        <inertial pos="0.05 0 0.1" quat=")" +
         q(kArmInertialRpy) + R"(" mass="1.5" diaginertia="0.01 0.012 0.015"/>
        <geom name="arm_collision0" type="box" size="0.05 0.1 0.15" pos="0 0 0.1" quat=")" +
         q(kBoxRpy) + R"("/>
        <body name="slider" pos="0 0 0.3">
          <joint name="j2" type="slide" axis="1 0 0" range="-0.05 0.1" limited="true"/>
          <inertial pos="0 0 0" mass="0.5" diaginertia="0.001 0.001 0.0005"/>
          <geom name="slider_collision0" type="cylinder" size="0.03 0.04" pos="0.02 0 0" quat=")" +
         q(kCylinderRpy) + R"("/>
        </body>
      </body>
    </body>
  </worldbody>
  <equality>
    <joint joint1="j2" joint2="j1" polycoef="0.01 0.5 0 0 0"/>
  </equality>
</mujoco>
)";
}

TEST(Urdf, SameModelAsItsMjcfTwin) {
  TempDir dir;
  const LoadedRobot u = load_robot(dir.write("twin.urdf", kTwinUrdf));
  const LoadedRobot x = load_robot(dir.write("twin.xml", twin_mjcf()));
  const Model& a = *u.model;
  const Model& b = *x.model;

  EXPECT_EQ(u.summary.bodies, 3);
  EXPECT_EQ(u.summary.joints, 2);
  EXPECT_EQ(u.summary.dof, 2);
  EXPECT_EQ(u.summary.geoms, 2);
  EXPECT_EQ(u.summary.actuators, 0);
  EXPECT_EQ(u.summary.equality, 1);
  EXPECT_EQ(u.summary.tendons, 0);

  ASSERT_EQ(a.nbody(), b.nbody());
  ASSERT_EQ(a.nbody(), 4);
  EXPECT_EQ(a.nq, b.nq);
  EXPECT_EQ(a.nv, b.nv);
  for (int i = 0; i < a.nbody(); ++i) {
    const Body& ba = a.bodies[i];
    const Body& bb = b.bodies[i];
    SCOPED_TRACE("body " + ba.name);
    EXPECT_EQ(ba.name, bb.name);
    EXPECT_EQ(ba.parent, bb.parent);
    EXPECT_LT((ba.X_parent_body.p - bb.X_parent_body.p).cwiseAbs().maxCoeff(), kTol);
    EXPECT_LT(max_abs(ba.X_parent_body.R() - bb.X_parent_body.R()), kTol);
    EXPECT_NEAR(ba.mass, bb.mass, kTol);
    EXPECT_LT((ba.com - bb.com).cwiseAbs().maxCoeff(), kTol);
    EXPECT_LT(max_abs(ba.inertia - bb.inertia), kTol);
    if (i == 0) continue;
    const Joint& ja = a.joints[ba.joint];
    const Joint& jb = b.joints[bb.joint];
    EXPECT_EQ(ja.type, jb.type);
    EXPECT_EQ(ja.nv, jb.nv);
    if (ja.nv == 1) {
      EXPECT_EQ(ja.name, jb.name);
      EXPECT_LT((ja.axis - jb.axis).cwiseAbs().maxCoeff(), kTol);
      EXPECT_EQ(ja.limited, jb.limited);
      EXPECT_NEAR(ja.lower, jb.lower, kTol);
      EXPECT_NEAR(ja.upper, jb.upper, kTol);
      EXPECT_NEAR(ja.damping, jb.damping, kTol);
      EXPECT_NEAR(ja.frictionloss, jb.frictionloss, kTol);
    }
  }

  ASSERT_EQ(a.ngeom(), b.ngeom());
  for (const Geom& ga : a.geoms) {
    SCOPED_TRACE("geom " + ga.name);
    const int k = b.find_geom(ga.name);
    ASSERT_GE(k, 0);
    const Geom& gb = b.geoms[k];
    EXPECT_EQ(ga.type, gb.type);
    EXPECT_EQ(a.bodies[ga.body].name, b.bodies[gb.body].name);
    EXPECT_LT((ga.size - gb.size).cwiseAbs().maxCoeff(), kTol);
    EXPECT_LT((ga.X_body_geom.p - gb.X_body_geom.p).cwiseAbs().maxCoeff(), kTol);
    EXPECT_LT(max_abs(ga.X_body_geom.R() - gb.X_body_geom.R()), kTol);
  }

  ASSERT_EQ(a.equalities.size(), 1u);
  ASSERT_EQ(b.equalities.size(), 1u);
  const Equality& ea = a.equalities[0];
  const Equality& eb = b.equalities[0];
  EXPECT_EQ(ea.type, EqualityType::Joint);
  EXPECT_EQ(ea.type, eb.type);
  EXPECT_EQ(a.joints[ea.joint_a].name, "j2");
  EXPECT_EQ(a.joints[ea.joint_b].name, "j1");
  EXPECT_EQ(b.joints[eb.joint_a].name, "j2");
  EXPECT_EQ(b.joints[eb.joint_b].name, "j1");
  for (int k = 0; k < 5; ++k) EXPECT_NEAR(ea.poly[k], eb.poly[k], kTol) << "poly[" << k << "]";
  EXPECT_NEAR(ea.ref_a, eb.ref_a, kTol);
  EXPECT_NEAR(ea.ref_b, eb.ref_b, kTol);
}

// The same model, checked against values computed here (not only against the twin).
TEST(Urdf, ConventionsByHand) {
  TempDir dir;
  const LoadedRobot u = load_robot(dir.write("twin.urdf", kTwinUrdf));
  const Model& m = *u.model;
  const Body& arm = m.bodies[m.body_id("arm")];
  EXPECT_EQ(m.bodies[arm.parent].name, "base");
  EXPECT_LT((arm.X_parent_body.p - Vec3(0.1, 0, 0.2)).cwiseAbs().maxCoeff(), kTol);
  EXPECT_LT(max_abs(arm.X_parent_body.R() - rpy(0.1, 0.2, 0.3).toRotationMatrix()), kTol);
  const Mat3 R = rpy(0.3, -0.2, 0.5).toRotationMatrix();
  EXPECT_LT(max_abs(arm.inertia - R * Vec3(0.01, 0.012, 0.015).asDiagonal() * R.transpose()), kTol);
  EXPECT_LT((arm.com - Vec3(0.05, 0, 0.1)).cwiseAbs().maxCoeff(), kTol);
  EXPECT_DOUBLE_EQ(arm.mass, 1.5);

  const Joint& j1 = m.joints[m.joint_id("j1")];
  EXPECT_EQ(j1.type, JointType::Revolute);
  EXPECT_TRUE(j1.limited);
  EXPECT_DOUBLE_EQ(j1.lower, -1.5);
  EXPECT_DOUBLE_EQ(j1.upper, 2.0);
  EXPECT_DOUBLE_EQ(j1.damping, 0.2);
  EXPECT_DOUBLE_EQ(j1.frictionloss, 0.03);
  EXPECT_EQ(m.joints[m.joint_id("j2")].type, JointType::Prismatic);
  EXPECT_EQ(m.joints[m.bodies[m.body_id("base")].joint].type, JointType::Fixed);
  EXPECT_EQ(m.bodies[m.body_id("base")].parent, 0);

  const Geom& box = m.geoms[m.find_geom("arm_collision0")];
  EXPECT_EQ(box.type, GeomType::Box);
  EXPECT_LT((box.size - Vec3(0.05, 0.1, 0.15)).cwiseAbs().maxCoeff(), kTol);
  const Geom& cyl = m.geoms[m.find_geom("slider_collision0")];
  EXPECT_EQ(cyl.type, GeomType::Cylinder);
  EXPECT_NEAR(cyl.size.x(), 0.03, kTol);
  EXPECT_NEAR(cyl.size.y(), 0.04, kTol);

  const Equality& e = m.equalities.at(0);
  EXPECT_DOUBLE_EQ(e.poly[0], 0.01);
  EXPECT_DOUBLE_EQ(e.poly[1], 0.5);

  // The effort and velocity of both <limit>s: one line, at the first, with the count.
  ASSERT_EQ(u.summary.warnings.size(), 1u);
  const std::string& w = u.summary.warnings[0];
  EXPECT_CONTAINS(w, "twin.urdf:" + std::to_string(line_of(kTwinUrdf, "<limit lower=\"-1.5\"")) + ": ");
  EXPECT_CONTAINS(w, "effort and velocity are ignored");
  EXPECT_CONTAINS(w, "(2 times)");
}

TEST(Urdf, PlacementPrefixesNamesAndHangsTheRootFromTheParent) {
  TempDir dir;
  const std::string path = dir.write("twin.urdf", kTwinUrdf);
  ModelBuilder builder;
  BodyDef table;
  table.name = "table";
  table.pose.p = Vec3(0, 0, 0.5);
  builder.add_body(table);
  RobotPlacement placement;
  placement.prefix = "left/";
  placement.parent = "table";
  placement.pose.p = Vec3(0.2, 0, 0.1);
  add_urdf(builder, path, placement);
  RobotPlacement right;
  right.prefix = "right/";
  right.parent = "table";
  right.pose.p = Vec3(-0.2, 0, 0.1);
  add_urdf(builder, path, right);
  const auto m = builder.build();
  const Body& base = m->bodies[m->body_id("left/base")];
  EXPECT_EQ(m->bodies[base.parent].name, "table");
  EXPECT_LT((base.X_parent_body.p - Vec3(0.2, 0, 0.1)).cwiseAbs().maxCoeff(), kTol);
  EXPECT_GE(m->find_joint("right/j2"), 0);
  EXPECT_GE(m->find_geom("right/arm_collision0"), 0);
  ASSERT_EQ(m->equalities.size(), 2u);
  EXPECT_EQ(m->joints[m->equalities[1].joint_a].name, "right/j2");
  EXPECT_EQ(m->joints[m->equalities[1].joint_b].name, "right/j1");
}

// ---- mesh files -------------------------------------------------------------------------
TEST(Urdf, MissingMeshNamesThePathAndTheLine) {
  TempDir dir;
  const std::string text = "<robot name=\"r\">\n" + mesh_link("base", "meshes/missing.obj") + "</robot>\n";
  const std::string path = dir.write("robot.urdf", text);
  ModelBuilder builder;
  const std::string msg = input_error([&] { add_urdf(builder, path, {}); });
  EXPECT_CONTAINS(msg, "robot.urdf:" + std::to_string(line_of(text, "<collision>")) + ": ");
  EXPECT_CONTAINS(msg, "link 'base'");
  EXPECT_CONTAINS(msg, "mesh 'meshes/missing.obj' not found");
  EXPECT_CONTAINS(msg, (fs::path(dir.path()) / "meshes" / "missing.obj").string());  // where it looked
  // Through load_robot too.
  EXPECT_CONTAINS(input_error([&] { load_robot(path); }), "meshes/missing.obj");
}

TEST(Urdf, PackageUrisFindSiblingAndEnclosingPackages) {
  // A catkin-style workspace: the URDF in one package, meshes in a sibling one.
  TempDir dir;
  dir.write("ws/src/robot_meshes/meshes/cube.obj", kCubeObj);
  dir.write("ws/src/robot_description/meshes/cube.obj", kCubeObj);
  const std::string path = dir.write(
      "ws/src/robot_description/urdf/robot.urdf",
      "<robot name=\"r\">\n" + mesh_link("base", "package://robot_meshes/meshes/cube.obj", "2 2 2") +
          mesh_link("top", "package://robot_description/meshes/cube.obj") +
          "  <joint name=\"fix\" type=\"fixed\"><parent link=\"base\"/><child link=\"top\"/>"
          "<origin xyz=\"0 0 3\"/></joint>\n</robot>\n");
  const LoadedRobot r = load_robot(path);
  const Model& m = *r.model;
  EXPECT_EQ(r.summary.geoms, 4);
  // Collision and visual share each (file, scale): two meshes, not four.
  ASSERT_EQ(m.meshes.size(), 2u);
  const Geom& c = m.geoms[m.find_geom("base_collision0")];
  const Geom& v = m.geoms[m.find_geom("base_visual0")];
  EXPECT_EQ(c.type, GeomType::ConvexMesh);
  EXPECT_EQ(c.mask, 0xffffffffu);
  EXPECT_EQ(v.group, 0u);
  EXPECT_EQ(v.mask, 0u);
  EXPECT_EQ(c.mesh, v.mesh);
  const Mesh& scaled = *m.meshes[c.mesh];
  EXPECT_CONTAINS(scaled.name, (fs::path("robot_meshes") / "meshes" / "cube.obj").string());
  double extent = 0.0;
  for (const Vec3& p : scaled.vertices) extent = std::max(extent, p.cwiseAbs().maxCoeff());
  EXPECT_NEAR(extent, 1.0, kTol);  // the unit cube times 2
  const Mesh& own = *m.meshes[m.geoms[m.find_geom("top_collision0")].mesh];
  EXPECT_CONTAINS(own.name, (fs::path("robot_description") / "meshes" / "cube.obj").string());
}

TEST(Urdf, FileUrisAndRelativePaths) {
  TempDir dir;
  const std::string cube = dir.write("assets/cube.obj", kCubeObj);
  const std::string path = dir.write("robots/robot.urdf", "<robot name=\"r\">\n" + mesh_link("a", "file://" + cube) +
                                                              mesh_link("b", "../assets/cube.obj") +
                                                              "  <joint name=\"j\" type=\"fixed\"><parent link=\"a\"/>"
                                                              "<child link=\"b\"/></joint>\n</robot>\n");
  const LoadedRobot r = load_robot(path);
  EXPECT_EQ(r.model->meshes.size(), 1u);  // one file, one scale
}

// ---- errors and warnings ----------------------------------------------------------------
TEST(Urdf, MalformedXmlGivesFileAndLine) {
  TempDir dir;
  const std::string text = "<?xml version=\"1.0\"?>\n<robot name=\"r\">\n  <link name=\"a\">\n</robot>\n";
  const std::string path = dir.write("bad.urdf", text);
  ModelBuilder builder;
  const std::string msg = input_error([&] { add_urdf(builder, path, {}); });
  EXPECT_CONTAINS(msg, "bad.urdf:3: ");  // the <link> left open
  EXPECT_CONTAINS(msg, "malformed XML");
  EXPECT_CONTAINS(input_error([&] { load_robot(path); }), "bad.urdf:");
}

TEST(Urdf, UrdfdomErrorsKeepTheirReason) {
  TempDir dir;
  const std::string path = dir.write("nolimit.urdf", R"(<robot name="r">
  <link name="a"/>
  <link name="b"/>
  <joint name="j" type="revolute"><parent link="a"/><child link="b"/></joint>
</robot>
)");
  ModelBuilder builder;
  const std::string msg = input_error([&] { add_urdf(builder, path, {}); });
  EXPECT_CONTAINS(msg, "nolimit.urdf: not a valid URDF: ");
  EXPECT_CONTAINS(msg, "does not specify limits");
}

TEST(Urdf, PlanarJointIsAnErrorNamingTheJoint) {
  TempDir dir;
  const std::string text = R"(<robot name="r">
  <link name="a"/>
  <link name="b"><inertial><mass value="1"/><inertia ixx="1" ixy="0" ixz="0" iyy="1" iyz="0" izz="1"/></inertial></link>
  <joint name="slide_plane" type="planar"><parent link="a"/><child link="b"/></joint>
</robot>
)";
  const std::string path = dir.write("planar.urdf", text);
  ModelBuilder builder;
  const std::string msg = input_error([&] { add_urdf(builder, path, {}); });
  EXPECT_CONTAINS(msg, "planar.urdf:4: ");
  EXPECT_CONTAINS(msg, "joint 'slide_plane'");
  EXPECT_CONTAINS(msg, "planar");
}

TEST(Urdf, FloatingJointFromTheRootIsAFreeJointInTheWorld) {
  TempDir dir;
  const std::string text = R"(<robot name="r">
  <link name="world"/>
  <link name="torso">
    <inertial><mass value="3"/><inertia ixx="0.1" ixy="0" ixz="0" iyy="0.1" iyz="0" izz="0.1"/></inertial>
    <collision><geometry><sphere radius="0.1"/></geometry></collision>
  </link>
  <joint name="float" type="floating"><parent link="world"/><child link="torso"/><origin xyz="0 0 1"/></joint>
</robot>
)";
  const std::string path = dir.write("floating.urdf", text);
  const LoadedRobot r = load_robot(path);
  const Model& m = *r.model;
  EXPECT_EQ(r.summary.bodies, 1);  // the "world" link is the world itself
  EXPECT_EQ(r.summary.dof, 6);
  const Body& torso = m.bodies[m.body_id("torso")];
  EXPECT_EQ(torso.parent, 0);
  EXPECT_EQ(m.joints[torso.joint].type, JointType::Free);
  EXPECT_NEAR(m.q0[2], 1.0, kTol);  // q = [x y z qw qx qy qz]

  // Placed on another body, the robot cannot float.
  ModelBuilder builder;
  BodyDef table;
  table.name = "table";
  builder.add_body(table);
  RobotPlacement on_table;
  on_table.parent = "table";
  const std::string msg = input_error([&] { add_urdf(builder, path, on_table); });
  EXPECT_CONTAINS(msg, "floating.urdf:" + std::to_string(line_of(text, "<joint name=\"float\"")) + ": ");
  EXPECT_CONTAINS(msg, "joint 'float'");
}

TEST(Urdf, WarningsNameFileAndLineInFileOrder) {
  TempDir dir;
  const std::string text = R"(<robot name="r">
  <link name="a"/>
  <link name="b"/>
  <joint name="j" type="continuous">
    <parent link="a"/><child link="b"/>
    <dynamics damping="0.1" friction="0.5"/>
    <calibration rising="0.1"/>
  </joint>
</robot>
)";
  const std::string path = dir.write("warn.urdf", text);
  ModelBuilder builder;  // not built: b has no mass, which build() rejects for a moving body
  const RobotSummary s = add_urdf(builder, path, {});
  EXPECT_EQ(s.bodies, 2);
  EXPECT_EQ(s.joints, 1);
  EXPECT_EQ(s.dof, 1);
  ASSERT_EQ(s.warnings.size(), 2u);
  EXPECT_CONTAINS(s.warnings[0], "warn.urdf:3: ");  // link b: massless but moving
  EXPECT_CONTAINS(s.warnings[0], "link 'b'");
  EXPECT_CONTAINS(s.warnings[1], "warn.urdf:7: ");  // (<dynamics> friction is taken: frictionloss)
  EXPECT_CONTAINS(s.warnings[1], "calibration");
}

}  // namespace
}  // namespace graspsim
