#pragma once
// Building blocks of contact manifolds (internal to the collision layer): clipping an
// incident feature against a reference face, turning the clipped polygon into contact
// points, reducing them to at most 8, and the optional patch grid.

#include <cstdint>

#include "collision/contact.h"
#include "collision/narrowphase.h"
#include "collision/shapes.h"

namespace graspsim {

// FNV-1a over the 32-bit words: the id of a touching feature pair.
std::uint64_t feature_key(std::uint32_t a, std::uint32_t b, std::uint32_t c, std::uint32_t d = 0);

// Keeps the part of `poly` inside the prism over the reference face (its side planes).
void clip_to_face(const SupportFeature& ref, Polygon& poly);

// A reference plane (outward normal of the reference shape) with the incident points
// (clipped to its face) becomes contact points: those with separation ≤ margin.
struct FacePatch {
  Vec3 normal;                 // outward normal of the reference face
  Vec3 point;                  // a point of the reference plane
  bool ref_is_a = true;        // which geom owns the reference face
  std::uint32_t ref_id = 0, inc_id = 0;
};
// Returns the number of points added.
int emit_face_contacts(const FacePatch& patch, const Polygon& incident, double margin,
                       const CollideOptions& options, ContactSet& out);
// The same with separate candidate points (e.g. every box corner below a plane) and the
// polygon whose penetrating part is the patch (nullptr: a point or line contact).
int emit_points(const FacePatch& patch, const Polygon& candidates, const Polygon* face,
                double margin, const CollideOptions& options, ContactSet& out);

// Appends one contact point from witness points and the A→B normal.
void add_point(ContactSet& out, const Vec3& point_a, const Vec3& point_b, const Vec3& normal,
               double depth, std::uint64_t feature);

// Flips a contact set computed for (B, A) into one for (A, B).
void flip_contacts(ContactSet& cs);

// Area of a planar polygon (any orientation) about `normal`.
double polygon_area(const Polygon& poly, const Vec3& normal);

}  // namespace graspsim
