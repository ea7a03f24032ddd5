#include "io/run.h"

#include <chrono>
#include <algorithm>
#include <cmath>
#include <numbers>

#include "core/error.h"
#include "core/version.h"
#include "io/recorder.h"
#include "io/state_file.h"
#include "io/yaml_tree.h"
#include "dynamics/dynamics.h"

namespace graspsim {
namespace {

constexpr double kMaxSteps = 1e9;  // ~1 day at a microsecond a step
// Past these a run starts only with RunOptions::force (the CLI's --force): more steps than
// an hour at 30 µs a step, or recordings estimated larger than 10 GB (docs/errors.md).
constexpr double kForceSteps = 1e8;
constexpr double kForceRecordingBytes = 1e10;

std::string format_seconds(double s) { return format_number(s) + " s"; }

nlohmann::json body_poses(const Model& model, const Workspace& ws) {
  nlohmann::json out = nlohmann::json::object();
  for (int b = 1; b < model.nbody(); ++b) {
    const Pose& X = ws.kin.X_WB[b];
    out[model.bodies[b].name] = {{"pos", {X.p.x(), X.p.y(), X.p.z()}}, {"quat", {X.q.w(), X.q.x(), X.q.y(), X.q.z()}}};
  }
  return out;
}

// Contact metrics over a run (SPEC "Metrics"), for run.json and the CLI's summary.
struct ContactStats {
  long points = 0, sliding = 0;
  double max_cone_error = 0.0, sum_abs_alignment = 0.0, max_depth = 0.0, max_residual = 0.0;

  void add(const StepResult& r) {
    max_residual = std::max(max_residual, r.solver_residual);
    for (const ContactResult& c : r.contacts) {
      ++points;
      max_cone_error = std::max(max_cone_error, c.cone_error);
      max_depth = std::max(max_depth, c.depth);
      if (!std::isnan(c.alignment_error)) {
        ++sliding;
        sum_abs_alignment += std::abs(c.alignment_error);
      }
    }
  }
  nlohmann::json json() const {
    return {{"contact_points", points},
            {"max_cone_error", max_cone_error},
            {"mean_abs_alignment_error_deg", sliding ? sum_abs_alignment / sliding * 180.0 / std::numbers::pi : 0.0},
            {"sliding_contact_points", sliding},
            {"max_depth", max_depth},
            {"max_solver_residual", max_residual}};
  }
};

// The quasistatic solver's work over a run (seed 003, Table I's columns).
struct QuasistaticStats {
  long steps = 0, big_m_active = 0, unproven = 0;
  double sum_ms = 0.0, sum_ms2 = 0.0, max_ms = 0.0, max_balance = 0.0, max_complementarity = 0.0;
  long sum_binaries = 0;
  int max_binaries = 0;

  void add(const StepResult& r) {
    const QuasistaticStepInfo& q = r.quasistatic;
    if (!q.valid) return;
    ++steps;
    sum_ms += q.solve_ms;
    sum_ms2 += q.solve_ms * q.solve_ms;
    max_ms = std::max(max_ms, q.solve_ms);
    sum_binaries += q.binaries;
    max_binaries = std::max(max_binaries, q.binaries);
    big_m_active += q.big_m_active ? 1 : 0;
    unproven += q.proven ? 0 : 1;
    max_balance = std::max(max_balance, q.force_balance);
    max_complementarity = std::max(max_complementarity, q.complementarity);
  }
  void write(nlohmann::json& summary) const {
    if (!steps) return;
    const double mean = sum_ms / steps;
    summary["solve_ms_mean"] = mean;
    summary["solve_ms_max"] = max_ms;
    summary["solve_ms_std"] = std::sqrt(std::max(0.0, sum_ms2 / steps - mean * mean));
    summary["binaries"] = max_binaries;
    summary["binaries_mean"] = static_cast<double>(sum_binaries) / steps;
    summary["big_m_active_steps"] = big_m_active;
    summary["unproven_steps"] = unproven;
    summary["max_force_balance_residual"] = max_balance;
    summary["max_complementarity_residual"] = max_complementarity;
  }
};

// The grasped object of RecordingOptions::object: how high it rose, whether it was dropped.
struct ObjectStats {
  int body = -1;
  std::vector<int> holders;
  Vec3 up = Vec3::UnitZ();
  double z0 = 0.0, lift = 0.0;
  bool held = false, dropped = false;
  double free_since = -1.0;  // time since when no holder touches the held object (< 0: one does)
  bool all_touching = false;  // every holder touches the object (at the last step)
  int carrier = -1;
  std::vector<std::pair<double, double>> ke;  // per step: the object's kinetic energy, and its rigid one
  // The ratio is not taken below this expected energy (J): a gripper at rest makes any ratio
  // infinite (a wobble at rest shows in max_penetration_m and the forces instead).
  static constexpr double kMinExpectedKe = 1e-12;
  // Left the fingers: no holder touching for this long. A relaxed contact (the convex
  // scheme's) opens a gap of a fraction of a millimetre for a step or two while the object
  // stays in the grasp; an object that has left them has fallen 5 cm in this time.
  static constexpr double kDropTime = 0.1;

