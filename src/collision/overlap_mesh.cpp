// A closed mesh (any shape) ∩ a closed convex mesh, exactly, from the triangles of A near B.
//
// Divergence theorem over ∂(A∩B) = (∂A ∩ B) ∪ (∂B ∩ A), as cones from a point o inside B:
// - ∂A ∩ B: A's triangles near B (BVH) clipped by B's face planes (Sutherland–Hodgman). Each
//   edge a plane cuts keeps that plane's label.
// - ∂B ∩ A, per plane k of B: the region R_k = face_k ∩ A, measured by Green's theorem over its
//   boundary: the clipped A polygons' edges labelled k (reversed), plus the stretches of B's
//   edges inside A. Along an edge the winding number of A starts at its first vertex's value and
//   steps ±1 at each crossing with A's surface, so each crossing adds a signed term: no sorting.
// - B's vertex windings: one ray cast, then carried along B's edges by their crossings.
//
// Degeneracies (A's vertices on B's planes, B's edges along or through A's edges and vertices,
// coplanar faces): every inside/outside and crossing decision is taken on a copy of B scaled
// by 1 + λ about a generic interior point (its faces move out by ~1e-10 of the coordinates'
// size, far above round-off), which has none of them, while every length, area and point is
// computed on the true B. For an exact degeneracy these decisions are those of the limit
// λ → 0, so the result stays exact; only a configuration within ~λ of one (but not on it) can
// be off, by an amount of that order. A coplanar pair of faces with the same outward direction
// lands on A's side (B's face is just outside A), as CGAL reports it; faces touching with
// opposite directions are taken out of both sides. Crossing tests against A's edges evaluate
// each (B edge, A edge) orientation once in a canonical direction, so a line through a shared
// edge is counted exactly once. A result that fails the parity or closure checks is recomputed
// with another perturbation, and finally by CGAL (never seen in testing).

#include <algorithm>
#include <array>
#include <cmath>
#include <numeric>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "collision/bvh.h"
#include "collision/overlap.h"
#include "collision/overlap_detail.h"
#include "core/error.h"

namespace graspsim {

namespace {

// Decisions are taken on B scaled so its faces move by at least this × the coordinate scale:
// far above round-off (~1e-16), far below any tolerance a caller checks.
constexpr double kPerturbation = 1e-10;
constexpr int kAttempts = 3;

// ---------------------------------------------------------------- B, the convex side

struct Face {               // a plane of B (coplanar triangles merged)
  Vec3 n = Vec3::UnitZ();   // unit outward normal
  double d = 0.0;           // n·x = d
  double shift = 0.0;       // the perturbed plane is n·x = d + shift
  Vec3 origin = Vec3::Zero(), u = Vec3::UnitX(), v = Vec3::UnitY();  // 2D frame, u × v = n
  double twice_area = 0.0, mu = 0.0, mv = 0.0;  // Green's theorem sums (×2, ×6, ×6)

