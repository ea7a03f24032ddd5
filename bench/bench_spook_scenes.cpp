// Steps per second of whole scenes with the SPOOK stepper, against peer engines stepping
// the same scenes (issue "SPOOK constraint stepper", Benchmarks):
//   push   scenes/validation/push.yaml at dt = 1 ms, and MuJoCo's equivalent;
//   hold   scenes/validation/grasp_hold.yaml at dt = 1 ms, and MuJoCo's equivalent (the
//          object's vertical slip over the 10 s hold is printed before the timings);
//   pile   columns of 10 boxes of 0.1 m on a plane (100 and 1000 boxes) at dt = 2 ms, and
//          MuJoCo (100) and Bullet (100, 1000).
// As MuJoCo's step benchmark does: a warm-up rollout first (so contacts and warm starts
// exist), then timed steps from the warmed state. Each case is prepared once, on its first
// run, and reused by Google Benchmark's later runs of it. items_per_second = steps/s.

#include <benchmark/benchmark.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "io/scene.h"
#include "model/builder.h"
#include "model/state.h"
#include "steppers/step.h"

#ifdef GRASPSIM_HAVE_MUJOCO
#include <mujoco/mujoco.h>
#endif
#ifdef GRASPSIM_HAVE_BULLET
#include <btBulletDynamicsCommon.h>
#endif

