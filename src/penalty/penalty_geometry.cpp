#include "penalty/penalty_geometry.h"

#include <utility>

#include "collision/mesh_tools.h"
#include "collision/overlap.h"
#include "collision/overlap_plane.h"
#include "collision/tessellate.h"
#include "core/error.h"

namespace graspsim {
namespace {

OverlapResult swapped(OverlapResult r) {
  std::swap(r.boundary_a, r.boundary_b);
  return r;
}

}  // namespace

PenaltyGeometry::PenaltyGeometry(const Model& model) : shapes_(model.geoms.size()) {
  for (int g = 0; g < model.ngeom(); ++g) {
    const Geom& geom = model.geoms[g];
    Shape& s = shapes_[g];
    s.drawn_only = geom.never_collides();
    if (s.drawn_only) continue;
    if (geom.type == GeomType::Plane) {
      s.plane = s.convex = true;
      continue;
    }
    if (geom.type == GeomType::TriangleMesh || geom.type == GeomType::ConvexMesh) {
      s.mesh = model.meshes[geom.mesh];
      require_closed(*s.mesh, "geom '" + geom.name + "'");
      s.convex = geom.type == GeomType::ConvexMesh || is_convex(*s.mesh);
      s.hull = convex_hull(s.mesh->vertices).vertices;
    } else {
      s.mesh = std::make_shared<const Mesh>(tessellate(model, g, kResolution));
      s.convex = true;
    }
    // A tree finds the few triangles near the ground (a fine sphere's, a bunny's).
    if (!s.convex || s.mesh->faces.size() > kTreeFaces) s.bvh = std::make_shared<const MeshBvh>(*s.mesh);
  }
}

Aabb PenaltyGeometry::aabb(const Model& model, int g, const Pose& X_WG) const {
  const Shape& s = shapes_[g];
  if (s.drawn_only) return {Vec3::Constant(kInf), Vec3::Constant(-kInf)};  // meets no box
  return s.hull.empty() ? geom_aabb(model, g, X_WG) : points_aabb(s.hull, X_WG);
}

OverlapResult PenaltyGeometry::overlap(int a, const Pose& X_a, int b, const Pose& X_b) const {
  const Shape &sa = shapes_[a], &sb = shapes_[b];
  if (sa.plane && sb.plane) return {};
  if (sb.plane) return overlap_volume_halfspace(*sa.mesh, X_a, X_b.p, X_b.q * Vec3::UnitZ(), sa.bvh.get());
  if (sa.plane) return swapped(overlap_volume_halfspace(*sb.mesh, X_b, X_a.p, X_a.q * Vec3::UnitZ(), sb.bvh.get()));
  // The side clipped triangle by triangle is the one with the tree (the finer mesh: the
  // bunny, a fine ball); the other lends its face planes, so it must be convex.
  const bool a_clipped = sa.bvh && sb.convex && (!sb.bvh || sa.mesh->faces.size() >= sb.mesh->faces.size());
  const bool b_clipped = !a_clipped && sb.bvh && sa.convex;
  if (a_clipped) return overlap_volume_mesh_convex(*sa.mesh, *sa.bvh, X_a, *sb.mesh, X_b);
  if (b_clipped) return swapped(overlap_volume_mesh_convex(*sb.mesh, *sb.bvh, X_b, *sa.mesh, X_a));
  if (sa.convex && sb.convex) return overlap_volume_convex(*sa.mesh, X_a, *sb.mesh, X_b);
  return overlap_volume_cgal(*sa.mesh, X_a, *sb.mesh, X_b);
}

}  // namespace graspsim