  ObjectStats(const Model& model, const RecordingOptions& r, const VecX& q, KinematicsData& kin) {
    if (r.object.empty()) return;
    body = model.find_body(r.object);
    require(body >= 0, "recording: object", "no body named '" + r.object + "'");
    for (const std::string& h : r.holders) {
      holders.push_back(model.find_body(h));
      require(holders.back() >= 0, "recording: holders", "no body named '" + h + "'");
    }
    if (!r.carrier.empty()) {
      carrier = model.find_body(r.carrier);
      require(carrier >= 0, "recording: carrier", "no body named '" + r.carrier + "'");
    } else if (!holders.empty()) {
      carrier = model.bodies[holders.front()].parent;
    }
    forward_kinematics(model, q, kin);
    // "Up" is against gravity (the 2D example's y), z when there is none.
    const Vec3& g = model.options.gravity;
    up = g.norm() > 0.0 ? Vec3(-g.normalized()) : Vec3::UnitZ();
    z0 = up.dot(kin.X_WB[body].p);
  }
  void add(const Model& model, const KinematicsData& kin, const VecX& v, const StepResult& r, double t) {
    if (body < 0) return;
    lift = std::max(lift, up.dot(kin.X_WB[body].p) - z0);
    if (carrier > 0) {
      const Vec6 V = spatial_velocity(model, kin, v, body), Vc = spatial_velocity(model, kin, v, carrier);
      ke.emplace_back(0.5 * V.dot(kin.I_W[body] * V), 0.5 * Vc.dot(kin.I_W[body] * Vc));
    }
    if (holders.empty()) return;
    size_t touching = 0;
    for (int h : holders) {
      bool t = false;
      for (const ContactResult& c : r.contacts)
        // Touching: pressed, or within 0.1 mm (a step may carry the weight on other contacts).
        if ((c.fn > 0.0 || c.depth > -1e-4) &&
            ((c.body_a == body && c.body_b == h) || (c.body_b == body && c.body_a == h)))
          t = true;
      touching += t;
    }
    all_touching = touching == holders.size();
    if (all_touching) held = true;
    if (!held || touching > 0) {
      free_since = -1.0;
      return;
    }
    if (free_since < 0.0) free_since = t;
    if (t - free_since >= kDropTime - 1e-12) dropped = true;
  }
  void write(nlohmann::json& summary) const {
    if (body < 0) return;
    summary["object_lift_m"] = lift;
    summary["object_dropped"] = dropped;
    if (!holders.empty()) summary["object_held"] = held && !dropped && all_touching;
    write_ke_ratio(summary);
  }
  // ke_ratio_mean: the object's kinetic energy over the run over its rigid one (energy
  // weighted, so the moments the carrier turns round and both vanish do not dominate);
  // ke_ratio_max: the largest ratio at a step whose rigid energy is at least 5 % of the
  // run's largest. Null when the carrier never moves.
  void write_ke_ratio(nlohmann::json& summary) const {
    double sum = 0.0, sum_expected = 0.0, peak = 0.0, worst = 0.0;
    for (const auto& [e, expected] : ke) {
      sum += e;
      sum_expected += expected;
      peak = std::max(peak, expected);
    }
    for (const auto& [e, expected] : ke)
      if (expected >= 0.05 * peak && expected > kMinExpectedKe) worst = std::max(worst, e / expected);
    const bool moved = peak > kMinExpectedKe;
    summary["ke_ratio_mean"] = moved ? nlohmann::json(sum / sum_expected) : nlohmann::json();
    summary["ke_ratio_max"] = moved ? nlohmann::json(worst) : nlohmann::json();
  }
};

// The penalty stepper's integrator and overlap-volume work over a run.
struct PenaltyStats {
  bool valid = false;
  std::int64_t accepted = 0, rejected = 0, evaluations = 0, overlap_calls = 0;
  double overlap_seconds = 0.0, max_volume = 0.0;
  std::string crawl;  // the warning, once
  // RK45 steps shorter than this on average over one output step: a crawl. The seed's grasps
  // take ~4 per millisecond; a light finger deep in the bunny took 2 400 (the census, docs/errors.md).
  static constexpr double kCrawlStep = 1e-6;  // s
  void add(const StepResult& r, const State& s, double dt) {
    for (const ContactResult& c : r.contacts) max_volume = std::max(max_volume, c.volume);
    const PenaltyStepInfo& p = r.penalty;
    if (!p.valid) return;
    if (crawl.empty() && p.accepted > 0 && dt / static_cast<double>(p.accepted) < kCrawlStep)
      crawl = "t = " + show(s.t) + " s: the penalty stepper's RK45 took " + std::to_string(p.accepted) + " steps for one " +
              show(dt) + " s step (" + show(dt / static_cast<double>(p.accepted)) +
              " s each): the contact is stiffer than the bodies' masses can follow at a usable step (a light body "
              "pressed deep into another?); the run goes on, far slower than usual";
    valid = true;
    accepted += p.accepted;
    rejected += p.rejected;
    evaluations += p.evaluations;
    overlap_calls += p.overlap_calls;
    overlap_seconds += p.overlap_seconds;
  }
  void write(nlohmann::json& summary) const {
    if (!valid) return;
    summary["rk45_accepted_steps"] = accepted;
    summary["rk45_rejected_steps"] = rejected;
    summary["rk45_evaluations"] = evaluations;
    summary["overlap_calls"] = overlap_calls;
    summary["overlap_us_mean"] = overlap_calls > 0 ? 1e6 * overlap_seconds / static_cast<double>(overlap_calls) : 0.0;
    summary["overlap_seconds"] = overlap_seconds;
    summary["max_overlap_volume_m3"] = max_volume;
    if (!crawl.empty()) summary["warnings"] = {crawl};
  }
};

double total_energy(const Model& model, const State& s, Workspace& ws) {
  forward_kinematics(model, s.q, ws.kin);
  return kinetic_energy(model, ws.kin, s.v) + potential_energy(model, ws.kin, s.q);
}

// Steps are counted, not accumulated in time, so the step count is exact. A count that is
// not a sane number is bad input, not 0 steps or one giant step.
long step_count(const Scene& scene) {
  const double dt = scene.model->options.dt, duration = scene.duration;
  auto fail = [&](const std::string& what) { throw InputError(scene.path + ": " + what); };
  if (!std::isfinite(duration) || duration < 0.0) fail("duration must be a finite number >= 0 (s)");
  if (duration > 0.0 && dt > duration * (1.0 + 1e-9))
    fail("options.dt (" + format_seconds(dt) + ") is larger than the duration (" + format_seconds(duration) + ")");
  const double steps = std::ceil(duration / dt - 1e-9);
  if (!(steps <= kMaxSteps))
    fail("duration " + format_seconds(duration) + " at dt " + format_seconds(dt) + " is more than " +
         std::to_string(static_cast<long>(kMaxSteps)) + " steps (the limit of one run)");
  return std::lround(std::max(steps, 0.0));
}

// The recordings' size, roughly: ~20 characters per number, 14 numbers per body and 4 per
// joint dof a row (contacts come and go, and are not counted).
double recording_bytes(const Scene& scene, const RunOptions& options, long steps) {
  if (!options.record) return 0.0;
  const RecordingOptions& r = scene.recording;
  const double per_row = 20.0 * ((r.bodies ? 14.0 * scene.model->bodies.size() : 0.0) + (r.joints ? 4.0 * scene.model->nv : 0.0));
  return per_row * (static_cast<double>(steps) / std::max(r.every, 1) + 1.0);
}

// A run that is possible but so long or large that it is more likely a typo (dt: 1e-7) than
// meant waits for --force.
void require_force_if_huge(const Scene& scene, const RunOptions& options, long steps) {
  if (options.force) return;
  const double bytes = recording_bytes(scene, options, steps);
  if (steps > kForceSteps)
    throw InputError(scene.path + ": " + std::to_string(steps) + " steps (duration " + format_seconds(scene.duration) +
                     " at dt " + format_seconds(scene.model->options.dt) + ") is more than " + show(kForceSteps) +
                     ": pass --force to run it anyway");
  if (bytes > kForceRecordingBytes)
    throw InputError(scene.path + ": the recordings would take about " + show(bytes / 1e9) +
                     " GB (more than 10 GB): record less often (recording.every), or pass --force to run it anyway");
}

}  // namespace

nlohmann::json run_header(const Scene& scene, const std::optional<Formulation>& formulation) {
  const Options& o = scene.model->options;
  const Formulation f = formulation.value_or(scene_formulation(*scene.model));
  nlohmann::json j;
  j["graspsim"] = {{"version", kVersion}, {"compiler", __VERSION__}, {"eigen", std::to_string(EIGEN_WORLD_VERSION) + "." +
                                                                                 std::to_string(EIGEN_MAJOR_VERSION) + "." +
                                                                                 std::to_string(EIGEN_MINOR_VERSION)}};
  j["scene"] = scene.path;
  j["parameters"] = scene.parameters;
  for (const auto& [name, word] : scene.text_parameters) j["parameters"][name] = word;
  j["duration"] = scene.duration;
  j["options"] = {{"dt", o.dt},
                  {"stepper", to_string(f.stepper)},
                  {"integrator", to_string(f.dynamics.integrator)},
                  {"solver", to_string(f.spook.solver)},
                  {"iterations", f.spook.iterations},
                  {"relax_sweeps", f.spook.relax_sweeps},
                  {"tolerance", f.spook.tolerance},
                  {"threads", f.spook.threads},
                  {"seed", o.seed},
                  {"gravity", {o.gravity.x(), o.gravity.y(), o.gravity.z()}}};
  if (f.stepper == StepperType::Quasistatic) j["options"]["scheme"] = to_string(f.quasistatic.scheme);
  j["resolved"] = scene.resolved;
  return j;
}

std::string divergence_message(const std::string& scene_path, const State& state, const std::string& what) {
  return scene_path + ": " +
         (what.rfind("step ", 0) == 0 ? what : "step " + std::to_string(state.step + 1) + " from t = " + show(state.t) + ": " + what);
}

RunSummary run_scene(const Scene& scene, const RunOptions& options) {
  const Model& model = *scene.model;
  const long nsteps = step_count(scene);  // (before anything is written)
  require_force_if_huge(scene, options, nsteps);
  State state = options.initial_state ? *options.initial_state : make_state(model);
  if (state.act.size() != static_cast<Eigen::Index>(model.actuators.size()))
    require(false, "initial state",
            "has " + std::to_string(state.act.size()) + " actuator states, the model needs " +
                std::to_string(model.actuators.size()));
  const std::uint64_t first_step = state.step;  // a continued run counts its own steps
  const Formulation formulation = options.formulation.value_or(scene_formulation(model));
  Input input = make_input(model);
  Workspace ws;
  StepResult result;
  RunSummary summary;

  std::unique_ptr<Recorder> recorder;
  nlohmann::json run = run_header(scene, formulation);
  if (options.from_state) run["from_state"] = options.from_state->string();
  if (options.record) {
    recorder = std::make_unique<Recorder>(options.out_dir, model, scene.recording,
                                          formulation.stepper == StepperType::Quasistatic);
    run["status"] = "running";
    recorder->write_run_json(run);
  }

  const double e0 = total_energy(model, state, ws);
  if (recorder) recorder->record(model, state, ws);
  const auto start = std::chrono::steady_clock::now();
  ContactStats stats;
  QuasistaticStats qstats;
  ObjectStats object(model, scene.recording, state.q, ws.kin);
  PenaltyStats penalty;
  try {
    for (long i = 0; i < nsteps; ++i) {
      if (options.stop_requested && options.stop_requested()) {
        summary.interrupted = true;
        break;
      }
      sample_signals(model, state.t, model.options.dt, input);
      if (options.controller) options.controller(model, state, input);
      step(model, state, input, formulation, ws, &result);
      stats.add(result);
      qstats.add(result);
      if (recorder || object.body >= 0) forward_kinematics(model, state.q, ws.kin);  // the step leaves ws.kin at the old q
      object.add(model, ws.kin, state.v, result, state.t);
      const bool crawled = !penalty.crawl.empty();
      penalty.add(result, state, model.options.dt);
      if (!crawled && !penalty.crawl.empty() && options.warn) options.warn(penalty.crawl);
      if (recorder) recorder->record(model, state, ws, &result);
      if (options.on_step) options.on_step(model, state, ws, result);
      if (options.progress) options.progress(static_cast<double>(i + 1) / static_cast<double>(nsteps));
    }
    // The final state, to continue from (--from-state): a completed or interrupted run leaves one.
    if (recorder) save_state(options.out_dir / "state.bin", model, state);
  } catch (const std::exception& e) {
    // A divergence is told where and when (the stepper knows the step only when it checks
    // the state itself, not inside an integrator's stage).
    const bool diverged = dynamic_cast<const DivergenceError*>(&e) != nullptr;
    std::string what = e.what();
    if (diverged) what = divergence_message(scene.path, state, what);
    run["status"] = "failed";
    run["error"] = what;
    run["summary"] = {{"steps", state.step - first_step}, {"sim_time", state.t}};
    if (recorder) recorder->write_run_json(run);
    if (diverged) throw DivergenceError(what);
    throw;
  }
  summary.wall_time_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  summary.steps = static_cast<long>(state.step - first_step);
  summary.sim_time = state.t;
  const double e1 = total_energy(model, state, ws);
  summary.json = {{"steps", summary.steps},
                  {"sim_time", state.t},
                  {"wall_time_s", summary.wall_time_s},
                  {"steps_per_second", summary.wall_time_s > 0 ? summary.steps / summary.wall_time_s : 0.0},
                  {"energy_initial", e0},
                  {"energy_final", e1},
                  {"final_bodies", body_poses(model, ws)},
                  {"contacts", stats.json()}};
  summary.json["wall_s"] = summary.wall_time_s;  // (the names issue 13's checks read)
  summary.json["sim_s"] = state.t;
  summary.json["max_penetration_m"] = stats.max_depth;  // (contacts.max_depth under issue 13's name)
  qstats.write(summary.json);
  object.write(summary.json);
  penalty.write(summary.json);
  summary.final_state = state;
  if (recorder) {
    run["status"] = summary.interrupted ? "interrupted" : "completed";
    run["summary"] = summary.json;
    recorder->write_run_json(run);
  }
  return summary;
}

}  // namespace graspsim
