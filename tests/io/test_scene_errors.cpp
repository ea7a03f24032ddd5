// Every user mistake is an InputError naming the file, line and key (or the --set text).

#include <gtest/gtest.h>

#include <filesystem>

#include "io/run.h"
#include "io/scene.h"
#include "io_test_util.h"

namespace graspsim {
namespace {

using test::input_error;
using test::TempDir;

// Loads `text` as s.yaml; returns the error message.
std::string error_of(const std::string& text, const std::vector<std::string>& overrides = {}) {
  TempDir dir;
  const std::string path = dir.write("s.yaml", text);
  return input_error([&] { load_scene(path, overrides); });
}

constexpr const char* kOneBody = "parameters: {mu: 0.5, speed: 1}\nbodies:\n  - {name: box, joint: free, mass: 1, inertia: [1, 1, 1]}\n";

TEST(SceneErrors, MisspelledKeyNamesFileLineKeyAndSuggestion) {
  const std::string msg = input_error([] { load_scene(test::data_dir() + "/typo.yaml"); });
  EXPECT_CONTAINS(msg, "typo.yaml:5: unknown key 'frction' in contact_materials item 1");
  EXPECT_CONTAINS(msg, "did you mean 'friction'?");
}

TEST(SceneErrors, MisspelledKeysInEverySection) {
  EXPECT_CONTAINS(error_of("optoins: {dt: 1}\n"), "s.yaml:1: unknown key 'optoins' in the scene (did you mean 'options'?)");
  EXPECT_CONTAINS(error_of("options:\n  dt: 1\n  gravty: [0, 0, 0]\n"), "s.yaml:3: unknown key 'gravty' in options");
  EXPECT_CONTAINS(error_of("recording: {evry: 2}\n"), "unknown key 'evry' in recording (did you mean 'every'?)");
  EXPECT_CONTAINS(error_of("bodies:\n  - name: box\n    mas: 1\n"), "s.yaml:3: unknown key 'mas' in body 'box' (did you mean 'mass'?)");
  EXPECT_CONTAINS(error_of("bodies:\n  - name: box\n    joint: {type: revolute, axs: [0, 0, 1]}\n"),
                  "unknown key 'axs' in joint of body 'box' (did you mean 'axis'?)");
  EXPECT_CONTAINS(error_of("geoms:\n  - {name: g, type: box, size: [1, 1, 1], materail: default}\n"),
                  "unknown key 'materail' in geom 'g' (did you mean 'material'?)");
  EXPECT_CONTAINS(error_of("default_contact: {youngs_modulus: 1}\n"), "unknown key 'youngs_modulus' in default_contact");
  // Far from every key: no suggestion.
  EXPECT_EQ(error_of("zzzzzzzz: 1\n").find("did you mean"), std::string::npos);
}

TEST(SceneErrors, WrongTypesNameKeyAndValue) {
  EXPECT_CONTAINS(error_of("bodies:\n  - name: box\n    mass: abc\n"), "s.yaml:3: key 'mass': expected a number, got 'abc'");
  EXPECT_CONTAINS(error_of("duration: [1]\n"), "s.yaml:1: key 'duration': expected a number, got a list");
  EXPECT_CONTAINS(error_of("bodies:\n  - {name: b, pos: [1, 2]}\n"), "key 'pos': expected a list of 3 numbers, got a list of 2");
  EXPECT_CONTAINS(error_of("recording: {bodies: yes please}\n"), "key 'bodies': expected true or false");
  EXPECT_CONTAINS(error_of("options: {iterations: 2.5}\n"), "key 'iterations': expected an integer >= 1");
  EXPECT_CONTAINS(error_of("options: {stepper: spok}\n"),
                  "key 'stepper': unknown value 'spok' (did you mean 'spook'?); expected dynamics | spook | quasistatic | penalty");
  EXPECT_CONTAINS(error_of("bodies:\n  - {name: b, mass: \"2\"}\n"),
                  "key 'mass': expected a number, got '2' (quoted values are text: remove the quotes)");
  EXPECT_CONTAINS(error_of("bodies:\n  - name: b\n    mass:\n"), "s.yaml:3: key 'mass': expected a number, got nothing");
  EXPECT_CONTAINS(error_of("bodies: {name: b}\n"), "key 'bodies': expected a list, got a map");
  EXPECT_CONTAINS(error_of("geoms:\n  - {type: box, size: [1, 1]}\n"), "key 'size': expected a list of 3 numbers");
  EXPECT_CONTAINS(error_of("geoms:\n  - {type: sphere}\n"), "needs the key 'size'");
  EXPECT_CONTAINS(error_of("geoms:\n  - {type: plane, size: 1}\n"), "a plane takes no size");
}

TEST(SceneErrors, NonFiniteNumbersInVectorsAreRejected) {
  EXPECT_CONTAINS(error_of("bodies:\n  - name: b\n    pos: [0, .nan, 0]\n"),
                  "s.yaml:3: key 'pos[1]': expected a finite number, got '.nan'");
  EXPECT_CONTAINS(error_of("options: {gravity: [0, 0, -.inf]}\n"), "key 'gravity[2]': expected a finite number");
  EXPECT_CONTAINS(error_of("parameters:\n  big: 1e308 * 10\n"), "the result is not finite");
}

// Issue 18: values a run cannot use are refused at load, with file, line, key and the limit.
TEST(SceneErrors, ValuesBeyondTheEnginesLimits) {
  EXPECT_CONTAINS(error_of("bodies:\n  - {name: b, joint: free, mass: 1e308}\n"),
                  "s.yaml:2: key 'mass': expected a number of magnitude at most 1e15, got '1e308'");
  EXPECT_CONTAINS(error_of("bodies:\n  - {name: b, joint: free, mass: 1, velocity: [1e300, 0, 0, 0, 0, 0]}\n"),
                  "key 'velocity[0]': expected a number of magnitude at most 1e15");
  EXPECT_CONTAINS(error_of("options: {gravity: [0, 0, -1e308]}\n"), "s.yaml:1: key 'gravity[2]': expected a number of magnitude");
  EXPECT_CONTAINS(error_of("bodies:\n  - {name: b, joint: free, mass: 1, pos: [1e8, 0, 0]}\n"),
                  "s.yaml:2: key 'pos': more than 1e6 m from the origin");
  // Limits may be infinite, and so as large as wanted.
  EXPECT_NO_THROW(load_scene(TempDir().write("s.yaml", "bodies:\n  - {name: b, mass: 1, inertia: [1, 1, 1], joint: {type: "
                                                        "prismatic, axis: [1, 0, 0], limits: [-1e300, .inf]}}\n")));
  // A seed is an integer up to 2^53, above the limit for physical values.
  EXPECT_NO_THROW(load_scene(TempDir().write("s.yaml", "options: {seed: 9007199254740992}\ngeoms: [{type: plane}]\n")));
}

// Found by scripts/message-census: names under `recording:` were checked only when a run
// started, without file or line; a first key indented deeper than the next silently ended
// the scene there; a scene with nothing in it (a lost include) ran.
// Found by fuzz_scene (CI, stop 28): a ',' before the first node made yaml-cpp 0.7's LoadAll
// loop forever, allocating (yaml-cpp issue #1040). A test that regresses hangs until CTest's
// timeout.
TEST(SceneErrors, StrayCommaBeforeTheFirstNode) {
  EXPECT_CONTAINS(error_of("# comment\n,\ninclude: x.yaml\n"), "s.yaml:2:1: YAML syntax error: no YAML node can start here");
  EXPECT_CONTAINS(error_of(","), "s.yaml:1:1: YAML syntax error");
  EXPECT_CONTAINS(error_of("]\n"), "s.yaml:1:1: YAML syntax error");
  EXPECT_CONTAINS(error_of("&a ,\n"), "s.yaml:1:");
  EXPECT_CONTAINS(error_of("- !+(.,.)\n"), "s.yaml:1:");
}

TEST(SceneErrors, RecordingNamesIndentationAndEmptyScenes) {
  const std::string box = "bodies:\n  - {name: box, joint: free, mass: 1, geoms: [{name: g, type: sphere, size: [0.1]}]}\n";
  EXPECT_CONTAINS(error_of(box + "recording:\n  object: bx\n"),
                  "s.yaml:4: recording: object: no body named 'bx' (did you mean 'box'?)");
  EXPECT_CONTAINS(error_of(box + "recording:\n  holders: [box, finger]\n"), "s.yaml:4: recording: holders: no body named 'finger'");
  EXPECT_CONTAINS(error_of(box + "recording:\n  normal_forces: [[g, h]]\n"), "s.yaml:4: recording: normal_forces: no geom named 'h'");
  EXPECT_CONTAINS(error_of(box + "recording:\n  configuration: [x]\n"), "s.yaml:4: recording: configuration: no joint named 'x'");
  EXPECT_CONTAINS(error_of(" duration: 1\n" + box), "s.yaml:2: the scene's YAML ends before this line");
  EXPECT_CONTAINS(error_of("duration: 1\n---\n" + box), "s.yaml:3: the scene's YAML ends before this line");
  EXPECT_CONTAINS(error_of(""), "s.yaml: the scene has no bodies, geoms or robots: nothing to simulate");
  EXPECT_CONTAINS(error_of("parameters: {a: 1}\noptions: {dt: 0.01}\n"), "nothing to simulate");
  EXPECT_NO_THROW(load_scene(TempDir().write("s.yaml", box + "recording: {object: box, holders: [box]}\n")));
}

// The model's own checks carry the line of the key they are about, and numbers are short.
TEST(SceneErrors, ModelChecksNameFileAndLine) {
  EXPECT_CONTAINS(error_of("options:\n  gravity: [0, 0, -9.81]\n  dt: -0.5\n"), "s.yaml:3: options: dt must be positive, got -0.5");
  EXPECT_CONTAINS(error_of("default_contact: {friction: -1}\n"), "s.yaml:1: default contact material: friction must be >= 0");
  EXPECT_CONTAINS(error_of("options:\n  stepper: penalty\n  penalty:\n    stiffness: -1\n"),
                  "s.yaml:4: options: penalty: stiffness must be a finite number > 0, got -1");
  EXPECT_CONTAINS(error_of("options:\n  stepper: spook\n  tolerance: -1e-6\n"), "tolerance must be finite and >= 0");
  // An expression outside the parameters whose value overflows says so (it read "expected a number").
  EXPECT_CONTAINS(error_of("parameters: {angle_deg: 1e15}\nduration: \"${angle_deg}^30\"\n"),
                  "s.yaml:2: key 'duration': in expression '${angle_deg}^30': the result is not finite");
}

// A possible but huge run (more than 1e8 steps, or ~10 GB of recordings) is refused as a
// likely typo unless forced; forced, it starts (here it is stopped before its first step).
TEST(SceneErrors, HugeRunsWaitForForce) {
  TempDir dir;
  const std::string path = dir.write("s.yaml", kOneBody);
  RunOptions o;
  o.out_dir = dir.path("out");
  o.stop_requested = [] { return true; };
  const Scene many_steps = load_scene(path, {"duration=2", "options.dt=1e-8"});
  EXPECT_CONTAINS(input_error([&] { run_scene(many_steps, o); }), "200000000 steps (duration 2 s at dt 1e-08 s) is more than 1e+08: pass --force");
  EXPECT_FALSE(std::filesystem::exists(dir.path("out/run.json")));
  const Scene big_recording = load_scene(path, {"duration=500", "options.dt=1e-5"});
  EXPECT_CONTAINS(input_error([&] { run_scene(big_recording, o); }), "the recordings would take about");
  o.record = false;  // nothing recorded: only the step count counts
  EXPECT_NO_THROW(run_scene(big_recording, o));
  o.force = true;
  EXPECT_TRUE(run_scene(many_steps, o).interrupted);
}

// A file name too long for the file system is a message, not an uncaught filesystem_error
// (found by fuzz_scene: std::terminate).
TEST(SceneErrors, IncludeNameTooLongForTheFileSystem) {
  EXPECT_CONTAINS(error_of("include: [" + std::string(300, 'a') + ".yaml]\n"), "cannot open scene file");
}

TEST(SceneErrors, UnknownParameterNamesItAndLocation) {
  const std::string msg = error_of("parameters: {mu: 0.5}\ndefault_contact:\n  friction: ${mu2}\n");
  EXPECT_CONTAINS(msg, "s.yaml:3: key 'friction': unknown parameter 'mu2' (did you mean 'mu'?) (known: mu)");
  EXPECT_CONTAINS(error_of("parameters:\n  a: ${b} + 1\n"), "s.yaml:2: key 'a': unknown parameter 'b'");
}

TEST(SceneErrors, ParameterCyclesAndBadExpressions) {
  EXPECT_CONTAINS(error_of("parameters:\n  a: ${b}\n  b: ${a} * 2\n"), "parameter 'a' depends on itself");
  EXPECT_CONTAINS(error_of("parameters: {a: 1}\nduration: =${a} +\n"),
                  "s.yaml:2: key 'duration': in expression '${a} +': expected a value but the expression ended at position 7");
  EXPECT_CONTAINS(error_of("parameters: {a: 1}\nduration: ${a} * (2\n"), "key 'duration': expected a number, got '1 * (2'");
  // A bare word is a text parameter; inside arithmetic an unknown name is still an error.
  EXPECT_CONTAINS(error_of("parameters: {a: 2 * abc}\n"), "key 'a': in expression '2 * abc': unknown name 'abc'");
}

TEST(SceneErrors, UnknownOverrides) {
  EXPECT_CONTAINS(error_of(kOneBody, {"parameters.nu=0.3"}),
                  "--set 'parameters.nu=0.3': unknown parameter 'nu' (did you mean 'mu'?) (known: mu, speed)");
  EXPECT_CONTAINS(error_of(kOneBody, {"bodies.bx.mass=2"}),
                  "--set 'bodies.bx.mass=2': unknown path 'bodies.bx.mass': no item named 'bx' in 'bodies' (did you mean 'box'?) (items: box)");
  EXPECT_CONTAINS(error_of(kOneBody, {"bodies.5.mass=2"}), "no item named '5' in 'bodies'");
  EXPECT_CONTAINS(error_of(kOneBody, {"bodies.box.joint.type=free"}), "unknown path 'bodies.box.joint.type': 'bodies.box.joint' is a single value");
  EXPECT_CONTAINS(error_of(kOneBody, {"options.dtt=0.1"}), "--set 'options.dtt=0.1': unknown key 'dtt' in options (did you mean 'dt'?)");
  EXPECT_CONTAINS(error_of(kOneBody, {"bodies.box.mass=abc"}), "--set 'bodies.box.mass=abc': key 'mass': expected a number, got 'abc'");
  EXPECT_CONTAINS(error_of(kOneBody, {"no_equals_sign"}), "expected KEY.PATH=VALUE");
  EXPECT_CONTAINS(error_of(kOneBody, {"bodies..mass=1"}), "empty name in the path");
}

TEST(SceneErrors, IncludeCycleShowsTheChain) {
  const std::string msg = input_error([] { load_scene(test::data_dir() + "/cycle_a.yaml"); });
  EXPECT_CONTAINS(msg, "cycle_b.yaml:2: include cycle: ");
  EXPECT_CONTAINS(msg, "cycle_a.yaml -> ");
  EXPECT_CONTAINS(msg, "cycle_b.yaml -> ");
}

TEST(SceneErrors, IncludeProblems) {
  EXPECT_CONTAINS(error_of("include: [missing.yaml]\n"), "s.yaml:1: cannot open scene file");
  EXPECT_CONTAINS(error_of("include:\n  - {model: robot.urdf, prefix: left_}\n"),
                  "s.yaml:2: robot files are loaded under 'robots:' ({file: robot.urdf}), not included");
  EXPECT_CONTAINS(error_of("include:\n  - {model: robot.xml}\n"), "robot files are loaded under 'robots:'");
  EXPECT_CONTAINS(input_error([] { load_scene("/nonexistent/scene.yaml"); }), "cannot open scene file '/nonexistent/scene.yaml'");
}

TEST(SceneErrors, NegativeMassNamesTheBodyAndLine) {
  const std::string msg = input_error([] { load_scene(test::data_dir() + "/negative_mass.yaml"); });
  EXPECT_CONTAINS(msg, "negative_mass.yaml:8: body 'heavy_box'");
  EXPECT_CONTAINS(msg, "mass must be positive");
}

TEST(SceneErrors, BuilderErrorsCarryTheItemLocation) {
  EXPECT_CONTAINS(error_of("bodies:\n  - {name: a}\n  - {name: b, parent: nobody}\n"),
                  "s.yaml:3: body 'b': unknown parent body 'nobody'");
  EXPECT_CONTAINS(error_of("geoms:\n  - {name: g, type: sphere, size: 1, material: steel}\n"),
                  "s.yaml:2: geom 'g': unknown material 'steel'");
  EXPECT_CONTAINS(error_of(std::string(kOneBody) + "actuators:\n  - {name: m, joint: nope}\n"),
                  "s.yaml:5: actuator 'm': unknown joint 'nope'");
}

// SPOOK's settings are checked by the SPOOK stepper at load, naming the material as the
// builder names it.
TEST(SceneErrors, StepperSettingsNameTheContactMaterial) {
  const std::string spook = "options: {stepper: spook}\nmaterials: [steel]\n";
  EXPECT_CONTAINS(error_of(spook + "contact_materials:\n  - {materials: [steel, default], young_modulus: -1}\n"),
                  "s.yaml:4: contact material 'steel/default': young_modulus must be positive");
  EXPECT_CONTAINS(error_of(spook + "contact_materials:\n  - {materials: [steel, steel], primary_direction: [0, 0, 0]}\n"),
                  "s.yaml:4: contact material 'steel/steel': primary_direction must be nonzero");
  EXPECT_CONTAINS(error_of(spook + "default_contact: {tangents: 2}\n"), "default contact material: tangents must be >= 3");
  EXPECT_CONTAINS(error_of("options: {stepper: spook, solver: direct}\nmaterials: [steel]\ndefault_contact: {friction_model: box}\n"
                           "contact_materials:\n  - {materials: [steel, steel], friction_model: cone}\n"),
                  "s.yaml:5: contact material 'steel/steel': friction model 'cone' cannot be solved by the direct solver alone");
  // What every formulation reads is the builder's, with the same location.
  EXPECT_CONTAINS(error_of(spook + "contact_materials:\n  - {materials: [steel, steel], restitution: 2}\n"),
                  "s.yaml:4: contact material 'steel/steel': restitution must be in [0, 1]");
}

TEST(SceneErrors, YamlSyntaxAndStructure) {
  EXPECT_CONTAINS(error_of("a: [1, 2\nb: 3\n"), "s.yaml:");
  EXPECT_CONTAINS(error_of("a: [1, 2\nb: 3\n"), "YAML syntax error");
  EXPECT_CONTAINS(error_of("duration: 1\nduration: 2\n"), "s.yaml:2: key 'duration' appears twice");
  EXPECT_CONTAINS(error_of("- 1\n- 2\n"), "a scene file must be a map of sections");
  EXPECT_CONTAINS(error_of("bodies:\n  - {name: b, quat: [1, 0, 0, 0], euler_deg: [0, 0, 0]}\n"),
                  "give either 'quat' or 'euler_deg', not both");
  EXPECT_CONTAINS(error_of("bodies:\n  - {name: b, quat: [0, 0, 0, 0]}\n"), "the quaternion [w, x, y, z] is zero");
  EXPECT_CONTAINS(error_of("bodies:\n  - {name: b, prescribed_velocity: [1]}\n"), "'prescribed_velocity' needs 'kinematic: true'");
  EXPECT_CONTAINS(error_of("bodies:\n  - {name: b, joint: {type: revolute, v: [1]}, velocity: [1]}\n"),
                  "give the initial velocity as 'velocity' or 'joint.v', not both");
}

TEST(SceneErrors, BadSignals) {
  const std::string head = std::string(kOneBody) + "actuators:\n  - name: m\n    joint: box_joint\n    command: ";
  EXPECT_CONTAINS(error_of(head + "{t: [0, 1, 1], y: [0, 1, 2]}\n"), "key 'command': signal times must increase strictly (t[2] = 1)");
  EXPECT_CONTAINS(error_of(head + "{t: [0, 1], y: [0]}\n"), "a signal needs t and y of the same nonzero length (got 2 and 1)");
  EXPECT_CONTAINS(error_of(head + "{t: [0], y: [0], interp: cubic}\n"), "key 'command.interp': unknown value 'cubic'");
}

TEST(SceneErrors, MeshProblemsNameTheMesh) {
  TempDir dir;
  dir.write("bad.obj", "v 0 0 0\nv 1 0 0\nf 1 2 3\n");
  const std::string path = dir.write("s.yaml", "meshes:\n  - {name: m, file: bad.obj}\n");
  const std::string msg = input_error([&] { load_scene(path); });
  EXPECT_CONTAINS(msg, "s.yaml:2: mesh 'm' (file '");
  EXPECT_CONTAINS(msg, "bad.obj");
  EXPECT_CONTAINS(msg, "vertex index out of range");
  dir.write("ok.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n");
  const std::string twice = dir.write("u.yaml", "meshes:\n  - {name: m, file: ok.obj}\n  - {name: m, file: ok.obj}\n");
  EXPECT_CONTAINS(input_error([&] { load_scene(twice); }), "u.yaml:3: mesh 'm' is defined twice");
  const std::string path2 = dir.write("t.yaml", "meshes:\n  - {name: m, file: nothere.obj}\n");
  EXPECT_CONTAINS(input_error([&] { load_scene(path2); }), "nothere.obj'): file not found");
}

}  // namespace
}  // namespace graspsim

