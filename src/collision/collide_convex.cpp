// The general convex path: GJK on the cores for separated pairs, libccd's EPA for
// overlapping cores, then a manifold from the supporting features: when a face of either
// shape is aligned with the contact normal, the other shape's feature is clipped to it.

#include <array>
#include <cmath>

#include "collision/gjk.h"
#include "collision/manifold.h"
#include "collision/pairs.h"

namespace graspsim {
namespace {

constexpr double kSnapAngle = 1e-4;  // rad

void build_manifold(const ConvexShape& a, const ConvexShape& b, const Vec3& n, const Vec3& pa, const Vec3& pb,
                    double depth, double margin, const CollideOptions& options, ContactSet& out) {
  SupportFeature fa, fb;
  supporting_feature(a, n, fa);
  supporting_feature(b, -n, fb);
  // A vertex is exactly the GJK/EPA witness; only extended features need clipping.
  const double align_a = fa.is_face && fb.poly.n >= 2 ? fa.normal.dot(n) : -2.0;
  const double align_b = fb.is_face && fa.poly.n >= 2 ? -fb.normal.dot(n) : -2.0;
  // Clip against a face only when the normal is that face's normal to within kSnapAngle:
  // the face is then the minimum-translation direction (GJK and EPA return face normals
  // to round-off, since the Minkowski difference is flat there) and clipping is exact.
  if (std::max(align_a, align_b) >= std::cos(kSnapAngle)) {
    const bool ref_is_a = align_a >= align_b;
    const SupportFeature& ref = ref_is_a ? fa : fb;
    SupportFeature& inc = ref_is_a ? fb : fa;
    clip_to_face(ref, inc.poly);
    FacePatch patch{ref.normal, ref.poly.v[0].p, ref_is_a, ref.id, inc.id};
    if (emit_face_contacts(patch, inc.poly, margin, options, out) > 0) return;
  }
  add_point(out, pa, pb, n, depth, feature_key(4, fa.id, fb.id));
}

// Calls f(p, q) for each edge of a feature: none for a vertex, one for a segment, the
// closed boundary of a face.
template <typename F>
void for_each_edge(const Polygon& poly, F&& f) {
  if (poly.n == 2) f(poly.v[0].p, poly.v[1].p);
  if (poly.n < 3) return;
  for (int i = 0; i < poly.n; ++i) f(poly.v[i].p, poly.v[(i + 1) % poly.n].p);
}

// The support set of a shape along n: its supporting feature's points within kSupportTol of
// the support plane (a vertex, an edge or a face), and the plane's height n·x.
constexpr double kSupportTol = 1e-7;  // m: EPA's normal is good to ~1e-9 m over a shape's size
double support_set(const ConvexShape& s, const Vec3& n, std::array<Vec3, kMaxPolygon>& pts, int& count) {
  SupportFeature f;
  supporting_feature(s, n, f);
  double top = support(s, n).dot(n);
  for (int i = 0; i < f.poly.n; ++i) top = std::max(top, f.poly.v[i].p.dot(n));
  count = 0;
  for (int i = 0; i < f.poly.n; ++i)
    if (f.poly.v[i].p.dot(n) >= top - kSupportTol) pts[static_cast<size_t>(count++)] = f.poly.v[i].p;
  if (count == 0) pts[static_cast<size_t>(count++)] = support(s, n);
  return top;
}

// Witness points of a contact along n (A→B) with penetration `depth`: a vertex of either
// support set, the closest points of two edges, or else the mean of the support set's points.
void feature_witnesses(const ConvexShape& a, const ConvexShape& b, const Vec3& n, double depth, Vec3& pa, Vec3& pb) {
  std::array<Vec3, kMaxPolygon> sa, sb;
  int na = 0, nb = 0;
  support_set(a, n, sa, na);
  support_set(b, -n, sb, nb);
  if (na == 1) {
    pa = sa[0];
    pb = pa - depth * n;
  } else if (nb == 1) {
    pb = sb[0];
    pa = pb + depth * n;
  } else if (na == 2 && nb == 2) {
    double s = 0.0, t = 0.0;
    closest_segments(sa[0], sa[1] - sa[0], sb[0], sb[1] - sb[0], s, t);
    const Vec3 xa = sa[0] + s * (sa[1] - sa[0]), xb = sb[0] + t * (sb[1] - sb[0]);
    pa = 0.5 * (xa + xb) + 0.5 * depth * n;  // (xa − xb is depth·n up to the tolerance)
    pb = pa - depth * n;
  } else {
    // A face or an edge against a face: the smaller set lies over the larger one's face.
    const bool use_a = na <= nb;
    const auto& set = use_a ? sa : sb;
    Vec3 mean = Vec3::Zero();
    for (int i = 0; i < (use_a ? na : nb); ++i) mean += set[static_cast<size_t>(i)];
    mean /= (use_a ? na : nb);
    pa = use_a ? mean : Vec3(mean + depth * n);
    pb = pa - depth * n;
  }
}

}  // namespace

void collide_convex_general(const ConvexShape& a, const ConvexShape& b, double margin,
                            const CollideOptions& options, ContactSet& out) {
  const double ra = a.radius(), rb = b.radius();
  const GjkResult g = gjk_distance(a, b, ra + rb + margin);
  if (g.beyond) {
    out.separating_axis = g.separation;
    return;
  }
  // Cores farther apart than ~1e-9 m give an exact normal; closer, EPA decides.
  if (!g.overlap && g.distance > 1e-9) {
    const double gap = g.distance - ra - rb;
    const Vec3 n = (g.point_b - g.point_a) / g.distance;
    if (gap > margin) {
      out.separating_axis = n;
      return;
    }
    build_manifold(a, b, n, g.point_a + ra * n, g.point_b - rb * n, -gap, margin, options, out);
    return;
  }
  double depth;
  Vec3 n, pa, pb;
  const bool cores = ra + rb > 0 && epa_penetration(a, b, true, depth, n, pa, pb, options.mpr);
  if (!cores && !epa_penetration(a, b, false, depth, n, pa, pb, options.mpr)) {
    // Touching within round-off: a zero-depth contact along the centre line.
    const Vec3 d = b.p - a.p;
    n = d.norm() > 1e-12 ? Vec3(d.normalized()) : Vec3::UnitZ();
    pa = pb = 0.5 * (g.point_a + g.point_b);
    depth = 0.0;
  }
  // The penetration depth is the minimum over directions d of depth_along(d), which the support
  // functions give exactly; EPA only approximates the minimiser. When the shapes just touch, the
  // origin lies on the boundary of the Minkowski difference and EPA can return the opposite
  // face's normal (a rod touching a box side came out 99.5 mm deep) or a tilted one (a disc
  // fingertip resting on a box face came out as one point with a 50-degree normal). So the
  // opposite direction and the faces' own axes compete with EPA's normal; a face axis wins ties
  // (within 1 nm), since touching faces are what the manifold clips into a patch.
  auto depth_along = [&](const Vec3& d) { return support(a, d).dot(d) - support(b, -d).dot(d); };
  Vec3 best = n;
  double best_depth = depth_along(n);
  const auto consider = [&](const Vec3& d, double tie) {
    const double dd = depth_along(d);
    if (dd < best_depth - tie) best = d, best_depth = dd;
  };
  consider(-n, 0.0);
  for (const ConvexShape* s : {&a, &b}) {
    const int axes = s->type == GeomType::Box ? 3 : s->type == GeomType::Cylinder ? 1 : 0;
    for (int k = 0; k < axes; ++k) {
      const Vec3 axis = s->R.col(s->type == GeomType::Cylinder ? 2 : k);
      consider(axis, -1e-9);
      consider(-axis, -1e-9);
    }
  }
  // Two edges crossing (a pad's edge on a leaning prism's edge) touch along their common
  // perpendicular, which is no face axis: EPA's normal there was 4e-4 rad off and, with the
  // object's far end in the projection, 44 um deep where the shapes only touched. So the
  // supporting features' edge pairs compete too (local SAT), unless a face already fits.
  SupportFeature fa, fb;
  supporting_feature(a, best, fa);
  supporting_feature(b, -best, fb);
  const double cos_snap = std::cos(kSnapAngle);
  const bool face_fits = (fa.is_face && fa.normal.dot(best) >= cos_snap) || (fb.is_face && -fb.normal.dot(best) >= cos_snap);
  if (!face_fits) {
    for_each_edge(fa.poly, [&](const Vec3& a0, const Vec3& a1) {
      for_each_edge(fb.poly, [&](const Vec3& b0, const Vec3& b1) {
        Vec3 d = (a1 - a0).cross(b1 - b0);
        const double len = d.norm();
        if (!(len > 1e-12 * (a1 - a0).norm() * (b1 - b0).norm())) return;  // parallel edges
        d /= len;
        consider(d.dot(best) >= 0 ? d : Vec3(-d), 0.0);
      });
    });
  }
  if (best != n) {
    // A face or edge pair beat EPA's direction: EPA's point (a median of its polytope's
    // vertices, which put a pad's contact 100 mm up a prism) is no witness for it. Where
    // EPA's direction stands its point stays: replacing it everywhere moved the SPOOK
    // robot grasps' contacts (the Robotiq cylinder lifted 3 mm short, a Shadow Hand's bunny
    // slipped 1.9 mm in a hold).
    n = best;
    depth = best_depth;
    feature_witnesses(a, b, n, depth, pa, pb);
  }
  build_manifold(a, b, n, pa, pb, depth, margin, options, out);
}

// A box and a cylinder whose axis is parallel to one of the box's axes (an upright pusher at an
// upright box: the push scenes, MCube's rect1). Their Minkowski difference is then a rounded
// rectangle (the box's cross-section grown by the radius) extruded along that axis, so the
// separation or penetration and its direction are closed forms and GJK and EPA are skipped (they
// were ~24 % of a push step). The direction is a box face axis (exact: a flat face of the
// difference), the axis, or from a box edge radially to the cylinder; depth and witness points
// come from the support functions as in the general path, and the manifold is built the same way.
// Axes more than ~1.4e-6 rad from parallel take the general path.
void box_cylinder(const ConvexShape& box, const ConvexShape& cyl, double margin, const CollideOptions& options,
                  ContactSet& out) {
  const Vec3 axis = cyl.axis();
  int k = 0;
  for (int i = 1; i < 3; ++i)
    if (std::abs(box.R.col(i).dot(axis)) > std::abs(box.R.col(k).dot(axis))) k = i;
  if (std::abs(box.R.col(k).dot(axis)) < 1 - 1e-12) return collide_convex_general(box, cyl, margin, options, out);
  const int i = (k + 1) % 3, j = (k + 2) % 3;
  const Vec3 s = box.R.transpose() * (cyl.p - box.p);  // the cylinder's centre in the box frame
  const auto toward = [&](int a) { return Vec3(s[a] < 0 ? Vec3(-box.R.col(a)) : Vec3(box.R.col(a))); };
  const double r = cyl.size.x(), half = cyl.size.y();
  // In the plane across the axis: the centre against the rectangle grown by r.
  const double ei = std::abs(s[i]) - box.size[i], ej = std::abs(s[j]) - box.size[j];
  double plane;
  Vec3 n_plane;
  if (ei > 0 && ej > 0) {  // beside a box edge: radially from it
    const double rho = std::hypot(ei, ej);
    plane = rho - r;
    n_plane = (ei * toward(i) + ej * toward(j)) / rho;
  } else if (ei >= ej) {
    plane = ei - r, n_plane = toward(i);
  } else {
    plane = ej - r, n_plane = toward(j);
  }
  const double along = std::abs(s[k]) - box.size[k] - half;
  Vec3 n;
  if (plane > 0 && along > 0) {  // apart both across and along the axis
    const double gap = std::hypot(plane, along);
    if (gap > margin) return;
    n = (plane * n_plane + along * toward(k)) / gap;
  } else {
    if (std::max(plane, along) > margin) return;
    n = plane >= along ? n_plane : toward(k);
  }
  const Vec3 pa = support(box, n), pb = support(cyl, -n);
  build_manifold(box, cyl, n, pa, pb, (pa - pb).dot(n), margin, options, out);
}

}  // namespace graspsim
