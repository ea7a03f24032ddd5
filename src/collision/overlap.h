#pragma once
// Volume of the intersection of two closed solids and the boundary of that intersection,
// split by which solid's surface each boundary triangle lies on (seed 004, Algorithm 1:
// s_d sums, per side, area·distance-weighted vectors from triangle centres to the centroid).
//
// Both meshes are given in their own frames with their world poses. Every result is in
// world coordinates. A mesh that is not closed throws InputError naming it.
// Boundary faces where the two surfaces coincide (coplanar, same outward direction) are
// reported once, on side A.

#include "collision/contact.h"
#include "core/types.h"
#include "model/mesh.h"

namespace graspsim {

class MeshBvh;  // collision/bvh.h

// Dispatcher: exact clipping when both meshes are convex (checked with is_convex, or
// asserted by the caller through the flags), overlap_volume_mesh_convex (with a tree built
// for the call) when exactly one is, CGAL corefinement when neither is.
OverlapResult overlap_volume(const Mesh& a, const Pose& X_WA, const Mesh& b, const Pose& X_WB);
OverlapResult overlap_volume(const Mesh& a, const Pose& X_WA, bool a_convex, const Mesh& b,
                             const Pose& X_WB, bool b_convex);

// Convex ∩ convex by clipping A's faces with B's face planes and capping each cut.
// Both meshes must be closed and convex (not re-checked beyond closure).
OverlapResult overlap_volume_convex(const Mesh& a, const Pose& X_WA, const Mesh& b, const Pose& X_WB);

// A closed mesh (any shape; `bvh_a` is its MeshBvh, built once) ∩ a closed convex mesh B
// (overlap_mesh.cpp). Exact: A's triangles near B (found with the BVH) are clipped by B's face
// planes, one boundary_a record per clipped triangle; each face plane of B contributes the
// part of it inside A as ONE boundary_b record (its area, centroid and B's outward normal; the
// region may be non-convex or in several pieces). Coplanar faces follow the convention above.
// Tens of microseconds when B is small next to A (B's face count and the number of A's
// triangles inside B set the cost). B's closure is checked (InputError); A's is not: check it
// once (require_closed) when building the tree.
OverlapResult overlap_volume_mesh_convex(const Mesh& a, const MeshBvh& bvh_a, const Pose& X_WA,
                                         const Mesh& b, const Pose& X_WB);

// Any two closed meshes without self-intersections, by CGAL Polygon Mesh Processing
// corefinement with exact predicates (overlap_cgal.cpp).
OverlapResult overlap_volume_cgal(const Mesh& a, const Pose& X_WA, const Mesh& b, const Pose& X_WB);

}  // namespace graspsim
