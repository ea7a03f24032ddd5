#pragma once
// MJCF (MuJoCo's XML) onto graspsim's Model; the mapping is in docs/robots.md.

#include <string>

#include "model/builder.h"
#include "robots/robot_file.h"
#include "robots/xml_tree.h"

namespace graspsim {

// Adds the <mujoco> tree `root` (read from `path`, includes expanded) to the builder.
RobotSummary add_mjcf(ModelBuilder& builder, const XmlElement& root, const std::string& path,
                      const RobotPlacement& placement);

}  // namespace graspsim