namespace {

using namespace graspsim;
using Clock = std::chrono::steady_clock;

const char* const kSolvers[] = {"direct", "iterative", "split", "direct_iterative"};

// Direct takes no cone (the scene check rejects it): it gets box friction, the others the cone.
const char* friction_for(const std::string& solver) { return solver == "direct" ? "box" : "cone"; }

std::string scene_path(const char* name) {
  return std::string(GRASPSIM_SOURCE_DIR) + "/scenes/validation/" + name + ".yaml";
}

std::shared_ptr<const Model> load_validation(const char* name, const std::string& solver) {
  // (sleep off: the peers here do not sleep)
  return load_scene(scene_path(name), {"options.dt=0.001", "options.sleep=false", "parameters.solver=" + solver,
                                       std::string("parameters.friction_model=") + friction_for(solver)})
      .model;
}

// ---- piles ----------------------------------------------------------------------------
constexpr double kBox = 0.1;          // edge (m)
constexpr double kPileGap = 5e-4;     // between boxes of a column at the start, so they drop onto each other
constexpr double kColumnPitch = 0.2;  // columns stand a box apart: one island per column
constexpr int kColumnHeight = 10;
constexpr double kPileMu = 0.5;

struct PileBox {
  Vec3 p;
};

std::vector<PileBox> pile_layout(int boxes) {
  const int columns = boxes / kColumnHeight;
  const int side = static_cast<int>(std::ceil(std::sqrt(static_cast<double>(columns))));
  std::vector<PileBox> out;
  for (int c = 0; c < columns; ++c)
    for (int k = 0; k < kColumnHeight; ++k)
      out.push_back({Vec3(kColumnPitch * (c % side), kColumnPitch * (c / side), kBox / 2 + k * (kBox + kPileGap))});
  return out;
}

std::shared_ptr<const Model> graspsim_pile(int boxes, const std::string& solver, bool sleep = false,
                                           int relax_sweeps = 0, int threads = 1) {
  ModelBuilder mb;
  GeomDef ground;
  ground.name = "ground";
  ground.type = GeomType::Plane;
  mb.add_geom(ground);
  const auto layout = pile_layout(boxes);
  for (size_t i = 0; i < layout.size(); ++i) {
    BodyDef b;
    b.name = "box" + std::to_string(i);
    b.pose.p = layout[i].p;
    b.joint.type = JointType::Free;
    mb.add_body(b);
    GeomDef g;
    g.name = b.name;
    g.body = b.name;
    g.type = GeomType::Box;
    g.size = Vec3::Constant(kBox / 2);  // density 1000: 1 kg
    mb.add_geom(g);
  }
  Options& o = mb.options();
  o.stepper = StepperType::Spook;
  o.dt = 2e-3;
  o.spook.sleep.enabled = sleep;  // off against the peers (Bullet's is disabled, MuJoCo 2.2 has none)
  o.spook.relax_sweeps = relax_sweeps;
  o.spook.threads = threads;
  o.spook.solver = solver == "direct"        ? SolverType::Direct
                   : solver == "iterative"   ? SolverType::Iterative
                   : solver == "split"       ? SolverType::Split
                                             : SolverType::DirectIterative;
  mb.default_contact().friction = kPileMu;
  mb.default_contact().spook.friction_model = solver == "direct" ? FrictionModel::Box : FrictionModel::Cone;
  return mb.build();
}

// ---- graspsim cases -------------------------------------------------------------------
// A model and its state after the warm-up, made on first use.
struct GraspsimCase {
  std::function<std::shared_ptr<const Model>()> make;
  int warmup_steps = 0;
  int reset_every = 0;                // 0: never restore the warm state (a resting pile stays resting)
  double max_step_s = 2.0;            // skip the case if one step takes longer
  std::shared_ptr<const Model> model;
  std::optional<State> warm;
  std::string skip;                   // why the case is skipped, once known
};

void prepare(GraspsimCase& c) {
  if (c.model) return;
  c.model = c.make();
  State s = make_state(*c.model);
  Workspace ws;
  const auto t0 = Clock::now();
  step(*c.model, s, ws);
  const double first = std::chrono::duration<double>(Clock::now() - t0).count();
  if (first > c.max_step_s) {
    char buf[160];
    std::snprintf(buf, sizeof buf, "one step took %.1f s (> %.0f s): skipped", first, c.max_step_s);
    c.skip = buf;
    std::printf("%s\n", buf);
    return;
  }
  for (int i = 1; i < c.warmup_steps; ++i) step(*c.model, s, ws);
  c.warm = std::move(s);
}

void run_graspsim(benchmark::State& st, GraspsimCase& c) {
  prepare(c);
  if (!c.skip.empty()) {
    st.SkipWithError(c.skip.c_str());
    return;
  }
  State s = *c.warm;
  Workspace ws;
  StepResult r;
  int n = 0;
  for (auto _ : st) {
    step(*c.model, s, ws, &r);
    if (c.reset_every && ++n % c.reset_every == 0) s = *c.warm;  // stay in the scene's regime
  }
  st.SetItemsProcessed(st.iterations());
  st.counters["contacts"] = static_cast<double>(r.contacts.size());
  st.counters["solver_iters"] = r.solver_iterations;
  st.SetLabel(r.solver);
}

// The object's drop during the hold (µm): over the whole 10 s, and over its last 9 s (creep).
struct Slip {
  double total_um, after_1s_um;
};

Slip graspsim_hold_slip(const std::string& solver) {
  const Scene scene = load_scene(scene_path("grasp_hold"), {"parameters.solver=" + solver,
                                                           std::string("parameters.friction_model=") + friction_for(solver)});
  const Model& m = *scene.model;
  const int z = m.joints[static_cast<size_t>(m.bodies[static_cast<size_t>(m.body_id("object"))].joint)].qadr + 2;
  State s = make_state(m);
  Workspace ws;
  const double z0 = s.q[z];
  const int steps = static_cast<int>(std::lround(scene.duration / m.options.dt));
  double z1 = z0;
  for (int i = 0; i < steps; ++i) {
    step(m, s, ws);
    if (i + 1 == static_cast<int>(std::lround(1.0 / m.options.dt))) z1 = s.q[z];
  }
  return {1e6 * (z0 - s.q[z]), 1e6 * (z1 - s.q[z])};
}

// ---- MuJoCo ---------------------------------------------------------------------------
#ifdef GRASPSIM_HAVE_MUJOCO

// The push: the box on a plane (μ 0.16 box–plane, 0.25 box–pusher: MuJoCo takes the larger
// geom friction), the pusher a cylinder on a slide joint along x driven at 10 mm/s by a stiff
// velocity servo (10 kg, kv 1e4: kv·dt/m = 1, the servo's error under the ~1.3 N load is
// 0.13 mm/s). Pyramidal cone, Newton solver: MuJoCo's defaults.
const char* const kMjPush = R"(
<mujoco>
  <option timestep='0.001'/>
  <worldbody>
    <geom name='ground' type='plane' size='1 1 0.1' friction='0.16'/>
    <body name='box' pos='0 0 0.0065'>
      <freejoint/>
      <geom type='box' size='0.045 0.045 0.0065' mass='0.837' friction='0.16'/>
    </body>
    <body name='pusher' pos='-0.04975 0 0.027'>
      <joint name='px' type='slide' axis='1 0 0'/>
      <geom type='cylinder' size='0.00475 0.025' mass='10' friction='0.25'/>
    </body>
  </worldbody>
  <actuator><velocity joint='px' kv='10000'/></actuator>
</mujoco>)";

