// graspsim command line: run, check and inspect scenes; validate against and calibrate to real data.
// Exit codes: 0 success, 2 bad input (message on stderr), 1 internal failure.

#include <unistd.h>

#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <iostream>

#include <CLI/CLI.hpp>

#include "core/error.h"
#include "core/version.h"
#include "io/contacts_report.h"
#include "io/json_text.h"
#include "io/run.h"
#include "io/scene.h"
#include "io/state_file.h"
#include "mcube_commands.h"
#include "sweep_commands.h"
#include "view_command.h"

namespace gs = graspsim;

namespace {

// A progress bar on stderr for runs longer than a second, only on a terminal.
class ProgressBar {
 public:
  ProgressBar() : enabled_(isatty(STDERR_FILENO) != 0), start_(std::chrono::steady_clock::now()) {}
  void operator()(double fraction) {
    if (!enabled_) return;
    const auto now = std::chrono::steady_clock::now();
    if (now - start_ < std::chrono::seconds(1) || (now - last_ < std::chrono::milliseconds(100) && fraction < 1.0))
      return;
    last_ = now;
    const int width = 40, filled = static_cast<int>(fraction * width);
    std::fprintf(stderr, "\r[%.*s%*s] %5.1f%%", filled, "########################################", width - filled, "",
                 100.0 * fraction);
    shown_ = true;
  }
  ~ProgressBar() {
    if (shown_) std::fputc('\n', stderr);
  }

