#pragma once
// The overlap of a closed mesh with a half-space (a plane geom: the solid below its surface),
// by clipping the mesh's triangles with the plane. Convex or not: each triangle is clipped
// on its own, and the cap (the plane inside the mesh) is measured from the cut edges by
// Green's theorem, so the cut outline need not be convex or connected.

#include "collision/bvh.h"
#include "collision/contact.h"
#include "core/types.h"
#include "model/mesh.h"

namespace graspsim {

// A (the mesh at X_WA) ∩ {x : n·(x − p) ≤ 0}, n a unit normal. boundary_a: A's clipped
// triangles; boundary_b: the cap as one record (area, centroid, normal n), as the
// mesh-vs-convex query reports each face of the convex side.
// With the mesh's BVH, only the triangles that can reach below the plane are visited.
OverlapResult overlap_volume_halfspace(const Mesh& a, const Pose& X_WA, const Vec3& p, const Vec3& n,
                                       const MeshBvh* bvh = nullptr);

}  // namespace graspsim
