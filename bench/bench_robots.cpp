// A robot grasp in graspsim and in MuJoCo 2.2.2 (issue 11): the Robotiq 2F-85 (Menagerie
// MJCF, unedited) closes on a 5 cm, 0.1 kg box on a floor (ctrl 0 → 255 over 1 s), settles
// 0.5 s, lifts it 10 cm at 0.1 m/s and holds it 5 s; 7.5 s in all.
//   graspsim  scenes/robots/robotiq_box.yaml (SPOOK, the scene's solver), dt from
//             "parameters.dt=...";
//   MuJoCo    the same 2f85.xml text, rewritten at run time into a temporary directory (see
//             mujoco_xml below), at the file's own solver settings (elliptic cone,
//             impratio 10, Newton) and the same dt.
// Each iteration runs the whole episode from the initial state, so items_per_second is
// steps/s over the episode (close, lift and hold alike). Counters, from the last episode:
//   slip_mm    how far the object moved in the frame of the body right_pad during the hold
//              (its position in that frame at t = 2.5 s against at the end);
//   lift_mm    object z − half size at the end (100 if it followed the gripper up);
//   gripper_mm how far the lift slider itself rose (the step signal's edges fall on a step
//              boundary only up to rounding of the accumulated time);
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
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "io/scene.h"
#include "kinematics/kinematics.h"
#include "model/state.h"
#include "steppers/step.h"

#ifdef GRASPSIM_HAVE_MUJOCO
#include <mujoco/mujoco.h>
#endif

