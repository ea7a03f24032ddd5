#pragma once
// Topological and geometric checks on triangle meshes, and convex hulls.

#include <memory>
#include <string>
#include <vector>

#include "core/types.h"
#include "model/mesh.h"

namespace graspsim {

// True when every edge is shared by exactly two faces that traverse it in opposite
// directions (a closed, consistently oriented, edge-manifold surface).
bool is_closed(const Mesh& mesh);
// Throws InputError("<where>: mesh '<name>' ...") saying what is wrong unless is_closed.
void require_closed(const Mesh& mesh, const std::string& where);

// True when the closed mesh bounds a convex solid: at every edge the far vertex of each
// neighbouring face lies behind (or within `tol` of) the other face's plane. `tol` is
// relative to the mesh's bounding-box diagonal. A closed locally convex surface is convex.
bool is_convex(const Mesh& mesh, double tol = 1e-9);

// Convex hull (qhull) of at least four non-coplanar points; faces are triangles ordered
// counter-clockwise seen from outside. Throws InputError for degenerate input.
Mesh convex_hull(const std::vector<Vec3>& points, const std::string& name = "convex_hull");

// `mesh`, or a copy carrying its climb index (model/mesh.h) for the support queries of a
// mesh collided as convex (its convex hull's edges over its own vertex indices; from 32
// vertices) and, when it is not convex, its convex hull (Mesh::hull, with its own climb
// index) to collide as. Returned unchanged when small and convex, or flat.
std::shared_ptr<const Mesh> with_climb_index(const std::shared_ptr<const Mesh>& mesh);

// Signed enclosed volume (divergence theorem); positive for outward-oriented closed meshes.
double signed_volume(const Mesh& mesh);

// The mesh with every vertex mapped by X (e.g. geom frame to world).
Mesh transformed(const Mesh& mesh, const Pose& X);

}  // namespace graspsim
