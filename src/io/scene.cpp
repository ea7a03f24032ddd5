#include "io/scene.h"

#include <filesystem>

#include "collision/mesh_tools.h"
#include "core/error.h"
#include "io/scene_internal.h"
#include "robots/robot_file.h"
#include "steppers/step.h"

namespace graspsim {

namespace {

// Whether a message already starts with "<file>:<line>:".
bool has_location(const std::string& message) {
  const size_t colon = message.find(": ");
  if (colon == std::string::npos) return false;
  const size_t line = message.rfind(':', colon - 1);
  return line != std::string::npos && line + 1 < colon &&
         message.find_first_not_of("0123456789", line + 1) == colon;
}

// Where in the scene a model check's message points: its leading "section: key: ..." words
// followed through the merged YAML ("default contact material" is `default_contact`), down
// to the key its text starts with ("options: dt must be positive" → options.dt's line).
Location locate(const YamlNode& root, const std::string& message, const std::string& path) {
  Location where{path, 0};
  const YamlNode* node = &root;
  for (size_t pos = 0; node->is_map();) {
    const size_t end = message.find(": ", pos);
    std::string word = message.substr(pos, end == std::string::npos ? std::string::npos : end - pos);
    if (word == "default contact material") word = "default_contact";
    const YamlNode* next = node->find(word);
    if (!next) {
      next = node->find(word.substr(0, word.find(' ')));
      if (next && next->loc.line > 0) where = next->loc;
      return where;
    }
    node = next;
    if (node->loc.line > 0) where = node->loc;
    if (end == std::string::npos) break;
    pos = end + 2;
  }
  return where;
}

}  // namespace

Scene load_scene(const std::string& path, const std::vector<std::string>& overrides) {
  std::vector<SceneOverride> labelled;
  for (const auto& text : overrides) labelled.push_back({text, ""});
  return load_scene_labelled(path, labelled);
}

Scene load_scene_labelled(const std::string& path, const std::vector<SceneOverride>& overrides) {
  using namespace scene_detail;
  // A robot file is the scene of that robot alone, stepped by SPOOK (its loops and
  // tendon couplings are constraint rows).
  YamlNode root = is_robot_file(path)
                      ? parse_yaml_string("robots: [{file: " + nlohmann::json(std::filesystem::path(path).filename().string()).dump() +
                                              "}]\noptions: {stepper: spook}\n",
                                          Location{path, 0})
                      : load_with_includes(path);
  // Overrides go in before substitution so a changed parameter reaches every use of it.
  for (const auto& o : overrides) apply_override(root, o.text, o.origin);
  Scene scene;
  scene.path = path;
  const ParameterValues params = evaluate_parameters(root);
  scene.parameters = params.numbers;
  scene.text_parameters = params.texts;
  substitute_parameters(root, params);
  scene.resolved = to_json(root);
  ModelBuilder builder;
  read_scene(root, path, builder, scene);
  try {
    builder.map_convex_meshes(with_climb_index);
    scene.model = builder.build();  // checks what is common
    validate_formulation(*scene.model, scene_formulation(*scene.model));  // and the chosen stepper its own
    check_recording(root, *scene.model);
  } catch (const InputError& e) {
    if (has_location(e.what())) throw;
    throw InputError(locate(root, e.what(), path).str() + ": " + e.what());
  }
  // (an empty file, or an include that was lost, leaves nothing to simulate)
  if (scene.model->nbody() == 1 && scene.model->ngeom() == 0)
    throw InputError(path + ": the scene has no bodies, geoms or robots: nothing to simulate");
  return scene;
}

}  // namespace graspsim
