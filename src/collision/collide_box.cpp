// Boxes and flat-bottomed shapes: box-box by the separating axis test with face clipping,
// and box / cylinder / hull against a plane (every vertex or rim point below it).

#include <cmath>

#include "collision/manifold.h"
#include "collision/pairs.h"

namespace graspsim {
namespace {

double sgn(double x) { return x >= 0.0 ? 1.0 : -1.0; }

// Points of `candidates` within the margin of the plane, plus the patch from `face`.
void plane_points(const ConvexShape& plane, const Polygon& candidates, const Polygon* face, double margin,
                  const CollideOptions& options, ContactSet& out) {
  FacePatch patch;
  patch.normal = plane.axis();
  patch.point = plane.p;
  patch.ref_is_a = true;
  emit_points(patch, candidates, face, margin, options, out);
}

// The best axis found so far by the separating axis test.
struct SatAxis {
  double pen = kInf;
  int kind = -1;  // 0: face of A, 1: face of B, 2: edge × edge
  int i = 0, j = 0;
  Vec3 n_local = Vec3::Zero();  // in A's frame, from A towards B
};

// Edge of a box parallel to its local axis `axis` and extreme in world direction n.
void box_edge(const ConvexShape& box, int axis, const Vec3& n, Vec3& centre, Vec3& dir, std::uint32_t& id) {
  const Vec3 nl = box.R.transpose() * n;
  Vec3 c = Vec3::Zero();
  id = static_cast<std::uint32_t>(axis * 4);
  for (int k = 0, bit = 0; k < 3; ++k) {
    if (k == axis) continue;
    c[k] = sgn(nl[k]) * box.size[k];
    id += (nl[k] >= 0 ? 1u : 0u) << bit++;
  }
  centre = box.R * c + box.p;
  dir = box.size[axis] * box.R.col(axis);
}

}  // namespace

void plane_box(const ConvexShape& plane, const ConvexShape& box, double margin, const CollideOptions& options,
               ContactSet& out) {
  const auto corners = box_corners(box);
  Polygon candidates;
  for (int i = 0; i < 8; ++i) candidates.push(corners[i], static_cast<std::uint32_t>(i));
  SupportFeature face;
  supporting_feature(box, -plane.axis(), face);
  plane_points(plane, candidates, &face.poly, margin, options, out);
}

void plane_hull(const ConvexShape& plane, const ConvexShape& hull, double margin, const CollideOptions& options,
                ContactSet& out) {
  const Vec3 n = plane.axis();
  Polygon candidates;
  const auto& verts = hull.mesh->vertices;
  for (int i = 0; i < static_cast<int>(verts.size()); ++i) {
    const Vec3 v = hull.R * verts[i] + hull.p;
    if (n.dot(v - plane.p) <= margin) candidates.push(v, static_cast<std::uint32_t>(i));
  }
  SupportFeature face;
  supporting_feature(hull, -n, face);
  plane_points(plane, candidates, face.is_face ? &face.poly : nullptr, margin, options, out);
}

void plane_cylinder(const ConvexShape& plane, const ConvexShape& cyl, double margin, const CollideOptions& options,
                    ContactSet& out) {
  const Vec3 n = plane.axis(), a = cyl.axis();
  const double r = cyl.size.x(), hl = cyl.size.y();
  // Rim samples of both caps, starting at each cap's lowest rim point (exact deepest).
  Vec3 u = -n - (-n).dot(a) * a;
  u = u.norm() > 1e-3 ? Vec3(u.normalized()) : Vec3(cyl.R.col(0));
  const Vec3 v = a.cross(u);
  Polygon candidates;
  for (int cap = 0; cap < 2; ++cap)
    for (int m = 0; m < kRimPoints; ++m) {
      const double th = 2.0 * M_PI * m / kRimPoints;
      candidates.push(cyl.p + (cap ? hl : -hl) * a + r * (std::cos(th) * u + std::sin(th) * v),
                      static_cast<std::uint32_t>(cap * kRimPoints + m));
    }
  // A flat-lying cap is the patch, as a 32-gon (area within 0.7% of the disc).
  Polygon disc;
  const double c = n.dot(a);
  if (std::abs(c) >= std::cos(kFeatureAngle)) {
    const Vec3 centre = cyl.p - sgn(c) * hl * a;
    for (int m = 0; m < 32; ++m) {
      const double th = 2.0 * M_PI * m / 32;
      disc.push(centre + r * (std::cos(th) * u + std::sin(th) * v), 0x100u + m);
    }
  }
  plane_points(plane, candidates, disc.n ? &disc : nullptr, margin, options, out);
}

void box_box(const ConvexShape& a, const ConvexShape& b, double margin, const CollideOptions& options,
             ContactSet& out) {
  const Mat3 R = a.R.transpose() * b.R;  // B's axes in A's frame
  const Vec3 t = a.R.transpose() * (b.p - a.p);
  const Mat3 absR = R.cwiseAbs();
  const Vec3 &ha = a.size, &hb = b.size;
  SatAxis face, edge;
  // Face axes of A then B; a separating axis beyond the margin ends the test.
  for (int i = 0; i < 3; ++i) {
    const double pen = ha[i] + hb.dot(absR.row(i)) - std::abs(t[i]);
    if (pen < -margin) return;
    if (pen < face.pen) face = {pen, 0, i, 0, sgn(t[i]) * Vec3::Unit(i)};
  }
  for (int j = 0; j < 3; ++j) {
    const double tj = t.dot(R.col(j));
    const double pen = ha.dot(absR.col(j)) + hb[j] - std::abs(tj);
    if (pen < -margin) return;
    if (pen < face.pen) face = {pen, 1, 0, j, sgn(tj) * R.col(j)};
  }
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      Vec3 L = Vec3::Unit(i).cross(R.col(j));
      const double len = L.norm();
      if (len < 1e-6) continue;  // parallel edges: the face axes cover this direction
      L /= len;
      const double ra = ha.dot(L.cwiseAbs()), rb = hb.dot((R.transpose() * L).cwiseAbs());
      const double tl = t.dot(L);
      const double pen = ra + rb - std::abs(tl);
      if (pen < -margin) return;
      if (pen < edge.pen) edge = {pen, 2, i, j, sgn(tl) * L};
    }
  // Prefer faces unless an edge pair is clearly shallower: faces give stable manifolds.
  const double tol = 1e-7 * (ha.sum() + hb.sum());
  const SatAxis& best = edge.pen < face.pen - tol ? edge : face;
  const Vec3 n = a.R * best.n_local;
  if (best.kind == 2) {
    Vec3 ca, da, cb, db;
    std::uint32_t ida, idb;
    box_edge(a, best.i, n, ca, da, ida);
    box_edge(b, best.j, -n, cb, db, idb);
    double s, u;
    closest_segments(ca - da, 2.0 * da, cb - db, 2.0 * db, s, u);
    const Vec3 pa = ca - da + 2.0 * s * da, pb = cb - db + 2.0 * u * db;
    add_point(out, pa, pb, n, best.pen, feature_key(2, ida, idb));
    return;
  }
  SupportFeature ref, inc;
  const bool ref_is_a = best.kind == 0;
  supporting_feature(ref_is_a ? a : b, ref_is_a ? n : Vec3(-n), ref);
  supporting_feature(ref_is_a ? b : a, ref_is_a ? Vec3(-n) : n, inc);
  clip_to_face(ref, inc.poly);
  FacePatch patch{ref.normal, ref.poly.v[0].p, ref_is_a, ref.id, inc.id};
  if (emit_face_contacts(patch, inc.poly, margin, options, out) > 0) return;
  // Clipping lost every point (touching at a face border within round-off): one point.
  const Vec3 pa = support(a, n), pb = support(b, -n);
  add_point(out, pa, pb, n, best.pen, feature_key(3, ref.id, inc.id));
}

}  // namespace graspsim
