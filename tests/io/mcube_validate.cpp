// Simulated MCube pushes: the generated scene (pusher path, prism), an analytic push, and
// regression numbers against the real recordings.

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>

#include "io/mcube.h"
#include "io/mcube_batch.h"
#include "io/mcube_validate.h"
#include "io/run.h"
#include "io/scene.h"
#include "io_test_util.h"
#include "mcube_util.h"
#include "collision/extrusion.h"
#include "model/mass_properties.h"

namespace graspsim {
namespace {

using namespace mcube;

const std::string kObjects = test::mcube_dir() + "/objects";

Scene load_push(const test::TempDir& dir, const PushFile& f, const std::vector<Vec2>& path, double duration,
                const std::vector<std::string>& sets = {}, SurfaceFriction mu = {0.16, 0.25}) {
  const PushScene s = push_scene(f, object_outline(object_info(f.shape), kObjects), mu, path, duration);
  dir.write("object.obj", s.object_obj);
  return load_scene(dir.write("scene.yaml", s.yaml), sets);
}

// The pusher's position after every path period, for any dt that divides the period.
std::vector<Vec2> pusher_positions(const Scene& scene) {
  const Model& m = *scene.model;
  const int qadr = m.joints[m.bodies[m.find_body("pusher")].joint].qadr;
  std::vector<Vec2> out;
  RunOptions run;
  run.record = false;
  run.on_step = [&](const Model&, const State& s, const Workspace&, const StepResult&) {
    const double k = s.t / kPathPeriod;
    if (std::abs(k - std::round(k)) < 1e-6) out.emplace_back(s.q[qadr], s.q[qadr + 1]);
  };
  run_scene(scene, run);
  return out;
}

// The kinematic pusher passes through every sample of its path: integrating the step velocity
// signal over one period reproduces the sample exactly but for round-off (1e-12 m bound for
// ~100 additions of 1e-4 m steps).
TEST(McubeValidate, PusherFollowsItsPathForAnyDividingStep) {
  test::TempDir dir;
  const PushFile f = parse_push_name("motion_surface=abs_shape=rect1_a=0_v=75_i=0.000_s=0.500_t=0.000.h5");
  std::vector<Vec2> path;  // away from the object, speeding up and curving: no contact
  for (int k = 0; k <= 100; ++k) path.emplace_back(0.1 + 1e-5 * k * k, 0.02 * std::sin(0.05 * k));
  for (const char* dt : {"0.001", "0.00025"}) {
    SCOPED_TRACE(dt);
    const auto got = pusher_positions(load_push(dir, f, path, 0.1, {std::string("parameters.dt=") + dt}));
    ASSERT_EQ(got.size(), 100u);
    for (std::size_t k = 0; k < got.size(); ++k) EXPECT_LT((got[k] - path[k + 1]).norm(), 1e-12) << "sample " << k + 1;
  }
}

// Non-box shapes are their outline extruded: the prism's volume is the outline's area times the
// thickness (shoelace area of the convex outline; the mesh volume is exact for a prism, but the
// mesh loader keeps float32 vertices: 1e-6 relative).
TEST(McubeValidate, PrismIsTheOutlineExtruded) {
  test::TempDir dir;
  for (const char* shape : {"hex", "ellip3"}) {
    SCOPED_TRACE(shape);
    const PushFile f = parse_push_name(std::string("motion_surface=abs_shape=") + shape + "_a=0_v=20_i=0.000_s=0.500_t=0.000.h5");
    const std::vector<Vec2> outline = object_outline(object_info(shape), kObjects);
    double area = 0;
    for (std::size_t i = 0; i < outline.size(); ++i) {
      const Vec2& p = outline[i];
      const Vec2& q = outline[(i + 1) % outline.size()];
      area += 0.5 * (p.x() * q.y() - q.x() * p.y());
    }
    const Scene scene = load_push(dir, f, {Vec2(0.2, 0), Vec2(0.2, 0)}, 0.01);
    ASSERT_EQ(scene.model->meshes.size(), 1u);
    const double volume = mesh_mass_properties(*scene.model->meshes[0], 1.0).mass;
    // ellip3's 66 outline points are thinned to 60 (mcube_scene.cpp): < 0.2 % of its area.
    EXPECT_NEAR(volume / (area * object_info(shape).thickness), 1.0, std::string(shape) == "hex" ? 1e-6 : 2e-3);
  }
}

// A centred straight push at constant speed v moves a square object straight: it follows the
// pusher for the 50 mm travel, then slides v^2 / (2 mu g) after the pusher stops (Coulomb
// deceleration mu g). Tolerance 0.1 mm: the pusher's elastic indentation (~1.3 N over the rod's
// contact stiffness) and the first step's impact are each tens of microns. By symmetry it neither
// drifts sideways nor turns; the iterative friction sweep visits the support points in an order
// that is not symmetric, which leaves a residue (measured 5 um, 0.007 deg): bounds 20 um, 0.05 deg.
TEST(McubeValidate, CentredPushFollowsThePusherThenSlidesToRest) {
  test::TempDir dir;
  const PushFile f = parse_push_name("motion_surface=abs_shape=rect1_a=0_v=75_i=0.000_s=0.500_t=0.000.h5");
  const PushGeometry g = push_geometry(f);
  const double v = 0.075, travel = 0.05, mu = 0.16, g0 = 9.81;
  std::vector<Vec2> path;
  for (int k = 0; k <= 1200; ++k) path.push_back(g.tip_start + std::min(v * k * kPathPeriod, travel) * g.direction);
  const Scene scene = load_push(dir, f, path, 1.0, {}, {mu, 0.0});
  const Model& m = *scene.model;
  const int pusher = m.find_body("pusher");
  std::vector<double> t{0.0}, fx{0.0}, fy{0.0};
  RunOptions run;
  run.record = false;
  run.on_step = [&](const Model&, const State& st, const Workspace&, const StepResult& r) {
    Vec3 force = Vec3::Zero();  // on the pusher
    for (const ContactResult& c : r.contacts)
      if (c.body_a == pusher || c.body_b == pusher) force += (c.body_b == pusher ? 1.0 : -1.0) * (c.fn * c.normal + c.ft);
    t.push_back(st.t), fx.push_back(force.x()), fy.push_back(force.y());
  };
  const RunSummary s = run_scene(scene, run);
  const int qadr = m.joints[m.bodies[m.find_body("object")].joint].qadr;
  const Vec2 moved(s.final_state.q[qadr], s.final_state.q[qadr + 1]);
  const double expected = travel + v * v / (2 * mu * g0);
  EXPECT_NEAR(moved.dot(g.direction), expected, 1e-4);
  EXPECT_NEAR(moved.dot(Vec2(-g.direction.y(), g.direction.x())), 0.0, 2e-5);
  EXPECT_NEAR(2 * std::asin(s.final_state.q[qadr + 6]), 0.0, 0.05 * M_PI / 180);  // yaw from the quaternion's z
  // The pusher's work: at constant speed v it is v times its impulse, which is the ground's
  // friction impulse μ m g T plus the final momentum m v: μ m g·travel + m v² (half the kinetic
  // energy the object coasts off, half lost at the start's impact, however it bounces). The pusher
  // is frictionless here: with μ_pusher 0.25 its friction on the rocking side face adds up to
  // μ_pusher·F of load on the ground (+4 % of work, measured). 1 %: the contact's compliance.
  const double mass = object_info("rect1").mass_kg;
  EXPECT_NEAR(pusher_work(path, t, fx, fy, travel / v), mu * mass * g0 * travel + mass * v * v, 0.01 * mu * mass * g0 * travel);
}

// Regression against the real recordings with the default model (area support 5x5, split + cone,
// dt 1 ms) and the friction calibrated in session 2 (fixed here, so recalibrating the table does not
// move this test). Re-measured in session 15, when the box–cylinder pair got its closed form (exact
// depth at the box's edges, where EPA was short by up to ~20 um): the rect1 pushes moved 0.3-0.6 mm. Expected values are the measured ones; +-0.5 mm and +-0.5 deg catch a change in
// the engine's behaviour while leaving room for round-off-level differences across compilers, and
// the bounds on the error to the real push are the measured errors plus 1 mm / 1 deg.
TEST(McubeValidate, RegressionOnThreeRealPushes) {
  struct Case {
    const char* folder;
    const char* name;
    double dx_mm, dy_mm, dyaw_deg, max_pos_err_mm, max_yaw_err_deg;
  };
  const Case cases[] = {
      {"abs/train", "abs_shape=rect1_a=0_v=75_i=2.000_s=0.800_t=0.000.h5", -15.21, 31.68, 29.96, 3.6, 2.0},
      {"abs/train", "abs_shape=hex_a=0_v=100_i=1.000_s=0.600_t=0.000.h5", 6.37, -48.55, 7.15, 1.8, 2.9},
      {"plywood/rect1", "plywood_shape=rect1_a=0_v=100_i=0.000_s=0.500_t=0.698.json", 0.25, -28.74, -23.41, 4.9, 7.2},
  };
  test::TempDir dir;
  ValidateOptions o;
  o.objects_dir = kObjects;
  o.surfaces = {{"abs", {0.3883, 0.2745}}, {"plywood", {0.6159, 0.1504}}};
  o.record = false;
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    o.out_dir = dir.path(c.name);
    const PushResult r = validate_push(read_push_file(test::mcube_file(c.folder, c.name)), o);
    EXPECT_NEAR(r.sim_dx * 1e3, c.dx_mm, 0.5);
    EXPECT_NEAR(r.sim_dy * 1e3, c.dy_mm, 0.5);
    EXPECT_NEAR(r.sim_dyaw * 180 / M_PI, c.dyaw_deg, 0.5);
    EXPECT_LT(r.pos_err * 1e3, c.max_pos_err_mm);
    EXPECT_LT(r.yaw_err * 180 / M_PI, c.max_yaw_err_deg);
  }
}

// butter's outline is not convex (its hull is 16 % larger): the object is the outline itself, in
// convex pieces whose volumes add up to the outline's area times the thickness.
TEST(McubeValidate, ButterIsItsTrueOutlineNotItsHull) {
  test::TempDir dir;
  const PushFile f = parse_push_name("motion_surface=abs_shape=butter_a=0_v=50_i=0.000_s=0.500_t=0.000.h5");
  const std::vector<Vec2> outline = object_outline(object_info("butter"), kObjects);
  const Scene scene = load_push(dir, f, {Vec2(0.2, 0), Vec2(0.2, 0)}, 0.01);
  const Model& m = *scene.model;
  double volume = 0;
  int pieces = 0;
  for (const Geom& g : m.geoms)
    if (g.body == m.find_body("object")) volume += mesh_mass_properties(*m.meshes[g.mesh], 1.0).mass, ++pieces;
  EXPECT_GT(pieces, 1);
  EXPECT_GE(m.find_geom("object_geom/0"), 0);
  EXPECT_NEAR(volume / (std::abs(signed_area(outline)) * object_info("butter").thickness), 1.0, 1e-9);
}

// A recorded tip that starts inside the object is reported with its depth (README: this plywood
// file's tip start is off the nominal contact point); a start within tracking error is not.
TEST(McubeValidate, TipStartInsideTheObjectIsReported) {
  test::TempDir dir;
  ValidateOptions o;
  o.objects_dir = kObjects;
  o.surfaces = {{"abs", {0.3883, 0.2745}}, {"plywood", {0.6159, 0.1504}}};
  o.record = false;
  o.sets = {"parameters.dt=0.002"};
  struct Case {
    const char* folder;
    const char* name;
    double gap_mm;
  };
  for (const Case& c : {Case{"plywood/rect1", "plywood_shape=rect1_a=0_v=100_i=3.000_s=0.400_t=0.349.json", -8.0},
                        Case{"abs/train", "abs_shape=hex_a=0_v=100_i=1.000_s=0.600_t=0.000.h5", 0.0}}) {
    SCOPED_TRACE(c.name);
    o.out_dir = dir.path(c.name);
    const PushResult r = validate_push(read_push_file(test::mcube_file(c.folder, c.name)), o);
    const nlohmann::json j = to_json(r);
    EXPECT_NEAR(j["start_gap_mm"].get<double>(), c.gap_mm, 1.5);  // measured -8.00 and +0.01 mm
    EXPECT_EQ(j["start_penetrates"].get<bool>(), c.gap_mm < -1);
    EXPECT_NEAR(r.tip_shift, std::max(0.0, -r.start_gap), 1e-15);
  }
  const nlohmann::json s = summarize({{{"file", "a.h5"}, {"shape", "rect1"}, {"surface", "abs"}, {"status", "ok"},
                                       {"pos_err_mm", 1}, {"yaw_err_deg", 1}, {"rms_pos_mm", 1}, {"rms_yaw_deg", 1},
                                       {"start_penetrates", true}, {"start_gap_mm", -3.0}}});
  ASSERT_EQ(s["start_penetrations"].size(), 1u);
  EXPECT_EQ(s["start_penetrations"][0]["file"], "a.h5");
}

// Leave-one-out folds: one per group, the group's files tested, all others trained on.
TEST(McubeValidate, HoldoutFoldsPartitionTheFiles) {
  std::vector<PushFile> files;
  for (const char* n : {"motion_surface=abs_shape=rect1_a=0_v=75_i=0.000_s=0.500_t=0.000.h5",
                        "motion_surface=abs_shape=hex_a=0_v=75_i=0.000_s=0.500_t=0.000.h5",
                        "motion_surface=plywood_shape=rect1_a=0_v=75_i=0.000_s=0.500_t=0.000.json",
                        "motion_surface=abs_shape=hex_a=0_v=50_i=1.000_s=0.500_t=0.000.h5"})
    files.push_back(parse_push_name(n));
  const auto folds = holdout_folds(files, "shape");
  ASSERT_EQ(folds.size(), 2u);
  EXPECT_EQ(folds[0].held_out, "shape=hex");
  EXPECT_EQ(folds[0].test, (std::vector<std::size_t>{1, 3}));
  EXPECT_EQ(folds[0].train, (std::vector<std::size_t>{0, 2}));
  EXPECT_EQ(folds[1].held_out, "shape=rect1");
  EXPECT_EQ(holdout_folds(files, "surface")[1].test, (std::vector<std::size_t>{2}));
  EXPECT_CONTAINS(test::input_error([&] { holdout_folds(files, "speed"); }), "'shape' or 'surface'");
  EXPECT_CONTAINS(test::input_error([&] { holdout_folds({files[0]}, "shape"); }), "at least two shapes");
}

// The summary's medians cover the usable files only, per group too; failures and unusable files
// are counted and listed.
TEST(McubeValidate, SummaryMediansOverUsableFiles) {
  const auto row = [](const char* shape, const char* surface, double pos, double yaw, bool usable = true) {
    nlohmann::json r = {{"file", std::string(shape) + ".h5"}, {"shape", shape}, {"surface", surface}, {"status", "ok"},
                        {"pos_err_mm", pos}, {"yaw_err_deg", yaw}, {"rms_pos_mm", pos / 2}, {"rms_yaw_deg", yaw / 2},
                        {"usable", usable}, {"speed_mm_s", std::string(shape) == "hex" ? 150.0 : 75.0}};
    if (!usable) r["unusable_reason"] = "began mid-push";
    return r;
  };
  const std::vector<nlohmann::json> rows = {
      row("rect1", "abs", 1, 10), row("rect1", "abs", 3, 30), row("hex", "abs", 2, 20), row("rect1", "plywood", 100, 100, false),
      {{"file", "bad.h5"}, {"status", "error"}, {"error", "truncated"}}};
  const nlohmann::json s = summarize(rows);
  EXPECT_EQ(s["files"], 5);
  EXPECT_EQ(s["ok"], 4);
  EXPECT_EQ(s["failed"], 1);
  EXPECT_EQ(s["usable"], 3);
  EXPECT_EQ(s["unusable"].size(), 1u);
  EXPECT_DOUBLE_EQ(s["median_pos_err_mm"].get<double>(), 2.0);
  EXPECT_DOUBLE_EQ(s["median_yaw_err_deg"].get<double>(), 20.0);
  EXPECT_DOUBLE_EQ(s["groups"]["shape=rect1"]["median_pos_err_mm"].get<double>(), 2.0);  // (1 + 3) / 2
  EXPECT_EQ(s["groups"]["shape=rect1"]["files"], 2);
  EXPECT_FALSE(s["groups"].contains("surface=plywood"));
  EXPECT_EQ(s["groups"]["speed=75"]["files"], 2);
  EXPECT_DOUBLE_EQ(s["groups"]["speed=150"]["median_pos_err_mm"].get<double>(), 2.0);
}

}  // namespace
}  // namespace graspsim

namespace graspsim {
namespace {

// A surface table's friction must be a finite number >= 0; a NaN said "must be >= 0".
TEST(McubeSurfaces, NonFiniteOrNegativeFrictionIsNamed) {
  test::TempDir dir;
  auto error_for = [&](const std::string& value) {
    const std::string path =
        dir.write("surfaces.yaml", "surfaces:\n  abs:\n    mu_ground: " + value + "\n    mu_pusher: 0.2\n");
    return test::input_error([&] { mcube::read_surface_table(path); });
  };
  EXPECT_CONTAINS(error_for(".nan"), "line 3: surface 'abs': 'mu_ground' is not a finite number");
  EXPECT_CONTAINS(error_for(".inf"), "is not a finite number");
  EXPECT_CONTAINS(error_for("-0.5"), "line 3: surface 'abs': 'mu_ground' must be >= 0, got -0.5");
}

}  // namespace
}  // namespace graspsim
