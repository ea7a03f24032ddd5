#include "robots/robot_file.h"

#include <filesystem>

#include "collision/mesh_tools.h"
#include "core/error.h"
#include "robots/mjcf.h"
#include "robots/urdf.h"
#include "robots/xml_tree.h"

namespace graspsim {

bool is_robot_file(const std::string& path) {
  const std::string ext = std::filesystem::path(path).extension().string();
  return ext == ".xml" || ext == ".mjcf" || ext == ".urdf";
}

RobotSummary add_robot(ModelBuilder& builder, const std::string& path, const RobotPlacement& where) {
  RobotPlacement placement = where;
  if (!where.site.empty()) {  // on a site: its body, at the site's frame
    const SiteDef* site = builder.find_site(where.site);
    if (!site) throw InputError(path + ": placed on site '" + where.site + "', which no robot loaded before defines");
    placement.parent = site->body;
    placement.pose = site->pose * where.pose;
  }
  // The root element tells the formats apart; includes are MJCF's only.
  const XmlElement probe = read_xml(path, false);
  if (probe.tag == "robot") return add_urdf(builder, path, placement);
  if (probe.tag != "mujoco")
    throw InputError(probe.where() + ": the root element is <" + probe.tag + ">: expected <mujoco> (MJCF) or <robot> (URDF)");
  return add_mjcf(builder, read_xml(path, true), path, placement);
}

LoadedRobot load_robot(const std::string& path) {
  ModelBuilder builder;
  RobotSummary summary = add_robot(builder, path);
  builder.map_convex_meshes(with_climb_index);
  return {builder.build(), std::move(summary)};
}

}  // namespace graspsim
