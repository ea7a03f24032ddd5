#pragma once
// Shared by the two overlap-volume paths (not part of the public API).

#include <array>
#include <vector>

#include "collision/contact.h"
#include "core/types.h"

namespace graspsim::overlap_detail {

using Triangle = std::array<Vec3, 3>;  // counter-clockwise seen from outside the overlap

// Fills area/centre/normal per triangle, and volume and centroid of the region they bound
// (divergence theorem, signed tetrahedra about the mean vertex). A region of no positive
// volume gives an empty result.
OverlapResult assemble(const std::vector<Triangle>& on_a, const std::vector<Triangle>& on_b);

}  // namespace graspsim::overlap_detail