// The hold: as grasp_hold.yaml, at MuJoCo's default solver settings.
const char* const kMjHold = R"(
<mujoco>
  <option timestep='0.001'/>
  <worldbody>
    <body name='object' pos='0 0 1'>
      <freejoint/>
      <geom type='box' size='0.025 0.025 0.025' mass='0.2' friction='0.5'/>
    </body>
    <body name='finger_left' pos='-0.035 0 1'>
      <joint name='left' type='slide' axis='1 0 0'/>
      <geom type='box' size='0.01 0.015 0.015' mass='0.1' friction='0.5'/>
    </body>
    <body name='finger_right' pos='0.035 0 1'>
      <joint name='right' type='slide' axis='1 0 0'/>
      <geom type='box' size='0.01 0.015 0.015' mass='0.1' friction='0.5'/>
    </body>
  </worldbody>
  <contact><exclude body1='finger_left' body2='finger_right'/></contact>
  <actuator><motor joint='left'/><motor joint='right'/></actuator>
</mujoco>)";

std::string mj_pile(int boxes) {
  // The contact buffers are sized for 4 points per box face pair (MuJoCo 2.2.2 preallocates them).
  std::string xml = "<mujoco><option timestep='0.002'/><size nconmax='" + std::to_string(8 * boxes) + "' njmax='" +
                    std::to_string(40 * boxes) + "'/><worldbody>"
                    "<geom type='plane' size='50 50 0.1' friction='0.5'/>";
  char buf[200];
  for (const PileBox& b : pile_layout(boxes)) {
    std::snprintf(buf, sizeof buf,
                  "<body pos='%.6f %.6f %.6f'><freejoint/><geom type='box' size='%g %g %g' mass='1' friction='0.5'/></body>",
                  b.p.x(), b.p.y(), b.p.z(), kBox / 2, kBox / 2, kBox / 2);
    xml += buf;
  }
  return xml + "</worldbody></mujoco>";
}

struct MuJoCo {
  mjModel* m = nullptr;
  mjData* d = nullptr;
  mjData* warm = nullptr;
  explicit MuJoCo(const std::string& xml) {
    auto vfs = std::make_unique<mjVFS>();
    mj_defaultVFS(vfs.get());
    mj_makeEmptyFileVFS(vfs.get(), "scene.xml", static_cast<int>(xml.size()));
    std::memcpy(vfs->filedata[mj_findFileVFS(vfs.get(), "scene.xml")], xml.data(), xml.size());
    char err[1000] = "";
    m = mj_loadXML("scene.xml", vfs.get(), err, sizeof err);
    mj_deleteVFS(vfs.get());
    if (!m) throw std::runtime_error(std::string("MuJoCo: ") + err);
    d = mj_makeData(m);
  }
  MuJoCo(const MuJoCo&) = delete;
  MuJoCo& operator=(const MuJoCo&) = delete;
  ~MuJoCo() {
    if (warm) mj_deleteData(warm);
    mj_deleteData(d);
    mj_deleteModel(m);
  }
  void warm_up(int steps) {
    for (int i = 0; i < steps; ++i) mj_step(m, d);
    warm = mj_copyData(nullptr, m, d);
  }
  void restore() { mj_copyData(d, m, warm); }
  int body_z(const char* body) const {
    return m->jnt_qposadr[m->body_jntadr[mj_name2id(m, mjOBJ_BODY, body)]] + 2;
  }
};

