#pragma once
// Triangle-mesh narrowphase: contacts between a TriangleMesh geom and any other geom
// (Sphere, Box, Capsule, Cylinder, ConvexMesh, Plane, TriangleMesh).
//
// Per-triangle tests in the mesh's frame: sphere and capsule exactly (closest points);
// box, convex mesh and cylinder by the separating-axis test against each triangle, with
// contact points from clipping the two support features (the cylinder is an inscribed
// 32-sided prism: radius error r(1 - cos(π/32)) ≈ 0.5 %); a plane by the mesh vertices
// below it; mesh-mesh by triangle-triangle SAT on candidate pairs from the two trees.
// A triangle is one-sided (the solid lies behind it): contact normals come only from axes
// within 60° of its outward normal, and the triangle's own normal is used whenever the other
// (closed) shape presents a face within ~25° of facing it. Sphere/capsule contacts at triangle edges
// or vertices are dropped when the shape also touches a triangle's interior. Together these
// avoid ghost contacts at internal edges of flat or concave regions. Mesh-mesh pairs are
// gathered within margin + 5 % of the smaller mesh's size (opposing faces of penetrating
// meshes lie `depth` apart) and take face normals only: reliable for shallow penetration.
//
// Conventions: normal from A to B, depth > 0 penetrating, points kept down to depth
// −margin, feature = (triangle index << 32) | (the other side's triangle, or the point's
// index within its triangle, or the mesh vertex for a plane), manifold reduced to at most
// kMaxManifoldPoints (deepest first, then spread out).

#include "collision/bvh.h"
#include "collision/contact.h"
#include "model/model.h"

namespace graspsim {

// Uses the precomputed trees of `bvhs` (built once per Model, see BvhCache); a TriangleMesh
// whose tree is missing from the cache gets a temporary one.
ContactSet collide_trimesh(const Model& model, const BvhCache& bvhs, int ga, const Pose& X_WA, int gb,
                           const Pose& X_WB, double margin);
// Convenience: builds temporary trees on every call (O(n log n) per mesh) — for tests and
// one-off queries; steppers should hold a BvhCache.
ContactSet collide_trimesh(const Model& model, int ga, const Pose& X_WA, int gb, const Pose& X_WB, double margin);

// Keeps the deepest point, then repeatedly the point farthest from those kept, a depth below
// the deepest's counting against the distance (kSupportTilt), after merging points closer
// than `merge_distance` (the deeper survives).
std::vector<ContactPoint> reduce_manifold(std::vector<ContactPoint> points, int max_points,
                                          double merge_distance);

// A contact patch's support: keeps the deepest point, then repeatedly the point farthest from
// the hull of those kept (a point, a segment, the union of their triangles), until
// `max_points` are kept or every other point lies within `spacing` of that hull; a kept
// point within `spacing` of the others' hull is then dropped. A line contact keeps its two
// ends, a flat patch the corners that span it. A point whose gap exceeds the deepest's by e
// counts e / `tilt` nearer the hull: it closes before a deeper point nearer the span only
// under a tilt over `tilt` (rad), so a flat base is spanned by its own corners, not by
// the points of its rounded rim that lie farther out but above it. For steppers whose cost
// grows steeply with the number of contacts (the quasistatic MIQP's binaries).
std::vector<ContactPoint> reduce_to_support(const std::vector<ContactPoint>& points, int max_points, double spacing,
                                            double tilt);

}  // namespace graspsim
