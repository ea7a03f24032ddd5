#include "collision/gjk.h"

#include <ccd/ccd.h>

#include <algorithm>
#include <cmath>

namespace graspsim {
namespace {

struct Vertex {
  Vec3 w = Vec3::Zero(), a = Vec3::Zero(), b = Vec3::Zero();  // w = a − b: a point of A ⊖ B
};

struct Simplex {
  Vertex v[4];
  double lambda[4] = {1, 0, 0, 0};
  int n = 0;
  // Keeps only vertices with positive weight, preserving order.
  void compact() {
    int m = 0;
    for (int i = 0; i < n; ++i)
      if (lambda[i] > 0) v[m] = v[i], lambda[m] = lambda[i], ++m;
    n = m;
  }
};

// Closest point of segment / triangle to the origin, as barycentric weights (Ericson,
// Real-Time Collision Detection, 5.1.2 and 5.1.5).
void closest_segment(Simplex& s) {
  const Vec3 ab = s.v[1].w - s.v[0].w;
  const double denom = ab.squaredNorm();
  double t = denom > 0 ? -s.v[0].w.dot(ab) / denom : 0.0;
  t = std::clamp(t, 0.0, 1.0);
  s.lambda[0] = 1.0 - t;
  s.lambda[1] = t;
  if (t == 0.0) s.lambda[1] = 0.0, s.lambda[0] = 1.0;
  if (t == 1.0) s.lambda[0] = 0.0;
}

void set3(Simplex& s, double l0, double l1, double l2) {
  s.lambda[0] = l0, s.lambda[1] = l1, s.lambda[2] = l2;
}

void closest_triangle(Simplex& s) {
  const Vec3 &a = s.v[0].w, &b = s.v[1].w, &c = s.v[2].w;
  const Vec3 ab = b - a, ac = c - a;
  const double d1 = -ab.dot(a), d2 = -ac.dot(a);
  if (d1 <= 0 && d2 <= 0) return set3(s, 1, 0, 0);
  const double d3 = -ab.dot(b), d4 = -ac.dot(b);
  if (d3 >= 0 && d4 <= d3) return set3(s, 0, 1, 0);
  const double vc = d1 * d4 - d3 * d2;
  if (vc <= 0 && d1 >= 0 && d3 <= 0) {
    const double t = d1 / (d1 - d3);
    return set3(s, 1 - t, t, 0);
  }
  const double d5 = -ab.dot(c), d6 = -ac.dot(c);
  if (d6 >= 0 && d5 <= d6) return set3(s, 0, 0, 1);
  const double vb = d5 * d2 - d1 * d6;
  if (vb <= 0 && d2 >= 0 && d6 <= 0) {
    const double t = d2 / (d2 - d6);
    return set3(s, 1 - t, 0, t);
  }
  const double va = d3 * d6 - d5 * d4;
  if (va <= 0 && (d4 - d3) >= 0 && (d5 - d6) >= 0) {
    const double t = (d4 - d3) / ((d4 - d3) + (d5 - d6));
    return set3(s, 0, 1 - t, t);
  }
  const double denom = 1.0 / (va + vb + vc);
  set3(s, va * denom, vb * denom, vc * denom);
}

// Returns false when the origin is inside the tetrahedron.
bool closest_tetrahedron(Simplex& s) {
  static constexpr int faces[4][4] = {{0, 1, 2, 3}, {0, 3, 1, 2}, {0, 2, 3, 1}, {1, 3, 2, 0}};
  double best = kInf;
  Simplex best_s;
  bool outside_any = false;
  for (const auto& f : faces) {
    const Vec3 &a = s.v[f[0]].w, &b = s.v[f[1]].w, &c = s.v[f[2]].w, &d = s.v[f[3]].w;
    const Vec3 nrm = (b - a).cross(c - a);
    const double so = -nrm.dot(a), sd = nrm.dot(d - a);
    if (so * sd >= 0 && !(sd == 0)) continue;  // origin on the same side as d
    outside_any = true;
    Simplex t;
    t.n = 3;
    t.v[0] = s.v[f[0]], t.v[1] = s.v[f[1]], t.v[2] = s.v[f[2]];
    closest_triangle(t);
    const Vec3 p = t.lambda[0] * t.v[0].w + t.lambda[1] * t.v[1].w + t.lambda[2] * t.v[2].w;
    if (p.squaredNorm() < best) best = p.squaredNorm(), best_s = t;
  }
  if (!outside_any) return false;
  s = best_s;
  return true;
}

Vec3 combine(const Simplex& s, Vec3 Vertex::*field) {
  Vec3 p = Vec3::Zero();
  for (int i = 0; i < s.n; ++i) p += s.lambda[i] * (s.v[i].*field);
  return p;
}

// Distance of the cores of a and b when GJK stalled: B's core inflated by `inflate` (more
// than their distance) certainly overlaps A's, so EPA is in its well-posed regime; the core
// distance is inflate − depth. False if EPA fails too.
bool inflated_distance(const ConvexShape& a, const ConvexShape& b, double inflate, GjkResult& r);

}  // namespace

GjkResult gjk_distance(const ConvexShape& a, const ConvexShape& b, double stop_beyond) {
  GjkResult r;
  Simplex s;
  Vec3 v = a.p - b.p;
  if (v.squaredNorm() < 1e-24) v = Vec3::UnitX();
  const double scale = 1.0 + v.norm();
  constexpr int kMaxIterations = 64;
  double lower = 0.0;  // best lower bound on the distance seen (a separating plane)
  for (r.iterations = 0; r.iterations < kMaxIterations; ++r.iterations) {
    Vertex nv;
    nv.a = support_core(a, -v);
    nv.b = support_core(b, v);
    nv.w = nv.a - nv.b;
    const double vv = v.squaredNorm();
    // v·w / |v| is a lower bound on the distance (a separating plane).
    const double vw = v.dot(nv.w);
    if (vw > 0) lower = std::max(lower, vw / std::sqrt(vv));
    if (vw > 0 && vw * vw > stop_beyond * stop_beyond * vv) {
      r.beyond = true;
      r.distance = vw / std::sqrt(vv);
      r.separation = -v / std::sqrt(vv);  // (A − B lies beyond the plane along v: B to A)
      return r;
    }
    // Converged when the new support point brings |v| closer by less than ~1e-10 relative.
    if (s.n > 0 && vv - v.dot(nv.w) <= 1e-10 * vv) break;
    bool duplicate = false;
    for (int i = 0; i < s.n; ++i) duplicate = duplicate || (s.v[i].w - nv.w).squaredNorm() < 1e-26 * scale * scale;
    if (duplicate) break;
    s.v[s.n++] = nv;
    if (s.n == 1) s.lambda[0] = 1.0;
    else if (s.n == 2) closest_segment(s);
    else if (s.n == 3) closest_triangle(s);
    else if (!closest_tetrahedron(s)) {
      r.overlap = true;
      return r;
    }
    s.compact();
    const Vec3 nv_closest = combine(s, &Vertex::w);
    if (nv_closest.squaredNorm() < 1e-24 * scale * scale) {
      r.overlap = true;
      return r;
    }
    if (s.n > 1 && nv_closest.squaredNorm() >= vv) break;  // no progress (round-off)
    v = nv_closest;
  }
  r.point_a = combine(s, &Vertex::a);
  r.point_b = combine(s, &Vertex::b);
  r.distance = (r.point_a - r.point_b).norm();
  // A repeated support point or a stalled step ends the loop; at the optimum the upper
  // bound |v| meets the lower bound. When they are apart the simplex degenerated (seen: a
  // cylinder touching a rotated box reported 39 mm away), so the result is not trusted.
  if (r.distance - lower > 1e-7 * scale && !inflated_distance(a, b, r.distance + 1e-3 * scale, r))
    r.overlap = false;  // keep GJK's answer: nothing better is known
  return r;
}

namespace {

void ccd_support(const void* obj, const ccd_vec3_t* dir, ccd_vec3_t* out) {
  const auto* s = static_cast<const ConvexShape*>(obj);
  const Vec3 p = support(*s, Vec3(dir->v[0], dir->v[1], dir->v[2]));
  ccdVec3Set(out, p.x(), p.y(), p.z());
}

void ccd_support_core(const void* obj, const ccd_vec3_t* dir, ccd_vec3_t* out) {
  const auto* s = static_cast<const ConvexShape*>(obj);
  const Vec3 p = support_core(*s, Vec3(dir->v[0], dir->v[1], dir->v[2]));
  ccdVec3Set(out, p.x(), p.y(), p.z());
}

void ccd_centre(const void* obj, ccd_vec3_t* out) {
  const auto* s = static_cast<const ConvexShape*>(obj);
  ccdVec3Set(out, s->p.x(), s->p.y(), s->p.z());
}

}  // namespace

namespace {

struct Inflated {
  const ConvexShape* shape;
  double radius;
};

void ccd_support_inflated(const void* obj, const ccd_vec3_t* dir, ccd_vec3_t* out) {
  const auto* s = static_cast<const Inflated*>(obj);
  const Vec3 d(dir->v[0], dir->v[1], dir->v[2]);
  const Vec3 p = support_core(*s->shape, d) + s->radius * d.normalized();
  ccdVec3Set(out, p.x(), p.y(), p.z());
}

void ccd_centre_inflated(const void* obj, ccd_vec3_t* out) {
  const auto* s = static_cast<const Inflated*>(obj);
  ccdVec3Set(out, s->shape->p.x(), s->shape->p.y(), s->shape->p.z());
}

bool inflated_distance(const ConvexShape& a, const ConvexShape& b, double inflate, GjkResult& r) {
  const Inflated ia{&a, 0.0}, ib{&b, inflate};
  ccd_t ccd;
  CCD_INIT(&ccd);
  ccd.support1 = ccd.support2 = ccd_support_inflated;
  ccd.center1 = ccd.center2 = ccd_centre_inflated;
  ccd.max_iterations = 1000;
  ccd.epa_tolerance = 1e-9;
  ccd_real_t depth;
  ccd_vec3_t dir, pos;
  if (ccdGJKPenetration(&ia, &ib, &ccd, &depth, &dir, &pos) != 0) return false;
  Vec3 n(dir.v[0], dir.v[1], dir.v[2]);
  if (!(n.norm() > 0) || !std::isfinite(depth)) return false;
  n.normalize();
  const Vec3 mid(pos.v[0], pos.v[1], pos.v[2]);
  const double distance = inflate - depth;
  if (distance <= 0.0) {
    r.overlap = true;
    return true;
  }
  r.overlap = false;
  r.point_a = mid + 0.5 * depth * n;
  r.point_b = mid - 0.5 * depth * n + inflate * n;
  r.distance = distance;
  return true;
}

}  // namespace

bool epa_penetration(const ConvexShape& a, const ConvexShape& b, bool cores, double& depth, Vec3& normal,
                     Vec3& point_a, Vec3& point_b, bool mpr) {
  ccd_t ccd;
  CCD_INIT(&ccd);
  ccd.support1 = cores ? ccd_support_core : ccd_support;
  ccd.support2 = cores ? ccd_support_core : ccd_support;
  ccd.center1 = ccd_centre;
  ccd.center2 = ccd_centre;
  ccd.max_iterations = 1000;
  ccd.epa_tolerance = 1e-9;  // absolute (m): far below contact tolerances
  ccd_real_t d;
  ccd_vec3_t dir, pos;
  ccd.mpr_tolerance = 1e-9;
  const int status = mpr ? ccdMPRPenetration(&a, &b, &ccd, &d, &dir, &pos) : ccdGJKPenetration(&a, &b, &ccd, &d, &dir, &pos);
  if (status != 0) return false;
  normal = Vec3(dir.v[0], dir.v[1], dir.v[2]);
  const double len = normal.norm();
  if (!(len > 0) || !std::isfinite(d)) return false;
  normal /= len;
  const Vec3 mid(pos.v[0], pos.v[1], pos.v[2]);
  point_a = mid + 0.5 * d * normal;
  point_b = mid - 0.5 * d * normal;
  depth = d;
  if (cores) {
    const double ra = a.radius(), rb = b.radius();
    point_a += ra * normal;
    point_b -= rb * normal;
    depth += ra + rb;
  }
  return true;
}

}  // namespace graspsim
