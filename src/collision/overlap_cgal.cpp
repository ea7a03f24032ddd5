// All CGAL code of the project lives in this file: it compiles slowly.
#include <CGAL/Exact_predicates_inexact_constructions_kernel.h>
#include <CGAL/Polygon_mesh_processing/corefinement.h>
#include <CGAL/Polygon_mesh_processing/self_intersections.h>
#include <CGAL/Side_of_triangle_mesh.h>
#include <CGAL/Surface_mesh.h>

#include "collision/mesh_tools.h"
#include "collision/overlap.h"
#include "collision/overlap_detail.h"
#include "core/error.h"

namespace graspsim {

namespace {

using Kernel = CGAL::Exact_predicates_inexact_constructions_kernel;
using Point = Kernel::Point_3;
using SurfaceMesh = CGAL::Surface_mesh<Point>;
namespace PMP = CGAL::Polygon_mesh_processing;
using overlap_detail::Triangle;

SurfaceMesh to_surface_mesh(const Mesh& m, const Pose& X) {
  SurfaceMesh sm;
  std::vector<SurfaceMesh::Vertex_index> ids;
  ids.reserve(m.vertices.size());
  for (const Vec3& v : m.vertices) {
    const Vec3 w = X * v;
    ids.push_back(sm.add_vertex(Point(w.x(), w.y(), w.z())));
  }
  for (const auto& f : m.faces) {
    const auto face = sm.add_face(ids[f[0]], ids[f[1]], ids[f[2]]);
    require(face != SurfaceMesh::null_face(), "overlap_volume",
            "mesh '" + m.name + "' is not a manifold surface");
  }
  return sm;
}

Vec3 vec(const Point& p) { return {p.x(), p.y(), p.z()}; }

Triangle triangle(const SurfaceMesh& sm, SurfaceMesh::Face_index f) {
  Triangle t;
  int k = 0;
  for (auto v : sm.vertices_around_face(sm.halfedge(f))) t[k++] = vec(sm.point(v));
  return t;
}

// Faces of `sm` that bound the intersection: those inside `other`, and, when coplanar with
// `other`'s surface and `keep_coplanar`, those whose solid side lies inside `other`.
std::vector<Triangle> faces_inside(const SurfaceMesh& sm, const SurfaceMesh& other, bool keep_coplanar,
                                   double probe) {
  const CGAL::Side_of_triangle_mesh<SurfaceMesh, Kernel> inside(other);
  std::vector<Triangle> out;
  for (auto f : sm.faces()) {
    const Triangle t = triangle(sm, f);
    const Vec3 c = (t[0] + t[1] + t[2]) / 3.0;
    const CGAL::Bounded_side side = inside(Point(c.x(), c.y(), c.z()));
    if (side == CGAL::ON_BOUNDED_SIDE) {
      out.push_back(t);
    } else if (side == CGAL::ON_BOUNDARY && keep_coplanar) {
      const Vec3 n = (t[1] - t[0]).cross(t[2] - t[0]).normalized();
      const Vec3 q = c - probe * n;  // just behind the face, inside this solid
      if (inside(Point(q.x(), q.y(), q.z())) == CGAL::ON_BOUNDED_SIDE) out.push_back(t);
    }
  }
  return out;
}

}  // namespace

OverlapResult overlap_volume_cgal(const Mesh& a, const Pose& X_WA, const Mesh& b, const Pose& X_WB) {
  require_closed(a, "overlap_volume");
  require_closed(b, "overlap_volume");
  SurfaceMesh ta = to_surface_mesh(a, X_WA), tb = to_surface_mesh(b, X_WB);
  const auto box_a = CGAL::Polygon_mesh_processing::bbox(ta), box_b = CGAL::Polygon_mesh_processing::bbox(tb);
  if (!CGAL::do_overlap(box_a, box_b)) return {};
  try {
    // Splits both surfaces along their intersection curves so every face lies entirely
    // inside, outside or on the other solid's surface.
    PMP::corefine(ta, tb, CGAL::parameters::throw_on_self_intersection(true),
                  CGAL::parameters::throw_on_self_intersection(true));
  } catch (const PMP::Corefinement::Self_intersection_exception&) {
    throw InputError("overlap_volume: mesh '" + a.name + "' or '" + b.name +
                     "' intersects itself near the other; corefinement needs self-intersection-free meshes");
  }
  const auto box = box_a + box_b;
  const double probe = 1e-7 * std::sqrt(CGAL::square(box.xmax() - box.xmin()) +
                                        CGAL::square(box.ymax() - box.ymin()) +
                                        CGAL::square(box.zmax() - box.zmin()));
  return overlap_detail::assemble(faces_inside(ta, tb, true, probe), faces_inside(tb, ta, false, probe));
}

}  // namespace graspsim