 private:
  bool enabled_, shown_ = false;
  std::chrono::steady_clock::time_point start_, last_{};
};

struct SceneArgs {
  std::string path;
  std::vector<std::string> sets;
};

void add_scene_args(CLI::App* cmd, SceneArgs& args) {
  cmd->add_option("scene", args.path, "Scene file (YAML), or a robot file (MJCF .xml, URDF .urdf)")->required();
  cmd->add_option("--set", args.sets,
                  "Override a scene value: parameters.NAME=value or key.path=value (repeatable)");
}

// Final pose of each body (position, yaw about z) and the contact metrics.
void print_summary(const nlohmann::json& j) {
  for (const auto& [name, pose] : j["final_bodies"].items()) {
    const auto& p = pose["pos"];
    const auto& q = pose["quat"];
    const double yaw = std::atan2(2.0 * (q[0].get<double>() * q[3].get<double>() + q[1].get<double>() * q[2].get<double>()),
                                  1.0 - 2.0 * (q[2].get<double>() * q[2].get<double>() + q[3].get<double>() * q[3].get<double>()));
    std::printf("  %-12s pos [% .5f % .5f % .5f] m  yaw % .3f deg\n", name.c_str(), p[0].get<double>(), p[1].get<double>(),
                p[2].get<double>(), yaw * 180.0 / M_PI);
  }
  const auto& c = j["contacts"];
  if (c["contact_points"].get<long>() > 0)
    std::printf("  contacts: max cone error %.3g, mean |alignment error| %.3g deg over %ld sliding points, max depth %.3g m\n",
                c["max_cone_error"].get<double>(), c["mean_abs_alignment_error_deg"].get<double>(),
                c["sliding_contact_points"].get<long>(), c["max_depth"].get<double>());
}

// Ctrl-C or SIGTERM ends a run at the next step boundary with everything written (the only
// state a signal handler may touch is a sig_atomic_t); a second one kills as usual.
volatile std::sig_atomic_t g_stop_signal = 0;
void on_stop_signal(int sig) {
  g_stop_signal = sig;
  std::signal(sig, SIG_DFL);
}

int cmd_run(const SceneArgs& args, std::optional<double> duration, std::optional<double> dt, const std::string& out,
            const std::string& from_state, bool force) {
  std::vector<std::string> sets = args.sets;
  // (the flags are checked here, so an error names the flag the user typed)
  if (duration && !(std::isfinite(*duration) && *duration >= 0.0))
    throw gs::InputError("--duration: expected a finite number of seconds >= 0, got " + CLI::detail::to_string(*duration));
  if (dt && !(std::isfinite(*dt) && *dt > 0.0))
    throw gs::InputError("--dt: expected a finite positive number of seconds, got " + CLI::detail::to_string(*dt));
  std::vector<std::pair<std::string, std::string>> flags;  // the --set each flag becomes, and the flag
  if (duration) flags.emplace_back("duration=" + CLI::detail::to_string(*duration), "--duration");
  if (dt) flags.emplace_back("options.dt=" + CLI::detail::to_string(*dt), "--dt");
  for (const auto& [set, flag] : flags) sets.push_back(set);
  const gs::Scene scene = [&] {
    try {
      return gs::load_scene(args.path, sets);
    } catch (const gs::InputError& e) {
      // An error about a flag's value names the flag, not a --set the user never typed.
      const std::string what = e.what();
      for (const auto& [set, flag] : flags) {
        const std::string prefix = "--set '" + set + "': ";
        if (what.rfind(prefix, 0) != 0) continue;
        std::string rest = what.substr(prefix.size());
        if (rest.rfind("key '", 0) == 0 && rest.find("': ") != std::string::npos) rest = rest.substr(rest.find("': ") + 3);
        throw gs::InputError(args.path + ": " + flag + ": " + rest);
      }
      throw;
    }
  }();
  gs::RunOptions options;
  options.out_dir = out;
  options.force = force;
  if (!from_state.empty()) {  // continue for `duration` more seconds from a checkpoint
    options.initial_state = gs::load_state(from_state, *scene.model);
    options.from_state = from_state;
  }
  ProgressBar bar;
  options.progress = [&bar](double f) { bar(f); };
  options.warn = [](const std::string& w) { std::fprintf(stderr, "\nwarning: %s\n", w.c_str()); };
  options.stop_requested = [] { return g_stop_signal != 0; };
  std::signal(SIGINT, on_stop_signal);
  std::signal(SIGTERM, on_stop_signal);
  const gs::RunSummary s = gs::run_scene(scene, options);
  if (s.interrupted) {
    std::fprintf(stderr, "\n%s: interrupted at t = %.6g s after %ld steps; recordings and state.bin in %s\n",
                 args.path.c_str(), s.sim_time, s.steps, out.c_str());
    return 128 + static_cast<int>(g_stop_signal);  // the shell's convention for a signal
  }
  if (options.initial_state)
    std::printf("%s: %ld steps from %s, t = %.6g s to %.6g s in %.3g s wall; results in %s\n", args.path.c_str(),
                s.steps, from_state.c_str(), options.initial_state->t, s.sim_time, s.wall_time_s, out.c_str());
  else
    std::printf("%s: %ld steps, %.6g s simulated in %.3g s wall; results in %s\n", args.path.c_str(), s.steps,
                s.sim_time, s.wall_time_s, out.c_str());
  print_summary(s.json);
  return 0;
}

// The model's counts as MuJoCo 2.2.2 counts them (for a robot file, the file's own), and
// every warning of the robot files it loaded.
nlohmann::json model_summary(const gs::Scene& scene) {
  const gs::Model& m = *scene.model;
  nlohmann::json j;
  nlohmann::json warnings = nlohmann::json::array();
  for (const auto& r : scene.robots)
    for (const auto& w : r.warnings) warnings.push_back(w);
  if (gs::is_robot_file(scene.path) && scene.robots.size() == 1) {
    const gs::RobotSummary& r = scene.robots.front();
    j = {{"bodies", r.bodies}, {"joints", r.joints}, {"dof", r.dof}, {"geoms", r.geoms},
         {"actuators", r.actuators}, {"equality", r.equality}, {"tendons", r.tendons}};
  } else {
    int joints = 0;
    for (const auto& jt : m.joints) joints += jt.type != gs::JointType::Fixed;
    j = {{"bodies", m.nbody() - 1}, {"joints", joints}, {"dof", m.nv}, {"geoms", m.ngeom()},
         {"actuators", m.actuators.size()}, {"equality", m.equalities.size()}, {"tendons", m.tendons.size()}};
  }
  j["warnings"] = warnings;
  return j;
}

int cmd_check(const SceneArgs& args, bool json) {
  const gs::Scene scene = gs::load_scene(args.path, args.sets);
  if (json) {
    std::printf("%s\n", gs::json_text(model_summary(scene), 2).c_str());
    return 0;
  }
  for (const auto& r : scene.robots)
    for (const auto& w : r.warnings) std::fprintf(stderr, "warning: %s\n", w.c_str());
  const gs::Model& m = *scene.model;
  std::printf("%s: ok (%d bodies, %d joints, nq=%d, nv=%d, %d geoms, %zu actuators, stepper %s, dt %g s, duration %g s)\n",
              args.path.c_str(), m.nbody() - 1, m.njoint(), m.nq, m.nv, m.ngeom(), m.actuators.size(),
              gs::to_string(m.options.stepper), m.options.dt, scene.duration);
  return 0;
}

int cmd_contacts(const SceneArgs& args, const gs::ContactsReportOptions& options, bool json) {
  const gs::Scene scene = gs::load_scene(args.path, args.sets);
  const gs::State state = gs::make_state(*scene.model);
  const nlohmann::json report = gs::contacts_report(*scene.model, state, options);
  if (json)
    std::printf("%s\n", gs::json_text(report, 2).c_str());
  else
    std::printf("%s", gs::format_contacts_report(report).c_str());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"graspsim: simulation of robotic grasping and in-hand manipulation"};
  app.set_version_flag("--version", std::string("graspsim ") + gs::kVersion);
  app.require_subcommand(1);

