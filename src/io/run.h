#pragma once
// Runs a loaded scene for its duration, recording as it goes. Shared by the CLI, the
// tests and (later) the Python bindings.

#include <filesystem>
#include <functional>
#include <optional>

#include <nlohmann/json.hpp>

#include "io/scene.h"
#include "model/state.h"
#include "steppers/step.h"

namespace graspsim {

struct RunOptions {
  std::filesystem::path out_dir = "out";
  bool record = true;
  // Start a run beyond the sane bounds (over 1e8 steps, or recordings over ~10 GB) rather
  // than refusing it as a likely typo.
  bool force = false;
  // The formulation and its settings; the scene's when empty.
  std::optional<Formulation> formulation;
  // Continue from this state (a checkpoint, e.g. load_state of a run's state.bin) instead
  // of make_state(model). The run still takes scene.duration / dt steps: it simulates
  // scene.duration more seconds, from initial_state->t to initial_state->t + duration (so
  // a 1 s run continued with duration 1 ends where a 2 s run ends, in the same bits).
  std::optional<State> initial_state;
  // The file initial_state was read from, recorded in run.json as "from_state".
  std::optional<std::filesystem::path> from_state;
  // Called before every step, after the scene's signals were sampled into the input: a
  // controller may overwrite any of it.
  std::function<void(const Model&, const State&, Input&)> controller;
  // Asked before every step; true ends the run there: run.json says "interrupted", the
  // recordings and state.bin hold everything up to that step (a CLI's SIGINT/SIGTERM).
  std::function<bool()> stop_requested;
  // Called after every step with the fraction done; for progress bars.
  std::function<void(double)> progress;
  // Told, once per kind, what the run does that a user should know while it runs (the penalty
  // stepper crawling); the same text goes to run.json's summary "warnings".
  std::function<void(const std::string&)> warn;
  // Called after every step (the thesis' "step event listener").
  std::function<void(const Model&, const State&, const Workspace&, const StepResult&)> on_step;
};

struct RunSummary {
  bool interrupted = false;        // stopped by RunOptions::stop_requested
  long steps = 0;                  // steps this run took (a continued run: not counting the earlier ones)
  double sim_time = 0.0;           // the final state's t (s)
  double wall_time_s = 0.0;
  State final_state;
  nlohmann::json json;             // what run.json holds under "summary"
};

// Steps the scene for scene.duration. When recording, a completed run also writes its final
// State to <out_dir>/state.bin (io/state_file.h; a failed run does not). On failure run.json
// says so (status "failed") and the exception propagates; rows written so far stay on disk.
RunSummary run_scene(const Scene& scene, const RunOptions& options);

// A DivergenceError's message as the run reports it: the scene file, then the step and time
// (when the stepper's own message does not start with them), then what diverged.
std::string divergence_message(const std::string& scene_path, const State& state, const std::string& what);

// The run.json header: versions, the scene as resolved, options (the formulation: the scene's
// unless given) and parameters.
nlohmann::json run_header(const Scene& scene, const std::optional<Formulation>& formulation = {});

}  // namespace graspsim