std::unique_ptr<MuJoCo> mj_push() {
  auto mj = std::make_unique<MuJoCo>(kMjPush);
  mj->d->ctrl[0] = 0.01;
  return mj;
}

std::unique_ptr<MuJoCo> mj_hold() {
  auto mj = std::make_unique<MuJoCo>(kMjHold);
  mj->d->ctrl[0] = 20;
  mj->d->ctrl[1] = -20;
  return mj;
}

void run_mujoco(benchmark::State& st, MuJoCo& mj, int reset_every) {
  int n = 0;
  mj.restore();
  for (auto _ : st) {
    mj_step(mj.m, mj.d);
    if (reset_every && ++n % reset_every == 0) mj.restore();
  }
  st.SetItemsProcessed(st.iterations());
  st.counters["contacts"] = mj.d->ncon;
  st.counters["solver_iters"] = mj.d->solver_iter;
  for (int w = 0; w < mjNWARNING; ++w)
    if (mj.d->warning[w].number > 0) st.SkipWithError("MuJoCo raised a warning during the run");
}

Slip mujoco_hold_slip() {
  auto mj = mj_hold();
  const int z = mj->body_z("object");
  const double z0 = mj->d->qpos[z];
  double z1 = z0;
  for (int i = 0; i < 10000; ++i) {
    mj_step(mj->m, mj->d);
    if (i + 1 == 1000) z1 = mj->d->qpos[z];
  }
  return {1e6 * (z0 - mj->d->qpos[z]), 1e6 * (z1 - mj->d->qpos[z])};
}

#endif

// ---- Bullet ---------------------------------------------------------------------------
#ifdef GRASPSIM_HAVE_BULLET

// The pile in a btDiscreteDynamicsWorld with the sequential-impulse solver at its defaults
// (10 iterations). Bullet multiplies the two bodies' frictions, so each gets √μ. Sleeping
// is disabled: the other engines never skip a resting body.
struct Bullet {
  btDefaultCollisionConfiguration config;
  btCollisionDispatcher dispatcher{&config};
  btDbvtBroadphase broadphase;
  btSequentialImpulseConstraintSolver solver;
  btDiscreteDynamicsWorld world{&dispatcher, &broadphase, &solver, &config};
  btStaticPlaneShape ground_shape{btVector3(0, 0, 1), 0};
  btBoxShape box_shape{btVector3(kBox / 2, kBox / 2, kBox / 2)};
  std::vector<std::unique_ptr<btDefaultMotionState>> motion;
  std::vector<std::unique_ptr<btRigidBody>> bodies;

  bool sleeping = false;  // Bullet's deactivation (defaults: 2 s below 0.8 m/s and 1 rad/s)
  explicit Bullet(int boxes, bool sleep = false) : sleeping(sleep) {
    world.setGravity(btVector3(0, 0, -9.81));
    const btScalar friction = std::sqrt(kPileMu);
    add(0.0, &ground_shape, btVector3(0, 0, 0), friction);
    for (const PileBox& b : pile_layout(boxes)) add(1.0, &box_shape, btVector3(b.p.x(), b.p.y(), b.p.z()), friction);
  }
  Bullet(const Bullet&) = delete;
  Bullet& operator=(const Bullet&) = delete;
  ~Bullet() {
    for (auto& b : bodies) world.removeRigidBody(b.get());
  }
  void add(btScalar mass, btCollisionShape* shape, const btVector3& p, btScalar friction) {
    btVector3 inertia(0, 0, 0);
    if (mass > 0) shape->calculateLocalInertia(mass, inertia);
    btTransform x;
    x.setIdentity();
    x.setOrigin(p);
    motion.push_back(std::make_unique<btDefaultMotionState>(x));
    btRigidBody::btRigidBodyConstructionInfo info(mass, motion.back().get(), shape, inertia);
    info.m_friction = friction;
    bodies.push_back(std::make_unique<btRigidBody>(info));
    if (!sleeping) bodies.back()->setActivationState(DISABLE_DEACTIVATION);
    world.addRigidBody(bodies.back().get());
  }
  void step() { world.stepSimulation(2e-3, 0); }  // maxSubSteps 0: exactly one step of dt
  int contacts() const {
    int n = 0;
    for (int i = 0; i < dispatcher.getNumManifolds(); ++i)
      n += dispatcher.getManifoldByIndexInternal(i)->getNumContacts();
    return n;
  }
};

