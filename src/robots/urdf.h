#pragma once
// URDF robots (the <robot> root element), built into a ModelBuilder. add_robot calls this
// for URDF files; see robot_file.h for the public API.
//
// Mapping (URDF's frame conventions are graspsim's: a joint's origin is its child link's
// frame, the joint axis is in that frame):
//   link        body "<prefix><link>"; the root link hangs from placement.parent at
//               placement.pose by a fixed joint. A root link named "world" is not a body:
//               it stands for placement.parent (its children hang from it).
//   inertial    mass, com = origin.xyz, inertia R I Rᵀ (R from origin.rpy). No inertial
//               (or mass 0): mass 0 (a warning if the link moves: its mass matrix is singular).
//   joint       revolute (lower, upper), continuous (revolute, unlimited), prismatic
//               (lower, upper), fixed, floating (free: only from the root link, and only
//               when the robot is placed in the world); planar is an error. dynamics
//               damping → joint damping; friction, effort and velocity limits, calibration
//               and safety controllers are ignored with a warning.
//   collision   geoms "<prefix><link>_collision<k>" (or "<prefix><name>"): box (half
//               sizes), cylinder (radius, half length along z), sphere, mesh (convex, scaled).
//   visual      geoms "<prefix><link>_visual<k>" (or "<prefix><name>") in group 0 with
//               mask 0 (drawn, never collide); visual meshes are triangle meshes.
//   mesh files  package://pkg/rest: the first directory at or above the URDF's directory
//               that is named pkg or holds a subdirectory pkg, then rest; file:///abs;
//               relative to the URDF's directory. Each (file, scale) is loaded once, named
//               "<prefix><absolute path>" (plus "@sx,sy,sz" when scaled).
//   mimic       joint equality: q_joint = offset + multiplier · q_mimicked.
//   collisions  links welded by fixed joints count as one body (as MuJoCo fuses them): no
//               contacts within such a group (placement.parent included, unless it is the
//               world), nor between the groups on either side of a moving joint (exclude_pair).
// Warnings are "file.urdf:LINE: ..." (lines from a tinyxml2 pass over the file), in file
// order. Errors are InputErrors naming the file (and the line when known).

#include <string>

#include "model/builder.h"
#include "robots/robot_file.h"

namespace graspsim {

RobotSummary add_urdf(ModelBuilder& builder, const std::string& path, const RobotPlacement& placement);

}  // namespace graspsim
