#pragma once
// Scene files: a YAML description of a model plus run settings (docs/scene-format.md).
// load_scene() reads the file and its includes, applies --set overrides, evaluates the
// parameters and ${...} expressions, and builds a validated Model.

#include <map>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/model.h"
#include "robots/robot_file.h"

namespace graspsim {

struct RecordingOptions {
  int every = 1;  // record every n-th step
  bool bodies = true, joints = true, contacts = true;
  // Quasistatic runs: geom pairs whose normal force (summed over the pair's points) is a
  // column lambda_n<k> of quasistatic.csv, k = 1, 2, … in this order.
  std::vector<std::pair<std::string, std::string>> normal_forces;
  // Quasistatic runs: the joints whose coordinates are quasistatic.csv's q columns, in this
  // order (all joints in model order when empty).
  std::vector<std::string> configuration;
  // A grasped body: run.json's summary gets object_lift_m (its highest rise above its
  // start) and object_dropped (it touched every holder at once, and later none of them;
  // touching = a contact that pushes, or one within 0.1 mm).
  std::string object;
  std::vector<std::string> holders;
  // The body the object should move with (default: the first holder's parent, the palm):
  // the summary's kinetic-energy ratio (seed 004, Section III.B) is the object's kinetic
  // energy over what it would have moving rigidly with this body.
  std::string carrier;
};

struct Scene {
  std::shared_ptr<const Model> model;
  std::string path;                           // as given
  double duration = 1.0;                      // s, top-level `duration:`
  RecordingOptions recording;
  std::map<std::string, double> parameters;   // final values after --set
  std::map<std::string, std::string> text_parameters;  // parameters whose value is a word (solver: split)
  nlohmann::json resolved;                    // the scene after includes, --set and substitution
  std::vector<RobotSummary> robots;           // of the robot files it loaded, in order
};

// `overrides` are "parameters.NAME=value" or "key.path=value" (list items by name or index);
// values are parsed as YAML. Throws InputError naming the file, line and key on any problem.
// A robot file (is_robot_file: .xml, .mjcf, .urdf) loads as a scene of that robot alone,
// stepped by SPOOK at the file's time step, for 1 s; its overrides may set only duration
// and options.* values.
Scene load_scene(const std::string& path, const std::vector<std::string>& overrides = {});

// The same with overrides that say where they came from: errors about one name `origin`
// (e.g. "hold_grid.yaml:9 (mu = 0.3)") instead of "--set '<text>'".
struct SceneOverride {
  std::string text;    // KEY.PATH=VALUE
  std::string origin;
};
Scene load_scene_labelled(const std::string& path, const std::vector<SceneOverride>& overrides);

}  // namespace graspsim