  void add(const Vec3& a, const Vec3& b, double weight) {  // the segment a→b of R's boundary
    const double ua = u.dot(a - origin), va = v.dot(a - origin);
    const double ub = u.dot(b - origin), vb = v.dot(b - origin);
    const double c = weight * (ua * vb - va * ub);
    twice_area += c;
    mu += c * (ua + ub);
    mv += c * (va + vb);
  }
  double excess(const Vec3& x) const { return n.dot(x) - d - shift; }  // > 0: outside the perturbed plane
  double area() const { return 0.5 * twice_area; }
  Vec3 moment() const { return area() * origin + (mu / 6.0) * u + (mv / 6.0) * v; }  // ∫ x dA
};

struct Edge {               // an edge of B between faces of different planes
  int p = 0, q = 0;         // B's vertices; p→q runs counter-clockwise around face `left`
  int left = 0, right = 0;
};

struct ConvexSide {
  std::vector<Vec3> x;      // vertices in A's frame
  std::vector<Vec3> xp;     // the same, perturbed (decisions only)
  std::vector<Face> faces;
  std::vector<Edge> edges;
  std::vector<std::vector<int>> face_edges;  // per plane, the edges around it
  Vec3 centroid = Vec3::Zero();
  double size = 0.0;        // bounding-box diagonal
  double inradius = 0.0;    // distance from `centroid` to the nearest face plane
};

struct HalfEdge {
  int lo, hi, tri;
  bool forward;             // the triangle runs lo→hi
};

// B's half-edges paired up; throws unless every edge has exactly two opposite halves.
std::vector<HalfEdge> paired_half_edges(const Mesh& b) {
  std::vector<HalfEdge> h;
  h.reserve(3 * b.faces.size());
  const int nv = static_cast<int>(b.vertices.size());
  auto fail = [&](const std::string& why) {
    throw InputError("overlap_volume: mesh '" + b.name + "' is not closed: " + why);
  };
  if (b.faces.empty()) fail("has no faces");
  for (int t = 0; t < static_cast<int>(b.faces.size()); ++t)
    for (int k = 0; k < 3; ++k) {
      const int i = b.faces[t][k], j = b.faces[t][(k + 1) % 3];
      if (i < 0 || j < 0 || i >= nv || j >= nv) fail("face index out of range");
      h.push_back({std::min(i, j), std::max(i, j), t, i < j});
    }
  std::sort(h.begin(), h.end(), [](const HalfEdge& e, const HalfEdge& f) {
    return std::tie(e.lo, e.hi, e.forward) < std::tie(f.lo, f.hi, f.forward);
  });
  for (size_t i = 0; i < h.size(); i += 2) {
    const bool pair = i + 1 < h.size() && h[i].lo == h[i + 1].lo && h[i].hi == h[i + 1].hi &&
                      !h[i].forward && h[i + 1].forward;
    const bool alone = i + 2 >= h.size() || h[i + 2].lo != h[i].lo || h[i + 2].hi != h[i].hi;
    if (!pair || !alone)
      fail("edge " + std::to_string(h[i].lo) + "-" + std::to_string(h[i].hi) +
           " is not shared by exactly two oppositely wound faces");
  }
  return h;
}

int find_root(std::vector<int>& parent, int i) {
  while (parent[i] != i) i = parent[i] = parent[parent[i]];
  return i;
}

// B in A's frame: its planes (adjacent coplanar triangles merged, as overlap.cpp's face_planes
// does) and the edges between different planes.
ConvexSide prepare(const Mesh& b, const Pose& X_AB) {
  ConvexSide cs;
  const std::vector<HalfEdge> halves = paired_half_edges(b);
  BoundingBox box;
  for (const Vec3& v : b.vertices) {
    cs.x.push_back(X_AB * v);
    box.extend(cs.x.back());
  }
  cs.size = box.diagonal().norm();
  const int nt = static_cast<int>(b.faces.size());
  std::vector<Vec3> cross(nt);
  for (int t = 0; t < nt; ++t) {
    const auto& f = b.faces[t];
    cross[t] = (cs.x[f[1]] - cs.x[f[0]]).cross(cs.x[f[2]] - cs.x[f[0]]);
  }
  const double tol = 1e-12 * cs.size;
  auto degenerate = [&](int t) { return !(cross[t].norm() > tol * tol); };
  auto flat = [&](int s, int t) {  // t's vertices on s's plane
    const Vec3 n = cross[s].normalized();
    return n.dot(cross[t]) > 0.0 && std::all_of(b.faces[t].begin(), b.faces[t].end(), [&](int i) {
      return std::abs(n.dot(cs.x[i] - cs.x[b.faces[s][0]])) <= tol;
    });
  };
  std::vector<int> parent(nt);
  std::iota(parent.begin(), parent.end(), 0);
  for (size_t i = 0; i < halves.size(); i += 2) {
    const int s = halves[i].tri, t = halves[i + 1].tri;
    if (!degenerate(s) && !degenerate(t) && flat(s, t) && flat(t, s)) parent[find_root(parent, s)] = find_root(parent, t);
  }
  for (size_t i = 0; i < halves.size(); i += 2) {  // a sliver joins one neighbour's plane
    const int s = halves[i].tri, t = halves[i + 1].tri;
    if (degenerate(s) && find_root(parent, s) == s) parent[s] = find_root(parent, t);
    else if (degenerate(t) && find_root(parent, t) == t) parent[t] = find_root(parent, s);
  }
  std::vector<int> face_of(nt, -1), index(nt, -1);
  std::vector<Vec3> sum_cross;
  std::vector<double> sum_d;
  for (int t = 0; t < nt; ++t) {
    const int r = find_root(parent, t);
    if (index[r] < 0) {
      index[r] = static_cast<int>(sum_cross.size());
      sum_cross.push_back(Vec3::Zero());
      sum_d.push_back(0.0);
    }
    face_of[t] = index[r];
  }
  for (int t = 0; t < nt; ++t) sum_cross[face_of[t]] += cross[t];
  cs.faces.resize(sum_cross.size());
  for (size_t k = 0; k < cs.faces.size(); ++k) cs.faces[k].n = sum_cross[k].normalized();
  std::vector<double> weight(cs.faces.size(), 0.0);
  for (int t = 0; t < nt; ++t) {  // offset: area-weighted over the plane's triangles
    Face& f = cs.faces[face_of[t]];
    const auto& v = b.faces[t];
    const double w = cross[t].norm();
    sum_d[face_of[t]] += w * f.n.dot(cs.x[v[0]] + cs.x[v[1]] + cs.x[v[2]]) / 3.0;
    weight[face_of[t]] += w;
  }
  for (const Vec3& v : cs.x) cs.centroid += v / static_cast<double>(cs.x.size());
  cs.inradius = kInf;
  for (size_t k = 0; k < cs.faces.size(); ++k) {
    Face& f = cs.faces[k];
    f.d = weight[k] > 0.0 ? sum_d[k] / weight[k] : f.n.dot(cs.centroid);
    f.u = f.n.unitOrthogonal();
    f.v = f.n.cross(f.u);
    f.origin = cs.centroid + (f.d - f.n.dot(cs.centroid)) * f.n;
    cs.inradius = std::min(cs.inradius, f.d - f.n.dot(cs.centroid));
  }
  for (size_t i = 0; i < halves.size(); i += 2) {
    const HalfEdge &back = halves[i], &fwd = halves[i + 1];  // sorted: backward half first
    if (face_of[back.tri] != face_of[fwd.tri]) cs.edges.push_back({fwd.lo, fwd.hi, face_of[fwd.tri], face_of[back.tri]});
  }
  cs.face_edges.resize(cs.faces.size());
  for (int i = 0; i < static_cast<int>(cs.edges.size()); ++i) {
    cs.face_edges[cs.edges[i].left].push_back(i);
    cs.face_edges[cs.edges[i].right].push_back(i);
  }
  return cs;
}

// Scales B's copy for decisions by 1 ± λ about a generic interior point; `grow` puts coplanar
// same-direction faces on A's side (B grows), otherwise on B's.
void perturb(ConvexSide& cs, double scale, int attempt, bool grow) {
  static const std::array<Vec3, kAttempts> directions{Vec3(0.5377, 0.8622, -0.3188).normalized(),
                                                      Vec3(-0.7281, 0.1409, 0.6712).normalized(),
                                                      Vec3(0.2297, -0.6130, -0.7559).normalized()};
  const Vec3 c = cs.centroid + 0.5 * cs.inradius * directions[attempt];
  double nearest = kInf;
  for (const Face& f : cs.faces) nearest = std::min(nearest, f.d - f.n.dot(c));
  const double lambda = (grow ? 1.0 : -1.0) * std::min(1e-4, kPerturbation * (1 + 2 * attempt) * scale / nearest);
  for (Face& f : cs.faces) f.shift = lambda * (f.d - f.n.dot(c));
  cs.xp.resize(cs.x.size());
  for (size_t i = 0; i < cs.x.size(); ++i) cs.xp[i] = c + (1.0 + lambda) * (cs.x[i] - c);
}

// ---------------------------------------------------------------- crossings with A

// Side of the line P + s·D against A's edge (i, j), as seen by the triangle running i→j. The
// orientation is computed in one canonical direction per edge, so the two triangles sharing
// the edge always disagree: a line through the edge crosses exactly one of them.
bool left_of(const Mesh& a, const Vec3& P, const Vec3& D, int i, int j) {
  const bool canonical = i < j;
  const Vec3& lo = a.vertices[canonical ? i : j];
  const Vec3& hi = a.vertices[canonical ? j : i];
  const bool positive = (lo - P).cross(hi - P).dot(D) > 0.0;
  return canonical ? positive : !positive;
}

// +1 when the (perturbed) segment P→Q enters A through triangle f, -1 when it leaves, else 0.
int crossing(const Mesh& a, const std::array<int, 3>& f, const Vec3& P, const Vec3& Q, const Vec3& D) {
  const Vec3& x0 = a.vertices[f[0]];
  const Vec3 n = (a.vertices[f[1]] - x0).cross(a.vertices[f[2]] - x0);
  const bool p_out = n.dot(P - x0) > 0.0, q_out = n.dot(Q - x0) > 0.0;
  if (p_out == q_out) return 0;
  const bool s0 = left_of(a, P, D, f[0], f[1]);
  if (left_of(a, P, D, f[1], f[2]) != s0 || left_of(a, P, D, f[2], f[0]) != s0) return 0;
  return p_out ? 1 : -1;
}

// Where segment X→Y (true geometry) meets triangle f's plane, as a fraction of the way.
double crossing_fraction(const Mesh& a, const std::array<int, 3>& f, const Vec3& X, const Vec3& Y) {
  const Vec3& x0 = a.vertices[f[0]];
  const Vec3 n = (a.vertices[f[1]] - x0).cross(a.vertices[f[2]] - x0);
  const double sx = n.dot(X - x0), sy = n.dot(Y - x0);
  return sx != sy ? std::clamp(sx / (sx - sy), 0.0, 1.0) : 0.5;
}

// Winding number of A about point p (0 outside, 1 inside for a valid mesh): minus the signed
// crossings of an axis-aligned ray from p to past A's bounds, on the shortest way out.
int winding(const Mesh& a, const MeshBvh& bvh, const Vec3& p, std::vector<int>& scratch) {
  const BoundingBox& bounds = bvh.bounds();
  if (!bounds.contains(p)) return 0;
  int axis = 0;
  double sign = 1.0, best = kInf;
  for (int i = 0; i < 3; ++i) {
    if (bounds.max()[i] - p[i] < best) best = bounds.max()[i] - p[i], axis = i, sign = 1.0;
    if (p[i] - bounds.min()[i] < best) best = p[i] - bounds.min()[i], axis = i, sign = -1.0;
  }
  const Vec3 far = p + sign * (best + 1e-3 * bounds.diagonal().norm()) * Vec3::Unit(axis);
  BoundingBox ray(p);
  ray.extend(far);
  scratch.clear();
  bvh.query(ray, scratch);
  const Vec3 D = far - p;
  int w = 0;
  for (int t : scratch) w -= crossing(a, a.faces[t], p, far, D);
  return w;
}

// ---------------------------------------------------------------- the computation

struct Crossing {
  Vec3 z;
  int sign;  // +1 entering A along the edge's p→q
};

struct Sums {  // cones from o over the boundary pieces
  Vec3 o = Vec3::Zero();
  double volume = 0.0;
  Vec3 moment = Vec3::Zero();      // ∫ (x - o) dV
  Vec3 area_normal = Vec3::Zero();  // closure: Σ area·n = 0
  double area = 0.0;        // Σ |area|
  double gross_area = 0.0;  // and of what cancelled (touching faces): round-off scale

