// The general convex path: GJK on the cores for separated pairs, libccd's EPA for
// overlapping cores, then a manifold from the supporting features: when a face of either
// shape is aligned with the contact normal, the other shape's feature is clipped to it.

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

}  // namespace

void collide_convex_general(const ConvexShape& a, const ConvexShape& b, double margin,
                            const CollideOptions& options, ContactSet& out) {
  const double ra = a.radius(), rb = b.radius();
  const GjkResult g = gjk_distance(a, b, ra + rb + margin);
  if (g.beyond) return;
  // Cores farther apart than ~1e-9 m give an exact normal; closer, EPA decides.
  if (!g.overlap && g.distance > 1e-9) {
    const double gap = g.distance - ra - rb;
    if (gap > margin) return;
    const Vec3 n = (g.point_b - g.point_a) / g.distance;
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
  if (best != n) {
    n = best;
    depth = best_depth;
    pa = support(a, n);
    pb = support(b, -n);
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
