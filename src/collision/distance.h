#pragma once
// Signed distance between two geoms: φ > 0 separated, φ < 0 penetrating (−depth), with
// witness points and the unit normal from A to B.

#include "collision/contact.h"
#include "collision/shapes.h"
#include "model/model.h"

namespace graspsim {

// False (and `out` untouched) when the geoms are farther apart than max_distance, or for
// plane/plane. Closed forms for pairs with a plane, sphere pairs and capsule-capsule;
// GJK for the other separated pairs, SAT for penetrating box-box, EPA otherwise.
bool signed_distance(const Model& model, int ga, const Pose& X_WA, int gb, const Pose& X_WB,
                     double max_distance, DistanceResult& out);
bool signed_distance_shapes(const ConvexShape& a, const ConvexShape& b, double max_distance,
                            DistanceResult& out);

}  // namespace graspsim
