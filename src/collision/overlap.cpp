#include "collision/overlap.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "collision/bvh.h"
#include "collision/mesh_tools.h"
#include "collision/overlap_detail.h"
#include "core/error.h"

namespace graspsim {

namespace overlap_detail {

OverlapResult assemble(const std::vector<Triangle>& on_a, const std::vector<Triangle>& on_b) {
  OverlapResult r;
  Vec3 ref = Vec3::Zero();  // a reference point near the region keeps round-off small
  const size_t n = on_a.size() + on_b.size();
  if (n == 0) return r;
  for (const auto* side : {&on_a, &on_b})
    for (const Triangle& t : *side) ref += (t[0] + t[1] + t[2]) / (3.0 * n);
  double volume = 0.0;
  Vec3 moment = Vec3::Zero();
  auto add = [&](const std::vector<Triangle>& tris, std::vector<OverlapTriangle>& out) {
    out.reserve(tris.size());
    for (const Triangle& t : tris) {
      const Vec3 a = t[0] - ref, b = t[1] - ref, c = t[2] - ref;
      const Vec3 cross = (b - a).cross(c - a);
      const double twice_area = cross.norm();
      const double v = a.dot(b.cross(c)) / 6.0;
      volume += v;
      moment += v * (a + b + c) / 4.0;
      if (twice_area <= 0.0) continue;  // a sliver from clipping: no area, no direction
      out.push_back({0.5 * twice_area, (t[0] + t[1] + t[2]) / 3.0, cross / twice_area});
    }
  };
  add(on_a, r.boundary_a);
  add(on_b, r.boundary_b);
  if (!(volume > 0.0)) return {};
  r.volume = volume;
  r.centroid = ref + moment / volume;
  return r;
}

}  // namespace overlap_detail

namespace {

using overlap_detail::Triangle;

struct Plane {
  Vec3 n;
  double d;  // n·x = d on the plane, n·x > d outside
};

struct Polygon {
  std::vector<Vec3> points;  // convex, counter-clockwise seen from outside the region
  bool on_a;
};

Eigen::AlignedBox3d world_box(const Mesh& m, const Pose& X) {
  Eigen::AlignedBox3d box;
  for (const Vec3& v : m.vertices) box.extend(X * v);
  return box;
}

// B's face planes in world coordinates, coplanar triangles merged.
std::vector<Plane> face_planes(const Mesh& m, const Pose& X, double eps) {
  std::vector<Plane> planes;
  for (const auto& f : m.faces) {
    const Vec3 a = X * m.vertices[f[0]];
    const Vec3 cross = (X * m.vertices[f[1]] - a).cross(X * m.vertices[f[2]] - a);
    if (cross.norm() <= 0.0) continue;
    const Vec3 n = cross.normalized();
    const Plane p{n, n.dot(a)};
    const bool seen = std::any_of(planes.begin(), planes.end(), [&](const Plane& q) {
      return q.n.dot(p.n) > 1.0 - 1e-12 && std::abs(q.d - p.d) <= eps;
    });
    if (!seen) planes.push_back(p);
  }
  return planes;
}

// Sutherland–Hodgman: keeps the part of `poly` with n·x <= d + eps; appends the points it
// leaves on the plane to `cut`.
std::vector<Vec3> clip(const std::vector<Vec3>& poly, const Plane& pl, double eps, std::vector<Vec3>& cut) {
  std::vector<Vec3> out;
  const size_t n = poly.size();
  for (size_t i = 0; i < n; ++i) {
    const Vec3& p = poly[i];
    const Vec3& q = poly[(i + 1) % n];
    const double dp = pl.n.dot(p) - pl.d, dq = pl.n.dot(q) - pl.d;
    if (dp <= eps) {
      out.push_back(p);
      if (dp >= -eps) cut.push_back(p);
    }
    if ((dp < -eps && dq > eps) || (dp > eps && dq < -eps)) {
      const Vec3 x = p + (q - p) * (dp / (dp - dq));
      out.push_back(x);
      cut.push_back(x);
    }
  }
  return out;
}

// The convex polygon through the cut points, ordered counter-clockwise about n.
std::vector<Vec3> cap(std::vector<Vec3> pts, const Vec3& n, double eps) {
  if (pts.size() < 3) return {};
  Vec3 c = Vec3::Zero();
  for (const Vec3& p : pts) c += p / static_cast<double>(pts.size());
  const Vec3 u = n.unitOrthogonal(), v = n.cross(u);
  std::sort(pts.begin(), pts.end(), [&](const Vec3& p, const Vec3& q) {
    return std::atan2(v.dot(p - c), u.dot(p - c)) < std::atan2(v.dot(q - c), u.dot(q - c));
  });
  std::vector<Vec3> out;
  for (const Vec3& p : pts)
    if (out.empty() || (p - out.back()).norm() > eps) out.push_back(p);
  while (out.size() > 1 && (out.front() - out.back()).norm() <= eps) out.pop_back();
  return out.size() >= 3 ? out : std::vector<Vec3>{};
}

}  // namespace

OverlapResult overlap_volume_convex(const Mesh& a, const Pose& X_WA, const Mesh& b, const Pose& X_WB) {
  require_closed(a, "overlap_volume");
  require_closed(b, "overlap_volume");
  const Eigen::AlignedBox3d box_a = world_box(a, X_WA), box_b = world_box(b, X_WB);
  if (!box_a.intersects(box_b)) return {};
  const double eps = 1e-12 * box_a.merged(box_b).diagonal().norm();

  std::vector<Polygon> faces;
  for (const auto& f : a.faces)
    faces.push_back({{X_WA * a.vertices[f[0]], X_WA * a.vertices[f[1]], X_WA * a.vertices[f[2]]}, true});

  for (const Plane& pl : face_planes(b, X_WB, eps)) {
    const bool cuts = std::any_of(faces.begin(), faces.end(), [&](const Polygon& f) {
      return std::any_of(f.points.begin(), f.points.end(), [&](const Vec3& p) { return pl.n.dot(p) - pl.d > eps; });
    });
    if (!cuts) continue;
    std::vector<Vec3> cut;
    std::vector<Polygon> kept;
    for (const Polygon& f : faces) {
      Polygon g{clip(f.points, pl, eps, cut), f.on_a};
      if (g.points.size() >= 3) kept.push_back(std::move(g));
    }
    std::vector<Vec3> lid = cap(std::move(cut), pl.n, 10 * eps);
    if (!lid.empty()) kept.push_back({std::move(lid), false});
    faces = std::move(kept);
    if (faces.empty()) return {};
  }

  std::vector<Triangle> on_a, on_b;
  for (const Polygon& f : faces)
    for (size_t i = 1; i + 1 < f.points.size(); ++i)
      (f.on_a ? on_a : on_b).push_back({f.points[0], f.points[i], f.points[i + 1]});
  return overlap_detail::assemble(on_a, on_b);
}

OverlapResult overlap_volume(const Mesh& a, const Pose& X_WA, bool a_convex, const Mesh& b,
                             const Pose& X_WB, bool b_convex) {
  if (a_convex && b_convex) return overlap_volume_convex(a, X_WA, b, X_WB);
  if (b_convex) {
    require_closed(a, "overlap_volume");
    return overlap_volume_mesh_convex(a, MeshBvh(a), X_WA, b, X_WB);
  }
  if (a_convex) {  // the mesh path wants the convex side second; coplanar faces stay on A's side
    require_closed(b, "overlap_volume");
    OverlapResult r = overlap_detail::overlap_mesh_convex(b, MeshBvh(b), X_WB, a, X_WA, false);
    std::swap(r.boundary_a, r.boundary_b);
    return r;
  }
  return overlap_volume_cgal(a, X_WA, b, X_WB);
}

OverlapResult overlap_volume(const Mesh& a, const Pose& X_WA, const Mesh& b, const Pose& X_WB) {
  require_closed(a, "overlap_volume");
  require_closed(b, "overlap_volume");
  return overlap_volume(a, X_WA, is_convex(a), b, X_WB, is_convex(b));
}

}  // namespace graspsim
