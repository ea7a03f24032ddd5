#include "io/scene.h"

#include <filesystem>

#include "io/scene_internal.h"
#include "robots/robot_file.h"
#include "steppers/step.h"

namespace graspsim {

Scene load_scene(const std::string& path, const std::vector<std::string>& overrides) {
  using namespace scene_detail;
  // A robot file is the scene of that robot alone, stepped by SPOOK (its loops and
  // tendon couplings are constraint rows).
  YamlNode root = is_robot_file(path)
                      ? parse_yaml_string("robots: [{file: " + nlohmann::json(std::filesystem::path(path).filename().string()).dump() +
                                              "}]\noptions: {stepper: spook}\n",
                                          Location{path, 0})
                      : load_with_includes(path);
  // Overrides go in before substitution so a changed parameter reaches every use of it.
  for (const auto& text : overrides) apply_override(root, text);
  Scene scene;
  scene.path = path;
  const ParameterValues params = evaluate_parameters(root);
  scene.parameters = params.numbers;
  scene.text_parameters = params.texts;
  substitute_parameters(root, params);
  scene.resolved = to_json(root);
  ModelBuilder builder;
  read_scene(root, path, builder, scene);
  scene.model = builder.build();  // checks what is common
  validate_formulation(*scene.model, scene_formulation(*scene.model));  // and the chosen stepper its own
  return scene;
}

}  // namespace graspsim
