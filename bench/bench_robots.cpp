// Robot grasps in graspsim and in MuJoCo 2.2.2 (issue 11), each from one graspsim scene:
//   robotiq_box    the Robotiq 2F-85 closes on a 5 cm, 0.1 kg box on the floor
//                  (scenes/robots/robotiq_box.yaml);
//   shadow_sphere  the Shadow Hand, palm down, power-grasps a 7 cm, 0.1 kg ball on a
//                  three-post stand (scenes/robots/shadow_sphere.yaml);
//   shadow_bunny   the same hand and stand, the Stanford bunny (7 cm, 0.1 kg, its convex
//                  hull in both engines; scenes/robots/shadow_bunny.yaml).
// Each closes (1 s), settles (0.5 s), lifts 10 cm (0.1 m/s, ramped over 0.25 s) and holds
// 5 s: 7.75 s in all.
//   graspsim  the scene (SPOOK, the scene's solver), dt from "parameters.dt=...";
//   MuJoCo    the scene's robot file, unedited on disk, its text rewritten at run time into a
//             temporary directory (see mujoco_xml), at the file's own solver settings
//             (elliptic cone, impratio 10, Newton) and the same dt. Both engines take the
//             same commands: graspsim's sample_signals of the scene, per actuator name.
// Each iteration runs the whole episode from the initial state, so items_per_second is
// steps/s over the episode (close, lift and hold alike). Counters, from the last episode:
//   slip_mm    how far the object moved during the hold in the frame of the reference body
//              (right_pad; the Shadow Hand's rh_palm), its position at the hold's start
//              against at the end;
//   lift_mm    how far the object rose, start to end (100 if it followed the lift exactly);
//   gripper_mm how far the lift slider itself rose;
//   vs_mujoco  (graspsim only) graspsim's steps/s over MuJoCo's at the same dt, both timed
//              in this run (thread CPU time of the timed loop; MuJoCo's case runs first).

#include <benchmark/benchmark.h>

#include <time.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <numbers>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "io/scene.h"
#include "kinematics/kinematics.h"
#include "model/input.h"
#include "model/state.h"
#include "steppers/step.h"

#ifdef GRASPSIM_HAVE_MUJOCO
#include <mujoco/mujoco.h>
#endif

