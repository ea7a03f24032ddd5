// Closed-form contacts of spheres and capsules (a point or segment core swept by a radius)
// with planes, spheres, capsules, boxes and cylinders.

#include <algorithm>
#include <cmath>

#include "collision/manifold.h"
#include "collision/pairs.h"

namespace graspsim {
namespace {

double sgn(double x) { return x >= 0.0 ? 1.0 : -1.0; }

// Two spheres (ca, ra) and (cb, rb); `fallback` is the normal when the centres coincide.
void sphere_pair(const Vec3& ca, double ra, const Vec3& cb, double rb, double margin,
                 const Vec3& fallback, std::uint64_t key, ContactSet& out) {
  const Vec3 d = cb - ca;
  const double len = d.norm();
  if (len - ra - rb > margin) return;
  const Vec3 n = len > 1e-12 ? Vec3(d / len) : fallback;
  add_point(out, ca + ra * n, cb - rb * n, n, ra + rb - len, key);
}

// A unit vector perpendicular to the unit vector a.
Vec3 any_perpendicular(const Vec3& a) {
  return a.cross(std::abs(a.x()) < 0.9 ? Vec3::UnitX() : Vec3::UnitY()).normalized();
}

}  // namespace

void closest_segments(const Vec3& p0, const Vec3& d0, const Vec3& p1, const Vec3& d1, double& s, double& t) {
  constexpr double eps = 1e-24;
  const Vec3 r = p0 - p1;
  const double a = d0.squaredNorm(), e = d1.squaredNorm(), f = d1.dot(r);
  if (a <= eps && e <= eps) {
    s = t = 0.0;
    return;
  }
  if (a <= eps) {
    s = 0.0;
    t = std::clamp(f / e, 0.0, 1.0);
    return;
  }
  const double c = d0.dot(r);
  if (e <= eps) {
    t = 0.0;
    s = std::clamp(-c / a, 0.0, 1.0);
    return;
  }
  const double b = d0.dot(d1), denom = a * e - b * b;
  s = denom > 1e-14 * a * e ? std::clamp((b * f - c * e) / denom, 0.0, 1.0) : 0.0;
  t = (b * s + f) / e;
  if (t < 0.0) {
    t = 0.0;
    s = std::clamp(-c / a, 0.0, 1.0);
  } else if (t > 1.0) {
    t = 1.0;
    s = std::clamp((b - c) / a, 0.0, 1.0);
  }
}

void plane_sphere(const ConvexShape& plane, const ConvexShape& sphere, double margin, const CollideOptions&,
                  ContactSet& out) {
  const Vec3 n = plane.axis();
  const double h = n.dot(sphere.p - plane.p), r = sphere.size.x();
  if (h - r > margin) return;
  add_point(out, sphere.p - h * n, sphere.p - r * n, n, r - h, feature_key(0, 0, 0));
}

void plane_capsule(const ConvexShape& plane, const ConvexShape& cap, double margin, const CollideOptions&,
                   ContactSet& out) {
  const Vec3 n = plane.axis();
  const double r = cap.size.x();
  for (int end = 0; end < 2; ++end) {
    const Vec3 e = cap.p + (end ? 1.0 : -1.0) * cap.size.y() * cap.axis();
    const double h = n.dot(e - plane.p);
    if (h - r <= margin) add_point(out, e - h * n, e - r * n, n, r - h, feature_key(0, 0, end));
  }
}

void sphere_sphere(const ConvexShape& a, const ConvexShape& b, double margin, const CollideOptions&,
                   ContactSet& out) {
  sphere_pair(a.p, a.size.x(), b.p, b.size.x(), margin, Vec3::UnitZ(), feature_key(0, 0, 0), out);
}

void sphere_capsule(const ConvexShape& a, const ConvexShape& b, double margin, const CollideOptions&,
                    ContactSet& out) {
  const Vec3 e0 = b.p - b.size.y() * b.axis(), d = 2.0 * b.size.y() * b.axis();
  const double t = d.squaredNorm() > 0 ? std::clamp((a.p - e0).dot(d) / d.squaredNorm(), 0.0, 1.0) : 0.0;
  const std::uint32_t region = t <= 0.0 ? 0 : (t >= 1.0 ? 2 : 1);
  sphere_pair(a.p, a.size.x(), e0 + t * d, b.size.x(), margin, b.R.col(0), feature_key(0, region, 0), out);
}

void capsule_capsule(const ConvexShape& a, const ConvexShape& b, double margin, const CollideOptions&,
                     ContactSet& out) {
  const Vec3 ea = a.p - a.size.y() * a.axis(), da = 2.0 * a.size.y() * a.axis();
  const Vec3 eb = b.p - b.size.y() * b.axis(), db = 2.0 * b.size.y() * b.axis();
  const double ra = a.size.x(), rb = b.size.x();
  const Vec3 cross = a.axis().cross(b.axis());
  const Vec3 fallback = cross.norm() > 1e-9 ? Vec3(cross.normalized()) : any_perpendicular(a.axis());
  if (cross.norm() < std::sin(kFeatureAngle) && da.squaredNorm() > 0) {
    // Nearly parallel: one point at each end of the overlap of the two segments.
    const double s0 = std::clamp((eb - ea).dot(da) / da.squaredNorm(), 0.0, 1.0);
    const double s1 = std::clamp((eb + db - ea).dot(da) / da.squaredNorm(), 0.0, 1.0);
    const double lo = std::min(s0, s1), hi = std::max(s0, s1);
    if ((hi - lo) * std::sqrt(da.squaredNorm()) > 1e-9) {
      for (int k = 0; k < 2; ++k) {
        const Vec3 pa = ea + (k ? hi : lo) * da;
        const double t = db.squaredNorm() > 0 ? std::clamp((pa - eb).dot(db) / db.squaredNorm(), 0.0, 1.0) : 0.0;
        sphere_pair(pa, ra, eb + t * db, rb, margin, fallback, feature_key(1, 1, k), out);
      }
      return;
    }
  }
  double s, t;
  closest_segments(ea, da, eb, db, s, t);
  sphere_pair(ea + s * da, ra, eb + t * db, rb, margin, fallback, feature_key(0, 0, 0), out);
}

void sphere_box(const ConvexShape& a, const ConvexShape& b, double margin, const CollideOptions&, ContactSet& out) {
  const Vec3 c = b.R.transpose() * (a.p - b.p);
  const Vec3& h = b.size;
  const double r = a.size.x();
  const Vec3 q = c.cwiseMax(-h).cwiseMin(h);
  const Vec3 diff = c - q;
  const double dist = diff.norm();
  if (dist > 1e-12) {  // centre outside the box
    if (dist - r > margin) return;
    std::uint32_t region = 0;
    for (int k = 0; k < 3; ++k) region = region * 3 + (c[k] < -h[k] ? 1 : (c[k] > h[k] ? 2 : 0));
    const Vec3 n = -(b.R * diff) / dist;
    add_point(out, a.p + r * n, b.R * q + b.p, n, r - dist, feature_key(0, region, 0));
    return;
  }
  // Centre inside: leave through the nearest face.
  int k = 0;
  (h - c.cwiseAbs()).minCoeff(&k);
  Vec3 f = c;
  f[k] = sgn(c[k]) * h[k];
  const Vec3 n = -sgn(c[k]) * b.R.col(k);
  add_point(out, a.p + r * n, b.R * f + b.p, n, r + h[k] - std::abs(c[k]),
            feature_key(1, static_cast<std::uint32_t>(2 * k + (c[k] >= 0)), 0));
}

void sphere_cylinder(const ConvexShape& a, const ConvexShape& b, double margin, const CollideOptions&,
                     ContactSet& out) {
  const Vec3 c = b.R.transpose() * (a.p - b.p);
  const double r = b.size.x(), hl = b.size.y(), ra = a.size.x();
  const double rho = std::hypot(c.x(), c.y());
  const Eigen::Vector2d u = rho > 1e-12 ? Eigen::Vector2d(c.head<2>() / rho) : Eigen::Vector2d(1.0, 0.0);
  if (rho <= r && std::abs(c.z()) <= hl) {  // centre inside: nearest of side and cap
    Vec3 q, o;
    std::uint32_t feature;
    double pen;
    if (hl - std::abs(c.z()) <= r - rho) {
      q = Vec3(c.x(), c.y(), sgn(c.z()) * hl), o = sgn(c.z()) * Vec3::UnitZ(), pen = hl - std::abs(c.z());
      feature = c.z() >= 0 ? 2 : 1;
    } else {
      q = Vec3(r * u.x(), r * u.y(), c.z()), o = Vec3(u.x(), u.y(), 0.0), pen = r - rho, feature = 0;
    }
    const Vec3 n = -(b.R * o);
    add_point(out, a.p + ra * n, b.R * q + b.p, n, ra + pen, feature_key(1, feature, 0));
    return;
  }
  Vec3 q = c;
  if (rho > r) q.head<2>() = r * u;
  q.z() = std::clamp(c.z(), -hl, hl);
  const Vec3 diff = c - q;
  const double dist = diff.norm();
  if (dist - ra > margin) return;
  const Vec3 n = -(b.R * diff) / dist;
  const std::uint32_t region = (rho > r ? 1u : 0u) | (c.z() > hl ? 2u : 0u) | (c.z() < -hl ? 4u : 0u);
  add_point(out, a.p + ra * n, b.R * q + b.p, n, ra - dist, feature_key(0, region, 0));
}

}  // namespace graspsim
