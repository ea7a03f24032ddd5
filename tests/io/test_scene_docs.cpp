#include <algorithm>
// Every example in docs/scene-format.md marked `<!-- file: NAME -->` is written out and
// the YAML ones are loaded, so the documentation cannot drift from the loader.

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <numbers>
#include <regex>
#include <sstream>

#include "io/scene.h"
#include "io_test_util.h"

namespace graspsim {
namespace {

// name -> contents of each marked code block.
std::vector<std::pair<std::string, std::string>> doc_files() {
  std::ifstream in(std::string(GRASPSIM_SOURCE_DIR) + "/docs/scene-format.md");
  EXPECT_TRUE(in) << "cannot read docs/scene-format.md";
  std::vector<std::pair<std::string, std::string>> files;
  const std::regex marker(R"(<!-- file: (\S+) -->)");
  std::string line, pending;
  bool in_block = false;
  while (std::getline(in, line)) {
    std::smatch m;
    if (!in_block && std::regex_search(line, m, marker)) {
      pending = m[1];
    } else if (line.rfind("```", 0) == 0) {
      if (!in_block && !pending.empty()) files.emplace_back(pending, "");
      else if (in_block) pending.clear();
      in_block = !in_block;
    } else if (in_block && !pending.empty()) {
      files.back().second += line + "\n";
    }
  }
  return files;
}

class DocExamples : public ::testing::Test {
 protected:
  void SetUp() override {
    files_ = doc_files();
    for (const auto& [name, text] : files_) dir_.write(name, text);
  }
  Scene load(const std::string& name, const std::vector<std::string>& overrides = {}) {
    return load_scene(dir_.path(name), overrides);
  }
  test::TempDir dir_;
  std::vector<std::pair<std::string, std::string>> files_;
};

TEST_F(DocExamples, EveryYamlExampleLoads) {
  int yaml = 0;
  for (const auto& [name, text] : files_) {
    if (name.size() < 5 || name.substr(name.size() - 5) != ".yaml") continue;
    ++yaml;
    try {
      load(name);
    } catch (const InputError& e) {
      ADD_FAILURE() << name << ": " << e.what();
    }
  }
  EXPECT_GE(yaml, 5) << "the doc's file markers were not found";
}

TEST_F(DocExamples, SlidingBoxHasTheDocumentedValues) {
  const Scene s = load("sliding_box.yaml");
  const Model& m = *s.model;
  EXPECT_EQ(s.duration, 2.0);
  EXPECT_EQ(m.options.dt, 0.001);
  EXPECT_EQ(m.contact_materials.at(0).friction, 0.3);
  EXPECT_EQ(m.v0[0], 1.0);
  // 0.1 m steel cube: 7800 kg/m³ * 0.001 m³; relative 1e-12 covers summation rounding.
  EXPECT_NEAR(m.bodies[m.body_id("box")].mass, 7.8, 7.8 * 1e-12);
}

TEST_F(DocExamples, ExpressionsExampleComputesTheDocumentedNumbers) {
  const Scene s = load("expressions.yaml");
  const double pi = std::numbers::pi;
  EXPECT_EQ(s.parameters.at("vx"), 0.5 * std::cos(30.0 * pi / 180.0));
  EXPECT_EQ(s.parameters.at("vy"), 0.5 * std::sin(30.0 * pi / 180.0));
  const double mass = 4.0 / 3.0 * pi * std::pow(0.02, 3.0) * 1000.0;
  EXPECT_EQ(s.parameters.at("mass"), mass);
  const Model& m = *s.model;
  const Body& ball = m.bodies[m.body_id("ball")];
  EXPECT_EQ(ball.mass, mass);
  EXPECT_EQ(ball.inertia(0, 0), 2.0 / 5.0 * mass * std::pow(0.02, 2.0));
  EXPECT_EQ(m.q0[2], 0.02);
  EXPECT_EQ(m.v0[0], s.parameters.at("vx"));
  EXPECT_EQ(m.geoms[m.find_geom("ball_geom")].size.x(), 0.02);
}

TEST_F(DocExamples, PusherMergesItsInclude) {
  const Scene s = load("pusher.yaml");
  const Model& m = *s.model;
  EXPECT_EQ(s.parameters.at("mu_ground"), 0.2);  // the including file wins
  EXPECT_EQ(m.options.dt, 0.001);
  EXPECT_EQ(m.options.gravity, Vec3(0, 0, -9.81));
  EXPECT_EQ(m.options.stepper, StepperType::Spook);
  EXPECT_EQ(m.options.seed, 7u);
  EXPECT_EQ(s.recording.every, 10);
  EXPECT_FALSE(s.recording.joints);
  EXPECT_EQ((std::vector<std::string>{"default", "floor", "abs", "steel"}), m.materials);
  EXPECT_EQ(m.contact_materials[0].friction, 0.2);
  EXPECT_EQ(m.contact_materials[0].spook.young_modulus, 1.0e8);  // from default_contact
  EXPECT_EQ(m.contact_materials[0].spook.friction_model, FrictionModel::MultiDirectional);
  EXPECT_EQ(m.contact_materials[1].spook.solver, SolverType::Direct);
  const Body& rod = m.bodies[m.body_id("rod")];
  ASSERT_TRUE(rod.kinematic);
  EXPECT_EQ(rod.prescribed_v.at(0)(1.0), 0.05);
  EXPECT_EQ(rod.prescribed_v.at(0)(0.25), 0.025);
  EXPECT_EQ(m.geoms[m.find_geom("rod_geom")].group, 2u);
  // euler_deg yaw 15 about z: the free body's initial quaternion (w, x, y, z) in q0.
  const double h = 15.0 * std::numbers::pi / 180.0 / 2.0;
  EXPECT_NEAR(m.q0[3], std::cos(h), 1e-15);
  EXPECT_NEAR(m.q0[6], std::sin(h), 1e-15);
}

TEST_F(DocExamples, GripperHasJointsActuatorsMeshAndExclusions) {
  const Scene s = load("gripper.yaml");
  const Model& m = *s.model;
  EXPECT_EQ(m.options.dynamics.integrator, Integrator::RK4);
  ASSERT_EQ(m.meshes.size(), 1u);
  EXPECT_EQ(m.meshes[0]->faces.size(), 4u);
  const auto& verts = m.meshes[0]->vertices;  // scale 0.04 applied to the unit tetrahedron
  EXPECT_NE(std::find(verts.begin(), verts.end(), Vec3(0.04, 0, 0)), verts.end());
  const Actuator& left = m.actuators[m.find_actuator("left_motor")];
  EXPECT_EQ(left.effort_max, 5.0);
  EXPECT_EQ(left.command(0.25), 0.01);  // halfway to grip = 0.02
  const Joint& flap = m.joints[m.find_joint("flap")];
  EXPECT_EQ(flap.stiffness, 0.5);
  EXPECT_EQ(m.q0[flap.qadr], 0.1);
  const int l = m.body_id("finger_left"), r = m.body_id("finger_right");
  EXPECT_FALSE(m.bodies_may_collide(l, r));
  EXPECT_EQ(m.actuators[m.find_actuator("flap_push")].command.interp, Signal::Interp::Step);
}

TEST_F(DocExamples, OverridesFromTheDocWork) {
  const Scene s = load("sliding_box.yaml", {"parameters.mu=0.2", "bodies.box.mass=2", "options.dt=0.0005"});
  EXPECT_EQ(s.model->contact_materials[0].friction, 0.2);
  EXPECT_EQ(s.model->bodies[1].mass, 2.0);
  EXPECT_EQ(s.model->options.dt, 0.0005);
}

// The lines of the doc's "## Errors" message block.
std::vector<std::string> documented_errors() {
  std::ifstream in(std::string(GRASPSIM_SOURCE_DIR) + "/docs/scene-format.md");
  std::vector<std::string> lines;
  std::string line;
  bool in_section = false, in_block = false;
  while (std::getline(in, line)) {
    if (line.rfind("## ", 0) == 0) in_section = line == "## Errors";
    if (!in_section) continue;
    if (line.rfind("```", 0) == 0) {
      if (in_block) break;
      in_block = true;
    } else if (in_block) {
      lines.push_back(line);
    }
  }
  return lines;
}

TEST_F(DocExamples, DocumentedErrorMessagesAreTheRealOnes) {
  auto text_of = [&](const std::string& name) {
    for (const auto& [n, t] : files_)
      if (n == name) return t;
    ADD_FAILURE() << "no example " << name;
    return std::string();
  };
  // The edits the doc describes, each applied to a fresh copy of an example.
  auto edited = [&](const std::string& name, const std::string& from, const std::string& to,
                    const std::vector<std::string>& overrides = {}) {
    std::string text = text_of(name);
    if (!from.empty()) {
      const size_t at = text.find(from);
      EXPECT_NE(at, std::string::npos) << from;
      if (at != std::string::npos) text.replace(at, from.size(), to);
    }
    dir_.write(name, text);
    std::string msg = test::input_error([&] { load(name, overrides); });
    dir_.write(name, text_of(name));
    return msg;
  };
  std::vector<std::string> messages = {
      edited("pusher.yaml", "    friction: ${mu_ground}", "    frction: ${mu_ground}"),
      edited("pusher.yaml", "${mu_ground}", "${mu_grund}"),
      edited("gripper.yaml", "    mass: 0.5", "    mass: abc"),
      edited("pusher.yaml", "", "", {"bodies.block.mass=-1"}),
      edited("pusher.yaml", "", "", {"bodies.blok.mass=2"}),
      edited("pusher.yaml", "", "", {"parameters.mu=1"}),
  };
  dir_.write("loop_a.yaml", "include: [loop_b.yaml]\n");
  dir_.write("loop_b.yaml", "include: [loop_a.yaml]\n");
  messages.push_back(test::input_error([&] { load("loop_a.yaml"); }));

  const auto documented = documented_errors();
  ASSERT_EQ(documented.size(), messages.size());
  for (const auto& doc_line : documented) {
    bool found = false;
    for (const auto& msg : messages) {
      // Real messages carry the full path of the scene file; the doc shows its name.
      std::string shown = msg;
      for (size_t at; (at = shown.find(dir_.path())) != std::string::npos;) shown.erase(at, dir_.path().size());
      found = found || shown == doc_line;
    }
    EXPECT_TRUE(found) << "documented error not produced: " << doc_line;
  }
}

}  // namespace
}  // namespace graspsim
