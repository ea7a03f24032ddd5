#pragma once
// Internals of the triangle-mesh narrowphase (mesh_collide*.cpp); not a public API.

#include <vector>

#include "core/types.h"
#include "model/mesh.h"

namespace graspsim::mesh_collide_detail {

// A convex piece for the separating-axis test: a closed convex solid, or one triangle of a
// mesh surface (one-sided: the solid is behind normals[0]).
struct Piece {
  std::vector<Vec3> verts;
  std::vector<Vec3> normals;             // outward unit face normals, coplanar faces merged
  std::vector<std::vector<int>> faces;   // vertices of each face (any order), as normals
  std::vector<Vec3> edges;               // unit edge directions, parallel ones merged
  bool one_sided = false;
  // One-sided only: the solid behind the triangle is taken this deep for the separation
  // test (so two opposing faces of penetrating meshes, `depth` apart, still overlap).
  double thickness = 0.0;
  double size = 0.0;                     // extent, for tolerances
};

Piece triangle_piece(const Vec3& a, const Vec3& b, const Vec3& c, double thickness = 0.0);
Piece box_piece(const Vec3& half_extents, const Pose& X);
Piece convex_mesh_piece(const Mesh& mesh, const Pose& X);

// A contact between piece T and piece O: normal from T towards O, depth > 0 penetrating.
struct Candidate {
  Vec3 point_t, point_o, normal;
  double depth;
};

// Appends the contacts of T and O (empty if separated by more than margin).
void sat_contacts(const Piece& T, const Piece& O, double margin, std::vector<Candidate>& out);

}  // namespace graspsim::mesh_collide_detail
