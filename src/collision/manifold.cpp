#include "collision/manifold.h"

#include <algorithm>
#include <cmath>

#include <Eigen/Dense>

namespace graspsim {

std::uint64_t feature_key(std::uint32_t a, std::uint32_t b, std::uint32_t c, std::uint32_t d) {
  std::uint64_t h = 1469598103934665603ull;
  for (std::uint32_t x : {a, b, c, d}) {
    h ^= x;
    h *= 1099511628211ull;
  }
  return h;
}

namespace {

std::uint32_t crossing_tag(std::uint32_t from, std::uint32_t to, int plane) {
  return 0x80000000u | ((from * 131u + to) * 17u + static_cast<std::uint32_t>(plane));
}

// Sutherland-Hodgman step: keeps n·x ≤ offset. Closed polygons wrap; 1-2 points do not.
void clip_halfspace(const Polygon& in, const Vec3& n, double offset, int plane, Polygon& out) {
  out.n = 0;
  const bool closed = in.n >= 3;
  const int edges = closed ? in.n : in.n - 1;
  if (in.n == 1) {
    if (n.dot(in.v[0].p) <= offset) out.push(in.v[0].p, in.v[0].tag);
    return;
  }
  for (int i = 0; i < edges; ++i) {
    const PolyPoint& a = in.v[i];
    const PolyPoint& b = in.v[(i + 1) % in.n];
    const double da = n.dot(a.p) - offset, db = n.dot(b.p) - offset;
    if (da <= 0) out.push(a.p, a.tag);
    if ((da < 0 && db > 0) || (da > 0 && db < 0))
      out.push(a.p + (da / (da - db)) * (b.p - a.p), crossing_tag(a.tag, b.tag, plane));
    if (!closed && i == edges - 1 && db <= 0) out.push(b.p, b.tag);
  }
}

// Deepest point first, then repeatedly the point farthest from those chosen, a gap above the
// deepest's counting against the distance (kSupportTilt): keeps the extreme corners of the
// touching part of the polygon. Returns chosen indices in polygon order.
int reduce_points(const Polygon& poly, const double* sep, const bool* keep, int* chosen) {
  int idx[kMaxPolygon], count = 0;
  for (int i = 0; i < poly.n; ++i)
    if (keep[i]) idx[count++] = i;
  if (count <= kMaxManifoldPoints) {
    std::copy(idx, idx + count, chosen);
    return count;
  }
  bool taken[kMaxPolygon] = {};
  double mind[kMaxPolygon];
  int first = idx[0];
  for (int k = 0; k < count; ++k)
    if (sep[idx[k]] < sep[first]) first = idx[k];
  taken[first] = true;
  for (int k = 0; k < count; ++k) mind[idx[k]] = (poly.v[idx[k]].p - poly.v[first].p).norm();
  auto reach = [&](int i) { return support_reach(mind[i], sep[i] - sep[first]); };
  for (int m = 1; m < kMaxManifoldPoints; ++m) {
    int best = -1;
    for (int k = 0; k < count; ++k)
      if (!taken[idx[k]] && (best < 0 || reach(idx[k]) > reach(best))) best = idx[k];
    taken[best] = true;
    for (int k = 0; k < count; ++k)
      mind[idx[k]] = std::min(mind[idx[k]], (poly.v[idx[k]].p - poly.v[best].p).norm());
  }
  int n = 0;
  for (int i = 0; i < poly.n; ++i)
    if (taken[i]) chosen[n++] = i;
  return n;
}

void plane_basis(const Vec3& n, Vec3& u, Vec3& v) {
  u = n.cross(std::abs(n.x()) < 0.9 ? Vec3::UnitX() : Vec3::UnitY()).normalized();
  v = n.cross(u);
}

// 2D polygon clipped to an axis-aligned rectangle; returns area and centroid.
double clip_cell(const std::vector<Eigen::Vector2d>& poly, double u0, double u1, double v0, double v1,
                 Eigen::Vector2d& centroid) {
  std::vector<Eigen::Vector2d> cur = poly, next;
  const double bounds[4] = {u0, u1, v0, v1};
  for (int side = 0; side < 4 && !cur.empty(); ++side) {
    const int axis = side / 2;
    const double sign = (side % 2 == 0) ? -1.0 : 1.0;  // keep sign*x ≤ sign*bound
    next.clear();
    for (size_t i = 0; i < cur.size(); ++i) {
      const Eigen::Vector2d& a = cur[i];
      const Eigen::Vector2d& b = cur[(i + 1) % cur.size()];
      const double da = sign * (a[axis] - bounds[side]), db = sign * (b[axis] - bounds[side]);
      if (da <= 0) next.push_back(a);
      if ((da < 0 && db > 0) || (da > 0 && db < 0)) next.push_back(a + (da / (da - db)) * (b - a));
    }
    cur.swap(next);
  }
  double area2 = 0.0;
  Eigen::Vector2d c = Eigen::Vector2d::Zero();
  for (size_t i = 0; i < cur.size(); ++i) {
    const Eigen::Vector2d& a = cur[i];
    const Eigen::Vector2d& b = cur[(i + 1) % cur.size()];
    const double cr = a.x() * b.y() - b.x() * a.y();
    area2 += cr;
    c += cr * (a + b);
  }
  if (std::abs(area2) < 1e-300) return 0.0;
  centroid = c / (3.0 * area2);
  return 0.5 * std::abs(area2);
}

// Replaces the corner points by a grid over the penetrating polygon `pen` (in the
// reference plane), with depth interpolated linearly from the polygon's separations.
void emit_grid(const FacePatch& patch, const Polygon& pen, int grid, ContactSet& out) {
  Vec3 U, V;
  plane_basis(patch.normal, U, V);
  const Vec3 origin = pen.v[0].p - patch.normal.dot(pen.v[0].p - patch.point) * patch.normal;
  std::vector<Eigen::Vector2d> poly2(pen.n);
  Eigen::Matrix3d AtA = Eigen::Matrix3d::Zero();
  Eigen::Vector3d Atb = Eigen::Vector3d::Zero();
  for (int i = 0; i < pen.n; ++i) {
    const Vec3 d = pen.v[i].p - origin;
    poly2[i] = {d.dot(U), d.dot(V)};
    const Eigen::Vector3d row(1.0, poly2[i].x(), poly2[i].y());
    AtA += row * row.transpose();
    Atb += row * patch.normal.dot(pen.v[i].p - patch.point);
  }
  const Eigen::Vector3d fit = AtA.ldlt().solve(Atb);  // separation ≈ fit·[1 u v]
  Eigen::Vector2d lo = poly2[0], hi = poly2[0];
  for (const auto& q : poly2) lo = lo.cwiseMin(q), hi = hi.cwiseMax(q);
  const Vec3 n_ab = patch.ref_is_a ? patch.normal : Vec3(-patch.normal);
  out.points.clear();
  for (int i = 0; i < grid; ++i)
    for (int j = 0; j < grid; ++j) {
      const double u0 = lo.x() + (hi.x() - lo.x()) * i / grid, u1 = lo.x() + (hi.x() - lo.x()) * (i + 1) / grid;
      const double v0 = lo.y() + (hi.y() - lo.y()) * j / grid, v1 = lo.y() + (hi.y() - lo.y()) * (j + 1) / grid;
      Eigen::Vector2d c;
      const double area = clip_cell(poly2, u0, u1, v0, v1, c);
      if (area <= 0.0) continue;
      const double s = fit[0] + fit[1] * c.x() + fit[2] * c.y();
      const Vec3 on_ref = origin + c.x() * U + c.y() * V;
      const Vec3 on_inc = on_ref + s * patch.normal;
      const std::uint64_t key = feature_key(patch.ref_is_a, patch.ref_id, patch.inc_id, 0x40000000u | (i * grid + j));
      if (patch.ref_is_a) add_point(out, on_ref, on_inc, n_ab, -s, key);
      else add_point(out, on_inc, on_ref, n_ab, -s, key);
      out.points.back().area = area;
    }
}

}  // namespace

void clip_to_face(const SupportFeature& ref, Polygon& poly) {
  // Ping-pong between poly and tmp; only the used vertices are copied back (a Polygon
  // holds room for kMaxPolygon of them, 2 KB).
  Polygon tmp;
  Polygon* in = &poly;
  Polygon* out = &tmp;
  const int m = ref.poly.n;
  for (int i = 0; i < m && in->n > 0; ++i) {
    const Vec3& a = ref.poly.v[i].p;
    const Vec3& b = ref.poly.v[(i + 1) % m].p;
    const Vec3 side = (b - a).cross(ref.normal);  // outward for a CCW face
    clip_halfspace(*in, side, side.dot(a), i, *out);
    std::swap(in, out);
  }
  if (in != &poly) {
    std::copy(in->v.begin(), in->v.begin() + in->n, poly.v.begin());
    poly.n = in->n;
  }
}

void add_point(ContactSet& out, const Vec3& point_a, const Vec3& point_b, const Vec3& normal,
               double depth, std::uint64_t feature) {
  out.points.push_back(make_contact_point(point_a, point_b, normal, depth, feature));
}

void flip_contacts(ContactSet& cs) {
  std::swap(cs.geom_a, cs.geom_b);
  cs.separating_axis = -cs.separating_axis;
  for (ContactPoint& c : cs.points) {
    c.normal = -c.normal;
    std::swap(c.point_a, c.point_b);
  }
}

double polygon_area(const Polygon& poly, const Vec3& normal) {
  if (poly.n < 3) return 0.0;
  Vec3 sum = Vec3::Zero();
  for (int i = 0; i < poly.n; ++i) sum += poly.v[i].p.cross(poly.v[(i + 1) % poly.n].p);
  return 0.5 * std::abs(sum.dot(normal));
}

int emit_face_contacts(const FacePatch& patch, const Polygon& incident, double margin,
                       const CollideOptions& options, ContactSet& out) {
  return emit_points(patch, incident, &incident, margin, options, out);
}

int emit_points(const FacePatch& patch, const Polygon& incident, const Polygon* face,
                double margin, const CollideOptions& options, ContactSet& out) {
  double sep[kMaxPolygon];
  bool keep[kMaxPolygon];
  for (int i = 0; i < incident.n; ++i) {
    sep[i] = patch.normal.dot(incident.v[i].p - patch.point);
    keep[i] = sep[i] <= margin;
  }
  int chosen[kMaxPolygon];
  const int count = reduce_points(incident, sep, keep, chosen);
  if (count == 0) return 0;
  const Vec3 n_ab = patch.ref_is_a ? patch.normal : Vec3(-patch.normal);
  const size_t first = out.points.size();
  for (int k = 0; k < count; ++k) {
    const PolyPoint& q = incident.v[chosen[k]];
    const double s = sep[chosen[k]];
    const Vec3 on_ref = q.p - s * patch.normal;
    const std::uint64_t key = feature_key(patch.ref_is_a, patch.ref_id, patch.inc_id, q.tag);
    if (patch.ref_is_a) add_point(out, on_ref, q.p, n_ab, -s, key);
    else add_point(out, q.p, on_ref, n_ab, -s, key);
  }
  // The penetrating part of the incident polygon is the contact patch.
  Polygon pen;
  if (face && face->n >= 3) clip_halfspace(*face, patch.normal, patch.normal.dot(patch.point), 0, pen);
  out.patch_area = polygon_area(pen, patch.normal);
  if (out.patch_area > 0.0 && options.patch_grid >= 2) {
    emit_grid(patch, pen, options.patch_grid, out);
    return static_cast<int>(out.points.size());
  }
  const double share = out.patch_area / count;
  for (size_t i = first; i < out.points.size(); ++i) out.points[i].area = share;
  return count;
}

}  // namespace graspsim
