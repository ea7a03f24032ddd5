#pragma once
// Robots from their description files: MJCF (MuJoCo) and URDF, built into a Model.
// What each format maps onto, and what it approximates or ignores, is in docs/robots.md.

#include <memory>
#include <string>
#include <vector>

#include "model/builder.h"
#include "model/model.h"

namespace graspsim {

// The file's own counts, as MuJoCo 2.2.2 counts them for MJCF (nbody less the world,
// njnt, nv, ngeom, nu, neq, ntendon), and what the loader could not map exactly.
struct RobotSummary {
  int bodies = 0, joints = 0, dof = 0, geoms = 0, actuators = 0, equality = 0, tendons = 0;
  // "file.xml:12: <geom> attribute 'solref' ignored: ...", each distinct message once, at
  // its first place, in the order the loader met them.
  std::vector<std::string> warnings;
};

// Where a robot goes when it is added to a builder (scene files' `robots:` items).
struct RobotPlacement {
  std::string prefix;              // prepended to every name ("" keeps the file's names)
  std::string parent = "world";    // body the robot's root bodies hang from
  std::string site;                // or a site of a robot loaded before (then parent is its body)
  Pose pose;                       // of the robot's world frame in the parent body (or site)
};

// Adds the robot in `path` (MJCF .xml or URDF .urdf, told apart by the root element) to
// `builder`: bodies, joints, geoms, meshes, tendons, actuators, equalities, exclusions,
// keyframes. Returns its summary. Throws InputError naming the file and line for what it
// cannot load (missing file or mesh, malformed XML, unknown joint type, ...).
RobotSummary add_robot(ModelBuilder& builder, const std::string& path, const RobotPlacement& placement = {});

// The robot alone: its options (time step, gravity) and a floor-less world.
struct LoadedRobot {
  std::shared_ptr<const Model> model;
  RobotSummary summary;
};
LoadedRobot load_robot(const std::string& path);

// True if the file looks like a robot description (.xml, .mjcf or .urdf), not a scene.
bool is_robot_file(const std::string& path);

}  // namespace graspsim
