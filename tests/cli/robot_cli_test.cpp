// `graspsim check` on robot files: the model summary as MuJoCo counts it, and bad files as
// errors naming file and line, exit 2.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "cli_util.h"

namespace graspsim::test {
namespace {

std::string menagerie(const std::string& file) { return std::string(GRASPSIM_SHARED_DIR) + "/data/models/" + file; }

TEST(RobotCli, CheckJsonCountsAsMujoco) {
  // Counts from MuJoCo 2.2.2 itself (tests/robots/test_mujoco_crosscheck.cpp compares them live).
  const Result r = run_cli("check " + menagerie("robotiq_2f85/2f85.xml") + " --json");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto j = nlohmann::json::parse(r.output);
  EXPECT_EQ(j["bodies"], 14);
  EXPECT_EQ(j["joints"], 8);
  EXPECT_EQ(j["dof"], 8);
  EXPECT_EQ(j["geoms"], 28);
  EXPECT_EQ(j["actuators"], 1);
  EXPECT_EQ(j["equality"], 3);
  EXPECT_EQ(j["tendons"], 1);
  // Nothing dropped silently: the ignored solver parameters are named with their line.
  bool named = false;
  for (const auto& w : j["warnings"]) named = named || w.get<std::string>().find("2f85.xml:29: <joint> attribute 'solimplimit'") != std::string::npos;
  EXPECT_TRUE(named) << j["warnings"].dump(1);
}

struct BadFile {
  const char* name;
  const char* xml;
  const char* expected;  // in the message, with the line
};

class RobotCliBadFile : public ::testing::TestWithParam<BadFile> {};

TEST_P(RobotCliBadFile, IsAnErrorNamingFileAndLine) {
  const fs::path dir = fresh_dir(std::string("bad_robot_") + GetParam().name);
  fs::create_directories(dir);
  const fs::path file = dir / "robot.xml";
  std::ofstream(file) << GetParam().xml;
  const Result r = run_cli("check " + file.string());
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find(GetParam().expected), std::string::npos) << r.output;
  fs::remove_all(dir);
}

INSTANTIATE_TEST_SUITE_P(
    Mjcf, RobotCliBadFile,
    ::testing::Values(
        BadFile{"missing_mesh",
                "<mujoco>\n<asset><mesh name=\"m\" file=\"nowhere.stl\"/></asset>\n<worldbody>\n"
                "<body><joint/><geom type=\"mesh\" mesh=\"m\"/></body>\n</worldbody>\n</mujoco>\n",
                "robot.xml:4: mesh 'm': file '"},
        BadFile{"unknown_joint_type",
                "<mujoco>\n<worldbody>\n<body>\n<joint type=\"spiral\"/>\n<geom size=\"0.1\"/>\n</body>\n</worldbody>\n</mujoco>\n",
                "robot.xml:4: <joint> type 'spiral' is unknown"},
        BadFile{"malformed_xml", "<mujoco>\n<worldbody>\n<body>\n</worldbody>\n</mujoco>\n", "robot.xml:"},
        BadFile{"default_class_twice",
                "<mujoco>\n<default>\n<default class=\"a\">\n<default class=\"a\"/>\n</default>\n</default>\n</mujoco>\n",
                "robot.xml:4: default class 'a' is defined twice"},
        BadFile{"unknown_childclass",
                "<mujoco>\n<worldbody>\n<body childclass=\"nope\">\n<geom size=\"0.1\"/>\n</body>\n</worldbody>\n</mujoco>\n",
                "robot.xml:3: <body> childclass 'nope' is not a default class"},
        BadFile{"equality_missing_body",
                "<mujoco>\n<worldbody>\n<body name=\"a\"><joint/><geom size=\"0.1\"/></body>\n</worldbody>\n"
                "<equality>\n<connect body1=\"a\" body2=\"ghost\" anchor=\"0 0 0\"/>\n</equality>\n</mujoco>\n",
                "robot.xml:6: <connect> body2 names no body: 'ghost'"},
        BadFile{"not_a_robot", "<scene/>\n", "robot.xml:1: the root element is <scene>"}),
    [](const auto& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace graspsim::test
