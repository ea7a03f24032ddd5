#pragma once
// Triangle mesh data as stored in the Model (shared, immutable once built).

#include <array>
#include <memory>
#include <string>
#include <vector>

#include "core/types.h"

namespace graspsim {

// What lets support queries on a mesh collided as convex climb from vertex to better
// neighbour along its convex hull's edges instead of scanning every vertex (on a convex
// polytope a vertex that no neighbour improves on is a maximum). Built by
// collision/mesh_tools' with_climb_index. Tables are offsets (CSR): the hull neighbours of
// vertex v are neighbours[neighbour_start[v] .. neighbour_start[v + 1]) (none off the
// hull), the mesh faces at v likewise.
struct MeshClimbIndex {
  std::vector<int> neighbour_start, neighbours;
  std::vector<int> face_start, faces;
  std::array<int, 6> axis_extreme{};  // the support along +x, −x, +y, −y, +z, −z
  // Where climbs start: the support at the centre of each cell of a cube map of directions
  // (kCubeCells² cells on each face of the cube, faces in axis_extreme's order), so that a climb
  // walks the few edges within a cell's ~11° and not a quarter of the hull (the Shadow Hand's
  // bunny: ~70 neighbours a query from the axis extremes). Empty: start at axis_extreme.
  static constexpr int kCubeCells = 8;
  std::vector<int> cube_start;
  double radius = 0.0;                // the farthest vertex from the origin (scales tie tolerances)
  bool own_hull = false;  // closed, convex, connected, every vertex on the hull: a face's coplanar neighbours are its polygon
};

struct Mesh {
  std::string name;
  std::vector<Vec3> vertices;            // in the geom frame, already scaled (m)
  std::vector<std::array<int, 3>> faces; // counter-clockwise seen from outside
  std::shared_ptr<const MeshClimbIndex> climb;  // null: queries scan every vertex
  // What a convex_mesh geom on this mesh collides as, when the mesh is not convex (a
  // bunny's scan): its convex hull's own vertices and faces (collision/mesh_tools'
  // with_climb_index), so that support features are hull faces and their queries visit the
  // hull only. Null: the mesh itself. Mass properties stay the mesh's.
  std::shared_ptr<const Mesh> hull;
};

// The mesh a convex_mesh geom collides as (Mesh::hull).
inline const Mesh& collision_hull(const Mesh& mesh) { return mesh.hull ? *mesh.hull : mesh; }

}  // namespace graspsim
