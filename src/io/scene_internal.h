#pragma once
// The stages of load_scene(), each in its own file. Internal to the io layer.

#include <map>
#include <string>

#include "io/scene.h"
#include "io/yaml_tree.h"
#include "model/builder.h"

namespace graspsim::scene_detail {

// scene_include.cpp: the file merged with its includes (include: removed).
YamlNode load_with_includes(const std::string& path);

// scene_override.cpp: applies one "path=value" to the merged tree; errors name `origin`
// ("--set '<text>'" when empty).
void apply_override(YamlNode& root, const std::string& text, const std::string& origin = {});

// scene_params.cpp: every parameter's value (parameters may use each other, no cycles),
// then ${...} and =expressions replaced everywhere; the parameters section becomes numbers.
// A parameter whose value is a bare word (`friction_model: cone`) is text: `${name}` pastes
// the word; arithmetic on it is an error.
struct ParameterValues {
  std::map<std::string, double> numbers;
  std::map<std::string, std::string> texts;
};
ParameterValues evaluate_parameters(const YamlNode& root);
void substitute_parameters(YamlNode& root, const ParameterValues& parameters);

// scene_read.cpp: the resolved tree into the builder and the scene's run settings.
void read_scene(const YamlNode& root, const std::string& scene_path, ModelBuilder& builder, Scene& scene);
// The names under `recording:` (object, carrier, holders, configuration, normal_forces) exist
// in the built model; throws InputError at the name's line.
void check_recording(const YamlNode& root, const Model& model);

// scene_trajectory.cpp: the `trajectories` section, read last (read_scene calls it): a model
// built from what the builder holds, IK along each trajectory, and the generated commands
// (and with `start`, the joints' initial q) set on the builder.
void read_trajectories(const YamlNode& root, ModelBuilder& builder);

}  // namespace graspsim::scene_detail
