#pragma once
// Parts of the MJCF loader that need none of its state (mjcf_parts.cpp): the table of what
// each element understands, and MuJoCo's legacy mesh inertia. Private to robots/.

#include <map>
#include <set>
#include <string>

#include "model/mesh.h"
#include "model/mass_properties.h"

namespace graspsim::mjcf {

// Attributes used as MuJoCo means them; approximated ones (with why); drawing-only ones.
// Anything else on a supported element is reported "not supported (ignored)".
struct ElementRules {
  std::set<std::string> used;
  std::map<std::string, std::string> approximated;  // attribute → what graspsim does instead
  std::set<std::string> drawing;
};

// Per element tag (the actuator shortcuts share "actuator").
const std::map<std::string, ElementRules>& element_rules();

// MJCF equalities are soft in MuJoCo (solref/solimp); here they get a stiff but finite
// spring, whose compliance also keeps redundant rows solvable (a planar loop's connect
// has a row that no joint can move).
constexpr double kEqualityStiffness = 1e8;  // N/m and N·m/rad

// MuJoCo 2.2.2's default mesh inertia (exactmeshinertia="false"): pyramids of |volume| from
// the faces' area-weighted centroid give the centre of mass, pyramids from that centre the
// inertia; the geom then gets the box with the same principal moments per unit mass, at
// the given density. Exact for convex meshes only, but it is what MuJoCo models contain.
// `where` (file and line) starts the message of the InputError thrown for a flat mesh.
MassProperties legacy_mesh_inertia(const Mesh& mesh, double density, const std::string& where);

}  // namespace graspsim::mjcf