void run_bullet(benchmark::State& st, Bullet& bt) {
  for (auto _ : st) bt.step();
  st.SetItemsProcessed(st.iterations());
  st.counters["contacts"] = bt.contacts();
}

#endif

constexpr int kPileWarmup = 50;       // 0.1 s: every box has landed and touches its neighbours
constexpr int kPileSleepWarmup = 1500; // 3 s: at rest and asleep (Bullet deactivates after 2 s)
constexpr int kPushWarmup = 100;      // 0.1 s of pushing
constexpr int kPushReset = 4000;      // restore the warm state before the 5 s push ends
constexpr int kHoldWarmup = 100;
constexpr int kHoldReset = 9000;     // restore the warm state before the 10 s hold ends
constexpr int kShadowWarmup = 4000;  // shadow_sphere at 1 ms: the ball lifted and held

void report_hold_slip() {
  std::printf("Two-finger hold: the object's drop over the 10 s hold (dt = 1 ms)\n");
  for (const char* solver : kSolvers) {
    const Slip s = graspsim_hold_slip(solver);
    std::printf("  graspsim %-17s total %9.3f um, from 1 s to 10 s %9.3f um\n", solver, s.total_um, s.after_1s_um);
  }
#ifdef GRASPSIM_HAVE_MUJOCO
  const Slip s = mujoco_hold_slip();
  std::printf("  MuJoCo (defaults)          total %9.3f um, from 1 s to 10 s %9.3f um\n", s.total_um, s.after_1s_um);
#endif
  std::fflush(stdout);
}

// An engine made (and warmed up) on first use, so each case is prepared once however
// often Google Benchmark runs it; the registered lambdas own it.
template <class Engine>
struct Lazy {
  std::function<std::unique_ptr<Engine>()> make;
  std::unique_ptr<Engine> engine;
  Engine& get() {
    if (!engine) engine = make();
    return *engine;
  }
};

template <class Engine, class Run>
void add(const std::string& name, std::function<std::unique_ptr<Engine>()> make, Run run) {
  auto lazy = std::make_shared<Lazy<Engine>>();
  lazy->make = std::move(make);
  benchmark::RegisterBenchmark(name.c_str(), [lazy, run](benchmark::State& st) { run(st, lazy->get()); })
      ->Unit(benchmark::kMicrosecond);
}

void add_graspsim(const std::string& name, std::function<std::shared_ptr<const Model>()> make, int warmup_steps,
                  int reset_every) {
  auto p = std::make_shared<GraspsimCase>();
  p->make = std::move(make);
  p->warmup_steps = warmup_steps;
  p->reset_every = reset_every;
  benchmark::RegisterBenchmark(name.c_str(), [p](benchmark::State& st) { run_graspsim(st, *p); })
      ->Unit(benchmark::kMicrosecond);
}

