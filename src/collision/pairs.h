#pragma once
// The narrowphase pair functions behind the dispatch table (internal). Each takes shapes
// in the order of its name, writes only `points` and `patch_area`, and never allocates
// beyond the output vector.

#include "collision/contact.h"
#include "collision/narrowphase.h"
#include "collision/shapes.h"

namespace graspsim {

using CollideFn = void (*)(const ConvexShape&, const ConvexShape&, double margin,
                           const CollideOptions&, ContactSet&);

void plane_sphere(const ConvexShape&, const ConvexShape&, double, const CollideOptions&, ContactSet&);
void plane_capsule(const ConvexShape&, const ConvexShape&, double, const CollideOptions&, ContactSet&);
void plane_box(const ConvexShape&, const ConvexShape&, double, const CollideOptions&, ContactSet&);
void plane_cylinder(const ConvexShape&, const ConvexShape&, double, const CollideOptions&, ContactSet&);
void plane_hull(const ConvexShape&, const ConvexShape&, double, const CollideOptions&, ContactSet&);
void sphere_sphere(const ConvexShape&, const ConvexShape&, double, const CollideOptions&, ContactSet&);
void sphere_capsule(const ConvexShape&, const ConvexShape&, double, const CollideOptions&, ContactSet&);
void sphere_box(const ConvexShape&, const ConvexShape&, double, const CollideOptions&, ContactSet&);
void sphere_cylinder(const ConvexShape&, const ConvexShape&, double, const CollideOptions&, ContactSet&);
void capsule_capsule(const ConvexShape&, const ConvexShape&, double, const CollideOptions&, ContactSet&);
void box_box(const ConvexShape&, const ConvexShape&, double, const CollideOptions&, ContactSet&);
void box_cylinder(const ConvexShape&, const ConvexShape&, double, const CollideOptions&, ContactSet&);

// Closest points of segments p0 + s·d0 and p1 + t·d1 with s, t ∈ [0, 1] (Ericson 5.1.9).
void closest_segments(const Vec3& p0, const Vec3& d0, const Vec3& p1, const Vec3& d1, double& s, double& t);

}  // namespace graspsim
