#include "collision/narrowphase.h"

#include "collision/mesh_collide.h"

#include "collision/manifold.h"
#include "collision/pairs.h"
#include "core/error.h"

namespace graspsim {
namespace {

template <CollideFn F>
void flipped(const ConvexShape& a, const ConvexShape& b, double margin, const CollideOptions& options,
             ContactSet& out) {
  F(b, a, margin, options, out);
  flip_contacts(out);
}

// Two planes never touch in a useful way (they are static or parallel infinite sheets).
void no_contact(const ConvexShape&, const ConvexShape&, double, const CollideOptions&, ContactSet&) {}

constexpr CollideFn G = collide_convex_general;

// Rows: geom A's type, columns: geom B's type, in GeomType order (Plane, Sphere, Box,
// Capsule, Cylinder, ConvexMesh, TriangleMesh). Null cells are pairs without a
// narrowphase here: triangle meshes are routed by the mesh layer.
constexpr CollideFn kTable[kNumGeomTypes][kNumGeomTypes] = {
    {no_contact, plane_sphere, plane_box, plane_capsule, plane_cylinder, plane_hull, nullptr},
    {flipped<plane_sphere>, sphere_sphere, sphere_box, sphere_capsule, sphere_cylinder, G, nullptr},
    {flipped<plane_box>, flipped<sphere_box>, box_box, G, box_cylinder, G, nullptr},
    {flipped<plane_capsule>, flipped<sphere_capsule>, G, capsule_capsule, G, G, nullptr},
    {flipped<plane_cylinder>, flipped<sphere_cylinder>, flipped<box_cylinder>, G, G, G, nullptr},
    {flipped<plane_hull>, G, G, G, G, G, nullptr},
    {nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr},
};

}  // namespace

void collide_shapes(const ConvexShape& a, const ConvexShape& b, double margin, const CollideOptions& options,
                    ContactSet& out) {
  const CollideFn fn = kTable[static_cast<int>(a.type)][static_cast<int>(b.type)];
  if (!fn)
    throw InputError(std::string("geom pair ") + to_string(a.type) + "/" + to_string(b.type) + " not supported");
  out.points.clear();
  out.patch_area = 0.0;
  out.separating_axis.setZero();
  fn(a, b, margin, options, out);
}

ContactSet collide_geoms(const Model& model, int ga, const Pose& X_WA, int gb, const Pose& X_WB, double margin,
                         const CollideOptions& options, const BvhCache* bvhs) {
  ContactSet out;
  collide_geoms(model, ga, X_WA, gb, X_WB, margin, options, bvhs, out);
  return out;
}

void collide_geoms(const Model& model, int ga, const Pose& X_WA, int gb, const Pose& X_WB, double margin,
                   const CollideOptions& options, const BvhCache* bvhs, ContactSet& out) {
  if (model.geoms[ga].type == GeomType::TriangleMesh || model.geoms[gb].type == GeomType::TriangleMesh) {
    out = bvhs ? collide_trimesh(model, *bvhs, ga, X_WA, gb, X_WB, margin)
               : collide_trimesh(model, ga, X_WA, gb, X_WB, margin);
    return;
  }
  out.points.clear();
  out.patch_area = 0.0;
  collide_shapes(make_shape(model, ga, X_WA), make_shape(model, gb, X_WB), margin, options, out);
  out.geom_a = ga;
  out.geom_b = gb;
}

}  // namespace graspsim