void register_all() {
  for (const char* solver : kSolvers) {
    const std::string s = solver;
    add_graspsim("push/graspsim/" + s, [s] { return load_validation("push", s); }, kPushWarmup, kPushReset);
  }
#ifdef GRASPSIM_HAVE_MUJOCO
  add<MuJoCo>("push/mujoco", [] { auto mj = mj_push(); mj->warm_up(kPushWarmup); return mj; },
              [](benchmark::State& st, MuJoCo& mj) { run_mujoco(st, mj, kPushReset); });
#endif
  for (const char* solver : kSolvers) {
    const std::string s = solver;
    add_graspsim("hold/graspsim/" + s,
                 [s] { return load_validation("grasp_hold", s); }, kHoldWarmup, kHoldReset);
  }
#ifdef GRASPSIM_HAVE_MUJOCO
  add<MuJoCo>("hold/mujoco", [] { auto mj = mj_hold(); mj->warm_up(kHoldWarmup); return mj; },
              [](benchmark::State& st, MuJoCo& mj) { run_mujoco(st, mj, kHoldReset); });
#endif
  // One step of the Shadow Hand holding its ball (scenes/robots, t = 4 s: lifted and held),
  // from the same state every time: a fixed workload for the hand's step under Iterative
  // (bench_robots times whole episodes, whose trajectories move with every rounding change).
  add_graspsim("shadow_hold/graspsim/iterative",
               [] {
                 return load_scene(std::string(GRASPSIM_SOURCE_DIR) + "/scenes/robots/shadow_sphere.yaml",
                                   {"options.solver=iterative", "options.sleep=false"})
                     .model;
               },
               kShadowWarmup, 1);
  for (int boxes : {100, 1000}) {
    const std::string n = std::to_string(boxes);
    for (const char* solver : kSolvers) {
      const std::string s = solver;
      add_graspsim("pile" + n + "/graspsim/" + s,
                   [boxes, s] { return graspsim_pile(boxes, s); }, kPileWarmup, 0);
    }
    // Iterative with a relax pass of 16 sweeps (options.relax_sweeps): what it costs.
    add_graspsim("pile" + n + "/graspsim/iterative_relax16",
                 [boxes] { return graspsim_pile(boxes, "iterative", false, 16); }, kPileWarmup, 0);
    // Iterative with its sweeps on both cores (options.threads: the same bits as on one).
    // Read its Time column (wall time): CPU is the main thread's only.
    add_graspsim("pile" + n + "/graspsim/iterative_2threads",
                 [boxes] { return graspsim_pile(boxes, "iterative", false, 0, 2); }, kPileWarmup, 0);
    // The same pile with sleeping on, timed once it has settled and fallen asleep (3 s). With
    // Split: under Iterative (16 sweeps) the columns never come to rest (bench/README.md).
    add_graspsim("pile" + n + "/graspsim/split_sleeping",
                 [boxes] { return graspsim_pile(boxes, "split", true); }, kPileSleepWarmup, 0);
#ifdef GRASPSIM_HAVE_MUJOCO
    if (boxes == 100)
      add<MuJoCo>("pile" + n + "/mujoco",
                  [boxes] { auto mj = std::make_unique<MuJoCo>(mj_pile(boxes)); mj->warm_up(kPileWarmup); return mj; },
                  [](benchmark::State& st, MuJoCo& mj) { run_mujoco(st, mj, 0); });
#endif
#ifdef GRASPSIM_HAVE_BULLET
    add<Bullet>("pile" + n + "/bullet",
                [boxes] {
                  auto bt = std::make_unique<Bullet>(boxes);
                  for (int i = 0; i < kPileWarmup; ++i) bt->step();
                  return bt;
                },
                [](benchmark::State& st, Bullet& bt) { run_bullet(st, bt); });
    add<Bullet>("pile" + n + "/bullet_sleeping",
                [boxes] {
                  auto bt = std::make_unique<Bullet>(boxes, true);
                  for (int i = 0; i < kPileSleepWarmup; ++i) bt->step();
                  return bt;
                },
                [](benchmark::State& st, Bullet& bt) { run_bullet(st, bt); });
#endif
  }
}

}  // namespace

// --no_slip_check skips the hold's slip measurement (e.g. when profiling one case).
bool take_flag(int& argc, char** argv, const char* flag) {
  for (int i = 1; i < argc; ++i)
    if (std::strcmp(argv[i], flag) == 0) {
      for (int j = i; j + 1 < argc; ++j) argv[j] = argv[j + 1];
      --argc;
      return true;
    }
  return false;
}

int main(int argc, char** argv) {
  const bool slip_check = !take_flag(argc, argv, "--no_slip_check");
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  if (slip_check) report_hold_slip();
  register_all();
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