namespace graspsim {
namespace {

// Includes that fan out without a cycle (each file includes the next one twice, 30 levels:
// 2^30 files) stop at the limit with a message instead of hanging.
TEST(SceneErrors, IncludeFanOutIsBounded) {
  test::TempDir dir;
  const int levels = 30;
  auto name = [](int i) { return std::string("d").append(std::to_string(i)).append(".yaml"); };
  for (int i = 0; i < levels; ++i) {
    std::string text = "include: [";
    text.append(name(i + 1)).append(", ").append(name(i + 1)).append("]\n");
    dir.write(name(i), text);
  }
  dir.write(name(levels), "parameters: {a: 1}\n");
  const std::string msg = test::input_error([&] { load_scene(dir.path("d0.yaml")); });
  EXPECT_CONTAINS(msg, "scene files read through includes (the limit");
  EXPECT_CONTAINS(msg, ".yaml:1:");
}

}  // namespace
}  // namespace graspsim

namespace graspsim {
namespace {

// A YAML alias bomb (nine levels of nine aliases: 9^9 values once expanded) is bad input
// naming the limit and the file, before it eats the memory.
TEST(SceneErrors, YamlAliasBombIsBounded) {
  std::string text = "a0: &a0 [1, 2, 3, 4, 5, 6, 7, 8, 9]\n";
  for (int i = 1; i <= 9; ++i) {
    const std::string n = std::to_string(i), p = std::string("*a").append(std::to_string(i - 1));
    text.append("a").append(n).append(": &a").append(n).append(" [").append(p);
    for (int k = 1; k < 9; ++k) text.append(", ").append(p);
    text.append("]\n");
  }
  const std::string msg = error_of(text);
  EXPECT_CONTAINS(msg, "YAML values once aliases are expanded (the limit)");
  EXPECT_CONTAINS(msg, "s.yaml:");
}

}  // namespace
}  // namespace graspsim