namespace {

using namespace graspsim;
namespace fs = std::filesystem;

const std::string kShared = std::string(GRASPSIM_SHARED_DIR) + "/data/";

// One grasp: its scene, its robot file and how the MuJoCo twin is put together.
struct Grasp {
  const char* name;
  const char* scene;      // under scenes/robots/
  const char* robot;      // under shared/data/
  const char* root;       // the robot file's top body, wrapped in `lift` for MuJoCo
  const char* reference;  // the body in whose frame slip is measured
  // Floor, stand and `object` as MJCF (<asset> entries first, then <worldbody> entries),
  // from the scene's parameters.
  std::string (*assets)(const std::map<std::string, double>&);
  std::string (*world)(const Scene&);
};

std::string fmt(const char* f, double a = 0, double b = 0, double c = 0, double d = 0, double e = 0,
                double g = 0) {
  char buf[512];
  std::snprintf(buf, sizeof buf, f, a, b, c, d, e, g);
  return buf;
}

std::string no_assets(const std::map<std::string, double>&) { return ""; }

// A scene's top-level geom as MJCF (planes and capsules: floors and stand posts).
std::string world_geom_xml(const Geom& g) {
  const Vec3 p = g.X_body_geom.p;
  const Quat q = g.X_body_geom.q;
  if (g.type == GeomType::Plane) return "<geom name=\"" + g.name + "\" type=\"plane\" size=\"1 1 0.1\"/>";
  if (g.type != GeomType::Capsule) throw std::runtime_error("bench: world geom '" + g.name + "' is not a plane or capsule");
  return "<geom name=\"" + g.name + "\" type=\"capsule\"" +
         fmt(" size=\"%.17g %.17g\" pos=\"%.17g %.17g %.17g\"", g.size[0], g.size[1], p.x(), p.y(), p.z()) +
         fmt(" quat=\"%.17g %.17g %.17g %.17g\"/>", q.w(), q.x(), q.y(), q.z());
}

std::string world_geoms_xml(const Scene& scene) {
  const Model& m = *scene.model;
  std::string x;
  for (const Geom& g : m.geoms)
    if (g.body == 0) x += world_geom_xml(g) + "\n    ";
  return x;
}

Vec3 body_start(const Scene& scene, const std::string& body) {
  KinematicsData kin;
  forward_kinematics(*scene.model, scene.model->q0, kin);
  return kin.X_WB[static_cast<size_t>(scene.model->body_id(body))].p;
}

// The object's free body, its geom from `geom` (MJCF), at its start position.
std::string object_xml(const Scene& scene, const std::string& geom) {
  const Vec3 o = body_start(scene, "object");
  return fmt("<body name=\"object\" pos=\"%.17g %.17g %.17g\"><freejoint/>", o.x(), o.y(), o.z()) + geom + "</body>";
}

std::string box_world(const Scene& scene) {
  const auto& p = scene.parameters;
  const double h = p.at("object_half");
  return world_geoms_xml(scene) +
         object_xml(scene, fmt("<geom name=\"object_geom\" type=\"box\" size=\"%.17g %.17g %.17g\" mass=\"%.17g\" "
                               "friction=\"%.17g\"/>",
                               h, h, h, p.at("object_mass"), p.at("mu")));
}

std::string sphere_world(const Scene& scene) {
  const auto& p = scene.parameters;
  return world_geoms_xml(scene) +
         object_xml(scene, fmt("<geom name=\"object_geom\" type=\"sphere\" size=\"%.17g\" mass=\"%.17g\" "
                               "friction=\"%.17g\"/>",
                               p.at("radius"), p.at("object_mass"), p.at("mu")));
}

// The bunny mesh at the scene's scale; MuJoCo, like the scene, collides it as its hull.
std::string bunny_assets(const std::map<std::string, double>& p) {
  const double s = p.at("bunny_scale");
  return "<mesh name=\"bunny\" file=\"" + kShared + "meshes/bunny_watertight_6976tri.obj\"" +
         fmt(" scale=\"%.17g %.17g %.17g\"/>", s, s, s);
}

std::string bunny_world(const Scene& scene) {
  const auto& p = scene.parameters;
  // the scene's euler_deg [90, 0, yaw]: Rz(yaw)·Rx(90°)
  const Quat q = Quat(Eigen::AngleAxisd(p.at("bunny_yaw_deg") * std::numbers::pi / 180.0, Vec3::UnitZ())) *
                 Quat(Eigen::AngleAxisd(std::numbers::pi / 2.0, Vec3::UnitX()));
  return world_geoms_xml(scene) +
         object_xml(scene, fmt("<geom name=\"object_geom\" type=\"mesh\" mesh=\"bunny\" quat=\"%.17g %.17g %.17g %.17g\" "
                               "mass=\"%.17g\" friction=\"%.17g\"/>",
                               q.w(), q.x(), q.y(), q.z(), p.at("object_mass"), p.at("mu")));
}

const Grasp kGrasps[] = {
    {"robotiq_box", "robotiq_box.yaml", "models/robotiq_2f85/2f85.xml", "base_mount", "right_pad", no_assets,
     box_world},
    {"shadow_sphere", "shadow_sphere.yaml", "models/shadow_hand/right_hand.xml", "rh_forearm", "rh_palm",
     no_assets, sphere_world},
    {"shadow_bunny", "shadow_bunny.yaml", "models/shadow_hand/right_hand.xml", "rh_forearm", "rh_palm",
     bunny_assets, bunny_world},
};

// The two time steps, as text so both engines parse the same double.
struct Dt {
  const char* label;
  const char* text;
};
const Dt kDts[] = {{"dt_1ms", "0.001"}, {"dt_16.7ms", "0.0166666666666667"}};

double thread_cpu_s() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

// steps/s of MuJoCo's last timed run, per grasp and dt label, for the ratio.
std::map<std::string, double>& mujoco_rate() {
  static std::map<std::string, double> r;
  return r;
}

struct Outcome {
  double slip_mm = 0.0, lift_mm = 0.0, gripper_mm = 0.0;
};

// Steps/s and the last episode's outcome, as both engines' cases report them.
void report(benchmark::State& st, const Outcome& out, int steps) {
  st.SetItemsProcessed(st.iterations() * steps);
  st.counters["slip_mm"] = out.slip_mm;
  st.counters["lift_mm"] = out.lift_mm;
  st.counters["gripper_mm"] = out.gripper_mm;
  st.counters["steps"] = steps;
}

// `options`: scene overrides (empty: the scene's own solver).
Scene load(const Grasp& g, const Dt& dt, const std::vector<std::string>& options = {}) {
  std::vector<std::string> sets{std::string("parameters.dt=") + dt.text};
  sets.insert(sets.end(), options.begin(), options.end());
  return load_scene(std::string(GRASPSIM_SOURCE_DIR) + "/scenes/robots/" + g.scene, sets);
}

// close + settle + lift (10 cm at lift_speed, ramped over lift_ramp_s)
double hold_start(const Scene& scene) {
  const auto& p = scene.parameters;
  return p.at("close_s") + p.at("settle_s") + 0.1 / p.at("lift_speed") + p.at("lift_ramp_s");
}

// ---- graspsim ---------------------------------------------------------------------------
struct GraspsimCase {
  Scene scene;
  int steps = 0, hold_step = 0;
  int object = 0, reference = 0, lift_q = 0;
};

GraspsimCase graspsim_case(const Grasp& g, const Dt& dt, const std::vector<std::string>& options) {
  GraspsimCase c;
  c.scene = load(g, dt, options);
  const Model& m = *c.scene.model;
  c.steps = static_cast<int>(std::lround(c.scene.duration / m.options.dt));
  c.hold_step = static_cast<int>(std::lround(hold_start(c.scene) / m.options.dt));
  c.object = m.body_id("object");
  c.reference = m.body_id(g.reference);
  c.lift_q = m.joints[static_cast<size_t>(m.joint_id("lift_slide"))].qadr;
  return c;
}

Vec3 graspsim_in(const Model& m, const State& s, int reference, int object, KinematicsData& kin) {
  forward_kinematics(m, s.q, kin);
  return kin.X_WB[static_cast<size_t>(reference)].inverse() * kin.X_WB[static_cast<size_t>(object)].p;
}

Outcome graspsim_episode(const GraspsimCase& c) {
  const Model& m = *c.scene.model;
  State s = make_state(m);
  Workspace ws;
  KinematicsData kin;
  const Vec3 object0 = graspsim_in(m, s, 0, c.object, kin);
  Vec3 start = Vec3::Zero();
  for (int i = 1; i <= c.steps; ++i) {
    step(m, s, ws);  // the scene's signals: commands and the lift's prescribed velocity
    if (i == c.hold_step) start = graspsim_in(m, s, c.reference, c.object, kin);
  }
  const Vec3 end = graspsim_in(m, s, c.reference, c.object, kin);
  const Vec3 object1 = kin.X_WB[static_cast<size_t>(c.object)].p;
  return {1e3 * (end - start).norm(), 1e3 * (object1.z() - object0.z()), 1e3 * (s.q[c.lift_q] - m.q0[c.lift_q])};
}

void run_graspsim(benchmark::State& st, const Grasp& g, const Dt& dt, const std::vector<std::string>& options) {
  GraspsimCase c;
  try {
    c = graspsim_case(g, dt, options);
  } catch (const std::exception& e) {
    st.SkipWithError(e.what());
    return;
  }
  Outcome out;
  double cpu = 0.0;
  try {
    for (auto _ : st) {
      const double t0 = thread_cpu_s();
      out = graspsim_episode(c);
      cpu += thread_cpu_s() - t0;
    }
  } catch (const std::exception& e) {
    st.SkipWithError(e.what());
    return;
  }
  report(st, out, c.steps);
  const auto mj = mujoco_rate().find(std::string(g.name) + dt.label);
  if (mj != mujoco_rate().end() && cpu > 0.0)
    st.counters["vs_mujoco"] = static_cast<double>(st.iterations()) * c.steps / cpu / mj->second;
}

// ---- MuJoCo -----------------------------------------------------------------------------
#ifdef GRASPSIM_HAVE_MUJOCO

std::string read_text(const std::string& path) {
  std::ifstream f(path);
  if (!f) throw std::runtime_error("cannot read " + path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

std::size_t find_or_throw(const std::string& s, const std::string& what, const std::string& file,
                          std::size_t from = 0) {
  const std::size_t i = s.find(what, from);
  if (i == std::string::npos) throw std::runtime_error(file + ": '" + what + "' not found");
  return i;
}

// The scene as MJCF, made from the robot file's text by insertions (the file in the
// repository's data is never edited):
//   - meshdir made absolute (it is relative to the file, and the rewritten file lives elsewhere);
//   - the time step added to the file's <option> (which keeps cone="elliptic" impratio="10");
//   - the robot's top body wrapped in `lift` (a slide joint along z, where the scene's lift
//     starts) and a body turned as the scene's robots: entry (quat 0 1 0 0);
//   - the scene's world geoms (floor, stand posts) and the free body `object`.
// The lift stands in for graspsim's kinematic body: its joint gets a huge armature (1e6 kg,
// so neither gravity nor contacts move it measurably within a step), and before every
// mj_step its qvel is set to the scene's prescribed velocity and its qpos to the integral
// of that profile (the same semi-implicit update graspsim makes). The object's friction is
// the scene's mu; the robot's geoms keep their own (MuJoCo takes the larger, or the higher
// priority's, as graspsim's robot materials do).
std::string mujoco_xml(const Grasp& g, const Scene& scene, const char* dt) {
  const std::string path = kShared + g.robot;
  std::string x = read_text(path);
  const std::string dir = fs::absolute(fs::path(path)).parent_path().string();

  const std::string md = "meshdir=\"";
  const std::size_t a = find_or_throw(x, md, path) + md.size();
  const std::size_t b = find_or_throw(x, "\"", path, a);
  const std::string meshdir = x.substr(a, b - a);
  if (!fs::path(meshdir).is_absolute()) x.replace(a, b - a, dir + "/" + meshdir);

  x.insert(find_or_throw(x, "<option", path) + 7, std::string(" timestep=\"") + dt + "\"");

  const Vec3 lift = body_start(scene, "lift");
  x.insert(find_or_throw(x, std::string("<body name=\"") + g.root + "\"", path),
           fmt("<body name=\"lift\" pos=\"%.17g %.17g %.17g\">"
               "<joint name=\"lift_slide\" type=\"slide\" axis=\"0 0 1\" armature=\"1e6\"/>"
               "<inertial mass=\"1\" pos=\"0 0 0\" diaginertia=\"0.01 0.01 0.01\"/>"
               "<body name=\"placed\" quat=\"0 1 0 0\">\n    ",
               lift.x(), lift.y(), lift.z()));

  const std::string extra_assets = g.assets(scene.parameters);
  if (!extra_assets.empty()) x.insert(find_or_throw(x, "</asset>", path), extra_assets);

  const std::size_t wb = find_or_throw(x, "</worldbody>", path);
  const std::size_t last_close = x.rfind("</body>", wb);
  if (last_close == std::string::npos || x.find_first_not_of(" \t\r\n", last_close + 7) != wb)
    throw std::runtime_error(path + ": " + g.root + " is not the last body of <worldbody>");
  x.insert(wb, "</body></body>\n    " + g.world(scene) + "\n  ");
  return x;
}

// Loads the MJCF from a fresh temporary directory, removed again before returning.
mjModel* load_mujoco(const std::string& xml) {
  std::string tmpl = (fs::temp_directory_path() / "bench_robots_XXXXXX").string();
  if (!mkdtemp(tmpl.data())) throw std::runtime_error("mkdtemp failed");
  const fs::path dir = tmpl;
  const std::string file = (dir / "scene.xml").string();
  {
    std::ofstream f(file);
    f << xml;
  }
  char err[1000] = "";
  mjModel* m = mj_loadXML(file.c_str(), nullptr, err, sizeof err);
  std::error_code ec;
  fs::remove_all(dir, ec);
  if (!m) throw std::runtime_error(std::string("MuJoCo: ") + err);
  return m;
}

struct MujocoCase {
  Scene scene;  // its signals drive both engines
  mjModel* m = nullptr;
  mjData* d = nullptr;
  int steps = 0, hold_step = 0;
  int lift_q = 0, lift_v = 0, object = 0, reference = 0;
  std::vector<int> actuator;  // MuJoCo actuator of each graspsim actuator
  MujocoCase() = default;
  MujocoCase(const MujocoCase&) = delete;
  MujocoCase& operator=(const MujocoCase&) = delete;
  ~MujocoCase() {
    if (d) mj_deleteData(d);
    if (m) mj_deleteModel(m);
  }
};

std::unique_ptr<MujocoCase> mujoco_case(const Grasp& g, const Dt& dt) {
  auto c = std::make_unique<MujocoCase>();
  c->scene = load(g, dt);
  const Model& gm = *c->scene.model;
  c->m = load_mujoco(mujoco_xml(g, c->scene, dt.text));
  c->d = mj_makeData(c->m);
  const mjModel* m = c->m;
  const int lift = mj_name2id(m, mjOBJ_JOINT, "lift_slide");
  c->lift_q = m->jnt_qposadr[lift];
  c->lift_v = m->jnt_dofadr[lift];
  c->object = mj_name2id(m, mjOBJ_BODY, "object");
  c->reference = mj_name2id(m, mjOBJ_BODY, g.reference);
  if (lift < 0 || c->object < 0 || c->reference < 0) throw std::runtime_error("MuJoCo: a name is missing");
  for (const Actuator& a : gm.actuators) {
    c->actuator.push_back(mj_name2id(m, mjOBJ_ACTUATOR, a.name.c_str()));
    if (c->actuator.back() < 0) throw std::runtime_error("MuJoCo: no actuator '" + a.name + "'");
  }
  if (gm.kinematic_dofs.size() != 1) throw std::runtime_error("bench: the scene must have one kinematic dof (lift)");
  if (m->opt.timestep != gm.options.dt) throw std::runtime_error("MuJoCo and graspsim time steps differ");
  c->steps = static_cast<int>(std::lround(c->scene.duration / m->opt.timestep));
  c->hold_step = static_cast<int>(std::lround(hold_start(c->scene) / m->opt.timestep));
  return c;
}

Vec3 mujoco_in(const MujocoCase& c) {
  mj_kinematics(c.m, c.d);  // after mj_step, xpos is still that of the step's start
  const mjtNum* R = c.d->xmat + 9 * c.reference;  // row-major, body to world
  const mjtNum* pp = c.d->xpos + 3 * c.reference;
  const mjtNum* po = c.d->xpos + 3 * c.object;
  const Vec3 d(po[0] - pp[0], po[1] - pp[1], po[2] - pp[2]);
  return {R[0] * d[0] + R[3] * d[1] + R[6] * d[2], R[1] * d[0] + R[4] * d[1] + R[7] * d[2],
          R[2] * d[0] + R[5] * d[1] + R[8] * d[2]};
}

Outcome mujoco_episode(MujocoCase& c) {
  const Model& gm = *c.scene.model;
  const double h = c.m->opt.timestep;
  mjData* d = c.d;
  mj_resetData(c.m, d);
  mj_kinematics(c.m, d);
  const double z0 = d->xpos[3 * c.object + 2];
  Input in = make_input(gm);
  double lift = 0.0;  // the slide's position, integrated as graspsim's kinematic joint is
  Vec3 start = Vec3::Zero();
  for (int i = 1; i <= c.steps; ++i) {
    sample_signals(gm, d->time, h, in);  // what graspsim's step takes
    for (size_t a = 0; a < c.actuator.size(); ++a) d->ctrl[c.actuator[a]] = in.ctrl[static_cast<Eigen::Index>(a)];
    const double v = in.kinematic_v[0];
    d->qvel[c.lift_v] = v;
    d->qpos[c.lift_q] = lift;
    mj_step(c.m, d);
    lift += v * h;
    if (i == c.hold_step) start = mujoco_in(c);
  }
  d->qpos[c.lift_q] = lift;
  const Vec3 end = mujoco_in(c);
  return {1e3 * (end - start).norm(), 1e3 * (d->xpos[3 * c.object + 2] - z0), 1e3 * lift};
}

void run_mujoco(benchmark::State& st, const Grasp& g, const Dt& dt) {
  std::unique_ptr<MujocoCase> c;
  try {
    c = mujoco_case(g, dt);
  } catch (const std::exception& e) {
    st.SkipWithError(e.what());
    return;
  }
  Outcome out;
  double cpu = 0.0;
  int warnings = 0;
  for (auto _ : st) {
    const double t0 = thread_cpu_s();
    out = mujoco_episode(*c);
    cpu += thread_cpu_s() - t0;
    for (int w = 0; w < mjNWARNING; ++w) warnings += c->d->warning[w].number;
  }
  report(st, out, c->steps);
  st.counters["warnings"] = warnings;
  if (cpu > 0.0) mujoco_rate()[std::string(g.name) + dt.label] = static_cast<double>(st.iterations()) * c->steps / cpu;
}

#endif

void register_all() {
  for (const Grasp& g : kGrasps)
    for (const Dt& dt : kDts) {
      const std::string label = std::string(g.name) + "/%s/" + dt.label;
#ifdef GRASPSIM_HAVE_MUJOCO
      benchmark::RegisterBenchmark((std::string(g.name) + "/mujoco/" + dt.label).c_str(),
                                   [&g, &dt](benchmark::State& st) { run_mujoco(st, g, dt); })
          ->Unit(benchmark::kMillisecond);
#endif
      benchmark::RegisterBenchmark((std::string(g.name) + "/graspsim/" + dt.label).c_str(),
                                   [&g, &dt](benchmark::State& st) { run_graspsim(st, g, dt, {}); })
          ->Unit(benchmark::kMillisecond);
      // The scene's iterations (64 sweeps over all rows), no direct normal solve.
      benchmark::RegisterBenchmark((std::string(g.name) + "/graspsim_iterative/" + dt.label).c_str(),
                                   [&g, &dt](benchmark::State& st) { run_graspsim(st, g, dt, {"options.solver=iterative"}); })
          ->Unit(benchmark::kMillisecond);
      // The same, the sweeps stopping once the rows' velocities move by at most 1 µm/s a
      // sweep (options.tolerance).
      benchmark::RegisterBenchmark((std::string(g.name) + "/graspsim_iterative_tolerance/" + dt.label).c_str(),
                                   [&g, &dt](benchmark::State& st) {
                                     run_graspsim(st, g, dt, {"options.solver=iterative", "options.tolerance=1e-6"});
                                   })
          ->Unit(benchmark::kMillisecond);
    }
}

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  register_all();
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