  void add(double area_piece, const Vec3& moment_piece, const Vec3& n, const Vec3& on_plane) {
    const double h = n.dot(on_plane - o);
    volume += h * area_piece / 3.0;
    moment += 0.25 * h * (moment_piece - area_piece * o);  // cone centroid: 3/4 of the way to the base's
    area_normal += area_piece * n;
    area += std::abs(area_piece);
    gross_area += std::abs(area_piece);
  }
};

class MeshConvex {
 public:
  MeshConvex(const Mesh& a, const MeshBvh& bvh, ConvexSide& b, const std::vector<int>& near, bool grow)
      : a_(a), bvh_(bvh), b_(b), near_(near), grow_(grow) {}

  // Empty optional when the parity or closure checks fail.
  std::optional<OverlapResult> run(const Pose& X_WA);

 private:
  struct ClipPoint {
    Vec3 x, xp;  // true and perturbed positions
    int label;   // of the edge to the next point: -1 on A's edge, else the plane that cut it
  };
  void near_triangles(Sums& sums, OverlapResult& r, const Pose& X_WA);
  bool classify(const std::array<int, 3>& f);
  bool clip(const std::array<int, 3>& f, std::vector<ClipPoint>& poly);
  void edge_crossings(const std::array<int, 3>& f);
  int touching_face(const std::array<int, 3>& f, const Vec3& unit) const;
  bool windings();
  void add_edge_stretches();

