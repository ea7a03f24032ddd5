// Separating-axis test between a mesh triangle and a convex piece, and contact points from
// the overlap of their support features projected on the plane normal to the chosen axis.
#include <algorithm>
#include <cmath>
#include <limits>

#include <Eigen/QR>

#include "collision/mesh_collide_detail.h"

namespace graspsim::mesh_collide_detail {

namespace {

using Vec2 = Eigen::Vector2d;

// One-sided triangles accept normals within 60° of their own (cos 60° = 0.5).
constexpr double kConeCos = 0.5;
// Support features gather vertices within this fraction of the piece's size of the extreme,
// so faces tilted by up to ~0.1° still give a face (several points), not a lone vertex.
constexpr double kFeatureTol = 2e-3;
// A face whose normal is within ~25° of the contact normal is the contact's support feature.
constexpr double kFaceCos = 0.9;


void add_unique(std::vector<Vec3>& dirs, const Vec3& d, bool either_sign) {
  for (const Vec3& e : dirs) {
    const double c = e.dot(d);
    if (c > 1.0 - 1e-9 || (either_sign && c < -1.0 + 1e-9)) return;
  }
  dirs.push_back(d);
}

double extent(const std::vector<Vec3>& pts) {
  Eigen::AlignedBox3d box;
  for (const Vec3& p : pts) box.extend(p);
  return box.diagonal().norm();
}

std::pair<double, double> project(const Piece& p, const Vec3& d) {
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  for (const Vec3& v : p.verts) {
    const double s = d.dot(v);
    lo = std::min(lo, s);
    hi = std::max(hi, s);
  }
  return {lo, hi};
}

// The projection of the solid a piece stands for: a one-sided triangle extends `thickness`
// behind itself.
std::pair<double, double> project_solid(const Piece& p, const Vec3& d) {
  auto [lo, hi] = project(p, d);
  if (p.one_sided) {
    const double dn = d.dot(p.normals[0]);
    lo -= p.thickness * std::max(0.0, dn);
    hi += p.thickness * std::max(0.0, -dn);
  }
  return {lo, hi};
}

bool allowed(const Piece& T, const Piece& O, const Vec3& d) {
  if (T.one_sided && d.dot(T.normals[0]) < kConeCos) return false;
  if (O.one_sided && -d.dot(O.normals[0]) < kConeCos) return false;
  return true;
}

// A support feature in the plane ⊥ d: its convex hull (counter-clockwise, 1–n points) and
// the height along d as a least-squares linear function of the plane coordinates (exact
// for a face, interpolating for an edge, constant for a vertex).
struct Feature {
  std::vector<Vec2> hull;
  Vec2 origin = Vec2::Zero();
  Eigen::Vector3d height = Eigen::Vector3d::Zero();  // h(q) = c0 + c1 (q−o).x + c2 (q−o).y
  double at(const Vec2& q) const { return height[0] + height.tail<2>().dot(q - origin); }
};

double cross2(const Vec2& a, const Vec2& b) { return a.x() * b.y() - a.y() * b.x(); }

std::vector<Vec2> convex_hull_2d(std::vector<Vec2> p, double eps) {
  std::sort(p.begin(), p.end(), [](const Vec2& a, const Vec2& b) { return a.x() < b.x() || (a.x() == b.x() && a.y() < b.y()); });
  if (p.size() < 3) {
    if (p.size() == 2 && (p[1] - p[0]).norm() <= eps) p.pop_back();
    return p;
  }
  std::vector<Vec2> h(2 * p.size());
  size_t k = 0;
  for (size_t i = 0; i < p.size(); ++i) {  // Andrew's monotone chain
    while (k >= 2 && cross2(h[k - 1] - h[k - 2], p[i] - h[k - 2]) <= eps * eps) --k;
    h[k++] = p[i];
  }
  for (size_t i = p.size() - 1, t = k + 1; i-- > 0;) {
    while (k >= t && cross2(h[k - 1] - h[k - 2], p[i] - h[k - 2]) <= eps * eps) --k;
    h[k++] = p[i];
  }
  h.resize(k > 1 ? k - 1 : k);
  if (h.size() == 2 && (h[1] - h[0]).norm() <= eps) h.pop_back();
  return h;
}

// The face of p best facing along d (highest) or against it: its vertices, or none when no
// face is within acos(kFaceCos) of the direction.
const std::vector<int>* facing_face(const Piece& p, const Vec3& d, bool highest) {
  const double sign = highest ? 1.0 : -1.0;
  int best = -1;
  for (int f = 0; f < static_cast<int>(p.normals.size()); ++f)
    if (best < 0 || sign * p.normals[f].dot(d) > sign * p.normals[best].dot(d)) best = f;
  return best >= 0 && sign * p.normals[best].dot(d) >= kFaceCos ? &p.faces[best] : nullptr;
}

Feature support_feature(const Piece& p, const Vec3& d, const Vec3& u, const Vec3& v, bool highest) {
  std::vector<Vec2> q;
  std::vector<double> h;
  auto take = [&](const Vec3& x) {
    q.emplace_back(u.dot(x), v.dot(x));
    h.push_back(d.dot(x));
  };
  const std::vector<int>* face = facing_face(p, d, highest);
  if (face) {
    for (int i : *face) take(p.verts[i]);  // a face: clipping it gives the whole patch
  } else {
    const auto [lo, hi] = project(p, d);
    const double tol = kFeatureTol * p.size;
    for (const Vec3& x : p.verts)
      if (highest ? d.dot(x) >= hi - tol : d.dot(x) <= lo + tol) take(x);
  }
  Feature f;
  for (const Vec2& x : q) f.origin += x / static_cast<double>(q.size());
  f.hull = convex_hull_2d(q, 1e-9 * p.size);
  if (face) {  // exact: the face's plane n·x = c, with x = q.x u + q.y v + h d
    const Vec3& n = p.normals[face - p.faces.data()];
    const double c = n.dot(p.verts[face->front()]), nd = n.dot(d);
    f.height << (c - n.dot(f.origin.x() * u + f.origin.y() * v)) / nd, -n.dot(u) / nd, -n.dot(v) / nd;
    return f;
  }
  // Least squares through the normal equations (3×3, no allocation); the minimum-norm
  // solution keeps rank-1 (vertex) and rank-2 (edge) fits well defined.
  Eigen::Matrix3d AtA = Eigen::Matrix3d::Zero();
  Eigen::Vector3d Atb = Eigen::Vector3d::Zero();
  const double scale = std::max(p.size, 1e-300);  // columns of comparable size
  for (size_t i = 0; i < q.size(); ++i) {
    const Eigen::Vector3d row(1.0, (q[i].x() - f.origin.x()) / scale, (q[i].y() - f.origin.y()) / scale);
    AtA += row * row.transpose();
    Atb += row * h[i];
  }
  Eigen::CompleteOrthogonalDecomposition<Eigen::Matrix3d> cod(AtA);
  cod.setThreshold(1e-10);
  f.height = cod.solve(Atb);
  f.height.tail<2>() /= scale;
  return f;
}

bool inside(const Vec2& q, const std::vector<Vec2>& poly, double eps) {
  if (poly.size() == 1) return (q - poly[0]).norm() <= eps;
  if (poly.size() == 2) {
    const Vec2 e = poly[1] - poly[0];
    const double t = std::clamp((q - poly[0]).dot(e) / e.squaredNorm(), 0.0, 1.0);
    return (poly[0] + t * e - q).norm() <= eps;
  }
  for (size_t i = 0; i < poly.size(); ++i)
    if (cross2(poly[(i + 1) % poly.size()] - poly[i], q - poly[i]) < -eps * (poly[(i + 1) % poly.size()] - poly[i]).norm())
      return false;
  return true;
}

// Distance from q to a convex 2D hull of 1–n points (0 inside).
double distance_to_hull(const Vec2& q, const std::vector<Vec2>& hull) {
  if (hull.size() >= 3 && inside(q, hull, 0.0)) return 0.0;
  double best = std::numeric_limits<double>::infinity();
  for (size_t i = 0; i < hull.size(); ++i) {
    const Vec2 a = hull[i], ab = hull[(i + 1) % hull.size()] - a;
    const double t = ab.squaredNorm() > 0 ? std::clamp((q - a).dot(ab) / ab.squaredNorm(), 0.0, 1.0) : 0.0;
    best = std::min(best, (a + t * ab - q).norm());
  }
  return best;
}

// Points of the intersection of two convex 2D sets: vertices of each inside the other and
// crossings of their edges.
std::vector<Vec2> overlap_points(const std::vector<Vec2>& a, const std::vector<Vec2>& b, double eps) {
  std::vector<Vec2> out;
  for (const Vec2& p : a)
    if (inside(p, b, eps)) out.push_back(p);
  for (const Vec2& p : b)
    if (inside(p, a, eps)) out.push_back(p);
  auto edges = [](const std::vector<Vec2>& p) { return p.size() < 2 ? 0 : p.size() == 2 ? 1 : p.size(); };
  for (size_t i = 0; i < edges(a); ++i)
    for (size_t j = 0; j < edges(b); ++j) {
      const Vec2 p = a[i], r = a[(i + 1) % a.size()] - p;
      const Vec2 q = b[j], s = b[(j + 1) % b.size()] - q;
      const double den = cross2(r, s);
      if (std::abs(den) < 1e-300) continue;  // parallel: endpoints were caught above
      const double t = cross2(q - p, s) / den, w = cross2(q - p, r) / den;
      if (t > 0.0 && t < 1.0 && w > 0.0 && w < 1.0) out.push_back(p + t * r);
    }
  return out;
}

void emit_contacts(const Piece& T, const Piece& O, const Vec3& d, double margin, std::vector<Candidate>& out) {
  const Vec3 u = d.unitOrthogonal(), v = d.cross(u);
  const Feature ft = support_feature(T, d, u, v, true), fo = support_feature(O, d, u, v, false);
  const double eps = 1e-9 * std::max(T.size, O.size);
  std::vector<Vec2> pts = overlap_points(ft.hull, fo.hull, eps);
  // Grazing: O's deepest vertex, if it lies over T within the margin. Farther off, T's plane
  // extrapolated under it would measure the depth of a corner that T never reaches (a 4 cm
  // pad corner below a tilted triangle of the bunny read as 4.7 cm of penetration).
  if (pts.empty() && distance_to_hull(fo.hull.front(), ft.hull) <= margin + eps) pts.push_back(fo.hull.front());
  for (const Vec2& q : pts) {
    const double ht = ft.at(q), ho = fo.at(q);
    if (ht - ho < -margin) continue;
    const Vec3 base = q.x() * u + q.y() * v;
    out.push_back({base + ht * d, base + ho * d, d, ht - ho});
  }
}

}  // namespace

Piece triangle_piece(const Vec3& a, const Vec3& b, const Vec3& c, double thickness) {
  Piece p;
  p.verts = {a, b, c};
  p.normals = {(b - a).cross(c - a).normalized()};
  p.faces = {{0, 1, 2}};
  p.thickness = thickness;
  p.edges = {(b - a).normalized(), (c - b).normalized(), (a - c).normalized()};
  p.one_sided = true;
  p.size = extent(p.verts);
  return p;
}

Piece box_piece(const Vec3& h, const Pose& X) {
  Piece p;
  const Mat3 R = X.R();
  for (int i = 0; i < 8; ++i) p.verts.push_back(X * Vec3(i & 1 ? h.x() : -h.x(), i & 2 ? h.y() : -h.y(), i & 4 ? h.z() : -h.z()));
  for (int i = 0; i < 3; ++i) {
    p.normals.push_back(R.col(i));
    p.normals.push_back(-R.col(i));
    p.edges.push_back(R.col(i));
    std::vector<int> hi_face, lo_face;  // vertex bit i set / clear
    for (int k = 0; k < 8; ++k) (k >> i & 1 ? hi_face : lo_face).push_back(k);
    p.faces.push_back(hi_face);
    p.faces.push_back(lo_face);
  }
  p.size = 2.0 * h.norm();
  return p;
}

Piece convex_mesh_piece(const Mesh& mesh, const Pose& X) {
  Piece p;
  for (const Vec3& v : mesh.vertices) p.verts.push_back(X * v);
  std::vector<Vec3> face_normals;
  for (const auto& f : mesh.faces) {
    const Vec3 n = (p.verts[f[1]] - p.verts[f[0]]).cross(p.verts[f[2]] - p.verts[f[0]]);
    face_normals.push_back(n.norm() > 0 ? Vec3(n.normalized()) : Vec3::Zero());
    if (n.norm() == 0) continue;
    const size_t before = p.normals.size();
    add_unique(p.normals, face_normals.back(), false);
    if (p.normals.size() > before) p.faces.emplace_back();
    // The merged face collects the vertices of every triangle in its plane.
    for (size_t k = 0; k < p.normals.size(); ++k)
      if (p.normals[k].dot(face_normals.back()) > 1.0 - 1e-9) {
        for (int i : f)
          if (std::find(p.faces[k].begin(), p.faces[k].end(), i) == p.faces[k].end()) p.faces[k].push_back(i);
        break;
      }
  }
  // Edges between coplanar triangles are not edges of the solid: skip them.
  std::vector<std::array<int, 3>> owner;  // (lo, hi, face) per directed edge, sorted to pair faces
  for (int fi = 0; fi < static_cast<int>(mesh.faces.size()); ++fi)
    for (int k = 0; k < 3; ++k) {
      const int a = mesh.faces[fi][k], b = mesh.faces[fi][(k + 1) % 3];
      owner.push_back({std::min(a, b), std::max(a, b), fi});
    }
  std::sort(owner.begin(), owner.end());
  for (size_t i = 0; i + 1 < owner.size(); ++i) {
    if (owner[i][0] != owner[i + 1][0] || owner[i][1] != owner[i + 1][1]) continue;
    if (face_normals[owner[i][2]].dot(face_normals[owner[i + 1][2]]) > 1.0 - 1e-9) continue;
    add_unique(p.edges, (p.verts[owner[i][1]] - p.verts[owner[i][0]]).normalized(), true);
  }
  p.size = extent(p.verts);
  return p;
}

void sat_contacts(const Piece& T, const Piece& O, double margin, std::vector<Candidate>& out) {
  double best = std::numeric_limits<double>::infinity();
  Vec3 best_d = Vec3::Zero();
  // False when d separates the pieces by more than the margin.
  // Two surface triangles take their normal from a face only: an edge-cross axis between two
  // one-sided triangles can pass both cones yet measure the overlap of unrelated walls.
  const bool edge_normals = !(T.one_sided && O.one_sided);
  auto consider = [&](Vec3 d, bool may_choose) {
    const double n = d.norm();
    if (n < 1e-9) return true;  // parallel edges
    d /= n;
    {
      const auto [tlo, thi] = project_solid(T, d);
      const auto [olo, ohi] = project_solid(O, d);
      if (olo - thi > margin || tlo - ohi > margin) return false;
    }
    if (!may_choose) return true;
    const auto [tlo, thi] = project(T, d);
    const auto [olo, ohi] = project(O, d);
    if (thi - olo < best && allowed(T, O, d)) best = thi - olo, best_d = d;     // O pushed along +d
    if (ohi - tlo < best && allowed(T, O, -d)) best = ohi - tlo, best_d = -d;   // O pushed along −d
    return true;
  };
  for (const Vec3& n : T.normals)
    if (!consider(n, true)) return;
  for (const Vec3& n : O.normals)
    if (!consider(n, true)) return;
  for (const Vec3& a : T.edges)
    for (const Vec3& b : O.edges)
      if (!consider(a.cross(b), edge_normals)) return;
  if (!std::isfinite(best)) return;  // no admissible normal (e.g. back-facing triangles)
  // Face on face (closed O has a face within ~25° of facing the triangle): push along the
  // mesh normal, as a box tilted on a flat mesh should be, whatever axis had the least
  // overlap over O as a whole. Two triangles keep the least-overlap face normal, which does
  // not depend on which mesh is A.
  if (T.one_sided && !O.one_sided && facing_face(O, T.normals[0], false) != nullptr) best_d = T.normals[0];
  emit_contacts(T, O, best_d, margin, out);
}

}  // namespace graspsim::mesh_collide_detail
