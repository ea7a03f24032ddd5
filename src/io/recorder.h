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
  Recorder(const std::filesystem::path& dir, const Model& model, const RecordingOptions& options);
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
  long calls_ = 0;
  std::vector<double> joint_effort_;  // scratch: actuator effort summed per joint
};

}  // namespace graspsim
