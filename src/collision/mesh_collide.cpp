#include "collision/mesh_collide.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <unordered_map>

#include "collision/mesh_collide_detail.h"
#include "collision/tessellate.h"
#include "core/error.h"

namespace graspsim {

namespace {

using namespace mesh_collide_detail;

constexpr int kCylinderSides = 32;

// A contact in the mesh's frame, normal from the mesh towards the other shape.
ContactPoint make_contact(const Vec3& on_mesh, const Vec3& on_other, const Vec3& normal, double depth,
                          std::uint64_t feature) {
  return make_contact_point(on_mesh, on_other, normal, depth, feature);
}

std::uint64_t feature_id(int tri, std::uint64_t other) { return (std::uint64_t(tri) << 32) | (other & 0xffffffffu); }

// Ericson, Real-Time Collision Detection 5.1.5: closest point of triangle abc to p.
Vec3 closest_on_triangle(const Vec3& p, const Vec3& a, const Vec3& b, const Vec3& c) {
  const Vec3 ab = b - a, ac = c - a, ap = p - a;
  const double d1 = ab.dot(ap), d2 = ac.dot(ap);
  if (d1 <= 0 && d2 <= 0) return a;
  const Vec3 bp = p - b;
  const double d3 = ab.dot(bp), d4 = ac.dot(bp);
  if (d3 >= 0 && d4 <= d3) return b;
  const double vc = d1 * d4 - d3 * d2;
  if (vc <= 0 && d1 >= 0 && d3 <= 0) return a + d1 / (d1 - d3) * ab;
  const Vec3 cp = p - c;
  const double d5 = ab.dot(cp), d6 = ac.dot(cp);
  if (d6 >= 0 && d5 <= d6) return c;
  const double vb = d5 * d2 - d1 * d6;
  if (vb <= 0 && d2 >= 0 && d6 <= 0) return a + d2 / (d2 - d6) * ac;
  const double va = d3 * d6 - d5 * d4;
  if (va <= 0 && (d4 - d3) >= 0 && (d5 - d6) >= 0) return b + (d4 - d3) / ((d4 - d3) + (d5 - d6)) * (c - b);
  const double denom = 1.0 / (va + vb + vc);
  return a + ab * (vb * denom) + ac * (vc * denom);
}

// Closest points of segments p0p1 and q0q1 (Ericson 5.1.9); returns the point on p0p1.
Vec3 closest_on_segment_to_segment(const Vec3& p0, const Vec3& p1, const Vec3& q0, const Vec3& q1) {
  const Vec3 d1 = p1 - p0, d2 = q1 - q0, r = p0 - q0;
  const double a = d1.squaredNorm(), e = d2.squaredNorm(), f = d2.dot(r);
  double s = 0.0;
  if (a <= 1e-300) return p0;
  const double c = d1.dot(r);
  if (e <= 1e-300) return p0 + std::clamp(-c / a, 0.0, 1.0) * d1;
  const double b = d1.dot(d2), denom = a * e - b * b;
  if (denom > 1e-300) s = std::clamp((b * f - c * e) / denom, 0.0, 1.0);
  double t = (b * s + f) / e;
  if (t < 0.0) s = std::clamp(-c / a, 0.0, 1.0);
  else if (t > 1.0) s = std::clamp((b - c) / a, 0.0, 1.0);
  return p0 + s * d1;
}

struct Tri {
  Vec3 a, b, c, n;
};

Tri triangle(const Mesh& m, int t) {
  const auto& f = m.faces[t];
  Tri tri{m.vertices[f[0]], m.vertices[f[1]], m.vertices[f[2]], Vec3::Zero()};
  tri.n = (tri.b - tri.a).cross(tri.c - tri.a).normalized();
  return tri;
}

// Contacts of round shapes, tagged by whether they touch a triangle's interior.
struct RoundContacts {
  std::vector<ContactPoint> face, edge;
  // Edge and vertex contacts are ghosts of internal edges whenever the shape also touches a
  // face (flat or concave surface); on a convex ridge there are no face contacts to prefer.
  void flush(std::vector<ContactPoint>& out) const {
    out.insert(out.end(), face.begin(), face.end());
    if (face.empty()) out.insert(out.end(), edge.begin(), edge.end());
  }
};

// Sphere (centre p, radius r) against one-sided triangle; see mesh_collide.h.
void sphere_triangle(const Tri& t, const Vec3& p, double r, double margin, std::uint64_t feature,
                     RoundContacts& out) {
  const double s = t.n.dot(p - t.a);  // height above the triangle's plane
  if (s < -r) return;                 // entirely behind: another triangle owns it
  const Vec3 q = closest_on_triangle(p, t.a, t.b, t.c);
  const Vec3 v = p - q;
  const double dist = v.norm();
  Vec3 normal = t.n;
  double depth = r - s;
  if (s > 0.0 && dist > 1e-12 * r) {
    normal = v / dist;
    depth = r - dist;
  } else if (dist - std::abs(s) > 1e-9 * r) {
    return;  // centre behind the plane and beside the triangle
  }
  if (depth < -margin) return;
  const bool on_face = std::abs(dist - std::abs(s)) <= 1e-9 * r;  // q is p's projection
  (on_face ? out.face : out.edge).push_back(make_contact(q, p - r * normal, normal, depth, feature));
}

void capsule_triangle(const Tri& t, const Vec3& p0, const Vec3& p1, double r, double margin, int tri,
                      RoundContacts& out) {
  // The segment point nearest the triangle: where it pierces it, else nearest an edge or an
  // endpoint projection. The two endpoints as spheres add the second point of a lying capsule.
  auto distance = [&](const Vec3& x) { return (x - closest_on_triangle(x, t.a, t.b, t.c)).norm(); };
  const double end_d = std::min(distance(p0), distance(p1));
  Vec3 best = p0;
  double best_d = end_d;
  auto offer = [&](const Vec3& x) {
    const double d = distance(x);
    if (d < best_d) best_d = d, best = x;
  };
  const double s0 = t.n.dot(p0 - t.a), s1 = t.n.dot(p1 - t.a);
  if ((s0 > 0) != (s1 > 0) && s0 != s1) offer(p0 + (p1 - p0) * (s0 / (s0 - s1)));
  offer(closest_on_segment_to_segment(p0, p1, t.a, t.b));
  offer(closest_on_segment_to_segment(p0, p1, t.b, t.c));
  offer(closest_on_segment_to_segment(p0, p1, t.c, t.a));
  sphere_triangle(t, p0, r, margin, feature_id(tri, 0), out);
  sphere_triangle(t, p1, r, margin, feature_id(tri, 1), out);
  // An interior point only when strictly nearer than both ends (a capsule lying parallel
  // to the triangle is held by its ends).
  if (best_d < end_d - 1e-9 * r) sphere_triangle(t, best, r, margin, feature_id(tri, 2), out);
}

BoundingBox bounds_of(const std::vector<Vec3>& pts, double margin) {
  BoundingBox box;
  for (const Vec3& p : pts) box.extend(p);
  return BoundingBox(box.min() - Vec3::Constant(margin), box.max() + Vec3::Constant(margin));
}

void piece_vs_mesh(const Mesh& mesh, const MeshBvh& bvh, const Piece& other, double margin,
                   std::vector<ContactPoint>& out) {
  std::vector<int> tris;
  bvh.query(bounds_of(other.verts, margin), tris);
  std::vector<Candidate> found;
  for (int t : tris) {
    const Tri tri = triangle(mesh, t);
    found.clear();
    sat_contacts(triangle_piece(tri.a, tri.b, tri.c), other, margin, found);
    for (size_t k = 0; k < found.size(); ++k)
      out.push_back(make_contact(found[k].point_t, found[k].point_o, found[k].normal, found[k].depth, feature_id(t, k)));
  }
}

// Triangle pairs are gathered within margin plus a penetration allowance: the faces that
// oppose each other in a penetrating contact lie `depth` apart and do not intersect.
constexpr double kMeshMeshAllowance = 0.05;  // of the smaller mesh's bounding-box diagonal

void mesh_vs_mesh(const Mesh& a, const MeshBvh& ta, const Mesh& b, const MeshBvh& tb, const Pose& X_AB,
                  double margin, std::vector<ContactPoint>& out) {
  std::vector<std::pair<int, int>> pairs;
  const double allowance =
      kMeshMeshAllowance * std::min(ta.bounds().diagonal().norm(), tb.bounds().diagonal().norm());
  ta.query(tb, X_AB, pairs, margin + allowance);
  std::vector<Candidate> found;
  for (const auto& [i, j] : pairs) {
    const Tri s = triangle(a, i), t = triangle(b, j);
    found.clear();
    sat_contacts(triangle_piece(s.a, s.b, s.c, allowance),
                 triangle_piece(X_AB * t.a, X_AB * t.b, X_AB * t.c, allowance), margin, found);
    for (const Candidate& c : found) out.push_back(make_contact(c.point_t, c.point_o, c.normal, c.depth, feature_id(i, j)));
  }
}

// Mesh vertices below (or within margin of) the plane z = 0 of frame P; world frame output.
void mesh_vs_plane(const Mesh& mesh, const Pose& X_WM, const Pose& X_WP, double margin, std::vector<ContactPoint>& out) {
  const Vec3 n = X_WP.R().col(2);
  for (int i = 0; i < static_cast<int>(mesh.vertices.size()); ++i) {
    const Vec3 p = X_WM * mesh.vertices[i];
    const double s = n.dot(p - X_WP.p);
    if (s < margin) out.push_back(make_contact(p, p - s * n, -n, -s, std::uint64_t(i)));
  }
}

const Mesh& mesh_of(const Model& model, const Geom& g) {
  require(g.mesh >= 0 && g.mesh < static_cast<int>(model.meshes.size()) && model.meshes[g.mesh] != nullptr,
          "geom '" + g.name + "'", "has no mesh");
  return *model.meshes[g.mesh];
}

double size_of(const Geom& g, const Model& model) {
  switch (g.type) {
    case GeomType::Sphere:
    case GeomType::Capsule:
    case GeomType::Cylinder: return g.size.x();
    case GeomType::Box: return g.size.minCoeff();
    case GeomType::Plane: return kInf;
    default: return bounds_of(mesh_of(model, g).vertices, 0.0).diagonal().norm();
  }
}

// Contacts of TriangleMesh `gm` against `go`; mesh frame M except the plane case (world).
// Returns true when the points are in the world frame.
bool mesh_against(const Model& model, const BvhCache& bvhs, int gm, const Pose& X_WM, int go, const Pose& X_WO,
                  double margin, std::vector<ContactPoint>& out) {
  const Geom& m = model.geoms[gm];
  const Geom& o = model.geoms[go];
  const Mesh& mesh = mesh_of(model, m);
  std::unique_ptr<MeshBvh> own;
  const MeshBvh* bvh = bvhs.find(m.mesh);
  if (!bvh) bvh = (own = std::make_unique<MeshBvh>(mesh)).get();
  const Pose X_MO = X_WM.inverse() * X_WO;
  switch (o.type) {
    case GeomType::Plane: mesh_vs_plane(mesh, X_WM, X_WO, margin, out); return true;
    case GeomType::Sphere: {
      const Vec3 c = X_MO.p;
      std::vector<int> tris;
      bvh->query(BoundingBox(c - Vec3::Constant(o.size.x() + margin), c + Vec3::Constant(o.size.x() + margin)), tris);
      RoundContacts round;
      for (int t : tris) sphere_triangle(triangle(mesh, t), c, o.size.x(), margin, feature_id(t, 0), round);
      round.flush(out);
      return false;
    }
    case GeomType::Capsule: {
      const Vec3 axis = X_MO.R().col(2) * o.size.y();
      const Vec3 p0 = X_MO.p - axis, p1 = X_MO.p + axis;
      std::vector<int> tris;
      bvh->query(bounds_of({p0, p1}, o.size.x() + margin), tris);
      RoundContacts round;
      for (int t : tris) capsule_triangle(triangle(mesh, t), p0, p1, o.size.x(), margin, t, round);
      round.flush(out);
      return false;
    }
    case GeomType::Box: piece_vs_mesh(mesh, *bvh, box_piece(o.size, X_MO), margin, out); return false;
    case GeomType::Cylinder:
      piece_vs_mesh(mesh, *bvh, convex_mesh_piece(tessellate_cylinder(o.size.x(), o.size.y(), kCylinderSides), X_MO),
                    margin, out);
      return false;
    case GeomType::ConvexMesh:
      piece_vs_mesh(mesh, *bvh, convex_mesh_piece(collision_hull(mesh_of(model, o)), X_MO), margin, out);
      return false;
    case GeomType::TriangleMesh: {
      const Mesh& other = mesh_of(model, o);
      std::unique_ptr<MeshBvh> own_other;
      const MeshBvh* tb = bvhs.find(o.mesh);
      if (!tb) tb = (own_other = std::make_unique<MeshBvh>(other)).get();
      mesh_vs_mesh(mesh, *bvh, other, *tb, X_MO, margin, out);
      return false;
    }
  }
  return false;
}

}  // namespace

std::vector<ContactPoint> reduce_manifold(std::vector<ContactPoint> points, int max_points, double merge_distance) {
  std::sort(points.begin(), points.end(), [](const ContactPoint& a, const ContactPoint& b) { return a.depth > b.depth; });
  std::vector<ContactPoint> merged;  // deepest first, so the survivor of a merge is the deeper
  // Hash grid of cell size merge_distance: a point's near neighbours are in the 27 cells around it.
  std::unordered_map<std::uint64_t, std::vector<int>> grid;
  const double cell = merge_distance > 0.0 ? merge_distance : 1.0;
  auto key = [](std::int64_t x, std::int64_t y, std::int64_t z) {
    return (std::uint64_t(x) * 73856093u) ^ (std::uint64_t(y) * 19349663u) ^ (std::uint64_t(z) * 83492791u);
  };
  for (const ContactPoint& p : points) {
    const Eigen::Vector3d g = (p.position / cell).array().floor();
    bool near = false;
    for (int dx = -1; dx <= 1 && !near; ++dx)
      for (int dy = -1; dy <= 1 && !near; ++dy)
        for (int dz = -1; dz <= 1 && !near; ++dz) {
          const auto it = grid.find(key(std::int64_t(g.x()) + dx, std::int64_t(g.y()) + dy, std::int64_t(g.z()) + dz));
          if (it == grid.end()) continue;
          for (int i : it->second)
            if ((merged[i].position - p.position).norm() < merge_distance) near = true;
        }
    if (near) continue;
    grid[key(std::int64_t(g.x()), std::int64_t(g.y()), std::int64_t(g.z()))].push_back(static_cast<int>(merged.size()));
    merged.push_back(p);
  }
  if (static_cast<int>(merged.size()) <= max_points) return merged;
  std::vector<ContactPoint> kept{merged.front()};
  std::vector<double> dist(merged.size(), kInf);  // distance to the nearest kept point
  // A rounded base's rim must not stand in for its flat part's corners (kSupportTilt).
  auto reach = [&](size_t i) { return support_reach(dist[i], merged.front().depth - merged[i].depth); };
  while (static_cast<int>(kept.size()) < max_points) {
    size_t best = merged.size();
    for (size_t i = 0; i < merged.size(); ++i) {
      dist[i] = std::min(dist[i], (merged[i].position - kept.back().position).norm());
      if (dist[i] > 0.0 && (best == merged.size() || reach(i) > reach(best))) best = i;
    }
    if (best == merged.size()) break;
    kept.push_back(merged[best]);
    dist[best] = 0.0;
  }
  return kept;
}

std::vector<ContactPoint> reduce_to_support(const std::vector<ContactPoint>& points, int max_points, double spacing,
                                            double tilt) {
  if (points.empty() || max_points <= 0) return {};
  require(tilt > 0.0, "reduce_to_support", "the tilt must be > 0 rad");
  // Distance from x to the hull of `set` (a point, a segment, the union of its triangles),
  // leaving out set[skip].
  auto hull_distance = [](const std::vector<ContactPoint>& set, const Vec3& x, int skip) {
    std::vector<Vec3> v;
    for (int i = 0; i < static_cast<int>(set.size()); ++i)
      if (i != skip) v.push_back(set[i].position);
    const int k = static_cast<int>(v.size());
    if (k == 0) return kInf;
    if (k == 1) return (x - v[0]).norm();
    if (k == 2) return (x - closest_on_segment_to_segment(v[0], v[1], x, x)).norm();
    double d = kInf;
    for (int i = 0; i < k; ++i)
      for (int j = i + 1; j < k; ++j)
        for (int l = j + 1; l < k; ++l) d = std::min(d, (x - closest_on_triangle(x, v[i], v[j], v[l])).norm());
    return d;
  };
  std::vector<ContactPoint> kept{*std::max_element(
      points.begin(), points.end(), [](const ContactPoint& a, const ContactPoint& b) { return a.depth < b.depth; })};
  const double deepest = kept.front().depth;
  while (static_cast<int>(kept.size()) < max_points) {
    double best = spacing;
    const ContactPoint* next = nullptr;
    for (const ContactPoint& p : points) {
      // A point d beyond the span with a gap e above the deepest's closes only under a tilt
      // over e/d: it reaches past the span by d - e/tilt.
      const double d = support_reach(hull_distance(kept, p.position, -1), deepest - p.depth, tilt);
      if (d > best) {
        best = d;
        next = &p;
      }
    }
    if (!next) break;
    kept.push_back(*next);
  }
  // The deepest point may lie inside the span of the others (the middle of a line contact).
  for (int i = 0; i < static_cast<int>(kept.size()) && kept.size() > 1; ++i)
    if (hull_distance(kept, kept[i].position, i) <= spacing) kept.erase(kept.begin() + i--);
  return kept;
}

ContactSet collide_trimesh(const Model& model, const BvhCache& bvhs, int ga, const Pose& X_WA, int gb,
                           const Pose& X_WB, double margin) {
  const Geom& a = model.geoms.at(ga);
  const Geom& b = model.geoms.at(gb);
  require(a.type == GeomType::TriangleMesh || b.type == GeomType::TriangleMesh, "collide_trimesh",
          "geoms '" + a.name + "' and '" + b.name + "': neither is a triangle mesh");
  // Work with the mesh first; flip the result back if the mesh was B.
  const bool mesh_is_a = a.type == GeomType::TriangleMesh;
  const int gm = mesh_is_a ? ga : gb, go = mesh_is_a ? gb : ga;
  const Pose& X_WM = mesh_is_a ? X_WA : X_WB;
  const Pose& X_WO = mesh_is_a ? X_WB : X_WA;
  std::vector<ContactPoint> points;
  const bool world = mesh_against(model, bvhs, gm, X_WM, go, X_WO, margin, points);
  const Mat3 R = X_WM.R();
  for (ContactPoint& c : points) {
    if (!world) {
      c.point_a = X_WM * c.point_a;
      c.point_b = X_WM * c.point_b;
      c.position = X_WM * c.position;
      c.normal = R * c.normal;
    }
    if (!mesh_is_a) {
      std::swap(c.point_a, c.point_b);
      c.normal = -c.normal;
    }
  }
  const double scale = std::min(size_of(model.geoms[gm], model), size_of(model.geoms[go], model));
  const bool round = model.geoms[go].type == GeomType::Sphere || model.geoms[go].type == GeomType::Capsule;
  ContactSet set;
  set.geom_a = ga;
  set.geom_b = gb;
  set.points = reduce_manifold(std::move(points), kMaxManifoldPoints, (round ? 0.25 : 1e-3) * scale);
  return set;
}

ContactSet collide_trimesh(const Model& model, int ga, const Pose& X_WA, int gb, const Pose& X_WB, double margin) {
  return collide_trimesh(model, BvhCache(), ga, X_WA, gb, X_WB, margin);
}

}  // namespace graspsim
