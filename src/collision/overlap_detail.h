#pragma once
// Shared by the two overlap-volume paths (not part of the public API).

#include <array>
#include <vector>

#include "collision/contact.h"
#include "core/types.h"
#include "model/mesh.h"

namespace graspsim {
class MeshBvh;
}

namespace graspsim::overlap_detail {

using Triangle = std::array<Vec3, 3>;  // counter-clockwise seen from outside the overlap

// Fills area/centre/normal per triangle, and volume and centroid of the region they bound
// (divergence theorem, signed tetrahedra about the mean vertex). A region of no positive
// volume gives an empty result.
OverlapResult assemble(const std::vector<Triangle>& on_a, const std::vector<Triangle>& on_b);

// overlap_volume_mesh_convex with a choice of side for coplanar faces of the same outward
// direction: A's (as the public function and CGAL report) or, when false, B's (the dispatcher
// swaps sides when the caller's A is the convex one).
OverlapResult overlap_mesh_convex(const Mesh& a, const MeshBvh& bvh_a, const Pose& X_WA, const Mesh& b,
                                  const Pose& X_WB, bool coplanar_on_a);

}  // namespace graspsim::overlap_detail