  const Mesh& a_;
  const MeshBvh& bvh_;
  ConvexSide& b_;
  const std::vector<int>& near_;  // A's triangles whose boxes meet B's
  bool grow_;                     // B's copy for decisions is larger than B
  std::vector<int> w_;            // winding of A at each B vertex (-1: not on an edge)
  std::vector<std::vector<Crossing>> crossings_;  // per edge of B
  std::vector<int> scratch_;
  std::vector<ClipPoint> clip_scratch_;
  std::vector<int> cutting_;      // planes that cut the current triangle
  std::vector<int> straddled_;    // planes it reaches, within round-off
  std::vector<char> is_straddled_;  // per plane
  std::vector<double> excess_;
};

// Crossings of A's triangle f with B's edges. Only an edge whose two planes the triangle
// reaches can cross it, so most triangles (inside B, or cut by one plane) test none.
void MeshConvex::edge_crossings(const std::array<int, 3>& f) {
  for (int k : straddled_)
    for (int i : b_.face_edges[k]) {
      const Edge& e = b_.edges[i];
      const int other = e.left == k ? e.right : e.left;
      if (other < k || !is_straddled_[other]) continue;  // each edge once
      const int lo = std::min(e.p, e.q), hi = std::max(e.p, e.q);  // one direction per edge
      const int s = crossing(a_, f, b_.xp[lo], b_.xp[hi], b_.xp[hi] - b_.xp[lo]);
      if (s == 0) continue;
      const double t = crossing_fraction(a_, f, b_.x[lo], b_.x[hi]);
      crossings_[i].push_back({b_.x[lo] + t * (b_.x[hi] - b_.x[lo]), lo == e.p ? s : -s});
    }
}

// Winding numbers at B's vertices: one ray cast from the vertex nearest the outside of A's
// bounds, then along B's edges. False when they are not consistently 0 or 1.
bool MeshConvex::windings() {
  const int nv = static_cast<int>(b_.x.size());
  std::vector<std::vector<int>> incident(nv);
  for (int i = 0; i < static_cast<int>(b_.edges.size()); ++i) {
    incident[b_.edges[i].p].push_back(i);
    incident[b_.edges[i].q].push_back(i);
  }
  const BoundingBox& bounds = bvh_.bounds();
  int root = -1;
  double best = kInf;
  for (int i = 0; i < nv; ++i) {
    if (incident[i].empty()) continue;
    const Vec3 inner = (b_.xp[i] - bounds.min()).cwiseMin(bounds.max() - b_.xp[i]);
    const double exit = std::max(0.0, inner.minCoeff());
    if (exit < best) best = exit, root = i;
  }
  w_.assign(nv, -1);
  if (root < 0) return false;
  w_[root] = winding(a_, bvh_, b_.xp[root], scratch_);
  std::vector<int> stack{root};
  while (!stack.empty()) {
    const int i = stack.back();
    stack.pop_back();
    for (int k : incident[i]) {
      const Edge& e = b_.edges[k];
      int step = 0;
      for (const Crossing& c : crossings_[k]) step += c.sign;
      const int j = e.p == i ? e.q : e.p;
      const int wj = w_[i] + (e.p == i ? step : -step);
      if (wj < 0 || wj > 1) return false;
      if (w_[j] < 0) {
        w_[j] = wj;
        stack.push_back(j);
      } else if (w_[j] != wj) {
        return false;
      }
    }
  }
  return w_[root] == 0 || w_[root] == 1;
}

// The planes that cut A's triangle f (`cutting_`) and those it reaches within round-off
// (`straddled_`), from its vertices, which both copies of B share. False when one plane has
// it all outside: usually it is that, or inside.
bool MeshConvex::classify(const std::array<int, 3>& f) {
  cutting_.clear();
  for (int k : straddled_) is_straddled_[k] = 0;
  straddled_.clear();
  const Vec3 &x0 = a_.vertices[f[0]], &x1 = a_.vertices[f[1]], &x2 = a_.vertices[f[2]];
  const Vec3 c = (x0 + x1 + x2) / 3.0;  // a bounding sphere settles most planes in one product
  const double r = std::sqrt(std::max({(x0 - c).squaredNorm(), (x1 - c).squaredNorm(), (x2 - c).squaredNorm()}));
  for (int k = 0; k < static_cast<int>(b_.faces.size()); ++k) {
    const Face& pl = b_.faces[k];
    const double tol = 1e-3 * std::abs(pl.shift), centre = pl.excess(c);
    if (centre < -r - 2.0 * tol) continue;  // inside, with a margin far above round-off
    if (centre > r + tol) return false;
    const double e0 = pl.excess(x0), e1 = pl.excess(x1), e2 = pl.excess(x2);
    if (std::min({e0, e1, e2}) > 0.0) return false;
    if (std::max({e0, e1, e2}) > 0.0) cutting_.push_back(k);
    if (std::max({e0, e1, e2}) > -tol) {
      straddled_.push_back(k);
      is_straddled_[k] = 1;
    }
  }
  return true;
}

// A's triangle f clipped by all of B's planes: decided on the perturbed planes (the points
// `xp`, where they cut), measured on the true ones (the points `x`, at their own crossings).
bool MeshConvex::clip(const std::array<int, 3>& f, std::vector<ClipPoint>& poly) {
  poly.clear();
  for (int i : f) poly.push_back({a_.vertices[i], a_.vertices[i], -1});
  std::vector<ClipPoint>& next = clip_scratch_;
  for (int k : cutting_) {
    const Face& pl = b_.faces[k];
    next.clear();
    const size_t m = poly.size();
    excess_.resize(m);
    for (size_t i = 0; i < m; ++i) excess_[i] = pl.excess(poly[i].xp);
    for (size_t i = 0; i < m; ++i) {
      const ClipPoint &p = poly[i], &q = poly[(i + 1) % m];
      const double dp = excess_[i], dq = excess_[(i + 1) % m];
      if (dp <= 0.0) next.push_back(p);
      if ((dp <= 0.0) == (dq <= 0.0)) continue;
      const double sp = pl.n.dot(p.x) - pl.d, sq = pl.n.dot(q.x) - pl.d;
      const double tp = dp / (dp - dq), t = sp != sq ? std::clamp(sp / (sp - sq), 0.0, 1.0) : tp;
      next.push_back({p.x + t * (q.x - p.x), p.xp + tp * (q.xp - p.xp), dp <= 0.0 ? k : p.label});
    }
    std::swap(poly, next);
    if (poly.size() < 3) return false;
  }
  return true;
}

// ∂A ∩ B: each near triangle clipped by B's planes; cut edges go to their plane's R_k. And
// the crossings of B's edges with A's surface.
void MeshConvex::near_triangles(Sums& sums, OverlapResult& r, const Pose& X_WA) {
  std::vector<ClipPoint> poly;
  const Mat3 R_WA = X_WA.R();
  is_straddled_.assign(b_.faces.size(), 0);
  straddled_.clear();
  crossings_.assign(b_.edges.size(), {});
  for (int t : near_) {
    const auto& f = a_.faces[t];
    if (!classify(f)) continue;
    if (straddled_.size() >= 2) edge_crossings(f);
    if (!clip(f, poly)) continue;
    const size_t m = poly.size();
    for (size_t i = 0; i < m; ++i)
      if (poly[i].label >= 0) b_.faces[poly[i].label].add(poly[(i + 1) % m].x, poly[i].x, 1.0);
    const Vec3 n = (a_.vertices[f[1]] - a_.vertices[f[0]]).cross(a_.vertices[f[2]] - a_.vertices[f[0]]);
    if (!(n.norm() > 0.0)) continue;  // no area, but its cut edges may still bound an R_k
    const Vec3 unit = n.normalized();
    double area = 0.0;
    Vec3 moment = Vec3::Zero();
    for (size_t i = 1; i + 1 < m; ++i) {
      const double tri = 0.5 * unit.dot((poly[i].x - poly[0].x).cross(poly[i + 1].x - poly[0].x));
      area += tri;
      moment += tri * (poly[0].x + poly[i].x + poly[i + 1].x) / 3.0;
    }
    if (const int k = touching_face(f, unit); k >= 0) {
      // Faces touching from opposite sides bound no volume: out of R_k too (B grew over it).
      for (size_t i = 0; i < m; ++i) b_.faces[k].add(poly[i].x, poly[(i + 1) % m].x, 1.0);
      sums.gross_area += std::abs(area);
      continue;
    }
    sums.add(area, moment, unit, poly[0].x);
    if (area > 0.0) r.boundary_a.push_back({area, X_WA * (moment / area), R_WA * unit});
  }
}

// The plane of B that A's triangle f lies in with the opposite outward direction, or -1.
// Only when B grows for decisions: it then overlaps A by a sliver there.
int MeshConvex::touching_face(const std::array<int, 3>& f, const Vec3& unit) const {
  if (!grow_) return -1;
  for (int k = 0; k < static_cast<int>(b_.faces.size()); ++k) {
    const Face& pl = b_.faces[k];
    if (unit.dot(pl.n) > -1.0 + 1e-9) continue;
    const double tol = 1e-3 * std::abs(pl.shift);
    if (std::all_of(f.begin(), f.end(), [&](int i) { return std::abs(pl.n.dot(a_.vertices[i]) - pl.d) <= tol; }))
      return k;
  }
  return -1;
}

// ∂B ∩ A along B's edges: the inside stretches, by the winding at p plus a term per crossing.
void MeshConvex::add_edge_stretches() {
  for (size_t k = 0; k < b_.edges.size(); ++k) {
    const Edge& e = b_.edges[k];
    const Vec3 &p = b_.x[e.p], &q = b_.x[e.q];
    Face &left = b_.faces[e.left], &right = b_.faces[e.right];
    if (w_[e.p] != 0) {
      left.add(p, q, w_[e.p]);
      right.add(q, p, w_[e.p]);
    }
    for (const Crossing& c : crossings_[k]) {
      left.add(c.z, q, c.sign);
      right.add(q, c.z, c.sign);
    }
  }
}

std::optional<OverlapResult> MeshConvex::run(const Pose& X_WA) {
  OverlapResult r;
  Sums sums;
  sums.o = b_.centroid;
  for (Face& f : b_.faces) f.twice_area = f.mu = f.mv = 0.0;
  near_triangles(sums, r, X_WA);
  if (!windings()) return std::nullopt;
  add_edge_stretches();
  const Mat3 R_WA = X_WA.R();
  const double tiny_area = 1e-12 * b_.size * b_.size;
  for (const Face& f : b_.faces) {
    const double area = f.area();
    if (area == 0.0) continue;
    const Vec3 moment = f.moment();
    sums.add(area, moment, f.n, f.origin);
    if (area > tiny_area) r.boundary_b.push_back({area, X_WA * (moment / area), R_WA * f.n});
  }
  // Closed up to round-off, and to the size of the perturbation where a decision taken on
  // the perturbed copy was within it of the other way.
  double shift = 0.0;
  for (const Face& f : b_.faces) shift = std::max(shift, std::abs(f.shift));
  if (sums.area_normal.norm() > 1e-9 * sums.area + tiny_area + 100.0 * shift * b_.size) return std::nullopt;
  // No volume beyond round-off (faces touching, or apart): nothing.
  if (!(sums.volume > 1e-12 * b_.size * sums.gross_area + 1e-15 * std::pow(b_.size, 3))) return OverlapResult{};
  r.volume = sums.volume;
  r.centroid = X_WA * (sums.o + sums.moment / sums.volume);
  return r;
}

}  // namespace

namespace overlap_detail {

OverlapResult overlap_mesh_convex(const Mesh& a, const MeshBvh& bvh_a, const Pose& X_WA, const Mesh& b,
                                  const Pose& X_WB, bool coplanar_on_a) {
  ConvexSide cs = prepare(b, X_WA.inverse() * X_WB);
  const BoundingBox& bounds = bvh_a.bounds();
  BoundingBox box_b;
  for (const Vec3& v : cs.x) box_b.extend(v);
  const double margin = 1e-3 * cs.size;  // covers the perturbed copy (λ ≤ 1e-4)
  if (bounds.isEmpty() || !bounds.intersects(BoundingBox(box_b.min() - Vec3::Constant(margin),
                                                         box_b.max() + Vec3::Constant(margin))))
    return {};
  if (!(cs.inradius > 0.0)) return overlap_volume_cgal(a, X_WA, b, X_WB);  // not a solid convex B

  // A's triangles near B: the tree, queried with B's box in B's frame placed in A's.
  BoundingBox own;
  for (const Vec3& v : b.vertices) own.extend(v);
  const Pose X_AB = X_WA.inverse() * X_WB;
  const Obb obb{X_AB * own.center(), X_AB.R(), own.sizes() / 2.0 + Vec3::Constant(margin)};
  std::vector<int> near;
  bvh_a.query(obb, near);

  // Coordinates of size `scale` carry round-off of ~1e-16·scale; the perturbation dwarfs it.
  const double scale = std::max({bounds.min().cwiseAbs().maxCoeff(), bounds.max().cwiseAbs().maxCoeff(),
                                 box_b.min().cwiseAbs().maxCoeff(), box_b.max().cwiseAbs().maxCoeff(), cs.size});
  for (int attempt = 0; attempt < kAttempts; ++attempt) {
    perturb(cs, scale, attempt, coplanar_on_a);
    MeshConvex job(a, bvh_a, cs, near, coplanar_on_a);
    if (std::optional<OverlapResult> r = job.run(X_WA)) return std::move(*r);
  }
  return overlap_volume_cgal(a, X_WA, b, X_WB);
}

}  // namespace overlap_detail

OverlapResult overlap_volume_mesh_convex(const Mesh& a, const MeshBvh& bvh_a, const Pose& X_WA, const Mesh& b,
                                         const Pose& X_WB) {
  return overlap_detail::overlap_mesh_convex(a, bvh_a, X_WA, b, X_WB, true);
}

}  // namespace graspsim
