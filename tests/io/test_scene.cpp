// Scene loading: defaults, parameters, substitution, overrides, includes, resolved JSON.

#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

#include "io/scene.h"
#include "io_test_util.h"

namespace graspsim {
namespace {

using test::TempDir;

constexpr const char* kBoxScene = R"(parameters:
  mu: 0.5
  speed: 2.0
  half: 0.05
materials: [steel, rubber]
contact_materials:
  - materials: [steel, rubber]
    friction: ${mu}
  - materials: [steel, steel]
    friction: 0.1
geoms:
  - {name: ground, type: plane, material: steel}
bodies:
  - name: box
    pos: [0, 0, "${half}"]
    joint: free
    velocity: ["${speed}", 0, 0, 0, 0, 0]
    geoms:
      - {name: box_geom, type: box, size: ["${half}", "${half}", "${half}"], material: rubber}
  - name: other
    pos: [1, 0, 0.05]
    joint: free
    mass: 1
    inertia: [0.1, 0.1, 0.1]
)";

TEST(Scene, DefaultsWhenKeysAreOmitted) {
  TempDir dir;
  const Scene s = load_scene(dir.write("s.yaml", "bodies:\n  - {name: ball, joint: free, geoms: [{type: sphere, size: 0.1}]}\n"));
  const Model& m = *s.model;
  const Options defaults;
  EXPECT_EQ(s.duration, 1.0);
  EXPECT_EQ(s.recording.every, 1);
  EXPECT_TRUE(s.recording.bodies && s.recording.joints && s.recording.contacts);
  EXPECT_TRUE(s.parameters.empty());
  EXPECT_EQ(m.options.dt, defaults.dt);
  EXPECT_EQ(m.options.stepper, StepperType::Dynamics);
  EXPECT_EQ(m.options.spook.solver, SolverType::Split);
  EXPECT_EQ(m.options.gravity, Vec3(0, 0, -9.81));
  EXPECT_EQ(m.materials, std::vector<std::string>{"default"});
  EXPECT_EQ(m.default_contact.friction, ContactMaterial().friction);
  const Geom& g = m.geoms.at(0);
  EXPECT_EQ(g.group, 1u);
  EXPECT_EQ(g.mask, 0xffffffffu);
  EXPECT_EQ(g.material, 0);
  // Density 1000 kg/m³: m = 4/3 π r³ ρ; relative 1e-12 covers the builder's arithmetic.
  const double mass = 4.0 / 3.0 * std::numbers::pi * 1e-3 * 1000.0;
  EXPECT_NEAR(m.bodies[1].mass, mass, mass * 1e-12);
  EXPECT_EQ(m.joints[0].type, JointType::Free);
  EXPECT_EQ(m.q0, (VecX(7) << 0, 0, 0, 1, 0, 0, 0).finished());
}

TEST(Scene, ParametersSubstituteEverywhere) {
  TempDir dir;
  const Scene s = load_scene(dir.write("s.yaml", kBoxScene));
  const Model& m = *s.model;
  EXPECT_EQ(s.parameters.at("mu"), 0.5);
  EXPECT_EQ(m.contact_materials[0].friction, 0.5);
  EXPECT_EQ(m.v0[0], 2.0);
  EXPECT_EQ(m.q0[2], 0.05);
  EXPECT_EQ(m.geoms[m.find_geom("box_geom")].size, Vec3(0.05, 0.05, 0.05));
}

TEST(Scene, ParametersMayUseEachOtherInAnyOrder) {
  TempDir dir;
  const Scene s = load_scene(dir.write("s.yaml", R"(parameters:
  a: 2
  b: ${a} * 3
  c: ${d} + 1        # uses a later one
  d: =${b}^2
  e: -1.5e-3
geoms: [{type: plane}]
)"));
  EXPECT_EQ(s.parameters, (std::map<std::string, double>{{"a", 2}, {"b", 6}, {"c", 37}, {"d", 36}, {"e", -1.5e-3}}));
  EXPECT_EQ(s.resolved["parameters"]["d"], 36);
}

TEST(Scene, TextThatIsNotAnExpressionGetsValuesPasted) {
  TempDir dir;
  const Scene s = load_scene(dir.write("s.yaml", R"(parameters: {i: 2, r: 0.25}
bodies:
  - name: finger_${i}
    joint: free
    mass: =${r} * 4
    inertia: [1, 1, 1]
)"));
  EXPECT_GE(s.model->find_body("finger_2"), 1);
  EXPECT_EQ(s.model->bodies[1].mass, 1.0);
  EXPECT_EQ(s.resolved["bodies"][0]["name"], "finger_2");
}

TEST(Scene, OverridesParametersAndPathsByNameAndIndex) {
  TempDir dir;
  const Scene s = load_scene(dir.write("s.yaml", kBoxScene),
                             {"parameters.mu=0.2", "parameters.speed=${mu} * 10", "bodies.other.mass=2",
                              "bodies.box.geoms.box_geom.size=[0.1,0.1,0.1]", "contact_materials.1.friction=0.3",
                              "options.dt=0.0005", "duration=4", "bodies.1.pos=[2, 0, 0.05]"});
  const Model& m = *s.model;
  EXPECT_EQ(s.parameters.at("mu"), 0.2);
  EXPECT_EQ(s.parameters.at("speed"), 2.0);
  EXPECT_EQ(m.contact_materials[0].friction, 0.2);  // reaches the use of ${mu}
  EXPECT_EQ(m.contact_materials[1].friction, 0.3);
  EXPECT_EQ(m.v0[0], 2.0);
  EXPECT_EQ(m.bodies[m.body_id("other")].mass, 2.0);
  EXPECT_EQ(m.geoms[m.find_geom("box_geom")].size, Vec3(0.1, 0.1, 0.1));
  EXPECT_EQ(m.options.dt, 0.0005);
  EXPECT_EQ(s.duration, 4.0);
  EXPECT_EQ(m.q0[7], 2.0);  // second free body's x
  EXPECT_EQ(s.resolved["contact_materials"][1]["friction"], 0.3);
  EXPECT_EQ(s.resolved["contact_materials"][0]["friction"], 0.2);
  EXPECT_EQ(s.resolved["bodies"][0]["geoms"][0]["size"], nlohmann::json({0.1, 0.1, 0.1}));
}

TEST(Scene, OverrideCreatesMissingOptionalKeys) {
  TempDir dir;
  const Scene s = load_scene(dir.write("s.yaml", "bodies:\n  - {name: b, mass: 1, inertia: [1, 1, 1]}\n"),
                             {"options.stepper=quasistatic", "bodies.b.joint.damping=0.1", "bodies.b.joint.type=revolute"});
  EXPECT_EQ(s.model->options.stepper, StepperType::Quasistatic);
  EXPECT_EQ(s.model->joints[0].type, JointType::Revolute);
  EXPECT_EQ(s.model->joints[0].damping, 0.1);
}

TEST(Scene, IncludesMergeInOrderWithIncludingFileWinning) {
  const Scene s = load_scene(test::data_dir() + "/include_top.yaml");
  const Model& m = *s.model;
  EXPECT_EQ(m.materials, (std::vector<std::string>{"default", "base_mat", "mid_mat", "top_mat"}));
  ASSERT_EQ(m.nbody(), 4);
  EXPECT_EQ(m.bodies[1].name, "base_body");
  EXPECT_EQ(m.bodies[2].name, "mid_body");
  EXPECT_EQ(m.bodies[3].name, "top_body");
  EXPECT_EQ(s.parameters.at("mu"), 0.5);         // top overrides mid overrides base
  EXPECT_EQ(s.parameters.at("base_only"), 1.5);  // included default kept
  EXPECT_EQ(s.parameters.at("mid_only"), 3.0);
  EXPECT_EQ(s.parameters.at("top_only"), 4.0);
  EXPECT_EQ(m.contact_materials[0].friction, 0.5);
  EXPECT_EQ(m.options.dt, 0.005);       // mid beats base
  EXPECT_EQ(m.options.spook.iterations, 50);  // only base sets it
  EXPECT_EQ(m.options.seed, 11u);
  EXPECT_EQ(s.duration, 3.0);
  EXPECT_EQ(s.recording.every, 5);
  EXPECT_EQ(s.resolved.count("include"), 0u);
}

TEST(Scene, IncludedParameterOverriddenBySet) {
  const Scene s = load_scene(test::data_dir() + "/include_top.yaml", {"parameters.base_only=10"});
  EXPECT_EQ(s.parameters.at("mid_only"), 20.0);
  EXPECT_EQ(s.parameters.at("top_only"), 21.0);
}

TEST(Scene, MeshPathsAreRelativeToTheFileThatNamesThem) {
  TempDir dir;
  dir.write("parts/tri.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\n");
  dir.write("parts/part.yaml", "meshes:\n  - {name: tri, file: tri.obj, scale: [1, 2, 3]}\n");
  const Scene s = load_scene(dir.write("s.yaml", R"(include: [parts/part.yaml]
bodies:
  - {name: b, joint: free, geoms: [{type: convex_mesh, mesh: tri, density: 600}]}
)"));
  const Model& m = *s.model;
  EXPECT_EQ(m.meshes.at(0)->vertices[3], Vec3(0, 0, 3));
  // Tetrahedron volume 1/6 scaled by 1*2*3; relative 1e-12 covers the mass integration.
  EXPECT_NEAR(m.bodies[1].mass, 600.0 * 6.0 / 6.0, 600.0 * 1e-12);
}

TEST(Scene, PosesFromEulerAndQuaternionAgree) {
  TempDir dir;
  const Scene s = load_scene(dir.write("s.yaml", R"(bodies:
  - {name: a, pos: [1, 2, 3], euler_deg: [0, 0, 90]}
  - {name: b, quat: [2, 0, 0, 2]}
  - {name: c, euler_deg: [30, 45, 60]}
)"));
  const Model& m = *s.model;
  const double c45 = std::cos(std::numbers::pi / 4);
  // Yaw 90 and quat [2,0,0,2] (normalised) are both 90 degrees about z.
  EXPECT_NEAR(m.bodies[1].X_parent_body.q.w(), c45, 1e-15);
  EXPECT_NEAR(m.bodies[1].X_parent_body.q.z(), c45, 1e-15);
  EXPECT_NEAR(m.bodies[2].X_parent_body.q.angularDistance(m.bodies[1].X_parent_body.q), 0.0, 1e-15);
  EXPECT_EQ(m.bodies[1].X_parent_body.p, Vec3(1, 2, 3));
  // Fixed-axis XYZ: R = Rz(60) Ry(45) Rx(30), built independently from rotation matrices.
  auto rot = [](int axis, double deg) {
    const double a = deg * std::numbers::pi / 180, c = std::cos(a), s = std::sin(a);
    Mat3 r = Mat3::Identity();
    const int i = (axis + 1) % 3, j = (axis + 2) % 3;
    r(i, i) = c, r(i, j) = -s, r(j, i) = s, r(j, j) = c;
    return r;
  };
  const Mat3 expected = rot(2, 60) * rot(1, 45) * rot(0, 30);
  EXPECT_LT((m.bodies[3].X_parent_body.R() - expected).norm(), 1e-14);
}

TEST(Scene, FullInertiaKinematicBodiesSignalsAndFilters) {
  TempDir dir;
  const Scene s = load_scene(dir.write("s.yaml", R"(bodies:
  - name: arm
    joint: {type: revolute, name: j, axis: [0, 1, 0], limits: [-.inf, 1]}
    mass: 2
    com: [0.1, 0, 0]
    inertia: [0.3, 0.2, 0.2, 0.01, -0.02, 0.03]
  - name: pusher
    joint: prismatic
    kinematic: true
    prescribed_velocity: [{t: [0, 1], y: [1, 3], interp: step}]
    geoms: [{type: sphere, size: [0.01], group: 0x4, mask: 0xfffffff0, margin: 0.001}]
actuators:
  - {name: m, joint: j, type: velocity, kv: 3, command: {t: [0, 2], y: [0, 1]}}
)"));
  const Model& m = *s.model;
  Mat3 I;
  I << 0.3, 0.01, -0.02, 0.01, 0.2, 0.03, -0.02, 0.03, 0.2;
  EXPECT_EQ(m.bodies[1].inertia, I);
  EXPECT_EQ(m.bodies[1].com, Vec3(0.1, 0, 0));
  EXPECT_EQ(m.joints[0].lower, -kInf);
  EXPECT_EQ(m.joints[0].upper, 1.0);
  EXPECT_EQ(m.joints[0].axis, Vec3(0, 1, 0));
  EXPECT_TRUE(m.bodies[2].kinematic);
  EXPECT_EQ(m.bodies[2].prescribed_v[0](0.5), 1.0);  // step holds
  EXPECT_EQ(m.geoms[0].group, 4u);
  EXPECT_EQ(m.geoms[0].mask, 0xfffffff0u);
  EXPECT_EQ(s.resolved["bodies"][1]["geoms"][0]["mask"], 0xfffffff0);  // hex stays an integer
  EXPECT_EQ(m.actuators[0].type, ActuatorType::Velocity);
  EXPECT_EQ(m.actuators[0].command(1.0), 0.5);
}

TEST(Scene, ResolvedJsonIsTheFinalScene) {
  TempDir dir;
  const Scene s = load_scene(dir.write("s.yaml", kBoxScene), {"parameters.mu=0.25"});
  EXPECT_EQ(s.resolved["parameters"]["mu"], 0.25);
  EXPECT_EQ(s.resolved["contact_materials"][0]["friction"], 0.25);
  EXPECT_EQ(s.resolved["bodies"][0]["pos"], nlohmann::json({0, 0, 0.05}));
  EXPECT_EQ(s.resolved["bodies"][0]["joint"], "free");
  EXPECT_EQ(s.resolved["materials"], nlohmann::json({"steel", "rubber"}));
  EXPECT_TRUE(s.resolved["bodies"][1]["mass"].is_number_integer());
  // Deterministic: loading twice gives the same text.
  EXPECT_EQ(s.resolved.dump(), load_scene(dir.path("s.yaml"), {"parameters.mu=0.25"}).resolved.dump());
}

TEST(Scene, PathIsKeptAsGiven) {
  TempDir dir;
  const Scene s = load_scene(dir.write("s.yaml", kBoxScene));
  EXPECT_EQ(s.path, dir.path("s.yaml"));
}

}  // namespace
}  // namespace graspsim

namespace graspsim {
namespace {

TEST(Scene, WordParametersPasteIntoEnumKeys) {
  test::TempDir dir;
  const std::string path = dir.write("s.yaml", R"(parameters: {friction_model: box, solver: split, mu: 0.3}
options: {stepper: spook, solver: "${solver}"}
default_contact: {friction: "${mu}", friction_model: "${friction_model}"}
geoms: [{type: plane}]
)");
  const Scene s = load_scene(path);
  EXPECT_EQ(s.model->default_contact.spook.friction_model, FrictionModel::Box);
  EXPECT_EQ(s.model->options.spook.solver, SolverType::Split);
  EXPECT_EQ(s.text_parameters.at("friction_model"), "box");
  EXPECT_EQ(s.parameters.at("mu"), 0.3);
  const Scene o = load_scene(path, {"parameters.friction_model=polyhedral", "parameters.solver=direct"});
  EXPECT_EQ(o.model->default_contact.spook.friction_model, FrictionModel::Polyhedral);
  EXPECT_EQ(o.model->options.spook.solver, SolverType::Direct);
}

// Any scene value may be chosen by a word, a geom's whole map included (its keys differ
// between types: a cylinder's size, a mesh's file).
TEST(Scene, AWordChoosesAWholeValueAnywhere) {
  test::TempDir dir;
  const std::string path = dir.write("s.yaml", R"(parameters: {shape: ball, r: 0.1}
geoms: [{type: plane}]
bodies:
  - name: thing
    joint: free
    mass: 1
    geoms:
      - by: shape
        ball: {name: g, type: sphere, size: "${r}"}
        can: {name: g, type: cylinder, size: ["${r}", 0.2]}
)");
  const Scene ball = load_scene(path);
  const Geom& g = ball.model->geoms[static_cast<size_t>(ball.model->find_geom("g"))];
  EXPECT_EQ(g.type, GeomType::Sphere);
  EXPECT_DOUBLE_EQ(g.size.x(), 0.1);
  const Scene can = load_scene(path, {"parameters.shape=can"});
  const Geom& c = can.model->geoms[static_cast<size_t>(can.model->find_geom("g"))];
  EXPECT_EQ(c.type, GeomType::Cylinder);
  EXPECT_DOUBLE_EQ(c.size.y(), 0.2);
  // A word with no entry is named, with where the choice is written.
  try {
    load_scene(path, {"parameters.shape=cube"});
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("no value for shape = 'cube'"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("s.yaml:8"), std::string::npos) << e.what();
  }
}

TEST(Scene, ArithmeticOnAWordParameterIsAnError) {
  test::TempDir dir;
  const std::string path = dir.write("s.yaml", "parameters: {model: cone}\nduration: \"=${model} * 2\"\n");
  try {
    load_scene(path);
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("parameter 'model' is the word 'cone', not a number"), std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("s.yaml:2"), std::string::npos) << e.what();
  }
}

TEST(Scene, DirectSolverWithConeFrictionIsRejectedByTheCheck) {
  test::TempDir dir;
  const std::string path = dir.write(
      "s.yaml",
      "options: {stepper: spook, solver: direct}\ndefault_contact: {friction_model: cone}\n"
      "geoms: [{type: plane}]\nbodies: [{name: b, joint: free, geoms: [{type: sphere, size: 0.1}]}]\n");
  try {
    load_scene(path);
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("cannot be solved by the direct solver"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace graspsim