  SceneArgs run_args, check_args;
  std::optional<double> duration, dt;
  std::string out = "out", from_state;
  CLI::App* run = app.add_subcommand("run", "Simulate a scene and record it");
  add_scene_args(run, run_args);
  run->add_option("--duration", duration, "Simulated time (s), overrides the scene's duration");
  run->add_option("--dt", dt, "Time step (s), overrides options.dt");
  run->add_option("--out", out, "Output directory (a completed run writes its final state to OUT/state.bin)")
      ->capture_default_str();
  run->add_option("--from-state", from_state,
                  "Continue from a saved state (a run's state.bin) for the scene's duration more seconds");
  bool force = false;
  run->add_flag("--force", force, "Start a run beyond the sane bounds (over 1e8 steps, or recordings over ~10 GB)");
  bool check_json = false;
  CLI::App* check = app.add_subcommand("check", "Load and validate a scene or a robot file (MJCF, URDF), then exit");
  add_scene_args(check, check_args);
  check->add_flag("--json", check_json,
                  "Print the model summary as JSON: bodies, joints, dof, geoms, actuators, equality, tendons, warnings");

  SceneArgs contacts_args;
  gs::ContactsReportOptions contacts_options;
  bool contacts_json = false;
  CLI::App* contacts = app.add_subcommand("contacts", "Print the contacts, signed distances and overlap volumes of the initial state");
  add_scene_args(contacts, contacts_args);
  contacts->add_flag("--json", contacts_json, "Print JSON instead of text");
  contacts->add_option("--margin", contacts_options.margin, "Report contact points down to this separation (m)")
      ->check(CLI::NonNegativeNumber)->capture_default_str();
  contacts->add_option("--distance", contacts_options.distance, "Signed distances of pairs closer than this (m)")
      ->check(CLI::NonNegativeNumber)->capture_default_str();

  McubeArgs validate_args, calibrate_args;
  add_mcube_commands(app, validate_args, calibrate_args);
  SweepArgs sweep_args;
  SweepReportArgs sweep_report_args;
  add_sweep_commands(app, sweep_args, sweep_report_args);
  ViewArgs view_args;
  add_view_command(app, view_args);

  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return 2;
  }

  try {
    if (*run) return cmd_run(run_args, duration, dt, out, from_state, force);
    if (*check) return cmd_check(check_args, check_json);
    if (*contacts) return cmd_contacts(contacts_args, contacts_options, contacts_json);
    if (app.got_subcommand("validate")) return cmd_validate_mcube(validate_args);
    if (app.got_subcommand("calibrate")) return cmd_calibrate_mcube(calibrate_args);
    if (app.got_subcommand("sweep")) {
      std::signal(SIGINT, on_stop_signal);
      std::signal(SIGTERM, on_stop_signal);
      const int rc = cmd_sweep(sweep_args, [] { return g_stop_signal != 0; });
      return rc == kSweepStopped ? 128 + static_cast<int>(g_stop_signal) : rc;
    }
    if (app.got_subcommand("sweep-report")) return cmd_sweep_report(sweep_report_args);
    if (app.got_subcommand("view")) {
      std::signal(SIGINT, on_stop_signal);
      std::signal(SIGTERM, on_stop_signal);
      return cmd_view(view_args, [] { return g_stop_signal != 0; });
    }
  } catch (const gs::InputError& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "internal error: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