namespace {

using namespace graspsim;
namespace fs = std::filesystem;

const std::string kScene = std::string(GRASPSIM_SOURCE_DIR) + "/scenes/robots/robotiq_box.yaml";
const std::string kGripper = std::string(GRASPSIM_SHARED_DIR) + "/data/models/robotiq_2f85/2f85.xml";
constexpr double kPinchBelowLift = 0.1558;  // base_mount 0.007 + base 0.0038 + pinch site 0.145
constexpr double kHoldStart = 2.5;          // close 1 s + settle 0.5 s + lift 1 s (checked below)

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

// steps/s of each engine's last timed run, per dt label, for the ratio.
std::map<std::string, double>& mujoco_rate() {
  static std::map<std::string, double> r;
  return r;
}

struct Outcome {
  double slip_mm = 0.0, lift_mm = 0.0, gripper_mm = 0.0;
};

// ---- graspsim ---------------------------------------------------------------------------
struct GraspsimCase {
  Scene scene;
  int steps = 0, hold_step = 0;
  int object = 0, pad = 0, lift_q = 0;
  double object_half = 0.0;
};

GraspsimCase graspsim_case(const Dt& dt) {
  GraspsimCase c;
  c.scene = load_scene(kScene, {std::string("parameters.dt=") + dt.text});
  const Model& m = *c.scene.model;
  const auto& p = c.scene.parameters;
  if (std::abs(p.at("close_s") + p.at("settle_s") + 0.1 / p.at("lift_speed") - kHoldStart) > 1e-12)
    throw std::runtime_error("robotiq_box.yaml no longer starts its hold at 2.5 s");
  c.steps = static_cast<int>(std::lround(c.scene.duration / m.options.dt));
  c.hold_step = static_cast<int>(std::lround(kHoldStart / m.options.dt));
  c.object = m.body_id("object");
  c.pad = m.body_id("right_pad");
  c.lift_q = m.joints[static_cast<size_t>(m.joint_id("lift_slide"))].qadr;
  c.object_half = p.at("object_half");
  return c;
}

Vec3 graspsim_in_pad(const Model& m, const State& s, int pad, int object, KinematicsData& kin) {
  forward_kinematics(m, s.q, kin);
  return kin.X_WB[static_cast<size_t>(pad)].inverse() * kin.X_WB[static_cast<size_t>(object)].p;
}

Outcome graspsim_episode(const GraspsimCase& c) {
  const Model& m = *c.scene.model;
  State s = make_state(m);
  Workspace ws;
  KinematicsData kin;
  Vec3 start = Vec3::Zero();
  for (int i = 1; i <= c.steps; ++i) {
    step(m, s, ws);  // the scene's signals: finger command and the lift's prescribed velocity
    if (i == c.hold_step) start = graspsim_in_pad(m, s, c.pad, c.object, kin);
  }
  const Vec3 end = graspsim_in_pad(m, s, c.pad, c.object, kin);
  return {1e3 * (end - start).norm(), 1e3 * (kin.X_WB[static_cast<size_t>(c.object)].p.z() - c.object_half),
          1e3 * (s.q[c.lift_q] - m.q0[c.lift_q])};
}

void run_graspsim(benchmark::State& st, const Dt& dt) {
  GraspsimCase c;
  try {
    c = graspsim_case(dt);
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
  st.SetItemsProcessed(st.iterations() * c.steps);
  st.counters["slip_mm"] = out.slip_mm;
  st.counters["lift_mm"] = out.lift_mm;
  st.counters["gripper_mm"] = out.gripper_mm;
  st.counters["steps"] = c.steps;
  const auto mj = mujoco_rate().find(dt.label);
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

std::size_t find_or_throw(const std::string& s, const std::string& what, std::size_t from = 0) {
  const std::size_t i = s.find(what, from);
  if (i == std::string::npos) throw std::runtime_error("2f85.xml: '" + what + "' not found");
  return i;
}

// The scene of robotiq_box.yaml as MJCF, made from 2f85.xml's text by four insertions (the
// file in the repository's data is never edited):
//   - meshdir made absolute (it is relative to the file, and the rewritten file lives elsewhere);
//   - the time step added to the file's <option> (which keeps cone="elliptic" impratio="10");
//   - the gripper's top body base_mount wrapped in `lift` (a slide joint along z, at
//     object_half + 0.1558 so the pinch site is at the box's centre) and a body turned fingers
//     down (quat 0 1 0 0, as the scene's robots: entry);
//   - a floor plane and the free box `object`.
// The lift stands in for graspsim's kinematic body: its joint gets a huge armature (1e6 kg,
// so neither gravity nor contacts move it measurably within a step), and before every
// mj_step its qvel is set to the scene's prescribed velocity at d->time and its qpos to the
// integral of that profile (the same semi-implicit update graspsim makes). Object and floor
// friction are the scene's mu (0.7); the pads keep their own (0.7 / 0.6, priority 1).
std::string mujoco_xml(const std::map<std::string, double>& p, const char* dt) {
  std::string x = read_text(kGripper);
  const std::string dir = fs::absolute(fs::path(kGripper)).parent_path().string();

  const std::string md = "meshdir=\"";
  const std::size_t a = find_or_throw(x, md) + md.size();
  const std::size_t b = find_or_throw(x, "\"", a);
  const std::string meshdir = x.substr(a, b - a);
  if (!fs::path(meshdir).is_absolute()) x.replace(a, b - a, dir + "/" + meshdir);

  x.insert(find_or_throw(x, "<option") + 7, std::string(" timestep=\"") + dt + "\"");

  const double half = p.at("object_half"), mass = p.at("object_mass"), mu = p.at("mu");
  char buf[600];
  std::snprintf(buf, sizeof buf,
                "<body name=\"lift\" pos=\"0 0 %.17g\">"
                "<joint name=\"lift_slide\" type=\"slide\" axis=\"0 0 1\" armature=\"1e6\"/>"
                "<inertial mass=\"1\" pos=\"0 0 0\" diaginertia=\"0.01 0.01 0.01\"/>"
                "<body name=\"fingers_down\" quat=\"0 1 0 0\">\n    ",
                half + kPinchBelowLift);
  x.insert(find_or_throw(x, "<body name=\"base_mount\""), buf);

  const std::size_t wb = find_or_throw(x, "</worldbody>");
  const std::size_t last_close = x.rfind("</body>", wb);
  if (last_close == std::string::npos || x.find_first_not_of(" \t\r\n", last_close + 7) != wb)
    throw std::runtime_error("2f85.xml: base_mount is not the last body of <worldbody>");
  std::snprintf(buf, sizeof buf,
                "</body></body>\n"
                "    <geom name=\"floor\" type=\"plane\" size=\"1 1 0.1\" friction=\"%.17g\"/>\n"
                "    <body name=\"object\" pos=\"0 0 %.17g\"><freejoint/>"
                "<geom name=\"object_geom\" type=\"box\" size=\"%.17g %.17g %.17g\" mass=\"%.17g\" friction=\"%.17g\"/>"
                "</body>\n  ",
                mu, half, half, half, half, mass, mu);
  x.insert(wb, buf);
  return x;
}

// Loads the MJCF from a fresh temporary directory, removed again before returning.
mjModel* load_mujoco(const std::string& xml) {
  std::string tmpl = (fs::temp_directory_path() / "bench_robots_XXXXXX").string();
  if (!mkdtemp(tmpl.data())) throw std::runtime_error("mkdtemp failed");
  const fs::path dir = tmpl;
  const std::string file = (dir / "robotiq_box.xml").string();
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
  mjModel* m = nullptr;
  mjData* d = nullptr;
  int steps = 0, hold_step = 0;
  int lift_q = 0, lift_v = 0, ctrl = 0, object = 0, pad = 0;
  double close_s = 0, lift_start = 0, lift_end = 0, lift_speed = 0, object_half = 0;
  MujocoCase() = default;
  MujocoCase(const MujocoCase&) = delete;
  MujocoCase& operator=(const MujocoCase&) = delete;
  ~MujocoCase() {
    if (d) mj_deleteData(d);
    if (m) mj_deleteModel(m);
  }
};

// Sizes and times from the graspsim scene's own parameters, so both sides are one scene.
std::unique_ptr<MujocoCase> mujoco_case(const Dt& dt) {
  const Scene scene = load_scene(kScene, {std::string("parameters.dt=") + dt.text});
  const auto& p = scene.parameters;
  auto c = std::make_unique<MujocoCase>();
  c->m = load_mujoco(mujoco_xml(p, dt.text));
  c->d = mj_makeData(c->m);
  const mjModel* m = c->m;
  const int lift = mj_name2id(m, mjOBJ_JOINT, "lift_slide");
  c->lift_q = m->jnt_qposadr[lift];
  c->lift_v = m->jnt_dofadr[lift];
  c->ctrl = mj_name2id(m, mjOBJ_ACTUATOR, "fingers_actuator");
  c->object = mj_name2id(m, mjOBJ_BODY, "object");
  c->pad = mj_name2id(m, mjOBJ_BODY, "right_pad");
  if (lift < 0 || c->ctrl < 0 || c->object < 0 || c->pad < 0) throw std::runtime_error("MuJoCo: a name is missing");
  if (m->opt.timestep != scene.model->options.dt) throw std::runtime_error("MuJoCo and graspsim time steps differ");
  c->steps = static_cast<int>(std::lround(scene.duration / m->opt.timestep));
  c->hold_step = static_cast<int>(std::lround(kHoldStart / m->opt.timestep));
  c->close_s = p.at("close_s");
  c->lift_speed = p.at("lift_speed");
  c->lift_start = p.at("close_s") + p.at("settle_s");
  c->lift_end = c->lift_start + 0.1 / c->lift_speed;
  c->object_half = p.at("object_half");
  return c;
}

Vec3 mujoco_in_pad(const MujocoCase& c) {
  mj_kinematics(c.m, c.d);  // after mj_step, xpos is still that of the step's start
  const mjtNum* R = c.d->xmat + 9 * c.pad;  // row-major, body to world
  const mjtNum* pp = c.d->xpos + 3 * c.pad;
  const mjtNum* po = c.d->xpos + 3 * c.object;
  const Vec3 d(po[0] - pp[0], po[1] - pp[1], po[2] - pp[2]);
  return {R[0] * d[0] + R[3] * d[1] + R[6] * d[2], R[1] * d[0] + R[4] * d[1] + R[7] * d[2],
          R[2] * d[0] + R[5] * d[1] + R[8] * d[2]};
}

Outcome mujoco_episode(MujocoCase& c) {
  mjData* d = c.d;
  mj_resetData(c.m, d);
  double lift = 0.0;  // the slide's position, integrated as graspsim's kinematic joint is
  Vec3 start = Vec3::Zero();
  for (int i = 1; i <= c.steps; ++i) {
    const double t = d->time;  // the signals are sampled at the step's start, as graspsim does
    d->ctrl[c.ctrl] = 255.0 * std::min(1.0, t / c.close_s);
    const double v = (t >= c.lift_start && t < c.lift_end) ? c.lift_speed : 0.0;  // step signal
    d->qvel[c.lift_v] = v;
    d->qpos[c.lift_q] = lift;
    mj_step(c.m, d);
    lift += v * c.m->opt.timestep;
    if (i == c.hold_step) start = mujoco_in_pad(c);
  }
  d->qpos[c.lift_q] = lift;
  const Vec3 end = mujoco_in_pad(c);
  return {1e3 * (end - start).norm(), 1e3 * (d->xpos[3 * c.object + 2] - c.object_half), 1e3 * lift};
}

void run_mujoco(benchmark::State& st, const Dt& dt) {
  std::unique_ptr<MujocoCase> c;
  try {
    c = mujoco_case(dt);
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
  st.SetItemsProcessed(st.iterations() * c->steps);
  st.counters["slip_mm"] = out.slip_mm;
  st.counters["lift_mm"] = out.lift_mm;
  st.counters["gripper_mm"] = out.gripper_mm;
  st.counters["steps"] = c->steps;
  st.counters["warnings"] = warnings;
  if (cpu > 0.0) mujoco_rate()[dt.label] = static_cast<double>(st.iterations()) * c->steps / cpu;
}

#endif

void register_all() {
  for (const Dt& dt : kDts) {
    const std::string label = dt.label;
#ifdef GRASPSIM_HAVE_MUJOCO
    benchmark::RegisterBenchmark(("robotiq_box/mujoco/" + label).c_str(),
                                 [&dt](benchmark::State& st) { run_mujoco(st, dt); })
        ->Unit(benchmark::kMillisecond);
#endif
    benchmark::RegisterBenchmark(("robotiq_box/graspsim/" + label).c_str(),
                                 [&dt](benchmark::State& st) { run_graspsim(st, dt); })
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
