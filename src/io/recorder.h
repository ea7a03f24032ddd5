#pragma once
// Writes a run to disk as it happens: bodies.csv, joints.csv (and contacts.csv once a
// contact stepper fills StepResult), plus run.json. Every recorded step is flushed, so a
// run that is killed keeps all rows written so far.

#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "io/scene.h"
#include "model/model.h"
#include "model/state.h"
#include "steppers/step.h"

namespace graspsim {

class Recorder {
 public:
  // Creates `dir` and the CSV files with their headers; throws InputError if it cannot.
  // A quasistatic run also writes quasistatic.csv (the paper's indexing: row l holds q^l,
  // the configuration before step l, and step l's normal forces of the pairs in
  // options.normal_forces) and quasistatic_steps.csv (solver statistics, commanded and
  // actual displacement of each actuated dof).
  Recorder(const std::filesystem::path& dir, const Model& model, const RecordingOptions& options,
           bool quasistatic = false);
  ~Recorder();
  Recorder(const Recorder&) = delete;
  Recorder& operator=(const Recorder&) = delete;

  // Appends the rows of this state (every `options.every` calls) and flushes them.
  // Needs ws.kin to hold the kinematics of `state`. `result` (optional) gives the contact
  // forces of the step that led to `state`.
  void record(const Model& model, const State& state, const Workspace& ws, const StepResult* result = nullptr);

  // Writes run.json atomically (temp file + rename), so a reader never sees half of it.
  void write_run_json(const nlohmann::json& run) const;

  const std::filesystem::path& dir() const { return dir_; }

 private:
  std::filesystem::path dir_;
  RecordingOptions options_;
  std::FILE* bodies_ = nullptr;
  std::FILE* joints_ = nullptr;
  std::FILE* contacts_ = nullptr;
  std::FILE* quasistatic_ = nullptr;
  std::FILE* quasistatic_steps_ = nullptr;
  std::vector<std::pair<int, int>> force_pairs_;  // geom pairs of options.normal_forces
  std::vector<double> pair_force_;                // scratch
  std::vector<int> q_columns_;                    // q indices of quasistatic.csv's columns
  long calls_ = 0;
  void record_quasistatic(const Model& model, const State& state, const StepResult& result);
  std::vector<double> joint_effort_;  // scratch: actuator effort summed per joint
};

}  // namespace graspsim
